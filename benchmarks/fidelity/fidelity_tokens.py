"""The effect of the start token and of scoring the end token, on real data with the bundled LM.

Usage: python -m benchmarks.fidelity.fidelity_tokens --data ../shared/data --n 2000

For each comparison, the same examples are scored two ways and compared: mean shift of
``logprob_sum``, Spearman's rho, and how many of the least likely 10% (and 20 least likely)
stay the least likely — what decides a likelihood split.

- start token: unprompted Spider questions (pooled train + dev, first ``n``), ``bos``
  (``<|im_start|>`` for SmolLM2-Instruct, the default) against ``<|endoftext|>`` (GPT-2's,
  the paper's model family);
- end token: SNLI dev pairs under the SNLI prompt and BoolQ dev questions (unprompted), with
  and without ``--score-eos`` (the paper's code scores it for SNLI and BoolQ), the end token
  being the model's EOS (``<|im_end|>``, a chat token) or ``<|endoftext|>``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from benchmarks import harness
from tailsplit import pipeline
from tailsplit.config import DataConfig, RunConfig


def scores(paths: list[Path], n: int, data: DataConfig, template: str, **scoring: object) -> np.ndarray:
    config = RunConfig()
    config.data = data
    config.data.paths = [str(p) for p in paths]
    config.scoring.template = template
    for key, value in scoring.items():
        setattr(config.scoring, key, value)
    dataset = pipeline.load_dataset(config).subset(range(n))
    return np.asarray(pipeline.score_dataset(dataset, config.scoring)[0].logprob_sum)


def compare(name: str, a: np.ndarray, b: np.ndarray) -> None:
    tail = max(len(a) // 10, 1)
    low_a, low_b = set(np.argsort(a, kind="stable")[:tail]), set(np.argsort(b, kind="stable")[:tail])
    top_a, top_b = set(np.argsort(a, kind="stable")[:20]), set(np.argsort(b, kind="stable")[:20])
    print(
        f"| {name} | {len(a):,} | {np.mean(b - a):+.2f} | {spearmanr(a, b).statistic:.3f} | "
        f"{100 * len(low_a & low_b) / tail:.1f}% | {len(top_a & top_b)} of 20 |"
    )


def main() -> None:
    parser = harness.parser(__doc__, results=None)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()
    spider = [args.data / "spider/train.jsonl.gz", args.data / "spider/dev.jsonl.gz"]
    snli = [args.data / "snli/dev.jsonl.gz"]
    boolq = [args.data / "boolq/dev.jsonl.gz"]
    question = DataConfig(text="question")
    pair = DataConfig(text="hypothesis", context="premise", label="label")
    print("| comparison | examples | mean shift (nats) | Spearman | least likely 10% kept | 20 least likely kept |")
    print("|---|---:|---:|---:|---:|---:|")
    compare(
        "Spider, unprompted: start `bos` (<|im_start|>) → `<|endoftext|>`",
        scores(spider, args.n, question, "plain"),
        scores(spider, args.n, DataConfig(text="question"), "plain", start_token="<|endoftext|>"),
    )
    compare(
        "SNLI dev, snli prompt: end token not scored → `--score-eos`",
        scores(snli, args.n, pair, "snli"),
        scores(snli, args.n, DataConfig(text="hypothesis", context="premise", label="label"), "snli", score_eos=True),
    )
    compare(
        "SNLI dev, snli prompt: → `--score-eos --end-token '<|endoftext|>'`",
        scores(snli, args.n, pair, "snli"),
        scores(
            snli,
            args.n,
            DataConfig(text="hypothesis", context="premise", label="label"),
            "snli",
            score_eos=True,
            end_token="<|endoftext|>",
        ),
    )
    compare(
        "BoolQ dev questions, unprompted: → `--score-eos`",
        scores(boolq, args.n, question, "plain"),
        scores(boolq, args.n, DataConfig(text="question"), "plain", score_eos=True),
    )
    compare(
        "BoolQ dev questions, unprompted: → `--score-eos --end-token '<|endoftext|>'`",
        scores(boolq, args.n, question, "plain"),
        scores(boolq, args.n, DataConfig(text="question"), "plain", score_eos=True, end_token="<|endoftext|>"),
    )


if __name__ == "__main__":
    main()
