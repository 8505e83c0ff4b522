"""The native model's element-wise regions fused (``--fused``: one compiled kernel each on flat
token tensors) against eager, on this machine.

Two measurements, each in rounds whose order turns (``--rounds``):

1. the three regions alone on ``--tokens`` positions at the bundled model's width (576, 9
   heads of 64, 3 key/value heads, 1,536 MLP units): residual add + RMSNorm, rotary on the
   query/key/value projection, SiLU·up — eager against fused, in GB/s of activations read and
   written once (the least any implementation moves);
2. a whole scoring pass over ``--n`` prompted SNLI pairs with the bundled model, eager against
   fused; the compile time (first pass) and the largest per-example difference are reported.

On a CPU this times inductor's C++ kernels; the GPU session runs the same comparison on the
GPU (``bench_gpu.py --variants native,native-fused``).

Run:

    python -m benchmarks.speed.bench_fused --n 300 --rounds 3 --json benchmarks/results/fused_cpu.json
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import torch

from benchmarks import harness
from benchmarks.speed.bench_scoring import DEFAULT_DATA, snli_requests, tailsplit_scores
from tailsplit.scoring.fused import Regions
from tailsplit.scoring.hf import HFScorer

WIDTH, HEADS, KV_HEADS, DIM, INTERMEDIATE = 576, 9, 3, 64, 1536


def region_calls(tokens: int) -> dict[str, tuple[tuple, int]]:
    """Each region's arguments on ``tokens`` positions, and the bytes it must read and write."""
    g = torch.Generator().manual_seed(0)
    x, delta, weight = (
        torch.randn(tokens, WIDTH, generator=g),
        torch.randn(tokens, WIDTH, generator=g),
        torch.ones(WIDTH),
    )
    qkv = torch.randn(tokens, (HEADS + 2 * KV_HEADS) * DIM, generator=g)
    cos, sin = torch.randn(tokens, DIM, generator=g), torch.randn(tokens, DIM, generator=g)
    gate_up = torch.randn(tokens, 2 * INTERMEDIATE, generator=g)
    return {
        "add_rms": ((x, delta, weight, 1e-5), 4 * tokens * WIDTH * 4),
        "rotary_qkv": ((qkv, cos, sin, HEADS, KV_HEADS, DIM), 4 * tokens * (2 * qkv.shape[1] + 2 * DIM)),
        "silu_mul": ((gate_up, INTERMEDIATE), 4 * tokens * 3 * INTERMEDIATE),
    }


def region_rates(tokens: int, rounds: int, repeats: int = 20) -> dict[str, dict[str, list[float]]]:
    """GB/s of each region, eager and fused, once per round."""
    variants = {"eager": Regions(fused=False), "fused": Regions(fused=True)}
    calls = region_calls(tokens)
    rates: dict[str, dict[str, list[float]]] = {name: {v: [] for v in variants} for name in calls}
    with torch.inference_mode():
        for round_ in range(rounds):
            for variant in harness.alternating(round_, list(variants)):
                for name, (args, moved) in calls.items():
                    function = getattr(variants[variant], name)
                    function(*args)  # warm (compiles once)
                    started = time.perf_counter()
                    for _ in range(repeats):
                        function(*args)
                    rates[name][variant].append(moved * repeats / (time.perf_counter() - started) / 1e9)
    return rates


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--n", type=int, default=300, help="SNLI pairs in the scoring pass")
    parser.add_argument("--tokens", type=int, default=8192, help="positions in the region timings")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    requests = snli_requests(DEFAULT_DATA, args.n)
    rates = region_rates(args.tokens, args.rounds)
    scorers = {"eager": HFScorer(implementation="native"), "fused": HFScorer(implementation="native", fused=True)}
    compile_started = time.perf_counter()
    tailsplit_scores(scorers["fused"], requests[:30])  # compiles the regions
    compile_s = time.perf_counter() - compile_started
    tailsplit_scores(scorers["eager"], requests[:30])
    seconds, scores = harness.in_rounds(
        {name: (lambda s=scorer: tailsplit_scores(s, requests)) for name, scorer in scorers.items()}, args.rounds
    )
    region_gbs = {name: {v: round(statistics.median(r), 2) for v, r in by.items()} for name, by in rates.items()}
    passes = {name: round(statistics.median(s), 2) for name, s in seconds.items()}
    report = {
        "machine": harness.machine(),
        "threads": torch.get_num_threads(),
        "pairs": len(requests),
        "tokens": args.tokens,
        "rounds": args.rounds,
        "region_gbs": region_gbs,
        "region_speedup": {name: round(by["fused"] / by["eager"], 2) for name, by in region_gbs.items()},
        "scoring_seconds": passes,
        "scoring_seconds_rounds": {name: [round(s, 2) for s in ss] for name, ss in seconds.items()},
        "scoring_speedup": round(passes["eager"] / passes["fused"], 2),
        "first_pass_with_compiling_s": round(compile_s, 2),
        "max_abs_diff_nats": float(np.max(np.abs(scores["fused"] - scores["eager"]))),
    }
    print(
        "regions fused/eager: "
        + ", ".join(f"{name} {speedup}×" for name, speedup in report["region_speedup"].items())
        + f"; {len(requests)} pairs: eager {passes['eager']} s vs fused {passes['fused']} s "
        f"({report['scoring_speedup']}×, first 30 pairs with compiling {report['first_pass_with_compiling_s']} s), "
        f"scores within {report['max_abs_diff_nats']:.1e} nats"
    )
    if args.json:
        harness.write_results(args.json, report)


if __name__ == "__main__":
    main()
