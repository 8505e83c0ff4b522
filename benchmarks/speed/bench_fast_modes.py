"""CPU fast modes judged by the split they make, not only by nats.

Scores the same requests with the bundled model in float32 (the reference mode) and in each
``--modes`` precision, all in one run on identical weights, and prints per mode:

- tokens/s and the speed-up over float32 (tokenising and planning excluded);
- Spearman's ρ between the mode's scores and float32's;
- the share of the evaluation set (dev + test, 10% + 10%, label-balanced when the data has
  labels; seed 0) that is identical to float32's split — what a user would publish.

On ``--snli`` prompted SNLI pairs (``snli`` template) and ``--spider`` Spider training
questions (``spider`` template; no labels). Modes: ``bfloat16`` runs the whole model in bfloat16
(transformers' model; oneDNN's AVX-512 BF16 kernels where the CPU has them; the vocabulary
projection stays float32); ``mixed-bfloat16`` / ``mixed-float16`` keep float32 weights and
run the matrix products under autocast (the native model); ``int8-dynamic`` quantises the
decoder's linear layers to int8 per output channel with activations quantised per batch
(``torch.ao.quantization.quantize_dynamic``, fbgemm's VNNI kernels; transformers' model);
``compile`` is float32 through ``torch.compile(dynamic=True)`` (its compile time, about a
minute here, is not in the timing). Run:

    python -m benchmarks.speed.bench_fast_modes --snli 3000 --spider 3000 \
        --modes mixed-bfloat16 bfloat16 int8-dynamic compile
"""

from __future__ import annotations

import platform
import time

import numpy as np
import torch

from benchmarks import harness
from benchmarks.harness import write_results
from tailsplit.analysis.compare import ranks
from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.driver import build_requests
from tailsplit.scoring.hf import HFScorer
from tailsplit.splits import LikelihoodSplitter, SplitInputs

SHARED = harness.ROOT.parent / "shared" / "data"


def scores_of(scorer: HFScorer, requests: list) -> tuple[np.ndarray, np.ndarray, float, int]:
    """(logprob_sum, n_tokens, seconds, tokens) with planning outside the timing."""
    batches = scorer.plan(requests)
    firsts = {batch.payload[0]: batch for batch in reversed(batches)}  # the first batch of each kind
    for batch in [*batches[:2], *firsts.values()]:
        scorer.score_batch(batch)  # warm up this mode's kernels (and compile its graphs)
    total = np.zeros(len(requests))
    counts = np.zeros(len(requests), dtype=np.int64)
    start = time.perf_counter()
    for batch in batches:
        scored = scorer.score_batch(batch)
        total[batch.indices] = scored.logprob_sum
        counts[batch.indices] = scored.n_tokens
    return total, counts, time.perf_counter() - start, sum(b.n_tokens for b in batches)


def eval_set(scores: np.ndarray, counts: np.ndarray, labels: np.ndarray | None) -> set[int]:
    splitter = LikelihoodSplitter(dev_size=0.1, test_size=0.1, balance_labels=labels is not None, seed=0)
    split = splitter.split(
        SplitInputs(
            n=len(scores),
            word_lengths=np.ones(len(scores), np.int64),
            logprob_sum=scores,
            n_tokens=counts,
            labels=labels,
        )  # fmt: skip
    )
    return set(split.eval_idx.tolist())


def make_scorer(mode: str) -> HFScorer:
    if mode == "int8-dynamic":
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

        scorer = HFScorer(implementation="transformers")
        model = scorer.model
        model.model.layers = quantize_dynamic(model.model.layers, {torch.nn.Linear: per_channel_dynamic_qconfig})
        return scorer
    if mode == "compile":
        scorer = HFScorer()
        body = scorer.model.body
        body.forward = torch.compile(body.forward, dynamic=True)
        return scorer
    return HFScorer(dtype=mode)


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])


def run_task(name: str, requests: list, labels: np.ndarray | None, modes: list[str]) -> dict:
    reference = HFScorer(dtype="float32", share_prefix="auto")
    base, base_counts, base_s, tokens = scores_of(reference, requests)
    base_eval = eval_set(base, base_counts, labels)
    rows = {"float32": {"seconds": round(base_s, 2), "tokens_per_s": round(tokens / base_s, 1)}}
    print(
        f"\n{name}: {len(requests)} requests, {tokens:,} tokens; float32 {base_s:.1f} s ({tokens / base_s:.0f} tokens/s)"
    )
    for mode in modes:
        scorer = make_scorer(mode)
        got, counts, seconds, _ = scores_of(scorer, requests)
        shared = len(eval_set(got, counts, labels) & base_eval) / len(base_eval)
        rows[mode] = {
            "seconds": round(seconds, 2),
            "tokens_per_s": round(tokens / seconds, 1),
            "speedup_vs_float32": round(base_s / seconds, 2),
            "spearman_vs_float32": round(spearman(got, base), 5),
            "eval_set_identical": round(shared, 4),
            "max_abs_diff_nats": round(float(np.max(np.abs(got - base))), 4),
        }
        r = rows[mode]
        print(
            f"  {mode:>15}: {r['tokens_per_s']:7.0f} tokens/s ({r['speedup_vs_float32']:.2f}× float32), "
            f"Spearman {r['spearman_vs_float32']:.4f}, evaluation set {100 * shared:.1f}% identical, "
            f"max |Δ| {r['max_abs_diff_nats']:.3f} nats"
        )
        del scorer
    return rows


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--snli", type=int, default=3000, help="SNLI pairs (0: skip)")
    parser.add_argument("--spider", type=int, default=3000, help="Spider questions (0: skip)")
    parser.add_argument("--modes", nargs="+", default=["bfloat16", "mixed-bfloat16"])
    args = parser.parse_args()
    print(f"{platform.machine()}, {torch.get_num_threads()} threads, torch {torch.__version__}, "
          f"CPU capability {torch.backends.cpu.get_cpu_capability()}")  # fmt: skip
    results = {}
    if args.snli:
        snli = load_examples(
            SHARED / "snli" / "dev.jsonl.gz", FieldMap(text="hypothesis", context="premise", label="label")
        )
        snli = snli.subset(range(min(args.snli, len(snli))))
        labels = np.asarray(snli.labels, dtype=object)
        results["snli"] = run_task(
            "SNLI (snli template)", build_requests(snli, BUILTIN_TEMPLATES["snli"]), labels, args.modes
        )
    if args.spider:
        spider = load_examples(SHARED / "spider" / "train.jsonl.gz", FieldMap(text="question"))
        spider = spider.subset(range(min(args.spider, len(spider))))
        results["spider"] = run_task(
            "Spider questions (spider template)", build_requests(spider, BUILTIN_TEMPLATES["spider"]), None, args.modes
        )
    if args.json:
        write_results(args.json, results)


if __name__ == "__main__":
    main()
