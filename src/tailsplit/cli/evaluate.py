"""``evaluate``: baselines trained on each split, compared with random splits."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from tailsplit.cli.app import app, friendly_errors, stdout
from tailsplit.cli.options import AcceptModified, AgreementField, CommandConfigOpt, OutDir, Overwrite, Seed
from tailsplit.cli.recipes import command_config
from tailsplit.log import logger

EVALUATE_EXAMPLES = """
**Examples**

SNLI: a likelihood split, its length-controlled and reverse variants, and three random seeds:

    tailsplit evaluate snli-ll snli-ll-len snli-ll-reverse snli-random-0 snli-random-1 snli-random-2 --out snli-eval

The transformer baselines (a fine-tuned cross-encoder and frozen embeddings + logistic
regression, both the bundled all-MiniLM-L6-v2 by default); --max-train / --max-steps for a quick look:

    tailsplit evaluate snli-ll snli-reverse snli-random-0 snli-random-1 snli-random-2 --baseline encoder --baseline embed --out snli-eval

The fairness check (paper section 4.3): the scoring LM fine-tuned as a classifier beside the
encoder, annotator agreement per split, an AFLite split for contrast:

    tailsplit evaluate snli-ll snli-aflite snli-random-0 snli-random-1 snli-random-2 --baseline encoder --baseline lm --agreement-field annotator_labels --out snli-fair

Spider (nearest-neighbour SQL baseline):

    tailsplit evaluate spider-ll spider-tmcd spider-random-0 spider-random-1 spider-random-2 --out spider-eval
"""


@app.command(epilog=EVALUATE_EXAMPLES)
@friendly_errors
def evaluate(
    ctx: typer.Context,
    split_dirs: Annotated[
        list[Path] | None, typer.Argument(help="Split folders written by tailsplit run or split.", show_default=False)
    ] = None,
    config: CommandConfigOpt = None,
    baseline: Annotated[
        list[str] | None,
        typer.Option(
            "--baseline",
            help="tfidf, tfidf-text, nn-sql, embed, encoder or lm (the scoring LM fine-tuned as a classifier; repeatable) [default: by task].",
        ),
    ] = None,
    input_field: Annotated[
        list[str] | None,
        typer.Option(
            "--input-field",
            help="Record field the baselines read (repeatable, in order; the last is the text of tfidf-text) [default: the split's context and text].",
        ),
    ] = None,
    predictions: Annotated[
        list[Path] | None,
        typer.Option(
            "--predictions",
            help="Score these predictions instead (id, prediction): one file per split folder, same order.",
        ),
    ] = None,
    bucket: Annotated[
        str | None,
        typer.Option(
            "--bucket",
            help="With --predictions: break down by 'hardness' or a record field [default: hardness, else label].",
        ),
    ] = None,
    zero_shot: Annotated[
        bool,
        typer.Option(
            "--zero-shot",
            help="Also classify with the split's own LM: each label's verbalisation scored through the template.",
        ),
    ] = False,
    zero_shot_template: Annotated[
        str | None,
        typer.Option("--zero-shot-template", help="Template for --zero-shot (needs {label}) [default: the split's]."),
    ] = None,
    encoder: Annotated[
        str | None,
        typer.Option(
            "--encoder",
            help="Encoder of the embed and encoder baselines: a local folder or hub id [default: the bundled all-MiniLM-L6-v2].",
        ),
    ] = None,
    max_steps: Annotated[
        int,
        typer.Option(
            "--max-steps",
            min=1,
            help="Encoder baseline: training steps of 32 pairs (dev accuracy every 200; early stop after 3 checks without gain).",
        ),
    ] = 800,
    max_train: Annotated[
        int | None,
        typer.Option(
            "--max-train",
            min=2,
            help="Encoder baseline: train on this many examples of each train part (seeded sample).",
        ),
    ] = None,
    device: Annotated[str, typer.Option("--device", help="Encoder baseline: auto, cpu, cuda or cuda:N.")] = "auto",
    leakage_threshold: Annotated[
        float,
        typer.Option(
            "--leakage-threshold",
            min=0.0,
            max=1.0,
            help="Mark random baselines whose test queries occur in train (exactly, after normalisation) more often than this share.",
        ),
    ] = 0.05,
    agreement_field: AgreementField = None,
    fairness_margin: Annotated[
        float,
        typer.Option(
            "--fairness-margin",
            min=0.0,
            max=1.0,
            help="Fairness table: the largest extra accuracy loss of a split's in-the-loop model (against another model, relative to random splits) that does not count as adversarial.",
        ),
    ] = 0.02,
    accept_modified: AcceptModified = False,
    seed: Seed = None,
    out: OutDir = None,
    overwrite: Overwrite = False,
) -> None:
    """Train baselines on each split's train part and compare test scores with random splits (relative error increase)."""
    from tailsplit import pipeline
    from tailsplit.config import EvaluateConfig
    from tailsplit.evaluate.table import table_markdown

    settings = command_config(
        EvaluateConfig,
        config,
        ctx,
        "evaluate",
        {
            "baselines": ("baseline", list(baseline or [])),
            "input_fields": ("input_field", list(input_field or [])),
        },
    )
    result = pipeline.evaluate(settings, command=sys.argv)
    stdout.print(table_markdown(result["table"]), highlight=False, markup=False)
    for warning in result["leakage_warnings"]:
        logger.warning(warning.removeprefix("warning: "))
    for found in result["conclusions"]:
        stdout.print(
            f"conclusion: {found['baseline']}: {found['question']} — {found['outcome']} ({found['evidence']}).",
            highlight=False,
            markup=False,
        )
    if result["fairness"] is not None:
        from tailsplit.evaluate.fairness import fairness_console

        stdout.print(fairness_console(result["fairness"]), highlight=False, markup=False)
    for r in result["results"]:
        if r.get("projected") is not None:
            stdout.print(
                f"{r['folder']}: {100 * r['test']:.1f} against {100 * r['projected']:.1f} projected from the "
                "random splits' bucket accuracies",
                highlight=False,
                markup=False,
            )
    if settings.out is not None:
        stdout.print(f"wrote {settings.out}/ ({', '.join(result['outputs'])}, manifest.json)", markup=False)
