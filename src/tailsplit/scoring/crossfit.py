"""Cross-fitted scoring: each example is scored by a model fitted without it.

The data is cut into ``k`` folds at random (from a seed); a model is fitted on ``k − 1``
folds and scores the held-out one. Examples connected by an equal query text *or* an equal
group share a fold (:func:`fold_units`: connected components over both), so a text can never
be scored by a model that trained on it, groups or not. ``match="normalized"`` also joins
queries equal after case, punctuation and whitespace are ignored.
Any scorer that can be *fitted* plugs in through :class:`FoldModelFactory`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from tailsplit.cache import ScoreCache, default_cache_dir
from tailsplit.choices import FOLD_MATCHES
from tailsplit.core import ScoreTable
from tailsplit.errors import ConfigError
from tailsplit.fingerprint import sha256_text
from tailsplit.progress import ProgressBar
from tailsplit.registry import SCORERS
from tailsplit.rng import FOLDS, seeded_rng
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.driver import build_requests, score_examples
from tailsplit.scoring.finetune import describe_recipe, finetune_recipe
from tailsplit.scoring.kfold import LMFoldScorer
from tailsplit.scoring.ngram import NgramFoldScorer
from tailsplit.words import normalized_queries

if TYPE_CHECKING:
    from tailsplit.config import ScoringConfig
    from tailsplit.core import Dataset
    from tailsplit.prompts import PromptTemplate


def fold_units(queries: Sequence[str], groups: Sequence[str] | None = None, *, match: str = "exact") -> list[str]:
    """A key per row such that rows joined by an equal query or an equal group (transitively)
    share a key: the connected components of the "same text or same group" graph.

    The key names the component's first row, so without groups the keys number units in the
    same order as the distinct queries themselves.

    >>> fold_units(["q1", "q2", "q1", "q3"], ["a", "b", "b", "c"])
    ['u0', 'u0', 'u0', 'u3']
    """
    if match not in FOLD_MATCHES:
        raise ConfigError(f"--fold-match={match!r} is unknown; use one of {list(FOLD_MATCHES)}")
    n = len(queries)
    texts = normalized_queries(queries) if match == "normalized" else list(queries)
    columns = [_codes(texts)] + ([] if groups is None else [_codes(groups)])
    label = np.arange(n, dtype=np.int64)
    while True:
        before = label
        for codes in columns:
            lowest = np.full(int(codes.max()) + 1 if n else 0, n, dtype=np.int64)
            np.minimum.at(lowest, codes, label)
            label = lowest[codes]
        label = label[label]  # pointer jumping: a row's label's label is in the same component
        if np.array_equal(label, before):
            return [f"u{v}" for v in label.tolist()]


def _codes(values: Sequence[str]) -> np.ndarray:
    index: dict[str, int] = {}
    return np.array([index.setdefault(v, len(index)) for v in values], dtype=np.int64)


def assign_folds(keys: Sequence[str], k: int, seed: int) -> np.ndarray:
    """Fold number per row; rows with equal keys share a fold; fold sizes differ by ≤ 1 unit.

    >>> assign_folds(["a", "b", "a", "c"], 2, seed=0).tolist()[0] == assign_folds(["a", "b", "a", "c"], 2, seed=0).tolist()[2]
    True
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise ConfigError(f"--folds={k!r} must be a whole number ≥ 2")
    unit_of_key: dict[str, int] = {}
    units = np.array([unit_of_key.setdefault(key, len(unit_of_key)) for key in keys], dtype=np.int64)
    if len(unit_of_key) < k:
        raise ConfigError(
            f"--folds={k} but the data has only {len(unit_of_key)} distinct examples or groups; use fewer folds"
        )
    order = seeded_rng(seed, FOLDS).permutation(len(unit_of_key))
    fold_of_unit = np.empty(len(unit_of_key), dtype=np.int64)
    fold_of_unit[order] = np.arange(len(unit_of_key)) % k
    return fold_of_unit[units]


@dataclass
class FoldReport:
    """What happened in one fold (for the manifest)."""

    fold: int
    n_train: int
    n_scored: int
    train_sha256: str
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class FoldScorer(Protocol):
    """Fits on training requests, then scores held-out ones."""

    def identity(self) -> dict[str, Any]:
        """What changes the scores, besides the training data."""

    def fit_and_score(
        self, train: list[ScoreRequest], heldout: list[ScoreRequest], fold: int, train_sha256: str
    ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """(logprob_sum, n_tokens, details) for ``heldout``."""


def cross_score(
    requests: Sequence[ScoreRequest], fold_keys: Sequence[str], scorer: FoldScorer, *, k: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[FoldReport]]:
    """(logprob_sum, n_tokens, fold per row, reports): every row scored by the model of its fold."""
    folds = assign_folds(fold_keys, k, seed)
    total = np.full(len(requests), np.nan)
    counts = np.zeros(len(requests), dtype=np.int64)
    reports = []
    for fold in range(k):
        train_idx, heldout_idx = np.flatnonzero(folds != fold), np.flatnonzero(folds == fold)
        train = [requests[i] for i in train_idx.tolist()]
        train_sha = sha256_text(*(f"{r.prompt}\x1e{r.query}" for r in train))
        started = time.perf_counter()
        scores, n_tokens, details = scorer.fit_and_score(
            train, [requests[i] for i in heldout_idx.tolist()], fold, train_sha
        )
        total[heldout_idx], counts[heldout_idx] = scores, n_tokens
        reports.append(
            FoldReport(
                fold=fold,
                n_train=len(train_idx),
                n_scored=len(heldout_idx),
                train_sha256=train_sha,
                seconds=round(time.perf_counter() - started, 2),
                details=details,
            )
        )
    return total, counts, folds, reports


def cross_score_dataset(
    dataset: Dataset,
    template: PromptTemplate,
    config: ScoringConfig,
    progress: bool = False,
    *,
    base: Any = None,
) -> tuple[ScoreTable, dict[str, Any], dict[str, Any]]:
    """Cross-fitted scores of a dataset under a :class:`~tailsplit.config.ScoringConfig`
    (``method`` "ngram" or "kfold"): every example scored by a model fitted on the other
    folds. Returns (scores, run report, score-file metadata); a k-fold run also reports its
    recipe and the Pearson r of its scores with the prompted ones. ``base``: the scorer k-fold
    fine-tunes, when built already (else built from ``config``)."""
    started = time.perf_counter()
    requests = build_requests(dataset, template)
    keys = fold_units([r.query for r in requests], dataset.groups, match=config.fold_match)
    cache = ScoreCache(config.cache_dir or default_cache_dir()) if config.use_cache else None
    extra: dict[str, Any] = {}
    try:
        if config.method == "ngram":
            scorer: Any = NgramFoldScorer(order=config.ngram_order)
            total, counts, folds, reports = cross_score(requests, keys, scorer, k=config.folds, seed=config.fold_seed)
        else:
            if base is None:
                base = SCORERS.create(config.backend, **config.scorer_params(SCORERS.get(config.backend)))
            scorer, (total, counts, folds, reports), extra = _kfold_scores(
                dataset, template, config, (requests, keys), base, cache, progress
            )
    finally:
        if cache is not None:
            cache.close()
    scores = ScoreTable(
        ids=dataset.ids, logprob_sum=total, n_tokens=counts, truncated=np.zeros(len(dataset), dtype=bool)
    )
    report = {"n_requests": len(requests), "seconds": round(time.perf_counter() - started, 3), **extra}
    meta = {
        "method": config.method,
        "model": scorer.identity(),
        "template": template.describe(),
        "folds": {
            "k": config.folds,
            "seed": config.fold_seed,
            "match": config.fold_match,
            "units": len(set(keys)),
            "reports": [r.as_dict() for r in reports],
            "sizes": np.bincount(folds, minlength=config.folds).tolist(),
            **extra,
        },
    }
    return scores, report, meta


def _kfold_scores(
    dataset: Dataset,
    template: PromptTemplate,
    config: ScoringConfig,
    units: tuple[list[ScoreRequest], list[str]],
    base: Any,
    cache: ScoreCache | None,
    progress: bool,
) -> tuple[Any, tuple[np.ndarray, np.ndarray, np.ndarray, list[Any]], dict[str, Any]]:
    """k-fold fine-tuned scores of the requests, folded by their keys (the scorer,
    ``cross_score``'s result), and what the run reports beyond them: the recipe and the
    Pearson r with ``base``'s prompted scores."""
    requests, keys = units
    finetune = finetune_recipe(config)
    with ProgressBar(progress, config.folds * finetune.max_steps, "fine-tuning", "steps") as advance:
        scorer = LMFoldScorer(base, finetune, cache, progress=lambda fold, step, total: advance(1))
        result = cross_score(requests, keys, scorer, k=config.folds, seed=config.fold_seed)
    prompted, _ = score_examples(dataset, template, base, cache, progress=progress)
    extra = {
        "recipe": describe_recipe(config.finetune_preset, scorer.config),
        "pearson_r_with_prompted": round(float(np.corrcoef(prompted.logprob_sum, result[0])[0, 1]), 4),
    }
    return scorer, result, extra
