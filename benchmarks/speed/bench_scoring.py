"""Scoring throughput: tailsplit's scorer against the reference recipe and the peers a
researcher would reach for, same model and data.

The reference recipe is how likelihood scoring is usually written: batches of 8 in input
order, padded, a full forward pass with logits at every position, full-vocabulary
log-softmax, then the query tokens' log-probabilities summed. With ``--peers`` the two tools
researchers score with today run too, on the same requests as ``tailsplit export lm-eval``
builds them (context = the prompt, continuation = the query with the whitespace that ends
the prompt, a BOS token first):

- lm-evaluation-harness: ``HFLM.loglikelihood`` (the path of every loglikelihood task),
  ``add_bos_token=True``, float32, ``--peer-batch-size`` (32; its ``auto`` probes at 64 and
  ran 11× slower than 32 on a CPU);
- minicons: ``IncrementalLMScorer.conditional_score`` with ``bos_token=True`` and a sum
  reduction, the prompt's trailing whitespace as its separator, same batch size.

Every contender's per-example sums are checked against tailsplit's float32 ones and the
largest difference is reported. Contenders run in rounds, each round in the opposite order
to the last (``--repeats``), best time kept. The peers are benchmark dependencies only
(``pip install -r benchmarks/requirements-peers.txt``), never the package's. Run:

    python -m benchmarks.speed.bench_scoring --n 600            # bundled SNLI sample
    python -m benchmarks.speed.bench_scoring --n 600 --peers --repeats 2 --json benchmarks/results/scoring_peers_cpu.json
    python -m benchmarks.speed.bench_scoring --data ../shared/data/snli/dev.jsonl.gz --n 2000

Machines are noisy: compare the ratio, measured in one run, not absolute numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

from benchmarks import harness
from benchmarks.harness import write_results
from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.driver import build_requests
from tailsplit.scoring.hf import HFScorer

DEFAULT_DATA = harness.ROOT / "examples" / "data" / "snli_dev_3000.jsonl.gz"


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


def lm_eval_model(folder: str, batch_size: int) -> object:
    from lm_eval.models.huggingface import HFLM

    return HFLM(pretrained=folder, device="cpu", dtype="float32", batch_size=batch_size, add_bos_token=True)


def lm_eval_scores(lm: object, requests: list) -> np.ndarray:
    """lm-evaluation-harness's HF model, ``loglikelihood`` on (prompt, query) pairs."""
    from lm_eval.api.instance import Instance

    instances = [
        Instance(request_type="loglikelihood", doc={}, arguments=(r.prompt, r.query), idx=i)
        for i, r in enumerate(requests)
    ]
    return np.array([logprob for logprob, _ in lm.loglikelihood(instances, disable_tqdm=True)])  # type: ignore[attr-defined]


def minicons_scores(lm: object, requests: list, batch_size: int) -> np.ndarray:
    """minicons' incremental scorer: the query given the prompt, summed, a BOS token first."""
    out: list[float] = []
    for start in range(0, len(requests), batch_size):
        rows = requests[start : start + batch_size]
        prefixes = [r.prompt.rstrip() for r in rows]
        separators = [r.prompt[len(p) :] for r, p in zip(rows, prefixes)]
        out += lm.conditional_score(  # type: ignore[attr-defined]
            prefixes, [r.query for r in rows], separator=separators, reduction=lambda x: x.sum(0).item(), bos_token=True
        )
    return np.array(out)


def snli_requests(data: Path, n: int) -> list:
    """The first ``n`` pairs of ``data`` as prompted SNLI requests (``snli`` template)."""
    dataset = load_examples(data, FieldMap(text="hypothesis", context="premise", label="label"))
    return build_requests(dataset.subset(range(min(n, len(dataset)))), BUILTIN_TEMPLATES["snli"])


def main() -> None:
    parser = harness.parser(__doc__, "also write the results here")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--n", type=int, default=600, help="pairs to score")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--peers", action="store_true", help="also lm-evaluation-harness and minicons, and mixed bf16")
    parser.add_argument("--peer-batch-size", type=int, default=32)
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
    if args.peers:
        folder, size = str(scorer.folder), args.peer_batch_size  # the float32 weights tailsplit scores with
        mixed = HFScorer(dtype="mixed-bfloat16")
        mixed._model = scorer.model  # autocast over the same float32 weights
        from minicons.scorer import IncrementalLMScorer

        lm_harness, incremental = lm_eval_model(folder, size), IncrementalLMScorer(folder, device="cpu")  # loaded once
        contenders |= {
            "tailsplit_mixed_bfloat16": lambda: tailsplit_scores(mixed, requests),
            "lm_eval": lambda: lm_eval_scores(lm_harness, requests),
            "minicons": lambda: minicons_scores(incremental, requests, size),
        }
        tailsplit_scores(mixed, requests[:64])  # warm up, as tailsplit was above
        lm_eval_scores(lm_harness, requests[:64])
        minicons_scores(incremental, requests[:64], size)
    seconds, scores = harness.in_rounds(contenders, args.repeats)
    rate = {name: n_tokens / min(times) for name, times in seconds.items()}
    report = {
        "data": args.data.name,
        "pairs": len(requests),
        "tokens": n_tokens,
        "machine": harness.machine(),
        **{f"{name}_tokens_per_s": round(r, 1) for name, r in rate.items()},
        "speedup_no_prefix_sharing": round(rate["tailsplit_no_prefix_sharing"] / rate["reference"], 2),
        "speedup": round(rate["tailsplit"] / rate["reference"], 2),
        "max_abs_score_diff_nats": float(
            max(np.max(np.abs(scores["reference"] - scores[name])) for name in contenders if "mixed" not in name)
        ),
        "seconds": {name: [round(t, 2) for t in times] for name, times in seconds.items()},
        "repeats": args.repeats,
    }
    if args.peers:
        faster_peer = max(("lm_eval", "minicons"), key=lambda name: rate[name])
        report |= {
            "peer_batch_size": args.peer_batch_size,
            "faster_peer": faster_peer,
            "speedup_vs_faster_peer": round(rate["tailsplit"] / rate[faster_peer], 2),
            "speedup_mixed_bfloat16_vs_faster_peer": round(rate["tailsplit_mixed_bfloat16"] / rate[faster_peer], 2),
            "max_abs_diff_vs_tailsplit_nats": {
                name: float(np.max(np.abs(scores[name] - scores["tailsplit"])))
                for name in ("lm_eval", "minicons", "tailsplit_mixed_bfloat16")
            },
        }
    print(json.dumps(report, indent=2))
    if args.json:
        write_results(args.json, report)


if __name__ == "__main__":
    main()
