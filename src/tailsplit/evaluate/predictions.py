"""Scoring an external model's predictions on each split, by bucket, with the projected
accuracy of SPEC §1: the random splits' accuracy per bucket (e.g. Spider hardness), re-weighted
by a split's own bucket shares — what the split would score if only its bucket mix differed.
Actual below projected means the split is hard for more reasons than its mix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.render import markdown_text


@dataclass(frozen=True)
class ScoredPredictions:
    folder: str
    kind: str
    correct: np.ndarray  # per test example
    buckets: tuple[str, ...]  # per test example
    metric: str = "accuracy"  # or "exact match" (programs)
    ids: tuple[str, ...] = ()  # per test example (pairs the bootstrap draws across splits)

    @property
    def is_random(self) -> bool:
        return self.kind.startswith("random")

    def by_bucket(self) -> dict[str, tuple[int, float]]:
        """bucket → (examples, accuracy), buckets sorted."""
        keys = np.asarray(self.buckets, dtype=object)
        return {b: (int((keys == b).sum()), float(self.correct[keys == b].mean())) for b in sorted(set(self.buckets))}


def random_bucket_accuracy(scored: Sequence[ScoredPredictions]) -> dict[str, float]:
    """Accuracy per bucket over the random splits' test examples pooled."""
    correct: dict[str, list[float]] = {}
    for s in scored:
        if s.is_random:
            for flag, bucket in zip(s.correct, s.buckets):
                correct.setdefault(bucket, []).append(float(flag))
    return {b: float(np.mean(v)) for b, v in sorted(correct.items())}


def projected_accuracy(split: ScoredPredictions, reference: Mapping[str, float]) -> float | None:
    """Σ_b share_b(split) · accuracy_b(random), over the buckets random splits have (shares
    renormalised over those); None without random splits.

    >>> s = ScoredPredictions("x", "tmcd", np.array([1, 0, 0, 0]), ("easy", "hard", "hard", "hard"))
    >>> projected_accuracy(s, {"easy": 0.9, "hard": 0.5})
    0.6
    """
    known = [b for b in split.buckets if b in reference]
    if not known:
        return None
    return round(float(np.mean([reference[b] for b in known])), 4)


def predictions_markdown(rows: Sequence[dict[str, Any]], bucket_name: str) -> str:
    buckets = sorted({b for r in rows for b in r["buckets"]})
    lines = [
        "| split | folder | test | projected | actual − projected | "
        + " | ".join(f"{markdown_text(bucket_name)} {markdown_text(b)} (share, acc.)" for b in buckets)
        + " |",
        "|---|---|---:|---:|---:|" + "---:|" * len(buckets),
    ]
    for r in rows:
        projected = "" if r["projected"] is None else f"{100 * r['projected']:.1f}"
        gap = "" if r["projected"] is None else f"{100 * (r['test'] - r['projected']):+.1f}"
        cells = []
        for b in buckets:
            if b in r["buckets"]:
                cells.append(f"{100 * r['buckets'][b]['share']:.0f}%, {100 * r['buckets'][b]['accuracy']:.1f}")
            else:
                cells.append("")
        lines.append(
            f"| {markdown_text(r['split'])} | {markdown_text(r['folder'])} | {100 * r['test']:.1f} | {projected} "
            f"| {gap} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"
