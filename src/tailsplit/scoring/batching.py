"""Batch planning for token sequences: length-sorted packing and shared-prompt grouping.

Pure Python and numpy (no torch), decided from the token sequences alone, so the same
requests always give the same batches.

Shared prefixes: every SNLI premise comes with three hypotheses, so the prompt
``Premise: … This hypothesis is`` is identical across the three. Sequences that start with
the same tokens form a *prefix group*, packed into one row: the prefix once, then each
member's suffix, with an attention mask that lets a suffix see the prefix and itself but
not its siblings, and position ids that restart after the prefix for every suffix. The
prefix is computed once and no padding sits between suffixes. A group's prefix always ends
before the token that predicts the first scored token, so every scored position lies in a
member's suffix.

The planner works on the requests as arrays (:class:`FlatTokens`: every request's ids
concatenated), so its cost at hundreds of thousands of requests is a sort and a few
whole-array passes, not a Python loop over tokens: the sequences are sorted by byte keys
(big-endian ids, whose byte order is the ids' order), and the common prefix of each pair of
sorted neighbours is found for all pairs at once, a block of columns at a time
(``benchmarks/speed/bench_planning.py`` times it against the token-by-token planner it replaced,
and checks the plans identical).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from tailsplit.collector import paused_gc
from tailsplit.scoring.base import Batch

MIN_SHARED_TOKENS = 4
_COLUMNS_PER_PASS = 16  # columns compared per pass when finding neighbours' common prefixes
_PAIRS_PER_PASS = 1 << 17  # neighbour pairs compared per pass (bounds the temporaries)


@dataclass(frozen=True)
class Encoded:
    """A tokenised request: ids (start token included), first scored index, truncated flag."""

    ids: list[int]
    first: int
    truncated: bool


@dataclass(frozen=True)
class PrefixGroup:
    """Requests ``members`` whose first ``prefix_len`` tokens are identical."""

    prefix_len: int
    members: list[int]


@dataclass(frozen=True)
class FlatTokens:
    """Encoded requests as arrays: every request's ids concatenated (``ids``), and per request
    its ``lengths``, ``starts`` in ``ids``, ``first`` scored index and ``truncated`` flag."""

    ids: np.ndarray
    lengths: np.ndarray
    starts: np.ndarray
    first: np.ndarray
    truncated: np.ndarray

    @classmethod
    def of(cls, rows: Sequence[Encoded]) -> FlatTokens:
        n = len(rows)
        lengths = np.fromiter((len(e.ids) for e in rows), dtype=np.int64, count=n)
        ids = np.fromiter(chain.from_iterable(e.ids for e in rows), dtype=np.int64, count=int(lengths.sum()))
        first = np.fromiter((e.first for e in rows), dtype=np.int64, count=n)
        truncated = np.fromiter((e.truncated for e in rows), dtype=bool, count=n)
        return cls(ids, lengths, np.cumsum(lengths) - lengths, first, truncated)

    def scored(self) -> tuple[np.ndarray, np.ndarray]:
        """(request, token index) of every scored token, request by request."""
        counts = self.lengths - self.first
        return np.repeat(np.arange(len(counts)), counts), ranges(self.first, counts)


def ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + c) for s, c in zip(starts, counts)])``, without the loop."""
    counts = np.asarray(counts, dtype=np.int64)
    ends = np.cumsum(counts)
    return np.arange(int(ends[-1]) if len(ends) else 0, dtype=np.int64) + np.repeat(
        np.asarray(starts, dtype=np.int64) - (ends - counts), counts
    )


def pack_plain(
    lengths: np.ndarray, indices: np.ndarray, batch_tokens: int, max_rows: int, encoded: Sequence[Encoded]
) -> list[Batch]:
    """Longest first; each batch holds as many rows as fit ``batch_tokens`` padded tokens."""
    order = indices[np.lexsort((indices, -lengths[indices]))]
    batches = []
    start = 0
    while start < len(order):
        width = int(lengths[order[start]])
        rows = max(1, min(max_rows, batch_tokens // max(width, 1)))
        members = order[start : start + rows]
        batches.append(
            Batch(
                indices=members, n_tokens=int(lengths[members].sum()), payload=("plain", [encoded[i] for i in members])
            )
        )
        start += rows
    return batches


def sorted_by_ids(flat: FlatTokens, indices: np.ndarray) -> np.ndarray:
    """``indices`` in the order of their requests' id sequences (lexicographic, a sequence
    before its extensions, ties in index order): the order of sorting the id lists.

    Each key is the request's ids as big-endian fixed-width bytes, so comparing two keys
    byte by byte compares the ids one by one."""
    if not len(indices):
        return indices
    width = 4 if int(flat.ids.max(initial=0)) < 2**32 else 8
    data = flat.ids.astype(f">u{width}").tobytes()
    lo, hi = (width * flat.starts[indices]).tolist(), (width * (flat.starts + flat.lengths)[indices]).tolist()
    keys = [data[a:b] for a, b in zip(lo, hi)]
    return indices[sorted(range(len(keys)), key=keys.__getitem__)]


def neighbour_prefixes(flat: FlatTokens, order: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """For each pair of neighbours ``(order[k], order[k + 1])``, the number of leading ids the
    two share, counted up to ``caps[k]`` at most: all pairs at once, a block of columns at
    a time, each block only for the pairs still equal so far."""
    a, b = order[:-1], order[1:]
    limit = np.minimum(np.asarray(caps, dtype=np.int64), np.minimum(flat.lengths[a], flat.lengths[b]))
    shared = np.zeros(len(a), dtype=np.int64)
    columns = np.arange(_COLUMNS_PER_PASS, dtype=np.int64)
    for chunk in range(0, len(a), _PAIRS_PER_PASS):
        active = chunk + np.flatnonzero(limit[chunk : chunk + _PAIRS_PER_PASS] > 0)
        offset = 0
        while len(active):
            inside = offset + columns[None, :] < limit[active, None]
            at_a = np.where(inside, flat.starts[a[active], None] + offset + columns, 0)
            at_b = np.where(inside, flat.starts[b[active], None] + offset + columns, 0)
            equal = inside & (flat.ids[at_a] == flat.ids[at_b])
            run = np.where(equal.all(1), _COLUMNS_PER_PASS, np.argmin(equal, 1))
            shared[active] += run
            offset += _COLUMNS_PER_PASS
            active = active[(run == _COLUMNS_PER_PASS) & (limit[active] > offset)]
    return shared


def group_prefixes(flat: FlatTokens) -> list[PrefixGroup]:
    """Groups of the requests in ``flat`` sharing a leading run of tokens, found among sorted
    neighbours (members are request indices).

    A sequence joins the current group only if the tokens saved do not drop
    (``n · new_prefix ≥ (n − 1) · old_prefix``) and the prefix keeps at least half of the
    group's first prompt, so three hypotheses of one premise are not merged with another
    premise that merely starts with the same words — and a long run of prompts that share
    only a template's first word never becomes one huge group whose rows cost quadratic
    attention to save a few tokens each.

    The prefix a sequence shares with the group's first member is the smaller of the
    group's current prefix and what it shares with its sorted neighbour (for sorted
    sequences ``a ≤ b ≤ c``, ``common(a, c) = min(common(a, b), common(b, c))``), so only
    neighbours are compared.
    """
    order = sorted_by_ids(flat, np.flatnonzero(~flat.truncated))
    prompt = flat.first[order] - 1  # a prefix ends before the token that predicts the query
    with_previous = [0, *neighbour_prefixes(flat, order, prompt[1:]).tolist()]
    groups: list[PrefixGroup] = []
    current: list[int] = []
    prefix = initial = 0
    for i, own_prompt, shared in zip(order.tolist(), prompt.tolist(), with_previous):
        if current:
            shared = min(prefix, shared)
            n = len(current)
            if shared >= MIN_SHARED_TOKENS and 2 * shared >= initial and n * shared >= (n - 1) * prefix:
                current.append(i)
                prefix = shared
                continue
            groups.append(PrefixGroup(prefix, current))
        current, prefix = [i], own_prompt
        initial = prefix
    if current:
        groups.append(PrefixGroup(prefix, current))
    return groups


def split_long_groups(groups: list[PrefixGroup], lengths: np.ndarray, row_tokens: int) -> list[PrefixGroup]:
    """Cut groups whose packed row (prefix + all suffixes) would exceed ``row_tokens``,
    so attention over a packed row stays cheap; a cut part keeps the prefix. ``lengths``:
    every request's token count. Groups of one are dropped."""
    lengths = lengths.tolist()
    out = []
    for group in groups:
        if len(group.members) < 2:
            continue
        widths = [lengths[i] - group.prefix_len for i in group.members]
        if group.prefix_len + sum(widths) <= row_tokens:
            out.append(group)
            continue
        part: list[int] = []
        width = group.prefix_len
        for i, suffix in zip(group.members, widths):
            if part and width + suffix > row_tokens:
                out.append(PrefixGroup(group.prefix_len, part))
                part, width = [], group.prefix_len
            part.append(i)
            width += suffix
        out.append(PrefixGroup(group.prefix_len, part))
    return [g for g in out if len(g.members) > 1]


def packed_length(group: PrefixGroup, encoded: Sequence[Encoded]) -> int:
    return group.prefix_len + sum(len(encoded[i].ids) - group.prefix_len for i in group.members)


def pack_shared(
    groups: list[PrefixGroup], lengths: np.ndarray, batch_tokens: int, max_rows: int, encoded: Sequence[Encoded]
) -> list[Batch]:
    """Batches of packed group rows, longest first, within the padded-token budget."""
    sizes = np.fromiter((len(g.members) for g in groups), dtype=np.int64, count=len(groups))
    members = np.fromiter(chain.from_iterable(g.members for g in groups), dtype=np.int64, count=int(sizes.sum()))
    prefixes = np.fromiter((g.prefix_len for g in groups), dtype=np.int64, count=len(groups))
    row_lengths = prefixes * (1 - sizes)
    if len(groups):
        row_lengths += np.add.reduceat(lengths[members], np.cumsum(sizes) - sizes)
    order = np.lexsort((np.arange(len(groups)), -row_lengths))
    batches = []
    start = 0
    while start < len(order):
        rows = max(1, min(max_rows, batch_tokens // max(int(row_lengths[order[start]]), 1)))
        chosen = [groups[k] for k in order[start : start + rows].tolist()]
        indices = np.fromiter(chain.from_iterable(g.members for g in chosen), dtype=np.int64)
        batches.append(
            Batch(
                indices=indices,
                n_tokens=int(lengths[indices].sum()),
                payload=("shared", [(g.prefix_len, [encoded[i] for i in g.members]) for g in chosen]),
            )
        )
        start += rows
    return batches


def plan_batches(
    encoded: Sequence[Encoded], *, batch_tokens: int, max_rows: int, share_prefix: str, min_saving: float = 0.15
) -> list[Batch]:
    """Plain batches, plus shared-prefix batches when ``share_prefix`` is ``"auto"`` and
    sharing saves at least ``min_saving`` of the tokens (``"always"`` skips that test)."""
    with paused_gc():  # hundreds of thousands of groups and payload lists, no cycles
        return _plan(encoded, batch_tokens, max_rows, share_prefix, min_saving)


def _plan(
    encoded: Sequence[Encoded], batch_tokens: int, max_rows: int, share_prefix: str, min_saving: float
) -> list[Batch]:
    everything = np.arange(len(encoded), dtype=np.int64)
    if share_prefix == "never" or not len(encoded):
        lengths = np.fromiter((len(e.ids) for e in encoded), dtype=np.int64, count=len(encoded))
        return pack_plain(lengths, everything, batch_tokens, max_rows, encoded)
    flat = FlatTokens.of(encoded)
    lengths = flat.lengths
    row_tokens = min(1024, max(256, batch_tokens // 4))  # packed rows attend densely: keep them short
    groups = split_long_groups(group_prefixes(flat), lengths, row_tokens)
    saved = sum(g.prefix_len * (len(g.members) - 1) for g in groups)
    if share_prefix == "auto" and saved < min_saving * lengths.sum():
        return pack_plain(lengths, everything, batch_tokens, max_rows, encoded)
    shared = np.zeros(len(encoded), dtype=bool)
    for g in groups:
        shared[g.members] = True
    return pack_shared(groups, lengths, batch_tokens, max_rows, encoded) + pack_plain(
        lengths, everything[~shared], batch_tokens, max_rows, encoded
    )
