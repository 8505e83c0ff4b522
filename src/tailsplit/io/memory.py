"""Data already in memory: a pandas ``DataFrame``, a ``pyarrow.Table``, a Hugging Face
``Dataset`` or ``DatasetDict``, or a ``list`` of ``dict`` records.

Each becomes :class:`~tailsplit.io.readers.RawRecord` values, as a file would, so every later
check names a row. A ``DatasetDict`` is pooled and each row remembers its split
(``RawRecord.split``); ``ClassLabel`` columns become their label names. Provenance for the
manifest is a content hash of the records (:func:`content_sha256`), which does not depend on
the table's type: the same rows as a DataFrame or as a list of dicts hash alike.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tailsplit.errors import ConfigError, InputError
from tailsplit.io.class_labels import class_label_names, decode_class_labels
from tailsplit.io.readers import RawRecord
from tailsplit.io.values import check_writable, text_problem


@dataclass(frozen=True)
class MemoryTable:
    """Records of an in-memory table, what it was, and its content hash."""

    kind: str  # "pandas.DataFrame", "pyarrow.Table", "datasets.Dataset", "datasets.DatasetDict", "list[dict]"
    records: list[RawRecord]
    sha256: str
    # The writable format that keeps the table's column types: Parquet for typed tables.
    natural_format: str
    # Arrow schema of a typed table, kept for Parquet output (column types and schema metadata).
    schema: Any = None
    # ClassLabel names per column of a Hugging Face table (for features on the way back out).
    class_labels: Mapping[str, list[str]] | None = None
    # A Hugging Face table's own description, citation, licence, homepage and name (for cards).
    about: Mapping[str, str] | None = None


def is_in_memory(data: Any) -> bool:
    """Whether ``data`` is a table tailsplit reads from memory rather than a path or list of paths."""
    if isinstance(data, (list, tuple)):
        return bool(data) and all(isinstance(item, Mapping) for item in data)
    return _kind(data) is not None


def _kind(data: Any) -> str | None:
    module = type(data).__module__.split(".")[0]
    name = type(data).__name__
    if module == "pandas" and name == "DataFrame":
        return "pandas.DataFrame"
    if module == "pyarrow" and name == "Table":
        return "pyarrow.Table"
    if module == "datasets" and name in ("Dataset", "DatasetDict"):
        return f"datasets.{name}"
    return None


def read_memory(data: Any) -> MemoryTable:
    """The records of ``data``; its kind stands for the path in error messages."""
    name = "list[dict]" if isinstance(data, (list, tuple)) else (_kind(data) or type(data).__name__)
    if isinstance(data, (list, tuple)):
        bad = next((i for i, item in enumerate(data) if not isinstance(item, Mapping)), None)
        if bad is not None:
            raise ConfigError(f"data item {bad} is a {type(data[bad]).__name__}, not a dict; pass one dict per example")
        raws = [RawRecord(dict(r), name, i) for i, r in enumerate(data, start=1)]
        _refuse_bad_text(raws)
        return MemoryTable("list[dict]", raws, content_sha256(r.record for r in raws), "jsonl")
    kind = _kind(data)
    if kind == "pandas.DataFrame":
        import pyarrow as pa

        if data.columns.duplicated().any():
            dupes = sorted({str(c) for c in data.columns[data.columns.duplicated()]})
            raise ConfigError(f"the DataFrame repeats column names {dupes}; give every column a distinct name")
        try:
            table = pa.Table.from_pandas(data, preserve_index=False)
        except (pa.ArrowException, UnicodeError, OverflowError):
            _refuse_frame(data, name)
            raise
        _refuse_mixed_bytes(data, table, name)
        return _from_arrow(kind, table, name)
    if kind == "pyarrow.Table":
        return _from_arrow(kind, data, name)
    if kind == "datasets.Dataset":
        return _from_hf(kind, [(None, data)], name)
    if kind == "datasets.DatasetDict":
        if not len(data):
            raise ConfigError("the DatasetDict holds no split; pass one with at least one split")
        return _from_hf(kind, list(data.items()), name)
    raise ConfigError(
        f"data of type {type(data).__name__} cannot be read; pass file paths, a pandas DataFrame, a pyarrow "
        "Table, a datasets Dataset or DatasetDict, or a list of dicts"
    )


def _refuse_bad_text(raws: list[RawRecord]) -> None:
    """A located error for the first record holding text that is not Unicode (a lone surrogate)."""

    for raw in raws:
        found = text_problem(raw.record)
        if found:
            raise raw.error(found[1], field=found[0] or None, fix="fix that text or remove the row")


def _refuse_frame(frame: Any, name: str) -> None:
    """Why a DataFrame cannot become an Arrow table, with its row and column: text that is not
    Unicode, or a column whose values are of different kinds (``str`` and ``int``)."""

    raws = [RawRecord(r, name, i) for i, r in enumerate(frame.to_dict("records"), start=1)]
    _refuse_bad_text(raws)
    import pyarrow as pa

    check_writable(
        [r.record for r in raws],
        "parquet",
        lambda i: (name, i + 1),
        json_safe=True,
        arrow=lambda records: pa.Table.from_pandas(frame, preserve_index=False),
    )


def _refuse_mixed_bytes(frame: Any, table: Any, name: str) -> None:
    """A column of text and bytes, which Arrow reads as bytes throughout (so the first row would
    be named for the bytes of another): refused at the first row whose kind differs from the
    column's first value's, in the DataFrame's own row numbers."""
    import pyarrow as pa

    for field in table.schema:
        if not (pa.types.is_binary(field.type) or pa.types.is_large_binary(field.type)):
            continue
        values = frame[field.name].tolist()
        kinds = [(i, type(v).__name__) for i, v in enumerate(values) if v is not None and v == v]
        other = next(((i, k) for i, k in kinds if k != kinds[0][1]), None) if kinds else None
        if other is not None:
            raise InputError(
                f"is a {other[1]} here but a {kinds[0][1]} in row {kinds[0][0] + 1}",
                path=name,
                row=other[0] + 1,
                field=str(field.name),
                fix="give the column one type in every row (decode the bytes to text)",
            )


def _from_arrow(kind: str, table: Any, name: str) -> MemoryTable:
    raws = [RawRecord(r, name, i) for i, r in enumerate(table.to_pylist(), start=1)]
    return MemoryTable(kind, raws, content_sha256(r.record for r in raws), "parquet", schema=table.schema)


def _from_hf(kind: str, splits: list[tuple[str | None, Any]], name: str) -> MemoryTable:
    raws: list[RawRecord] = []
    labels: dict[str, list[str]] = {}
    schema = None
    for split, dataset in splits:
        names = class_label_names(dataset.features)
        labels.update(names)
        table = dataset.with_format("arrow")[:] if len(dataset) else dataset.data.table.slice(0, 0)
        schema = table.schema if schema is None else schema
        where = name if split is None else f"{name}[{split}]"
        for row, record in enumerate(table.to_pylist(), start=1):
            raws.append(RawRecord(decode_class_labels(record, names), where, row, split=split))
    about = hf_about(splits[0][1].info)
    return MemoryTable(
        kind,
        raws,
        content_sha256(r.record for r in raws),
        "parquet",
        schema=schema,
        class_labels=labels or None,
        about=about or None,
    )


HF_ABOUT = ("dataset_name", "config_name", "description", "citation", "license", "homepage")


def hf_about(info: Any) -> dict[str, str]:
    """The non-empty descriptive fields of a ``datasets.DatasetInfo`` (name, description,
    citation, licence, homepage), which an exported card and ``DatasetInfo`` carry on."""
    return {key: str(value).strip() for key in HF_ABOUT if (value := getattr(info, key, None)) and str(value).strip()}


def content_sha256(records: Iterable[Mapping[str, Any]]) -> str:
    """sha256 of the records as canonical JSON lines (sorted keys; values JSON cannot hold as text)."""
    digest = hashlib.sha256()
    for record in records:
        digest.update(json.dumps(record, sort_keys=True, ensure_ascii=False, default=str).encode())
        digest.update(b"\n")
    return digest.hexdigest()
