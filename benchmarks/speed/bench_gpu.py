"""GPU scoring: throughput, model FLOP utilisation (MFU), peak memory and bf16 numerics,
today's GPU path against the levers, in one run.

No weights can be downloaded on a GPU machine without network, so the model is built from a
config with seeded random weights, in Llama layout with the bundled model's tokenizer
(``--tokenizer``; vocab 49,152), at one of the ``--shape``s: ``bundled`` (SmolLM2-135M's own
shape), ``gpt2-medium`` (24 layers × 1024, ~302M non-embedding parameters like GPT-2 medium),
``1b`` (16 layers × 2048, grouped-query attention), ``8b`` (Llama-3-8B's layers: 32 × 4096,
8 KV heads, with the 49k vocabulary; weights drawn on the GPU, saved in bf16) or ``tiny`` (for ``--smoke`` runs on a
CPU, which check the script, not the speed). The workload is SNLI-shaped: the bundled SNLI
sample under the ``snli`` prompt, copied to ``--pairs`` pairs with each copy's premise words
reshuffled (seeded), so no two premises are identical but lengths and the
three-hypotheses-per-premise structure are real.

The ``--variants`` (each in ``--dtype``, bf16 by default):

- ``transformers``: today's GPU default — transformers' model, eager;
- ``native``: tailsplit's Llama on the GPU (fused QKV and gate/up products), eager;
- ``native-compiled``: the same through ``torch.compile`` (``--compile``);
- ``native-fused``: the native model with its element-wise regions compiled (``--fused``:
  residual add + RMSNorm, rotary, SiLU·up, one kernel each on flat token tensors);
- ``native-fused-varlen``: the same on unpadded batches, attention by segments through
  variable-length flash attention (``--fused --attention varlen``);
- ``native-all``: every lever — and tokenising and planning in a child process, streamed to
  the scorer chunk by chunk (``--fused --attention varlen --planner process``).

All of them run the head as a half-precision product with float32 output at scored positions,
the GPU log-softmax kernel, one host-to-device copy per batch, a pinned device-to-host copy
waited on by event, and the memory-sized batch budget (``--batch-tokens`` fixes it).

Reported, in one run:

- numerics: ``--check-pairs`` scored on the CPU in float32 and on the device with each
  variant in ``--dtype`` and in float32, identical weights: max, p99 and mean |Δ| per
  example in nats; also the projection in the model's precision;
- each variant end to end (dedup, tokenise, plan, score: the driver's path) on all pairs,
  after a warm-up of ``--warmup-pairs`` (model load and compilation, reported apart): wall
  time, tokenise + plan time, tokens/s, MFU, peak GPU memory, batch budget; the fastest
  variant again with prefix sharing off;
- with ``--scoring-alone``, each variant's planned batches scored again with no planning
  around them (the device's share of the end-to-end time: MFU while scoring);
- with ``--profile-batches N``, the first N batches of the fastest variant under
  ``torch.profiler``: the operators with the most device time;
- the reference recipe (transformers' model, batches of 32 in input order, full logits
  everywhere, full log-softmax) on ``--reference-pairs`` against the fastest variant;
- an 8192³ bf16 matrix product, the practical ceiling, beside the datasheet peak.

MFU counts the FLOPs the job needs for the tokens actually run through the model (prefix
tokens once, padding not at all): 2·N per token for the N non-embedding weights, 4·d per
layer per attended (query, key) pair, and 2·d·V per scored token for the vocabulary
projection. Run on a CUDA machine (each shape a separate run):

    python -m benchmarks.speed.bench_gpu --tokenizer TOKENIZER_DIR --shape bundled --pairs 570000 --json out.json
    python -m benchmarks.speed.bench_gpu --tokenizer TOKENIZER_DIR --smoke --pairs 300 --check-pairs 40   # any CPU
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from benchmarks import harness
from benchmarks.harness import write_results
from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.driver import build_requests, score_requests
from tailsplit.scoring.hf import HFScorer

DEFAULT_DATA = harness.ROOT / "examples" / "data" / "snli_dev_3000.jsonl.gz"
DATASHEET_BF16_DENSE = {"H100": 989.4e12, "H200": 989.4e12, "A100": 312e12}
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


SHAPES = {  # Llama layouts with SmolLM2's 49k-token vocabulary
    "bundled": {"hidden_size": 576, "intermediate_size": 1536, "num_hidden_layers": 30, "num_attention_heads": 9,
                "num_key_value_heads": 3},
    "gpt2-medium": {"hidden_size": 1024, "intermediate_size": 2731, "num_hidden_layers": 24, "num_attention_heads": 16,
                    "num_key_value_heads": 16},
    "1b": {"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
           "num_key_value_heads": 8},
    "8b": {"hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
           "num_key_value_heads": 8},
    "tiny": {"hidden_size": 64, "intermediate_size": 160, "num_hidden_layers": 2, "num_attention_heads": 4,
             "num_key_value_heads": 2},
}  # fmt: skip
# What each variant sets on the scorer (bf16 unless --dtype): today's GPU default first.
VARIANTS = {
    "transformers": {"implementation": "transformers"},
    "native": {"implementation": "native"},
    "native-compiled": {"implementation": "native", "torch_compile": True},
    "native-fused": {"implementation": "native", "fused": True},
    "native-fused-varlen": {"implementation": "native", "fused": True, "attention": "varlen"},
    "native-all": {"implementation": "native", "fused": True, "attention": "varlen", "planner": "process"},
}


def build_model_folder(tokenizer_dir: Path, folder: Path, seed: int, shape: str = "gpt2-medium") -> dict:
    """A Llama of ``shape`` with seeded random weights, saved with the tokenizer: float32 weights
    drawn on the CPU, except the 8B shape's, drawn on the GPU and saved in bf16 (32 GB of
    float32 drawn on the CPU would take minutes; the float32 runs then score bf16-representable
    weights, identical for every precision)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    dims = SHAPES[shape]
    config = LlamaConfig(
        vocab_size=49152, max_position_embeddings=2048, tie_word_embeddings=True, bos_token_id=1, eos_token_id=2, **dims
    )
    on_device = shape == "8b" and torch.cuda.is_available()
    torch.manual_seed(seed)
    with torch.device("cuda" if on_device else "cpu"):
        model = LlamaForCausalLM(config)
    if on_device:
        model = model.to(torch.bfloat16)
    model.save_pretrained(folder)
    for name in TOKENIZER_FILES:
        if (tokenizer_dir / name).exists():
            shutil.copy(tokenizer_dir / name, folder / name)
    embedding = model.get_input_embeddings().weight.numel()
    return {
        "shape": shape,
        "layers": dims["num_hidden_layers"],
        "width": dims["hidden_size"],
        "heads": dims["num_attention_heads"],
        "kv_heads": dims["num_key_value_heads"],
        "vocab": 49152,
        "params": sum(p.numel() for p in model.parameters()),
        "non_embedding_params": sum(p.numel() for p in model.parameters()) - embedding,
        "saved_weights": "bfloat16, drawn on the GPU" if on_device else "float32, drawn on the CPU",
    }


def synthetic_requests(data: Path, n_pairs: int, seed: int) -> list[ScoreRequest]:
    """SNLI pairs copied until ``n_pairs``; every copy after the first reshuffles its premise."""
    dataset = load_examples(data, FieldMap(text="hypothesis", context="premise", label="label"))
    base = build_requests(dataset, BUILTIN_TEMPLATES["snli"])
    premises = dataset.contexts
    out: list[ScoreRequest] = []
    copy = 0
    while len(out) < n_pairs:
        for request, premise in zip(base, premises):
            if copy:
                words = premise.split()
                random.Random(f"{seed}:{copy}:{premise}").shuffle(words)
                request = ScoreRequest(request.prompt.replace(premise, " ".join(words), 1), request.query)
            out.append(request)
        copy += 1
    return out[:n_pairs]


def model_flops(scorer: HFScorer, batches: list, info: dict) -> tuple[float, int, int]:
    """(FLOPs the job needs, tokens run through the model, scored tokens) for a plan."""
    width, layers, vocab = info["width"], info["layers"], info["vocab"]
    tokens = pairs = scored = 0
    for batch in batches:
        kind, payload = batch.payload
        if kind == "plain":
            for e in payload:
                n = len(e.ids)
                tokens, pairs, scored = tokens + n, pairs + n * (n + 1) // 2, scored + n - e.first
        else:
            for prefix, members in payload:
                tokens += prefix
                pairs += prefix * (prefix + 1) // 2
                for e in members:
                    s = len(e.ids) - prefix
                    tokens, pairs, scored = (
                        tokens + s,
                        pairs + s * prefix + s * (s + 1) // 2,
                        scored + len(e.ids) - e.first,
                    )
    flops = 2 * info["non_embedding_params"] * tokens + 4 * width * layers * pairs + 2 * width * vocab * scored
    return float(flops), tokens, scored


def reference_scores(scorer: HFScorer, encoded: list, batch_size: int = 32) -> np.ndarray:
    """Input order, padded batches, logits at every position, full log-softmax."""
    model, device = scorer.model, scorer.resolved_device()
    out = np.zeros(len(encoded))
    with torch.inference_mode():
        for start in range(0, len(encoded), batch_size):
            rows = encoded[start : start + batch_size]
            width = max(len(e.ids) for e in rows)
            input_ids = torch.zeros((len(rows), width), dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for r, e in enumerate(rows):
                input_ids[r, : len(e.ids)] = torch.tensor(e.ids)
                mask[r, : len(e.ids)] = 1
            input_ids, mask = input_ids.to(device), mask.to(device)
            logprobs = torch.log_softmax(model(input_ids=input_ids, attention_mask=mask).logits.float(), -1)
            token_lp = logprobs[:, :-1].gather(2, input_ids[:, 1:, None])[..., 0].double().cpu()
            for r, e in enumerate(rows):
                out[start + r] = token_lp[r, e.first - 1 : len(e.ids) - 1].sum().item()
    return out


def synchronize() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def matmul_ceiling() -> float:
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(10):
        a @ b
    torch.cuda.synchronize()
    return 10 * 2 * 8192**3 / (time.perf_counter() - started)


def timed_run(scorer: HFScorer, requests: list[ScoreRequest], info: dict, peak: float) -> tuple[dict, list, float]:
    """The driver's whole path (dedup, tokenise, plan, score), timed; then tokenise + plan
    alone, timed apart. Returns the figures, the plan and its FLOPs."""
    synchronize()
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    report = score_requests(requests, scorer, None).report
    synchronize()
    seconds = time.perf_counter() - started
    peak_memory = torch.cuda.max_memory_allocated() / 2**30 if torch.cuda.is_available() else None
    planning_started = time.perf_counter()
    batches = scorer.plan(list(dict.fromkeys(requests)))
    planning = time.perf_counter() - planning_started
    flops, tokens, scored = model_flops(scorer, batches, info)
    return (
        {
            "seconds": round(seconds, 2),
            "tokenise_and_plan_seconds": round(planning, 2),
            "batch_tokens": scorer.resolved_batch_tokens(),
            "tokens_in_model": tokens,
            "scored_tokens": scored,
            "batches": len(batches),
            "tokens_per_s": round(tokens / seconds),
            "tflops": round(flops / seconds / 1e12, 1),
            "mfu_end_to_end": round(flops / seconds / peak, 3),
            "peak_gpu_memory_gib": None if peak_memory is None else round(peak_memory, 2),
            "driver_report": report.as_dict(),
        },
        batches,
        flops,
    )


def scored_alone(scorer: HFScorer, batches: list, flops: float, peak: float) -> dict:
    """The planned batches scored with no tokenising or planning around them: the device's
    share of the end-to-end time, and the MFU while scoring."""
    synchronize()
    started = time.perf_counter()
    for _ in scorer.score_batches(batches):
        pass
    synchronize()
    alone = time.perf_counter() - started
    return {"scoring_alone_seconds": round(alone, 2), "mfu_scoring_only": round(flops / alone / peak, 3)}


def numerics(scorer, check: list[ScoreRequest], variants: list[str], dtype: str, reference: str = "cpu") -> dict:
    """Per-example |Δ| in nats against float32 on identical weights — the CPU's (``reference``
    ``cpu``) or the device's eager native model (``device``: for shapes too slow on a CPU) —
    each variant in ``dtype`` and in float32 on the device, and the bf16 projection in the
    model's precision."""
    on = "cpu" if reference == "cpu" else None
    base = score_requests(
        check, scorer(dtype="float32", implementation="native", **({"device": on} if on else {})), None
    )[0]
    out: dict = {"mean_score": round(float(np.mean(base)), 2), "reference": f"{reference} float32, native, eager"}
    against = "cpu_fp32" if reference == "cpu" else "device_fp32"

    def gap(name: str, scores: np.ndarray, digits: int = 4) -> None:
        diff = np.abs(scores - base)
        out[f"max_abs_{name}_vs_{against}"] = round(float(np.max(diff)), digits)
        out[f"p99_abs_{name}_vs_{against}"] = round(float(np.quantile(diff, 0.99)), digits)
        out[f"mean_abs_{name}_vs_{against}"] = round(float(np.mean(diff)), digits)

    for variant in variants:
        gap(f"{variant}_{dtype}", score_requests(check, scorer(dtype=dtype, **VARIANTS[variant]), None)[0])
        gap(f"{variant}_float32", score_requests(check, scorer(dtype="float32", **VARIANTS[variant]), None)[0], 6)
    gap(
        f"native_{dtype}_model_precision_head",
        score_requests(check, scorer(dtype=dtype, implementation="native", head_dtype="model"), None)[0],
    )
    return out


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--tokenizer", type=Path, required=True, help="folder with tokenizer.json")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="gpt2-medium")
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16"])
    parser.add_argument("--pairs", type=int, default=570_000)
    parser.add_argument("--check-pairs", type=int, default=1000)
    parser.add_argument(
        "--numerics-variants",
        nargs="+",
        choices=list(VARIANTS),
        help="variants checked for numerics [default: --variants]",
    )
    parser.add_argument(
        "--numerics-reference",
        choices=["cpu", "device"],
        default="cpu",
        help="float32 reference of the numerics: on the CPU, or the device's eager native model",
    )
    parser.add_argument("--reference-pairs", type=int, default=20_000)
    parser.add_argument("--warmup-pairs", type=int, default=3000, help="scored first (compiles), not timed")
    parser.add_argument("--batch-tokens", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-unshared", action="store_true")
    parser.add_argument("--skip-reference", action="store_true")
    parser.add_argument("--scoring-alone", action="store_true", help="also time the planned batches alone")
    parser.add_argument("--profile-batches", type=int, default=0, help="profile this many batches of the fastest")
    parser.add_argument(
        "--host-profile-pairs", type=int, default=0, help="the fastest's whole path on this many pairs under cProfile"
    )
    parser.add_argument("--smoke", action="store_true", help="run on the CPU (tiny shape) to check the script")
    args = parser.parse_args()
    device = "cpu" if args.smoke else "cuda"
    if not args.smoke and not torch.cuda.is_available():
        raise SystemExit("bench_gpu needs a CUDA GPU (or --smoke)")

    device_name = torch.cuda.get_device_name() if device == "cuda" else "cpu (smoke run)"
    peak = next((v for k, v in DATASHEET_BF16_DENSE.items() if k in device_name), 989.4e12)
    work = Path(tempfile.mkdtemp(prefix="tailsplit-bench-gpu-"))
    info = build_model_folder(args.tokenizer, work / "model", args.seed, args.shape)
    requests = synthetic_requests(args.data, args.pairs, args.seed)
    result: dict = {
        "device": device_name,
        "torch": torch.__version__,
        "model": info,
        "dtype": args.dtype,
        "pairs": len(requests),
        "datasheet_bf16_tflops": peak / 1e12,
    }
    if device == "cuda":
        result["matmul_8192_bf16_tflops"] = round(matmul_ceiling() / 1e12, 1)

    def scorer(**kw) -> HFScorer:
        kw.setdefault("batch_tokens", args.batch_tokens)
        kw.setdefault("device", device)
        return HFScorer(str(work / "model"), cache_dir=work / "cache", **kw)

    def save() -> None:  # after every stage: a run stopped at a time limit keeps what it measured
        if args.json:
            write_results(args.json, result)

    checked = args.numerics_variants or args.variants
    result["numerics_nats_per_example"] = numerics(
        scorer, requests[: args.check_pairs], checked, args.dtype, args.numerics_reference
    )
    print(json.dumps(result, indent=2), flush=True)
    save()

    models = {}
    for variant in args.variants:
        timed = scorer(dtype=args.dtype, **VARIANTS[variant])
        started = time.perf_counter()
        score_requests(requests[: args.warmup_pairs], timed, None)  # loads (and compiles) the model
        synchronize()
        warmup = time.perf_counter() - started
        result[variant], batches, flops = timed_run(timed, requests, info, peak)
        result[variant]["warmup_seconds"] = round(warmup, 1)
        models[variant] = timed
        save()
        if args.scoring_alone:
            result[variant] |= scored_alone(timed, batches, flops, peak)
            save()
        print(variant, json.dumps(result[variant], indent=2), flush=True)
    fastest = min(args.variants, key=lambda v: result[v]["seconds"])
    if not args.skip_unshared:
        unshared = scorer(dtype=args.dtype, share_prefix="never", **VARIANTS[fastest])
        unshared._model = models[fastest].model
        result[f"{fastest}_no_prefix_sharing"] = timed_run(unshared, requests, info, peak)[0]
        print(json.dumps(result[f"{fastest}_no_prefix_sharing"], indent=2), flush=True)
        save()
    if args.host_profile_pairs:
        result["host_profile"] = host_profile(models[fastest], requests[: args.host_profile_pairs])
        print(json.dumps(result["host_profile"], indent=2), flush=True)
        save()
    if args.profile_batches:
        result["profile"] = profile(models[fastest], requests, args.profile_batches)
        print(json.dumps(result["profile"], indent=2), flush=True)
        save()
    if not args.skip_reference:
        result["reference_recipe"] = reference_run(models[fastest], requests[: args.reference_pairs])
        print(json.dumps(result["reference_recipe"], indent=2), flush=True)
    save()
    shutil.rmtree(work, ignore_errors=True)


def host_profile(scorer: HFScorer, requests: list[ScoreRequest], top: int = 25) -> dict:
    """The driver's whole path (dedup, tokenise, plan, score, gather) on ``requests`` under
    cProfile, to account for end-to-end time that neither planning nor the batches explain: the
    host functions with the most own time (waits on the device included, as the calls that
    wait), with their calls and cumulative time. A planner process's work is its own process's,
    not counted here."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    synchronize()
    started = time.perf_counter()
    profiler.enable()
    score_requests(requests, scorer, None)
    synchronize()
    profiler.disable()
    wall = time.perf_counter() - started
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    ranked = sorted(stats.items(), key=lambda item: -item[1][2])[:top]
    return {
        "pairs": len(requests),
        "wall_seconds_profiled": round(wall, 2),
        "functions": [
            {
                "name": f"{Path(file).name}:{line}({name})",
                "calls": calls,
                "own_s": round(own, 3),
                "cumulative_s": round(cum, 3),
            }
            for (file, line, name), (_, calls, own, cum, _) in ranked
        ],
    }


def profile(scorer: HFScorer, requests: list[ScoreRequest], n_batches: int, top: int = 20) -> dict:
    """``n_batches`` from the middle of the plan of the first 60,000 requests (rows of typical
    length) under ``torch.profiler``: the operators with the most device time (self time, so
    nested operators are not counted twice), each with its share of all operators' time."""
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as profiler

    plan = scorer.plan(requests[:60_000])
    batches = plan[len(plan) // 2 :][:n_batches]
    activities = [ProfilerActivity.CPU] + [ProfilerActivity.CUDA] * torch.cuda.is_available()
    synchronize()
    started = time.perf_counter()
    with profiler(activities=activities) as trace:
        for _ in scorer.score_batches(batches):
            pass
        synchronize()
    seconds = time.perf_counter() - started
    events = trace.key_averages()
    device_us = [getattr(e, "self_device_time_total", getattr(e, "self_cuda_time_total", 0.0)) for e in events]
    total = sum(device_us) or 1.0
    ranked = sorted(zip(device_us, events), key=lambda pair: -pair[0])[:top]
    out = {
        "batches": len(batches),
        "tokens": sum(b.n_tokens for b in batches),
        "wall_seconds": round(seconds, 3),
        "device_seconds": round(total / 1e6, 3),
        "operators": [
            {"name": e.key, "calls": e.count, "device_ms": round(us / 1e3, 2), "share": round(us / total, 3)}
            for us, e in ranked
        ],
    }
    return out | summarise_profile(out)


def summarise_profile(profile: dict) -> dict:
    """Each ``aten::`` operator's share of the kernels' device time. The profiler lists every
    kernel twice, as itself and under the operator that launched it, and counts the host's
    waits on a full launch queue (``Command Buffer Full``) as device time too: the kernels'
    time is half of the rest."""
    operators = profile["operators"]
    waiting = sum(o["device_ms"] for o in operators if o["name"] == "Command Buffer Full")
    kernels_ms = max((1e3 * profile["device_seconds"] - waiting) / 2, 1e-9)  # no kernels on a CPU
    return {
        "kernel_seconds": round(kernels_ms / 1e3, 3),
        "launch_queue_full_ms": round(waiting, 1),
        "share_of_kernel_time": {
            o["name"]: round(o["device_ms"] / kernels_ms, 3) for o in operators if o["name"].startswith("aten::")
        },
    }


def reference_run(ours: HFScorer, subset: list[ScoreRequest]) -> dict:
    """The reference recipe on transformers' model against tailsplit's fastest variant."""
    reference_scorer = HFScorer(
        ours.model_spec, cache_dir=ours.cache_dir, device=ours.device, dtype=ours.dtype, implementation="transformers"
    )
    encoded = reference_scorer.encode(subset)
    tokens = sum(len(e.ids) for e in encoded)
    synchronize()
    started = time.perf_counter()
    reference = reference_scores(reference_scorer, encoded)
    synchronize()
    ref_seconds = time.perf_counter() - started
    started = time.perf_counter()
    scores = score_requests(subset, ours, None)[0]
    synchronize()
    our_seconds = time.perf_counter() - started
    return {
        "pairs": len(subset),
        "tokens": tokens,
        "seconds": round(ref_seconds, 2),
        "tokens_per_s": round(tokens / ref_seconds),
        "tailsplit_seconds": round(our_seconds, 2),
        "speedup": round(ref_seconds / our_seconds, 2),
        "max_abs_diff_nats": round(float(np.max(np.abs(reference - scores))), 4),
    }


if __name__ == "__main__":
    main()
