"""The task model BOSS's measurements need, shared by ``ood-rank`` and ``curve``: the ID
dataset's parts and the OOD sets read and checked (labels mapped) before any model loads, and
one fine-tuning of the ``encoder`` recipe on ID train — a classifier, a token tagger (NER) or a
span extractor (QA), as ``--task`` says — whose predictions on ID test and every OOD set are
cached."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tailsplit.analysis.split_dir import part_file, read_manifest
from tailsplit.cache import default_cache_dir
from tailsplit.core import SPLIT_PARTS
from tailsplit.errors import ConfigError
from tailsplit.evaluation.encoder import EncoderRecipe, check_encoder_spec
from tailsplit.fingerprint import sha256_text
from tailsplit.io.manifest import MANIFEST
from tailsplit.io.outputs import replace_file_bytes
from tailsplit.log import logger
from tailsplit.progress import say
from tailsplit.scoring.models import check_device
from tailsplit.shift.datasets import DatasetSpec, load_texts, sample_indices
from tailsplit.shift.encoder import EncoderSource
from tailsplit.shift.labelled import IdParts, LabelledSet, group_keys, id_parts, parse_label_map
from tailsplit.shift.task_kinds import TaskKind, read_examples, task_fields, task_kind
from tailsplit.shift_models.heads import task_model


@dataclass(frozen=True)
class TaskData:
    """The ID parts, the OOD sets in ID's label terms, the label map and the task."""

    parts: IdParts
    ood: list[LabelledSet]
    label_map: dict[str, str]
    kind: TaskKind = field(default_factory=lambda: task_kind("classification"))

    def describe(self) -> dict[str, Any]:
        kind = self.kind
        named = {"task": kind.name, "metric": kind.metric_name} if kind.named_in_results else {}
        return {
            **named,
            "id_parts": {**self.parts.describe(), **_passages(kind.passages_in_train(self.parts))},
            "label_map": self.label_map,
            "ood": [{"name": s.name, "examples": len(s), "dropped_by_label_map": s.dropped} for s in self.ood],
        }


def _passages(in_train: int | None) -> dict[str, int]:
    return {} if in_train is None else {"test_contexts_in_train": in_train}


def task_data(config: Any, id_spec: DatasetSpec, ood_specs: Sequence[DatasetSpec]) -> TaskData:
    """Every file read and checked: fields, labels, label map, the ID division."""
    kind = task_kind(config.task)
    label_map = parse_label_map(config.label_map)
    kind.check_label_map(label_map)
    if config.id_test_size <= 0:
        raise ConfigError(f"--id-test-size={config.id_test_size:g} must be positive; the task model needs an ID test")
    id_spec, label_field = task_fields(kind, id_spec, config.label_field)
    parts = _id_parts(kind, id_spec, label_field, config)
    kind.check_id_train(parts.train, id_spec.path)
    ood = []
    for spec in ood_specs:
        spec, _ = task_fields(kind, spec, config.label_field)
        if len(spec.fields) != len(id_spec.fields):
            raise ConfigError(
                f"{spec.name!r} gives {len(spec.fields)} text field(s) ({'+'.join(spec.fields)}) and the ID "
                f"data {len(id_spec.fields)} ({'+'.join(id_spec.fields)}); the task model reads the same number"
            )
        labelled = kind.mapped_candidate(read_examples(kind, spec, label_field), parts.train, label_map)
        if not len(labelled):
            raise ConfigError(f"{spec.name!r} ({spec.path}) has no example left after the label map drops its labels")
        ood.append(labelled.sample(config.max_examples, config.seed))
    return TaskData(parts, ood, label_map, kind)


def published_parts(folder: Path) -> dict[str, Path] | None:
    """A folder's own train, dev (or validation) and test files, as many datasets ship (WNUT-17,
    CoNLL-2003): ``None`` unless it holds a train and a test file, one of each name.

    >>> published_parts(Path("no-such-folder")) is None
    True
    """
    if not folder.is_dir() or (folder / MANIFEST).is_file():
        return None
    found: dict[str, list[Path]] = {}
    for path in sorted(folder.iterdir()):
        stem = path.name.split(".")[0].lower()
        part = {"validation": "dev", "valid": "dev"}.get(stem, stem)
        if path.is_file() and part in SPLIT_PARTS:
            found.setdefault(part, []).append(path)
    saved = any((folder / name).is_file() for name in ("dataset_dict.json", "dataset_info.json", "state.json"))
    if found and not saved and ("train" not in found or "test" not in found):
        held = ", ".join(p.name for paths in found.values() for p in paths)
        missing = " and ".join(p for p in ("train", "test") if p not in found)
        raise ConfigError(
            f"the ID folder {str(folder)!r} holds {held} but no {missing} file; a folder of the dataset's own "
            "parts gives train and test (and dev or validation) files, e.g. train.jsonl, dev.jsonl, test.jsonl — "
            "or give one file, which is divided here"
        )
    if "train" not in found or "test" not in found:
        return None
    repeated = next((part for part, paths in found.items() if len(paths) > 1), None)
    if repeated is not None:
        raise ConfigError(f"the ID folder {str(folder)!r} holds {len(found[repeated])} {repeated} files; keep one")
    return {part: paths[0] for part, paths in found.items()}


def _id_groups(kind: TaskKind, config: Any, spec: DatasetSpec, whole: LabelledSet) -> tuple[str, ...] | None:
    """What the ID file's random split keeps whole: ``--id-group``'s field, for QA else each
    question's context paragraph (a paragraph in train and test leaks its answers)."""
    if config.id_group is not None:
        return group_keys(spec.path, config.id_group, kind.columns_format(spec.path))
    groups = kind.id_groups(whole)
    return None if groups is None else tuple(groups)


def _id_parts(kind: TaskKind, spec: DatasetSpec, label_field: str, config: Any) -> IdParts:
    """A split folder's own parts, a folder's published train/dev/test files, or the ID file
    divided by a seeded random split of whole groups (:func:`_id_groups`; a published split
    without dev: dev drawn from train). QA parts whose test questions share a context with
    train are said loudly (:func:`_warn_shared_passages`)."""
    parts = _read_id_parts(kind, spec, label_field, config)
    _warn_shared_passages(spec, parts, kind)
    return parts


def _warn_shared_passages(spec: DatasetSpec, parts: IdParts, kind: TaskKind) -> None:
    shared = kind.passages_in_train(parts)
    if shared:
        logger.warning(
            "%d of the %d ID test questions of %s (%s) share their context paragraph with ID train: the ID score "
            "is measured on paragraphs the model trained on, and every drop against an inflated ID score; give an ID "
            "split by passage or article (e.g. tailsplit split ... --group title)",
            shared, len(parts.test), spec.name, parts.origin,
        )  # fmt: skip


def _read_id_parts(kind: TaskKind, spec: DatasetSpec, label_field: str, config: Any) -> IdParts:
    folder = Path(spec.path)
    published = published_parts(folder)
    if config.id_group is not None and (published is not None or (folder / MANIFEST).is_file()):
        raise ConfigError(
            f"--id-group={config.id_group!r} groups the random split of an ID file; {spec.path!r} is a folder "
            "whose own parts are used as they are: drop --id-group, or give the file"
        )
    if published is not None:
        read = {
            p: replace(read_examples(kind, spec, label_field, path), name=f"{spec.name}:{p}")
            for p, path in published.items()
        }
        if "dev" not in read:
            drawn = id_parts(read["train"], test_size=config.id_dev_size, dev_size=0, seed=config.seed)
            read["train"], read["dev"] = drawn.train, replace(drawn.test, name=f"{spec.name}:dev")
        return IdParts(read["train"], read["dev"], read["test"], "the dataset's own train, dev and test files")
    if not (folder.is_dir() and (folder / MANIFEST).is_file()):
        whole = read_examples(kind, spec, label_field)
        return id_parts(
            whole,
            test_size=config.id_test_size,
            dev_size=config.id_dev_size,
            seed=config.seed,
            groups=_id_groups(kind, config, spec, whole),
        )
    manifest = read_manifest(folder)
    parts = {
        p: replace(
            read_examples(kind, spec, label_field, part_file(folder, manifest, p), allow_empty=True),
            name=f"{spec.name}:{p}",
        )
        for p in SPLIT_PARTS
    }
    for part in ("train", "test"):
        if not len(parts[part]):
            raise ConfigError(f"the ID split folder {spec.path!r} has an empty {part} part")
    return IdParts(parts["train"], parts["dev"], parts["test"], "split folder")


def dataset_texts(spec: DatasetSpec, max_examples: int | None, seed: int) -> list[str]:
    """The texts of a dataset path — a data file, a datasets folder, a folder of published
    train/dev/test files, or a split folder (its parts, verified against its manifest) —
    sampled as :func:`load_texts`."""
    folder = Path(spec.path)
    published = published_parts(folder)
    if published is not None:
        texts = [t for path in published.values() for t in load_texts(replace(spec, path=str(path)))]
    elif not (folder.is_dir() and (folder / MANIFEST).is_file()):
        return load_texts(spec, max_examples, seed)
    else:
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
    kind: TaskKind,
    train: LabelledSet,
    dev: LabelledSet,
    evaluations: Mapping[str, LabelledSet],
    *,
    location: str,
    recipe: EncoderRecipe,
    device: str = "auto",
) -> tuple[dict[str, Any], dict[str, tuple[Any, ...]]]:
    """Fine-tune on train, select on dev (as :func:`finetune_encoder`), then predict every
    example of every set in ``evaluations``. Returns (what training did, the predictions by set)."""
    say(f"training the {kind.name} task model on {len(train):,} examples (at most {recipe.max_steps:,} steps)")
    model = task_model(kind, train, dev, location=location, recipe=recipe, device=device)
    dev_score, steps, best_step, train_rate = model.model.fit(model.rows, model.labels, *model.dev)
    say(f"predicting {sum(len(s) for s in evaluations.values()):,} examples of {len(evaluations)} set(s)")
    predictions = {name: model.predict(s) for name, s in evaluations.items()}
    training = {
        f"dev_{kind.metric_name.replace(' ', '_').lower()}": round(dev_score, 4),
        "steps": steps,
        "best_step": best_step,
        "max_length": model.max_length,
        "train_examples": min(len(train), recipe.max_train or len(train)),
        **kind.training_counts(model.rows),
        "train_examples_per_s": round(train_rate, 2),
    }
    return training, predictions


def prediction_rows(
    data: TaskData, id_predicted: Sequence[Any], ood_predicted: Sequence[Sequence[Any]]
) -> list[dict[str, Any]]:
    """Every evaluated example with the task model's prediction beside its gold answer: the ID
    test part's, then each OOD set's, in their order (``predictions.jsonl`` of ``ood-rank``)."""
    sets = [(data.parts.test.name, data.parts.test, id_predicted)]  # named NAME:test
    sets += [(s.name, s, p) for s, p in zip(data.ood, ood_predicted)]
    return [
        {"set": name, "row": i, "text": text, "gold": gold, "prediction": predicted}
        for name, labelled, predictions in sets
        for i, (text, gold, predicted) in enumerate(zip(labelled.texts(), labelled.labels, predictions))
    ]


def _prediction_key(data: TaskData, sets: Sequence[LabelledSet], identity: str, recipe: EncoderRecipe) -> str:
    version = data.kind.cache_version("ood-task-model-v1")
    return sha256_text(
        version,
        *(s.fingerprint() for s in (data.parts.train, data.parts.dev, *sets)),
        identity,
        json.dumps(recipe.as_dict(), sort_keys=True),
    )


def predictions(
    data: TaskData, *, location: str, identity: str, recipe: EncoderRecipe, device: str
) -> tuple[dict[str, Any], tuple[Any, ...], list[tuple[Any, ...]], bool]:
    """(what training did, predictions on ID test, predictions per OOD set, from the cache)."""
    parts = data.parts
    sets = [parts.test, *data.ood]
    path = default_cache_dir() / "evaluations" / f"ood-{_prediction_key(data, sets, identity, recipe)}.json"
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        predicted = [tuple(data.kind.prediction(v) for v in p) for p in stored["predictions"]]
        if [len(p) for p in predicted] == [len(s) for s in sets]:
            say("the task model's predictions are cached: no training")
            return stored["training"], predicted[0], predicted[1:], True
    except (OSError, ValueError, KeyError, TypeError):
        pass  # absent or damaged: train
    training, by_set = fit_and_predict(
        data.kind,
        parts.train,
        parts.dev,
        {str(i): s for i, s in enumerate(sets)},
        location=location,
        recipe=recipe,
        device=device,
    )
    predicted = [by_set[str(i)] for i in range(len(sets))]
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file_bytes(path, json.dumps({"training": training, "predictions": predicted}).encode("utf-8"))
    return training, predicted[0], predicted[1:], False
