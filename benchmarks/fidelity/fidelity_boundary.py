"""Which examples the scored boundary touches: the prompt's trailing whitespace scored with the query.

Usage: python -m benchmarks.fidelity.fidelity_boundary --data ../shared/data [--score 300]

tailsplit scores the query together with the whitespace that ends its prompt (lm-eval's
continuation). Where the tokenizer merges that space into the query's first token (`` Men``)
this is what tailsplit always scored; where it keeps the space apart (before a digit: `` `` +
``2``), scorer version 1 left the space's token out. This counts, with the bundled model's
tokenizer (no forward pass), the examples whose scored tokens differ between the two rules,
per dataset and prompt; with ``--score N`` it also scores up to N affected examples to give the
mean log-probability of the space token the old rule left out.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks import harness
from tailsplit import pipeline
from tailsplit.config import DataConfig, RunConfig
from tailsplit.prompts import resolve_template
from tailsplit.scoring.driver import build_requests
from tailsplit.scoring.encoding import _first_token_after
from tailsplit.scoring.hf import HFScorer

CASES = {
    "SNLI dev (snli prompt)": (
        ("snli/dev.jsonl.gz",),
        DataConfig(text="hypothesis", context="premise", label="label"),
        "snli",
    ),
    "Spider train+dev (spider prompt)": (
        ("spider/train.jsonl.gz", "spider/dev.jsonl.gz"),
        DataConfig(text="question"),
        "spider",
    ),
    "BoolQ dev (boolq prompt)": (("boolq/dev.jsonl.gz",), DataConfig(text="question", context="passage"), "boolq"),
    "MNLI dev-matched (snli prompt)": (
        ("mnli/dev_matched.jsonl.gz",),
        DataConfig(text="hypothesis", context="premise", label="label"),
        "snli",
    ),
}


def affected(scorer: HFScorer, requests: list) -> np.ndarray:
    """Per request: the number of tokens the new rule scores that the old one did not."""
    backend = scorer.tokenizer.backend_tokenizer
    encodings = backend.encode_batch([r.prompt + r.query for r in requests], add_special_tokens=False)
    extra = np.zeros(len(requests), dtype=np.int64)
    for i, (request, encoding) in enumerate(zip(requests, encodings)):
        old = _first_token_after(encoding, len(request.prompt))
        new = _first_token_after(encoding, len(request.prompt.rstrip()))
        extra[i] = old - new
    return extra


def main() -> None:
    parser = harness.parser(__doc__, results=None)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--score", type=int, default=0, help="score up to N affected examples per dataset")
    args = parser.parse_args()
    scorer = HFScorer()
    print("| data | examples | scored tokens differ | mean log-prob of the added tokens (nats) |")
    print("|---|---:|---:|---:|")
    for name, (files, data, template) in CASES.items():
        paths = [args.data / f for f in files]
        if not all(p.is_file() for p in paths):
            print(f"| {name} | (no data) | | |")
            continue
        config = RunConfig()
        config.data = data
        config.data.paths = [str(p) for p in paths]
        dataset = pipeline.load_dataset(config)
        requests = build_requests(dataset, resolve_template(template))
        extra = affected(scorer, requests)
        hit = np.flatnonzero(extra)
        shift = _space_cost(scorer, [requests[i] for i in hit[: args.score]]) if args.score and len(hit) else ""
        print(f"| {name} | {len(requests):,} | {len(hit):,} ({100 * len(hit) / len(requests):.2f}%) | {shift} |")


def _space_cost(scorer: HFScorer, requests: list) -> str:
    """Mean summed log-probability of the tokens the new rule scores and the old did not
    (full forward pass of each request, full log-softmax)."""
    import torch

    costs = []
    model = scorer.transformers_model()
    for request in requests:
        (encoded,) = scorer.planner().encode([request])
        backend = scorer.tokenizer.backend_tokenizer
        encoding = backend.encode(request.prompt + request.query, add_special_tokens=False)
        old_first = _first_token_after(encoding, len(request.prompt)) + 1
        with torch.inference_mode():
            logits = model(input_ids=torch.tensor([encoded.ids])).logits[0].double()
        logprobs = torch.log_softmax(logits, -1)
        costs.append(sum(logprobs[k - 1, encoded.ids[k]].item() for k in range(encoded.first, old_first)))
    return f"{np.mean(costs):.2f} (n={len(costs)})"


if __name__ == "__main__":
    main()
