"""``score``, ``split``, ``run`` and ``analyze``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tailsplit import pipeline
from tailsplit.cli.app import app, show, typed_command
from tailsplit.cli.declared import Given, declared_options
from tailsplit.config import AnalyzeConfig, DataConfig, OutputConfig, ScoringConfig, SplitConfig
from tailsplit.errors import ConfigError
from tailsplit.pipeline.analyze import analyze_settings

RUN_EXAMPLES = """
**Examples**

SNLI pairs, gold label in the prompt, label-balanced 10% dev + 10% test:

    tailsplit run dev.jsonl.gz test.jsonl.gz --text hypothesis --context premise --label label --template snli --balance-labels --out snli-ll

Spider questions, length-controlled, exact sizes:

    tailsplit run train.jsonl.gz dev.jsonl.gz --text question --template spider --length-buckets 10 --dev-size 1034 --test-size 1034 --out spider-ll

The same from a recipe (CLI options override it):

    tailsplit run --config recipe.toml
"""

SCORE_EXAMPLES = """
**Examples**

    tailsplit score dev.jsonl.gz --text hypothesis --context premise --label label --template snli --out scores.parquet

    tailsplit score questions.csv --text question --model ./my-model-folder --out scores.parquet
"""

SPLIT_EXAMPLES = """
**Examples**

Spider challenge splits (no scores needed), exact sizes:

    tailsplit split train.jsonl.gz dev.jsonl.gz --text question --program query --splitter tmcd --dev-size 1034 --test-size 1034 --out spider-tmcd

    tailsplit split train.jsonl.gz dev.jsonl.gz --text question --program query --splitter template --dev-size 1034 --test-size 1034 --out spider-template

A likelihood split of programs whose dev/test atoms all occur in train:

    tailsplit split train.jsonl.gz dev.jsonl.gz --text question --program query --scores scores.parquet --atom-constraint --dev-size 1034 --test-size 1034 --out spider-ll

    tailsplit split dev.jsonl.gz --text hypothesis --label label --scores scores.parquet --balance-labels --out snli-ll

    tailsplit split dev.jsonl.gz --text hypothesis --label label --splitter random --seed 3 --out snli-random-3
"""


@app.command(epilog=RUN_EXAMPLES)
@declared_options(DataConfig, ScoringConfig, SplitConfig, OutputConfig, run_recipe=True)
def run(given: Given) -> None:
    """Score every example with a causal LM, then split: the least likely go to dev/test."""

    show(pipeline.run(given.run_config(), progress=not given.quiet, command=typed_command()))


# Fields of a run that scoring does not read.
_NOT_SCORING = ("program", "program_kind", "count", "score_column", "model_name")


@app.command(epilog=SCORE_EXAMPLES)
@declared_options(DataConfig, ScoringConfig, leave_out=_NOT_SCORING, run_recipe=True)
def score(
    given: Given,
    out: Annotated[
        Path, typer.Option("--out", metavar="FILE", rich_help_panel="Output", help="Score file to write (Parquet).")
    ] = Path("scores.parquet"),
    overwrite: Annotated[
        bool,
        typer.Option("--overwrite", rich_help_panel="Output", help="Replace an existing score file (never an input)."),
    ] = False,
) -> None:
    """Score every example's query and write a score file (no split)."""

    cfg = given.run_config()
    cfg.output.overwrite = overwrite
    show(pipeline.score_data(cfg, out_path=out, progress=not given.quiet, command=typed_command()))


@app.command(epilog=SPLIT_EXAMPLES)
@declared_options(DataConfig, SplitConfig, OutputConfig, run_recipe=True)
def split(
    given: Given,
    scores: Annotated[
        Path | None,
        typer.Option(
            "--scores",
            metavar="FILE",
            rich_help_panel="Data",
            help="Score file: from tailsplit score, an id + logprob_sum table, or lm_eval --log_samples output.",
        ),
    ] = None,
) -> None:
    """Split using an existing score file (or no scores: random, length, template, tmcd)."""

    cfg = given.run_config()
    show(pipeline.run(cfg, scores_path=scores, command=typed_command(), score_missing=False))


ANALYZE_EXAMPLES = """
**Examples**

    tailsplit analyze snli-likelihood

    tailsplit analyze spider-ll --compare spider-random-0 --compare spider-tmcd --null-splits 1000
"""


@app.command(epilog=ANALYZE_EXAMPLES)
@declared_options(AnalyzeConfig)
def analyze(given: Given) -> None:
    """Analyse a split against random splits; writes report.html, report.md and analysis.json into it."""

    settings = given.command_config(AnalyzeConfig)
    if not settings.split_dir:
        raise ConfigError("analyze needs a split folder (as its argument or split_dir = ... in --config)")
    result = analyze_settings(settings.split_dir, settings.compare, settings)
    result.write()
    show(result)
