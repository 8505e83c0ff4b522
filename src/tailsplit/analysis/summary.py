"""Statistics of one split part: the summary every split prints and stores in its manifest,
and the analysis' fuller description of the same part (one type for both)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.analysis.leakage import DuplicateKeys
from tailsplit.core import Dataset, ScoreTable, SplitIndices
from tailsplit.render import markdown_text

SUMMARY_FIELDS = (
    "part",
    "size",
    "label_counts",
    "mean_words",
    "mean_logprob_sum",
    "mean_logprob_mean",
    "queries_in_train",
    "queries_in_train_normalized",
)
ANALYSIS_FIELDS = (
    "part",
    "size",
    "label_counts",
    "mean_words",
    "median_words",
    "rare_word_fraction",
    "unlisted_word_fraction",
    "fk_grade",
    "fk_grade_example_mean",
    "fk_grade_example_sd",
    "mean_dependency_depth",
    "mean_logprob_sum",
    "mean_logprob_mean",
)


@dataclass(frozen=True)
class PartStatistics:
    """One split part. Every split fills size, labels, mean query length, mean scores and the
    share of queries also in train (:func:`summarize_split`); the analysis fills the text
    statistics (``None`` where it did not run)."""

    part: str
    size: int
    label_counts: dict[str, int]
    mean_words: float
    mean_logprob_sum: float | None
    mean_logprob_mean: float | None
    queries_in_train: float | None = None  # share whose query a train example has (exact)
    queries_in_train_normalized: float | None = None  # … after case/punctuation/space normalisation
    median_words: float | None = None
    rare_word_fraction: float | None = None
    unlisted_word_fraction: float | None = None
    fk_grade: float | None = None  # pooled: the part's words, sentences and syllables summed
    fk_grade_example_mean: float | None = None  # per example, then averaged (the paper compares these)
    fk_grade_example_sd: float | None = None
    mean_dependency_depth: float | None = None  # None when no parser ran

    def as_dict(self) -> dict[str, Any]:
        """The summary's fields (the manifest's ``summary``)."""
        return {k: getattr(self, k) for k in SUMMARY_FIELDS}

    def analysis_dict(self) -> dict[str, Any]:
        """The analysis' fields, floats to 6 places (``analysis.json``'s ``parts``)."""
        return {
            k: (round(v, 6) if isinstance(v, float) else v) for k, v in ((k, getattr(self, k)) for k in ANALYSIS_FIELDS)
        }


def summarize_split(
    dataset: Dataset, split: SplitIndices, word_lengths: np.ndarray, scores: ScoreTable | None
) -> list[PartStatistics]:
    """One summary per part, in train/dev/test order."""

    keys = DuplicateKeys.build(dataset.texts, near=False)
    train = np.zeros(len(dataset), dtype=bool)
    train[split.train_idx] = True
    leaked = {match: keys.leaked(match, train) for match in ("exact", "normalized")}
    out = []
    for part, idx in split.parts().items():
        labels = Counter(dataset.labels[i] for i in idx) if dataset.labels is not None else Counter()
        out.append(
            PartStatistics(
                part=part,
                size=len(idx),
                label_counts=dict(sorted(labels.items())),
                mean_words=_mean(word_lengths[idx]),
                mean_logprob_sum=None if scores is None else _mean(scores.logprob_sum[idx]),
                mean_logprob_mean=None
                if scores is None or not scores.has_token_counts
                else _mean(scores.logprob_mean[idx]),
                queries_in_train=None if part == "train" else _mean(leaked["exact"][idx]),
                queries_in_train_normalized=None if part == "train" else _mean(leaked["normalized"][idx]),
            )
        )
    return out


def _mean(values: np.ndarray) -> float:
    return round(float(np.mean(values)), 4) if len(values) else float("nan")


def render_summary_markdown(summaries: list[PartStatistics]) -> str:
    """A Markdown table of the summaries (labels as ``name: share%``, escaped like every report)."""

    lines = [
        "| part | size | labels | mean words | mean logprob_sum | mean logprob_mean | queries also in train "
        "(exact / normalized) |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for s in summaries:
        total = max(s.size, 1)
        labels = ", ".join(f"{markdown_text(k)}: {100 * v / total:.1f}%" for k, v in s.label_counts.items()) or "-"
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
