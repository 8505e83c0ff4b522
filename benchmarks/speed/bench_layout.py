"""Host-side batch layout: vectorised arrays against a row-by-row build, in one run.

On a GPU the host lays out batch ``i + 1`` while the device runs batch ``i``; when laying
out takes longer than the forward pass, the GPU waits. This times the host part alone for
batches planned with the GPU defaults (32,768 tokens, up to 8,192 rows) from SNLI-shaped
pairs (the bundled sample under the ``snli`` prompt, copied with reshuffled premises, as
in ``bench_gpu.py``) and the bundled model's tokenizer — no model runs:

- baseline: the arrays built one row at a time (a few numpy calls per row) and the packed
  rows' ``[rows, width, width]`` attention mask built on the host, as tailsplit did before;
- tailsplit: :mod:`tailsplit.scoring.layout` (whole-array numpy), timed alone (the host's
  share on a GPU), and the packed mask built from the ``[rows, width]`` owner array where
  the model runs (here the CPU, timed separately).

Both must give identical arrays; the script checks it. Run:

    python -m benchmarks.speed.bench_layout --pairs 30000
"""

from __future__ import annotations

import time

import numpy as np
import torch

from benchmarks import harness
from benchmarks.harness import write_results
from benchmarks.speed.bench_gpu import DEFAULT_DATA, synthetic_requests
from tailsplit.scoring.hf import HFScorer
from tailsplit.scoring.layout import packed_attention_mask, packed_layout, padded_layout


def rows_scored(rows, offsets, row_of):
    """Scored positions one row at a time."""
    parts = [[], [], [], []]
    for r, e in enumerate(rows):
        n = len(e.ids) - e.first
        parts[0].append(np.full(n, row_of[r]))
        parts[1].append(offsets[r] + np.arange(e.first - 1, len(e.ids) - 1))
        parts[2].append(np.asarray(e.ids[e.first :]))
        parts[3].append(np.full(n, r))
    return tuple(np.concatenate(p).astype(np.int64) for p in parts)


def row_by_row(batch) -> tuple:
    """The baseline: padded or packed arrays filled row by row, dense mask on the host."""
    kind, payload = batch.payload
    if kind == "plain":
        width = max(len(e.ids) for e in payload)
        input_ids = np.zeros((len(payload), width), dtype=np.int64)
        attention = np.zeros_like(input_ids)
        for r, e in enumerate(payload):
            input_ids[r, : len(e.ids)] = e.ids
            attention[r, : len(e.ids)] = 1
        position_ids = np.clip(np.cumsum(attention, axis=1) - 1, 0, None)
        return (
            input_ids,
            position_ids,
            attention,
            *rows_scored(payload, np.zeros(len(payload), dtype=np.int64), np.arange(len(payload))),
        )
    packed, offsets, row_of = [], [], []
    for g, (prefix_len, members) in enumerate(payload):
        ids, positions, owners = list(members[0].ids[:prefix_len]), list(range(prefix_len)), [-1] * prefix_len
        for j, e in enumerate(members):
            offsets.append(len(ids) - prefix_len)
            row_of.append(g)
            ids.extend(e.ids[prefix_len:])
            positions.extend(range(prefix_len, len(e.ids)))
            owners.extend([j] * (len(e.ids) - prefix_len))
        packed.append((ids, positions, owners))
    width = max(len(ids) for ids, _, _ in packed)
    input_ids = np.zeros((len(packed), width), dtype=np.int64)
    position_ids = np.zeros_like(input_ids)
    owner = np.full((len(packed), width), -2, dtype=np.int64)
    for r, (ids, positions, owners) in enumerate(packed):
        input_ids[r, : len(ids)], position_ids[r, : len(ids)], owner[r, : len(ids)] = ids, positions, owners
    causal = np.tril(np.ones((width, width), dtype=bool))
    visible = (owner[:, :, None] == owner[:, None, :]) | (owner[:, None, :] == -1)
    mask = (causal & visible) | np.eye(width, dtype=bool)
    rows = [e for _, members in payload for e in members]
    return (input_ids, position_ids, mask, *rows_scored(rows, np.array(offsets), np.array(row_of)))


def layout_of(batch):
    kind, payload = batch.payload
    return padded_layout(payload) if kind == "plain" else packed_layout(payload)


def arrays(layout) -> tuple:
    """The layout's arrays, the packed mask built from ``owner`` (with torch, on the CPU)."""
    attention = layout.attention
    if layout.packed:
        attention = packed_attention_mask(torch.from_numpy(attention))[:, 0].numpy()
    return (
        layout.input_ids,
        layout.position_ids,
        attention,
        layout.row_idx,
        layout.pos_idx,
        layout.targets,
        layout.example_idx,
    )


def timed(fn, batches) -> tuple[float, list]:
    start = time.perf_counter()
    out = [fn(b) for b in batches]
    return time.perf_counter() - start, out


def main() -> None:
    parser = harness.parser(__doc__, "write the measurements to this results file")
    parser.add_argument("--pairs", type=int, default=30000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    scorer = HFScorer(device="cpu", batch_tokens=32768, max_batch_size=8192)
    batches = scorer.plan(synthetic_requests(DEFAULT_DATA, args.pairs, seed=0))
    tokens = sum(b.n_tokens for b in batches)
    print(
        f"{args.pairs} pairs → {len(batches)} batches, {tokens} tokens "
        f"({sum(b.payload[0] == 'shared' for b in batches)} packed)"
    )
    base, host, mask = [], [], []
    for _ in range(args.repeats):  # interleaved, best of repeats
        seconds, expected = timed(row_by_row, batches)
        base.append(seconds)
        seconds, layouts = timed(layout_of, batches)
        host.append(seconds)
        seconds, got = timed(arrays, layouts)
        mask.append(seconds)
        for a, b in zip(expected, got):
            assert all(np.array_equal(x, y) for x, y in zip(a, b)), "layouts differ"
    owner_bytes = sum(packed_layout(b.payload[1]).attention.nbytes for b in batches if b.payload[0] == "shared")
    mask_bytes = sum(row_by_row(b)[2].nbytes for b in batches if b.payload[0] == "shared")
    n = len(batches)
    print(f"row by row + host mask:  {1000 * min(base) / n:.1f} ms/batch ({tokens / min(base):,.0f} tokens/s)")
    print(
        f"tailsplit layout (host): {1000 * min(host) / n:.1f} ms/batch ({tokens / min(host):,.0f} tokens/s) "
        f"= {min(base) / min(host):.1f}× faster"
    )
    print(
        f"  + packed masks from owner, on the CPU here (on a GPU they are built there): "
        f"{1000 * min(mask) / n:.1f} ms/batch; all together {min(base) / (min(host) + min(mask)):.1f}× faster"
    )
    print(
        f"identical arrays; host→device bytes for packed masks {mask_bytes / 2**20:.0f} MiB "
        f"→ owner {owner_bytes / 2**20:.0f} MiB"
    )
    if args.json:
        write_results(
            args.json,
            {
                "pairs": args.pairs,
                "batches": n,
                "tokens": tokens,
                "row_by_row_ms_per_batch": round(1000 * min(base) / n, 2),
                "layout_ms_per_batch": round(1000 * min(host) / n, 2),
                "layout_speedup": round(min(base) / min(host), 2),
                "with_masks_on_cpu_ms_per_batch": round(1000 * (min(host) + min(mask)) / n, 2),
                "with_masks_on_cpu_speedup": round(min(base) / (min(host) + min(mask)), 2),
                "mask_mib_to_device": round(mask_bytes / 2**20, 1),
                "owner_mib_to_device": round(owner_bytes / 2**20, 1),
            },
        )


if __name__ == "__main__":
    main()
