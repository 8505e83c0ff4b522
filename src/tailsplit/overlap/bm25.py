"""BM25 weights from corpus-wide statistics, handed to bm25s for storage and retrieval.

bm25s takes document frequencies and the average length from the documents it indexes; a
corpus indexed in shards needs them from the whole corpus, or scores from two shards would
not compare. So tailsplit computes the weight matrix itself, vectorised — the Okapi BM25 formula
with bm25s's default (Lucene) IDF:

    idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
    w(t, d) = idf(t) · tf(t, d) · (k1 + 1) / (tf(t, d) + k1 · (1 − b + b · |d| / avgdl))

— and gives it to a ``bm25s.BM25`` retriever, which saves, memory-maps and scores it. bm25s's
own Lucene weights leave out the constant factor (k1 + 1), which changes no ranking; tests
check the weights equal (k1 + 1) times those of bm25s's own index of the same corpus.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.errors import MissingDependencyError


def bm25s_module() -> Any:
    try:
        import bm25s
    except ImportError:
        raise MissingDependencyError("bm25s", "overlap", "the overlap audit") from None
    return bm25s


@dataclass(frozen=True)
class CorpusStats:
    """What BM25 needs of the whole corpus besides per-word document frequencies."""

    documents: int
    tokens: int

    @property
    def average_length(self) -> float:
        return self.tokens / self.documents if self.documents else 0.0


def term_doc_pairs(tokens: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(token id, document row, term frequency) of every distinct pair, token-major."""
    documents = len(offsets) - 1
    rows = np.repeat(np.arange(documents, dtype=np.int64), np.diff(offsets))
    keys, tf = np.unique(np.asarray(tokens, dtype=np.int64) * max(documents, 1) + rows, return_counts=True)
    return keys // max(documents, 1), keys % max(documents, 1), tf


def document_frequencies(tokens: np.ndarray, offsets: np.ndarray, vocabulary_size: int) -> np.ndarray:
    """How many documents hold each token id."""
    token_ids, _, _ = term_doc_pairs(tokens, offsets)
    return np.bincount(token_ids, minlength=vocabulary_size).astype(np.int64)


def bm25_weights(
    tokens: np.ndarray, offsets: np.ndarray, doc_freq: np.ndarray, stats: CorpusStats, k1: float, b: float
) -> dict[str, Any]:
    """The CSC weight matrix (documents × vocabulary) in bm25s's layout.

    ``doc_freq[t]`` is token id ``t``'s document frequency in the *whole* corpus; ``stats``
    the whole corpus's counts. Rows are this part's documents.
    """
    token_ids, rows, tf = term_doc_pairs(tokens, offsets)
    lengths = np.diff(offsets)
    df = np.asarray(doc_freq, dtype=np.float64)
    idf = np.log1p((stats.documents - df + 0.5) / (df + 0.5))
    norm = k1 * ((1 - b) + b * lengths[rows] / stats.average_length)
    data = (idf[token_ids] * (tf * (k1 + 1) / (tf + norm))).astype(np.float32)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(token_ids, minlength=len(doc_freq)))]).astype(np.int64)
    return {"data": data, "indices": rows.astype(np.int32), "indptr": indptr, "num_docs": len(offsets) - 1}


def save_retriever(folder: Path, weights: dict[str, Any], vocab: dict[str, int], k1: float, b: float) -> None:
    """Write ``weights`` as a bm25s index (loadable with ``bm25s.BM25.load``)."""
    retriever = bm25s_module().BM25(k1=k1, b=b)
    retriever.scores = weights
    retriever.vocab_dict = vocab
    retriever.nonoccurrence_array = None
    retriever.save(folder, show_progress=False)
