"""The options of ``tailsplit overlap``: a test set audited against a corpus — a BM25 index
tailsplit builds, or an infini-gram index — each field declared once (:mod:`.declare`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from tailsplit.choices import ENGINES
from tailsplit.config.declare import (
    RAY_ADDRESS_HELP,
    Applies,
    Checked,
    option,
    out_option,
    overwrite_option,
    seed_option,
)
from tailsplit.config.values import parse_orders

MAX_NGRAM_ORDER = 64  # overlap --ngram-orders: GPT-3's test used 13; a longer n-gram is a near-copy test
MAX_SHARDS = 1024  # overlap --shards: a shard per worker core of a large cluster; each is a folder of files
BM25 = Applies(lambda c: c.infini_gram is None, "with the BM25 index (not with --infini-gram)")
WITH_INDEX = Applies(lambda c: c.infini_gram is not None, "with --infini-gram")


def infini_gram_option(help: str) -> Any:
    return option(None, help, metavar="DIR")


def index_tokenizer_option(shown_default: str = "the one it was built with") -> Any:
    return option(
        None, "The index's tokenizer: words (the audit's own), smollm2, a tokenizer folder or hub id.",
        metavar="TOKENIZER", shown_default=shown_default, applies=WITH_INDEX,
    )  # fmt: skip


@dataclass
class OverlapConfig(Checked):
    """``tailsplit overlap``: a test set audited against a corpus."""

    PANEL: ClassVar[str | None] = None

    test: list[str] = option([], "Test file(s) to audit.", metavar="FILE")
    text: str = option("text", "Field holding the test text.", metavar="FIELD")
    id: str = option("id", "Id field (generated when absent).", metavar="FIELD")
    label: str | None = option(None, "Label field.", metavar="FIELD")
    corpus: list[str] = option(
        [], "Corpus file(s): .txt (one entry per line), .jsonl or .parquet, .gz ok.", metavar="FILE"
    )
    corpus_field: str = option("text", "Text field of JSONL/Parquet corpus files.", metavar="FIELD")
    index_dir: str | None = option(
        None, "Where to keep the corpus index.", metavar="DIR", shown_default="the cache", applies=BM25
    )
    infini_gram: str | None = infini_gram_option(
        "Audit against this infini-gram index (built there from --corpus when new; else read-only)."
    )
    index_tokenizer: str | None = index_tokenizer_option("words for a new index, else the one it was built with")
    query_kind: str = option("generic", "generic or winograd (or a registered extractor).", applies=BM25)
    required_fields: list[str] = option(
        [], "Test field whose value must appear in a match (repeatable, in order).", flag="--required-field",
        metavar="FIELD", applies=BM25,
    )  # fmt: skip
    window: int = option(10, "Most tokens between required phrases.", low=0, applies=BM25)
    k: int = option(5, "Matches kept per test example.", low=1, applies=BM25)
    ngram_orders: tuple[int, ...] = option(
        (8, 13), "n-gram sizes, comma-separated (at least one).", low=1, high=MAX_NGRAM_ORDER, parse=parse_orders,
        metavar="N,N",
    )  # fmt: skip
    k1: float = option(1.5, "BM25 k1.", low=0, applies=BM25)
    b: float = option(0.75, "BM25 b.", low=0, high=1, applies=BM25)
    threshold: float | None = option(None, "BM25 score from which an example overlaps.", bounded=True, applies=BM25)
    top_quantile: float | None = option(
        None, "Share of examples, highest BM25 first, that overlap.", low=0, high=1, exclusive=True,
        shown_default="0.5", applies=BM25,
    )  # fmt: skip
    predictions: str | None = option(None, "File of (id, prediction): accuracy per subset.", metavar="FILE")
    prediction_field: str = option("prediction", "Prediction field in --predictions.", metavar="FIELD")
    shards: int = option(
        1,
        "Index the corpus in this many shards (map-reduce; same results; at most one per corpus line).",
        low=1, high=MAX_SHARDS, applies=BM25,
    )  # fmt: skip
    engine: str = option("local", "Where shards run: local (this process) or ray.", choices=ENGINES, applies=BM25)
    ray_address: str | None = option(
        None, RAY_ADDRESS_HELP, shown_default="a running one, else a local one", applies=BM25
    )
    seed: int = seed_option()
    out: str | None = out_option()
    overwrite: bool = overwrite_option()
