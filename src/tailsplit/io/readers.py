"""Read records from JSON Lines, CSV/TSV, Parquet and Hugging Face ``save_to_disk`` folders.

Every reader yields :class:`RawRecord` values that remember where they came from, so a
problem found later (a missing field, an empty text) can name the file and line or row.
Gzip is recognised by a ``.gz`` suffix. Nothing here knows about roles such as "text".
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tailsplit.collector import paused_gc
from tailsplit.errors import InputError
from tailsplit.io.arrow_files import read_hf_folder, read_parquet
from tailsplit.io.conll import conll_records
from tailsplit.io.files import MAX_RECORD_BYTES, file_problem, special_file_problem
from tailsplit.io.lines import decode_whole, decoded_blocks, numbered_lines, open_bytes, text_lines
from tailsplit.io.raw import RawRecord
from tailsplit.io.squad import is_squad, squad_records
from tailsplit.io.values import first_problem, text_problem

__all__ = ["RawRecord", "detect_format", "numbered_lines", "read_all", "read_csv_table", "read_records"]


def detect_format(path: Path) -> str:
    """Format name from the path: a folder is a ``datasets`` folder, files go by suffix."""
    if path.is_dir():
        return "hf"
    name = path.name.lower().removesuffix(".gz")
    for suffix, fmt in (
        (".jsonl", "jsonl"),
        (".ndjson", "jsonl"),
        (".json", "json"),
        (".conll", "conll"),
        (".csv", "csv"),
        (".tsv", "tsv"),
        (".parquet", "parquet"),
    ):
        if name.endswith(suffix):
            return fmt
    raise InputError(
        "has an unknown format",
        path=path,
        fix="use .jsonl, .csv, .tsv, .parquet, a NER column file (.conll), SQuAD's .json (optionally .gz "
        "for text formats) or a folder written by datasets' save_to_disk",
    )


def read_records(path: str | Path, fmt: str | None = None) -> Iterator[RawRecord]:
    """Yield the records of one file or folder, in file order (only a regular file or a
    folder is read: a FIFO or a device would block or never end); ``fmt`` names the format
    where the name does not (a NER task's ``.txt`` column file)."""
    path = Path(path)
    if not path.exists():
        raise InputError("does not exist", path=path, fix="check the path")
    if problem := special_file_problem(path, folders=True):
        raise InputError(problem, path=path, fix="give a data file or a datasets folder")
    fmt = fmt or detect_format(path)
    if kind := _misnamed(path, fmt):
        raise InputError(
            f"holds {kind[0]} data, though its name ends in {path.suffix}",
            path=path,
            fix=f"rename it to end in {kind[1]}",
        )
    reader = {
        "jsonl": _read_jsonl,
        "json": _read_json,
        "conll": lambda p: conll_records(p, text_lines(p)),
        "csv": _read_csv,
        "tsv": _read_tsv,
        "parquet": read_parquet,
        "hf": read_hf_folder,
    }[fmt]
    yield from reader(path)


_MAGIC = ((b"PAR1", "Parquet", ".parquet"), (b"\x1f\x8b", "gzip", ".gz"), (b"PK\x03\x04", "zip", ".zip"))


def _misnamed(path: Path, fmt: str) -> tuple[str, str] | None:
    """(its format, the ending to give it) of a file named as text (.jsonl, .csv, .tsv) whose
    first bytes are another format's (Parquet, gzip, zip): it would otherwise be refused as
    text that is not UTF-8."""
    if fmt not in ("jsonl", "json", "conll", "csv", "tsv") or path.name.lower().endswith(".gz") or not path.is_file():
        return None
    with open(path, "rb") as handle:
        head = handle.read(4)
    for magic, kind, suffix in _MAGIC:
        if head.startswith(magic):
            return kind, path.suffix + suffix if suffix == ".gz" else suffix
    return None


def read_all(path: str | Path) -> list[RawRecord]:
    """Every record of one file or folder, as a list (built with the collector paused)."""
    with paused_gc():
        return list(read_records(path))


def _json_problem(exc: json.JSONDecodeError) -> str:
    return f"{exc.msg.removesuffix(' at')} at column {exc.colno}"


class _NotJson(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity``: Python's json writes them, JSON has no such values."""


def _refuse_constant(name: str) -> Any:
    raise _NotJson(name)


class _Constant:
    def __init__(self, name: str) -> None:
        self.name = name


# The C scanner json.loads runs, refusing NaN and infinities (the C scanner calls parse_constant).
_SCAN = json.JSONDecoder(parse_constant=_refuse_constant).scan_once  # type: ignore[attr-defined]


def _constant_field(record: Any) -> tuple[str, str] | None:
    """(field path, constant) of the first NaN / infinity in a record parsed with markers."""

    return first_problem(record, lambda v: v.name if isinstance(v, _Constant) else None, lambda _: None)


def _refuse_text(path: Path, line_no: int, record: dict[str, Any]) -> None:
    """An :class:`InputError` for a record holding a lone surrogate (from an escape such as ``\\ud800``)."""

    found = text_problem(record)
    if found:
        raise InputError(
            found[1], path=path, line=line_no, field=found[0] or None, fix="fix the \\u escape or remove the row"
        )


def _read_line(path: Path, line_no: int, text: str, row: int) -> dict[str, Any] | None:
    """One JSON Lines line read on its own: its object, ``None`` for a blank line, or an
    :class:`InputError` naming what is wrong with it."""
    if not text.strip():
        return None
    try:
        record = json.loads(text, parse_constant=_refuse_constant)
    except _NotJson:
        found = _constant_field(json.loads(text, parse_constant=_Constant))
        field, name = found if found else (None, "NaN")
        raise InputError(
            f"holds {name}, which is not JSON (Python's json.dumps writes it unless allow_nan=False)",
            path=path,
            line=line_no,
            field=field,
            fix="write null or a number",
        ) from None
    except RecursionError:
        raise InputError(
            "nests arrays or objects too deeply to read", path=path, line=line_no, fix="flatten that record"
        ) from None
    except json.JSONDecodeError as exc:
        if row == 0 and text.strip() in ("[", "{"):
            kind = "array" if text.strip() == "[" else "object"
            raise InputError(
                f"starts a pretty-printed JSON {kind}, not JSON Lines",
                path=path,
                line=line_no,
                fix="write one JSON object per line (e.g. jq -c '.[]')",
            ) from None
        raise InputError(
            f"is not valid JSON ({_json_problem(exc)})", path=path, line=line_no, fix="fix or remove that line"
        ) from None
    if not isinstance(record, dict):
        kind = {list: "array", str: "string", bool: "boolean"}.get(type(record), type(record).__name__)
        raise InputError(
            f"holds a JSON {kind}, not an object", path=path, line=line_no, fix="write one JSON object per line"
        )
    return record


_BLANK_LINES = re.compile(r"[ \t\r\n]*\n")  # whole blank lines (a class, then back to the last \n: fast)


def _read_jsonl(path: Path) -> Iterator[RawRecord]:
    """One object per line. Each line is read by json's C scanner in place (no copy of the
    line, no per-call set-up); a line it does not read as one object followed by JSON white
    space is read on its own by :func:`_read_line` (a blank line, leading white space, or an
    error naming the problem)."""
    row = 0
    name = str(path)
    scan = _SCAN
    for line_no, text in decoded_blocks(path):
        pos, size, find = 0, len(text), text.find
        # A lone surrogate can only come from a \\uD800-\\uDFFF escape: look closer only then.
        escapes = "\\ud" in text or "\\uD" in text
        while pos < size:
            stop = find("\n", pos)
            if stop < 0:
                stop = size
            if stop == pos or text[pos] in " \t\r":  # blank lines: skipped at C speed, however many
                blank = _BLANK_LINES.match(text, pos)
                if blank is not None:
                    line_no += text.count("\n", pos, blank.end())
                    pos = blank.end()
                    continue
            try:
                record, end = scan(text, pos)
            except (StopIteration, json.JSONDecodeError, RecursionError, _NotJson):
                record, end = None, -1
            if record.__class__ is not dict or end > stop or (end < stop and text[end:stop].strip(" \t\r")):
                record = _read_line(path, line_no, text[pos:stop], row)
            if record is not None:
                if escapes:
                    _refuse_text(path, line_no, record)
                if "data" in record and is_squad(record):
                    raise InputError(
                        "holds SQuAD's nested document, not one record per line", path=path, line=line_no,
                        fix="name the file .json (SQuAD's layout is read from .json), or give one question per line",
                    )  # fmt: skip
                row += 1
                yield RawRecord(record, name, row, line_no)
            pos = stop + 1
            line_no += 1


def _read_json(path: Path) -> Iterator[RawRecord]:
    """A ``.json`` file: SQuAD's nested layout when the file is that one document (on one line,
    as published, or pretty-printed), else JSON Lines, as a ``.jsonl`` file — which is read
    once: its first line, one object, tells it apart."""
    with open_bytes(path) as handle:
        raw = handle.readline(MAX_RECORD_BYTES + 1).removeprefix(b"\xef\xbb\xbf")
        rest = handle.read(1 << 16)
    try:
        first = raw.decode("utf-8")
    except UnicodeDecodeError:
        first = decode_whole(path)  # refuses the file, naming the line and byte that are not UTF-8
    whole = first.strip() in ("{", "")
    text = decode_whole(path) if whole else first  # pretty-printed: the whole file
    try:
        document = json.loads(text) if text.lstrip().startswith("{") else None
    except json.JSONDecodeError as exc:
        if whole:
            _refuse_squad_then_junk(path, text, exc)
        document = None
    except RecursionError:
        document = None
    if is_squad(document):
        if not whole and rest.strip():
            raise InputError(
                "holds more after SQuAD's one-line document", path=path, line=2,
                fix="keep the document alone in its file",
            )  # fmt: skip
        yield from squad_records(path, document)
    else:
        yield from _read_jsonl(path)


def _refuse_squad_then_junk(path: Path, text: str, exc: json.JSONDecodeError) -> None:
    """A pretty-printed file that fails to parse: refused as SQuAD's document followed by more
    when that is what it is (otherwise it is read, and refused, as JSON Lines)."""
    if exc.msg != "Extra data":
        return
    try:
        document = json.loads(text[: exc.pos])
    except (json.JSONDecodeError, RecursionError):
        return
    if is_squad(document):
        raise InputError(
            "holds more after SQuAD's document", path=path, line=exc.lineno, fix="keep the document alone in its file"
        )
        if is_squad(document):
            raise InputError(
                "holds more after SQuAD's document",
                path=path,
                line=exc.lineno,
                fix="keep the document alone in its file",
            )
    return None


def _check_header(path: Path, header: list[str] | None) -> list[str]:
    if not header or header == [""]:
        raise InputError("has no header row", path=path, line=1, fix="put the column names on the first line")
    if len(set(header)) != len(header):
        dupes = sorted({h for h in header if header.count(h) > 1})
        raise InputError(f"repeats column names {dupes}", path=path, line=1, fix="give every column a distinct name")
    return header


def _read_csv(path: Path) -> Iterator[RawRecord]:
    """RFC 4180 CSV, read strictly: a quote that opens a field must close it, and a record
    may span lines only inside a closed quoted field."""
    reader = csv.reader(io.StringIO(decode_whole(path), newline=""), strict=True)
    row = 0
    start_line = 1
    header: list[str] | None = None
    while True:
        try:
            values = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise InputError(
                f"is not valid CSV ({exc}); a quoted field opened here is not closed where it should be",
                path=path,
                line=start_line,
                fix='close the quote, or double quotes inside a quoted field ("")',
            ) from None
        line_no, start_line = start_line, reader.line_num + 1
        if header is None:
            header = _check_header(path, values)
            continue
        if not values or values == [""]:
            continue
        if len(values) != len(header):
            raise InputError(
                f"has {len(values)} columns but the header has {len(header)}",
                path=path,
                line=line_no,
                fix="quote fields that contain the delimiter",
            )
        row += 1
        yield RawRecord(dict(zip(header, values)), str(path), row, line_no)
    if header is None:
        _check_header(path, None)


def read_csv_table(path: str | Path) -> list[tuple[int, dict[str, str]]]:
    """(line number, row) of a small CSV table with a header (a command's own input, such as
    ood-rank's candidates), read as strictly as data files; names and values stripped."""
    path = Path(path)
    if problem := file_problem(path):
        raise InputError(problem, path=path, fix="give a CSV file")
    return [(r.line or r.row, {k.strip(): v.strip() for k, v in r.record.items()}) for r in _read_csv(path)]


def _read_tsv(path: Path) -> Iterator[RawRecord]:
    """TSV as the NLI corpora write it: one record per line, fields split on tabs, quotes
    are ordinary characters (``"Hello" he said`` keeps its quotes)."""
    lines = decode_whole(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.removesuffix("\r") for line in lines]
    header = _check_header(path, lines[0].split("\t") if lines else None)
    row = 0
    for line_no, line in enumerate(lines[1:], start=2):
        if not line:
            continue
        values = line.split("\t")
        if len(values) != len(header):
            raise InputError(
                f"has {len(values)} tab-separated fields but the header has {len(header)}",
                path=path,
                line=line_no,
                fix="every line needs one field per column",
            )
        row += 1
        yield RawRecord(dict(zip(header, values)), str(path), row, line_no)
