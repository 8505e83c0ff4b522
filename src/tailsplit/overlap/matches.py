"""What a suffix-array index says of one example's tokens: the longest n-gram of it the corpus
holds (and how often), which of its n-gram windows the corpus holds, and how much of it those
windows cover — from a ``count(ids)`` of the index alone, in at most two calls per token.

The longest match starting at each token, ``L(i)``, is found with two pointers: a substring
of a held n-gram is held, so ``L(i + 1) ≥ L(i) − 1`` and the end never moves back. A window
of ``n`` tokens at ``i`` is held exactly when ``L(i) ≥ n``, which is the text audit's n-gram
hit over the index's tokens (``overlap.audit``: a window held by some corpus entry).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Count = Callable[[list[int]], int]


@dataclass(frozen=True)
class MatchProfile:
    """One example against a corpus index: its tokens, the longest n-gram of it the corpus
    holds and that n-gram's count, per order ``n`` the windows held (``hits``) of all its
    windows (``windows``) and the share of its tokens inside a held window (``coverage``),
    and whether the corpus holds the whole example (``verbatim``; the caller may also try
    other tokenisations of it)."""

    tokens: int
    longest: int
    longest_count: int
    hits: dict[int, int]
    windows: dict[int, int]
    coverage: dict[int, float]
    verbatim: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "tokens": self.tokens,
            "longest_match": self.longest,
            "longest_match_count": self.longest_count,
            "coverage": {str(n): round(v, 6) for n, v in self.coverage.items()},
        }


def longest_matches(ids: Sequence[int], count: Count) -> np.ndarray:
    """``L(i)``: the length of the longest run of ``ids`` starting at ``i`` that ``count`` finds.

    >>> corpus = [1, 2, 3, 9, 2, 3, 4]
    >>> def count(q):
    ...     return sum(corpus[i : i + len(q)] == q for i in range(len(corpus)))
    >>> longest_matches([1, 2, 3, 4, 5], count).tolist()
    [3, 3, 2, 1, 0]
    """
    ids = [int(t) for t in ids]
    lengths = np.zeros(len(ids), dtype=np.int64)
    end = 0
    for start in range(len(ids)):
        end = max(end, start)
        while end < len(ids) and count(ids[start : end + 1]) > 0:
            end += 1
        lengths[start] = end - start
    return lengths


def match_profile(ids: Sequence[int], count: Count, orders: Sequence[int]) -> MatchProfile:
    """The :class:`MatchProfile` of ``ids`` for the n-gram ``orders``.

    >>> corpus = [1, 2, 3, 9, 2, 3, 4]
    >>> def count(q):
    ...     return sum(corpus[i : i + len(q)] == q for i in range(len(corpus)))
    >>> p = match_profile([1, 2, 3, 4, 5], count, (2, 3))
    >>> p.longest, p.longest_count, p.hits, p.windows, p.coverage[2], p.verbatim
    (3, 1, {2: 3, 3: 2}, {2: 4, 3: 3}, 0.8, False)
    """
    lengths = longest_matches(ids, count)
    longest = int(lengths.max()) if len(lengths) else 0
    if longest:
        start = int(np.argmax(lengths))
        longest_count = count([int(t) for t in ids[start : start + longest]])
    else:
        longest_count = 0
    hits, windows, coverage = {}, {}, {}
    for n in orders:
        held = lengths >= n
        hits[n], windows[n] = int(held.sum()), max(0, len(lengths) - n + 1)
        coverage[n] = _covered(lengths, held) / len(lengths) if len(lengths) else 0.0
    verbatim = bool(len(lengths)) and int(lengths[0]) == len(lengths)
    return MatchProfile(len(lengths), longest, longest_count, hits, windows, coverage, verbatim)


def _covered(lengths: np.ndarray, held: np.ndarray) -> int:
    """Tokens inside some held run ``[i, i + L(i))`` with ``held[i]``."""
    marks = np.zeros(len(lengths) + 1, dtype=np.int64)
    starts = np.flatnonzero(held)
    np.add.at(marks, starts, 1)
    np.add.at(marks, starts + lengths[starts], -1)
    return int((np.cumsum(marks[:-1]) > 0).sum())
