"""How two splits of the same examples relate: score correlation and shared evaluation sets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.analysis.split_analysis import AnalysisInputs
from tailsplit.errors import ConfigError


@dataclass(frozen=True)
class SplitComparison:
    """``other`` against the split under study; correlations are ``None`` without scores."""

    other: str
    pearson_r: float | None
    spearman_rho: float | None
    eval_shared: int
    eval_shared_share: float  # of the study split's evaluation examples, also in ``other``'s

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks (ties share their mean rank), as Spearman's rho needs."""
    order = np.argsort(values, kind="stable")
    ranked = np.empty(len(values), dtype=np.float64)
    ranked[order] = np.arange(len(values), dtype=np.float64)
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranked)
    return (sums / counts)[inverse]


def compare_splits(study: AnalysisInputs, other: AnalysisInputs) -> SplitComparison:
    """Compare by example id; both splits must hold the same ids."""
    position = {i: k for k, i in enumerate(other.ids)}
    if len(position) != len(study.ids) or any(i not in position for i in study.ids):
        raise ConfigError(
            f"--compare={other.name!r} does not split the same examples as {study.name!r} "
            "(their ids differ); compare splits of one dataset"
        )
    align = np.array([position[i] for i in study.ids])
    shared = int(np.sum(study.eval_mask & other.eval_mask[align]))
    pearson = spearman = None
    if study.logprob_sum is not None and other.logprob_sum is not None:
        a, b = study.logprob_sum, other.logprob_sum[align]
        pearson = round(float(np.corrcoef(a, b)[0, 1]), 4)
        spearman = round(float(np.corrcoef(ranks(a), ranks(b))[0, 1]), 4)
    n_eval = int(study.eval_mask.sum())
    return SplitComparison(
        other=other.name,
        pearson_r=pearson,
        spearman_rho=spearman,
        eval_shared=shared,
        eval_shared_share=round(shared / n_eval, 4) if n_eval else float("nan"),
    )
