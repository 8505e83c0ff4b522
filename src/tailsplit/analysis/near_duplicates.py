"""Near-duplicate texts, found exactly: every pair of word-bigram sets with Jaccard ≥ t.

A set-similarity self-join by prefix filtering (All-Pairs: Bayardo, Ma & Srikant 2007; the
indexed side's shorter "mid-prefix": Xiao et al. 2008, PPJoin). With every set's tokens in one
global order, rarest first, two sets x, y with ``|y| ≤ |x|`` and Jaccard ≥ t share at least
``α ≥ t/(1+t)·(|x|+|y|)`` tokens, so y's first ``|y| − ⌈2t/(1+t)·|y|⌉ + 1`` tokens meet x's
first ``|x| − ⌈t·|x|⌉ + 1``. Candidate pairs are the non-zeros of one sparse product of the
two prefix matrices (SciPy), taken block by block over sets sorted by size and only against
sizes a Jaccard ≥ t allows (``|y| ≥ t·|x|``); each candidate is confirmed by its exact
intersection. Rare-first prefixes keep candidates few; nothing at or above the threshold is
missed (MinHash LSH, used before, missed 184 of the 554 near pairs among SNLI dev + test
hypotheses). Large inputs use every usable core (blocks of the product on forked processes).

A text's tokens are its word bigrams, or the word itself for a one-word text; an empty text has
none and no near duplicate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tailsplit.errors import MissingDependencyError
from tailsplit.forking import map_forked, workers_for

# Rows per block of the candidate product (bounds its memory), and the fewest sets for which a
# second process pays for itself.
_BLOCK_ROWS = 16_384
_PARALLEL_MIN = 100_000


@dataclass(frozen=True)
class TokenSets:
    """Sets of integer tokens, one per text: ``tokens[indptr[i]:indptr[i + 1]]`` is set i,
    distinct, ascending. Token ids are ranks in a global order, rarest first."""

    indptr: np.ndarray
    tokens: np.ndarray

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.indptr)

    def __len__(self) -> int:
        return len(self.indptr) - 1

    def take(self, rows: np.ndarray) -> TokenSets:
        """The sets of ``rows``, in that order (ranks unchanged).

        >>> bigram_sets(["a b c", "d"]).take(np.array([1, 1, 0])).sizes.tolist()
        [1, 1, 2]
        """
        sizes = self.sizes[rows]
        indptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        return TokenSets(indptr, self.tokens[_gather(self.indptr[rows], sizes, indptr)])


def bigram_sets(texts: Sequence[str]) -> TokenSets:
    """Word-bigram sets of normalised texts (words separated by single spaces, as
    ``normalized_query`` leaves them).

    >>> s = bigram_sets(["a man sleeps", "a man", "dogs", ""])
    >>> s.sizes.tolist()
    [2, 1, 1, 0]
    >>> s.tokens[:3].tolist()  # "man sleeps" (in one set), then "a man" (in two): rarest first
    [0, 2, 2]
    """
    owner, codes = _bigram_codes(texts)
    return _ranked(owner, codes, len(texts))


def combined_sets(first: TokenSets, second: TokenSets) -> TokenSets:
    """Per text, the disjoint union of its set in ``first`` and in ``second`` (the tokens of
    the two kept apart), ranked again rarest first."""
    owner = np.concatenate([_owners(first), _owners(second)])
    codes = np.concatenate([first.tokens, second.tokens + (int(first.tokens.max()) + 1 if len(first.tokens) else 0)])
    return _ranked(owner, codes, len(first), distinct=True)


def similar_pairs(sets: TokenSets, threshold: float, *, confirm: Sequence[TokenSets] = ()) -> np.ndarray:
    """``(m, 2)`` pairs ``i < j`` (sorted) of sets with Jaccard ≥ ``threshold``.

    With ``confirm``, the pairs whose sets in *each* of those families have Jaccard ≥
    ``threshold`` instead; ``sets`` is then their :func:`combined_sets`, whose Jaccard is at
    least the threshold whenever every part's is (so the join misses none).

    >>> similar_pairs(bigram_sets(["a b c d e f", "a b c d e g", "x y z", "a b c d e f"]), 0.6).tolist()
    [[0, 1], [0, 3], [1, 3]]
    """
    try:
        import scipy.sparse  # noqa: F401
    except ImportError:
        raise MissingDependencyError("scipy", "analysis", "near-duplicate leakage") from None
    job = _Join(sets, threshold, confirm)
    blocks = [(a, min(a + _BLOCK_ROWS, len(sets))) for a in range(0, len(sets), _BLOCK_ROWS)]
    workers = workers_for(len(sets), _PARALLEL_MIN)
    # big sets last in order, first to start; the workers inherit the matrices
    parts = map_forked(lambda block: job.block(*block), blocks[::-1], workers=workers)
    pairs = np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.int64)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))] if len(pairs) else np.zeros((0, 2), dtype=np.int64)


class _Join:
    """The prefix matrices of sets sorted by size (``order[k]`` is the k-th smallest)."""

    def __init__(self, sets: TokenSets, threshold: float, confirm: Sequence[TokenSets]) -> None:
        import scipy.sparse as sp

        self.threshold = threshold
        sizes = sets.sizes
        self.order = np.lexsort((np.arange(len(sets)), sizes))
        self.sizes = sizes[self.order]
        # Conservative prefix lengths (a hair longer when t·size is a whole number in floats).
        probe = self.sizes - np.ceil(threshold * self.sizes - 1e-9).astype(np.int64) + 1
        index = self.sizes - np.ceil(2 * threshold / (1 + threshold) * self.sizes - 1e-9).astype(np.int64) + 1
        self.probe = _matrix(sets, self.order, np.minimum(probe, self.sizes), sp)
        self.index = _matrix(sets, self.order, np.minimum(index, self.sizes), sp)
        self.confirm = [
            (_matrix(family, self.order, family.sizes[self.order], sp), family.sizes[self.order])
            for family in (confirm or [sets])
        ]

    def block(self, a: int, b: int) -> np.ndarray:
        """Confirmed pairs whose larger set (later in size order) is in rows ``[a, b)``."""
        t = self.threshold
        low = int(np.searchsorted(self.sizes, t * self.sizes[a] - 1e-9))  # smallest size allowed
        product = (self.probe[a:b] @ self.index[low:b].T).tocsr()
        rows = a + np.repeat(np.arange(b - a), np.diff(product.indptr))
        cols = low + product.indices.astype(np.int64)
        keep = (cols < rows) & (self.sizes[cols] >= t * self.sizes[rows] - 1e-9) & (self.sizes[cols] > 0)
        for matrix, sizes in self.confirm:
            rows, cols = rows[keep], cols[keep]
            keep = _close(matrix, sizes, rows, cols, t)
        first, second = self.order[rows[keep]], self.order[cols[keep]]
        return np.column_stack([np.minimum(first, second), np.maximum(first, second)]).astype(np.int64)


def _close(matrix, sizes: np.ndarray, rows: np.ndarray, cols: np.ndarray, threshold: float) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Jaccard ≥ threshold of the rows' sets, by their exact intersection (as ``len(a & b) >=
    t * len(a | b)`` with a non-empty union)."""
    if not len(rows):
        return np.zeros(0, dtype=bool)
    common = np.asarray(matrix[rows].multiply(matrix[cols]).sum(axis=1)).ravel()
    union = sizes[rows] + sizes[cols] - common
    return (union > 0) & (common >= threshold * union)


def _matrix(sets: TokenSets, order: np.ndarray, lengths: np.ndarray, sp):  # type: ignore[no-untyped-def]
    """CSR matrix of the first ``lengths[k]`` tokens of set ``order[k]``, row k."""
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    columns = sets.tokens[_gather(sets.indptr[order], lengths, indptr)]
    n_tokens = int(sets.tokens.max()) + 1 if len(sets.tokens) else 0
    return sp.csr_matrix((np.ones(len(columns), dtype=np.int32), columns, indptr), shape=(len(order), n_tokens))


def _gather(starts: np.ndarray, lengths: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Positions ``starts[k] .. starts[k] + lengths[k] - 1`` for every k, concatenated
    (``indptr`` is the cumulative sum of ``lengths`` with a leading 0)."""
    return np.arange(indptr[-1], dtype=np.int64) - np.repeat(indptr[:-1] - starts, lengths)


def _owners(sets: TokenSets) -> np.ndarray:
    return np.repeat(np.arange(len(sets), dtype=np.int64), sets.sizes)


def _bigram_codes(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(owner text, token code) per word bigram; a one-word text's code is its word's."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        array = texts if isinstance(texts, (pa.Array, pa.ChunkedArray)) else pa.array(texts, type=pa.large_string())
    except (pa.ArrowException, UnicodeEncodeError):  # a lone surrogate: escape every text alike
        array = pa.array([t.encode("unicode_escape").decode("ascii") for t in texts], type=pa.large_string())
    words = pc.split_pattern(array, " ")
    n_words = pc.list_value_length(words).to_numpy().astype(np.int64)
    empty = np.asarray(pc.equal(array, "").to_numpy(zero_copy_only=False), dtype=bool)
    encoded = pc.dictionary_encode(words.flatten())
    word_ids = encoded.indices.to_numpy().astype(np.int64)
    n_vocab = len(encoded.dictionary)
    owner = np.repeat(np.arange(len(texts), dtype=np.int64), n_words)
    if empty.any():  # "" splits into one empty word
        word_ids, owner = word_ids[~empty[owner]], owner[~empty[owner]]
        n_words[empty] = 0
    joined = owner[:-1] == owner[1:]
    one_word = np.flatnonzero(n_words == 1)
    last = np.cumsum(n_words) - 1
    codes = np.concatenate(
        [word_ids[:-1][joined] * n_vocab + word_ids[1:][joined], n_vocab**2 + word_ids[last[one_word]]]
    )
    return np.concatenate([owner[:-1][joined], one_word]), codes


def _ranked(owner: np.ndarray, codes: np.ndarray, n_sets: int, *, distinct: bool = False) -> TokenSets:
    """Distinct tokens per set (``distinct``: they are already), renumbered by document
    frequency (rarest first, ties by code) and sorted within each set."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not distinct and len(codes):
        span = int(codes.max()) + 1
        key = np.sort(owner * span + codes)
        key = key[np.concatenate([[True], key[1:] != key[:-1]])]  # one entry per (set, token)
        owner, codes = key // span, key % span
    encoded = pc.dictionary_encode(pa.array(codes, type=pa.int64()))  # hashing, not sorting
    dense = encoded.indices.to_numpy().astype(np.int64)
    values = encoded.dictionary.to_numpy()
    frequency = np.bincount(dense, minlength=len(values))
    rank = np.empty(len(values), dtype=np.int64)
    rank[np.lexsort((values, frequency))] = np.arange(len(values))
    n_tokens = max(len(values), 1)
    key = np.sort(owner * n_tokens + rank[dense])
    indptr = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=n_sets))]).astype(np.int64)
    return TokenSets(indptr, key % n_tokens)
