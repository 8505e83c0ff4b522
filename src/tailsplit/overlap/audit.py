"""Audit a test set against a corpus index: BM25 overlap under structured queries, n-gram
overlap, a partition into overlapping and clean subsets, and accuracy on each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError
from tailsplit.overlap.index import OverlapIndex
from tailsplit.overlap.ngrams import count_in, ngram_hashes
from tailsplit.overlap.query import StructuredQuery, phrases_in_order
from tailsplit.overlap.tokens import overlap_tokens
from tailsplit.splits.selection import seeded_rng


@dataclass
class ExampleAudit:
    """One test example: best BM25 score among entries passing its filter, the top matches
    (entry id, score, snippet), and per n how many of its n-grams occur in the corpus."""

    id: str
    best_score: float
    matches: list[dict[str, Any]] = field(default_factory=list)
    ngram_hits: dict[int, int] = field(default_factory=dict)
    ngram_total: dict[int, int] = field(default_factory=dict)
    passing_entries: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "best_bm25": round(self.best_score, 4), "passing_entries": self.passing_entries,
                "ngram_hits": {str(n): v for n, v in self.ngram_hits.items()},
                "ngram_total": {str(n): v for n, v in self.ngram_total.items()}, "matches": self.matches}


def audit_example(index: OverlapIndex, example_id: str, text: str, query: StructuredQuery, k: int,
                  snippet_chars: int = 200) -> ExampleAudit:
    terms = [t for t in query.terms() if t in index.vocab]
    scores = np.asarray(index.retriever.get_scores(terms), dtype=np.float64) if terms else np.zeros(len(index))
    allowed = _passing_rows(index, query) if query.required else None
    if allowed is not None:
        masked = np.full(len(index), -np.inf)
        masked[allowed] = scores[allowed]
        scores = masked
    top = _top_k(scores, k)
    top = [int(r) for r in top if np.isfinite(scores[r]) and scores[r] > 0]
    matches = [{"entry": entry_id, "bm25": round(float(scores[r]), 4), "snippet": entry_text[:snippet_chars]}
               for r, (entry_id, entry_text) in zip(top, index.entries(top))]
    audit = ExampleAudit(example_id, float(scores[top[0]]) if top else 0.0, matches,
                         passing_entries=len(index) if allowed is None else len(allowed))
    _add_ngrams(index, audit, text)
    return audit


def _top_k(scores: np.ndarray, k: int) -> np.ndarray:
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-scores, k - 1)[:k]
    return part[np.lexsort((part, -scores[part]))]


def _passing_rows(index: OverlapIndex, query: StructuredQuery) -> np.ndarray:
    """Rows holding every required word, then checked for order and window."""
    phrases = [index.token_ids(list(p)) for p in query.required]
    if any((p < 0).any() for p in phrases):
        return np.zeros(0, dtype=np.int64)        # a required word the corpus never has
    postings = index.retriever.scores
    candidates: np.ndarray | None = None
    for token in sorted({int(t) for p in phrases for t in p}):
        rows = np.asarray(postings["indices"][postings["indptr"][token]:postings["indptr"][token + 1]])
        candidates = rows if candidates is None else np.intersect1d(candidates, rows, assume_unique=True)
        if len(candidates) == 0:
            break
    if candidates is None:
        return np.zeros(0, dtype=np.int64)
    keep = [r for r in candidates if phrases_in_order(index.entry_tokens(int(r)), phrases, query.window)]
    return np.asarray(keep, dtype=np.int64)


def partition_overlap(best_scores: np.ndarray, *, threshold: float | None = None,
                      top_quantile: float | None = None) -> tuple[np.ndarray, float]:
    """(overlap mask, threshold used): scores ≥ ``threshold``, or the top ``top_quantile``
    share of the examples by score (ties at the cut go to overlap)."""
    if (threshold is None) == (top_quantile is None):
        raise ConfigError("give exactly one of threshold (a BM25 score) and top_quantile (a share like 0.25)")
    if top_quantile is not None:
        if not 0 < top_quantile < 1:
            raise ConfigError(f"top_quantile={top_quantile!r} is not a share in (0, 1); e.g. 0.25")
        threshold = float(np.quantile(best_scores, 1 - top_quantile, method="higher"))
        if threshold <= 0:   # an example with no passing entry (score 0) never overlaps
            positive = best_scores[best_scores > 0]
            threshold = float(positive.min()) if len(positive) else float("inf")
    return best_scores >= threshold, float(threshold)


@dataclass(frozen=True)
class SubsetAccuracy:
    subset: str
    n: int
    accuracy: float
    ci_low: float
    ci_high: float

    def as_dict(self) -> dict[str, Any]:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


def bootstrap_accuracy(correct: np.ndarray, subset: str, *, resamples: int = 2000, seed: int = 0) -> SubsetAccuracy:
    """Accuracy with a percentile bootstrap 95% interval."""
    correct = np.asarray(correct, dtype=np.float64)
    if len(correct) == 0:
        return SubsetAccuracy(subset, 0, float("nan"), float("nan"), float("nan"))
    rng = seeded_rng(seed, 11)
    means = correct[rng.integers(0, len(correct), size=(resamples, len(correct)))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return SubsetAccuracy(subset, len(correct), float(correct.mean()), float(low), float(high))


def subset_accuracies(correct: np.ndarray, overlap: np.ndarray, seed: int = 0) -> list[SubsetAccuracy]:
    return [bootstrap_accuracy(correct, "all", seed=seed), bootstrap_accuracy(correct[overlap], "overlap", seed=seed),
            bootstrap_accuracy(correct[~overlap], "clean", seed=seed)]


def audit_all(index: OverlapIndex, ids: Sequence[str], texts: Sequence[str], queries: Sequence[StructuredQuery],
              k: int = 5, snippet_chars: int = 200) -> list[ExampleAudit]:
    """Every example's audit. Queries without required phrases go to bm25s in one batch;
    filtered ones are scored one by one over the entries that pass their filter."""
    audits: list[ExampleAudit | None] = [None] * len(ids)
    plain = [i for i, q in enumerate(queries) if not q.required and any(t in index.vocab for t in q.terms())]
    if plain:
        terms = [[t for t in queries[i].terms() if t in index.vocab] for i in plain]
        rows, scores = index.retriever.retrieve(terms, k=min(k, len(index)), show_progress=False, n_threads=0)
        for slot, i in enumerate(plain):
            kept = [(int(r), float(s)) for r, s in zip(rows[slot], scores[slot]) if s > 0]
            entries = index.entries([r for r, _ in kept])
            matches = [{"entry": e_id, "bm25": round(s, 4), "snippet": text[:snippet_chars]}
                       for (r, s), (e_id, text) in zip(kept, entries)]
            audits[i] = ExampleAudit(ids[i], kept[0][1] if kept else 0.0, matches, passing_entries=len(index))
            _add_ngrams(index, audits[i], texts[i])
    for i, (example_id, text, query) in enumerate(zip(ids, texts, queries)):
        if audits[i] is None:
            audits[i] = audit_example(index, example_id, text, query, k, snippet_chars)
    return audits  # type: ignore[return-value]


def _add_ngrams(index: OverlapIndex, audit: ExampleAudit, text: str) -> None:
    ids = index.token_ids(overlap_tokens(text))
    for n in index.ngram_orders:
        audit.ngram_total[n] = max(len(ids) - n + 1, 0)
        audit.ngram_hits[n] = count_in(ngram_hashes(ids, n), index.ngrams[n])
