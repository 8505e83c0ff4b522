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
    queries_in_train: float | None = None  # share whose query a train example has (exact)
    queries_in_train_normalized: float | None = None  # … after case/punctuation/space normalisation

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def summarize_split(
    dataset: Dataset, split: SplitIndices, word_lengths: np.ndarray, scores: ScoreTable | None
) -> list[PartSummary]:
    """One summary per part, in train/dev/test order."""
    from tailsplit.analysis.leakage import DuplicateKeys

    keys = DuplicateKeys.build(dataset.texts, near=False)
    train = np.zeros(len(dataset), dtype=bool)
    train[split.train_idx] = True
    leaked = {match: keys.leaked(match, train) for match in ("exact", "normalized")}
    out = []
    for part, idx in split.parts().items():
        labels = Counter(dataset.labels[i] for i in idx) if dataset.labels is not None else Counter()
        out.append(
            PartSummary(
                part=part,
                size=len(idx),
                label_counts=dict(sorted(labels.items())),
                mean_words=_mean(word_lengths[idx]),
                mean_logprob_sum=None if scores is None else _mean(scores.logprob_sum[idx]),
                mean_logprob_mean=None if scores is None else _mean(scores.logprob_mean[idx]),
                queries_in_train=None if part == "train" else _mean(leaked["exact"][idx]),
                queries_in_train_normalized=None if part == "train" else _mean(leaked["normalized"][idx]),
            )
        )
    return out


def _mean(values: np.ndarray) -> float:
    return round(float(np.mean(values)), 4) if len(values) else float("nan")


def render_summary_markdown(summaries: list[PartSummary]) -> str:
    """A Markdown table of the summaries (labels as ``name: share%``, escaped like every report)."""
    from tailsplit.analysis.report import markdown_cell

    lines = [
        "| part | size | labels | mean words | mean logprob_sum | mean logprob_mean | queries also in train "
        "(exact / normalized) |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for s in summaries:
        total = max(s.size, 1)
        labels = ", ".join(f"{markdown_cell(k)}: {100 * v / total:.1f}%" for k, v in s.label_counts.items()) or "-"
        leakage = (
            "-" if s.queries_in_train is None else f"{_pct(s.queries_in_train)} / {_pct(s.queries_in_train_normalized)}"
        )
        lines.append(
            f"| {s.part} | {s.size} | {labels} | {s.mean_words:.2f} | "
            f"{_fmt(s.mean_logprob_sum)} | {_fmt(s.mean_logprob_mean)} | {leakage} |"
        )
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "-" if value is None or value != value else f"{100 * value:.2f}%"


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
