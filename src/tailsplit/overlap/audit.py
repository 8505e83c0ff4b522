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
from tailsplit.overlap.matches import MatchProfile
from tailsplit.overlap.ngrams import members, ngram_hashes, word_hashes
from tailsplit.overlap.query import StructuredQuery, phrases_in_order
from tailsplit.overlap.tokens import overlap_tokens
from tailsplit.rng import AUDIT_BOOTSTRAP, seeded_rng


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
    verbatim: bool = False
    profile: MatchProfile | None = None  # against a suffix-array index: longest match, coverage

    @property
    def copied(self) -> bool:
        """Whether the corpus holds the text itself or one of its n-grams: overlap, whatever BM25 says."""
        return self.verbatim or any(hits > 0 for hits in self.ngram_hits.values())

    def as_dict(self) -> dict[str, Any]:
        counts = {
            "ngram_hits": {str(n): v for n, v in self.ngram_hits.items()},
            "ngram_total": {str(n): v for n, v in self.ngram_total.items()},
        }
        if self.profile is not None:
            return {"id": self.id, "verbatim": self.verbatim, **self.profile.as_dict(), **counts}
        return {
            "id": self.id,
            "best_bm25": round(self.best_score, 4),
            "verbatim": self.verbatim,
            "passing_entries": self.passing_entries,
            **counts,
            "matches": self.matches,
        }


@dataclass
class PartAnswer:
    """One example's answer from one index part: its best rows there (corpus-wide row
    numbers), their scores and entries, how many entries passed the filter, and which of the
    example's n-gram windows the part holds."""

    rows: np.ndarray
    scores: np.ndarray
    entries: list[tuple[str, str]]
    passing: int
    ngram_found: dict[int, np.ndarray]
    verbatim: bool = False


def answer_queries(
    index: OverlapIndex,
    texts: Sequence[str],
    queries: Sequence[StructuredQuery],
    k: int,
    *,
    row_offset: int = 0,
    snippet_chars: int = 200,
) -> list[PartAnswer]:
    """Each example's top ``k`` among the entries of ``index`` that pass its filter (ties by row)."""
    return [_answer(index, text, query, k, row_offset, snippet_chars) for text, query in zip(texts, queries)]


def _answer(
    index: OverlapIndex, text: str, query: StructuredQuery, k: int, row_offset: int, snippet_chars: int
) -> PartAnswer:
    terms = [t for t in query.terms() if t in index.vocab]
    scores = np.asarray(index.retriever.get_scores(terms)) if terms else np.zeros(len(index), np.float32)
    allowed = _passing_rows(index, query) if query.required else None
    if allowed is not None:
        masked = np.full(len(index), -np.inf, dtype=scores.dtype)
        masked[allowed] = scores[allowed]
        scores = masked
    top = _top_k(scores, k)
    entries = [(entry_id, entry_text[:snippet_chars]) for entry_id, entry_text in index.entries(top)]
    words = overlap_tokens(text)
    values = word_hashes(words)
    found = {n: members(ngram_hashes(values, n), index.ngrams[n]) for n in index.ngram_orders}
    passing = len(index) if allowed is None else len(allowed)
    return PartAnswer(top + row_offset, scores[top], entries, passing, found, holds_verbatim(index, words))


def holds_verbatim(index: OverlapIndex, words: Sequence[str]) -> bool:
    """Whether some corpus entry holds ``words`` as one contiguous run (the test text copied
    verbatim, up to the audit's tokenisation): the entries holding every word (postings
    intersected, rarest word first), then each checked for the run."""
    ids = index.token_ids(list(words))
    if len(ids) == 0 or (ids < 0).any():
        return False
    postings = index.retriever.scores
    indptr, indices = postings["indptr"], postings["indices"]
    candidates: np.ndarray | None = None
    for token in sorted({int(t) for t in ids}, key=lambda t: int(indptr[t + 1] - indptr[t])):
        rows = np.asarray(indices[indptr[token] : indptr[token + 1]])
        candidates = rows if candidates is None else np.intersect1d(candidates, rows, assume_unique=True)
        if len(candidates) == 0:
            return False
    assert candidates is not None  # ids is not empty
    return any(_holds_run(index.entry_tokens(int(row)), ids) for row in candidates)


def _holds_run(tokens: np.ndarray, run: np.ndarray) -> bool:
    """Whether ``run`` occurs contiguously in ``tokens``.

    >>> _holds_run(np.array([1, 2, 3, 4]), np.array([2, 3])), _holds_run(np.array([1, 2, 3]), np.array([3, 2]))
    (True, False)
    """
    if len(run) > len(tokens):
        return False
    windows = np.lib.stride_tricks.sliding_window_view(np.asarray(tokens), len(run))
    return bool((windows == run).all(axis=1).any())


def merge_answers(example_id: str, answers: Sequence[PartAnswer], k: int) -> ExampleAudit:
    """The example's audit over all parts: the best ``k`` of their answers by score, ties by
    corpus row; an n-gram counts when any part holds it."""
    rows = np.concatenate([a.rows for a in answers])
    scores = np.concatenate([a.scores for a in answers])
    entries = [e for a in answers for e in a.entries]
    order = np.lexsort((rows, -scores))[:k]
    matches = [{"entry": entries[i][0], "bm25": round(float(scores[i]), 4), "snippet": entries[i][1]} for i in order]
    audit = ExampleAudit(
        example_id,
        float(scores[order[0]]) if len(order) else 0.0,
        matches,
        passing_entries=sum(a.passing for a in answers),
        verbatim=any(a.verbatim for a in answers),
    )
    for n in answers[0].ngram_found:
        found = np.logical_or.reduce([a.ngram_found[n] for a in answers])
        audit.ngram_total[n], audit.ngram_hits[n] = len(found), int(found.sum())
    return audit


def audit_example(
    index: OverlapIndex, example_id: str, text: str, query: StructuredQuery, k: int, snippet_chars: int = 200
) -> ExampleAudit:
    return merge_answers(example_id, [_answer(index, text, query, k, 0, snippet_chars)], k)


def _top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Rows of the ``k`` highest positive scores, best first; among equal scores the lower
    row first (also at the cut, so the choice never depends on how the corpus was sharded).
    Only rows scoring above zero compete: a query's words touch few of a large corpus's rows."""
    candidates = np.flatnonzero(scores > 0)
    values = scores[candidates]
    k = min(k, len(values))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    kth = np.partition(values, len(values) - k)[len(values) - k]
    above = np.flatnonzero(values > kth)
    top = candidates[np.concatenate([above, np.flatnonzero(values == kth)[: k - len(above)]])]
    return top[np.lexsort((top, -scores[top]))]


def _passing_rows(index: OverlapIndex, query: StructuredQuery) -> np.ndarray:
    """Rows holding every required word, then checked for order and window."""
    phrases = [index.token_ids(list(p)) for p in query.required]
    if any((p < 0).any() for p in phrases):
        return np.zeros(0, dtype=np.int64)  # a required word the corpus never has
    postings = index.retriever.scores
    candidates: np.ndarray | None = None
    for token in sorted({int(t) for p in phrases for t in p}):
        rows = np.asarray(postings["indices"][postings["indptr"][token] : postings["indptr"][token + 1]])
        candidates = rows if candidates is None else np.intersect1d(candidates, rows, assume_unique=True)
        if len(candidates) == 0:
            break
    if candidates is None:
        return np.zeros(0, dtype=np.int64)
    keep = [r for r in candidates if phrases_in_order(index.entry_tokens(int(r)), phrases, query.window)]
    return np.asarray(keep, dtype=np.int64)


def partition_overlap(
    best_scores: np.ndarray, *, threshold: float | None = None, top_quantile: float | None = None
) -> tuple[np.ndarray, float]:
    """(overlap mask, threshold used): scores ≥ ``threshold``, or the top ``top_quantile``
    share of the examples by score (ties at the cut go to overlap)."""
    if (threshold is None) == (top_quantile is None):
        raise ConfigError("give exactly one of threshold (a BM25 score) and top_quantile (a share like 0.25)")
    if top_quantile is not None:
        if not 0 < top_quantile < 1:
            raise ConfigError(f"--top-quantile={top_quantile!r} is not a share in (0, 1); e.g. 0.25")
        threshold = float(np.quantile(best_scores, 1 - top_quantile, method="higher"))
        if threshold <= 0:  # an example with no passing entry (score 0) never overlaps
            positive = best_scores[best_scores > 0]
            threshold = float(positive.min()) if len(positive) else float("inf")
    assert threshold is not None  # given, or set from the quantile above
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
    rng = seeded_rng(seed, AUDIT_BOOTSTRAP)
    means = correct[rng.integers(0, len(correct), size=(resamples, len(correct)))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return SubsetAccuracy(subset, len(correct), float(correct.mean()), float(low), float(high))


def subset_accuracies(correct: np.ndarray, overlap: np.ndarray, seed: int = 0) -> list[SubsetAccuracy]:
    return [
        bootstrap_accuracy(correct, "all", seed=seed),
        bootstrap_accuracy(correct[overlap], "overlap", seed=seed),
        bootstrap_accuracy(correct[~overlap], "clean", seed=seed),
    ]


def audit_all(
    index: OverlapIndex,
    ids: Sequence[str],
    texts: Sequence[str],
    queries: Sequence[StructuredQuery],
    k: int = 5,
    snippet_chars: int = 200,
) -> list[ExampleAudit]:
    """Every example's audit against one index."""
    answers = answer_queries(index, texts, queries, k, snippet_chars=snippet_chars)
    return [merge_answers(example_id, [answer], k) for example_id, answer in zip(ids, answers)]
