"""Score queries with a Hugging Face causal language model — the hot path.

How a request is scored:

1. ``prompt + query`` is tokenised *together* (so merges across the boundary are the
   model's real tokenisation) with character offsets; the scored tokens are those that
   contain at least one character of the query. A token that straddles the boundary —
   typically the prompt's trailing space merged into the query's first word — is scored.
2. Start-token policy: ``start_token="bos"`` (default) puts the tokenizer's BOS token (else
   its EOS token) first, so even the first query token of an unprompted text is conditioned
   and scored. ``"none"`` adds nothing; an unprompted query then loses its first token.
3. Inputs longer than ``max_tokens`` (default: the model's context) are cut from the left
   (``truncation="left"``: prompt first, then the start of the query) and flagged
   ``truncated``; ``truncation="error"`` refuses them instead.

Speed: requests are sorted by length and packed into batches by a padded-token budget;
the transformer runs once per batch, and the vocabulary projection runs only at the scored
positions, in chunks (never a whole ``[batch, seq, vocab]`` tensor). Batches are planned
from the requests alone, so scores do not depend on what was cached or on input order.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.cache import default_cache_dir
from tailsplit.errors import ConfigError, ScoringError
from tailsplit.scoring.base import Batch, BatchScores, ScoreRequest
from tailsplit.scoring.models import (
    ModelSource, context_length, load_model, load_tokenizer, local_folder, resolve_model,
)

SCORER_VERSION = "hf-causal-lm/1"
START_TOKENS = ("bos", "none")
TRUNCATIONS = ("left", "error")
PADDING_SIDES = ("right", "left")
_PROJECTION_CHUNK = 4096


class HFScorer:
    """Causal-LM scorer; configuration is keyword arguments, the model loads on first use.

    ``batch_tokens`` bounds padded tokens per batch (memory), ``max_batch_size`` the rows.
    """

    def __init__(self, model: str = "smollm2", *, device: str = "auto", dtype: str = "float32",
                 batch_tokens: int = 4096, max_batch_size: int = 64, start_token: str = "bos",
                 max_tokens: int | None = None, truncation: str = "left", padding_side: str = "right",
                 cache_dir: str | Path | None = None) -> None:
        _check_choice("start_token", start_token, START_TOKENS)
        _check_choice("truncation", truncation, TRUNCATIONS)
        _check_choice("padding_side", padding_side, PADDING_SIDES)
        _check_choice("dtype", dtype, ("float32", "bfloat16", "float16"))
        for name, value in (("batch_tokens", batch_tokens), ("max_batch_size", max_batch_size)):
            if not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name}={value!r} must be a whole number ≥ 1")
        if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 2):
            raise ConfigError(f"max_tokens={max_tokens!r} must be a whole number ≥ 2, or None for "
                              "the model's context length")
        self.model_spec = model
        self.device = device
        self.dtype = dtype
        self.batch_tokens = batch_tokens
        self.max_batch_size = max_batch_size
        self.start_token = start_token
        self.max_tokens = max_tokens
        self.truncation = truncation
        self.padding_side = padding_side
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self._source: ModelSource | None = None
        self._folder: Path | None = None
        self._identity: dict[str, Any] | None = None
        self._tokenizer: Any = None
        self._model: Any = None

    # -- identity -----------------------------------------------------------------------------
    @property
    def source(self) -> ModelSource:
        if self._source is None:
            self._source = resolve_model(self.model_spec)
        return self._source

    def identity(self) -> dict[str, Any]:
        if self._identity is None:
            self._identity = {**self.source.identity(), "scorer": SCORER_VERSION, "dtype": self.dtype,
                              "start_token": self.start_token, "max_tokens": self.context_limit(),
                              "truncation": self.truncation}
        return self._identity

    def context_limit(self) -> int:
        """Tokens one input may have: ``max_tokens``, capped by the model's context length."""
        limits = [x for x in (self.max_tokens, context_length(self.folder)) if x]
        return min(limits) if limits else 2048

    # -- lazy loading -------------------------------------------------------------------------
    @property
    def folder(self) -> Path:
        if self._folder is None:
            self._folder = local_folder(self.source, self.cache_dir)
        return self._folder

    @property
    def tokenizer(self) -> Any:
        if self._tokenizer is None:
            self._tokenizer = load_tokenizer(self.folder, self.model_spec)
        return self._tokenizer

    @property
    def model(self) -> Any:
        if self._model is None:
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            self._model = load_model(self.folder, dtype=self.dtype, device=self.resolved_device())
        return self._model

    def resolved_device(self) -> str:
        if self.device != "auto":
            return self.device
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"

    # -- planning -----------------------------------------------------------------------------
    def plan(self, requests: Sequence[ScoreRequest]) -> list[Batch]:
        """Tokenise every request, then pack length-sorted batches under the token budget."""
        encoded = self.encode(requests)
        lengths = np.array([len(ids) for ids, _, _ in encoded], dtype=np.int64)
        order = np.lexsort((np.arange(len(encoded)), -lengths))
        batches: list[Batch] = []
        start = 0
        while start < len(order):
            width = int(lengths[order[start]])
            rows = max(1, min(self.max_batch_size, self.batch_tokens // max(width, 1)))
            members = order[start:start + rows]
            batches.append(Batch(indices=members, n_tokens=int(lengths[members].sum()),
                                 payload=[encoded[i] for i in members]))
            start += rows
        return batches

    def encode(self, requests: Sequence[ScoreRequest]) -> list[tuple[list[int], int, bool]]:
        """Per request: (token ids with start token, index of first scored token, truncated)."""
        tokenizer = self.tokenizer
        texts = [r.prompt + r.query for r in requests]
        enc = tokenizer(texts, add_special_tokens=False, return_offsets_mapping=True,
                        return_attention_mask=False)
        start_id = self._start_token_id()
        limit = self.context_limit()
        out = []
        for request, ids, offsets in zip(requests, enc["input_ids"], enc["offset_mapping"]):
            boundary = len(request.prompt)
            first = next((i for i, (_, end) in enumerate(offsets) if end > boundary), len(ids))
            if first == len(ids):
                raise ScoringError(f"query {request.query[:60]!r} produced no tokens of its own")
            if start_id is not None:
                ids, first = [start_id, *ids], first + 1
            first = max(first, 1)
            if first >= len(ids):
                raise ScoringError(f"query {request.query[:60]!r} has a single token and no prompt, "
                                   "so nothing conditions it; use start_token='bos'")
            out.append(self._fit(ids, first, limit, request))
        return out

    def _fit(self, ids: list[int], first: int, limit: int,
             request: ScoreRequest) -> tuple[list[int], int, bool]:
        if len(ids) <= limit:
            return ids, first, False
        if self.truncation == "error":
            raise ScoringError(f"query {request.query[:60]!r} needs {len(ids)} tokens with its prompt, "
                               f"more than max_tokens={limit}; shorten it or use truncation='left'")
        cut = len(ids) - limit
        return ids[cut:], max(first - cut, 1), True

    def _start_token_id(self) -> int | None:
        if self.start_token == "none":
            return None
        tok = self.tokenizer
        token_id = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
        if token_id is None:
            raise ScoringError(f"model={self.model_spec!r} has neither a BOS nor an EOS token; "
                               "use start_token='none'")
        return int(token_id)

    # -- scoring ------------------------------------------------------------------------------
    def score_batch(self, batch: Batch) -> BatchScores:
        import torch

        model = self.model
        device = next(model.parameters()).device
        rows: list[tuple[list[int], int, bool]] = batch.payload
        input_ids, attention, offsets = _pad(rows, self.padding_side, pad_id=0)
        position_ids = np.clip(np.cumsum(attention, axis=1) - 1, 0, None)
        row_idx, pos_idx, targets, example_idx = _scored_positions(rows, offsets)
        with torch.inference_mode():
            hidden = model.base_model(
                input_ids=torch.from_numpy(input_ids).to(device),
                attention_mask=torch.from_numpy(attention).to(device),
                position_ids=torch.from_numpy(position_ids).to(device), use_cache=False,
            ).last_hidden_state
            picked = hidden[torch.from_numpy(row_idx).to(device), torch.from_numpy(pos_idx).to(device)]
            logprobs = self._target_logprobs(picked, torch.from_numpy(targets).to(device))
        per_token = logprobs.double().cpu().numpy()
        sums = np.bincount(example_idx, weights=per_token, minlength=len(rows))
        counts = np.array([len(ids) - first for ids, first, _ in rows], dtype=np.int64)
        truncated = np.array([cut for _, _, cut in rows], dtype=bool)
        return BatchScores(logprob_sum=sums, n_tokens=counts, truncated=truncated)

    def _target_logprobs(self, hidden: Any, targets: Any) -> Any:
        """log p(target) at each picked position, projecting to the vocabulary in chunks."""
        import torch

        head = self.model.get_output_embeddings()
        softcap = getattr(self.model.config, "final_logit_softcapping", None)
        pieces = []
        for start in range(0, hidden.shape[0], _PROJECTION_CHUNK):
            logits = head(hidden[start:start + _PROJECTION_CHUNK]).float()
            if softcap:
                logits = torch.tanh(logits / softcap) * softcap
            chunk_targets = targets[start:start + _PROJECTION_CHUNK, None]
            pieces.append((logits.gather(1, chunk_targets) - torch.logsumexp(logits, 1, keepdim=True))[:, 0])
        return torch.cat(pieces) if pieces else torch.zeros(0)


def _check_choice(name: str, value: str, options: tuple[str, ...]) -> None:
    if value not in options:
        raise ConfigError(f"{name}={value!r} is unknown; use one of {list(options)}")


def _pad(rows: list[tuple[list[int], int, bool]], side: str,
         pad_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(input_ids, attention_mask, column offset of each row's first token)."""
    width = max(len(ids) for ids, _, _ in rows)
    input_ids = np.full((len(rows), width), pad_id, dtype=np.int64)
    attention = np.zeros((len(rows), width), dtype=np.int64)
    offsets = np.zeros(len(rows), dtype=np.int64)
    for r, (ids, _, _) in enumerate(rows):
        offset = width - len(ids) if side == "left" else 0
        input_ids[r, offset:offset + len(ids)] = ids
        attention[r, offset:offset + len(ids)] = 1
        offsets[r] = offset
    return input_ids, attention, offsets


def _scored_positions(rows: list[tuple[list[int], int, bool]],
                      offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Flat (row, predicting position, target id, example) for every scored token."""
    row_idx, pos_idx, targets, example_idx = [], [], [], []
    for r, (ids, first, _) in enumerate(rows):
        n = len(ids) - first
        row_idx.append(np.full(n, r))
        pos_idx.append(offsets[r] + np.arange(first - 1, len(ids) - 1))
        targets.append(np.asarray(ids[first:]))
        example_idx.append(np.full(n, r))
    return tuple(np.concatenate(a).astype(np.int64) for a in (row_idx, pos_idx, targets, example_idx))
