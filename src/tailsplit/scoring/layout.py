"""Host-side layout of a planned batch: the integer arrays one forward pass needs.

Everything is computed with whole-array numpy operations over the batch's concatenated
token ids — one pass over the ids to flatten them, nothing per row in Python — so laying
out a GPU batch of 32,768 tokens and thousands of rows takes milliseconds, not the tens of
milliseconds a loop over rows costs (``benchmarks/speed/bench_layout.py``).

Two layouts:

* **padded** rows (one request per row, right or left padding): ids, attention mask
  (1 on tokens) and position ids;
* **packed** rows (one prefix group per row, see :mod:`tailsplit.scoring.batching`): the
  prefix once, then every member's suffix; position ids restart after the prefix for each
  member, and ``owner`` says whose each column is (−1 the prefix, −2 padding, *j* member
  *j*). The attention mask itself — causal, a suffix sees the prefix and itself — is built
  from ``owner`` on the scoring device (:func:`packed_attention_mask`), so only
  ``[rows, width]`` integers cross to a GPU rather than a ``[rows, width, width]`` mask.

Both give, for every scored token, the hidden row and column that predict it, its id, and
the request it belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.scoring.batching import Encoded, FlatTokens, ranges

PREFIX_OWNER = -1
PADDING_OWNER = -2


@dataclass(frozen=True)
class BatchLayout:
    """The arrays of one forward pass and of the scored positions in its output.

    ``attention`` is the ``[rows, width]`` 0/1 mask of padded rows, or ``owner`` of packed
    rows (``packed`` true). Per scored token: ``row_idx``/``pos_idx`` (hidden row and
    column that predict it), ``targets`` (its id) and ``example_idx`` (its request's index
    in the batch). Per request: ``n_tokens`` scored and ``truncated``.
    """

    input_ids: np.ndarray
    position_ids: np.ndarray
    attention: np.ndarray
    packed: bool
    row_idx: np.ndarray
    pos_idx: np.ndarray
    targets: np.ndarray
    example_idx: np.ndarray
    n_tokens: np.ndarray
    truncated: np.ndarray


def padded_layout(rows: list[Encoded], padding_side: str = "right") -> BatchLayout:
    """One request per row, padded with id 0 on ``padding_side``."""
    flat = FlatTokens.of(rows)
    n_rows, width = len(rows), int(flat.lengths.max())
    offsets = width - flat.lengths if padding_side == "left" else np.zeros(n_rows, dtype=np.int64)
    token_row = np.repeat(np.arange(n_rows), flat.lengths)
    columns = offsets[token_row] + ranges(np.zeros(n_rows, dtype=np.int64), flat.lengths)
    input_ids = np.zeros((n_rows, width), dtype=np.int64)
    attention = np.zeros((n_rows, width), dtype=np.int64)
    input_ids[token_row, columns] = flat.ids
    attention[token_row, columns] = 1
    position_ids = np.clip(np.cumsum(attention, axis=1) - 1, 0, None)
    request, token = flat.scored()
    return BatchLayout(
        input_ids,
        position_ids,
        attention,
        False,
        row_idx=request,
        pos_idx=offsets[request] + token - 1,
        targets=flat.ids[flat.starts[request] + token],
        example_idx=request,
        n_tokens=flat.lengths - flat.first,
        truncated=flat.truncated,
    )


def packed_layout(groups: list[tuple[int, list[Encoded]]]) -> BatchLayout:
    """One row per prefix group ``(prefix_len, members)``: the prefix, then each suffix."""
    flat = FlatTokens.of([e for _, members in groups for e in members])
    sizes = np.array([len(members) for _, members in groups], dtype=np.int64)
    prefix_lens = np.array([prefix_len for prefix_len, _ in groups], dtype=np.int64)
    n_rows, n_members = len(groups), len(flat.lengths)
    group_of = np.repeat(np.arange(n_rows), sizes)
    group_first = np.cumsum(sizes) - sizes
    prefix = prefix_lens[group_of]
    suffix_lens = flat.lengths - prefix
    before = np.cumsum(suffix_lens) - suffix_lens
    suffix_column = prefix + before - before[group_first][group_of]
    width = int((prefix_lens + np.add.reduceat(suffix_lens, group_first)).max())

    input_ids = np.zeros((n_rows, width), dtype=np.int64)
    position_ids = np.zeros((n_rows, width), dtype=np.int64)
    owner = np.full((n_rows, width), PADDING_OWNER, dtype=np.int32)
    prefix_row = np.repeat(np.arange(n_rows), prefix_lens)
    prefix_token = ranges(np.zeros(n_rows, dtype=np.int64), prefix_lens)
    input_ids[prefix_row, prefix_token] = flat.ids[flat.starts[group_first][prefix_row] + prefix_token]
    position_ids[prefix_row, prefix_token] = prefix_token
    owner[prefix_row, prefix_token] = PREFIX_OWNER
    member = np.repeat(np.arange(n_members), suffix_lens)
    token = ranges(prefix, suffix_lens)
    row, column = group_of[member], suffix_column[member] + token - prefix[member]
    input_ids[row, column] = flat.ids[flat.starts[member] + token]
    position_ids[row, column] = token
    owner[row, column] = (np.arange(n_members) - group_first[group_of])[member]

    request, token = flat.scored()
    return BatchLayout(
        input_ids,
        position_ids,
        owner,
        True,
        row_idx=group_of[request],
        pos_idx=suffix_column[request] + token - 1 - prefix[request],
        targets=flat.ids[flat.starts[request] + token],
        example_idx=request,
        n_tokens=flat.lengths - flat.first,
        truncated=flat.truncated,
    )


def packed_attention_mask(owner: Any) -> Any:
    """``[rows, 1, width, width]`` boolean mask of packed rows from their ``owner`` tensor,
    built where ``owner`` lives: causal, a suffix sees the prefix and itself (not its
    siblings), and every position sees itself so no row of the mask is empty."""
    import torch

    width = owner.shape[1]
    causal = torch.ones(width, width, dtype=torch.bool, device=owner.device).tril_()
    visible = (owner[:, :, None] == owner[:, None, :]) | (owner[:, None, :] == PREFIX_OWNER)
    itself = torch.eye(width, dtype=torch.bool, device=owner.device)
    return ((causal & visible) | itself)[:, None]
