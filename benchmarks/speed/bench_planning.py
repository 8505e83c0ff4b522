"""Tokenising and planning at scale: tailsplit's encoder and planner against the request-by-
request encoder and token-by-token planner they replaced, in one run.

Before the first batch reaches a GPU, every request is tokenised and the batches are
planned (length-sorted, prompts shared). At 570,000 SNLI pairs this host work took as long
as scoring on an H100. This times it on SNLI-shaped pairs (the bundled sample under the
``snli`` prompt, copied with reshuffled premises, as in ``bench_gpu.py``) with the bundled
model's tokenizer and the GPU's batch settings — no model runs:

- ``encode_batch``: the Rust tokenizer alone, on every core, collector paused (the floor of
  tokenising);
- tokenising: the baseline finishes each encoding in a loop that the garbage collector
  interrupts; tailsplit's (:mod:`tailsplit.scoring.encoding`) pauses the collector;
- planning: the baseline sorts the id lists and compares each sequence with its group's
  first member token by token; tailsplit's (:mod:`tailsplit.scoring.batching`) sorts byte
  keys and compares all sorted neighbours at once with numpy.

Both must give the same token sequences and identical batches; the script checks it. Best
of ``--repeats``, the two taking turns to go first. Run:

    python -m benchmarks.speed.bench_planning --pairs 570000 --repeats 2
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.harness import write_results
from benchmarks.speed.bench_gpu import DEFAULT_DATA, build_model_folder, synthetic_requests
from tailsplit.collector import paused_gc
from tailsplit.forking import usable_cores
from tailsplit.scoring.base import Batch
from tailsplit.scoring.batching import (
    Encoded,
    FlatTokens,
    PrefixGroup,
    pack_plain,
    packed_length,
    plan_batches,
    split_long_groups,
)
from tailsplit.scoring.encoding import TokenRules, encode_requests, start_id
from tailsplit.scoring.hf import HFScorer

BATCH_TOKENS, MAX_ROWS = 32768, 8192  # the GPU defaults where planning has no GPU


def baseline_encode(backend, requests, rules: TokenRules) -> list[Encoded]:
    """The request-by-request finish, as tailsplit had it (collector running)."""
    encodings = backend.encode_batch([r.prompt + r.query for r in requests], add_special_tokens=False)
    out = []
    for request, encoding in zip(requests, encodings):
        ids = encoding.ids
        boundary = len(request.prompt.rstrip())
        token = encoding.char_to_token(boundary) if boundary else 0
        if token is None:
            token = next((i for i, (_, end) in enumerate(encoding.offsets) if end > boundary), len(ids))
        first = int(token)
        if rules.start_id is not None:
            ids, first = [rules.start_id, *ids], first + 1
        first = max(first, 1)
        if len(ids) > rules.limit:
            cut = len(ids) - rules.limit
            out.append(Encoded(ids[cut:], max(first - cut, 1), True))
        else:
            out.append(Encoded(ids, first, False))
    return out


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    k = 0
    while k < n and a[k] == b[k]:
        k += 1
    return k


def baseline_groups(encoded: list[Encoded]) -> list[PrefixGroup]:
    """Sorted id lists, each compared token by token with its group's first member."""
    eligible = [i for i, e in enumerate(encoded) if not e.truncated]
    eligible.sort(key=lambda i: encoded[i].ids)
    groups: list[PrefixGroup] = []
    current: list[int] = []
    prefix = initial = 0
    for i in eligible:
        if current:
            shared = min(prefix, _common_prefix(encoded[current[0]].ids, encoded[i].ids), encoded[i].first - 1)
            n = len(current)
            if shared >= 4 and 2 * shared >= initial and n * shared >= (n - 1) * prefix:
                current.append(i)
                prefix = shared
                continue
            groups.append(PrefixGroup(prefix, current))
        current, prefix = [i], encoded[i].first - 1
        initial = prefix
    if current:
        groups.append(PrefixGroup(prefix, current))
    return groups


def baseline_plan(encoded: list[Encoded]) -> list[Batch]:
    """The token-by-token planner (``share_prefix="auto"``), Python loops throughout; long
    groups are cut by tailsplit's own :func:`split_long_groups`, which was not rewritten."""
    lengths = np.array([len(e.ids) for e in encoded], dtype=np.int64)
    everything = np.arange(len(encoded), dtype=np.int64)
    groups = split_long_groups(baseline_groups(encoded), lengths, min(1024, max(256, BATCH_TOKENS // 4)))
    if sum(g.prefix_len * (len(g.members) - 1) for g in groups) < 0.15 * lengths.sum():
        return pack_plain(lengths, everything, BATCH_TOKENS, MAX_ROWS, encoded)
    row_lengths = np.array([packed_length(g, encoded) for g in groups], dtype=np.int64)
    order = np.lexsort((np.arange(len(groups)), -row_lengths))
    batches, start = [], 0
    while start < len(order):
        rows = max(1, min(MAX_ROWS, BATCH_TOKENS // max(int(row_lengths[order[start]]), 1)))
        chosen = [groups[k] for k in order[start : start + rows]]
        members = np.array([i for g in chosen for i in g.members], dtype=np.int64)
        payload = [(g.prefix_len, [encoded[i] for i in g.members]) for g in chosen]
        batches.append(Batch(members, sum(len(encoded[i].ids) for i in members), ("shared", payload)))
        start += rows
    shared = np.zeros(len(encoded), dtype=bool)
    for g in groups:
        shared[g.members] = True
    return batches + pack_plain(lengths, everything[~shared], BATCH_TOKENS, MAX_ROWS, encoded)


def packed_row(group: tuple[int, list[Encoded]]) -> int:
    """Tokens in one packed row: the prefix once, then each member's suffix."""
    prefix, members = group
    return prefix + sum(len(e.ids) - prefix for e in members)


def digest(encoded: list[Encoded], batches: list[Batch]) -> str:
    """A hash of the token sequences and of the plan (each batch's requests, tokens, kind and
    rows), so two runs are compared without keeping both in memory."""
    flat = FlatTokens.of(encoded)
    digest = hashlib.sha256(b"".join(a.tobytes() for a in (flat.ids, flat.lengths, flat.first, flat.truncated)))
    for batch in batches:
        kind, payload = batch.payload
        rows = [(prefix, len(members)) for prefix, members in payload] if kind == "shared" else len(payload)
        digest.update(batch.indices.tobytes() + f"{batch.n_tokens}|{kind}|{rows}".encode())
    return digest.hexdigest()


@dataclass
class Best:
    """The best of repeated timings: wall seconds, and the process' CPU seconds (every
    thread's) of that run."""

    seconds: float = float("inf")
    cpu_seconds: float = float("inf")

    def time(self, fn, *args, **kwargs):
        start, cpu = time.perf_counter(), time.process_time()
        out = fn(*args, **kwargs)
        if time.perf_counter() - start < self.seconds:
            self.seconds, self.cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
        return out


def main() -> None:
    parser = harness.parser(__doc__, "write the measurements to this results file")
    parser.add_argument("--pairs", type=int, default=570_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument(
        "--tokenizer", type=Path, help="a folder with the bundled model's tokenizer.json, in place of the bundled model "
        "(a machine without it: a tiny random Llama carries the tokenizer; no model runs)",
    )  # fmt: skip
    args = parser.parse_args()
    model = "smollm2"
    if args.tokenizer:
        model = tempfile.mkdtemp(prefix="tailsplit-bench-planning-")
        build_model_folder(args.tokenizer, Path(model), 0, "tiny")
    scorer = HFScorer(model, device="cpu", batch_tokens=BATCH_TOKENS, max_batch_size=MAX_ROWS)
    backend = scorer.tokenizer.backend_tokenizer
    rules = TokenRules(
        start_id(scorer.tokenizer, scorer.start_token, scorer.model_spec),
        None,
        scorer.context_limit(),
        scorer.truncation,
    )
    if args.tokenizer:
        shutil.rmtree(model)  # the tokenizer and the rules are read: the stand-in model is done with
    requests = synthetic_requests(DEFAULT_DATA, args.pairs, seed=0)
    texts = [r.prompt + r.query for r in requests]
    rust, old_encode, new_encode, old_plan, new_plan = Best(), Best(), Best(), Best(), Best()
    plan = functools.partial(plan_batches, batch_tokens=BATCH_TOKENS, max_rows=MAX_ROWS, share_prefix="auto")
    for repeat in range(args.repeats):
        with paused_gc():  # the tokenizer's own time, without the collector's
            rust.time(backend.encode_batch, texts, False)
        runs = [(old_encode, baseline_encode, old_plan, baseline_plan), (new_encode, encode_requests, new_plan, plan)]
        seen = set()
        for encode_best, encode, plan_best, plan_of in harness.alternating(repeat, runs):  # each first in turn
            encoded = batches = None  # only one run's results alive at a time
            encoded = encode_best.time(encode, backend, requests, rules)
            batches = plan_best.time(plan_of, encoded)
            seen.add(digest(encoded, batches))
        assert len(seen) == 1, "token sequences or plans differ"
    old_total, new_total = old_encode.seconds + old_plan.seconds, new_encode.seconds + new_plan.seconds
    tokens = sum(len(e.ids) for e in encoded)
    print(f"{args.pairs:,} pairs, {tokens:,} tokens, {len(batches)} batches, {usable_cores()} cores")
    print(f"encode_batch alone (Rust, every core): {rust.seconds:.1f} s, "
          f"{1e6 * rust.cpu_seconds / args.pairs:.0f} µs of CPU per pair")  # fmt: skip
    print(f"tokenise: baseline {old_encode.seconds:.1f} s, tailsplit {new_encode.seconds:.1f} s "
          f"({old_encode.seconds / new_encode.seconds:.2f}×)")  # fmt: skip
    print(f"plan:     baseline {old_plan.seconds:.1f} s, tailsplit {new_plan.seconds:.1f} s "
          f"({old_plan.seconds / new_plan.seconds:.2f}×)")  # fmt: skip
    print(f"together: baseline {old_total:.1f} s, tailsplit {new_total:.1f} s ({old_total / new_total:.2f}×); "
          "identical sequences and batches")  # fmt: skip
    rows = [packed_row(group) for b in batches if b.payload[0] == "shared" for group in b.payload[1]]
    if args.json:
        write_results(
            args.json,
            {
                "pairs": args.pairs,
                "tokens": tokens,
                "cores": usable_cores(),
                "batches": len(batches),
                "packed_batches": sum(b.payload[0] == "shared" for b in batches),
                "packed_rows": len(rows),
                "mean_packed_row_tokens": round(float(np.mean(rows)), 1) if rows else None,
                "longest_packed_row_tokens": max(rows, default=None),
                "encode_batch_s": round(rust.seconds, 2),
                "encode_batch_cpu_us_per_pair": round(1e6 * rust.cpu_seconds / args.pairs, 1),
                "baseline_tokenise_s": round(old_encode.seconds, 2),
                "tokenise_s": round(new_encode.seconds, 2),
                "tokenise_speedup": round(old_encode.seconds / new_encode.seconds, 2),
                "baseline_plan_s": round(old_plan.seconds, 2),
                "plan_s": round(new_plan.seconds, 2),
                "plan_speedup": round(old_plan.seconds / new_plan.seconds, 2),
                "baseline_total_s": round(old_total, 2),
                "total_s": round(new_total, 2),
                "total_speedup": round(old_total / new_total, 2),
            },
        )


if __name__ == "__main__":
    main()
