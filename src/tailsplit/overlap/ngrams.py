"""Word n-grams as 64-bit polynomial hashes of word hashes (vectorised, vocabulary-free).

Each word maps to the first 8 bytes of its BLAKE2b digest; an n-gram to
``h = Σ_j w_j · P^(n−1−j) mod 2^64`` with a fixed odd multiplier ``P``. Hashes depend on the
words only — not on any index's vocabulary — so the sets of separately built corpus shards
are comparable and their union is the whole corpus's set. Distinct n-grams collide with
probability about ``m² / 2^65`` for ``m`` distinct n-grams (below 1e-5 for a hundred million).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


def word_hashes(words: Sequence[str]) -> np.ndarray:
    """One 64-bit hash per word.

    >>> h = word_hashes(["cat", "dog", "cat"])
    >>> bool(h[0] == h[2]), bool(h[0] == h[1])
    (True, False)
    """
    digest = b"".join(hashlib.blake2b(w.encode("utf-8"), digest_size=8).digest() for w in words)
    return np.frombuffer(digest, dtype="<u8").astype(np.uint64) if digest else np.zeros(0, np.uint64)


def ngram_hashes(values: np.ndarray, n: int) -> np.ndarray:
    """Hashes of every length-``n`` window of the word hashes ``values`` (empty if shorter).

    >>> a = ngram_hashes(word_hashes("a b c a b c".split()), 3)
    >>> len(a), bool(a[0] == a[3]), bool(a[0] == a[1])
    (4, True, False)
    """
    values = np.asarray(values, dtype=np.uint64)
    windows = len(values) - n + 1
    if windows <= 0:
        return np.zeros(0, dtype=np.uint64)
    out = np.zeros(windows, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(n):
            out = out * _MULTIPLIER + values[j : j + windows]
    return out


def members(hashes: np.ndarray, sorted_index: np.ndarray) -> np.ndarray:
    """Which of ``hashes`` occur in ``sorted_index`` (a sorted distinct array), as a mask."""
    if len(hashes) == 0 or len(sorted_index) == 0:
        return np.zeros(len(hashes), dtype=bool)
    positions = np.searchsorted(sorted_index, hashes)
    positions[positions == len(sorted_index)] = 0
    return np.asarray(sorted_index[positions] == hashes)
