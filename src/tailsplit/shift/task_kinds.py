"""BOSS's tasks as classes that declare themselves: each holds its fields, how its examples are
read, how a candidate's labels are put in ID's terms, the metric each example contributes to,
what a predictor that learnt nothing scores, how its ID file is divided, and the head of its
task model (named as ``module:function``, imported where the model is built). ``ood-rank``
and ``curve`` ask the task; they never compare its name. A new task is one class and one
registration in :data:`TASKS`.

>>> task_kind("ner").metric_name, task_kind("qa").default_fields
('entity F1', ('question', 'context'))
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from tailsplit.errors import ConfigError
from tailsplit.shift.datasets import DatasetSpec
from tailsplit.shift.drops import Metric, mean_metric
from tailsplit.shift.labelled import IdParts, LabelledSet, correct, mapped, read_labelled, shared_passages
from tailsplit.shift.task_metrics import answer_scores, entity_counts, entity_f1
from tailsplit.shift.tasks import map_tags, ner_candidate, read_ner, read_qa, unscored_effect


class TaskKind(ABC):
    """What a BOSS task is. Each task reads its examples and scores them its own way (the two
    abstract methods); elsewhere a task says only where it differs from the defaults here."""

    name: ClassVar[str]
    metric_name: ClassVar[str]
    default_fields: ClassVar[tuple[str, ...]]
    default_label_field: ClassVar[str]
    head: ClassVar[str]  # builds its task model: tailsplit.shift_models.heads
    field_count: ClassVar[int | None] = None  # how many text fields a dataset names (None: any)
    fields_hint: ClassVar[str] = ""
    named_in_results: ClassVar[bool] = True  # results name the task and metric (classification's never did)

    def check_fields(self, spec: DatasetSpec) -> None:
        if self.field_count is not None and len(spec.fields) != self.field_count:
            raise ConfigError(f"{spec.name!r}: {self.fields_hint}, not {'+'.join(spec.fields)}")

    @abstractmethod
    def read(self, spec: DatasetSpec, label_field: str, location: Path, allow_empty: bool) -> LabelledSet:
        """Every example of the file at ``location``, read and checked."""

    def check_label_map(self, label_map: Mapping[str, str]) -> None:
        """Refuse a label map the task has no labels for (every task here but QA has some)."""
        return None

    def check_id_train(self, train: LabelledSet, path: str) -> None:
        """Refuse ID training data the task model cannot learn from (QA's any answer teaches)."""
        return None

    def mapped_candidate(
        self, candidate: LabelledSet, id_set: LabelledSet, label_map: Mapping[str, str]
    ) -> LabelledSet:
        return candidate

    @abstractmethod
    def example_stats(self, predicted: Sequence[Any], gold: Sequence[Any], label_map: Mapping[str, str]) -> np.ndarray:
        """What each example contributes to the metric (a row per example)."""

    @property
    def metric(self) -> Metric:
        """The metric of summed example statistics."""
        return mean_metric

    def trivial_score(self, test: LabelledSet) -> float:
        """The ID test score of a predictor that learnt nothing (no entity, no answer: 0)."""
        return 0.0

    def id_groups(self, whole: LabelledSet) -> Sequence[str] | None:
        """What an ID file's random split keeps whole unless ``--id-group`` names a field."""
        return None

    def columns_format(self, path: str) -> str | None:
        """The reader format of a file of this task that its suffix does not name."""
        return None

    def prediction(self, value: Any) -> Any:
        """A prediction read back from the cache's JSON."""
        return value

    def cache_version(self, base: str) -> str:
        return f"{base}-{self.name}"

    def passages_in_train(self, parts: IdParts) -> int | None:
        """How many ID test examples share their passage with ID train (``None``: the task's
        examples have no passage)."""
        return None

    def measured_extras(
        self, id_stats: np.ndarray, ood: Sequence[tuple[LabelledSet, np.ndarray, Sequence[Any]]], label_map: Any
    ) -> dict[str, Any]:
        """What ``ood-rank``'s results add for this task beside its metric (per candidate:
        its set, its example statistics and its predictions)."""
        return {}

    def training_counts(self, rows: Sequence[Any]) -> dict[str, Any]:
        """What training reports of its rows beyond the examples."""
        return {}


class Classification(TaskKind):
    name = "classification"
    metric_name = "accuracy"
    default_fields = ("text",)
    default_label_field = "label"
    head = "tailsplit.shift_models.heads:classifier_head"
    named_in_results = False

    def read(self, spec: DatasetSpec, label_field: str, location: Path, allow_empty: bool) -> LabelledSet:
        return read_labelled(spec, label_field, location, allow_empty=allow_empty)

    def check_id_train(self, train: LabelledSet, path: str) -> None:
        if len(set(train.labels)) < 2:
            raise ConfigError(
                f"ID train of {path!r} has one label ({sorted(set(train.labels))}); the task model needs two or more"
            )

    def mapped_candidate(
        self, candidate: LabelledSet, id_set: LabelledSet, label_map: Mapping[str, str]
    ) -> LabelledSet:
        return mapped(candidate, sorted(set(id_set.labels)), label_map)

    def example_stats(self, predicted: Sequence[Any], gold: Sequence[Any], label_map: Mapping[str, str]) -> np.ndarray:
        return correct(predicted, gold, label_map).astype(np.float64)[:, None]

    def trivial_score(self, test: LabelledSet) -> float:
        """The majority label's share of ID test."""
        if not len(test):
            return 0.0
        _, counts = np.unique(np.asarray(test.labels, dtype=str), return_counts=True)
        return float(counts.max() / counts.sum())

    def cache_version(self, base: str) -> str:
        return base  # the first task: its caches kept their names


class NamedEntities(TaskKind):
    name = "ner"
    metric_name = "entity F1"
    default_fields = ("tokens",)
    default_label_field = "ner_tags"
    head = "tailsplit.shift_models.heads:tagger_head"
    field_count = 1
    fields_hint = "a NER dataset names one tokens field (@tokens)"

    def read(self, spec: DatasetSpec, label_field: str, location: Path, allow_empty: bool) -> LabelledSet:
        return read_ner(spec, label_field, location, allow_empty=allow_empty)

    def check_id_train(self, train: LabelledSet, path: str) -> None:
        if not any(tag != "O" for tags in train.labels for tag in tags):
            raise ConfigError("ID train holds no entity (every tag is O); the NER task model needs entities to learn")

    def mapped_candidate(
        self, candidate: LabelledSet, id_set: LabelledSet, label_map: Mapping[str, str]
    ) -> LabelledSet:
        return ner_candidate(candidate, id_set, label_map)

    def example_stats(self, predicted: Sequence[Any], gold: Sequence[Any], label_map: Mapping[str, str]) -> np.ndarray:
        rows = [entity_counts(map_tags(p, label_map), g) for p, g in zip(predicted, gold)]
        return np.array(rows, dtype=np.float64).reshape(len(rows), 3)

    @property
    def metric(self) -> Metric:
        return lambda sums, n: entity_f1(sums)

    def columns_format(self, path: str) -> str | None:
        return "conll" if path.lower().removesuffix(".gz").endswith(".txt") else None

    def prediction(self, value: Any) -> Any:
        return tuple(value)

    def measured_extras(
        self, id_stats: np.ndarray, ood: Sequence[tuple[LabelledSet, np.ndarray, Sequence[Any]]], label_map: Any
    ) -> dict[str, Any]:
        effects = {s.name: unscored_effect(p, s.labels, label_map) for s, _, p in ood}
        kept = {name: effect for name, effect in effects.items() if effect is not None}
        return {"unscored_entities": kept} if kept else {}


class ExtractiveQa(TaskKind):
    name = "qa"
    metric_name = "F1"
    default_fields = ("question", "context")
    default_label_field = "answers"
    head = "tailsplit.shift_models.heads:reader_head"
    field_count = 2
    fields_hint = "a QA dataset names its question and context fields (@question+context)"

    def read(self, spec: DatasetSpec, label_field: str, location: Path, allow_empty: bool) -> LabelledSet:
        return read_qa(spec, label_field, location, allow_empty=allow_empty)

    def check_label_map(self, label_map: Mapping[str, str]) -> None:
        if label_map:
            raise ConfigError("--label-map renames labels or entity types; a QA task has neither, so leave it out")

    def example_stats(self, predicted: Sequence[Any], gold: Sequence[Any], label_map: Mapping[str, str]) -> np.ndarray:
        rows = [answer_scores(p, [text for text, _ in g]) for p, g in zip(predicted, gold)]
        return np.array([(f1, em) for em, f1 in rows], dtype=np.float64).reshape(len(rows), 2)

    def id_groups(self, whole: LabelledSet) -> Sequence[str] | None:
        return whole.columns[1]  # a paragraph in train and in test would leak its answers

    def passages_in_train(self, parts: IdParts) -> int | None:
        return shared_passages(parts)

    def measured_extras(
        self, id_stats: np.ndarray, ood: Sequence[tuple[LabelledSet, np.ndarray, Sequence[Any]]], label_map: Any
    ) -> dict[str, Any]:
        def mean(stats: np.ndarray) -> float:
            return round(float(stats[:, 1].mean()), 4) if len(stats) else float("nan")

        return {"exact_match": {"id": mean(id_stats), "ood": {s.name: mean(stats) for s, stats, _ in ood}}}

    def training_counts(self, rows: Sequence[Any]) -> dict[str, Any]:
        return {"train_windows": len(rows)}


TASKS: dict[str, TaskKind] = {kind.name: kind for kind in (Classification(), NamedEntities(), ExtractiveQa())}


def task_kind(name: str) -> TaskKind:
    """The registered task of that name."""
    if name not in TASKS:
        raise ConfigError(f"--task={name!r} is unknown; use one of {sorted(TASKS)}")
    return TASKS[name]


def task_fields(kind: TaskKind, spec: DatasetSpec, label_field: str) -> tuple[DatasetSpec, str]:
    """The spec and label field a task reads: the task's own defaults where none were named."""
    fields = kind.default_fields if spec.fields == ("text",) else spec.fields
    named = replace(spec, fields=fields)
    kind.check_fields(named)
    return named, kind.default_label_field if label_field == "label" else label_field


def read_examples(
    kind: TaskKind | str,
    spec: DatasetSpec,
    label_field: str,
    path: str | Path | None = None,
    *,
    allow_empty: bool = False,
) -> LabelledSet:
    """Every example of a dataset (or a split folder's part at ``path``), read and checked by
    its task (a task or its registered name)."""
    return _kind(kind).read(spec, label_field, Path(path or spec.path), allow_empty)


def metric_value(kind: TaskKind | str, stats: np.ndarray) -> float:
    """The metric of a whole set."""
    metric = _kind(kind).metric
    return float(metric(np.asarray(stats).sum(axis=0), len(stats))) if len(stats) else float("nan")


def _kind(kind: TaskKind | str) -> TaskKind:
    return task_kind(kind) if isinstance(kind, str) else kind
