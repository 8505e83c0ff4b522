"""Leakage: evaluation examples whose query — or whole (context, query) pair — also occurs in train.

Three matches, each stricter one contained in the next:

* ``exact``: the same text, character for character;
* ``normalized``: the same after lower-casing, dropping punctuation and collapsing whitespace
  (the normalisation ``--fold-match normalized`` uses);
* ``near``: a near-duplicate — Jaccard similarity of word-bigram sets (a one-word text is its
  word) of at least :data:`NEAR_JACCARD` between normalised texts, candidates found with MinHash
  LSH (datasketch, 128 permutations) and each candidate pair confirmed by its exact Jaccard.

A pair is near another when its query is near the other's query *and* its context near the
other's context (candidates from the queries' LSH, both Jaccards confirmed), so pairs that
merely share a premise are not near duplicates.

Keys are computed once per dataset; the share of a split's evaluation rows that leak is then a
``bincount`` over the train rows, cheap enough for hundreds of random splits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tailsplit.errors import MissingDependencyError
from tailsplit.scoring.crossfit import normalized_queries

MATCHES = ("exact", "normalized", "near")
NEAR_JACCARD = 0.7
NUM_PERM = 128
SHINGLE_SEED = 1


def shingles(normalized: str, prefix: str = "") -> set[str]:
    """Word bigrams of a normalised text (the word itself for a one-word text).

    >>> sorted(shingles("a man sleeps"))
    ['a man', 'man sleeps']
    """
    words = normalized.split()
    if len(words) < 2:
        return {prefix + w for w in words}
    return {f"{prefix}{a} {b}" for a, b in zip(words, words[1:])}


def _keys(values: Sequence[object]) -> np.ndarray:
    index: dict[object, int] = {}
    return np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int64, count=len(values))


def near_duplicate_pairs(
    shingle_sets: Sequence[set[str]], threshold: float = NEAR_JACCARD, also: Sequence[set[str]] | None = None
) -> np.ndarray:
    """``(m, 2)`` index pairs (both orders) of sets with Jaccard ≥ ``threshold`` (MinHash LSH
    candidates, confirmed exactly) — and, with ``also``, whose ``also`` sets are as close too.
    Empty sets have no near duplicates."""
    try:
        from datasketch import MinHash, MinHashLSH
    except ImportError:
        raise MissingDependencyError("datasketch", "analysis", "near-duplicate leakage") from None
    live = [i for i, s in enumerate(shingle_sets) if s]
    hashes = MinHash.bulk(
        [[w.encode("utf-8") for w in sorted(shingle_sets[i])] for i in live], num_perm=NUM_PERM, seed=SHINGLE_SEED
    )
    lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
    for i, h in zip(live, hashes):
        lsh.insert(i, h)
    pairs = []
    for i, h in zip(live, hashes):
        for j in lsh.query(h):
            if j > i:
                if _close(shingle_sets[i], shingle_sets[j], threshold) and (
                    also is None or _close(also[i], also[j], threshold)
                ):
                    pairs.append((i, j))
    if not pairs:
        return np.zeros((0, 2), dtype=np.int64)
    one_way = np.asarray(pairs, dtype=np.int64)
    return np.concatenate([one_way, one_way[:, ::-1]])


def _close(a: set[str], b: set[str], threshold: float) -> bool:
    return bool(a | b) and len(a & b) >= threshold * len(a | b)


@dataclass(frozen=True)
class DuplicateKeys:
    """Per row: its exact and normalised key; near-duplicate pairs between normalised keys."""

    view: str  # "query" or "pair"
    exact: np.ndarray
    normalized: np.ndarray
    near: np.ndarray | None  # (m, 2) normalised-key pairs, None when not computed

    @staticmethod
    def build(queries: Sequence[str], contexts: Sequence[str] | None = None, *, near: bool = True) -> DuplicateKeys:
        query_texts = normalized_queries(queries)
        if contexts is None:
            exact = _keys(queries)
            normalized = _keys(query_texts)
        else:
            context_texts = normalized_queries(contexts)
            exact = _keys(list(zip(contexts, queries)))
            normalized = _keys(list(zip(context_texts, query_texts)))
        pairs = None
        if near:
            # key k is the k-th distinct normalised text (or pair): its first row
            first_rows = np.unique(normalized, return_index=True)[1]
            query_sets = [shingles(query_texts[i]) for i in first_rows]
            if contexts is None:
                pairs = near_duplicate_pairs(query_sets)
            else:
                pairs = near_duplicate_pairs(query_sets, also=[shingles(context_texts[i]) for i in first_rows])
        return DuplicateKeys("query" if contexts is None else "pair", exact, normalized, pairs)

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
        if len(self.near):
            near_key[self.near[key_in_train[self.near[:, 1]], 0]] = True
        return others | near_key[keys]

    def share(self, match: str, train: np.ndarray, rows: np.ndarray) -> float:
        """Share of ``rows`` (a mask) that match a train row."""
        return float(self.leaked(match, train)[rows].mean()) if rows.any() else float("nan")

    def matches(self) -> tuple[str, ...]:
        return MATCHES if self.near is not None else MATCHES[:2]


def repeated_queries(queries: Sequence[str]) -> tuple[int, int]:
    """(rows whose query another row shares, distinct queries that repeat)."""
    keys = _keys(queries)
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
