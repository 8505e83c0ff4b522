"""``export lm-eval`` and ``export hf``: a split folder handed to other tools."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from tailsplit.cli.app import app, friendly_errors, stdout
from tailsplit.cli.options import AcceptModified, Overwrite

export_app = typer.Typer(
    help="Hand a split to other tools: an lm-evaluation-harness task, or a Hugging Face dataset folder with a card.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(export_app, name="export")

SplitDir = Annotated[Path, typer.Argument(help="Split folder written by tailsplit run or split.", show_default=False)]
ExportOut = Annotated[Path, typer.Option("--out", help="Folder to write (atomically; never the split folder).")]

LM_EVAL_EXAMPLES = """
**Examples**

    tailsplit export lm-eval snli-likelihood --out snli-ll-task

    lm_eval --model hf --model_args pretrained=HuggingFaceTB/SmolLM2-135M-Instruct --include_path snli-ll-task --tasks tailsplit_snli_likelihood
"""


@export_app.command("lm-eval", epilog=LM_EVAL_EXAMPLES)
@friendly_errors
def lm_eval(
    split_dir: SplitDir,
    out: ExportOut,
    task_name: Annotated[
        str | None, typer.Option("--task-name", help="Task name [default: tailsplit_<folder name>].")
    ] = None,
    template: Annotated[
        str | None,
        typer.Option("--template", help="Prompt template [default: the one the split was scored with]."),
    ] = None,
    overwrite: Overwrite = False,
) -> None:
    """Write an lm-evaluation-harness task (YAML + data files) for the split."""
    from tailsplit.pipeline.export import export_lm_eval

    manifest = export_lm_eval(split_dir, out, name=task_name, template=template, overwrite=overwrite, command=sys.argv)
    stdout.print(
        f"wrote task {manifest['task']} to {out}; run it with lm_eval --include_path {out} --tasks {manifest['task']}",
        markup=False,
        highlight=False,
    )


@export_app.command("hf")
@friendly_errors
def hf(
    split_dir: SplitDir, out: ExportOut, overwrite: Overwrite = False, accept_modified: AcceptModified = False
) -> None:
    """Write the split as a Hugging Face DatasetDict folder (train/validation/test) with a dataset card."""
    from tailsplit.pipeline.export import export_hf

    export_hf(split_dir, out, overwrite=overwrite, command=sys.argv, accept_modified=accept_modified)
    stdout.print(f"wrote {out} (load_from_disk, then push_to_hub)", markup=False, highlight=False)
