"""``tailsplit ood-rank``: OOD candidates for an ID dataset, decided and ranked by BOSS's criteria."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NotRequired, TypedDict, cast

import numpy as np

from tailsplit.analysis.shift_report import (
    ood_markdown,
)
from tailsplit.config import OodRankConfig, check_values
from tailsplit.config.arguments import path_argument
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.evaluation.encoder import EncoderRecipe
from tailsplit.fingerprint import sha256_file
from tailsplit.io.claims import released_on_error
from tailsplit.io.values import json_lines, strict_json
from tailsplit.pipeline.findings import Findings, config_writer, rows_of
from tailsplit.pipeline.keywords import known_keywords, progress_shown
from tailsplit.pipeline.recording import command_provenance, write_outputs
from tailsplit.pipeline.shift_common import check_out, embed_texts, shift_encoder
from tailsplit.progress import shown
from tailsplit.render.console import Line, View
from tailsplit.render.pages import html_page
from tailsplit.render.provenance import with_provenance
from tailsplit.shift.csv_inputs import read_candidates
from tailsplit.shift.datasets import DatasetSpec, load_texts
from tailsplit.shift.drops import RESAMPLES, Measured, metric_and_drops
from tailsplit.shift.ood import Candidate, id_model_unlearnt, rank_candidates
from tailsplit.shift.similarity import centroid_similarity
from tailsplit.shift.task_kinds import task_fields, task_kind
from tailsplit.shift_models.task_data import (
    TaskData,
    check_task_model,
    dataset_files,
    dataset_texts,
    prediction_rows,
    predictions,
    task_data,
)


class OodRankContent(TypedDict):
    """What ``ood-rank`` finds (``ood.json`` holds it, less the embedding's timings); ``task``
    and ``metric`` name a task other than classification."""

    task: NotRequired[str]
    metric: NotRequired[str]
    id: dict[str, Any]
    encoder: dict[str, Any]
    task_model: dict[str, Any]
    decisions: list[dict[str, Any]]
    kept: list[str]
    embedding: dict[str, Any]


class OodRankResult(Findings[OodRankContent]):
    """Each candidate's decision (``content["decisions"]``: kept or not, its rank, similarity,
    drop and the reasons), the names kept in rank order (``content["kept"]``) and the ID
    accuracy; its table has one row per decision."""

    command = "ood-rank"
    written = "ood.json, report.md, report.html, predictions.jsonl when the task model ran, manifest.json"

    def rows(self) -> list[dict[str, Any]]:
        return rows_of(self.content["decisions"])

    def view(self) -> View:
        lines: View = []
        c = self.content
        task = c["task_model"]
        if task["measured"]:
            low, high = c["id"]["accuracy_ci"]
            origin = "cached" if task["cached"] else f"{task['training']['steps']} steps"
            lines.append(
                Line(
                    f"ID test {c.get('metric', 'accuracy')} {c['id']['accuracy']:.3f} (95% CI {low:.3f} to {high:.3f}; "
                    f"{c['id']['examples']:,} examples; {task['encoder']}, {origin})"
                )
            )
        for d in c["decisions"]:
            mark = f"#{d['rank']}" if d["kept"] else "?" if d.get("undecided") else "--"
            lines.append(
                Line(
                    f"{mark:>4} {d['name']} ({d['source']}, similarity {d['similarity']:.1f}): {'; '.join(d['reasons'])}"
                )
            )
        return lines


@released_on_error
@keyword_spelling
def ood_rank_config(config: OodRankConfig, *, command: list[str] | None = None) -> OodRankResult:
    """Embed the ID dataset and every candidate; measure the task model's drop on each (unless
    accuracies are given); decide and rank by BOSS's criteria."""
    check_values(config)

    kind = task_kind(config.task)
    id_spec = task_fields(kind, DatasetSpec.parse(config.id), config.label_field)[0]
    check_out(config, [id_spec.path, config.candidates])
    listed = read_candidates(config.candidates)
    check_out(config, [c.dataset.path for c in listed])
    specs = [c.dataset for c in listed]
    data, model, texts = _ood_inputs(config, id_spec, specs, _measures_drops(config, id_spec, listed))
    encoder = shift_encoder(config)
    try:
        vectors, embedding = embed_texts(encoder, texts)
    finally:
        encoder.close()
    similarity_to_id = centroid_similarity(vectors)[0, 1:]
    task: dict[str, Any] = {"measured": False}
    id_accuracy, unlearnt = config.id_accuracy, None
    rows: list[dict[str, Any]] = []  # each evaluated example's prediction, when the task model runs
    if data is not None:
        recipe = EncoderRecipe(max_steps=config.max_steps, max_train=config.max_train, seed=config.seed)
        task, id_measure, candidates, rows = _measured_candidates(data, model, recipe, config, listed, similarity_to_id)
        id_accuracy = id_measure.value
        unlearnt = id_model_unlearnt(
            id_measure.value,
            id_measure.low,
            kind.trivial_score(data.parts.test),
            config.min_id_metric,
            kind.metric_name,
        )
    else:
        candidates = [
            Candidate(c.dataset.name, c.source, float(sim), c.accuracy) for c, sim in zip(listed, similarity_to_id)
        ]
    decisions = rank_candidates(
        candidates,
        id_accuracy=id_accuracy,
        max_similarity=config.max_similarity,
        min_drop=config.min_drop,
        undecided=unlearnt,
    )
    measured: dict[str, Any] = (
        {"accuracy_ci": task["id_accuracy"]["ci"], "examples": task["id_accuracy"]["n"]} if data else {}
    )
    result: dict[str, Any] = {
        **({"task": kind.name, "metric": kind.metric_name} if kind.named_in_results else {}),
        "id": {**id_spec.describe(), "accuracy": task["id_accuracy"]["value"] if data else id_accuracy, **measured},
        "encoder": dataclasses.asdict(encoder.source),
        "task_model": task,
        "decisions": [d.as_dict() for d in decisions],
        "kept": [d.candidate.name for d in sorted((d for d in decisions if d.kept), key=lambda d: d.rank or 0)],
    }
    paths = [*dataset_files(id_spec.path), *(s.path for s in specs)]
    write = config_writer(_write_ood, config, result, paths, embedding, rows, command)
    if config.out is not None:
        write(Path(config.out), config.overwrite)
    content = cast(OodRankContent, {**result, "embedding": embedding})
    return OodRankResult(content, None if config.out is None else Path(config.out), write)


def _measures_drops(config: OodRankConfig, id_spec: DatasetSpec, listed: list[Any]) -> bool:
    """Whether the task model is trained: unless accuracies are given (they win) or
    ``--skip-training``; names checked distinct."""
    names = [id_spec.name]
    for spec in (c.dataset for c in listed):
        if spec.name in names:
            raise ConfigError(f"candidate name {spec.name!r} is used twice (or is the ID dataset's); names must differ")
        names.append(spec.name)
    measure = not config.skip_training and all(c.accuracy is None for c in listed)
    if measure and config.id_accuracy is not None:
        raise ConfigError(
            "--id-accuracy goes with the accuracies of a candidates CSV; without them ood-rank measures both "
            "(or pass --skip-training to rank by similarity alone)"
        )
    return measure


def _ood_inputs(
    config: OodRankConfig, id_spec: DatasetSpec, specs: list[DatasetSpec], measure: bool
) -> tuple[TaskData | None, tuple[str, str, str], dict[str, list[str]]]:
    """The task data and model (when drops are measured; everything checked before a model
    loads) and the texts to embed, per dataset."""
    if not measure:
        specs = [
            task_fields(task_kind(config.task), s, config.label_field)[0] for s in specs
        ]  # the ID spec: resolved when parsed
        texts = {id_spec.name: dataset_texts(id_spec, config.max_examples, config.seed)}
        return None, ("", "", ""), texts | {s.name: load_texts(s, config.max_examples, config.seed) for s in specs}
    data = task_data(config, id_spec, specs)
    texts = {id_spec.name: data.parts.whole().sample(config.max_examples, config.seed).texts()}
    if config.max_examples is not None:  # every dataset sampled, ID test too (the candidates are, in task_data)
        test = data.parts.test.sample(config.max_examples, config.seed)
        data = dataclasses.replace(data, parts=dataclasses.replace(data.parts, test=test))
    model = check_task_model(config.device, config.task_encoder)
    return data, model, texts | {s.name: s.texts() for s in data.ood}


def _write_ood(
    out: Path,
    config: OodRankConfig,
    result: dict[str, Any],
    paths: list[str],
    embedding: dict[str, Any],
    rows: list[dict[str, Any]],
    command: list[str] | None,
) -> None:
    inputs = [{"path": p, "sha256": sha256_file(p)} for p in [config.candidates, *paths]]
    markdown = ood_markdown(result)
    provenance = command_provenance(command, inputs, model=result["encoder"], seed=config.seed)
    files: dict[str, str | bytes] = {
        "ood.json": strict_json(result),
        "report.md": with_provenance(markdown, provenance),
        "report.html": html_page("OOD candidates", markdown, {}, provenance),
        **({"predictions.jsonl": json_lines(rows)} if rows else {}),
    }
    cached = result["task_model"].get("cached")
    write_outputs(out, config, files, inputs, {"embedding": embedding, "task_model_cached": cached}, command)


def _measured_candidates(
    data: TaskData,
    model: tuple[str, str, str],
    recipe: EncoderRecipe,
    config: OodRankConfig,
    listed: list[Any],
    similarity_to_id: np.ndarray,
) -> tuple[dict[str, Any], Measured, list[Candidate], list[dict[str, Any]]]:
    """Train (or read the cache), then the ID metric and each candidate's metric and drop with
    their bootstrap intervals, and every evaluated example's prediction."""
    location, identity, name = model
    training, id_predicted, ood_predicted, cached = predictions(
        data, location=location, identity=identity, recipe=recipe, device=config.device
    )
    kind = data.kind
    id_stats = kind.example_stats(id_predicted, data.parts.test.labels, {})
    ood_stats = [kind.example_stats(p, s.labels, data.label_map) for p, s in zip(ood_predicted, data.ood)]
    id_measure, measured = metric_and_drops(id_stats, ood_stats, metric=kind.metric, seed=config.seed)
    candidates = [
        Candidate(c.dataset.name, c.source, float(sim), acc.value, (acc.low, acc.high), (drop.low, drop.high), acc.n)
        for c, sim, (acc, drop) in zip(listed, similarity_to_id, measured)
    ]
    task = {
        "measured": True,
        "encoder": name,
        "encoder_identity": identity,
        "recipe": recipe.as_dict(),
        "training": training,
        "cached": cached,
        "id_accuracy": id_measure.as_dict(),
        **kind.measured_extras(id_stats, list(zip(data.ood, ood_stats, ood_predicted)), data.label_map),
        "interval": f"95% percentile bootstrap, {RESAMPLES} resamples of each test set independently",
        **data.describe(),
    }
    return task, id_measure, candidates, prediction_rows(data, id_predicted, ood_predicted)


# fmt: off
@known_keywords()
def ood_rank(
    id: str | os.PathLike[str],  # noqa: A002 - BOSS's name
    candidates: str | os.PathLike[str],
    *,
    task: str = "classification", id_accuracy: float | None = None, max_similarity: float | None = None,
    min_drop: float = 0.0, min_id_metric: float = 0.1, encoder: str | None = None, batch_size: int = 64,
    max_examples: int | None = None, skip_training: bool = False, label_field: str = "label",
    label_map: str | Sequence[str] = (), id_test_size: float = 0.2, id_dev_size: float = 0.1,
    id_group: str | None = None, task_encoder: str | None = None, max_steps: int = 800,
    max_train: int | None = None, device: str = "auto", seed: int = 0, out: str | os.PathLike[str] | None = None,
    overwrite: bool = False, progress: bool | None = None,
) -> OodRankResult:
    """``tailsplit ood-rank``: the ``candidates`` (a CSV of datasets) decided and ranked as
    out-of-distribution for the ID dataset by BOSS's criteria."""
    config = OodRankConfig(
        id=path_argument("id", id, "the ID dataset"), candidates=path_argument("candidates", candidates, "a CSV file"),
        task=task, id_accuracy=id_accuracy, max_similarity=max_similarity, min_drop=min_drop,
        min_id_metric=min_id_metric, encoder=encoder, batch_size=batch_size, max_examples=max_examples,
        skip_training=skip_training, label_field=label_field, label_map=label_map, id_test_size=id_test_size,  # type: ignore[arg-type]  # kept in its declared form when built
        id_dev_size=id_dev_size, id_group=id_group, task_encoder=task_encoder, max_steps=max_steps,
        max_train=max_train, device=device, seed=seed, out=out, overwrite=overwrite)  # type: ignore[arg-type]
    check_values(config)
    with shown(progress_shown(progress)):
        return ood_rank_config(config)
# fmt: on
