"""A planned batch without padding: every token once in one flat stream, and attention as
*segments* of it — what variable-length attention (``--attention varlen``) runs.

The stream holds, for each prefix group, its prefix and then each member's suffix (a plain row
is a group with no prefix and one member), so no position is padding. Attention is one segment
per prefix (its tokens attend causally among themselves) and one per member (its suffix's
tokens are the queries; the prefix's keys and values followed by the suffix's own are the
keys), causal aligned to the bottom right: query *i* of a segment with *q* queries and *k* keys
sees keys ``0 .. k - q + i`` — the prefix and its own suffix up to itself, never a sibling's.
That is exactly the dense mask of :func:`~tailsplit.scoring.layout.packed_attention_mask`.

Queries are the stream itself in order (segment by segment); keys are gathered by
``key_index`` (a prefix's keys appear once per member that reads them: read, not recomputed).
Built with whole-array numpy, like :mod:`.layout`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tailsplit.scoring.batching import Encoded, FlatTokens, ranges
from tailsplit.scoring.layout import BatchLayout


@dataclass(frozen=True)
class Segments:
    """Segment *s* queries stream tokens ``cu_q[s]:cu_q[s+1]`` and keys the tokens
    ``key_index[cu_k[s]:cu_k[s+1]]`` (bottom-right causal); ``max_q``/``max_k`` are the longest."""

    key_index: np.ndarray
    cu_q: np.ndarray
    cu_k: np.ndarray
    max_q: int
    max_k: int

    @property
    def count(self) -> int:
        return len(self.cu_q) - 1


def flat_layout(kind: str, payload: list) -> tuple[BatchLayout, Segments]:
    """A batch (``plain`` rows or ``shared`` prefix groups, as planned) as one unpadded row:
    the layout (``input_ids``/``position_ids`` of shape ``[1, tokens]``; scored positions
    index that row) and its attention segments.

    >>> e = Encoded
    >>> layout, segments = flat_layout("shared", [(2, [e([1, 5, 6], 2, False), e([1, 5, 7, 8], 2, False)])])
    >>> layout.input_ids.tolist(), layout.position_ids.tolist()
    ([[1, 5, 6, 7, 8]], [[0, 1, 2, 2, 3]])
    >>> segments.cu_q.tolist(), segments.key_index.tolist()
    ([0, 2, 3, 5], [0, 1, 0, 1, 2, 0, 1, 3, 4])
    """
    groups: list[tuple[int, list[Encoded]]] = [(0, [row]) for row in payload] if kind == "plain" else list(payload)
    flat = FlatTokens.of([e for _, members in groups for e in members])
    sizes = np.array([len(members) for _, members in groups], dtype=np.int64)
    prefix = np.array([p for p, _ in groups], dtype=np.int64)
    group_of = np.repeat(np.arange(len(groups)), sizes)
    suffix = flat.lengths - prefix[group_of]
    group_tokens = prefix + np.bincount(group_of, weights=suffix, minlength=len(groups)).astype(np.int64)
    group_start = np.cumsum(group_tokens) - group_tokens
    member_first = np.cumsum(sizes) - sizes
    before = np.cumsum(suffix) - suffix  # suffix tokens of earlier members, all groups
    suffix_start = group_start[group_of] + prefix[group_of] + before - before[member_first][group_of]

    # every token of every request: its place in the stream (a prefix token is its group's)
    request = np.repeat(np.arange(len(flat.lengths)), flat.lengths)
    token = ranges(np.zeros(len(flat.lengths), dtype=np.int64), flat.lengths)
    in_prefix = token < prefix[group_of][request]
    place = np.where(
        in_prefix, group_start[group_of][request] + token, suffix_start[request] + token - prefix[group_of][request]
    )
    total = int(group_tokens.sum())
    input_ids = np.zeros(total, dtype=np.int64)
    position_ids = np.zeros(total, dtype=np.int64)
    input_ids[place] = flat.ids
    position_ids[place] = token

    scored_request, scored_token = flat.scored()
    at = flat.starts[scored_request] + scored_token
    layout = BatchLayout(
        input_ids[None],
        position_ids[None],
        np.ones((1, total), dtype=np.int64),
        False,
        row_idx=np.zeros(len(at), dtype=np.int64),
        pos_idx=place[at - 1],
        targets=flat.ids[at],
        example_idx=scored_request,
        n_tokens=flat.lengths - flat.first,
        truncated=flat.truncated,
    )
    return layout, _segments(prefix, group_start, group_of, suffix_start, suffix)


def _segments(
    prefix: np.ndarray, group_start: np.ndarray, group_of: np.ndarray, suffix_start: np.ndarray, suffix: np.ndarray
) -> Segments:
    """One segment per non-empty prefix, then one per member, in stream order."""
    with_prefix = np.flatnonzero(prefix > 0)
    group = np.concatenate([with_prefix, group_of])
    rank = np.concatenate([np.full(len(with_prefix), -1), np.arange(len(group_of))])
    order = np.lexsort((rank, group))
    q_len = np.concatenate([prefix[with_prefix], suffix])[order]
    k_len = np.concatenate([prefix[with_prefix], prefix[group_of] + suffix])[order]
    # each segment's keys: its group's prefix, then (members only) its own suffix
    own_start = np.concatenate([np.zeros(len(with_prefix), dtype=np.int64), suffix_start])[order]
    own_len = np.concatenate([np.zeros(len(with_prefix), dtype=np.int64), suffix])[order]
    pieces_start = np.stack([group_start[group[order]], own_start], axis=1).ravel()
    pieces_len = np.stack([prefix[group[order]], own_len], axis=1).ravel()
    cu_q = np.concatenate([[0], np.cumsum(q_len)]).astype(np.int32)
    cu_k = np.concatenate([[0], np.cumsum(k_len)]).astype(np.int32)
    return Segments(
        key_index=ranges(pieces_start, pieces_len),
        cu_q=cu_q,
        cu_k=cu_k,
        max_q=int(q_len.max()) if len(q_len) else 0,
        max_k=int(k_len.max()) if len(k_len) else 0,
    )
