"""How well the membership scores tell texts known to be in a model's training data from texts
known not to be, for that model: per score, the AUC of members against non-members (the
Mann–Whitney statistic, ties counted half) and the TPR at 5 % FPR (the share of members above
the score that at most 5 % of non-members reach), each with a 95 % percentile bootstrap
interval, members and non-members resampled apart. Scores are larger for training-like
texts (:mod:`.membership`), so an AUC near 0.5 says the score cannot tell them apart."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tailsplit.rng import MEMBERSHIP_BOOTSTRAP, seeded_rng

FALSE_POSITIVE_RATE = 0.05
DRAWS = 1000

Statistic = Callable[[np.ndarray, np.ndarray], float]


def auc(members: np.ndarray, others: np.ndarray) -> float:
    """P(a member scores above a non-member), ties half.

    >>> auc(np.array([3.0, 2.0]), np.array([1.0, 2.0]))
    0.875
    """
    others = np.sort(np.asarray(others, dtype=np.float64))
    members = np.asarray(members, dtype=np.float64)
    below = np.searchsorted(others, members, side="left")
    tied = np.searchsorted(others, members, side="right") - below
    return float((below + 0.5 * tied).sum() / (len(members) * len(others)))


def tpr_at_fpr(members: np.ndarray, others: np.ndarray, fpr: float = FALSE_POSITIVE_RATE) -> float:
    """The share of members strictly above the ``floor(fpr · m) + 1``-th highest non-member score
    (so at most ``fpr`` of the non-members pass).

    >>> tpr_at_fpr(np.array([5.0, 4.0, 0.5]), np.arange(20.0) / 5, fpr=0.05)
    0.6666666666666666
    """
    ranked = np.sort(np.asarray(others, dtype=np.float64))[::-1]
    threshold = ranked[int(np.floor(fpr * len(ranked)))]
    return float(np.mean(np.asarray(members) > threshold))


def _with_interval(statistic: Statistic, members: np.ndarray, others: np.ndarray, rng: np.random.Generator) -> dict:
    draws = [statistic(rng.choice(members, len(members)), rng.choice(others, len(others))) for _ in range(DRAWS)]
    low, high = np.percentile(draws, [2.5, 97.5])
    return {"value": round(statistic(members, others), 4), "ci95": [round(float(low), 4), round(float(high), 4)]}


def calibration_table(scores: Mapping[str, np.ndarray], is_member: np.ndarray, *, seed: int = 0) -> dict[str, Any]:
    """Each score's AUC and TPR at 5 % FPR with intervals; a text whose score is NaN (no token)
    is left out of that score's row, and each row says how many of each side it read."""
    is_member = np.asarray(is_member, dtype=bool)
    rows: dict[str, Any] = {}
    for name, values in scores.items():
        values = np.asarray(values, dtype=np.float64)
        known = ~np.isnan(values)
        members, others = values[known & is_member], values[known & ~is_member]
        if len(members) == 0 or len(others) == 0:
            continue
        rng = seeded_rng(seed, MEMBERSHIP_BOOTSTRAP)  # each score's draws alike, whatever the others
        rows[name] = {
            "members": int(len(members)),
            "non_members": int(len(others)),
            "auc": _with_interval(auc, members, others, rng),
            "tpr_at_5pct_fpr": _with_interval(tpr_at_fpr, members, others, rng),
        }
    return {"false_positive_rate": FALSE_POSITIVE_RATE, "bootstrap_draws": DRAWS, "seed": seed, "scores": rows}
