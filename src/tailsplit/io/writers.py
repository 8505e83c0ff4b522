"""Write records in the input's format (inside a staging folder of :mod:`tailsplit.io.outputs`)."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from json.encoder import (  # type: ignore[attr-defined]  # json's C encoder and string encoder
    c_make_encoder,
    encode_basestring,
)
from pathlib import Path
from typing import Any

from tailsplit.choices import OUTPUT_FORMATS, OUTPUT_SUFFIX
from tailsplit.errors import ConfigError
from tailsplit.io.arrow import arrow_table, record_columns
from tailsplit.io.hf import _datasets, save_hf


def output_format_for(input_format: str) -> str:
    """Outputs keep the input's format by default; a ``datasets`` folder is written as JSON
    Lines unless ``--format hf`` asks for ``save_to_disk`` folders."""
    return "jsonl" if input_format == "hf" else input_format


def check_output_format(fmt: str) -> None:
    """Refuse an unknown format, or ``hf`` without the datasets library, before any work."""
    if fmt not in OUTPUT_FORMATS:
        raise ConfigError(f"--format={fmt!r} is not a writable format; use one of {list(OUTPUT_FORMATS)}")
    if fmt == "hf":
        _datasets()


@dataclass(frozen=True)
class InputSchema:
    """What the input said about its columns: an Arrow schema (Parquet, datasets, in-memory
    tables) and ``ClassLabel`` names, so typed outputs keep the input's types."""

    arrow: Any = None
    class_labels: Mapping[str, list[str]] | None = None


def write_records(
    path: Path,
    records: Sequence[Mapping[str, Any]],
    fmt: str,
    schema: InputSchema | None = None,
    added: Mapping[str, Sequence[Any]] | None = None,
) -> None:
    """Write ``records`` to ``path`` (not atomic by itself: call inside :func:`staged_dir`),
    each with the columns ``added`` appended (name → one value per record; the names must be
    new to the records), as if written as ``{**record, name: value, ...}``."""
    schema = schema or InputSchema()
    if fmt == "jsonl":
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(_jsonl_blocks(records, added or {}))
        return
    if added:
        names = list(added)
        columns = [_plain(added[name]) for name in names]
        records = [{**record, **dict(zip(names, values))} for record, *values in zip(records, *columns)]
    if fmt == "csv":
        _write_csv(path, records)
    elif fmt == "tsv":
        _write_tsv(path, records)
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(arrow_table(records, schema.arrow, schema.class_labels), path)
    elif fmt == "hf":
        save_hf(path, records, schema.arrow, schema.class_labels)
    else:
        raise ConfigError(f"--format={fmt!r} is not a writable format; use one of {sorted(OUTPUT_SUFFIX)}")


_BLOCK_ROWS = 4096


def _jsonl_blocks(records: Sequence[Mapping[str, Any]], added: Mapping[str, Sequence[Any]]) -> Iterator[str]:
    """``json.dumps(row, ensure_ascii=False, allow_nan=False) + "\\n"`` of every row, in blocks
    of lines, through one encoder. An appended column is not put into a copy of each record:
    its encoded ``, "name": value`` is spliced before the record's closing brace, which is
    the same text (``added``'s names are new to the records, so they come last)."""
    encode = _encoder()
    prefixes = [f", {encode_basestring(name)}: " for name in added]
    for start in range(0, len(records), _BLOCK_ROWS):
        block = records[start : start + _BLOCK_ROWS]
        if not added:
            yield "".join([encode(record) + "\n" for record in block])
            continue
        columns = [
            list(map(prefix.__add__, _encoded(_plain(values[start : start + _BLOCK_ROWS]), encode)))
            for prefix, values in zip(prefixes, added.values())
        ]
        tails = map("".join, zip(*columns))
        yield "".join(
            [(encode(record)[:-1] + tail if record else "{" + tail[2:]) + "}\n" for record, tail in zip(block, tails)]
        )


def _encoder() -> Callable[[Any], str]:
    """``json.dumps(value, ensure_ascii=False, allow_nan=False)`` without its per-call set-up:
    ``JSONEncoder.encode`` builds json's C encoder anew for every value (a third of the time
    of writing a 550,000-row part); this builds it once."""
    encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
    if c_make_encoder is None:  # an interpreter without json's C accelerator
        return encoder.encode
    chunks = c_make_encoder({}, encoder.default, encode_basestring, None, ": ", ", ", False, False, False)
    return lambda value: "".join(chunks(value, 0))


def _plain(values: Sequence[Any]) -> list[Any]:
    """Python values (a NumPy array's items as Python floats, ints, bools)."""
    return values.tolist() if hasattr(values, "tolist") else list(values)


def _encoded(values: list[Any], encode: Any) -> list[str]:
    """The JSON text of each value, by type at C speed where a column holds one type (the
    text ``encode`` gives: floats by ``float.__repr__``, strings by ``encode_basestring``)."""
    kinds = set(map(type, values))
    if kinds == {float} and all(map(math.isfinite, values)):
        return list(map(float.__repr__, values))
    if kinds == {int}:
        return list(map(int.__repr__, values))
    if kinds == {str}:
        return list(map(encode_basestring, values))
    if kinds == {bool}:
        return ["true" if value else "false" for value in values]
    return list(map(encode, values))


def _write_csv(path: Path, records: Sequence[Mapping[str, Any]]) -> None:
    """CSV with LF line ends; a row holding a carriage return is fully quoted, since the csv
    module would otherwise leave a lone CR unquoted and readers would break the row there."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        columns = record_columns(records)
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        quoted = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n", quoting=csv.QUOTE_ALL)
        writer.writeheader()
        for record in records:
            row = {k: _cell(v) for k, v in record.items()}
            (quoted if any("\r" in str(v) for v in row.values()) else writer).writerow(row)


def _write_tsv(path: Path, records: Sequence[Mapping[str, Any]]) -> None:
    """Tab-separated, no quoting (as TSV is read): a value holding a tab or newline cannot be written."""
    columns = record_columns(records)
    lines = ["\t".join(columns)]
    for number, record in enumerate(records, start=1):
        cells = [str(_cell(record.get(name, ""))) for name in columns]
        bad = next((name for name, cell in zip(columns, cells) if "\t" in cell or "\n" in cell), None)
        if bad is not None:
            raise ConfigError(
                f"record {number} has a tab or line break in field {bad!r}, which TSV cannot hold; "
                "use a JSON Lines or CSV input instead"
            )
        lines.append("\t".join(cells))
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("\n".join(lines) + "\n")


def _cell(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else value
