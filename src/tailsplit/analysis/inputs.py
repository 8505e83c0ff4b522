"""What a split's analysis reads: one column per role, a row per example (made from a run
in memory, or from a split folder on disk: :mod:`tailsplit.analysis.split_dir`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from tailsplit.core import SPLIT_PARTS, SplitIndices
from tailsplit.programs.sets import ProgramFeatures


@dataclass(frozen=True)
class AnalysisInputs:
    """One row per example; ``parts`` holds ``"train"``/``"dev"``/``"test"``."""

    name: str
    ids: tuple[str, ...]
    texts: tuple[str, ...]
    parts: np.ndarray
    labels: tuple[str, ...] | None = None
    logprob_sum: np.ndarray | None = None
    n_tokens: np.ndarray | None = None
    programs: ProgramFeatures | None = None
    balance_labels: bool = False
    text_kind: str = "query"  # what ``texts`` hold: "query", or "pair" (context + query)
    queries: tuple[str, ...] | None = None  # the query texts (leakage) [default: ``texts`` of a query analysis]
    contexts: tuple[str, ...] | None = None  # the contexts of pairs (pair leakage)
    agreement: np.ndarray | None = None  # (n, 2): annotator agreement with gold, label entropy; NaN if unannotated
    agreement_field: str | None = None
    kind: str | None = None  # how the split was made (``length``, ``likelihood (prompted)``): for captions
    membership: Mapping[str, np.ndarray] | None = None  # --membership-k's scores per example (NaN: none)
    corpus: Mapping[str, np.ndarray] | None = None  # analyze --infini-gram: each query against the index

    @property
    def eval_mask(self) -> np.ndarray:
        return self.parts != "train"

    def split_indices(self) -> SplitIndices:
        train, dev, test = (np.flatnonzero(self.parts == p) for p in SPLIT_PARTS)
        return SplitIndices(train, dev, test)
