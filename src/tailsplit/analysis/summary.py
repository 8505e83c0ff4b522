"""The per-part summary printed after a split and stored in its manifest."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.core import Dataset, ScoreTable, SplitIndices


@dataclass(frozen=True)
class PartSummary:
    """Size, label counts, mean query length (words) and mean scores of one split part."""

    part: str
    size: int
    label_counts: dict[str, int]
    mean_words: float
    mean_logprob_sum: float | None
    mean_logprob_mean: float | None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def summarize_split(dataset: Dataset, split: SplitIndices, word_lengths: np.ndarray,
                    scores: ScoreTable | None) -> list[PartSummary]:
    """One summary per part, in train/dev/test order."""
    out = []
    for part, idx in split.parts().items():
        labels = Counter(dataset.labels[i] for i in idx) if dataset.labels is not None else Counter()
        out.append(PartSummary(
            part=part, size=len(idx), label_counts=dict(sorted(labels.items())),
            mean_words=_mean(word_lengths[idx]),
            mean_logprob_sum=None if scores is None else _mean(scores.logprob_sum[idx]),
            mean_logprob_mean=None if scores is None else _mean(scores.logprob_mean[idx]),
        ))
    return out


def _mean(values: np.ndarray) -> float:
    return round(float(np.mean(values)), 4) if len(values) else float("nan")


def render_summary_markdown(summaries: list[PartSummary]) -> str:
    """A Markdown table of the summaries (labels as ``name: share%``, escaped like every report)."""
    from tailsplit.analysis.report import markdown_cell

    lines = ["| part | size | labels | mean words | mean logprob_sum | mean logprob_mean |",
             "|---|---:|---|---:|---:|---:|"]
    for s in summaries:
        total = max(s.size, 1)
        labels = ", ".join(f"{markdown_cell(k)}: {100 * v / total:.1f}%" for k, v in s.label_counts.items()) or "-"
        lines.append(f"| {s.part} | {s.size} | {labels} | {s.mean_words:.2f} | "
                     f"{_fmt(s.mean_logprob_sum)} | {_fmt(s.mean_logprob_mean)} |")
    return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
