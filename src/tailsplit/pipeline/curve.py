"""``tailsplit curve``: ID and OOD accuracy at checkpoints through the task model's training
(per training-set size and encoder), the points in ``correlate``'s format, and the shape of
the ID–OOD relation per OOD set (BOSS's Type I / II / III).

A run is one (encoder, training-set size): the ``encoder`` recipe without checkpoint
selection, evaluated on ID test and every OOD set each ``checkpoint_every`` steps. Each
checkpoint's predictions are cached, and the training state after it is kept in the cache
while the run is unfinished, so an interrupted run continues where it stopped and gives the
same points as one that never stopped; the state is deleted when the run ends."""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NotRequired, TypedDict, cast

import numpy as np

from tailsplit.analysis.shift_report import correlate_markdown, curve_figure, curve_runs_markdown
from tailsplit.cache import default_cache_dir
from tailsplit.config import CurveConfig, check_values
from tailsplit.config.arguments import path_argument, paths_argument
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.evaluation.encoder import EncoderRecipe
from tailsplit.fingerprint import sha256_file, sha256_text
from tailsplit.io.claims import released_on_error
from tailsplit.io.outputs import check_output_folder, replace_file_bytes
from tailsplit.io.values import strict_json
from tailsplit.pipeline.correlate import relation_view
from tailsplit.pipeline.findings import Findings, config_writer, rows_of
from tailsplit.pipeline.keywords import known_keywords, progress_shown
from tailsplit.pipeline.recording import command_provenance, write_outputs
from tailsplit.progress import say, shown
from tailsplit.render import markdown_text
from tailsplit.render.console import View
from tailsplit.render.figures import figure_files
from tailsplit.render.pages import html_page
from tailsplit.render.provenance import with_provenance
from tailsplit.shift.correlate import classify
from tailsplit.shift.datasets import DatasetSpec
from tailsplit.shift.task_kinds import TaskKind, metric_value, task_fields, task_kind
from tailsplit.shift_models.heads import task_model
from tailsplit.shift_models.task_data import TaskData, check_task_model, dataset_files, task_data

POINT_COLUMNS = (
    "group", "id_acc", "ood_acc", "encoder", "train_size", "trainable_layers", "step", "id_examples", "ood_examples"
)  # fmt: skip


class CurveContent(TypedDict):
    """What ``curve`` finds (``curve.json`` holds it, less the points ``points.csv`` holds):
    the runs, the ID division and OOD sets, each OOD set's relation and every point;
    ``task`` and ``metric`` name a task other than classification."""

    task: NotRequired[str]
    metric: NotRequired[str]
    id: dict[str, Any]
    runs: list[dict[str, Any]]
    id_parts: dict[str, Any]
    label_map: dict[str, Any]
    ood: list[dict[str, Any]]
    groups: dict[str, dict[str, Any]]
    points: list[dict[str, Any]]


class CurveResult(Findings[CurveContent]):
    """ID and OOD accuracy at each checkpoint (``content["points"]``) and the relation fitted
    per OOD dataset (``content["groups"]``); its table has one row per point."""

    command = "curve"
    written = "points.csv, curve.json, report.md, report.html, figures, manifest.json"

    def rows(self) -> list[dict[str, Any]]:
        return rows_of(self.content["points"])

    def view(self) -> View:
        return relation_view(self.content["groups"])


@dataclass(frozen=True)
class Run:
    """One training run of the curve: an encoder and a training-set size."""

    location: str
    identity: str
    name: str
    train_size: int
    recipe: EncoderRecipe


def checkpoints(max_steps: int, every: int) -> list[int]:
    """
    >>> checkpoints(250, 100)
    [100, 200, 250]
    """
    steps = list(range(every, max_steps + 1, every))
    return steps if steps and steps[-1] == max_steps else [*steps, max_steps]


def _run_key(data: TaskData, run: Run) -> str:
    sets = (data.parts.train, data.parts.test, *data.ood)
    version = data.kind.cache_version("curve-run-v1")
    return sha256_text(
        version, *(s.fingerprint() for s in sets), run.identity, json.dumps(run.recipe.as_dict(), sort_keys=True)
    )


def _cached(folder: Path, step: int, sizes: list[int], kind: TaskKind) -> list[tuple[Any, ...]] | None:
    try:
        stored = json.loads((folder / f"step-{step}.json").read_text(encoding="utf-8"))
        predicted = [tuple(kind.prediction(v) for v in p) for p in stored]
    except (OSError, ValueError, TypeError):
        return None
    return predicted if [len(p) for p in predicted] == sizes else None


def _train(data: TaskData, run: Run, steps: list[int], folder: Path, device: str) -> dict[int, list[tuple[Any, ...]]]:
    """Every checkpoint's predictions on [ID test, *OOD sets]: from the cache, or by training
    (continuing from a saved state when there is one)."""
    sets = [data.parts.test, *data.ood]
    sizes = [len(s) for s in sets]
    found = {step: _cached(folder, step, sizes, data.kind) for step in steps}
    if all(p is not None for p in found.values()):
        say(f"{run.name}, {run.train_size:,} training examples: every checkpoint cached")
        return found  # type: ignore[return-value]
    say(f"{run.name}, {run.train_size:,} training examples: {max(steps):,} steps, {len(steps)} checkpoints")
    model = task_model(
        data.kind, data.parts.train, data.parts.dev, location=run.location, recipe=run.recipe, device=device
    )
    encoded = [model.encode(s) for s in sets]

    def on_checkpoint(step: int) -> None:
        predicted = [model.decode(e, s) for e, s in zip(encoded, sets)]
        folder.mkdir(parents=True, exist_ok=True)
        replace_file_bytes(folder / f"step-{step}.json", json.dumps(predicted).encode("utf-8"))
        found[step] = predicted
        say(f"checkpoint {step:,}: predicted {sum(sizes):,} examples")

    state = folder / "state.pt"
    model.model.fit_checkpoints(model.rows, model.labels, steps, on_checkpoint, state)
    state.unlink(missing_ok=True)  # the run is complete: its points are cached
    missing = [s for s, p in found.items() if p is None]
    if missing:  # cached before a state that was deleted by hand: they are older than the state
        raise ConfigError(f"checkpoints {missing} of a run could not be recomputed; clear {folder} and run again")
    return found  # type: ignore[return-value]


def encoder_layers(location: str) -> int | None:
    """The transformer layers of an encoder folder, read from its ``config.json`` (``None``
    where the folder does not say: a hub id, or another layout)."""
    try:
        return int(json.loads((Path(location) / "config.json").read_text(encoding="utf-8"))["num_hidden_layers"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _runs(config: CurveConfig, data: TaskData) -> list[Run]:
    n_train = len(data.parts.train)
    sizes = list(config.train_sizes) or [n_train]
    for size in sizes:
        if size > n_train:
            raise ConfigError(f"--train-sizes asks for {size} examples and ID train holds {n_train}; give ≤ {n_train}")
    if len(set(sizes)) != len(sizes):
        raise ConfigError(f"--train-sizes={','.join(map(str, sizes))} repeats a size; give each once")
    layers: list[int | None] = list(config.trainable_layers) or [None]
    if len(set(layers)) != len(layers):
        raise ConfigError(f"--trainable-layers={','.join(map(str, layers))} repeats a count; give each once")
    given: list[str | None] = list(config.encoders) or [None]
    encoders = [check_task_model(config.device, e) for e in given]
    if len({name for *_, name in encoders}) != len(encoders):
        raise ConfigError("--encoder names the same encoder twice (or two of one name); give each once")
    for location, _, name in encoders:
        depth = encoder_layers(location)
        if depth is not None and max(config.trainable_layers, default=0) > depth:
            raise ConfigError(
                f"--trainable-layers={max(config.trainable_layers)} exceeds the {depth} layers of encoder {name!r}; "
                f"give at most {depth}"
            )
    return [
        Run(
            location,
            identity,
            name,
            size,
            EncoderRecipe(
                max_steps=config.max_steps,
                max_train=None if size >= n_train else size,
                seed=config.seed,
                trainable_layers=tuned,
            ),
        )
        for location, identity, name in encoders
        for size in sizes
        for tuned in layers
    ]


def _points(data: TaskData, run: Run, by_step: dict[int, list[tuple[Any, ...]]]) -> list[dict[str, Any]]:
    """One point per checkpoint and OOD set: the task's metric on ID test and on the set (for
    NER and QA the columns named ``id_acc`` and ``ood_acc`` hold entity F1 and F1)."""
    points = []
    for step in sorted(by_step):
        id_predicted, *ood_predicted = by_step[step]
        id_acc = metric_value(data.kind, data.kind.example_stats(id_predicted, data.parts.test.labels, {}))
        for s, predicted in zip(data.ood, ood_predicted):
            points.append(
                {
                    "group": s.name,
                    "id_acc": id_acc,
                    "ood_acc": metric_value(data.kind, data.kind.example_stats(predicted, s.labels, data.label_map)),
                    "encoder": run.name,
                    "train_size": run.train_size,
                    "trainable_layers": "all" if run.recipe.trainable_layers is None else run.recipe.trainable_layers,
                    "step": step,
                    "id_examples": len(data.parts.test),
                    "ood_examples": len(s),
                }
            )
    return points


def points_csv(points: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=POINT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: repr(v) if isinstance(v, float) else v for k, v in p.items()} for p in points)
    return buffer.getvalue()


@released_on_error
@keyword_spelling
def curve_config(config: CurveConfig, *, command: list[str] | None = None) -> CurveResult:
    """Train on ID, evaluate ID test and every OOD set at each checkpoint, fit the relation."""
    check_values(config)
    if not config.id or not config.ood:
        raise ConfigError("curve needs --id DATASET and at least one --ood DATASET")
    if config.out is None:
        raise ConfigError("curve needs --out DIR: it writes points.csv, the fits, the figure and the report there")
    id_spec = task_fields(task_kind(config.task), DatasetSpec.parse(config.id), config.label_field)[0]
    ood_specs = [DatasetSpec.parse(o) for o in config.ood]
    names = [id_spec.name, *(s.name for s in ood_specs)]
    if len(set(names)) != len(names):
        raise ConfigError(f"dataset names {names} repeat; name each NAME=PATH")
    check_output_folder(config.out, overwrite=config.overwrite, inputs=[id_spec.path, *(s.path for s in ood_specs)])
    data = task_data(config, id_spec, ood_specs)
    runs = _runs(config, data)
    steps = checkpoints(config.max_steps, config.checkpoint_every)
    if len(runs) * len(steps) < 3:
        raise ConfigError(
            f"{len(runs)} run(s) × {len(steps)} checkpoint(s) give fewer than the 3 points a fit needs; "
            "lower --checkpoint-every or add --train-sizes or --trainable-layers"
        )
    cache = default_cache_dir() / "curves"
    points = []
    for run in runs:
        by_step = _train(data, run, steps, cache / _run_key(data, run), config.device)
        points += _points(data, run, by_step)
    relations = _fits(points)
    result = {
        "id": id_spec.describe(),
        **({"metric": data.kind.metric_name} if data.kind.named_in_results else {}),
        "runs": [
            {
                "encoder": r.name,
                "encoder_identity": r.identity,
                "train_size": r.train_size,
                "trainable_layers": "all" if r.recipe.trainable_layers is None else r.recipe.trainable_layers,
                "recipe": r.recipe.as_dict(),
                "checkpoints": steps,
            }
            for r in runs
        ],
        **data.describe(),
        "groups": {
            g: (r.as_dict() if not isinstance(r, str) else {"type": None, "reason": r}) for g, r in relations.items()
        },
    }
    paths = [id_spec.path, *(s.path for s in ood_specs)]

    write = config_writer(_write, config, result, points, relations, paths, command)
    write(Path(config.out), config.overwrite)
    return CurveResult(cast(CurveContent, {**result, "points": points}), Path(config.out), write)


def _fits(points: list[dict[str, Any]]) -> dict[str, Any]:
    """Per OOD set, the fitted relation, or why it cannot be fitted (never an error after training)."""
    relations: dict[str, Any] = {}
    for group in dict.fromkeys(p["group"] for p in points):
        mine = [p for p in points if p["group"] == group]
        try:
            relations[group] = classify(np.array([p["id_acc"] for p in mine]), np.array([p["ood_acc"] for p in mine]))
        except ConfigError as exc:
            relations[group] = f"cannot be fitted: {exc}"
    return relations


def _write(
    out: Path,
    config: CurveConfig,
    result: dict[str, Any],
    points: list[dict[str, Any]],
    relations: dict[str, Any],
    paths: list[str],
    command: list[str] | None,
) -> None:
    inputs = [{"path": p, "sha256": sha256_file(p)} for path in paths for p in dataset_files(path)]
    provenance = command_provenance(command, inputs, seed=config.seed)
    fitted = {g: r for g, r in relations.items() if not isinstance(r, str)}
    metric = result.get("metric", "accuracy")
    markdown = (
        f"# ID–OOD {metric} through training: {markdown_text(result['id']['name'])}\n\n"
        + curve_runs_markdown(result, points)
        + "\n"
        + correlate_markdown({"groups": {g: r.as_dict() for g, r in fitted.items()}, "metric": metric})
        + "".join(f"\n{markdown_text(g)}: {markdown_text(r)}\n" for g, r in relations.items() if isinstance(r, str))
    )
    figures = {f"ID vs OOD {metric}": curve_figure(points, fitted, metric)}
    write_outputs(
        out,
        config,
        {
            "points.csv": points_csv(points),
            "curve.json": strict_json(result),
            "report.md": with_provenance(markdown, provenance),
            "report.html": html_page(f"ID–OOD {metric} through training", markdown, figures, provenance),
            **figure_files(figures),
        },
        inputs,
        {},
        command,
    )


# fmt: off
@known_keywords()
def curve(
    id: str | os.PathLike[str],  # noqa: A002 - BOSS's name
    ood: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    task: str = "classification", label_field: str = "label", label_map: str | Sequence[str] = (),
    id_test_size: float = 0.2, id_dev_size: float = 0.1, id_group: str | None = None,
    encoders: str | Sequence[str] = (), train_sizes: int | Sequence[int] = (),
    trainable_layers: int | Sequence[int] = (), max_steps: int = 800, checkpoint_every: int = 100,
    max_examples: int | None = None, device: str = "auto", seed: int = 0, out: str | os.PathLike[str] | None = None,
    overwrite: bool = False, progress: bool | None = None,
) -> CurveResult:
    """``tailsplit curve``: a task model trained on ``id``, ID and OOD accuracy at each
    checkpoint, and the fitted relation (needs ``out=``: it writes its points and fits)."""
    config = CurveConfig(
        id=path_argument("id", id, "the ID dataset"), ood=paths_argument("ood", ood, "OOD datasets"), task=task,
        label_field=label_field, label_map=label_map, id_test_size=id_test_size, id_dev_size=id_dev_size,  # type: ignore[arg-type]  # kept in its declared form when built
        id_group=id_group, encoders=encoders, train_sizes=train_sizes, trainable_layers=trainable_layers,  # type: ignore[arg-type]  # kept in its declared form when built
        max_steps=max_steps, checkpoint_every=checkpoint_every, max_examples=max_examples, device=device, seed=seed,
        out=out, overwrite=overwrite)  # type: ignore[arg-type]
    check_values(config)
    with shown(progress_shown(progress)):
        return curve_config(config)
# fmt: on
