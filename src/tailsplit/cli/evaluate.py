"""``evaluate``: baselines trained on each split, compared with random splits."""

from __future__ import annotations

from tailsplit.cli.app import app, stdout, typed_command
from tailsplit.cli.declared import Given, declared_options
from tailsplit.config import EvaluateConfig
from tailsplit.evaluation.fairness import fairness_console
from tailsplit.evaluation.table import table_markdown
from tailsplit.log import logger
from tailsplit.pipeline.evaluate import evaluate_config

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
@declared_options(EvaluateConfig)
def evaluate(given: Given) -> None:
    """Train baselines on each split's train part and compare test scores with random splits (relative error increase)."""

    settings = given.command_config(EvaluateConfig)
    evaluation = evaluate_config(settings, command=typed_command())
    result = evaluation.findings
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
        stdout.print(f"wrote {settings.out}/ ({', '.join(evaluation.outputs)}, manifest.json)", markup=False)
