"""Fine-tuning throughput: tailsplit's training step against the plain Hugging Face one.

Both take AdamW steps on the same batches of prompted Spider questions with the bundled
model. The baseline is the usual recipe — ``model(input_ids, labels=...)`` with the prompt
masked out of the labels (full-vocabulary logits at every position); tailsplit's step
projects to the vocabulary only at the query's positions. Prints training tokens/s (prompt
included) and the ratio, measured in one run. Run:

    python -m benchmarks.speed.bench_finetune --data ../shared/data/spider/train.jsonl.gz --steps 10
"""

from __future__ import annotations

import copy
import functools
import json
import platform
import time
from pathlib import Path

import torch

from benchmarks import harness
from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.driver import build_requests
from tailsplit.scoring.finetune import trainable_copy
from tailsplit.scoring.hf import HFScorer


def baseline_step(model, optimizer, batch) -> None:  # noqa: ANN001
    width = max(len(e.ids) for e in batch)
    input_ids = torch.zeros((len(batch), width), dtype=torch.long)
    labels = torch.full((len(batch), width), -100, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for r, e in enumerate(batch):
        input_ids[r, : len(e.ids)] = torch.tensor(e.ids)
        labels[r, e.first : len(e.ids)] = torch.tensor(e.ids[e.first :])
        mask[r, : len(e.ids)] = 1
    loss = model(input_ids=input_ids, attention_mask=mask, labels=labels).loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()


def tailsplit_step(scorer, model, optimizer, batch) -> None:  # noqa: ANN001
    logprobs, _ = scorer.query_logprobs(batch, model=model)
    loss = -logprobs.mean()
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()


def main() -> None:
    parser = harness.parser(__doc__, results=None)
    parser.add_argument("--data", type=Path, required=True, help="Spider-style JSONL with a question field")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()

    dataset = load_examples(args.data, FieldMap(text="question", id="none"))
    requests = build_requests(dataset.subset(range(args.steps * args.batch_size)), BUILTIN_TEMPLATES["spider"])
    scorer = HFScorer()
    encoded = scorer.encode(requests)
    batches = [encoded[i : i + args.batch_size] for i in range(0, len(encoded), args.batch_size)]
    n_tokens = sum(len(e.ids) for e in encoded)
    rates = {}
    for name in ("baseline", "tailsplit", "tailsplit_lora16"):
        if name == "tailsplit_lora16":
            model, _ = trainable_copy(scorer.transformers_model(), 16)
        else:
            model = copy.deepcopy(scorer.transformers_model()).train()
        optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-5)
        step = (
            functools.partial(baseline_step, model, optimizer)
            if name == "baseline"
            else functools.partial(tailsplit_step, scorer, model, optimizer)
        )
        step(batches[0])  # warm-up
        started = time.perf_counter()
        for batch in batches:
            step(batch)
        rates[name] = n_tokens / (time.perf_counter() - started)
    print(
        json.dumps(
            {
                "data": args.data.name,
                "steps": len(batches),
                "batch_size": args.batch_size,
                "tokens": n_tokens,
                "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads, torch {torch.__version__}",
                "device": "cpu",
                "baseline_tokens_per_s": round(rates["baseline"], 1),
                "tailsplit_tokens_per_s": round(rates["tailsplit"], 1),
                "tailsplit_lora16_tokens_per_s": round(rates["tailsplit_lora16"], 1),
                "speedup": round(rates["tailsplit"] / rates["baseline"], 2),
                "speedup_lora16": round(rates["tailsplit_lora16"] / rates["baseline"], 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
