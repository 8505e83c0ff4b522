"""``overlap``: the test-set audit."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from tailsplit.cli.app import app, friendly_errors, stdout
from tailsplit.cli.options import CommandConfigOpt, IdField, Label, OutDir, Overwrite, Seed, Text
from tailsplit.cli.recipes import command_config
from tailsplit.errors import ConfigError

OVERLAP_EXAMPLES = """
**Examples**

WSC273 against a text corpus, Winograd predicates as the required phrases, with a model's predictions:

    tailsplit overlap --test wsc273.jsonl.gz --text text --label label --query-kind winograd --corpus wiki.txt.gz --predictions preds.jsonl --out wsc-overlap

SNLI test hypotheses against SNLI dev (both texts) and a sentence corpus, top quarter by BM25 = overlapping:

    tailsplit overlap --test snli/test.jsonl.gz --text hypothesis --label label --corpus snli/dev.jsonl.gz --corpus-field hypothesis --corpus sentences.txt --top-quantile 0.25 --out snli-overlap
"""


@app.command(epilog=OVERLAP_EXAMPLES)
@friendly_errors
def overlap(
    ctx: typer.Context,
    test: Annotated[list[Path] | None, typer.Option("--test", help="Test file(s) to audit.")] = None,
    corpus: Annotated[
        list[Path] | None,
        typer.Option("--corpus", help="Corpus file(s): .txt (one entry per line), .jsonl or .parquet, .gz ok."),
    ] = None,
    text: Text = None,
    id: IdField = None,
    label: Label = None,
    corpus_field: Annotated[
        str, typer.Option("--corpus-field", help="Text field of JSONL/Parquet corpus files.")
    ] = "text",
    index_dir: Annotated[
        Path | None, typer.Option("--index-dir", help="Where to keep the corpus index [default: the cache].")
    ] = None,
    query_kind: Annotated[
        str, typer.Option("--query-kind", help="generic or winograd (or a registered extractor).")
    ] = "generic",
    required_field: Annotated[
        list[str] | None,
        typer.Option("--required-field", help="Test field whose value must appear in a match (repeatable, in order)."),
    ] = None,
    window: Annotated[int, typer.Option("--window", help="Most tokens between required phrases.")] = 10,
    k: Annotated[int, typer.Option("--k", help="Matches kept per test example.")] = 5,
    ngram_orders: Annotated[str, typer.Option("--ngram-orders", help="n-gram sizes, comma-separated.")] = "8,13",
    k1: Annotated[float, typer.Option("--k1", help="BM25 k1.")] = 1.5,
    b: Annotated[float, typer.Option("--b", help="BM25 b.")] = 0.75,
    threshold: Annotated[
        float | None, typer.Option("--threshold", help="BM25 score from which an example overlaps.")
    ] = None,
    top_quantile: Annotated[
        float | None,
        typer.Option("--top-quantile", help="Share of examples, highest BM25 first, that overlap [default: 0.5]."),
    ] = None,
    predictions: Annotated[
        Path | None, typer.Option("--predictions", help="File of (id, prediction): accuracy per subset.")
    ] = None,
    prediction_field: Annotated[
        str, typer.Option("--prediction-field", help="Prediction field in --predictions.")
    ] = "prediction",
    shards: Annotated[
        int, typer.Option("--shards", help="Index the corpus in this many shards (map-reduce; same results).")
    ] = 1,
    engine: Annotated[str, typer.Option("--engine", help="Where shards run: local (this process) or ray.")] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option("--ray-address", help="Ray cluster to join [default: a running one, else a local one]."),
    ] = None,
    seed: Seed = None,
    out: OutDir = None,
    overwrite: Overwrite = False,
    config: CommandConfigOpt = None,
) -> None:
    """Audit a test set against training or pre-training text (BM25 + n-grams); split it into overlapping and clean."""
    from tailsplit import pipeline
    from tailsplit.config import OverlapConfig

    try:
        orders = tuple(int(x) for x in ngram_orders.split(",") if x.strip())
    except ValueError:
        raise ConfigError(
            f"--ngram-orders={ngram_orders!r} is not a comma-separated list of whole numbers; e.g. 8,13"
        ) from None
    settings = command_config(
        OverlapConfig,
        config,
        ctx,
        "overlap",
        {
            "required_fields": ("required_field", list(required_field or [])),
            "ngram_orders": ("ngram_orders", orders),
        },
    )
    settings.ngram_orders = tuple(settings.ngram_orders)
    summary = pipeline.audit_overlap(settings, command=sys.argv)
    stdout.print(
        f"{summary['examples']} test examples: {summary['overlap']} overlapping (best BM25 ≥ "
        f"{summary['threshold']}), {summary['clean']} clean; index of {summary['index']['entries']:,} entries",
        highlight=False,
    )
    for n, count in summary["ngram_contaminated"].items():
        stdout.print(f"sharing a {n}-gram with the corpus: {count}", highlight=False)
    for a in summary["accuracy"]:
        if a["n"]:
            stdout.print(
                f"accuracy {a['subset']}: {100 * a['accuracy']:.1f}% (95% CI {100 * a['ci_low']:.1f}–"
                f"{100 * a['ci_high']:.1f}%, n = {a['n']})",
                highlight=False,
            )
    if settings.out is not None:
        stdout.print(f"wrote {settings.out}/ (overlap, clean, audit.jsonl, summary.md, manifest.json)")
