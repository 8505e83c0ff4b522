"""Values a record may hold: what every reader accepts and what each output format can write.

Two checks, both before any model loads:

- :func:`text_problem` — every string (value or key) is Unicode text. A JSON escape such as
  ``"\\ud800"`` decodes to a lone surrogate, which no UTF-8 writer, tokenizer or Arrow column
  can hold; it is refused where the record is read.
- :func:`check_writable` — the records can be written in the run's output format: JSON-based
  formats (JSON Lines, CSV cells holding lists) hold finite numbers and JSON types only, TSV
  cells hold no tab or line break, Parquet and ``save_to_disk`` folders need one Arrow type
  per column. A run that would fail while writing is refused with the row and field instead.

>>> text_problem({"a": ["ok", "bad \\ud800"]})
('a[1]', 'holds a lone surrogate (\\\\ud800), which is not Unicode text')
>>> text_problem({"a": "fine"}) is None
True
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tailsplit.errors import InputError

# Where a row is: (file or table kind, record number), as Dataset.location gives it.
Locate = Callable[[int], tuple[str, int]]


def _surrogate(text: str) -> str | None:
    """The first lone surrogate of ``text`` as an escape (``\\ud800``), or None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"\\u{ord(text[exc.start]):04x}"
    return None


def _join(path: str, key: str) -> str:
    return key if not path else f"{path}.{key}"


def first_problem(
    value: Any,
    leaf: Callable[[Any], str | None],
    key: Callable[[Any], str | None],
    path: str = "",
) -> tuple[str, str] | None:
    """(field path, problem) of the first field name (``key``) or value (``leaf``) in a nested
    record that has a problem, in reading order; ``None`` when there is none."""
    if isinstance(value, Mapping):
        for name, item in value.items():
            problem = key(name)
            if problem is not None:
                return _join(path, repr(name)), problem
            found = first_problem(item, leaf, key, _join(path, str(name)))
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = first_problem(item, leaf, key, f"{path}[{i}]")
            if found:
                return found
        return None
    problem = leaf(value)
    return None if problem is None else (path, problem)


def _text_leaf(value: Any) -> str | None:
    bad = _surrogate(value) if isinstance(value, str) else None
    return None if bad is None else f"holds a lone surrogate ({bad}), which is not Unicode text"


def _text_key(name: Any) -> str | None:
    bad = _surrogate(name) if isinstance(name, str) else None
    return None if bad is None else f"has a name with a lone surrogate ({bad})"


def text_problem(value: Any) -> tuple[str, str] | None:
    """(field path, problem) of the first string or key in ``value`` that is not Unicode text."""
    return first_problem(value, _text_leaf, _text_key)


def _json_leaf(value: Any) -> str | None:
    if value is None or isinstance(value, (str, int)):  # bool is an int
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"holds {value!r}, which JSON cannot hold"
    return f"holds a {type(value).__name__} value, which JSON cannot hold"


def _json_key(name: Any) -> str | None:
    return None if isinstance(name, str) else f"has a name of type {type(name).__name__}, not text"


def json_problem(value: Any) -> tuple[str, str] | None:
    """(field path, problem) of the first value JSON cannot hold: NaN or an infinity, a key
    that is not text, a type other than text, number, boolean, null, list or object."""
    return first_problem(value, _json_leaf, _json_key)


def check_writable(
    records: Sequence[Mapping[str, Any]],
    fmt: str,
    locate: Locate,
    *,
    json_safe: bool,
    arrow: Callable[[Sequence[Mapping[str, Any]]], Any] | None = None,
) -> None:
    """Refuse, naming the row and field, records that ``fmt`` cannot write.

    ``json_safe``: the records came from a text format (JSON Lines, CSV, TSV), whose reader
    already holds them to JSON values, so JSON-based formats need no walk. ``arrow`` builds
    the Arrow table of Parquet and ``save_to_disk`` outputs (with the input's schema).
    """
    if fmt in ("jsonl", "csv", "tsv") and not json_safe:
        for i, record in enumerate(records):
            found = json_problem(record)
            if found:
                _refuse(locate, i, found, "write null or a plain value, or keep it with --format parquet")
    if fmt == "tsv":
        for i, record in enumerate(records):
            for name, value in record.items():
                cell = value if isinstance(value, str) else repr(value)
                if any(c in text for text in (cell, str(name)) for c in "\t\n\r"):
                    _refuse(
                        locate, i, (name, "holds a tab or line break, which TSV cannot hold"),
                        "write JSON Lines or CSV instead (--format jsonl)",
                    )  # fmt: skip
    if fmt == "hf":
        for i, record in enumerate(records):
            bad = _nul_name(record)
            if bad is not None:
                _refuse(
                    locate, i, (bad, "has a NUL character in its name, which a Hugging Face dataset cannot hold"),
                    "rename the field, or write Parquet (--format parquet)",
                )  # fmt: skip
    if fmt in ("parquet", "hf") and arrow is not None:
        _check_arrow(records, locate, arrow)


def _refuse(locate: Locate, i: int, found: tuple[str, str], fix: str) -> None:
    path, number = locate(i)
    raise InputError(found[1], path=path, row=number, field=found[0] or None, fix=fix)


def _check_arrow(records: Sequence[Mapping[str, Any]], locate: Locate, arrow: Callable[..., Any]) -> None:
    """Build the Arrow table; when a column cannot be one Arrow type, name its first row whose
    value is of another kind than the column's first value."""
    import pyarrow as pa

    try:
        table = arrow(records)
    except (pa.ArrowException, OverflowError) as exc:  # invalid, type and unsupported-type errors
        reason = str(exc).splitlines()[0]
    else:
        for field in table.schema:
            if _has_empty_struct(field.type):
                row = next((i for i, r in enumerate(records) if _holds_empty_object(r.get(field.name))), 0)
                _refuse(
                    locate, row, (field.name, "holds an object with no fields, which Parquet cannot store"),
                    "drop the empty object or write JSON Lines (--format jsonl)",
                )  # fmt: skip
        return
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record))
    for name in names:
        first: tuple[int, str] | None = None
        for i, record in enumerate(records):
            value = record.get(name)
            if value is None:
                continue
            kind = _kind(value)
            if first is None:
                first = (i, kind)
            elif kind != first[1]:
                where, number = locate(first[0])
                _refuse(
                    locate, i,
                    (name, f"is {_a(kind)} here but {_a(first[1])} in {where} row {number}"),
                    "give the field one type in every row, or write JSON Lines (--format jsonl)",
                )  # fmt: skip
    path, number = locate(0)
    raise InputError(
        f"cannot be written as an Arrow table ({reason})", path=path, fix="write JSON Lines instead (--format jsonl)"
    )


def _nul_name(value: Any) -> str | None:
    """The first field name (at any depth) holding a NUL character, or None."""
    found = first_problem(value, lambda _: None, lambda name: "NUL" if "\x00" in str(name) else None)
    return None if found is None else found[0]


def _has_empty_struct(kind: Any) -> bool:
    import pyarrow as pa

    if pa.types.is_struct(kind):
        return kind.num_fields == 0 or any(_has_empty_struct(kind.field(i).type) for i in range(kind.num_fields))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _has_empty_struct(kind.value_type)
    return False


def _holds_empty_object(value: Any) -> bool:
    if isinstance(value, Mapping):
        return not value or any(_holds_empty_object(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_empty_object(v) for v in value)
    return False


def _kind(value: Any) -> str:
    """What Arrow tells apart: a number (int and float share a column), or the Python type."""
    return "number" if isinstance(value, (int, float)) and not isinstance(value, bool) else type(value).__name__


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def finite(value: Any) -> Any:
    """``value`` with NaN and infinities as ``None`` (strict JSON has no NaN)."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "dtype") and getattr(value, "ndim", 1) == 0:  # numpy scalars
        return finite(value.item())
    return value


def json_default(value: Any) -> Any:
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


def json_lines(rows: Any) -> str:
    """One strict JSON object a line (NaN and infinities as null), text kept as it is.

    >>> json_lines([{"a": float("nan"), "b": "é"}])
    '{"a": null, "b": "é"}\\n'
    """
    return "".join(
        json.dumps(finite(row), default=json_default, allow_nan=False, ensure_ascii=False) + "\n" for row in rows
    )


def strict_json(value: Any) -> str:
    """Indented strict JSON (NaN and infinities as null) with a final newline."""
    return json.dumps(finite(value), indent=2, default=json_default, allow_nan=False) + "\n"
