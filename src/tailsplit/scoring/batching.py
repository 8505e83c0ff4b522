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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tailsplit.scoring.base import Batch

MIN_SHARED_TOKENS = 4


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


def pack_plain(
    lengths: np.ndarray, indices: np.ndarray, batch_tokens: int, max_rows: int, encoded: list[Encoded]
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


def group_prefixes(encoded: list[Encoded]) -> list[PrefixGroup]:
    """Groups of sequences sharing a leading run of tokens, found among sorted neighbours.

    A sequence joins the current group only if the tokens saved do not drop
    (``n · new_prefix ≥ (n − 1) · old_prefix``) and the prefix keeps at least half of the
    group's first prompt, so three hypotheses of one premise are not merged with another
    premise that merely starts with the same words — and a long run of prompts that share
    only a template's first word never becomes one huge group whose rows cost quadratic
    attention to save a few tokens each.
    """
    eligible = [i for i, e in enumerate(encoded) if not e.truncated]
    eligible.sort(key=lambda i: encoded[i].ids)
    groups: list[PrefixGroup] = []
    current: list[int] = []
    prefix = initial = 0
    for i in eligible:
        if current:
            shared = min(prefix, _common_prefix(encoded[current[0]].ids, encoded[i].ids), encoded[i].first - 1)
            if (
                shared >= MIN_SHARED_TOKENS
                and 2 * shared >= initial
                and len(current) * shared >= (len(current) - 1) * prefix
            ):
                current.append(i)
                prefix = shared
                continue
            groups.append(PrefixGroup(prefix, current))
        current, prefix = [i], encoded[i].first - 1
        initial = prefix
    if current:
        groups.append(PrefixGroup(prefix, current))
    return groups


def _common_prefix(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    k = 0
    while k < n and a[k] == b[k]:
        k += 1
    return k


def split_long_groups(groups: list[PrefixGroup], encoded: list[Encoded], row_tokens: int) -> list[PrefixGroup]:
    """Cut groups whose packed row (prefix + all suffixes) would exceed ``row_tokens``,
    so attention over a packed row stays cheap; a cut part keeps the prefix."""
    out = []
    for group in groups:
        part: list[int] = []
        width = group.prefix_len
        for i in group.members:
            suffix = len(encoded[i].ids) - group.prefix_len
            if part and width + suffix > row_tokens:
                out.append(PrefixGroup(group.prefix_len, part))
                part, width = [], group.prefix_len
            part.append(i)
            width += suffix
        out.append(PrefixGroup(group.prefix_len, part))
    return [g for g in out if len(g.members) > 1]


def packed_length(group: PrefixGroup, encoded: list[Encoded]) -> int:
    return group.prefix_len + sum(len(encoded[i].ids) - group.prefix_len for i in group.members)


def pack_shared(groups: list[PrefixGroup], encoded: list[Encoded], batch_tokens: int, max_rows: int) -> list[Batch]:
    """Batches of packed group rows, longest first, within the padded-token budget."""
    lengths = np.array([packed_length(g, encoded) for g in groups], dtype=np.int64)
    order = np.lexsort((np.arange(len(groups)), -lengths))
    batches = []
    start = 0
    while start < len(order):
        rows = max(1, min(max_rows, batch_tokens // max(int(lengths[order[start]]), 1)))
        chosen = [groups[k] for k in order[start : start + rows]]
        members = np.array([i for g in chosen for i in g.members], dtype=np.int64)
        batches.append(
            Batch(
                indices=members,
                n_tokens=sum(len(encoded[i].ids) for i in members),
                payload=("shared", [(g.prefix_len, [encoded[i] for i in g.members]) for g in chosen]),
            )
        )
        start += rows
    return batches


def plan_batches(
    encoded: list[Encoded], *, batch_tokens: int, max_rows: int, share_prefix: str, min_saving: float = 0.15
) -> list[Batch]:
    """Plain batches, plus shared-prefix batches when ``share_prefix`` is ``"auto"`` and
    sharing saves at least ``min_saving`` of the tokens (``"always"`` skips that test)."""
    lengths = np.array([len(e.ids) for e in encoded], dtype=np.int64)
    everything = np.arange(len(encoded), dtype=np.int64)
    if share_prefix == "never" or not len(encoded):
        return pack_plain(lengths, everything, batch_tokens, max_rows, encoded)
    row_tokens = min(1024, max(256, batch_tokens // 4))  # packed rows attend densely: keep them short
    groups = split_long_groups(group_prefixes(encoded), encoded, row_tokens)
    saved = sum(g.prefix_len * (len(g.members) - 1) for g in groups)
    if share_prefix == "auto" and saved < min_saving * lengths.sum():
        return pack_plain(lengths, everything, batch_tokens, max_rows, encoded)
    shared = np.zeros(len(encoded), dtype=bool)
    for g in groups:
        shared[g.members] = True
    return pack_shared(groups, encoded, batch_tokens, max_rows) + pack_plain(
        lengths, everything[~shared], batch_tokens, max_rows, encoded
    )
