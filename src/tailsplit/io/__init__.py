"""Reading and writing exactly: data readers (JSON Lines, CSV/TSV, Parquet, Arrow, CoNLL,
SQuAD, in-memory tables) and dataset loading, writers, score files, the split folder's
manifest, and the one owner of every output and cache folder (:mod:`.outputs`, :mod:`.claims`)."""

from tailsplit.io.examples import load_examples
from tailsplit.io.readers import detect_format, read_records

__all__ = ["detect_format", "load_examples", "read_records"]
