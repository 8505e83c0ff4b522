"""Null distributions: the same statistic over many random splits of the same sizes.

A random evaluation set is a set of row indices; ``N`` of them form an ``N × n_eval``
matrix, so every statistic that is a ratio of per-example sums (mean length, rare-word
fraction, reading grade, mean score, hardness shares) is computed for all ``N`` splits by
one gather-and-sum over a small matrix of per-example columns.
Random sets keep the observed evaluation set's count in every stratum (label, when the split
balanced labels), so the null differs from the observed split only in *which* examples it
took. An observed value is reported with its percentile among the null values (ties count
half), its z-score, and a two-sided Monte Carlo p-value: the share of the ``n`` random splits
and the observed one lying at least as far from their common mean as the observed value,
``(1 + #{|v − c| ≥ |x − c|}) / (1 + n)`` (the +1 counts the observed split, so the p-value
is valid for a finite null; its smallest value is ``1 / (1 + n)``). :func:`holm` adjusts the
p-values of one report for the number of statistics it tests (Holm's step-down, which
controls the family-wise error), and only an adjusted p-value at most :data:`ALPHA` is
called a difference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError
from tailsplit.forking import on_cores, workers_for
from tailsplit.log import logger
from tailsplit.rng import NULL_SPLITS, seeded_rng


@dataclass(frozen=True)
class RatioStatistic:
    """``combine(*sums)`` of per-example columns summed over the evaluation rows."""

    name: str
    description: str
    columns: tuple[str, ...]
    combine: Callable[..., Any]


@dataclass(frozen=True)
class NullComparison:
    """An observed statistic against its null distribution."""

    name: str
    description: str
    observed: float
    null_mean: float
    null_std: float
    percentile: float  # share of random splits with a lower value (ties count half), in %
    z_score: float
    null_values: np.ndarray
    p_value: float = float("nan")  # two-sided Monte Carlo p-value, (1 + as extreme) / (1 + n)
    p_holm: float = float("nan")  # p_value adjusted by Holm across the statistics of one report
    family: int = 0  # how many statistics the Holm adjustment counted

    @property
    def differs(self) -> bool:
        """Whether the observed value differs from random splits after the Holm adjustment."""
        return bool(np.isfinite(self.p_holm) and self.p_holm <= ALPHA)

    @staticmethod
    def of(name: str, description: str, observed: float, null_values: np.ndarray) -> NullComparison:
        values = np.asarray(null_values, dtype=np.float64)
        values = values[np.isfinite(values)]
        if len(values) == 0 or not np.isfinite(observed):
            return NullComparison(
                name, description, float(observed), float("nan"), float("nan"), float("nan"), float("nan"), values
            )
        below = float(np.sum(values < observed) + 0.5 * np.sum(values == observed))
        std = float(values.std(ddof=1)) if len(values) > 1 else 0.0
        z = (observed - values.mean()) / std if std > 0 else float("nan")
        return NullComparison(
            name,
            description,
            float(observed),
            float(values.mean()),
            std,
            100.0 * below / len(values),
            float(z),
            values,
            p_value=monte_carlo_p(observed, values),
        )

    def verdict(self) -> str:
        """E.g. ``"higher than in 99.8% of random splits"``."""
        if not np.isfinite(self.percentile):
            return "no null distribution"
        if self.null_std == 0:  # no variation: a percentile or z would mean nothing
            same = self.observed == self.null_mean
            return "constant across random splits" + (" (this split too)" if same else "; this split differs")
        if self.percentile >= 50:
            return f"higher than in {self.percentile:.1f}% of random splits"
        return f"lower than in {100 - self.percentile:.1f}% of random splits"

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "null_values"}
        out["differs"] = self.differs
        return {k: (round(v, 6) if isinstance(v, float) and np.isfinite(v) else v) for k, v in out.items()}


ALPHA = 0.05  # family-wise error rate of one report's verdicts


def is_share(name: str) -> bool:
    """Whether statistic ``name`` is a share (shown in percent)."""
    return (
        name.endswith(("_fraction", "share", "_in_train"))
        or name.startswith("hardness_")
        or name == ("annotator_agreement")
    )


CORRECTION = (
    "two-sided Monte Carlo p-values, (1 + random splits at least as far from the mean) / (1 + random splits), "
    "adjusted by Holm's step-down across the {family} statistics of this report (family-wise error ≤ {alpha:g})"
)


def monte_carlo_p(observed: float, values: np.ndarray) -> float:
    """Two-sided p-value of ``observed`` against null ``values``, with the +1 correction.

    >>> monte_carlo_p(10.0, np.arange(9.0)), monte_carlo_p(4.0, np.arange(9.0))
    (0.1, 1.0)
    """
    center = (values.sum() + observed) / (len(values) + 1)  # symmetric in all n + 1 values: an exact test
    distance = abs(observed - center)
    tolerance = 1e-12 * max(1.0, abs(center))
    return float((1 + np.sum(np.abs(values - center) >= distance - tolerance)) / (len(values) + 1))


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of ``p_values`` (one family), in their order.

    >>> holm_adjusted([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(sorted(range(len(p_values)), key=lambda k: (p_values[k], k))):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def holm(comparisons: list[NullComparison]) -> list[NullComparison]:
    """``comparisons`` with Holm-adjusted p-values over those that have one (the family).

    >>> made = [NullComparison.of(str(i), "", x, np.arange(99.0)) for i, x in enumerate((200.0, 300.0, 50.0))]
    >>> [round(c.p_value, 3) for c in made], [round(c.p_holm, 3) for c in holm(made)]
    ([0.01, 0.01, 0.99], [0.03, 0.03, 0.99])
    """
    tested = [i for i, c in enumerate(comparisons) if np.isfinite(c.p_value)]
    family = len(tested)
    adjusted = dict(zip(tested, holm_adjusted([comparisons[i].p_value for i in tested])))
    return [
        replace(c, p_holm=adjusted.get(i, float("nan")), family=family if i in adjusted else 0)
        for i, c in enumerate(comparisons)
    ]


# The null distributions' evaluation rows (int64, one row per random split) are held in memory:
# above this a run is refused before any work, naming how many random splits fit.
MAX_NULL_BYTES = 2 << 30


def check_null_size(n_splits: int, n_eval: int, option: str = "--null-splits") -> None:
    """Refuse null distributions whose rows would not fit :data:`MAX_NULL_BYTES`; say what a
    large one holds before it is drawn (its size is known exactly beforehand).

    >>> check_null_size(500, 2000)
    >>> check_null_size(100_000, 20_000)
    Traceback (most recent call last):
    tailsplit.errors.ConfigError: --null-splits=100000 would hold 100,000 random splits × 20,000 evaluation rows (14.9 GiB) in memory; give at most 13,421
    """
    need = 8 * n_splits * max(n_eval, 1)
    if need > MAX_NULL_BYTES:
        fits = MAX_NULL_BYTES // (8 * max(n_eval, 1))
        raise ConfigError(
            f"{option}={n_splits} would hold {n_splits:,} random splits × {n_eval:,} evaluation rows "
            f"({need / (1 << 30):.1f} GiB) in memory; give at most {fits:,}"
        )
    if need > 256 << 20:
        logger.info(
            f"the null distributions: {n_splits:,} random splits × {n_eval:,} evaluation rows "
            f"({need / (1 << 20):,.0f} MiB in memory)"
        )


def random_eval_rows(
    eval_mask: np.ndarray,
    strata: np.ndarray | None,
    n_splits: int,
    seed: int,
) -> np.ndarray:
    """``n_splits × n_eval`` row indices: random evaluation sets with the observed set's count
    in every stratum (one row of the result per random split).

    >>> rows = random_eval_rows(np.array([1, 1, 0, 0, 0, 0], bool), np.array([0, 1, 0, 1, 0, 1]), 4, 0)
    >>> rows.shape, (rows % 2 == 0).sum(axis=1).tolist()
    ((4, 2), [1, 1, 1, 1])
    """
    n = len(eval_mask)
    check_null_size(n_splits, int(eval_mask.sum()))
    if n_splits == 0:
        return np.zeros((0, int(eval_mask.sum())), dtype=np.int64)
    strata = np.zeros(n, dtype=np.int64) if strata is None else np.asarray(strata)
    rng = seeded_rng(seed, NULL_SPLITS)
    blocks = []
    for stratum in np.unique(strata):
        rows = np.flatnonzero(strata == stratum)
        quota = int(eval_mask[rows].sum())
        if quota:
            blocks.append(np.stack([rows[rng.choice(len(rows), quota, replace=False)] for _ in range(n_splits)]))
    if not blocks:
        return np.zeros((n_splits, 0), dtype=np.int64)
    return np.concatenate(blocks, axis=1)


def rows_to_mask(rows: np.ndarray, n: int) -> np.ndarray:
    mask = np.zeros(n, dtype=bool)
    mask[rows] = True
    return mask


# The fewest gathered values (null rows × columns) for which the sums go to several processes.
_PARALLEL_VALUES = 4_000_000


def _null_sums(matrix: np.ndarray, null_rows: np.ndarray) -> np.ndarray:
    """Per null split (row of ``null_rows``) and column of ``matrix``, the sum over the split's
    rows — the splits in chunks on the usable cores for large draws (each split's sums run the
    same additions whatever its chunk, so the bits are the same)."""

    def chunk(start: int, stop: int) -> np.ndarray:
        rows = null_rows[start:stop]
        return np.column_stack([matrix[:, j][rows].sum(axis=1) for j in range(matrix.shape[1])])

    workers = workers_for(null_rows.size * matrix.shape[1], _PARALLEL_VALUES)
    return np.concatenate(on_cores(chunk, len(null_rows), workers=workers)).reshape(len(null_rows), matrix.shape[1])


def ratio_statistics_null(
    statistics: list[RatioStatistic],
    columns: dict[str, np.ndarray],
    eval_mask: np.ndarray,
    null_rows: np.ndarray,
    order: np.ndarray | None = None,
) -> list[NullComparison]:
    """Every ratio statistic, observed and over the null splits, from one gather-and-sum of
    the per-example columns. ``order`` (a permutation of the rows) fixes the order in which the
    observed sums add up, so float columns give the same bits whatever the input row order."""
    names = sorted({c for s in statistics for c in s.columns})
    matrix = np.column_stack([np.asarray(columns[c], dtype=np.float64) for c in names])
    null_sums = _null_sums(matrix, null_rows)
    rows = np.flatnonzero(eval_mask) if order is None else order[eval_mask[order]]
    observed_sums = matrix[rows].sum(axis=0)
    index = {c: i for i, c in enumerate(names)}
    out = []
    for stat in statistics:
        cols = [index[c] for c in stat.columns]
        with np.errstate(divide="ignore", invalid="ignore"):
            observed = float(stat.combine(*(observed_sums[i] for i in cols)))
            null_values = np.asarray(stat.combine(*(null_sums[:, i] for i in cols)), dtype=np.float64)
        out.append(NullComparison.of(stat.name, stat.description, observed, null_values))
    return out


def per_split_null(
    name: str, description: str, statistic: Callable[[np.ndarray], float], eval_mask: np.ndarray, null_rows: np.ndarray
) -> NullComparison:
    """A statistic that is not a ratio of sums (e.g. a divergence), one split at a time."""
    n = len(eval_mask)
    null_values = np.array([statistic(rows_to_mask(rows, n)) for rows in null_rows], dtype=np.float64)
    return NullComparison.of(name, description, float(statistic(eval_mask)), null_values)
