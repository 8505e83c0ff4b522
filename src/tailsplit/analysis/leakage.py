"""Leakage: evaluation examples whose query — or whole (context, query) pair — also occurs in train.

Three matches, each stricter one contained in the next:

* ``exact``: the same text, character for character;
* ``normalized``: the same after lower-casing, dropping punctuation and collapsing whitespace
  (the normalisation ``--fold-match normalized`` uses);
* ``near``: a near-duplicate — Jaccard similarity of word-bigram sets (a one-word text is its
  word) of at least :data:`NEAR_JACCARD` between normalised texts, every such pair found
  exactly (:mod:`tailsplit.analysis.near_duplicates`).

A pair is near another when its query is near the other's query *and* its context near the
other's context, so pairs that merely share a premise are not near duplicates.

Keys are computed once per dataset; the share of a split's evaluation rows that leak is then a
``bincount`` over the train rows — and against random splits, whose train part is everything
else, a count over the evaluation rows alone, cheap enough for thousands of them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tailsplit.analysis import near_duplicates as nd
from tailsplit.forking import on_cores, workers_for
from tailsplit.words import normalized_queries

MATCHES = ("exact", "normalized", "near")
NEAR_JACCARD = 0.7
# The fewest evaluation rows, over all random splits, for which counting them on several
# processes pays for the forks.
_PARALLEL_ROWS = 1_000_000


def _keys(values: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Per text the number of its distinct text (in order of first occurrence), and those
    texts. (A dict: hashing through Arrow was no faster here and held 220 MB more at 570k
    rows.)

    >>> codes, distinct = _keys(["b", "a", "b"])
    >>> codes.tolist(), distinct
    ([0, 1, 0], ['b', 'a'])
    """
    index: dict[str, int] = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int64, count=len(values))
    return codes, list(index)


def _exact_and_normalized_keys(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Per text its exact and its normalised key (:func:`_keys` of the texts, and of their
    normalised forms), and the distinct normalised texts — each distinct text normalised once.

    >>> exact, normalized, distinct = _exact_and_normalized_keys(["A b.", "a b", "A b.", "c"])
    >>> exact.tolist(), normalized.tolist(), distinct
    ([0, 1, 0, 2], [0, 0, 0, 1], ['a b', 'c'])
    """
    exact, texts_once = _keys(texts)
    codes, distinct = _keys(normalized_queries(texts_once))
    return exact, codes[exact], distinct


def _pair_keys(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row the number of its distinct ``(first, second)`` code pair (in order of first
    occurrence), and those pairs as an ``(m, 2)`` array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    span = int(second.max()) + 1 if len(second) else 1
    encoded = pc.dictionary_encode(pa.array(first * span + second, type=pa.int64()))
    distinct = encoded.dictionary.to_numpy()
    return encoded.indices.to_numpy().astype(np.int64), np.column_stack([distinct // span, distinct % span])


@dataclass(frozen=True)
class DuplicateKeys:
    """Per row: its exact and normalised key; near-duplicate pairs between normalised keys."""

    view: str  # "query" or "pair"
    exact: np.ndarray
    normalized: np.ndarray
    near: np.ndarray | None  # (m, 2) normalised-key pairs i < j, None when not computed

    @staticmethod
    def build(queries: Sequence[str], contexts: Sequence[str] | None = None, *, near: bool = True) -> DuplicateKeys:
        """The query view, or with ``contexts`` the (context, query) pair view."""
        return duplicate_views(queries, contexts, near=near)[-1]

    def leaked(self, match: str, train: np.ndarray) -> np.ndarray:
        """Per row: does a train row (another row, for a train row itself) match it?"""
        keys = self.exact if match == "exact" else self.normalized
        counts = np.bincount(keys[train], minlength=int(keys.max()) + 1 if len(keys) else 0)
        own = train.astype(np.int64)  # a train row does not leak into itself
        if match != "near":
            return (counts[keys] - own) > 0
        if self.near is None:
            raise ValueError("near-duplicate pairs were not computed")
        others = counts[keys] - own > 0
        key_in_train = counts > 0
        near_key = np.zeros(len(counts), dtype=bool)
        first, second = self.near[:, 0], self.near[:, 1]
        near_key[first[key_in_train[second]]] = True
        near_key[second[key_in_train[first]]] = True
        return others | near_key[keys]

    def share(self, match: str, train: np.ndarray, rows: np.ndarray) -> float:
        """Share of ``rows`` (a mask) that match a train row."""
        return float(self.leaked(match, train)[rows].mean()) if rows.any() else float("nan")

    def null_shares(self, match: str, eval_rows: np.ndarray) -> np.ndarray:
        """Per row of ``eval_rows`` (``(n_splits, k)`` row numbers of random evaluation sets),
        :meth:`share` of that set when train is every other row — counted over the evaluation
        rows alone: a row leaks when its key, or (for ``near``) a key near it, has more rows in
        the whole dataset than in the evaluation set. Over the rows whose key can leak at all (a
        key of several rows, or with a near key): each such key's count in each evaluation set
        comes from one sort of their (split, key) pairs — the splits in chunks on the usable
        cores for large draws (each split counted alone, so the chunks change nothing)."""
        if match == "near" and self.near is None:
            raise ValueError("near-duplicate pairs were not computed")
        keys = self.exact if match == "exact" else self.normalized
        eval_rows = np.asarray(eval_rows, dtype=np.int64)
        n_splits, k = (len(eval_rows), eval_rows.size // len(eval_rows)) if len(eval_rows) else (0, 0)
        eval_rows = eval_rows.reshape(n_splits, k)
        if not k:
            return np.full(n_splits, np.nan)
        total = np.bincount(keys)
        can_leak = total > 1
        if match == "near":
            can_leak |= np.diff(self._witnesses[0]) > 0  # the near lists built before any fork

        def chunk(start: int, stop: int) -> np.ndarray:
            rows = eval_rows[start:stop]
            split, column = np.nonzero(can_leak[keys[rows]])
            counted = EvalCounts.of(split, keys[rows[split, column]], len(total))
            leaked = total[counted.keys] > counted.of_rows
            if match == "near":
                leaked = _near_leaked(leaked, counted, self._witnesses, total)
            return np.bincount(split[leaked], minlength=stop - start) / k

        workers = workers_for(eval_rows.size, _PARALLEL_ROWS)
        return np.concatenate(on_cores(chunk, n_splits, workers=workers))

    @functools.cached_property
    def _witnesses(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR lists of each normalised key's near keys (both directions)."""
        import scipy.sparse as sp

        assert self.near is not None
        n_keys = int(self.normalized.max()) + 1 if len(self.normalized) else 0
        first, second = self.near[:, 0], self.near[:, 1]
        ones = np.ones(2 * len(first), dtype=np.int8)
        lists = sp.csr_matrix(
            (ones, (np.concatenate([first, second]), np.concatenate([second, first]))), shape=(n_keys, n_keys)
        )
        return lists.indptr.astype(np.int64), lists.indices.astype(np.int64)

    def matches(self) -> tuple[str, ...]:
        return MATCHES if self.near is not None else MATCHES[:2]


@dataclass(frozen=True)
class EvalCounts:
    """Rows of random evaluation sets (``split`` and ``keys``, one entry per row) and how many
    rows of its set hold each one's key (``of_rows``); the distinct (split, key) tags
    (``split · n_keys + key``) in sorted order with their counts, for :meth:`lookup`."""

    n_keys: int
    split: np.ndarray
    keys: np.ndarray
    tags: np.ndarray
    counts: np.ndarray
    of_rows: np.ndarray

    @classmethod
    def of(cls, split: np.ndarray, keys: np.ndarray, n_keys: int) -> EvalCounts:
        tags, inverse, counts = np.unique(split * n_keys + keys, return_inverse=True, return_counts=True)
        return cls(n_keys, split, keys, tags, counts, counts[inverse])

    def lookup(self, split: np.ndarray, key: np.ndarray) -> np.ndarray:
        """Rows holding ``key`` in evaluation set ``split`` (element by element; 0 if none)."""
        if not len(self.tags):
            return np.zeros(len(split), dtype=np.int64)
        tag = split * self.n_keys + key
        at = np.minimum(np.searchsorted(self.tags, tag), len(self.tags) - 1)
        return np.where(self.tags[at] == tag, self.counts[at], 0)


def _near_leaked(
    leaked: np.ndarray, counted: EvalCounts, witnesses: tuple[np.ndarray, np.ndarray], total: np.ndarray
) -> np.ndarray:
    """Rows not yet leaked whose key has a near key with a row outside their evaluation set:
    one neighbour at a time, so most rows are settled by their first."""
    indptr, neighbours = witnesses
    leaked = leaked.copy()
    entry = np.flatnonzero(~leaked)
    own = counted.keys[entry]
    start, degree = indptr[own], indptr[own + 1] - indptr[own]
    step = 0
    while len(entry):
        more = degree > step
        entry, start, degree = entry[more], start[more], degree[more]
        if not len(entry):
            break
        near = neighbours[start + step]
        hit = total[near] > counted.lookup(counted.split[entry], near)
        leaked[entry[hit]] = True
        entry, start, degree = entry[~hit], start[~hit], degree[~hit]
        step += 1
    return leaked


def duplicate_views(
    queries: Sequence[str], contexts: Sequence[str] | None = None, *, near: bool = True
) -> list[DuplicateKeys]:
    """The query view and, with ``contexts``, the (context, query) pair view, sharing the
    normalised texts and word-bigram sets."""

    exact, normalized, distinct = _exact_and_normalized_keys(queries)
    query_sets = nd.bigram_sets(distinct) if near else None
    near_pairs = nd.similar_pairs(query_sets, NEAR_JACCARD) if query_sets is not None else None
    views = [DuplicateKeys("query", exact, normalized, near_pairs)]
    if contexts is None:
        return views
    context_exact, context_keys, context_distinct = _exact_and_normalized_keys(contexts)
    pair_keys, pairs = _pair_keys(context_keys, normalized)
    pair_near = None
    if query_sets is not None:
        context_sets = nd.bigram_sets(context_distinct)
        by_query, by_context = query_sets.take(pairs[:, 1]), context_sets.take(pairs[:, 0])
        joined = nd.combined_sets(by_query, by_context)
        pair_near = nd.similar_pairs(joined, NEAR_JACCARD, confirm=[by_query, by_context])
    views.append(DuplicateKeys("pair", _pair_keys(context_exact, exact)[0], pair_keys, pair_near))
    return views


def repeated_queries(queries: Sequence[str]) -> tuple[int, int]:
    """(rows whose query another row shares, distinct queries that repeat)."""
    keys = _keys(queries)[0]
    counts = np.bincount(keys) if len(keys) else np.zeros(0, dtype=np.int64)
    return int(counts[counts > 1].sum()), int((counts > 1).sum())


def describe(match: str, view: str) -> str:
    what = "queries" if view == "query" else "(context, query) pairs"
    how = {
        "exact": "exactly",
        "normalized": "after case/punctuation/space normalisation",
        "near": f"as a near-duplicate (word-bigram Jaccard ≥ {NEAR_JACCARD})",
    }[match]
    return f"share of evaluation {what} also in train, {how}"
