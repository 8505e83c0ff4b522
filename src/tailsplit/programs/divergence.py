"""Chernoff-coefficient divergence between the item distributions of two example sets.

``C_α(P‖Q) = Σ_k p_k^α q_k^(1−α)`` over normalised counts, divergence ``1 − C_α``
(Keysers et al. 2020): 0 for identical distributions, 1 for disjoint ones. P is the
training side. Atoms use α = 0.5 (symmetric), compounds α = 0.1, which mostly asks whether
the evaluation compounds occur in training at all.
"""

from __future__ import annotations

import numpy as np

ATOM_ALPHA = 0.5
COMPOUND_ALPHA = 0.1


def chernoff_divergence(train_counts: np.ndarray, eval_counts: np.ndarray, alpha: float) -> float:
    """``1 − C_α`` of two count vectors over the same items; NaN if either side is empty.

    >>> chernoff_divergence(np.array([1, 1]), np.array([2, 2]), 0.5)
    0.0
    >>> chernoff_divergence(np.array([1, 0]), np.array([0, 1]), 0.1)
    1.0
    """
    p_total, q_total = float(train_counts.sum()), float(eval_counts.sum())
    if p_total == 0 or q_total == 0:
        return float("nan")
    p = train_counts / p_total
    q = eval_counts / q_total
    both = (p > 0) & (q > 0)
    similarity = float(np.sum(p[both] ** alpha * q[both] ** (1.0 - alpha)))
    return max(0.0, 1.0 - similarity)
