"""GPU scoring: throughput, model FLOP utilisation (MFU), peak memory and bf16 numerics.

No weights can be downloaded on a GPU machine without network, so the model is built from a
config with seeded random weights: Llama architecture (the bundled SmolLM2's) at
GPT-2-medium size — 24 layers, width 1024, 16 heads, SwiGLU width 2731, ~302M non-embedding
parameters like GPT-2 medium — with the bundled model's tokenizer (``--tokenizer``; vocab
49,152). The workload is SNLI-shaped: the bundled SNLI sample under the ``snli`` prompt,
copied to ``--pairs`` pairs with each copy's premise words reshuffled (seeded), so no two
premises are identical but lengths and the three-hypotheses-per-premise structure are real.

Reported, in one run:

- numerics: ``--check-pairs`` scored on the CPU in float32 and on the GPU in bfloat16 (and
  float32), identical weights: max and mean |Δ| per example in nats;
- tailsplit end to end (tokenise + plan + score, the driver's path) on all pairs, bf16:
  wall time, tokens/s, MFU, peak GPU memory; the same with prefix sharing off;
- the reference recipe (batches of 32 in input order, full logits everywhere, full
  log-softmax) on ``--reference-pairs``: tokens/s and the ratio;
- an 8192³ bf16 matrix product, the practical ceiling, beside the datasheet peak.

MFU counts the FLOPs the job needs for the tokens actually run through the model (prefix
tokens once, padding not at all): 2·N per token for the N non-embedding weights, 4·d per
layer per attended (query, key) pair, and 2·d·V per scored token for the vocabulary
projection. Run on a CUDA machine:

    python benchmarks/bench_gpu.py --tokenizer TOKENIZER_DIR --pairs 570000 --json out.json
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from provenance import write_results

from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.driver import build_requests, score_requests
from tailsplit.scoring.hf import HFScorer

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent / "examples" / "data" / "snli_dev_3000.jsonl.gz"
DATASHEET_BF16_DENSE = {"H100": 989.4e12, "H200": 989.4e12, "A100": 312e12}
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def build_model_folder(tokenizer_dir: Path, folder: Path, seed: int) -> dict:
    """A GPT-2-medium-sized Llama with seeded random weights, saved with the tokenizer."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=49152,
        hidden_size=1024,
        intermediate_size=2731,
        num_hidden_layers=24,
        num_attention_heads=16,
        num_key_value_heads=16,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        bos_token_id=1,
        eos_token_id=2,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.save_pretrained(folder)
    for name in TOKENIZER_FILES:
        if (tokenizer_dir / name).exists():
            shutil.copy(tokenizer_dir / name, folder / name)
    embedding = model.get_input_embeddings().weight.numel()
    return {
        "layers": 24,
        "width": 1024,
        "heads": 16,
        "vocab": 49152,
        "params": sum(p.numel() for p in model.parameters()),
        "non_embedding_params": sum(p.numel() for p in model.parameters()) - embedding,
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


def timed_run(scorer: HFScorer, requests: list[ScoreRequest], info: dict, peak: float) -> tuple[dict, np.ndarray]:
    """The driver's whole path (dedup, tokenise, plan, score), timed; FLOPs from the plan."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    started = time.perf_counter()
    logprob_sum, _, _, report = score_requests(requests, scorer, None)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - started
    planning_started = time.perf_counter()
    batches = scorer.plan(requests)
    planning = time.perf_counter() - planning_started
    flops, tokens, scored = model_flops(scorer, batches, info)
    gpu_seconds = seconds - planning
    return {
        "seconds": round(seconds, 2),
        "tokenise_and_plan_seconds": round(planning, 2),
        "tokens_in_model": tokens,
        "scored_tokens": scored,
        "batches": len(batches),
        "tokens_per_s": round(tokens / seconds),
        "tflops": round(flops / seconds / 1e12, 1),
        "mfu_end_to_end": round(flops / seconds / peak, 3),
        "mfu_scoring_only": round(flops / gpu_seconds / peak, 3),
        "peak_gpu_memory_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2),
        "driver_report": report.as_dict(),
    }, logprob_sum


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokenizer", type=Path, required=True, help="folder with tokenizer.json")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--pairs", type=int, default=570_000)
    parser.add_argument("--check-pairs", type=int, default=1000)
    parser.add_argument("--reference-pairs", type=int, default=20_000)
    parser.add_argument("--batch-tokens", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-unshared", action="store_true")
    parser.add_argument("--sweep", type=int, nargs="*", default=[], help="batch_tokens values to time")
    parser.add_argument("--sweep-pairs", type=int, default=100_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("bench_gpu needs a CUDA GPU")

    device_name = torch.cuda.get_device_name()
    peak = next((v for k, v in DATASHEET_BF16_DENSE.items() if k in device_name), 989.4e12)
    work = Path(tempfile.mkdtemp(prefix="tailsplit-bench-gpu-"))
    info = build_model_folder(args.tokenizer, work / "model", args.seed)
    requests = synthetic_requests(args.data, args.pairs, args.seed)
    result: dict = {
        "device": device_name,
        "torch": torch.__version__,
        "model": info,
        "pairs": len(requests),
        "datasheet_bf16_tflops": peak / 1e12,
        "matmul_8192_bf16_tflops": round(matmul_ceiling() / 1e12, 1),
    }

    def scorer(**kw) -> HFScorer:
        kw.setdefault("batch_tokens", args.batch_tokens)
        return HFScorer(str(work / "model"), cache_dir=work / "cache", **kw)

    check = requests[: args.check_pairs]
    cpu32 = score_requests(check, scorer(device="cpu", dtype="float32"), None)[0]
    gpu32 = score_requests(check, scorer(device="cuda", dtype="float32"), None)[0]
    bf16 = scorer(device="cuda", dtype="bfloat16")
    gpu16 = score_requests(check, bf16, None)[0]
    bf16_head = scorer(device="cuda", dtype="bfloat16", head_dtype="model")
    bf16_head._model = bf16.model
    gpu16_head = score_requests(check, bf16_head, None)[0]
    result["numerics_nats_per_example"] = {
        "max_abs_bf16_vs_cpu_fp32": round(float(np.max(np.abs(gpu16 - cpu32))), 4),
        "mean_abs_bf16_vs_cpu_fp32": round(float(np.mean(np.abs(gpu16 - cpu32))), 4),
        "p99_abs_bf16_vs_cpu_fp32": round(float(np.quantile(np.abs(gpu16 - cpu32), 0.99)), 4),
        "max_abs_bf16_with_bf16_head_vs_cpu_fp32": round(float(np.max(np.abs(gpu16_head - cpu32))), 4),
        "max_abs_gpu_fp32_vs_cpu_fp32": round(float(np.max(np.abs(gpu32 - cpu32))), 5),
        "mean_score": round(float(np.mean(cpu32)), 2),
    }
    print(json.dumps(result, indent=2), flush=True)

    result["tailsplit"], _ = timed_run(bf16, requests, info, peak)
    print(json.dumps(result["tailsplit"], indent=2), flush=True)
    if not args.skip_unshared:
        unshared = scorer(device="cuda", dtype="bfloat16", share_prefix="never")
        unshared._model = bf16.model
        result["tailsplit_no_prefix_sharing"], _ = timed_run(unshared, requests, info, peak)
        print(json.dumps(result["tailsplit_no_prefix_sharing"], indent=2), flush=True)

    sweep = requests[: args.sweep_pairs]
    result["batch_tokens_sweep"] = {}
    for budget in args.sweep:
        variant = scorer(device="cuda", dtype="bfloat16", batch_tokens=budget)
        variant._model = bf16.model
        result["batch_tokens_sweep"][budget] = timed_run(variant, sweep, info, peak)[0]
        print(budget, json.dumps(result["batch_tokens_sweep"][budget]), flush=True)

    subset = requests[: args.reference_pairs]
    encoded = bf16.encode(subset)
    tokens = sum(len(e.ids) for e in encoded)
    torch.cuda.synchronize()
    started = time.perf_counter()
    reference = reference_scores(bf16, encoded)
    torch.cuda.synchronize()
    ref_seconds = time.perf_counter() - started
    started = time.perf_counter()
    ours = score_requests(subset, bf16, None)[0]
    torch.cuda.synchronize()
    our_seconds = time.perf_counter() - started
    result["reference_recipe"] = {
        "pairs": len(subset),
        "tokens": tokens,
        "seconds": round(ref_seconds, 2),
        "tokens_per_s": round(tokens / ref_seconds),
        "tailsplit_seconds": round(our_seconds, 2),
        "speedup": round(ref_seconds / our_seconds, 2),
        "max_abs_diff_nats": round(float(np.max(np.abs(reference - ours))), 4),
    }
    print(json.dumps(result["reference_recipe"], indent=2), flush=True)
    if args.json:
        write_results(args.json, result)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
