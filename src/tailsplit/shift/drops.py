"""The task metric (accuracy, NER's entity F1, SQuAD's F1) on the ID test set and on each OOD
candidate, and the drop between them, each with a 95% percentile bootstrap interval.

The ID test set and a candidate are independent samples, so a replicate resamples each with
replacement on its own (``resamples`` times, seeded) and the drop's interval is the 2.5th and
97.5th percentiles of the replicates' differences. The interval describes the sampling error
of the test sets only, not the variation between training runs.
"""

from __future__ import annotations

from collections.abc import Callable
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


Metric = Callable[[np.ndarray, int], np.ndarray]


def mean_metric(sums: np.ndarray, n: int) -> np.ndarray:
    """A mean of per-example values (accuracy; SQuAD's F1): the first column's sum over ``n``."""
    return np.asarray(sums, dtype=np.float64)[..., 0] / max(n, 1)


def _replicates(stats: np.ndarray, rng: np.random.Generator, resamples: int, metric: Metric) -> np.ndarray:
    """The metric of ``resamples`` bootstrap resamples of the examples (rows of ``stats``)."""
    stats = np.asarray(stats, dtype=np.float64).reshape(len(stats), -1)
    if not len(stats):
        return np.full(resamples, np.nan)
    out = np.empty(resamples)
    for start in range(0, resamples, 250):  # bounded memory: 250 replicates at a time
        size = min(250, resamples - start)
        counts = rng.multinomial(len(stats), np.full(len(stats), 1 / len(stats)), size=size)
        out[start : start + size] = metric(counts @ stats, len(stats))
    return out


def _measured(value: float, replicates: np.ndarray, n: int) -> Measured:
    low, high = np.percentile(replicates, [2.5, 97.5]) if n else (np.nan, np.nan)
    return Measured(float(value), float(low), float(high), n)


def _value(stats: np.ndarray, metric: Metric) -> float:
    stats = np.asarray(stats, dtype=np.float64).reshape(len(stats), -1)
    return float(metric(stats.sum(axis=0), len(stats))) if len(stats) else float("nan")


def metric_and_drops(
    id_stats: np.ndarray,
    candidates: list[np.ndarray],
    *,
    metric: Metric = mean_metric,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> tuple[Measured, list[tuple[Measured, Measured]]]:
    """The ID metric, and per candidate (its metric, the ID metric minus its metric); each
    example's statistics are a row of ``id_stats`` / a candidate's (a correct flag; NER's
    entity counts), ``metric`` turns summed rows into the metric.

    >>> id_acc, [(acc, drop)] = metric_and_drops(np.array([1, 1, 1, 0] * 50), [np.array([1, 0] * 100)])
    >>> id_acc.value, acc.value, drop.value, drop.low < 0.25 < drop.high
    (0.75, 0.5, 0.25, True)
    """
    rng = seeded_rng(seed, OOD_BOOTSTRAP)
    id_replicates = _replicates(id_stats, rng, resamples, metric)
    id_value = _value(id_stats, metric)
    measured = []
    for stats in candidates:
        replicates = _replicates(stats, rng, resamples, metric)
        value = _value(stats, metric)
        measured.append(
            (
                _measured(value, replicates, len(stats)),
                _measured(id_value - value, id_replicates - replicates, len(stats)),
            )
        )
    return _measured(id_value, id_replicates, len(id_stats)), measured


def accuracy_and_drops(
    id_correct: np.ndarray, candidates: list[np.ndarray], *, seed: int = 0, resamples: int = RESAMPLES
) -> tuple[Measured, list[tuple[Measured, Measured]]]:
    """ID accuracy, and per candidate (its accuracy, ID accuracy minus its accuracy)."""
    return metric_and_drops(id_correct, candidates, seed=seed, resamples=resamples)
