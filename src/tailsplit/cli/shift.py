"""``similarity``, ``ood-rank`` and ``correlate``: dataset shift the BOSS way."""

from __future__ import annotations

from tailsplit import pipeline
from tailsplit.cli.app import app, show, typed_command
from tailsplit.cli.declared import Given, declared_options
from tailsplit.config import CorrelateConfig, CurveConfig, OodRankConfig, SimilarityConfig
from tailsplit.errors import ConfigError
from tailsplit.progress import shown

SIMILARITY_EXAMPLES = """
**Examples**

    tailsplit similarity snli=snli/test.jsonl.gz@premise+hypothesis mnli=mnli/dev_matched.jsonl.gz@premise+hypothesis semeval=semeval/test.jsonl.gz --out shift-matrix

Train vs test of a likelihood split and of a random split:

    tailsplit similarity --split snli-ll --split snli-random --out split-shift
"""

OOD_EXAMPLES = """
**Examples**

Fine-tune the task model on ID train and measure each candidate's drop:

    tailsplit ood-rank --id mnli=mnli/dev_matched.jsonl.gz@premise+hypothesis --candidates candidates.csv --min-drop 0.05 --out ood

With accuracies measured elsewhere (an accuracy column in the CSV):

    tailsplit ood-rank --id mnli=mnli/dev_matched.jsonl.gz@premise+hypothesis --candidates candidates.csv --id-accuracy 0.84 --out ood

candidates.csv has a header and one row per dataset: name,path,fields,source,accuracy
(fields joined by +; accuracy optional — the ID-trained model's accuracy on that dataset).
"""

CURVE_EXAMPLES = """
**Examples**

    tailsplit curve --id mnli=mnli/dev_matched.jsonl.gz@premise+hypothesis --ood anli=anli/test.jsonl.gz@premise+hypothesis --ood snli=snli/dev.jsonl.gz@premise+hypothesis --out curve

Two training-set sizes, checkpoints every 50 steps:

    tailsplit curve --id mnli=mnli/dev_matched.jsonl.gz@premise+hypothesis --ood anli=anli/test.jsonl.gz@premise+hypothesis --train-sizes 1000,4000 --max-steps 400 --checkpoint-every 50 --out curve-sizes
"""

CORRELATE_EXAMPLES = """
**Examples**

    tailsplit correlate points.csv --out relation

points.csv has columns id_acc, ood_acc and optionally group (one fit per group).
"""


@app.command(epilog=SIMILARITY_EXAMPLES)
@declared_options(SimilarityConfig)
def similarity(given: Given) -> None:
    """Embedding similarity between datasets: centroid cosine ×100 (BOSS) and MMD, with a heatmap report."""

    with shown(not given.quiet):  # the texts being embedded
        result = pipeline.similarity_config(given.command_config(SimilarityConfig), command=typed_command())
    show(result)


@app.command(name="ood-rank", epilog=OOD_EXAMPLES)
@declared_options(OodRankConfig)
def ood_rank(given: Given) -> None:
    """Rank OOD candidates for an ID dataset: one per source, low similarity, large drop — each decision explained."""

    settings = given.command_config(OodRankConfig)
    if not settings.id or not settings.candidates:
        raise ConfigError("ood-rank needs --id DATASET and --candidates CSV (or both in --config)")
    with shown(not given.quiet):  # embedding, the task model's training steps, its predictions
        result = pipeline.ood_rank_config(settings, command=typed_command())
    show(result)


@app.command(epilog=CORRELATE_EXAMPLES)
@declared_options(CorrelateConfig)
def correlate(given: Given) -> None:
    """Fit a line, a hinge and a V to ID-vs-OOD accuracy, choose by BIC, and name BOSS's Type I / II / III (or none)."""

    settings = given.command_config(CorrelateConfig)
    if not settings.points:
        raise ConfigError("correlate needs a points CSV (as its argument or points = ... in --config)")
    show(pipeline.correlate_config(settings, command=typed_command()))


@app.command(epilog=CURVE_EXAMPLES)
@declared_options(CurveConfig)
def curve(given: Given) -> None:
    """Train on ID, measure ID and OOD accuracy at checkpoints, and name the ID–OOD relation (Type I / II / III)."""

    with shown(not given.quiet):  # each run, its training steps and checkpoints
        result = pipeline.curve_config(given.command_config(CurveConfig), command=typed_command())
    show(result)
