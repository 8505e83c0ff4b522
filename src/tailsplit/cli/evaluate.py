"""``evaluate``: baselines trained on each split, compared with random splits."""

from __future__ import annotations

from tailsplit.cli.app import app, show, typed_command
from tailsplit.cli.declared import Given, declared_options
from tailsplit.config import EvaluateConfig
from tailsplit.pipeline.evaluate import evaluate_config
from tailsplit.progress import shown

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
    with shown(not given.quiet):  # each baseline, each training step
        result = evaluate_config(settings, command=typed_command())
    show(result)
