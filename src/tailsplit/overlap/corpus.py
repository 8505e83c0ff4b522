"""Stream a corpus — training splits or large text collections — one entry at a time.

Formats: JSON Lines and Parquet (the text in ``field``) and plain text (one document or
sentence per line), each optionally gzip-compressed. Entry ids are ``<file name>:<line>``
(or ``:<row>`` for Parquet), so a match can be found again in its file.

For sharding, a corpus divides into ``CorpusPart``s: whole files, or — for uncompressed
text and JSON Lines — byte ranges, a range owning every line that starts inside it. Reading
the parts in order yields exactly the entries (and ids) of reading the files whole.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tailsplit.errors import InputError
from tailsplit.io.files import MAX_RECORD_BYTES
from tailsplit.io.lines import numbered_lines, too_long

TEXT_SUFFIXES = (".txt", ".txt.gz", ".text", ".text.gz")


@dataclass(frozen=True)
class CorpusEntry:
    id: str
    text: str


_JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz", ".ndjson", ".ndjson.gz")


@dataclass(frozen=True)
class CorpusPart:
    """A file, or the lines of an uncompressed line file starting in bytes [start, end)."""

    path: str
    start: int = 0
    end: int | None = None

    def size(self) -> int:
        total = Path(self.path).stat().st_size
        return (total if self.end is None else min(self.end, total)) - self.start


def iter_corpus(paths: Sequence[str | Path], field: str = "text") -> Iterator[CorpusEntry]:
    """Every non-empty entry of every file, in order; nothing is held beyond one batch."""
    for path in paths:
        yield from iter_part(CorpusPart(str(path)), field)


def iter_part(part: CorpusPart, field: str = "text") -> Iterator[CorpusEntry]:
    path = Path(part.path)
    if not path.exists():
        raise InputError("does not exist", path=path, fix="check the corpus path")
    kind = _kind(path)
    if kind == "parquet":
        yield from _parquet(path, field)
    elif kind == "text":
        for number, line in _lines(path, part):
            if line.strip():
                yield CorpusEntry(f"{path.name}:{number}", line.strip())
    else:
        yield from _jsonl(path, field, part)


def split_into_parts(paths: Sequence[str | Path], target_bytes: int) -> list[CorpusPart]:
    """The corpus as parts of about ``target_bytes`` where a file can be cut (uncompressed
    text or JSON Lines); other files stay whole."""
    parts = []
    for path in map(Path, paths):
        if not path.exists():
            raise InputError("does not exist", path=path, fix="check the corpus path")
        size = path.stat().st_size
        if _kind(path) == "parquet" or path.name.lower().endswith(".gz") or size <= target_bytes:
            parts.append(CorpusPart(str(path)))
            continue
        pieces = -(-size // max(target_bytes, 1))
        with open(path, "rb") as handle:
            bounds = sorted({_line_start(handle, size * i // pieces, size) for i in range(pieces + 1)})
        parts += [CorpusPart(str(path), start, end) for start, end in zip(bounds, bounds[1:])]
    return parts


def _line_start(handle: io.BufferedReader, offset: int, size: int) -> int:
    """The first line start at or after ``offset`` (``size`` past the last line): a part cut
    there owns whole lines, and a part that would own no line start is never made."""
    if offset <= 0 or offset >= size:
        return min(max(offset, 0), size)
    handle.seek(offset - 1)
    position = offset - 1
    while chunk := handle.read(1 << 16):
        found = chunk.find(b"\n")
        if found >= 0:
            return position + found + 1
        position += len(chunk)
    return size


def _kind(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(TEXT_SUFFIXES):
        return "text"
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith(_JSONL_SUFFIXES):
        return "jsonl"
    raise InputError(
        "has a format tailsplit cannot read as a corpus",
        path=path,
        fix="use .txt (one entry per line), .jsonl or .parquet, optionally .gz",
    )


def _lines(path: Path, part: CorpusPart) -> Iterator[tuple[int, str]]:
    """(line number, text) of the part's lines, decoded as UTF-8."""
    if part.start == 0 and part.end is None:
        for number, line in numbered_lines(path):
            yield number, _decode(line, path, number)
        return
    with open(path, "rb") as f:
        number = _newlines_before(f, part.start) + 1
        f.seek(max(part.start - 1, 0))
        if part.start > 0 and f.read(1) != b"\n":
            f.readline()  # the line under way belongs to the part before
            number += 1
        position = f.tell()
        while part.end is None or position < part.end:
            line = f.readline(MAX_RECORD_BYTES + 1)
            if not line:
                break
            if len(line) > MAX_RECORD_BYTES:
                raise too_long(path, number)
            yield number, _decode(line, path, number)
            number, position = number + 1, position + len(line)


def _newlines_before(f: io.BufferedReader, offset: int) -> int:
    f.seek(0)
    count, left = 0, offset
    while left > 0:
        chunk = f.read(min(left, 1 << 24))
        if not chunk:
            break
        count, left = count + chunk.count(b"\n"), left - len(chunk)
    return count


def _decode(line: bytes, path: Path, number: int) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text", path=path, line=number, fix="convert it to UTF-8") from None


def _jsonl(path: Path, field: str, part: CorpusPart) -> Iterator[CorpusEntry]:
    for number, line in _lines(path, part):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"is not valid JSON ({exc.msg})", path=path, line=number, fix="fix or remove that line"
            ) from None
        if not isinstance(record, dict) or field not in record:
            raise InputError(
                "is missing", path=path, line=number, field=field, fix="name the corpus text field with --corpus-field"
            )
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
