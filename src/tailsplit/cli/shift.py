"""``similarity``, ``ood-rank`` and ``correlate``: dataset shift the BOSS way."""

from __future__ import annotations

from tailsplit import pipeline
from tailsplit.cli.app import app, stdout, typed_command
from tailsplit.cli.declared import Given, declared_options
from tailsplit.config import CorrelateConfig, CurveConfig, OodRankConfig, SimilarityConfig
from tailsplit.errors import ConfigError

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

    settings = given.command_config(SimilarityConfig)
    result = pipeline.similarity_config(settings, command=typed_command())
    from rich.table import Table

    names = result["names"]
    table = Table(
        "dataset",
        *(str(i) for i in range(1, len(names) + 1)),
        title_justify="left",
        title="centroid similarity (cosine × 100)",
        box=None,
    )
    for i, (name, row) in enumerate(zip(names, result["centroid_similarity"]), start=1):
        table.add_row(f"{i} {name}", *(f"{v:.1f}" for v in row))
    stdout.print(table, highlight=False)
    e = result["embedding"]
    speed = f", {e['texts_per_second']:,.0f} texts/s" if e["texts_per_second"] else ""
    stdout.print(
        f"embedded {e['encoded']:,} texts ({e['cached']:,} cached) in {e['seconds']:.1f} s{speed}", highlight=False
    )
    if settings.out is not None:
        stdout.print(f"wrote {settings.out}/ (similarity.json, report.md, report.html, manifest.json)", markup=False)


@app.command(name="ood-rank", epilog=OOD_EXAMPLES)
@declared_options(OodRankConfig)
def ood_rank(given: Given) -> None:
    """Rank OOD candidates for an ID dataset: one per source, low similarity, large drop — each decision explained."""

    settings = given.command_config(OodRankConfig)
    if not settings.id or not settings.candidates:
        raise ConfigError("ood-rank needs --id DATASET and --candidates CSV (or both in --config)")
    result = pipeline.ood_rank_config(settings, command=typed_command())
    task = result["task_model"]
    if task["measured"]:
        low, high = result["id"]["accuracy_ci"]
        origin = "cached" if task["cached"] else f"{task['training']['steps']} steps"
        stdout.print(
            f"ID test accuracy {result['id']['accuracy']:.3f} (95% CI {low:.3f} to {high:.3f}; "
            f"{result['id']['examples']:,} examples; {task['encoder']}, {origin})",
            highlight=False,
            markup=False,
        )
    for d in result["decisions"]:
        mark = f"#{d['rank']}" if d["kept"] else "--"
        stdout.print(
            f"{mark:>4} {d['name']} ({d['source']}, similarity {d['similarity']:.1f}): {'; '.join(d['reasons'])}",
            highlight=False,
            markup=False,
        )
    if settings.out is not None:
        stdout.print(f"wrote {settings.out}/ (ood.json, report.md, report.html, manifest.json)", markup=False)


def _relation_line(name: str, rel: dict) -> str:
    if rel["type"] is None:
        return f"{name}: {rel['reason']}"
    chosen = rel["chosen"]
    turning = "" if chosen["turning_point"] is None else f", turning point {chosen['turning_point']:.3f}"
    label = f"Type {rel['type']}" if rel["type"] != "none" else "none of the types"
    return (
        f"{name}: {label}, {rel['reason']} ({rel['n']} points, {rel['shape']}{turning}; slopes "
        f"{', '.join(f'{s:.3f}' for s in chosen['slopes'])}; r² {', '.join(f'{r:.3f}' for r in chosen['r2'])})"
    )


@app.command(epilog=CORRELATE_EXAMPLES)
@declared_options(CorrelateConfig)
def correlate(given: Given) -> None:
    """Fit a line, a hinge and a V to ID-vs-OOD accuracy, choose by BIC, and name BOSS's Type I / II / III (or none)."""

    settings = given.command_config(CorrelateConfig)
    if not settings.points:
        raise ConfigError("correlate needs a points CSV (as its argument or points = ... in --config)")
    result = pipeline.correlate_config(settings, command=typed_command())
    for name, rel in result["groups"].items():
        stdout.print(_relation_line(name, rel), highlight=False, markup=False)
    if settings.out is not None:
        stdout.print(f"wrote {settings.out}/ (correlate.json, report.md, report.html, manifest.json)", markup=False)


@app.command(epilog=CURVE_EXAMPLES)
@declared_options(CurveConfig)
def curve(given: Given) -> None:
    """Train on ID, measure ID and OOD accuracy at checkpoints, and name the ID–OOD relation (Type I / II / III)."""

    settings = given.command_config(CurveConfig)
    result = pipeline.curve_config(settings, command=typed_command())
    for name, rel in result["groups"].items():
        stdout.print(_relation_line(name, rel), highlight=False, markup=False)
    stdout.print(
        f"wrote {settings.out}/ (points.csv, curve.json, report.md, report.html, figures, manifest.json)", markup=False
    )
