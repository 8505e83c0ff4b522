"""Token-level likelihood: which tokens make an example unlikely. The scorer's forward pass
gives each scored token's log-probability before the sums a score file keeps; here the
batches are planned and run as scoring runs them, and each request's tokens are kept apart —
their sum is the request's ``logprob_sum`` — with each token's text as the tokenizer decodes
it alone, so a report can shade the query token by token.

:func:`token_scores` runs its own passes, for a handful of queries (nothing cached); a whole
run keeps its tokens from its scoring passes (``--token-scores``:
:func:`tailsplit.scoring.driver.score_requests` with ``tokens``), named here by
:func:`token_pieces`.
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
            values = np.atleast_2d(np.asarray(copy.numpy(), dtype=np.float64))[0]  # without the moments
            for local in range(len(layout.n_tokens)):
                out[int(batch.indices[offset + local])] = values[layout.example_idx == local]
            offset += len(layout.n_tokens)
    return out


def token_pieces(
    scorer: Any, requests: Sequence[ScoreRequest], logprobs: Sequence[np.ndarray]
) -> list[tuple[str, ...]]:
    """Each request's scored tokens as text, each decoded alone (a byte of a character split
    over tokens shows as U+FFFD), checked against its count of log-probabilities. Every id is
    decoded once and looked up after: a score file's worth of queries in seconds, not minutes."""
    encoded = scorer.encode(requests)
    tokenizer = getattr(scorer.tokenizer, "backend_tokenizer", scorer.tokenizer)  # the Rust tokenizer decodes
    texts: dict[int, str] = {}
    pieces = []
    for request, tokens, values in zip(requests, encoded, logprobs, strict=True):
        scored = tokens.ids[tokens.first :]
        if len(scored) != len(values):
            raise ScoringError(
                f"query {request.query[:60]!r}: {len(scored)} tokens scored but {len(values)} log-probabilities; "
                "the tokenizer and the scorer disagree"
            )
        for token in scored:
            if token not in texts:
                texts[token] = tokenizer.decode([token], skip_special_tokens=False)
        pieces.append(tuple(texts[token] for token in scored))
    return pieces


def token_scores(scorer: Any, requests: Sequence[ScoreRequest]) -> list[TokenScores]:
    """Each request's scored tokens with their text and log-probability (see the module)."""
    values = token_logprobs(scorer, requests)
    pieces = token_pieces(scorer, requests, values)
    return [TokenScores(p, tuple(float(v) for v in lp)) for p, lp in zip(pieces, values, strict=True)]
