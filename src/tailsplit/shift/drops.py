"""Accuracy on the ID test set and on each OOD candidate, and the drop between them, each with
a 95% percentile bootstrap interval.

The ID test set and a candidate are independent samples, so a replicate resamples each with
replacement on its own (``resamples`` times, seeded) and the drop's interval is the 2.5th and
97.5th percentiles of the replicates' differences. The interval describes the sampling error
of the test sets only, not the variation between training runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.rng import OOD_BOOTSTRAP, seeded_rng

RESAMPLES = 2000


@dataclass(frozen=True)
class Measured:
    """An accuracy (or a drop) with its 95% interval and the examples behind it."""

    value: float
    low: float
    high: float
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {"value": round(self.value, 4), "ci": [round(self.low, 4), round(self.high, 4)], "n": self.n}


def _replicates(correct: np.ndarray, rng: np.random.Generator, resamples: int) -> np.ndarray:
    correct = np.asarray(correct, dtype=np.float64)
    if not len(correct):
        return np.full(resamples, np.nan)
    out = np.empty(resamples)
    for start in range(0, resamples, 250):  # bounded memory: 250 replicates at a time
        size = min(250, resamples - start)
        counts = rng.multinomial(len(correct), np.full(len(correct), 1 / len(correct)), size=size)
        out[start : start + size] = counts @ correct / len(correct)
    return out


def _measured(value: float, replicates: np.ndarray, n: int) -> Measured:
    low, high = np.percentile(replicates, [2.5, 97.5]) if n else (np.nan, np.nan)
    return Measured(float(value), float(low), float(high), n)


def accuracy_and_drops(
    id_correct: np.ndarray, candidates: list[np.ndarray], *, seed: int = 0, resamples: int = RESAMPLES
) -> tuple[Measured, list[tuple[Measured, Measured]]]:
    """ID accuracy, and per candidate (its accuracy, ID accuracy minus its accuracy).

    >>> id_acc, [(acc, drop)] = accuracy_and_drops(np.array([1, 1, 1, 0] * 50), [np.array([1, 0] * 100)])
    >>> id_acc.value, acc.value, drop.value, drop.low < 0.25 < drop.high
    (0.75, 0.5, 0.25, True)
    """
    rng = seeded_rng(seed, OOD_BOOTSTRAP)
    id_correct = np.asarray(id_correct, dtype=np.float64)
    id_replicates = _replicates(id_correct, rng, resamples)
    id_accuracy = float(id_correct.mean()) if len(id_correct) else float("nan")
    measured = []
    for correct in candidates:
        correct = np.asarray(correct, dtype=np.float64)
        replicates = _replicates(correct, rng, resamples)
        accuracy = float(correct.mean()) if len(correct) else float("nan")
        measured.append(
            (
                _measured(accuracy, replicates, len(correct)),
                _measured(id_accuracy - accuracy, id_replicates - replicates, len(correct)),
            )
        )
    return _measured(id_accuracy, id_replicates, len(id_correct)), measured
