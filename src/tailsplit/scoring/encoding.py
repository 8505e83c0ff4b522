"""Requests to token sequences: the joint tokenisation, the first scored token, start and end
tokens and truncation (the rules are :mod:`tailsplit.scoring.hf`'s docstring).

``prompt + query`` goes through the fast tokenizer's Rust backend (``encode_batch``: several
times faster than transformers' wrapper, and spread over every core by the backend itself),
with character offsets; the first scored token is the first whose characters reach into the
query. The collector is paused while the encodings and id lists are built (hundreds of
thousands of new objects with no cycles); beyond the Rust tokenizer's own time, what is left
is reading each encoding's ids and first token (a few microseconds a request) and freeing
the encodings (``benchmarks/speed/bench_planning.py``). Measured and not kept:
cutting the requests into one chunk per core, each tokenised and finished in a forked
process — no faster at 570,000 SNLI pairs on 2 cores (the Rust tokenizer's own work
dominates, and it already runs on both cores).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tailsplit.collector import paused_gc
from tailsplit.errors import ConfigError, ScoringError
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.batching import Encoded


@dataclass(frozen=True)
class TokenRules:
    """What turns a tokenised request into a scored sequence: the start token (``None``: no
    start token), the scored end token (``None``: none), the context limit in tokens, and
    ``truncation`` (``left`` or ``error``)."""

    start_id: int | None
    end_id: int | None
    limit: int
    truncation: str


def start_id(tokenizer: Any, start_token: str, model: str) -> int | None:
    """The id ``start_token`` names in ``tokenizer`` (``bos``: its BOS token, else its EOS
    token; ``eos``; ``none``: no start token; else one token of the vocabulary, literally);
    ``model`` names the model in errors."""
    if start_token == "none":
        return None
    if start_token == "bos" and tokenizer.bos_token_id is not None:
        return int(tokenizer.bos_token_id)
    return end_id(tokenizer, "eos" if start_token == "bos" else start_token, model)


def end_id(tokenizer: Any, token: str, model: str) -> int:
    """The id ``token`` names in ``tokenizer``: ``eos``, its EOS token; else one token of the
    vocabulary, literally."""
    if token == "eos":
        if tokenizer.eos_token_id is None:
            raise ScoringError(
                f"--model={model!r} has no EOS token; use --start-token='none' or name a token of its vocabulary"
            )
        return int(tokenizer.eos_token_id)
    token_id = tokenizer.backend_tokenizer.token_to_id(token)
    if token_id is None:
        raise ConfigError(
            f"{token!r} (start_token or end_token) is not a token of --model={model!r}'s "
            "vocabulary; use bos, eos, none or one token (e.g. '<|endoftext|>')"
        )
    return int(token_id)


def encode_requests(backend: Any, requests: Sequence[ScoreRequest], rules: TokenRules) -> list[Encoded]:
    """Every request tokenised under ``rules``, in order (built with the collector paused:
    hundreds of thousands of new id lists hold no cycles)."""
    start, end, limit = rules.start_id, rules.end_id, rules.limit
    out = []
    with paused_gc():
        encodings = backend.encode_batch([r.prompt + r.query for r in requests], add_special_tokens=False)
        for request, encoding in zip(requests, encodings):
            ids = encoding.ids
            boundary = len(request.prompt.rstrip())
            first = encoding.char_to_token(boundary) if boundary else 0
            if first is None:
                first = _first_token_after(encoding, boundary)
            if first >= len(ids):
                raise ScoringError(f"query {request.query[:60]!r} produced no tokens of its own")
            if start is not None:
                ids.insert(0, start)
                first += 1
            if end is not None:
                ids.append(end)
            if first < 1:
                first = 1
            if first >= len(ids):
                raise ScoringError(
                    f"query {request.query[:60]!r} has a single token and no prompt, "
                    "so nothing conditions it; use --start-token='bos'"
                )
            out.append(Encoded(ids, first, False) if len(ids) <= limit else _cut(ids, first, rules, request))
    return out


def _cut(ids: list[int], first: int, rules: TokenRules, request: ScoreRequest) -> Encoded:
    """``ids`` longer than the context: its last ``limit`` tokens, or an error."""
    if rules.truncation == "error":
        raise ScoringError(
            f"query {request.query[:60]!r} needs {len(ids)} tokens with its prompt, "
            f"more than --max-tokens={rules.limit}; shorten it or use --truncation='left'"
        )
    cut = len(ids) - rules.limit
    return Encoded(ids[cut:], max(first - cut, 1), True)


def _first_token_after(encoding: Any, boundary: int) -> int:
    """Index of the first token whose character span ends after ``boundary`` (the first
    scored character, where no token starts exactly there); past the end if there is none."""
    return next((i for i, (_, end) in enumerate(encoding.offsets) if end > boundary), len(encoding.offsets))
