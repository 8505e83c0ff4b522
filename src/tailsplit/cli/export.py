"""``export lm-eval`` and ``export hf``: a split folder handed to other tools."""

from __future__ import annotations

import typer

from tailsplit.cli.app import app, show, typed_command
from tailsplit.cli.declared import Given, declared_options
from tailsplit.config import HfExportConfig, LmEvalExportConfig, WeightsExportConfig
from tailsplit.errors import ConfigError
from tailsplit.pipeline.export_hf import export_hf_config
from tailsplit.pipeline.export_lm_eval import export_lm_eval_config
from tailsplit.pipeline.export_weights import export_weights_config

export_app = typer.Typer(
    help="Hand a split to other tools: an lm-evaluation-harness task, a Hugging Face dataset folder with a card, or "
    "the weights it was scored with.",
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


def _check_split_and_out(settings: LmEvalExportConfig | HfExportConfig, command: str) -> None:
    if not settings.split_dir or not settings.out:
        raise ConfigError(f"export {command} needs a split folder and --out FOLDER (or both in --config)")


@export_app.command("lm-eval", epilog=LM_EVAL_EXAMPLES)
@declared_options(LmEvalExportConfig)
def lm_eval(given: Given) -> None:
    """Write an lm-evaluation-harness task (YAML + data files) for the split."""

    settings = given.command_config(LmEvalExportConfig)
    _check_split_and_out(settings, "lm-eval")
    show(export_lm_eval_config(settings, command=typed_command()))


@export_app.command("hf")
@declared_options(HfExportConfig)
def hf(given: Given) -> None:
    """Write the split as a Hugging Face DatasetDict folder (train/validation/test) with a dataset card."""

    settings = given.command_config(HfExportConfig)
    _check_split_and_out(settings, "hf")
    show(export_hf_config(settings, command=typed_command()))


WEIGHTS_EXAMPLES = """
**Examples**

The bundled model's float32 weights, as tailsplit scores with them (the same bytes on every
machine: compare the sha256 with the one an lm-eval task's README gives):

    tailsplit export weights --out smollm2-float32
"""


@export_app.command("weights", epilog=WEIGHTS_EXAMPLES)
@declared_options(WeightsExportConfig)
def weights(given: Given) -> None:
    """Write the weights a split was scored with (the bundled GGUF dequantised to float32) into a folder, with their sha256."""

    show(export_weights_config(given.command_config(WeightsExportConfig), command=typed_command()))
