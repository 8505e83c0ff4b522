"""tailsplit's splitters as scikit-learn cross-validators.

Each class follows scikit-learn's splitter protocol — ``split(X, y=None, groups=None)`` yields
``(train_idx, test_idx)``, ``get_n_splits()`` is 1, ``get_params``/``set_params``, ``clone`` —
so a Likelihood Split can be the ``cv`` of ``cross_validate`` or ``GridSearchCV``::

    >>> from tailsplit.model_selection import LikelihoodSplit
    >>> cv = LikelihoodSplit(scores="logprob_sum", test_size=0.1, dev_size=0.1)
    >>> cross_validate(model, df[["premise", "hypothesis"]], df["label"], cv=cv)  # doctest: +SKIP

``test_idx`` is the dev part by default (``part="dev"``), for every scikit-learn helper alike —
``cross_validate``, the searches (``GridSearchCV``, ``RandomizedSearchCV``, the halving ones),
``validation_curve``, ``learning_curve`` — so no helper that picks a model by its validation
scores ever sees the test part; ``part="test"`` (or ``"eval"``, dev + test) is for the final
score, once, at the end, and never for a search. (The default is the same whoever calls: a
cross-validator cannot know what its caller does with the split without reading the call stack,
which it does not.) Columns the splitter reads come as arrays, or as column names of a DataFrame ``X``:
``scores`` (a log-probability per example: lower = rarer), ``n_tokens`` (for
``rank="logprob_mean"``), ``lengths`` (word counts) or ``text`` (a text column whose words
tailsplit counts) for length control and length splits, ``programs`` (+ ``program_kind``) for
template and TMCD splits. ``y`` gives the labels for ``balance_labels``; ``groups`` keeps
equal values in one part. The classes are built from tailsplit's registry of splitters, so
their options are the splitters' own (``LikelihoodSplit().get_params()`` lists them).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import numpy as np

from tailsplit.core import SplitIndices
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.io.examples import label_to_str
from tailsplit.programs.sets import extract_program_features
from tailsplit.registry import EXTRACTORS
from tailsplit.splits import SPLITTERS, SplitInputs, Splitter
from tailsplit.words import word_lengths

PARTS = ("dev", "test", "eval", "auto")  # auto: dev, as it meant for a search (kept for older code)
# Parameters that bind data to the splitter (the splitter's own options come from its signature).
DATA_PARAMS: dict[str, Any] = {
    "scores": None,
    "n_tokens": None,
    "lengths": None,
    "text": None,
    "programs": None,
    "program_kind": "sql",
    "part": "dev",
}


class ColumnArray(np.ndarray):
    """A data column bound to a cross-validator (``scores=`` …), shown by its size and range
    (``get_params()`` and the repr stay readable); an ordinary array otherwise. A column given
    as a pandas Series keeps its index (``series_index``), so it is aligned with ``X``'s rows
    by index when the split is made, as a DataFrame's own column is."""

    series_index: Any = None

    def __array_finalize__(self, obj: Any) -> None:
        self.series_index = getattr(obj, "series_index", None)

    def __repr__(self) -> str:
        if self.ndim != 1 or not len(self) or self.dtype.kind not in "fiu":
            return f"array of {self.size} values"
        return f"array of {len(self)} values in [{float(np.nanmin(self)):.4g}, {float(np.nanmax(self)):.4g}]"

    __str__ = __repr__


def _bound(value: Any) -> Any:
    """A column given as a sequence, as a :class:`ColumnArray` (a name or an array already
    bound is kept as it is, so scikit-learn's ``clone`` finds each parameter unchanged)."""
    if isinstance(value, ColumnArray) or isinstance(value, (str, type(None))) or np.isscalar(value):
        return value
    if isinstance(value, (list, tuple, np.ndarray)) or hasattr(value, "to_numpy"):
        bound = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value).view(ColumnArray)
        if hasattr(value, "index") and hasattr(value, "reindex"):
            bound.series_index = value.index
        return bound
    return value


class TailsplitCV:
    """Shared protocol of the generated classes (``LikelihoodSplit``, ``RandomSplit``, ...)."""

    splitter_name: str = ""
    # The data bindings every class has (set by the generated ``__init__``).
    part: str
    lengths: Any
    text: Any
    programs: Any
    program_kind: str

    def __init__(self, **params: Any) -> None:
        for name, value in params.items():
            setattr(self, name, _bound(value) if name in DATA_PARAMS else value)

    @classmethod
    def _param_names(cls) -> list[str]:
        return [p for p in inspect.signature(cls).parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's arguments (``deep`` is accepted for scikit-learn; none are estimators)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> TailsplitCV:
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"{type(self).__name__} has no parameter {name!r}; use one of {valid}")
            setattr(self, name, _bound(value) if name in DATA_PARAMS else value)
        return self

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.get_params().items() if not _same(v, _defaults(type(self)).get(k))}
        return f"{type(self).__name__}({', '.join(f'{k}={_short(v)}' for k, v in changed.items())})"

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        return 1

    def splitter(self) -> Splitter:
        """The tailsplit splitter these parameters describe."""
        cls = SPLITTERS[self.splitter_name]
        own = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
        return cls(**{name: getattr(self, name) for name in own})

    @keyword_spelling
    def split_indices(self, X: Any, y: Any = None, groups: Any = None) -> SplitIndices:
        """The full train/dev/test split of ``X``."""
        if self.part not in PARTS:
            raise ConfigError(f"part={self.part!r} is unknown; use one of {list(PARTS)}")
        splitter = self.splitter()
        return splitter.split(self._inputs(X, y, groups, splitter))

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """One ``(train_idx, test_idx)`` pair: train, and the part ``part`` names (dev by
        default, whichever scikit-learn helper asks: validation never sees the test part)."""
        part = "dev" if self.part == "auto" else self.part
        indices = self.split_indices(X, y, groups)
        test = {"eval": indices.eval_idx, "dev": indices.dev_idx, "test": indices.test_idx}[part]
        yield indices.train_idx, test

    def predefined_split(self, X: Any, y: Any = None, groups: Any = None) -> Any:
        """This split as a scikit-learn ``PredefinedSplit`` (``test_fold``: -1 train, 0 evaluation;
        rows of the dev or test part left out by ``part`` are in neither)."""
        from sklearn.model_selection import PredefinedSplit

        train, test = next(self.split(X, y, groups))
        fold = np.full(_n_rows(X), -2, dtype=np.int64)
        fold[train], fold[test] = -1, 0
        if (fold == -2).any():
            raise ConfigError(
                f"part={self.part!r} leaves {int((fold == -2).sum())} rows out of both train and test, which "
                "PredefinedSplit cannot express; use cv.train_dev_split(X, y) (train + dev, validated on dev) or "
                "part='eval'"
            )
        return PredefinedSplit(fold)

    def train_dev_split(self, X: Any, y: Any = None, groups: Any = None) -> tuple[np.ndarray, Any]:
        """Model selection without the test part: ``(rows, cv)`` — the train and dev rows of ``X``
        (in order), and a ``PredefinedSplit`` over ``X[rows]`` whose one fold trains on train and
        validates on dev. ``GridSearchCV(model, grid, cv=cv).fit(X[rows], y[rows])`` then selects
        on dev and refits on train + dev; the test part is left for the final score."""
        from sklearn.model_selection import PredefinedSplit

        indices = self.split_indices(X, y, groups)
        rows = np.sort(np.concatenate([indices.train_idx, indices.dev_idx]))
        fold = np.where(np.isin(rows, indices.dev_idx), 0, -1)
        return rows, PredefinedSplit(fold)

    def _inputs(self, X: Any, y: Any, groups: Any, splitter: Splitter) -> SplitInputs:
        n = _n_rows(X)
        scores = _column(X, getattr(self, "scores", None), n, "scores")
        n_tokens = _column(X, getattr(self, "n_tokens", None), n, "n_tokens")
        if splitter.needs_scores and scores is None:
            raise ConfigError(
                f"{type(self).__name__} needs scores: pass scores=ARRAY, or scores=COLUMN of a DataFrame X "
                "(e.g. a logprob_sum column from tailsplit score)"
            )
        lengths = _column(X, self.lengths, n, "lengths")
        if lengths is None and self.text is not None:
            texts = _column(X, self.text, n, "text")
            lengths = word_lengths([str(t) for t in texts])  # type: ignore[union-attr]
        needs_lengths = self.splitter_name == "length" or getattr(self, "length_buckets", None) is not None
        if lengths is None and needs_lengths:
            raise ConfigError(
                f"{type(self).__name__} with these options needs word lengths: pass lengths=ARRAY or "
                "text=COLUMN (tailsplit counts the words)"
            )
        programs = None
        if self.programs is not None:
            values = _column(X, self.programs, n, "programs")
            programs, failures = extract_program_features(
                [str(p) for p in values],  # type: ignore[union-attr]
                EXTRACTORS.create(self.program_kind),
            )
            if failures:
                raise ConfigError(f"programs row {failures[0].row}: {failures[0].reason}; fix or drop that row")
        features = None
        if splitter.needs_features:  # AFLite: X is the feature matrix, y the labels its classifiers predict
            features = _feature_matrix(X, n)
            if y is None:
                raise ConfigError(f"{type(self).__name__} needs y: its classifiers predict the labels")
        elif y is None and getattr(self, "balance_labels", False):
            raise ConfigError(
                f"{type(self).__name__}(balance_labels=True) balances the labels: pass y to split(X, y) "
                "(cross_validate and the searches pass theirs)"
            )
        elif y is not None and getattr(self, "balance_labels", False) is False:
            y = None  # labels matter only for balance
        return SplitInputs(
            n=n,
            word_lengths=np.zeros(n, dtype=np.int64)
            if lengths is None
            else _numbers(lengths, "lengths", whole=True).astype(np.int64),
            logprob_sum=None if scores is None else _numbers(scores, "scores", whole=False, at_most_zero=True),
            n_tokens=None if n_tokens is None else _numbers(n_tokens, "n_tokens", whole=True).astype(np.int64),
            labels=None if y is None else _as_labels(_aligned(X, y, n, "y"), n, "y"),
            groups=None if groups is None else _as_labels(_aligned(X, groups, n, "groups"), n, "groups"),
            programs=programs,
            features=features,
        )


def _feature_matrix(X: Any, n: int) -> np.ndarray:
    """``X`` as an ``(n, d)`` matrix of finite numbers (the features AFLite's classifiers use)."""
    try:
        matrix = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError("X must be a numeric feature matrix (e.g. sentence embeddings) for AfliteSplit") from None
    if matrix.ndim != 2 or len(matrix) != n or not np.isfinite(matrix).all():
        raise ConfigError(
            f"X has shape {matrix.shape}; AfliteSplit needs an (n, d) matrix of finite numbers, one row per example"
        )
    return matrix


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except (TypeError, ValueError):
        return False


def _defaults(cls: type) -> dict[str, Any]:
    return {
        name: p.default
        for name, p in inspect.signature(cls).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


def _n_rows(X: Any) -> int:
    if X is None:
        raise ConfigError("X is None; pass the examples (an array, a list or a DataFrame)")
    shape = getattr(X, "shape", None)
    return int(shape[0]) if shape is not None else len(X)


def _column(X: Any, value: Any, n: int, name: str) -> np.ndarray | None:
    """``value`` as an array of ``n`` rows: an array-like, or the name of a column of ``X``; a
    pandas Series is aligned with ``X``'s rows by index (:func:`_aligned`)."""
    if value is None:
        return None
    if isinstance(value, str):
        columns = getattr(X, "columns", None)
        if columns is None or value not in columns:
            have = "" if columns is None else f" (X has {list(columns)[:10]})"
            raise ConfigError(f"{name}={value!r} names a column, but X has no such column{have}")
        array = np.asarray(X[value])
    else:
        array = np.asarray(_aligned(X, value, n, name))
    if array.ndim != 1 or len(array) != n:
        raise ConfigError(f"{name} has shape {array.shape}, but X has {n} rows; give one value per row")
    return array


def _aligned(X: Any, value: Any, n: int, name: str) -> Any:
    """A pandas Series bound to ``X``'s rows by its index, as a DataFrame's own column is: its
    values in ``X``'s row order. A Series whose index is not ``X``'s rows is refused, and so is
    one with its own index beside an ``X`` that has none (positions would pair other rows)."""
    if isinstance(value, ColumnArray) and value.series_index is not None:
        import pandas as pd

        value = pd.Series(np.asarray(value), index=value.series_index)
    index = getattr(value, "index", None)
    if index is None or not hasattr(value, "reindex"):
        return value
    rows = getattr(X, "index", None)
    if rows is None:
        import pandas as pd

        if not index.equals(pd.RangeIndex(len(value))):
            raise ConfigError(
                f"{name} is a Series with its own index, but X has none to align it with; pass X as a DataFrame "
                f"with that index, or {name}=series.to_numpy() in X's row order"
            )
        return value
    if not index.is_unique or len(index) != n or not index.isin(rows).all():
        raise ConfigError(
            f"{name} is a Series whose index is not X's rows (it must hold each of X's {n} index values once); "
            f"give {name}=X[COLUMN], or a Series indexed like X"
        )
    return value.reindex(rows)


def _numbers(values: np.ndarray, name: str, *, whole: bool, at_most_zero: bool = False) -> np.ndarray:
    """``values`` checked by the score files' rules before any cast: finite numbers; counts whole
    and at least 0; log-probabilities at most 0."""
    try:
        numbers = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} holds values that are not numbers; give one number per row") from None
    wrong = ~np.isfinite(numbers)
    if whole:
        wrong |= (numbers % 1 != 0) | (numbers < 0)
    bad = np.flatnonzero(wrong)
    if len(bad):
        kind = "whole counts of 0 or more" if whole else "finite numbers"
        raise ConfigError(
            f"{name} is {float(numbers[bad[0]])!r} at row {int(bad[0])}; give {kind} ({len(bad)} rows are not)"
        )
    if at_most_zero and (numbers > 0).any():
        row = int(np.flatnonzero(numbers > 0)[0])
        raise ConfigError(
            f"{name} is {float(numbers[row])!r} at row {row}, above 0, which no log-probability is; give total "
            "log-probabilities"
        )
    return numbers


def _short(value: Any) -> str:
    """A parameter as ``repr`` shows it: an array (or long list) by its shape and type, not
    its values, as scikit-learn shows array parameters.

    >>> _short(np.zeros(3)), _short("logprob_mean")
    ('array(shape=(3,), dtype=float64)', "'logprob_mean'")
    """
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return f"array(shape={tuple(value.shape)}, dtype={value.dtype})"
    if isinstance(value, (list, tuple)) and len(value) > 6:
        return f"{type(value).__name__}(len={len(value)})"
    if type(value).__name__ in ("Series", "DataFrame"):
        return f"{type(value).__name__}(shape={value.shape})"
    return repr(value)


def _as_labels(values: Any, n: int, name: str) -> np.ndarray:

    array = np.asarray(values, dtype=object)
    if array.ndim != 1 or len(array) != n:
        raise ConfigError(f"{name} has shape {array.shape}, but X has {n} rows; give one value per row")
    missing = next((i for i, v in enumerate(array) if v is None or (isinstance(v, float) and v != v)), None)
    if missing is not None:
        raise ConfigError(
            f"{name} is {array[missing]!r} at row {missing}; missing values are not equal to each other, "
            f"so give every row a {name.rstrip('s')} value (or drop those rows)"
        )
    return np.asarray([label_to_str(v.item() if hasattr(v, "item") else v) for v in array], dtype=object)


def _make_class(class_name: str, splitter_name: str) -> type[TailsplitCV]:
    """A cross-validator class whose ``__init__`` takes the splitter's options and the data bindings."""
    splitter_params = [
        p for n, p in inspect.signature(SPLITTERS[splitter_name].__init__).parameters.items() if n != "self"
    ]
    data_params = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
        for name, default in DATA_PARAMS.items()
        if not (name == "scores" and not SPLITTERS[splitter_name].needs_scores)
        and not (name == "n_tokens" and splitter_name != "likelihood")
    ]
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *data_params, *splitter_params]
    signature = inspect.Signature(parameters)

    def __init__(self: TailsplitCV, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        TailsplitCV.__init__(self, **{k: v for k, v in bound.arguments.items() if k != "self"})

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    doc = (SPLITTERS[splitter_name].__doc__ or "").strip().split("\n")[0]
    cls = type(class_name, (TailsplitCV,), {"__init__": __init__, "splitter_name": splitter_name, "__doc__": doc})
    cls.__module__ = __name__
    return cls


LikelihoodSplit = _make_class("LikelihoodSplit", "likelihood")


RandomSplit = _make_class("RandomSplit", "random")
LengthSplit = _make_class("LengthSplit", "length")
TemplateSplit = _make_class("TemplateSplit", "template")
TmcdSplit = _make_class("TmcdSplit", "tmcd")
AfliteSplit = _make_class("AfliteSplit", "aflite")  # X: the feature matrix; y: the labels

__all__ = [
    "AfliteSplit", "LengthSplit", "LikelihoodSplit", "RandomSplit", "TailsplitCV", "TemplateSplit", "TmcdSplit",
]  # fmt: skip
