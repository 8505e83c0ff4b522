"""Records as Arrow tables: every field any record has, the input's types where it had a
schema (the Parquet and Hugging Face outputs are written from these)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def record_columns(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every field any record has, in first-seen order."""
    columns: dict[str, None] = {}
    for record in records:
        columns.update(dict.fromkeys(record))
    return list(columns)


def arrow_table(
    records: Sequence[Mapping[str, Any]], schema: Any = None, class_labels: Mapping[str, list[str]] | None = None
) -> Any:
    """``records`` as a pyarrow Table with every field any record has (a record without a
    field holds null there; ``Table.from_pylist`` alone would keep only the first record's
    fields): the input's field types and schema metadata where the input had a schema,
    types inferred from every value for columns tailsplit added (and for ``ClassLabel``
    columns, which are written as their names). A column whose values are of different kinds
    raises pyarrow's error (:func:`tailsplit.io.values.check_writable` refuses it before work).

    >>> arrow_table([{"a": 1}, {"a": 2, "b": "x"}]).column_names
    ['a', 'b']
    """
    import pyarrow as pa

    names = record_columns(records)
    decoded = set(class_labels or ())
    typed = {} if schema is None else {n: schema.field(n) for n in schema.names if n in names and n not in decoded}
    arrays = [pa.array([r.get(n) for r in records], type=typed[n].type if n in typed else None) for n in names]
    fields = [typed.get(n) or pa.field(n, a.type) for n, a in zip(names, arrays)]
    if schema is None:
        return pa.Table.from_arrays(arrays, schema=pa.schema(fields))
    metadata = dict(schema.metadata or {})
    if decoded:
        metadata.pop(b"huggingface", None)  # its features would call the decoded names integers
    if not names:
        return pa.Table.from_pylist([], schema=schema)
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=metadata or None))
