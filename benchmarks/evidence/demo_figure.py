"""The documentation's front-page figure: the demo's Likelihood Split against 500 random splits
of the bundled 3,000 SNLI pairs, on the four headline statistics (query length, rare words,
readability, likelihood). The full grid of every statistic is in the demo's own report.

The demo's parts and scores are those of ``make demo`` (bundled SmolLM2, SNLI prompt), kept in
``tests/fixtures/snli_sample_demo_split.jsonl.gz``; the analysis is the demo's (label-balanced
random splits, seed 0, no syntax), so no model runs here::

    python -m benchmarks.evidence.demo_figure --out docs/assets/demo-against-random.svg
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np

from benchmarks.harness import ROOT, parser
from tailsplit.analysis.leakage import duplicate_views
from tailsplit.analysis.plots import null_grid
from tailsplit.analysis.split_analysis import AnalysisInputs, SplitAnalysis, analyze_split
from tailsplit.analysis.text_counts import compute_text_counts

HEADLINE = ("mean_words", "rare_word_fraction", "fk_grade", "mean_logprob_sum")
SAMPLE = ROOT / "examples" / "data" / "snli_dev_3000.jsonl.gz"
DEMO = ROOT / "tests" / "fixtures" / "snli_sample_demo_split.jsonl.gz"


def demo_analysis() -> SplitAnalysis:
    """The demo's split analysed against 500 random splits (label-balanced, seed 0, no syntax)."""
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    with gzip.open(DEMO, "rt", encoding="utf-8") as handle:
        demo = [json.loads(line) for line in handle]
    texts, contexts = tuple(r["hypothesis"] for r in records), tuple(r["premise"] for r in records)
    inputs = AnalysisInputs(
        "demo", tuple(f"{i:06d}" for i in range(len(records))), texts, np.array([d["part"] for d in demo]),
        labels=tuple(r["label"] for r in records), logprob_sum=np.array([d["logprob_sum"] for d in demo]),
        n_tokens=np.array([d["n_tokens"] for d in demo]), balance_labels=True, contexts=contexts,
    )  # fmt: skip
    return analyze_split(
        inputs, null_splits=500, seed=0, text=compute_text_counts(texts), syntax=False,
        duplicates=duplicate_views(texts, contexts),
    )  # fmt: skip


def demo_figure_svg() -> str:
    """The figure's SVG (byte-identical from run to run with the same matplotlib)."""
    return null_grid(demo_analysis(), HEADLINE, cols=2).svg


def main() -> None:
    args = parser(__doc__, results=None)
    args.add_argument("--out", type=Path, default=ROOT / "docs" / "assets" / "demo-against-random.svg")
    given = args.parse_args()
    given.out.write_text(demo_figure_svg(), encoding="utf-8")
    print(f"wrote {given.out}")


if __name__ == "__main__":
    main()
