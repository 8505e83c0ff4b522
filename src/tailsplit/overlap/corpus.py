"""Stream a corpus — training splits or large text collections — one entry at a time.

Formats: JSON Lines and Parquet (the text in ``field``) and plain text (one document or
sentence per line), each optionally gzip-compressed. Entry ids are ``<file name>:<line>``
(or ``:<row>`` for Parquet), so a match can be found again in its file.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tailsplit.errors import InputError

TEXT_SUFFIXES = (".txt", ".txt.gz", ".text", ".text.gz")


@dataclass(frozen=True)
class CorpusEntry:
    id: str
    text: str


def iter_corpus(paths: Sequence[str | Path], field: str = "text") -> Iterator[CorpusEntry]:
    """Every non-empty entry of every file, in order; nothing is held beyond one batch."""
    for path in map(Path, paths):
        if not path.exists():
            raise InputError("does not exist", path=path, fix="check the corpus path")
        name = path.name.lower()
        if name.endswith(TEXT_SUFFIXES):
            yield from _text_lines(path)
        elif name.endswith((".parquet", ".pq")):
            yield from _parquet(path, field)
        elif name.endswith((".jsonl", ".jsonl.gz", ".json", ".json.gz", ".ndjson", ".ndjson.gz")):
            yield from _jsonl(path, field)
        else:
            raise InputError("has a format tailsplit cannot read as a corpus", path=path,
                             fix="use .txt (one entry per line), .jsonl or .parquet, optionally .gz")


def _open_text(path: Path) -> io.TextIOBase:
    raw = gzip.open(path, "rb") if path.name.lower().endswith(".gz") else open(path, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8", errors="strict")


def _text_lines(path: Path) -> Iterator[CorpusEntry]:
    with _open_text(path) as f:
        try:
            for number, line in enumerate(f, start=1):
                if line.strip():
                    yield CorpusEntry(f"{path.name}:{number}", line.strip())
        except UnicodeDecodeError:
            raise InputError("is not UTF-8 text", path=path, fix="convert it to UTF-8") from None


def _jsonl(path: Path, field: str) -> Iterator[CorpusEntry]:
    with _open_text(path) as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"is not valid JSON ({exc.msg})", path=path, line=number,
                                 fix="fix or remove that line") from None
            if not isinstance(record, dict) or field not in record:
                raise InputError("is missing", path=path, line=number, field=field,
                                 fix="name the corpus text field with --corpus-field")
            if isinstance(record[field], str) and record[field].strip():
                yield CorpusEntry(f"{path.name}:{number}", record[field])


def _parquet(path: Path, field: str) -> Iterator[CorpusEntry]:
    import pyarrow.parquet as pq

    handle = pq.ParquetFile(path)
    if field not in handle.schema_arrow.names:
        raise InputError("is missing", path=path, field=field, fix="name the corpus text column with --corpus-field")
    row = 0
    for batch in handle.iter_batches(columns=[field], batch_size=65536):
        for value in batch.column(0).to_pylist():
            row += 1
            if isinstance(value, str) and value.strip():
                yield CorpusEntry(f"{path.name}:{row}", value)
