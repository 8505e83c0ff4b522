"""Score error of each reduced precision against float32 on identical weights, in one run.

Scores ``--pairs`` SNLI pairs (the bundled sample under the ``snli`` prompt, premises
reshuffled per copy as in ``bench_gpu.py``) with the bundled model in float32 (the
reference), then in each ``--dtypes`` mode, and prints per-example |Δ| (max, p99, mean, in
nats) and the time against float32:

- ``bfloat16`` / ``float16``: the whole model in that type (projection still float32);
- ``mixed-bfloat16`` / ``mixed-float16``: float32 weights, residual stream and norms, the
  layers' matrix products under autocast.

On a CPU half precision is emulated and slow, so the times there say nothing about a GPU;
the errors do carry over in kind (a GPU's kernels round differently). Run:

    python -m benchmarks.speed.bench_precision --pairs 300
    python -m benchmarks.speed.bench_precision --pairs 2000 --device cuda
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks import harness
from benchmarks.harness import write_results
from benchmarks.speed.bench_gpu import DEFAULT_DATA, synthetic_requests
from tailsplit.scoring.driver import score_requests
from tailsplit.scoring.hf import HFScorer


def timed_scores(scorer: HFScorer, requests: list) -> tuple[np.ndarray, float]:
    _ = scorer.model  # load outside the timing
    start = time.perf_counter()
    total = np.asarray(score_requests(requests, scorer, None)[0])
    return total, time.perf_counter() - start


def main() -> None:
    parser = harness.parser(__doc__, "also write the numbers here")
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtypes", nargs="+", default=["bfloat16", "mixed-bfloat16", "mixed-float16"])
    args = parser.parse_args()
    requests = synthetic_requests(DEFAULT_DATA, args.pairs, seed=1)
    reference, reference_s = timed_scores(HFScorer(device=args.device), requests)
    print(
        f"{args.pairs} SNLI pairs on {args.device}; float32 {reference_s:.1f} s, mean score {reference.mean():.2f} nats"
    )
    results = {"pairs": args.pairs, "device": args.device, "float32_seconds": round(reference_s, 2)}
    for dtype in args.dtypes:
        scores, seconds = timed_scores(HFScorer(device=args.device, dtype=dtype), requests)
        error = np.abs(scores - reference)
        results[dtype] = {
            "max": round(float(error.max()), 4),
            "p99": round(float(np.quantile(error, 0.99)), 4),
            "mean": round(float(error.mean()), 4),
            "seconds": round(seconds, 2),
        }
        print(
            f"{dtype:>15}: |Δ| max {error.max():.4f}  p99 {np.quantile(error, 0.99):.4f}  "
            f"mean {error.mean():.4f} nats; time {seconds / reference_s:.2f}× float32"
        )
    if args.json:
        write_results(args.json, results)


if __name__ == "__main__":
    main()
