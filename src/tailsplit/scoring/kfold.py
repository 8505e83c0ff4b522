"""The paper's ``ll_split`` scorer: k-fold fine-tuned likelihoods.

For each fold, a copy of the base LM is fine-tuned on the other folds
(:mod:`tailsplit.scoring.finetune`) and scores the held-out fold through the ordinary cached
driver. The fine-tuned model's identity is the base model's plus the fine-tuning settings
and the hash of its training requests, so its scores are cached like any other: a rerun, or
a run killed after some folds, skips every fold whose scores are already cached — without
fine-tuning it again.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from tailsplit.cache import ScoreCache
from tailsplit.fingerprint import sha256_text
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.driver import score_requests
from tailsplit.scoring.finetune import FinetuneConfig, TrainingCurve, finetune
from tailsplit.scoring.hf import HFScorer


def trained_identity(base: HFScorer) -> dict[str, Any]:
    """The base model's identity as fine-tuning sees it: fine-tuned copies are always
    transformers' models, whichever implementation scores the base model."""
    return {k: v for k, v in base.identity().items() if k not in ("implementation", "torch_compile")}


class FinetunedScorer(HFScorer):
    """An HFScorer whose model is ``base`` fine-tuned on ``train`` — trained only when a
    batch actually needs scoring."""

    def __init__(
        self, base: HFScorer, train: list[ScoreRequest], train_sha256: str, config: FinetuneConfig, progress: Any = None
    ) -> None:
        super().__init__(**base.constructor_params())
        self._source, self._folder, self._tokenizer = base.source, base.folder, base.tokenizer
        self.base, self.train, self.train_sha256, self.config = base, train, train_sha256, config
        self.progress = progress
        self.curve: TrainingCurve | None = None

    def identity(self) -> dict[str, Any]:
        return {**trained_identity(self.base), "finetuned_on": self.train_sha256, "finetune": self.config.as_dict()}

    @property
    def model(self) -> Any:
        if self._model is None:
            self._model, self.curve = finetune(
                self,
                self.base.transformers_model(),
                self.planner().encode(self.train),
                self.config,
                progress=self.progress,
            )
        return self._model


class LMFoldScorer:
    """Cross-fitting adapter for :func:`tailsplit.scoring.crossfit.cross_score`."""

    def __init__(self, base: HFScorer, config: FinetuneConfig, cache: ScoreCache | None, progress: Any = None) -> None:
        self.base, self.config, self.cache, self.progress = base, config, cache, progress

    def identity(self) -> dict[str, Any]:
        return {**trained_identity(self.base), "finetune": self.config.as_dict()}

    def fit_and_score(
        self, train: list[ScoreRequest], heldout: list[ScoreRequest], fold: int, train_sha256: str
    ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        progress = None if self.progress is None else (lambda step, total: self.progress(fold, step, total))
        scorer = FinetunedScorer(self.base, train, train_sha256, self.config, progress)
        scored = score_requests(heldout, scorer, self.cache)
        total, counts, report = scored.logprob_sum, scored.n_tokens, scored.report
        details: dict[str, Any] = {"scoring": report.as_dict()}
        note_key = "training-curve:" + sha256_text(json.dumps(scorer.identity(), sort_keys=True))
        if scorer.curve is not None:
            details["training"] = scorer.curve.as_dict()
            if self.cache is not None:
                self.cache.put_note(note_key, details["training"])
        else:  # every score came from the cache: report the curve recorded when it was trained
            recorded = None if self.cache is None else self.cache.get_note(note_key)
            details["training"] = None if recorded is None else {**recorded, "from_cache": True}
        return total, counts, details
