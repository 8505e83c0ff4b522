"""CPU baselines that train in seconds to minutes.

* ``tfidf``: TF-IDF (word 1–2-grams, sublinear tf) of each input field — premise and
  hypothesis, passage and question, or the question alone — side by side, then logistic
  regression; the inverse regularisation C is chosen on dev from {0.25, 1, 4}.
* ``tfidf-text``: the same on the scored text alone (for NLI: the hypothesis-only baseline).
* ``nn-sql``: for programs, the SQL of the most similar training question (TF-IDF cosine);
  exact match after normalisation (the program extractor's tokens) and on templates.
* ``embed``: frozen sentence embeddings of each input field (the bundled all-MiniLM-L6-v2 by
  default, through the embedding cache); for two fields the pair features ``[u, v, |u−v|, u·v]``,
  standardised, then logistic regression with C chosen on dev.
* ``encoder``: a pretrained encoder fine-tuned as a cross-encoder classifier
  (:mod:`tailsplit.evaluation.encoder`).
* ``lm``: the causal LM that scored the split, fine-tuned the same way with a
  sequence-classification head (the paper's fairness check: is the split unfair to the model
  that made it?).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from tailsplit.config import DataConfig
from tailsplit.errors import ConfigError, MissingDependencyError
from tailsplit.io.manifest import Manifest
from tailsplit.registry import EXTRACTORS

if TYPE_CHECKING:
    from tailsplit.shift.encoder import SentenceEncoder


_C_GRID = (0.25, 1.0, 4.0)


def _sklearn() -> Any:
    try:
        import sklearn
    except ImportError:
        raise MissingDependencyError("scikit-learn", "evaluate", "the TF-IDF baselines") from None
    return sklearn


@dataclass(frozen=True)
class PartInputs:
    """One part of a split as the baselines see it: input columns, gold labels or programs."""

    columns: tuple[tuple[str, ...], ...]  # one tuple of texts per input field
    labels: tuple[str, ...] | None = None
    programs: tuple[str, ...] | None = None

    def __len__(self) -> int:
        return len(self.columns[0]) if self.columns else 0


@dataclass(frozen=True)
class BaselineResult:
    baseline: str
    dev: float
    test: float
    metric: str  # "accuracy" or "exact match"
    extra: dict[str, float]  # e.g. template exact match, chosen C
    test_correct: tuple[bool, ...] = ()  # per test example, in the part's order (bootstrap intervals)
    test_predicted: tuple[str, ...] = ()  # per test example: the predicted label (or program)
    test_probability: tuple[float, ...] = ()  # per test example: the model's probability of its prediction

    def as_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "metric": self.metric,
            "dev": round(self.dev, 4),
            "test": round(self.test, 4),
            **{k: round(v, 4) for k, v in self.extra.items()},
        }


def baselines_for(data: DataConfig, requested: list[str], input_fields: list[str]) -> list[str]:
    if requested:
        unknown = [b for b in requested if b not in BASELINES]
        if unknown:
            raise ConfigError(f"--baseline={unknown[0]!r} is not one of {', '.join(BASELINES)}")
        return requested
    if data.program:
        return ["nn-sql"]
    return ["tfidf", "tfidf-text"] if data.context or len(input_fields) > 1 else ["tfidf"]


def _features(parts: Sequence[PartInputs], fields: Sequence[int]) -> list[Any]:
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import TfidfVectorizer

    blocks: list[list[Any]] = [[] for _ in parts]
    for field in fields:
        vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
        vectorizer.fit(parts[0].columns[field])
        for block, part in zip(blocks, parts):
            block.append(vectorizer.transform(part.columns[field]))
    return [hstack(block).tocsr() for block in blocks]


def tfidf_logistic(
    train: PartInputs, dev: PartInputs, test: PartInputs, *, text_only: bool = False, seed: int = 0
) -> BaselineResult:
    """Accuracy on dev and test; C picked on dev (ties: the smaller C)."""
    _sklearn()
    from sklearn.linear_model import LogisticRegression

    if train.labels is None:
        raise ConfigError("the tfidf baselines need labels; split with --label")
    fields = [len(train.columns) - 1] if text_only else list(range(len(train.columns)))
    x_train, x_dev, x_test = _features([train, dev, test], fields)
    best: tuple[float, float, Any] | None = None
    for c in _C_GRID:
        model = LogisticRegression(C=c, max_iter=2000, random_state=seed).fit(x_train, list(train.labels))
        dev_acc = float(np.mean(model.predict(x_dev) == np.asarray(dev.labels))) if len(dev) else 0.0
        if best is None or dev_acc > best[0]:
            best = (dev_acc, c, model)
    dev_acc, c, model = best  # type: ignore[misc]
    return _classified("tfidf-text" if text_only else "tfidf", dev_acc, {"C": c}, model, x_test, test)


def embedding_logistic(
    train: PartInputs, dev: PartInputs, test: PartInputs, encoder: SentenceEncoder, *, seed: int = 0
) -> BaselineResult:
    """Logistic regression on frozen sentence embeddings (pair features for two fields)."""
    _sklearn()
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    if train.labels is None:
        raise ConfigError("the embed baseline needs labels; split with --label")

    def features(part: PartInputs) -> np.ndarray:
        vectors = [encoder.encode(list(column)) for column in part.columns]
        if len(vectors) == 2:
            u, v = vectors
            return np.hstack([u, v, np.abs(u - v), u * v])
        return np.hstack(vectors)

    scaler = StandardScaler().fit(x_train := features(train))
    x_train, x_dev, x_test = (
        scaler.transform(x_train),
        scaler.transform(features(dev)),
        scaler.transform(features(test)),
    )
    best: tuple[float, float, Any] | None = None
    for c in _C_GRID:
        model = LogisticRegression(C=c, max_iter=3000, random_state=seed).fit(x_train, list(train.labels))
        dev_acc = float(np.mean(model.predict(x_dev) == np.asarray(dev.labels))) if len(dev) else 0.0
        if best is None or dev_acc > best[0]:
            best = (dev_acc, c, model)
    dev_acc, c, model = best  # type: ignore[misc]
    return _classified("embed", dev_acc, {"C": c}, model, x_test, test)


def _classified(
    name: str, dev_acc: float, extra: dict[str, float], model: Any, x_test: Any, test: PartInputs
) -> BaselineResult:
    """A fitted scikit-learn classifier's result on test: accuracy, and per example the
    predicted label and its probability."""
    if not len(test):
        return BaselineResult(name, dev_acc, float("nan"), "accuracy", extra)
    probabilities = model.predict_proba(x_test)
    best = probabilities.argmax(axis=1)
    predicted = np.asarray(model.classes_, dtype=object)[best]
    correct = predicted == np.asarray(test.labels, dtype=object)
    return BaselineResult(
        name,
        dev_acc,
        float(np.mean(correct)),
        "accuracy",
        extra,
        tuple(bool(v) for v in correct),
        tuple(str(v) for v in predicted),
        tuple(float(v) for v in probabilities[np.arange(len(best)), best]),
    )


def reference_results(train: PartInputs, dev: PartInputs, test: PartInputs) -> list[BaselineResult]:
    """The two references every classification table needs: ``chance`` (the expected accuracy
    of a uniform guess among the train labels) and ``majority`` (always the most frequent train
    label; ties: the first in sorted order).

    >>> part = lambda *labels: PartInputs((tuple("x" * len(labels)),), labels)
    >>> [(r.baseline, round(r.test, 3)) for r in reference_results(part("a", "a", "b"), part("a"), part("a", "b", "c"))]
    [('chance', 0.5), ('majority', 0.333)]
    """
    if train.labels is None or not len(train):
        return []
    names, counts = np.unique(np.asarray(train.labels, dtype=str), return_counts=True)
    chance = 1.0 / len(names)
    majority = str(names[int(np.argmax(counts))])
    correct = np.asarray(test.labels or (), dtype=object) == majority

    def accuracy(part: PartInputs) -> float:
        return float(np.mean(np.asarray(part.labels or (), dtype=object) == majority)) if len(part) else float("nan")

    return [
        BaselineResult("chance", chance, chance, "accuracy", {"classes": float(len(names))}),
        BaselineResult(
            "majority",
            accuracy(dev),
            accuracy(test),
            "accuracy",
            {},
            tuple(bool(v) for v in correct),
            (majority,) * len(test),
        ),
    ]


def nearest_neighbour_sql(train: PartInputs, dev: PartInputs, test: PartInputs, extractor: Any) -> BaselineResult:
    """Exact match of the nearest training question's SQL (normalised tokens, and templates)."""
    _sklearn()
    from sklearn.feature_extraction.text import TfidfVectorizer

    if train.programs is None:
        raise ConfigError("nn-sql needs programs; split with --program")
    question = len(train.columns) - 1
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True).fit(train.columns[question])
    x_train = vectorizer.transform(train.columns[question])
    parsed_train = [extractor.parse(p) for p in train.programs]
    canonical_train: dict[int, str] = {}

    def score(part: PartInputs) -> tuple[list[bool], float, list[int]]:
        if not len(part):
            return [], 0.0, []
        nearest = np.asarray((vectorizer.transform(part.columns[question]) @ x_train.T).argmax(axis=1)).ravel()
        gold = [extractor.parse(p) for p in part.programs]  # type: ignore[union-attr]
        for n in set(nearest.tolist()) - set(canonical_train):
            canonical_train[n] = extractor.canonical(train.programs[n])  # type: ignore[index]
        exact = [canonical_train[n] == extractor.canonical(p) for n, p in zip(nearest, part.programs)]  # type: ignore[arg-type]
        template = np.mean([parsed_train[n].template == g.template for n, g in zip(nearest, gold)])
        return exact, float(template), nearest.tolist()

    dev_exact, dev_template, _ = score(dev)
    test_exact, test_template, test_nearest = score(test)
    return BaselineResult(
        "nn-sql",
        float(np.mean(dev_exact)) if dev_exact else 0.0,
        float(np.mean(test_exact)) if test_exact else 0.0,
        "exact match",
        {"dev_template_match": dev_template, "test_template_match": test_template},
        tuple(bool(v) for v in test_exact),
        tuple(train.programs[n] for n in test_nearest),
    )


@dataclass(frozen=True)
class TrainingContext:
    """What a baseline may need beyond the three parts: the split's data settings and manifest,
    the seed, and the task models loaded once for every split (``sentence_encoder()`` and
    ``fine_tuned(manifest, train, dev, test, which)``)."""

    data: DataConfig
    manifest: Manifest
    models: Any
    seed: int


def _nearest_sql(train: PartInputs, dev: PartInputs, test: PartInputs, context: TrainingContext) -> BaselineResult:

    return nearest_neighbour_sql(train, dev, test, EXTRACTORS.create(context.data.program_kind))


Trainer = Callable[[PartInputs, PartInputs, PartInputs, TrainingContext], BaselineResult]
# every baseline by name: trained on train, selected on dev, scored on test
TRAINERS: dict[str, Trainer] = {
    "tfidf": lambda train, dev, test, c: tfidf_logistic(train, dev, test, text_only=False, seed=c.seed),
    "tfidf-text": lambda train, dev, test, c: tfidf_logistic(train, dev, test, text_only=True, seed=c.seed),
    "nn-sql": _nearest_sql,
    "embed": lambda train, dev, test, c: embedding_logistic(train, dev, test, c.models.sentence_encoder(), seed=c.seed),
    "encoder": lambda train, dev, test, c: c.models.fine_tuned(c.manifest, train, dev, test, "encoder"),
    "lm": lambda train, dev, test, c: c.models.fine_tuned(c.manifest, train, dev, test, "lm"),
}
BASELINES = tuple(TRAINERS)
