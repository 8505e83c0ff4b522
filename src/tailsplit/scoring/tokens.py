"""Token-level likelihood: which tokens make an example unlikely. The scorer's forward pass
gives each scored token's log-probability before the sums a score file keeps; here the
batches are planned and run as scoring runs them, and each request's tokens are kept apart —
their sum is the request's ``logprob_sum`` — with each token's text as the tokenizer decodes
it alone, so a report can shade the query token by token.

For the evaluation examples a page shows (hundreds to thousands), not a whole corpus: nothing
is cached, and no score file changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.errors import ScoringError
from tailsplit.scoring.base import ScoreRequest


@dataclass(frozen=True)
class TokenScores:
    """One request's scored tokens, in order: each one's text (decoded alone) and its
    log-probability (natural log); ``sum(logprobs)`` is the request's ``logprob_sum``."""

    pieces: tuple[str, ...]
    logprobs: tuple[float, ...]

    @property
    def logprob_sum(self) -> float:
        return float(np.sum(self.logprobs))


def token_logprobs(scorer: Any, requests: Sequence[ScoreRequest]) -> list[np.ndarray]:
    """Each request's scored tokens' log-probabilities, from the batches scoring plans (one
    batch run out of memory is run as its halves, as scoring runs it)."""
    out: list[np.ndarray] = [np.zeros(0)] * len(requests)
    for batch in scorer.plan(requests):
        offset = 0
        for layout, copy in scorer.launch(batch).parts:
            values = np.asarray(copy.numpy(), dtype=np.float64)
            for local in range(len(layout.n_tokens)):
                out[int(batch.indices[offset + local])] = values[layout.example_idx == local]
            offset += len(layout.n_tokens)
    return out


def token_scores(scorer: Any, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
    """Each request's scored tokens with their text and log-probability (see the module)."""
    encoded = scorer.encode(requests)
    values = token_logprobs(scorer, requests)
    tokenizer = getattr(scorer.tokenizer, "backend_tokenizer", scorer.tokenizer)  # the Rust tokenizer decodes
    scores = []
    for request, tokens, logprobs in zip(requests, encoded, values, strict=True):
        scored = tokens.ids[tokens.first :]
        if len(scored) != len(logprobs):
            raise ScoringError(
                f"query {request.query[:60]!r}: {len(scored)} tokens scored but {len(logprobs)} log-probabilities; "
                "the tokenizer and the scorer disagree"
            )
        pieces = tuple(tokenizer.decode([token], skip_special_tokens=False) for token in scored)
        scores.append(TokenScores(pieces, tuple(float(v) for v in logprobs)))
    return scores
