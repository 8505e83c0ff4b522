"""The native model's float32 matrix products on a CPU: torch's ``F.linear`` (MKL on x86)
against oneDNN's linear kernel (``torch.ops.mkldnn._linear_pointwise``), which the native
model uses on a CPU where this torch has it.

Two measurements, each in rounds whose order turns (``--rounds``):

1. the four products of one decoder layer of the bundled model (queries/keys/values, output,
   gate/up, down) on ``--rows`` positions, in GFLOP/s;
2. a whole scoring pass over ``--n`` prompted SNLI pairs with the bundled model, the same
   weights and batches, products through each kernel; the largest per-example difference
   between the two is reported beside the times.

Run:

    python -m benchmarks.speed.bench_matmul --n 300 --rounds 4 --json benchmarks/results/matmul_cpu.json
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import torch
import torch.nn.functional as F

from benchmarks import harness
from benchmarks.speed.bench_scoring import DEFAULT_DATA, snli_requests, tailsplit_scores
from tailsplit.scoring import llama
from tailsplit.scoring.hf import HFScorer

KERNELS = {"torch": F.linear, "onednn": llama.onednn_linear}


def layer_rates(model: llama.NativeLlama, rows: int, rounds: int) -> dict[str, list[float]]:
    """GFLOP/s of one layer's four products per kernel, once per round."""
    layer = model.body.layers[0]
    weights = [layer.qkv, layer.out, layer.gate_up, layer.down]
    inputs = [torch.randn(rows, w.shape[1], generator=torch.Generator().manual_seed(0)) for w in weights]
    flops = sum(2 * rows * w.shape[0] * w.shape[1] for w in weights) * 10
    rates: dict[str, list[float]] = {name: [] for name in KERNELS}
    with torch.inference_mode():
        for round_ in range(rounds):
            for name in harness.alternating(round_, list(KERNELS)):
                linear = KERNELS[name]
                for x, w in zip(inputs, weights):
                    linear(x, w)  # warm
                started = time.perf_counter()
                for _ in range(10):
                    for x, w in zip(inputs, weights):
                        linear(x, w)
                rates[name].append(flops / (time.perf_counter() - started) / 1e9)
    return rates


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--n", type=int, default=300, help="SNLI pairs in the scoring pass")
    parser.add_argument("--rows", type=int, default=1024, help="positions in the layer products")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    if not llama.onednn_linear_runs():
        raise SystemExit("this torch has no oneDNN linear kernel: nothing to compare")
    requests = snli_requests(DEFAULT_DATA, args.n)
    scorers = {"onednn": HFScorer(), "torch": HFScorer()}
    scorers["torch"]._model = llama.NativeLlama(scorers["onednn"].folder).eval()  # F.linear's products
    assert scorers["onednn"].model.body.onednn and not scorers["torch"].model.body.onednn
    for scorer in scorers.values():
        tailsplit_scores(scorer, requests[:30])  # warm
    rates = layer_rates(scorers["onednn"].model, args.rows, args.rounds)
    seconds, scores = harness.in_rounds(
        {name: (lambda s=scorer: tailsplit_scores(s, requests)) for name, scorer in scorers.items()}, args.rounds
    )
    layer = {name: round(statistics.median(r), 1) for name, r in rates.items()}
    passes = {name: round(statistics.median(s), 2) for name, s in seconds.items()}
    report = {
        "machine": harness.machine(),
        "pairs": len(requests),
        "rows": args.rows,
        "rounds": args.rounds,
        "layer_gflops": layer,
        "layer_gflops_rounds": {name: [round(r, 1) for r in rs] for name, rs in rates.items()},
        "layer_speedup": round(layer["onednn"] / layer["torch"], 2),
        "scoring_seconds": passes,
        "scoring_seconds_rounds": {name: [round(s, 2) for s in ss] for name, ss in seconds.items()},
        "scoring_speedup": round(passes["torch"] / passes["onednn"], 2),
        "max_abs_diff_nats": float(np.max(np.abs(scores["onednn"] - scores["torch"]))),
    }
    print(
        f"layer products: torch {layer['torch']} vs oneDNN {layer['onednn']} GFLOP/s ({report['layer_speedup']}×); "
        f"{len(requests)} pairs: torch {passes['torch']} s vs oneDNN {passes['onednn']} s "
        f"({report['scoring_speedup']}×), scores within {report['max_abs_diff_nats']:.1e} nats"
    )
    if args.json:
        harness.write_results(args.json, report)


if __name__ == "__main__":
    main()
