"""Scoring against this CPU's roofline: matrix-multiply peak, useful FLOPs, achieved fraction, and where the rest goes.

1. Peak: float32 matrix multiplies with torch at the thread count in use — square (2048³)
   and shaped like the model's own (projections of a CPU batch of tokens, the vocabulary
   projection at scored positions); the best rate is the ceiling scoring can approach.
2. Useful FLOPs of scoring, counted from the batches tailsplit actually runs: 2 × the
   non-embedding parameters per token position (padding excluded; a shared prompt prefix
   counted once, as it is computed once), attention (2 × 2 × context × model width per
   position and layer: scores and weighted values), and the vocabulary projection (2 × width
   × vocabulary) at scored positions only. Also the "task" FLOPs: every request on its own,
   without prefix sharing — what a recipe without sharing must do.
3. Achieved: scoring N prompted SNLI pairs (tokenising and planning excluded, best of
   ``--repeats``): executed GFLOP/s and the fraction of the peak; task FLOPs per second (the
   effective rate).
4. Where the time goes: ``torch.profiler`` self time per operator over one pass, grouped into
   matrix multiplies, attention, vocabulary softmax, norms/activations/elementwise, other
   operators, and host work (the rest of the wall time: Python, batch layout, numpy);
   tokenising and planning timed apart.

Run (the bundled model and SNLI sample; a few minutes on 2 cores):

    python -m benchmarks.speed.bench_roofline --n 300
"""

from __future__ import annotations

import platform
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch

from benchmarks import harness
from benchmarks.harness import write_results
from benchmarks.speed.bench_scoring import DEFAULT_DATA, snli_requests
from tailsplit.scoring.hf import HFScorer
from tailsplit.scoring.layout import PADDING_OWNER, packed_layout, padded_layout

CATEGORIES = {
    "matrix multiplies": ("aten::mm", "aten::addmm", "aten::bmm", "aten::matmul", "aten::linear", "aten::_mkl_linear"),
    "attention": ("scaled_dot_product", "flash_attention", "aten::_softmax", "aten::softmax", "aten::baddbmm"),
    "vocabulary softmax": ("aten::logsumexp", "aten::gather"),
    "norms, activations, elementwise": (
        "aten::mul", "aten::add", "aten::pow", "aten::mean", "aten::rsqrt", "aten::silu", "aten::neg", "aten::cat",
        "aten::cos", "aten::sin", "aten::div", "aten::sub", "aten::copy_", "aten::to", "aten::_to_copy",
        "aten::index", "aten::embedding", "aten::index_select", "aten::where", "aten::clone", "aten::contiguous",
    ),
}  # fmt: skip


def gemm_rate(m: int, k: int, n: int, repeats: int = 5) -> float:
    """Best GFLOP/s of an (m×k)·(k×n) float32 product."""
    a, b = torch.randn(m, k), torch.randn(k, n)
    out = torch.empty(m, n)
    torch.mm(a, b, out=out)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        torch.mm(a, b, out=out)
        best = min(best, time.perf_counter() - start)
    return 2 * m * k * n / best / 1e9


def peak_rates(config, tokens: int, scored: int) -> dict[str, float]:  # noqa: ANN001
    d, inter, vocab = config.hidden_size, config.intermediate_size, config.vocab_size
    kv = config.num_key_value_heads * (d // config.num_attention_heads)
    shapes = {
        "square 2048³": (2048, 2048, 2048),
        f"attention q/o ({tokens}×{d}×{d})": (tokens, d, d),
        f"attention k/v ({tokens}×{d}×{kv})": (tokens, d, kv),
        f"MLP up/gate ({tokens}×{d}×{inter})": (tokens, d, inter),
        f"MLP down ({tokens}×{inter}×{d})": (tokens, inter, d),
        f"vocabulary ({scored}×{d}×{vocab})": (scored, d, vocab),
    }
    return {name: gemm_rate(*shape) for name, shape in shapes.items()}


def non_embedding_params(model) -> int:  # noqa: ANN001
    head = model.get_output_embeddings()
    return sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Linear) and m is not head)


def batch_flops(batch, config, params: int) -> tuple[float, int, int]:  # noqa: ANN001
    """(executed FLOPs, non-padding positions, scored positions) of one planned batch."""
    kind, payload = batch.payload
    layout = padded_layout(payload, "right") if kind == "plain" else packed_layout(payload)
    real = layout.attention != 0 if not layout.packed else layout.attention != PADDING_OWNER
    positions = int(real.sum())
    context = float((layout.position_ids[real] + 1).sum())  # keys each position attends to
    width, layers = config.hidden_size, config.num_hidden_layers
    flops = (
        2.0 * params * positions
        + 4.0 * layers * width * context
        + 2.0 * width * config.vocab_size * len(layout.targets)
    )
    return flops, positions, len(layout.targets)


def task_flops(encoded, config, params: int) -> float:  # noqa: ANN001
    width, layers = config.hidden_size, config.num_hidden_layers
    total = 0.0
    for e in encoded:
        n = len(e.ids)
        total += (
            2.0 * params * n + 4.0 * layers * width * n * (n + 1) / 2 + 2.0 * width * config.vocab_size * (n - e.first)
        )
    return total


def profile(scorer: HFScorer, batches) -> tuple[dict[str, float], float]:  # noqa: ANN001
    """Self CPU seconds per category over one pass, and that pass's wall time."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    start = time.perf_counter()
    with torch_profile(activities=[ProfilerActivity.CPU]) as prof:
        for batch in batches:
            scorer.score_batch(batch)
    wall = time.perf_counter() - start
    seconds: dict[str, float] = defaultdict(float)
    for event in prof.key_averages():
        name = event.key
        category = next((c for c, keys in CATEGORIES.items() if any(k in name for k in keys)), "other operators")
        seconds[category] += event.self_cpu_time_total / 1e6
    return dict(seconds), wall


def main() -> None:
    parser = harness.parser(__doc__, "also write the results here")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--n", type=int, default=300, help="SNLI pairs to score")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()

    requests = snli_requests(args.data, args.n)
    scorer = HFScorer()
    model = scorer.transformers_model()  # parameter counts and shapes (the native model runs the same ones)
    config = model.config
    start = time.perf_counter()
    encoded = scorer.encode(requests)
    batches = scorer.plan(requests)
    host_prep = time.perf_counter() - start
    params = non_embedding_params(model)
    executed, positions, scored_positions = map(sum, zip(*(batch_flops(b, config, params) for b in batches)))
    task = task_flops(encoded, config, params)
    typical_tokens = int(np.median([b.n_tokens for b in batches]))
    typical_scored = int(
        np.median([sum(len(e.ids) - e.first for e in b.payload[1]) for b in batches if b.payload[0] == "plain"] or [64])
    )

    for batch in batches[:3]:
        scorer.score_batch(batch)  # warm up threads and kernels
    best = float("inf")
    for _ in range(args.repeats):
        start = time.perf_counter()
        for batch in batches:
            scorer.score_batch(batch)
        best = min(best, time.perf_counter() - start)
    peaks = peak_rates(config, typical_tokens, max(typical_scored, 16))
    peak = max(peaks.values())
    categories, profiled_wall = profile(scorer, batches)
    host = max(profiled_wall - sum(categories.values()), 0.0)

    result = {
        "machine": platform.processor() or platform.machine(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "pairs": len(requests),
        "non_embedding_params": params,
        "positions_executed": int(positions),
        "scored_positions": int(scored_positions),
        "tokens_in_requests": sum(len(e.ids) for e in encoded),
        "gemm_gflops": {k: round(v, 1) for k, v in peaks.items()},
        "peak_gflops": round(peak, 1),
        "scoring_seconds": round(best, 3),
        "executed_gflops": round(executed / best / 1e9, 1),
        "fraction_of_peak": round(executed / best / 1e9 / peak, 3),
        "task_gflops_effective": round(task / best / 1e9, 1),
        "tokenise_and_plan_seconds": round(host_prep, 3),
        "profile_seconds": {k: round(v, 3) for k, v in sorted(categories.items())} | {"host work": round(host, 3)},
        "profiled_wall_seconds": round(profiled_wall, 3),
    }
    print(f"{result['machine']}, {result['threads']} threads, torch {result['torch']}; {len(requests)} SNLI pairs")
    print("\nfloat32 matrix multiply peak (GFLOP/s):")
    for name, rate in peaks.items():
        print(f"  {name:<40} {rate:8.1f}")
    print(
        f"\nscoring: {best:.2f} s for {executed / 1e9:.1f} GFLOP executed ({positions:,} positions) → "
        f"{result['executed_gflops']} GFLOP/s = {100 * result['fraction_of_peak']:.1f}% of the {peak:.1f} GFLOP/s peak"
    )
    print(
        f"task FLOPs without prefix sharing: {task / 1e9:.1f} GFLOP → effective {result['task_gflops_effective']} GFLOP/s"
    )
    print(f"tokenising and planning (not in the scoring time): {host_prep:.2f} s")
    print(f"\nwhere one pass's {profiled_wall:.2f} s go (profiled, self time):")
    for name, seconds in sorted(result["profile_seconds"].items(), key=lambda kv: -kv[1]):
        print(f"  {name:<34} {seconds:7.2f} s  {100 * seconds / profiled_wall:5.1f}%")
    if args.json:
        write_results(args.json, result)


if __name__ == "__main__":
    main()
