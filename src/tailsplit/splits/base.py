"""What every splitter shares: its inputs, its size rules, and its protocol.

A splitter is configured entirely by keyword arguments (stored unchanged, shown by ``repr``)
and maps :class:`SplitInputs` — score and feature *columns*, never raw text — to a
:class:`~tailsplit.core.SplitIndices`. Splitters never compute scores.
"""

from __future__ import annotations

import inspect
import math
import numbers
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.config import SplitConfig
from tailsplit.config.declare import check_values, flag_of
from tailsplit.core import Dataset, ScoreTable, SplitIndices
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.programs.sets import ProgramFeatures


@dataclass(frozen=True)
class SplitInputs:
    """Columns a splitter may use, one row per example.

    ``logprob_sum``/``n_tokens`` are absent for splitters that need no scores; ``labels``,
    ``groups`` and ``programs`` are absent unless the dataset maps those fields;
    ``word_lengths`` always exists.
    """

    n: int
    word_lengths: np.ndarray
    logprob_sum: np.ndarray | None = None
    n_tokens: np.ndarray | None = None
    labels: np.ndarray | None = None
    groups: np.ndarray | None = None
    programs: ProgramFeatures | None = None
    features: np.ndarray | None = None  # (n, d) feature vectors, for splitters with ``needs_features``

    @staticmethod
    def from_dataset(
        dataset: Dataset, scores: ScoreTable | None, word_lengths: np.ndarray, programs: ProgramFeatures | None = None
    ) -> SplitInputs:
        return SplitInputs(
            n=len(dataset),
            word_lengths=np.asarray(word_lengths),
            logprob_sum=None if scores is None else np.asarray(scores.logprob_sum, dtype=np.float64),
            n_tokens=None
            if scores is None or not scores.has_token_counts
            else np.asarray(scores.n_tokens, dtype=np.int64),
            labels=None if dataset.labels is None else np.asarray(dataset.labels, dtype=object),
            groups=None if dataset.groups is None else np.asarray(dataset.groups, dtype=object),
            programs=programs,
        )

    def require_programs(self, purpose: str) -> ProgramFeatures:
        if self.programs is None:
            raise ConfigError(
                f"{purpose} needs programs; name the program field with --program (e.g. --program 'query' for Spider)"
            )
        return self.programs


class Splitter(ABC):
    """Base class: keyword-only configuration, ``split(inputs) -> SplitIndices``."""

    name: str = ""
    needs_scores: bool = False
    needs_features: bool = False  # feature vectors (sentence embeddings) in ``SplitInputs.features``

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A splitter's messages name its keyword arguments (``dev_size=``) when Python calls
        it, and the flags (``--dev-size=``) when the command line does (:func:`keyword_spelling`)."""
        super().__init_subclass__(**kwargs)
        for name in ("__init__", "split"):
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "__wrapped__", None):
                setattr(cls, name, keyword_spelling(method))

    @property
    def needs_programs(self) -> bool:
        return bool(getattr(self, "atom_constraint", False))

    @abstractmethod
    def split(self, inputs: SplitInputs) -> SplitIndices:
        """Train/dev/test indices: disjoint, covering every row once, deterministic."""

    def get_params(self) -> dict[str, Any]:
        """The constructor arguments, as given (for manifests and ``repr``)."""
        names = [p for p in inspect.signature(type(self).__init__).parameters if p != "self"]
        return {name: getattr(self, name) for name in names}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


def check_params(splitter: Splitter) -> None:
    """The splitter's parameters checked by the rules their options declare on
    :class:`~tailsplit.config.SplitConfig` — type, range, allowed values, a size's form — so a
    parameter has one rule whichever way it is set (a recipe, the command line, a splitter
    built in Python).

    >>> from tailsplit.splits import RandomSplitter
    >>> RandomSplitter(seed=-1)
    Traceback (most recent call last):
    tailsplit.errors.ConfigError: seed=-1 must be at least 0; give a value at least 0
    """
    check_values(SplitConfig(splitter=splitter.name, **splitter.get_params()), effects=True)


def resolve_size(value: float | int, n: int, param: str) -> int:
    """A fraction in (0, 1) of ``n`` (rounded half up) or a count; returns a count.

    >>> resolve_size(0.1, 19666, "test_size"), resolve_size(1034, 8034, "dev_size")
    (1967, 1034)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ConfigError(f"{flag_of(param)}={value!r} is not a number; give a fraction like 0.1 or a count like 1000")
    if isinstance(value, numbers.Integral):
        if value < 0:
            raise ConfigError(f"{flag_of(param)}={value!r} is negative; give a count of 0 or more")
        return int(value)
    if not math.isfinite(value) or not 0.0 <= value < 1.0:
        raise ConfigError(
            f"{flag_of(param)}={value!r} is not a fraction in [0, 1); give a fraction like 0.1, or a whole number "
            "for a count"
        )
    return int(math.floor(value * n + 0.5))


def resolve_sizes(n: int, dev_size: float | int, test_size: float | int) -> tuple[int, int]:
    """Dev and test counts for ``n`` examples; at least one evaluation and one training example."""
    n_dev = resolve_size(dev_size, n, "dev_size")
    n_test = resolve_size(test_size, n, "test_size")
    if n_dev + n_test == 0:
        raise ConfigError(
            f"--dev-size={dev_size!r} and --test-size={test_size!r} leave no evaluation examples out of {n}; ask for more"
        )
    if n_dev + n_test >= n:
        raise ConfigError(
            f"--dev-size={dev_size!r} and --test-size={test_size!r} ask for "
            f"{n_dev + n_test} evaluation examples but there are only {n}; "
            "ask for fewer so that training keeps at least one"
        )
    return n_dev, n_test
