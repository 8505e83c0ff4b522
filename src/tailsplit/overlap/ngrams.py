"""Word n-grams as 64-bit polynomial hashes of token ids (vectorised, no strings).

``h = Σ_j (id_j + 1) · P^(n−1−j) mod 2^64`` with a fixed odd multiplier ``P``; distinct
n-grams collide with probability about ``m² / 2^65`` for ``m`` distinct n-grams (below 1e-5
for a hundred million). Windows holding an unknown word (id −1) are dropped: they cannot
occur in the corpus.
"""

from __future__ import annotations

import numpy as np

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


def ngram_hashes(ids: np.ndarray, n: int) -> np.ndarray:
    """Hashes of every length-``n`` window of ``ids`` (empty if shorter than ``n``).

    >>> a = ngram_hashes(np.array([5, 6, 7, 5, 6, 7]), 3)
    >>> len(a), bool(a[0] == a[3]), bool(a[0] == a[1])
    (4, True, False)
    """
    ids = np.asarray(ids, dtype=np.int64)
    windows = len(ids) - n + 1
    if windows <= 0:
        return np.zeros(0, dtype=np.uint64)
    values = (ids + 1).astype(np.uint64)
    out = np.zeros(windows, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(n):
            out = out * _MULTIPLIER + values[j:j + windows]
    if (ids < 0).any():
        unknown = np.convolve((ids < 0).astype(np.int64), np.ones(n, dtype=np.int64), mode="valid") > 0
        out = out[~unknown]
    return out


def count_in(hashes: np.ndarray, sorted_index: np.ndarray) -> int:
    """How many of ``hashes`` occur in ``sorted_index`` (a sorted distinct array)."""
    if len(hashes) == 0 or len(sorted_index) == 0:
        return 0
    positions = np.searchsorted(sorted_index, hashes)
    positions[positions == len(sorted_index)] = 0
    return int(np.sum(sorted_index[positions] == hashes))
