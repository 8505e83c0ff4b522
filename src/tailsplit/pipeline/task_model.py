"""The task model BOSS's measurements need, shared by ``ood-rank`` and ``curve``: the ID
dataset's parts and the OOD sets read and checked (labels mapped) before any model loads, and
one fine-tuning of the ``encoder`` recipe on ID train whose predictions on ID test and every
OOD set are cached."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.analysis.split_dir import part_file, read_manifest
from tailsplit.cache import default_cache_dir
from tailsplit.core import SPLIT_PARTS
from tailsplit.errors import ConfigError
from tailsplit.evaluation.encoder import EncoderRecipe, check_encoder_spec, max_length_of, prepared_classifier
from tailsplit.fingerprint import sha256_text
from tailsplit.io.outputs import replace_file_bytes
from tailsplit.scoring.models import check_device
from tailsplit.shift.datasets import DatasetSpec, load_texts, sample_indices
from tailsplit.shift.encoder import EncoderSource
from tailsplit.shift.labelled import IdParts, LabelledSet, id_parts, mapped, parse_label_map, read_labelled


@dataclass(frozen=True)
class TaskData:
    """The ID parts, the OOD sets in ID's label terms, and the label map."""

    parts: IdParts
    ood: list[LabelledSet]
    label_map: dict[str, str]

    def describe(self) -> dict[str, Any]:
        return {
            "id_parts": self.parts.describe(),
            "label_map": self.label_map,
            "ood": [{"name": s.name, "examples": len(s), "dropped_by_label_map": s.dropped} for s in self.ood],
        }


def task_data(config: Any, id_spec: DatasetSpec, ood_specs: Sequence[DatasetSpec]) -> TaskData:
    """Every file read and checked: fields, labels, label map, the ID division."""
    label_map = parse_label_map(config.label_map)
    if config.id_test_size <= 0:
        raise ConfigError(f"--id-test-size={config.id_test_size:g} must be positive; the task model needs an ID test")
    parts = _id_parts(id_spec, config)
    id_labels = sorted(set(parts.train.labels))
    if len(id_labels) < 2:
        raise ConfigError(f"ID train of {id_spec.path!r} has one label ({id_labels}); the task model needs two or more")
    ood = []
    for spec in ood_specs:
        if len(spec.fields) != len(id_spec.fields):
            raise ConfigError(
                f"{spec.name!r} gives {len(spec.fields)} text field(s) ({'+'.join(spec.fields)}) and the ID "
                f"data {len(id_spec.fields)} ({'+'.join(id_spec.fields)}); the task model reads the same number"
            )
        labelled = mapped(read_labelled(spec, config.label_field), id_labels, label_map)
        if not len(labelled):
            raise ConfigError(f"{spec.name!r} ({spec.path}) has no example left after the label map drops its labels")
        ood.append(labelled.sample(config.max_examples, config.seed))
    return TaskData(parts, ood, label_map)


def _id_parts(spec: DatasetSpec, config: Any) -> IdParts:
    """A split folder's own parts, or the ID file divided by a seeded random split."""
    folder = Path(spec.path)
    if not folder.is_dir():
        whole = read_labelled(spec, config.label_field)
        return id_parts(whole, test_size=config.id_test_size, dev_size=config.id_dev_size, seed=config.seed)
    manifest = read_manifest(folder)
    parts = {
        p: replace(
            read_labelled(spec, config.label_field, part_file(folder, manifest, p), allow_empty=True),
            name=f"{spec.name}:{p}",
        )
        for p in SPLIT_PARTS
    }
    for part in ("train", "test"):
        if not len(parts[part]):
            raise ConfigError(f"the ID split folder {spec.path!r} has an empty {part} part")
    return IdParts(parts["train"], parts["dev"], parts["test"], "split folder")


def dataset_texts(spec: DatasetSpec, max_examples: int | None, seed: int) -> list[str]:
    """The texts of a dataset path — a data file, a datasets folder, or a split folder (its
    train, dev and test parts, verified against its manifest) — sampled as :func:`load_texts`."""
    folder = Path(spec.path)
    if not (folder.is_dir() and (folder / "manifest.json").is_file()):
        return load_texts(spec, max_examples, seed)
    manifest = read_manifest(folder)
    texts = [t for p in SPLIT_PARTS for t in load_texts(replace(spec, path=str(part_file(folder, manifest, p))))]
    keep = sample_indices(len(texts), max_examples, seed)
    return texts if keep is None else [texts[i] for i in keep.tolist()]


def dataset_files(path: str) -> list[str]:
    """The data files of a dataset path: itself, or a split folder's files."""
    folder = Path(path)
    if not folder.is_dir():
        return [path]
    return [str(f) for f in sorted(folder.iterdir()) if f.is_file()]


def check_task_model(device: str, encoder: str | None) -> tuple[str, str, str]:
    """(location, identity, name) of the task encoder, and the device, checked without loading."""
    check_device(device)
    location, identity = check_encoder_spec(encoder)
    return location, identity, EncoderSource.resolve(encoder).name


def fit_and_predict(
    train_columns: Sequence[Sequence[str]],
    train_labels: Sequence[str],
    dev_columns: Sequence[Sequence[str]],
    dev_labels: Sequence[str],
    evaluations: Mapping[str, Sequence[Sequence[str]]],
    *,
    location: str,
    recipe: EncoderRecipe,
    device: str = "auto",
) -> tuple[dict[str, Any], dict[str, tuple[str, ...]]]:
    """Fine-tune on train, select on dev (as :func:`finetune_encoder`), then predict a label
    for every example of every set in ``evaluations``. Returns (what training did, the
    predictions by set)."""
    classifier, train_rows, y_train = prepared_classifier(
        train_columns, train_labels, location=location, recipe=recipe, device=device
    )
    index = {label: i for i, label in enumerate(classifier.labels)}
    max_length = max_length_of(train_rows)
    dev_rows = classifier.encode(dev_columns, max_length)
    dev_y = np.asarray([index.get(v, -1) for v in dev_labels], dtype=np.int64)
    dev_acc, steps, best_step, train_rate = classifier.fit(train_rows, y_train, dev_rows, dev_y)
    predictions = {name: classifier.predicted_labels(columns, max_length) for name, columns in evaluations.items()}
    training = {
        "dev_accuracy": round(dev_acc, 4),
        "steps": steps,
        "best_step": best_step,
        "max_length": max_length,
        "train_examples": len(train_rows),
        "train_examples_per_s": round(train_rate, 2),
    }
    return training, predictions


def predictions(
    data: TaskData, *, location: str, identity: str, recipe: EncoderRecipe, device: str
) -> tuple[dict[str, Any], tuple[str, ...], list[tuple[str, ...]], bool]:
    """(what training did, predictions on ID test, predictions per OOD set, from the cache)."""
    parts = data.parts
    sets = [parts.test, *data.ood]
    key = sha256_text(
        "ood-task-model-v1",
        *(s.fingerprint() for s in (parts.train, parts.dev, *sets)),
        identity,
        json.dumps(recipe.as_dict(), sort_keys=True),
    )
    path = default_cache_dir() / "evaluations" / f"ood-{key}.json"
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        predicted = [tuple(p) for p in stored["predictions"]]
        if [len(p) for p in predicted] == [len(s) for s in sets]:
            return stored["training"], predicted[0], predicted[1:], True
    except (OSError, ValueError, KeyError, TypeError):
        pass  # absent or damaged: train
    training, by_set = fit_and_predict(
        parts.train.columns,
        parts.train.labels,
        parts.dev.columns,
        parts.dev.labels,
        {str(i): s.columns for i, s in enumerate(sets)},
        location=location,
        recipe=recipe,
        device=device,
    )
    predicted = [by_set[str(i)] for i in range(len(sets))]
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file_bytes(path, json.dumps({"training": training, "predictions": predicted}).encode("utf-8"))
    return training, predicted[0], predicted[1:], False
