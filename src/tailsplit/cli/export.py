"""``export lm-eval`` and ``export hf``: a split folder handed to other tools."""

from __future__ import annotations

from pathlib import Path

import typer

from tailsplit.cli.app import app, stdout, typed_command
from tailsplit.cli.declared import Given, declared_options
from tailsplit.config import HfExportConfig, LmEvalExportConfig
from tailsplit.errors import ConfigError
from tailsplit.pipeline.export import export_hf_config, export_lm_eval_config

export_app = typer.Typer(
    help="Hand a split to other tools: an lm-evaluation-harness task, or a Hugging Face dataset folder with a card.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(export_app, name="export")

LM_EVAL_EXAMPLES = """
**Examples**

    tailsplit export lm-eval snli-likelihood --out snli-ll-task

The command prints the lm_eval command that reproduces the split's scores: the weights that
scored it (for the bundled model, tailsplit's float32 copy in its cache), their precision, and
add_bos_token=True; the task's README.md and YAML metadata say the same.
"""


def _split_and_out(settings: LmEvalExportConfig | HfExportConfig, command: str) -> tuple[Path, Path]:
    if not settings.split_dir or not settings.out:
        raise ConfigError(f"export {command} needs a split folder and --out FOLDER (or both in --config)")
    return Path(settings.split_dir), Path(settings.out)


@export_app.command("lm-eval", epilog=LM_EVAL_EXAMPLES)
@declared_options(LmEvalExportConfig)
def lm_eval(given: Given) -> None:
    """Write an lm-evaluation-harness task (YAML + data files) for the split."""

    settings = given.command_config(LmEvalExportConfig)
    _, out = _split_and_out(settings, "lm-eval")
    manifest = export_lm_eval_config(settings, command=typed_command())
    model = manifest["lm_eval_model"]
    if model["model_args"] is None:
        said = f"no lm-eval model reproduces the split's scores ({model['note']})"
    elif model["exact"]:
        said = "these model arguments reproduce the split's logprob_sum per example"
    else:
        said = f"these model arguments come closest to the split's scores, but {model['note']}"
    stdout.print(f"wrote task {manifest['task']} to {out}; {said}:", markup=False, highlight=False)
    stdout.print(manifest["lm_eval_command"], markup=False, highlight=False, soft_wrap=True)
    for part in manifest["local_to_this_machine"]:
        stdout.print(f"local to this machine: {part}", markup=False, highlight=False, soft_wrap=True)
    if manifest["upload_command"]:
        stdout.print("upload the data files where the task loads them from (from the folder that holds the task):",
                     manifest["upload_command"], markup=False, highlight=False, soft_wrap=True, sep="\n")  # fmt: skip


@export_app.command("hf")
@declared_options(HfExportConfig)
def hf(given: Given) -> None:
    """Write the split as a Hugging Face DatasetDict folder (train/validation/test) with a dataset card."""

    settings = given.command_config(HfExportConfig)
    _, out = _split_and_out(settings, "hf")
    manifest = export_hf_config(settings, command=typed_command())
    stdout.print(f"wrote {out} (datasets.load_from_disk reads it)", markup=False, highlight=False)
    if manifest.get("hub_url"):
        stdout.print(f"pushed to {manifest['hub_url']} (datasets.load_dataset reads it)", markup=False, highlight=False)
    field = manifest.get("label_field")
    if field and field not in manifest["class_labels"]:
        stdout.print(
            f"note: label field {field!r} is exported as its values are; --class-labels NAMES (in id order) makes it "
            "a ClassLabel, as datasets ships NLI data",
            markup=False, highlight=False,
        )  # fmt: skip
    if not manifest.get("license"):
        stdout.print(
            "note: the card states no licence; the source dataset's applies — give it with --license",
            markup=False,
            highlight=False,
        )
