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

The command prints the lm_eval command that reproduces the split's scores: the weights that
scored it (for the bundled model, tailsplit's float32 copy in its cache), their precision, and
add_bos_token=True; the task's README.md and YAML metadata say the same.
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
    model = manifest["lm_eval_model"]
    if model["model_args"] is None:
        said = f"no lm-eval model reproduces the split's scores ({model['note']})"
    elif model["exact"]:
        said = "these model arguments reproduce the split's logprob_sum per example"
    else:
        said = f"these model arguments come closest to the split's scores, but {model['note']}"
    stdout.print(f"wrote task {manifest['task']} to {out}; {said}:", markup=False, highlight=False)
    stdout.print(manifest["lm_eval_command"], markup=False, highlight=False, soft_wrap=True)


@export_app.command("hf")
@friendly_errors
def hf(
    split_dir: SplitDir,
    out: ExportOut,
    license: Annotated[
        str | None,
        typer.Option(
            "--license",
            help="Licence id for the card and DatasetInfo (e.g. cc-by-sa-4.0) [default: the input's own, if it has one].",
        ),
    ] = None,
    citation_file: Annotated[
        Path | None,
        typer.Option(
            "--citation-file",
            help="BibTeX of the source dataset for the card and DatasetInfo [default: the input's own, if it has one].",
        ),
    ] = None,
    push_to_hub: Annotated[
        str | None,
        typer.Option(
            "--push-to-hub",
            help="Also upload the dataset and its card to this hub dataset repository (OWNER/NAME; needs network "
            "and a login).",
        ),
    ] = None,
    overwrite: Overwrite = False,
    accept_modified: AcceptModified = False,
) -> None:
    """Write the split as a Hugging Face DatasetDict folder (train/validation/test) with a dataset card."""
    from tailsplit.pipeline.export import export_hf

    manifest = export_hf(
        split_dir,
        out,
        overwrite=overwrite,
        command=sys.argv,
        accept_modified=accept_modified,
        license=license,
        citation_file=citation_file,
        push_to_hub=push_to_hub,
    )
    stdout.print(f"wrote {out} (datasets.load_from_disk reads it)", markup=False, highlight=False)
    if manifest.get("hub_url"):
        stdout.print(f"pushed to {manifest['hub_url']} (datasets.load_dataset reads it)", markup=False, highlight=False)
    if not manifest.get("license"):
        stdout.print(
            "note: the card states no licence; the source dataset's applies — give it with --license",
            markup=False,
            highlight=False,
        )
