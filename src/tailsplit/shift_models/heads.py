"""The task model of each BOSS task, behind one shape: the model with its training rows and
labels, what selects its checkpoint on dev, and how it reads and predicts a set — a classifier
(a label per example), a token tagger (NER: tags per sentence) or a span extractor (QA: an
answer per question). ``ood-rank`` and ``curve`` train and predict through it."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.evaluation.encoder import EncoderRecipe, PairClassifier, max_length_of, prepared_classifier
from tailsplit.evaluation.span_head import SpanReader, prepared_reader
from tailsplit.evaluation.token_head import TokenTagger, prepared_tagger
from tailsplit.shift.labelled import LabelledSet
from tailsplit.shift.task_kinds import TaskKind


@dataclass(frozen=True)
class TaskModel:
    """A task model ready to train: ``model.fit(rows, labels, *dev)``; ``encode`` a set once,
    ``decode`` it into predictions after any amount of training."""

    model: PairClassifier
    rows: list[list[int]]
    labels: np.ndarray
    dev: tuple[Any, Any]
    max_length: int
    encode: Callable[[LabelledSet], Any]
    decode: Callable[[Any, LabelledSet], tuple[Any, ...]]

    def predict(self, s: LabelledSet) -> tuple[Any, ...]:
        return self.decode(self.encode(s), s)


def classifier_head(
    train: LabelledSet, dev: LabelledSet, location: str, recipe: EncoderRecipe, device: str
) -> TaskModel:
    classifier, rows, y = prepared_classifier(
        train.columns, train.labels, location=location, recipe=recipe, device=device
    )
    index = {label: i for i, label in enumerate(classifier.labels)}
    max_length = max_length_of(rows)
    dev_y = np.asarray([index.get(v, -1) for v in dev.labels], dtype=np.int64)  # unseen labels are never right
    return TaskModel(
        classifier,
        rows,
        y,
        (classifier.encode(dev.columns, max_length), dev_y),
        max_length,
        lambda s: classifier.encode(s.columns, max_length) if len(s) else [],
        lambda rows, s: tuple(classifier.labels[i] for i in classifier.predict(rows).tolist()) if len(s) else (),
    )


def tagger_head(train: LabelledSet, dev: LabelledSet, location: str, recipe: EncoderRecipe, device: str) -> TaskModel:
    tagger, rows, y = prepared_tagger(train.words, train.labels, location=location, recipe=recipe, device=device)
    max_length = max_length_of(rows)
    model: TokenTagger = tagger
    return TaskModel(
        model,
        rows,
        y,
        (model.encode_words(dev.words, None, max_length), dev.labels),
        max_length,
        lambda s: model.encode_words(s.words, None, max_length),
        lambda rows, s: tuple(model.predict_tags(rows, [len(w) for w in s.words])) if len(s) else (),
    )


def reader_head(train: LabelledSet, dev: LabelledSet, location: str, recipe: EncoderRecipe, device: str) -> TaskModel:
    questions, contexts = train.columns
    reader, features, y = prepared_reader(
        questions, contexts, train.labels, location=location, recipe=recipe, device=device
    )
    model: SpanReader = reader

    def encode(s: LabelledSet) -> Any:
        return model.features(s.columns[0], s.columns[1], recipe.max_length)

    dev_features = encode(dev)
    golds = [[text for text, _ in answers] for answers in dev.labels]
    return TaskModel(
        model,
        features.rows,
        y,
        (dev_features.rows, (dev_features, dev.columns[1] if len(dev) else (), golds)),
        recipe.max_length,
        encode,
        lambda features, s: model.predict_answers(features, s.columns[1]) if len(s) else (),
    )


def task_model(
    kind: TaskKind, train: LabelledSet, dev: LabelledSet, *, location: str, recipe: EncoderRecipe, device: str = "auto"
) -> TaskModel:
    """The task's model — the head its task names (``kind.head``) — built on ``location`` with
    its training rows (nothing trained yet)."""
    module, _, name = kind.head.partition(":")
    head = getattr(importlib.import_module(module), name)
    return head(train, dev, location, recipe, device)  # type: ignore[no-any-return]
