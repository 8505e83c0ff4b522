"""Language-model scoring: the scorer protocol, the cached driver and the backends.

Backends are looked up through :data:`tailsplit.registry.SCORERS`; importing this package
does not import torch.
"""

from tailsplit.scoring.base import Batch, BatchScores, Scorer, ScoreRequest
from tailsplit.scoring.driver import ScoringReport, build_requests, score_examples, score_requests

__all__ = [
    "Batch",
    "BatchScores",
    "ScoreRequest",
    "Scorer",
    "ScoringReport",
    "build_requests",
    "score_examples",
    "score_requests",
]
