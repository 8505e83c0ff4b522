"""``tailsplit similarity``, ``ood-rank`` and ``correlate``: dataset shift (BOSS)."""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.analysis.shift_report import (
    correlate_markdown,
    heatmap_figure,
    ood_markdown,
    relation_figure,
    similarity_markdown,
)
from tailsplit.analysis.split_dir import load_split_dir
from tailsplit.config import CorrelateConfig, OodRankConfig, SimilarityConfig, check_values, config_from_keywords
from tailsplit.config.arguments import path_argument, paths_argument
from tailsplit.errors import ConfigError, InputError, keyword_spelling
from tailsplit.evaluation.encoder import EncoderRecipe
from tailsplit.fingerprint import sha256_file
from tailsplit.io.claims import released_on_error
from tailsplit.io.outputs import check_output_folder
from tailsplit.io.values import strict_json
from tailsplit.pipeline.findings import Findings
from tailsplit.pipeline.manifest import command_provenance, write_outputs
from tailsplit.pipeline.task_model import (
    TaskData,
    check_task_model,
    dataset_files,
    dataset_texts,
    predictions,
    task_data,
)
from tailsplit.render.figures import figure_files
from tailsplit.render.pages import html_page
from tailsplit.render.provenance import with_provenance
from tailsplit.render.tables import csv_table, latex_table
from tailsplit.shift.correlate import classify
from tailsplit.shift.csv_inputs import read_candidates, read_points
from tailsplit.shift.datasets import DatasetSpec, load_texts
from tailsplit.shift.drops import RESAMPLES, Measured, accuracy_and_drops
from tailsplit.shift.encoder import SentenceEncoder
from tailsplit.shift.labelled import correct
from tailsplit.shift.ood import Candidate, rank_candidates
from tailsplit.shift.similarity import centroid_similarity, mmd_matrix


def _encoder(config: Any) -> Any:

    return SentenceEncoder(config.encoder, batch_size=config.batch_size, progress=sys.stderr.isatty())


def _embed(encoder: Any, texts: dict[str, list[str]]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Embeddings per dataset, and what it took (texts, how many encoded, seconds, texts/s)."""
    started, before = time.perf_counter(), encoder.encoded
    vectors = {name: encoder.encode(t) for name, t in texts.items()}
    seconds = time.perf_counter() - started
    encoded = encoder.encoded - before
    total = sum(len(t) for t in texts.values())
    return vectors, {
        "texts": total,
        "encoded": encoded,
        "cached": total - encoded,
        "seconds": round(seconds, 3),
        "texts_per_second": round(encoded / seconds, 1) if encoded and seconds > 0 else None,
    }


def _split_part_texts(folder: str) -> dict[str, list[str]]:

    inputs = load_split_dir(folder)
    return {
        f"{Path(folder).name}:{part}": [t for t, p in zip(inputs.texts, inputs.parts) if p == part]
        for part in ("train", "dev", "test")
        if (inputs.parts == part).any()
    }


@released_on_error
@keyword_spelling
def similarity_config(config: SimilarityConfig, *, command: list[str] | None = None) -> dict[str, Any]:
    """Centroid cosine ×100 and MMD between every pair of datasets (and split parts)."""
    check_values(config)

    specs = [DatasetSpec.parse(s) for s in config.datasets]
    _check_out(config, [s.path for s in specs] + list(config.splits))
    texts = {s.name: load_texts(s, config.max_examples, config.seed) for s in specs}
    described = [
        {"name": s.name, "path": s.path, "fields": list(s.fields), "examples": len(texts[s.name])} for s in specs
    ]
    for folder in config.splits:
        for name, part in _split_part_texts(folder).items():
            texts[name] = part
            described.append({"name": name, "path": folder, "fields": ["(split text)"], "examples": len(part)})
    if len(texts) < 2 or len(texts) != len(described):
        raise ConfigError("similarity needs at least two datasets with distinct names; name them NAME=PATH")
    encoder = _encoder(config)
    try:
        vectors, embedding = _embed(encoder, texts)
    finally:
        encoder.close()
    mmd = mmd_matrix(vectors, sample=config.mmd_sample, permutations=config.permutations, seed=config.seed)
    result = {
        "names": list(texts),
        "datasets": described,
        "encoder": dataclasses.asdict(encoder.source),
        "embedded": embedding["encoded"],
        "cached": embedding["cached"],
        "embedding": embedding,
        "centroid_similarity": np.round(centroid_similarity(vectors), 2).tolist(),
        "mmd": {
            "mmd2": np.round(mmd.mmd2, 5).tolist(),
            "p_value": np.round(mmd.p_value, 4).tolist(),
            "bandwidth": round(mmd.bandwidth, 5),
            "sample": mmd.sample,
            "permutations": mmd.permutations,
            "sizes": mmd.sizes,
        },
    }
    if config.out is not None:
        _write_similarity(Path(config.out), config, result, command)
    return result


def _write_similarity(out: Path, config: SimilarityConfig, result: dict[str, Any], command: list[str] | None) -> None:

    stable = {k: v for k, v in result.items() if k not in ("embedded", "cached", "embedding")}
    markdown = similarity_markdown({**result, "embedded": result["embedding"]["texts"], "cached": 0})
    names = result["names"]
    figures = {
        "Centroid similarity (cosine × 100)": heatmap_figure(
            names, np.array(result["centroid_similarity"]), "centroid similarity"
        ),
        "MMD² (Gaussian kernel)": heatmap_figure(
            names, np.array(result["mmd"]["mmd2"]), "MMD²", fmt="{:.3f}", cmap="magma"
        ),
    }
    inputs = [{"path": d["path"], "sha256": sha256_file(d["path"])} for d in result["datasets"]]
    provenance = command_provenance(command, inputs, model=result["encoder"], seed=config.seed)
    pictures = figure_files(figures)
    links = "".join(
        f"- [{caption}]({path})\n" for caption, path in zip(figures, [p for p in pictures if p.endswith(".svg")])
    )
    matrices = {
        "centroid-similarity": ("Centroid similarity (cosine × 100)", result["centroid_similarity"]),
        "mmd2": ("MMD² (Gaussian kernel), row against column", result["mmd"]["mmd2"]),
    }
    tables: dict[str, str] = {}
    for stem, (caption, matrix) in matrices.items():
        rows = [[name, *[str(v) for v in row]] for name, row in zip(names, matrix)]
        tables[f"tables/{stem}.tex"] = latex_table(["", *names], rows, caption, stem, align="l" + "r" * len(names))
        tables[f"tables/{stem}.csv"] = csv_table(["", *names], rows)
    files: dict[str, str | bytes] = {
        "similarity.json": strict_json(stable),
        "report.md": with_provenance(markdown, provenance) + "\n## Figures\n\n" + links,
        "report.html": html_page("Dataset similarity", markdown, figures, provenance),
        **pictures,
        **tables,
    }
    write_outputs(out, config, files, inputs, {"embedding": result["embedding"]}, command)


def _check_out(config: Any, inputs: list[str]) -> None:
    if config.out is not None:
        check_output_folder(config.out, overwrite=config.overwrite, inputs=inputs)


@released_on_error
@keyword_spelling
def ood_rank_config(config: OodRankConfig, *, command: list[str] | None = None) -> dict[str, Any]:
    """Embed the ID dataset and every candidate; measure the task model's drop on each (unless
    accuracies are given); decide and rank by BOSS's criteria."""
    check_values(config)

    id_spec = DatasetSpec.parse(config.id)
    _check_out(config, [id_spec.path, config.candidates])
    listed = read_candidates(config.candidates)
    _check_out(config, [c.dataset.path for c in listed])
    specs = [c.dataset for c in listed]
    data, model, texts = _ood_inputs(config, id_spec, specs, _measures_drops(config, id_spec, listed))
    encoder = _encoder(config)
    try:
        vectors, embedding = _embed(encoder, texts)
    finally:
        encoder.close()
    similarity_to_id = centroid_similarity(vectors)[0, 1:]
    task: dict[str, Any] = {"measured": False}
    id_accuracy = config.id_accuracy
    if data is not None:
        recipe = EncoderRecipe(max_steps=config.max_steps, max_train=config.max_train, seed=config.seed)
        task, id_measure, candidates = _measured_candidates(data, model, recipe, config, listed, similarity_to_id)
        id_accuracy = id_measure.value
    else:
        candidates = [
            Candidate(c.dataset.name, c.source, float(sim), c.accuracy) for c, sim in zip(listed, similarity_to_id)
        ]
    decisions = rank_candidates(
        candidates, id_accuracy=id_accuracy, max_similarity=config.max_similarity, min_drop=config.min_drop
    )
    result = {
        "id": {
            "name": id_spec.name,
            "path": id_spec.path,
            "fields": list(id_spec.fields),
            "accuracy": task["id_accuracy"]["value"] if data else id_accuracy,
            **({"accuracy_ci": task["id_accuracy"]["ci"], "examples": task["id_accuracy"]["n"]} if data else {}),
        },
        "encoder": dataclasses.asdict(encoder.source),
        "task_model": task,
        "decisions": [d.as_dict() for d in decisions],
        "kept": [d.candidate.name for d in sorted((d for d in decisions if d.kept), key=lambda d: d.rank or 0)],
    }
    if config.out is not None:
        paths = [*dataset_files(id_spec.path), *(s.path for s in specs)]
        _write_ood(Path(config.out), config, result, paths, embedding, command)
    return {**result, "embedding": embedding}


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
        texts = {id_spec.name: dataset_texts(id_spec, config.max_examples, config.seed)}
        return None, ("", "", ""), texts | {s.name: load_texts(s, config.max_examples, config.seed) for s in specs}
    data = task_data(config, id_spec, specs)
    model = check_task_model(config.device, config.task_encoder)
    return (
        data,
        model,
        {id_spec.name: data.parts.whole().sample(config.max_examples, config.seed).texts()}
        | {s.name: s.texts() for s in data.ood},
    )


def _write_ood(
    out: Path,
    config: OodRankConfig,
    result: dict[str, Any],
    paths: list[str],
    embedding: dict[str, Any],
    command: list[str] | None,
) -> None:
    inputs = [{"path": p, "sha256": sha256_file(p)} for p in [config.candidates, *paths]]
    markdown = ood_markdown(result)
    provenance = command_provenance(command, inputs, model=result["encoder"], seed=config.seed)
    files: dict[str, str | bytes] = {
        "ood.json": strict_json(result),
        "report.md": with_provenance(markdown, provenance),
        "report.html": html_page("OOD candidates", markdown, {}, provenance),
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
) -> tuple[dict[str, Any], Measured, list[Candidate]]:
    """Train (or read the cache), then ID accuracy and each candidate's accuracy and drop with
    their bootstrap intervals."""
    location, identity, name = model
    training, id_predicted, ood_predicted, cached = predictions(
        data, location=location, identity=identity, recipe=recipe, device=config.device
    )
    id_correct = correct(id_predicted, data.parts.test.labels, {})
    ood_correct = [correct(p, s.labels, data.label_map) for p, s in zip(ood_predicted, data.ood)]
    id_measure, measured = accuracy_and_drops(id_correct, ood_correct, seed=config.seed)
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
        "interval": f"95% percentile bootstrap, {RESAMPLES} resamples of each test set independently",
        **data.describe(),
    }
    return task, id_measure, candidates


@released_on_error
@keyword_spelling
def correlate_config(config: CorrelateConfig, *, command: list[str] | None = None) -> dict[str, Any]:
    """Type I / II / III fits of the (id_acc, ood_acc) points, per group when given."""

    _check_out(config, [config.points])
    points = read_points(config.points, config.group)
    relations = {}
    for group, pairs in points.items():
        xy = np.array(pairs)
        try:
            relations[group] = classify(xy[:, 0], xy[:, 1])
        except ConfigError as exc:
            raise InputError(f"group {group!r}: {exc}", path=config.points, fix="add points to that group") from None
    result = {"groups": {g: r.as_dict() for g, r in relations.items()}}
    if config.out is not None:
        markdown = correlate_markdown(result)
        inputs = [{"path": config.points, "sha256": sha256_file(config.points)}]
        provenance = command_provenance(command, inputs)
        figures = {
            f"group {g}: Type {r.type}": relation_figure(
                np.array(points[g])[:, 0], np.array(points[g])[:, 1], r, f"Type {r.type}"
            )
            for g, r in relations.items()
        }
        write_outputs(
            Path(config.out),
            config,
            {
                "correlate.json": strict_json(result),
                "report.md": with_provenance(markdown, provenance),
                "report.html": html_page("ID–OOD accuracy", markdown, figures, provenance),
                **figure_files(figures),
            },
            inputs,
            {},
            command,
        )
    return result


@keyword_spelling
def similarity(datasets: Any, **options: Any) -> Findings:
    """``tailsplit similarity``: centroid similarity and MMD between every pair of
    ``datasets`` (``NAME=FILE[:FIELD]`` or files), and between the parts of ``splits=``."""
    config = config_from_keywords(
        SimilarityConfig, options, given={"datasets": paths_argument("datasets", datasets, "datasets")}
    )
    return Findings("similarity", similarity_config(config))


@keyword_spelling
def ood_rank(id: str | Path, candidates: str | Path, **options: Any) -> Findings:  # noqa: A002 - BOSS's name
    """``tailsplit ood-rank``: the ``candidates`` (a CSV of datasets) decided and ranked as
    out-of-distribution for the ID dataset by BOSS's criteria."""
    given = {
        "id": path_argument("id", id, "the ID dataset"),
        "candidates": path_argument("candidates", candidates, "a CSV file"),
    }
    return Findings("ood-rank", ood_rank_config(config_from_keywords(OodRankConfig, options, given=given)))


@keyword_spelling
def correlate(points: str | Path, **options: Any) -> Findings:
    """``tailsplit correlate``: Type I / II / III fits of (ID, OOD) accuracy points."""
    given = {"points": path_argument("points", points, "a CSV file of accuracy points")}
    return Findings("correlate", correlate_config(config_from_keywords(CorrelateConfig, options, given=given)))
