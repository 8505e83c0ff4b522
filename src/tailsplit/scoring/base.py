"""The scorer protocol and the values it exchanges.

A scorer turns (prompt, query) requests into per-query log-likelihoods. It *plans* batches
over all requests first (deterministically, from the requests alone) and then scores one
batch at a time; the driver decides which batches still need scoring. Because a batch's
composition never depends on what is cached, a resumed run computes exactly what an
uninterrupted run would have computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


@dataclass(frozen=True)
class ScoreRequest:
    """Score ``query`` conditioned on ``prompt`` (which may be empty)."""

    prompt: str
    query: str


@dataclass(frozen=True)
class Batch:
    """Request indices scored together, their token count (for progress), backend payload."""

    indices: np.ndarray
    n_tokens: int
    payload: Any = None


@dataclass(frozen=True)
class BatchScores:
    """Scores of one batch, aligned with ``Batch.indices``; a scorer that has them also
    gives every scored token's log-probability (``token_values``) and the position in
    ``Batch.indices`` of the request each belongs to (``token_rows``), in token order."""

    logprob_sum: np.ndarray
    n_tokens: np.ndarray
    truncated: np.ndarray
    token_values: np.ndarray | None = None
    token_rows: np.ndarray | None = None
    token_moments: np.ndarray | None = None  # [2, tokens]: μ and σ² of each position (Min-K%++)


class Scorer(Protocol):
    """What a scoring backend provides; see :class:`tailsplit.scoring.hf.HFScorer`."""

    def identity(self) -> dict[str, Any]:
        """Everything that changes a score (model name and weight hashes, start-token policy,
        context limit); goes into manifests and cache keys."""

    def plan(self, requests: Sequence[ScoreRequest]) -> list[Batch]:
        """Batches covering every request once, decided from the requests alone."""

    def score_batch(self, batch: Batch) -> BatchScores:
        """Scores of one planned batch."""
