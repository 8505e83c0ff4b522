"""``tailsplit similarity``: centroid similarity and MMD between datasets (BOSS)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from tailsplit.analysis.shift_report import (
    heatmap_figure,
    similarity_markdown,
)
from tailsplit.analysis.split_dir import load_split_dir
from tailsplit.config import SimilarityConfig, check_values
from tailsplit.config.arguments import paths_argument
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.fingerprint import sha256_file
from tailsplit.io.claims import released_on_error
from tailsplit.io.values import strict_json
from tailsplit.pipeline.findings import Findings, config_writer
from tailsplit.pipeline.keywords import known_keywords, progress_shown
from tailsplit.pipeline.recording import command_provenance, write_outputs
from tailsplit.pipeline.shift_common import check_out, embed_texts, shift_encoder
from tailsplit.progress import shown
from tailsplit.render.console import Line, Table, View
from tailsplit.render.figures import figure_files
from tailsplit.render.pages import html_page
from tailsplit.render.provenance import with_provenance
from tailsplit.render.tables import csv_table, latex_table, table_label
from tailsplit.shift.datasets import DatasetSpec, load_texts
from tailsplit.shift.similarity import centroid_similarity, mmd_matrix


class MmdContent(TypedDict):
    """MMD² between every pair (row against column), its permutation p-values and how it was made."""

    mmd2: list[list[float]]
    p_value: list[list[float]]
    bandwidth: float
    sample: int
    permutations: int
    sizes: dict[str, int]


class SimilarityContent(TypedDict):
    """What ``similarity`` finds (``similarity.json`` holds it, less the embedding's timings)."""

    names: list[str]
    datasets: list[dict[str, Any]]
    encoder: dict[str, Any]
    embedded: int
    cached: int
    embedding: dict[str, Any]
    centroid_similarity: list[list[float]]
    mmd: MmdContent


class SimilarityResult(Findings[SimilarityContent]):
    """Centroid similarity ×100 (``content["centroid_similarity"]``) and MMD² with permutation
    p-values (``content["mmd"]``) between every pair of ``content["names"]``; its table has one
    row per pair."""

    command = "similarity"
    written = "similarity.json, report.md, report.html, manifest.json"

    def rows(self) -> list[dict[str, Any]]:
        names, similarity, mmd = self.content["names"], self.content["centroid_similarity"], self.content["mmd"]
        return [
            {
                "a": names[i],
                "b": names[j],
                "centroid_similarity": similarity[i][j],
                "mmd2": mmd["mmd2"][i][j],
                "p_value": mmd["p_value"][i][j],
            }
            for i in range(len(names))
            for j in range(i + 1, len(names))
        ]

    def view(self) -> View:
        names, e = self.content["names"], self.content["embedding"]
        table = Table(
            "centroid similarity (cosine × 100)",
            ["dataset", *(str(i) for i in range(1, len(names) + 1))],
            [
                [f"{i} {name}", *(f"{v:.1f}" for v in row)]
                for i, (name, row) in enumerate(zip(names, self.content["centroid_similarity"]), start=1)
            ],
            plain=True,
        )
        speed = f", {e['texts_per_second']:,.0f} texts/s" if e["texts_per_second"] else ""
        return [table, Line(f"embedded {e['encoded']:,} texts ({e['cached']:,} cached) in {e['seconds']:.1f} s{speed}")]


def _split_part_texts(folder: str) -> dict[str, list[str]]:

    inputs = load_split_dir(folder)
    return {
        f"{Path(folder).name}:{part}": [t for t, p in zip(inputs.texts, inputs.parts) if p == part]
        for part in ("train", "dev", "test")
        if (inputs.parts == part).any()
    }


@released_on_error
@keyword_spelling
def similarity_config(config: SimilarityConfig, *, command: list[str] | None = None) -> SimilarityResult:
    """Centroid cosine ×100 and MMD between every pair of datasets (and split parts)."""
    check_values(config)

    specs = [DatasetSpec.parse(s) for s in config.datasets]
    check_out(config, [s.path for s in specs] + list(config.splits))
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
    encoder = shift_encoder(config)
    try:
        vectors, embedding = embed_texts(encoder, texts)
    finally:
        encoder.close()
    mmd = mmd_matrix(vectors, sample=config.mmd_sample, permutations=config.permutations, seed=config.seed)
    result: SimilarityContent = {
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

    write = config_writer(_write_similarity, config, result, command)
    if config.out is not None:
        write(Path(config.out), config.overwrite)
    return SimilarityResult(result, None if config.out is None else Path(config.out), write)


# A matrix of more datasets than this does not fit a page's width: the pairs table alone is written.
MATRIX_TABLE_MAX = 7


def _fixed(value: float, places: int) -> str:
    """A value at a table's own precision (never scientific notation; no sign on a zero).

    >>> _fixed(-4e-05, 4), _fixed(0.00199, 4), _fixed(94.83, 1)
    ('0.0000', '0.0020', '94.8')
    """
    text = f"{value:.{places}f}"
    return text.lstrip("-") if float(text) == 0 else text


def similarity_tables(names: list[str], result: SimilarityContent, folder: str = "similarity") -> dict[str, str]:
    """LaTeX and CSV tables: every pair (centroid similarity, MMD² and its permutation p-value),
    and — while they fit a page — both matrices, columns numbered as their rows; labelled after
    ``folder`` (the output's name)."""
    similarity, mmd = result["centroid_similarity"], result["mmd"]
    permutations = mmd["permutations"]
    pairs = [
        [names[i], names[j], _fixed(similarity[i][j], 1), _fixed(mmd["mmd2"][i][j], 4), _fixed(mmd["p_value"][i][j], 3)]
        for i in range(len(names))
        for j in range(i + 1, len(names))
    ]
    header = ["dataset", "against", "centroid similarity", "MMD²", "p"]
    caption = (
        f"Every pair of datasets: centroid cosine similarity × 100, MMD² (Gaussian kernel) and its permutation "
        f"p-value ({permutations} permutations; the smallest possible is 1 / {permutations + 1})."
    )
    tables = {
        "tables/pairs.tex": latex_table(header, pairs, caption, table_label(folder, "similarity-pairs"), align="llrrr"),
        "tables/pairs.csv": csv_table(header, pairs),
    }
    if len(names) > MATRIX_TABLE_MAX:
        return tables
    matrices = {
        "centroid-similarity": ("Centroid similarity (cosine × 100)", similarity, 1),
        "mmd2": ("MMD² (Gaussian kernel), row against column", mmd["mmd2"], 4),
    }
    numbered = [f"{i} {name}" for i, name in enumerate(names, start=1)]
    for stem, (caption, matrix, places) in matrices.items():
        rows = [[label, *[_fixed(v, places) for v in row]] for label, row in zip(numbered, matrix)]
        columns = ["dataset", *(str(i) for i in range(1, len(names) + 1))]
        tables[f"tables/{stem}.tex"] = latex_table(
            columns, rows, caption, table_label(folder, stem), align="l" + "r" * len(names)
        )
        tables[f"tables/{stem}.csv"] = csv_table(["dataset", *names], [[n, *r[1:]] for n, r in zip(names, rows)])
    return tables


def _write_similarity(
    out: Path, config: SimilarityConfig, result: SimilarityContent, command: list[str] | None
) -> None:

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
    tables = similarity_tables(names, result, out.name)
    files: dict[str, str | bytes] = {
        "similarity.json": strict_json(stable),
        "report.md": with_provenance(markdown, provenance) + "\n## Figures\n\n" + links,
        "report.html": html_page("Dataset similarity", markdown, figures, provenance),
        **pictures,
        **tables,
    }
    write_outputs(out, config, files, inputs, {"embedding": result["embedding"]}, command)


# fmt: off
@known_keywords()
def similarity(
    datasets: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    splits: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (), encoder: str | None = None,
    batch_size: int = 64, max_examples: int | None = None, mmd_sample: int = 1000, permutations: int = 200,
    seed: int = 0, out: str | os.PathLike[str] | None = None, overwrite: bool = False, progress: bool | None = None,
) -> SimilarityResult:
    """``tailsplit similarity``: centroid similarity and MMD between every pair of
    ``datasets`` (``NAME=FILE[:FIELD]`` or files), and between the parts of ``splits=``."""
    config = SimilarityConfig(
        datasets=paths_argument("datasets", datasets, "datasets"), splits=splits, encoder=encoder,  # type: ignore[arg-type]
        batch_size=batch_size, max_examples=max_examples, mmd_sample=mmd_sample, permutations=permutations,
        seed=seed, out=out, overwrite=overwrite)  # type: ignore[arg-type]
    check_values(config)
    with shown(progress_shown(progress)):
        return similarity_config(config)
# fmt: on
