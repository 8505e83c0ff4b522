"""``overlap``: the test-set audit."""

from __future__ import annotations

from tailsplit import pipeline
from tailsplit.cli.app import app, show, typed_command
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
    show(pipeline.audit_overlap_config(settings, command=typed_command(), progress=not given.quiet))
