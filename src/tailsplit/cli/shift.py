"""``similarity``, ``ood-rank`` and ``correlate``: dataset shift the BOSS way."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from tailsplit.cli.app import app, friendly_errors, stdout
from tailsplit.cli.options import CommandConfigOpt, OutDir, Overwrite, Seed
from tailsplit.cli.recipes import command_config
from tailsplit.errors import ConfigError

SIMILARITY_EXAMPLES = """
**Examples**

    tailsplit similarity snli=snli/test.jsonl.gz@premise+hypothesis mnli=mnli/dev_matched.jsonl.gz@premise+hypothesis semeval=semeval/test.jsonl.gz --out shift-matrix

Train vs test of a likelihood split and of a random split:

    tailsplit similarity --split snli-ll --split snli-random --out split-shift
"""

OOD_EXAMPLES = """
**Examples**

    tailsplit ood-rank --id mnli=mnli/dev_matched.jsonl.gz@premise+hypothesis --candidates candidates.csv --id-accuracy 0.84 --out ood

candidates.csv has a header and one row per dataset: name,path,fields,source,accuracy
(fields joined by +; accuracy optional — the ID-trained model's accuracy on that dataset).
"""

CORRELATE_EXAMPLES = """
**Examples**

    tailsplit correlate points.csv --out relation

points.csv has columns id_acc, ood_acc and optionally group (one fit per group).
"""

Encoder = Annotated[
    str | None,
    typer.Option("--encoder", help="Sentence-transformers folder or hub id [default: bundled all-MiniLM-L6-v2]."),
]
BatchSize = Annotated[int, typer.Option("--batch-size", help="Texts per encoder batch.")]
MaxExamples = Annotated[
    int | None, typer.Option("--max-examples", help="Seeded sample of at most this many examples per dataset.")
]


@app.command(epilog=SIMILARITY_EXAMPLES)
@friendly_errors
def similarity(
    ctx: typer.Context,
    datasets: Annotated[
        list[str] | None,
        typer.Argument(help="Datasets as [NAME=]PATH[@FIELD[+FIELD...]] (field default: text).", show_default=False),
    ] = None,
    split: Annotated[
        list[Path] | None,
        typer.Option("--split", help="A split folder; its train/dev/test become datasets (repeatable)."),
    ] = None,
    encoder: Encoder = None,
    batch_size: BatchSize = 64,
    max_examples: MaxExamples = None,
    mmd_sample: Annotated[int, typer.Option("--mmd-sample", help="Examples per dataset in the MMD test.")] = 1000,
    permutations: Annotated[int, typer.Option("--permutations", help="Permutations for MMD p-values.")] = 200,
    seed: Seed = None,
    out: OutDir = None,
    overwrite: Overwrite = False,
    config: CommandConfigOpt = None,
) -> None:
    """Embedding similarity between datasets: centroid cosine ×100 (BOSS) and MMD, with a heatmap report."""
    from tailsplit import pipeline
    from tailsplit.config import SimilarityConfig

    settings = command_config(
        SimilarityConfig,
        config,
        ctx,
        "similarity",
        {
            "splits": ("split", [str(p) for p in split or []]),
        },
    )
    result = pipeline.similarity(settings, command=sys.argv)
    from rich.table import Table

    names = result["names"]
    table = Table(
        "dataset",
        *(str(i) for i in range(1, len(names) + 1)),
        title_justify="left",
        title="centroid similarity (cosine × 100)",
        box=None,
    )
    for i, (name, row) in enumerate(zip(names, result["centroid_similarity"]), start=1):
        table.add_row(f"{i} {name}", *(f"{v:.1f}" for v in row))
    stdout.print(table, highlight=False)
    e = result["embedding"]
    speed = f", {e['texts_per_second']:,.0f} texts/s" if e["texts_per_second"] else ""
    stdout.print(
        f"embedded {e['encoded']:,} texts ({e['cached']:,} cached) in {e['seconds']:.1f} s{speed}", highlight=False
    )
    if settings.out is not None:
        stdout.print(f"wrote {settings.out}/ (similarity.json, report.md, report.html, manifest.json)", markup=False)


@app.command(name="ood-rank", epilog=OOD_EXAMPLES)
@friendly_errors
def ood_rank(
    ctx: typer.Context,
    id: Annotated[str | None, typer.Option("--id", help="The ID dataset: [NAME=]PATH[@FIELD[+FIELD...]].")] = None,
    candidates: Annotated[
        Path | None, typer.Option("--candidates", help="CSV of candidates: name,path,fields,source[,accuracy].")
    ] = None,
    id_accuracy: Annotated[
        float | None, typer.Option("--id-accuracy", help="The model's accuracy on the ID test set.")
    ] = None,
    max_similarity: Annotated[
        float | None, typer.Option("--max-similarity", help="Reject candidates at least this similar (cosine × 100).")
    ] = None,
    min_drop: Annotated[
        float, typer.Option("--min-drop", help="Reject candidates whose accuracy drop is below this.")
    ] = 0.0,
    encoder: Encoder = None,
    batch_size: BatchSize = 64,
    max_examples: MaxExamples = None,
    seed: Seed = None,
    out: OutDir = None,
    overwrite: Overwrite = False,
    config: CommandConfigOpt = None,
) -> None:
    """Rank OOD candidates for an ID dataset: one per source, low similarity, large drop — each decision explained."""
    from tailsplit import pipeline
    from tailsplit.config import OodRankConfig

    settings = command_config(
        OodRankConfig,
        config,
        ctx,
        "ood-rank",
    )
    if not settings.id or not settings.candidates:
        raise ConfigError("ood-rank needs --id DATASET and --candidates CSV (or both in --config)")
    result = pipeline.ood_rank(settings, command=sys.argv)
    for d in result["decisions"]:
        mark = f"#{d['rank']}" if d["kept"] else "--"
        stdout.print(
            f"{mark:>4} {d['name']} ({d['source']}, similarity {d['similarity']:.1f}): {'; '.join(d['reasons'])}",
            highlight=False,
            markup=False,
        )
    if settings.out is not None:
        stdout.print(f"wrote {settings.out}/ (ood.json, report.md, manifest.json)", markup=False)


@app.command(epilog=CORRELATE_EXAMPLES)
@friendly_errors
def correlate(
    ctx: typer.Context,
    points: Annotated[
        Path | None, typer.Argument(help="CSV with id_acc, ood_acc and optionally group columns.")
    ] = None,
    group: Annotated[
        str | None, typer.Option("--group", help="Column that groups points [default: group, if present].")
    ] = None,
    out: OutDir = None,
    overwrite: Overwrite = False,
    config: CommandConfigOpt = None,
) -> None:
    """Fit a line, a hinge and a V to ID-vs-OOD accuracy, choose by BIC, and name BOSS's Type I / II / III (or none)."""
    from tailsplit import pipeline
    from tailsplit.config import CorrelateConfig

    settings = command_config(
        CorrelateConfig,
        config,
        ctx,
        "correlate",
    )
    if not settings.points:
        raise ConfigError("correlate needs a points CSV (as its argument or points = ... in --config)")
    result = pipeline.correlate(settings, command=sys.argv)
    for name, rel in result["groups"].items():
        chosen = rel["chosen"]
        turning = "" if chosen["turning_point"] is None else f", turning point {chosen['turning_point']:.3f}"
        label = f"Type {rel['type']}" if rel["type"] != "none" else "none of the types"
        stdout.print(
            f"{name}: {label}, {rel['reason']} ({rel['n']} points, {rel['shape']}{turning}; slopes "
            f"{', '.join(f'{s:.3f}' for s in chosen['slopes'])}; r² "
            f"{', '.join(f'{r:.3f}' for r in chosen['r2'])})",
            highlight=False,
            markup=False,
        )
    if settings.out is not None:
        stdout.print(f"wrote {settings.out}/ (correlate.json, report.md, report.html, manifest.json)", markup=False)
