"""Scoring throughput: tailsplit's scorer against the reference recipe, same model and data.

The reference recipe is how likelihood scoring is usually written: batches of 8 in input
order, padded, a full forward pass with logits at every position, full-vocabulary
log-softmax, then the query tokens' log-probabilities summed. Both sides score the same
SNLI-style prompted pairs with the same tokenisation; the script checks they agree and
prints tokens/s and the ratio. Run:

    python benchmarks/bench_scoring.py --n 600            # bundled SNLI sample
    python benchmarks/bench_scoring.py --data ../shared/data/snli/dev.jsonl.gz --n 2000

Machines are noisy: compare the ratio, measured in one run, not absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import torch
from provenance import write_results

from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.driver import build_requests
from tailsplit.scoring.hf import HFScorer

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent / "examples" / "data" / "snli_dev_3000.jsonl.gz"


def reference_scores(scorer: HFScorer, encoded: list, batch_size: int = 8) -> np.ndarray:
    """Batches of ``batch_size`` in input order, full logits and full log-softmax everywhere."""
    model = scorer.transformers_model()  # the usual recipe: transformers' model, full logits
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
            logprobs = torch.log_softmax(model(input_ids=input_ids, attention_mask=mask).logits.float(), -1)
            token_lp = logprobs[:, :-1].gather(2, input_ids[:, 1:, None])[..., 0]
            for r, e in enumerate(rows):
                out[start + r] = token_lp[r, e.first - 1 : len(e.ids) - 1].double().sum().item()
    return out


def tailsplit_scores(scorer: HFScorer, requests: list) -> np.ndarray:
    out = np.zeros(len(requests))
    for batch in scorer.plan(requests):
        out[batch.indices] = scorer.score_batch(batch).logprob_sum
    return out


def snli_requests(data: Path, n: int) -> list:
    """The first ``n`` pairs of ``data`` as prompted SNLI requests (``snli`` template)."""
    dataset = load_examples(data, FieldMap(text="hypothesis", context="premise", label="label"))
    return build_requests(dataset.subset(range(min(n, len(dataset)))), BUILTIN_TEMPLATES["snli"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--n", type=int, default=600, help="pairs to score")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()

    requests = snli_requests(args.data, args.n)
    scorer = HFScorer()
    encoded = scorer.encode(requests)
    n_tokens = sum(len(e.ids) for e in encoded)
    unshared = HFScorer(share_prefix="never")
    unshared._model = scorer.model  # same weights in memory: load once, before timing
    via_transformers = HFScorer(implementation="transformers")
    via_transformers._model = scorer.transformers_model()
    tailsplit_scores(scorer, requests[:64])  # warm up kernels and threads

    contenders = {
        "reference": lambda: reference_scores(scorer, encoded),
        "tailsplit_no_prefix_sharing": lambda: tailsplit_scores(unshared, requests),
        "tailsplit_transformers_model": lambda: tailsplit_scores(via_transformers, requests),
        "tailsplit": lambda: tailsplit_scores(scorer, requests),
    }
    seconds = {name: [] for name in contenders}
    scores = {}
    for _ in range(args.repeats):  # interleaved, so a noisy moment hurts every contender alike
        for name, fn in contenders.items():
            started = time.perf_counter()
            scores[name] = fn()
            seconds[name].append(time.perf_counter() - started)
    rate = {name: n_tokens / min(times) for name, times in seconds.items()}
    report = {
        "data": args.data.name,
        "pairs": len(requests),
        "tokens": n_tokens,
        "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads, torch {torch.__version__}",
        **{f"{name}_tokens_per_s": round(r, 1) for name, r in rate.items()},
        "speedup_no_prefix_sharing": round(rate["tailsplit_no_prefix_sharing"] / rate["reference"], 2),
        "speedup": round(rate["tailsplit"] / rate["reference"], 2),
        "max_abs_score_diff_nats": float(
            max(np.max(np.abs(scores["reference"] - scores[name])) for name in contenders)
        ),
    }
    print(json.dumps(report, indent=2))
    if args.json:
        write_results(args.json, report)


if __name__ == "__main__":
    main()
