"""Write records in the input's format (inside a staging folder of :mod:`tailsplit.io.outputs`)."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tailsplit.errors import ConfigError

# ``hf`` writes a ``save_to_disk`` folder (no suffix).
OUTPUT_SUFFIX = {"jsonl": ".jsonl", "csv": ".csv", "tsv": ".tsv", "parquet": ".parquet", "hf": ""}
OUTPUT_FORMATS = tuple(OUTPUT_SUFFIX)


def output_format_for(input_format: str) -> str:
    """Outputs keep the input's format by default; a ``datasets`` folder is written as JSON
    Lines unless ``--format hf`` asks for ``save_to_disk`` folders."""
    return "jsonl" if input_format == "hf" else input_format


def check_output_format(fmt: str) -> None:
    """Refuse an unknown format, or ``hf`` without the datasets library, before any work."""
    if fmt not in OUTPUT_FORMATS:
        raise ConfigError(f"format={fmt!r} is not a writable format; use one of {list(OUTPUT_FORMATS)}")
    if fmt == "hf":
        from tailsplit.io.hf import _datasets

        _datasets()


@dataclass(frozen=True)
class InputSchema:
    """What the input said about its columns: an Arrow schema (Parquet, datasets, in-memory
    tables) and ``ClassLabel`` names, so typed outputs keep the input's types."""

    arrow: Any = None
    class_labels: Mapping[str, list[str]] | None = None


def arrow_table(
    records: Sequence[Mapping[str, Any]], schema: Any = None, class_labels: Mapping[str, list[str]] | None = None
) -> Any:
    """``records`` as a pyarrow Table: the input's field types and schema metadata where the
    input had a schema, inferred types for columns tailsplit added (and for ``ClassLabel``
    columns, which are written as their names)."""
    import pyarrow as pa

    inferred = pa.Table.from_pylist(list(records))
    if schema is None:
        return inferred
    decoded = set(class_labels or ())
    names = inferred.column_names or list(schema.names)
    fields = [
        schema.field(name) if name in schema.names and name not in decoded else inferred.schema.field(name)
        for name in names
    ]
    metadata = dict(schema.metadata or {})
    if decoded:
        metadata.pop(b"huggingface", None)  # its features would call the decoded names integers
    return pa.Table.from_pylist(list(records), schema=pa.schema(fields, metadata=metadata or None))


def write_records(
    path: Path, records: Sequence[Mapping[str, Any]], fmt: str, schema: InputSchema | None = None
) -> None:
    """Write ``records`` to ``path`` (not atomic by itself: call inside :func:`staged_dir`)."""
    schema = schema or InputSchema()
    if fmt == "jsonl":
        # One encoder for every record (json.dumps with options builds one per call); the
        # output is json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n", in blocks.
        encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            for start in range(0, len(records), 4096):
                handle.write("".join(encode(r) + "\n" for r in records[start : start + 4096]))
    elif fmt == "csv":
        _write_csv(path, records)
    elif fmt == "tsv":
        _write_tsv(path, records)
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(arrow_table(records, schema.arrow, schema.class_labels), path)
    elif fmt == "hf":
        from tailsplit.io.hf import save_hf

        save_hf(path, records, schema.arrow, schema.class_labels)
    else:
        raise ConfigError(f"format={fmt!r} is not a writable format; use one of {sorted(OUTPUT_SUFFIX)}")


def _columns(records: Sequence[Mapping[str, Any]]) -> list[str]:
    columns: dict[str, None] = {}
    for record in records:
        columns.update(dict.fromkeys(record))
    return list(columns)


def _write_csv(path: Path, records: Sequence[Mapping[str, Any]]) -> None:
    """CSV with LF line ends; a row holding a carriage return is fully quoted, since the csv
    module would otherwise leave a lone CR unquoted and readers would break the row there."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        columns = _columns(records)
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        quoted = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n", quoting=csv.QUOTE_ALL)
        writer.writeheader()
        for record in records:
            row = {k: _cell(v) for k, v in record.items()}
            (quoted if any("\r" in str(v) for v in row.values()) else writer).writerow(row)


def _write_tsv(path: Path, records: Sequence[Mapping[str, Any]]) -> None:
    """Tab-separated, no quoting (as TSV is read): a value holding a tab or newline cannot be written."""
    columns = _columns(records)
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
