"""``overlap``: the test-set audit."""

from __future__ import annotations

from tailsplit import pipeline
from tailsplit.cli.app import app, stdout, typed_command
from tailsplit.cli.declared import Given, declared_options
from tailsplit.config import OverlapConfig

OVERLAP_EXAMPLES = """
**Examples**

WSC273 against a text corpus, Winograd predicates as the required phrases, with a model's predictions:

    tailsplit overlap --test wsc273.jsonl.gz --text text --label label --query-kind winograd --corpus wiki.txt.gz --predictions preds.jsonl --out wsc-overlap

SNLI test hypotheses against SNLI dev (both texts) and a sentence corpus, top quarter by BM25 = overlapping:

    tailsplit overlap --test snli/test.jsonl.gz --text hypothesis --label label --corpus snli/dev.jsonl.gz --corpus-field hypothesis --corpus sentences.txt --top-quantile 0.25 --out snli-overlap
"""


@app.command(epilog=OVERLAP_EXAMPLES)
@declared_options(OverlapConfig)
def overlap(given: Given) -> None:
    """Audit a test set against training or pre-training text (BM25 + n-grams); split it into overlapping and clean."""

    settings = given.command_config(OverlapConfig)
    settings.ngram_orders = tuple(settings.ngram_orders)
    summary = pipeline.audit_overlap_config(settings, command=typed_command(), progress=not given.quiet)
    stdout.print(
        f"{summary['examples']} test examples: {summary['overlap']} overlapping (best BM25 ≥ "
        f"{summary['threshold']}, or copied: {summary['verbatim']} verbatim, "
        f"{summary['copied_below_threshold']} copied below the cut), {summary['clean']} clean; "
        f"index of {summary['index']['entries']:,} entries",
        highlight=False,
    )
    for n, count in summary["ngram_contaminated"].items():
        stdout.print(f"sharing a {n}-gram with the corpus: {count}", highlight=False)
    for a in summary["accuracy"]:
        if a["n"]:
            stdout.print(
                f"accuracy {a['subset']}: {100 * a['accuracy']:.1f}% (95% CI {100 * a['ci_low']:.1f}–"
                f"{100 * a['ci_high']:.1f}%, n = {a['n']})",
                highlight=False,
            )
    if settings.out is not None:
        stdout.print(f"wrote {settings.out}/ (overlap, clean, audit.jsonl, summary.md, manifest.json)")
