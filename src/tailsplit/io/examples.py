"""Turn data files into a :class:`~tailsplit.core.Dataset`: pool files, resolve roles, validate.

Every problem is reported with its file, line or row, field and a fix; nothing is coerced
silently except labels, which become strings (JSON ``true`` → ``"true"``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import operator
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tailsplit.collector import paused_gc
from tailsplit.core import Dataset, FieldMap
from tailsplit.errors import ConfigError, InputError
from tailsplit.io.memory import is_in_memory, read_memory
from tailsplit.io.readers import RawRecord, read_all

SOURCE_COLUMN = "source_file"
SPLIT_COLUMN = "source_split"  # the Hugging Face split of each row of a pooled DatasetDict


def load_examples(data: Any, fields: FieldMap) -> Dataset:
    """Load and pool one or more files, or a table in memory (a pandas DataFrame, pyarrow
    Table, datasets Dataset or DatasetDict, or a list of dicts); each example remembers its
    file in ``sources`` (and its split, for a DatasetDict, in ``splits``).

    >>> ds = load_examples(["dev.jsonl", "test.jsonl"], FieldMap(text="hypothesis"))  # doctest: +SKIP
    >>> ds = load_examples(pandas.read_parquet("snli.parquet"), FieldMap(text="hypothesis"))  # doctest: +SKIP
    """
    for role, name in fields.as_dict().items():
        if name is not None and not isinstance(name, str):
            raise ConfigError(
                f"--{role}={name!r} is not text, so not a field name; name the field as text, "
                f"e.g. --{role}={str(name)!r} (a table's column names are read as text)"
            )
    with paused_gc():  # hundreds of thousands of records and their columns, no cycles
        return _load_examples(data, fields)


def _load_examples(data: Any, fields: FieldMap) -> Dataset:
    memory = None
    if is_in_memory(data):
        memory = read_memory(data)
        raw = memory.records
        if not raw:
            raise ConfigError(f"the {memory.kind} holds no records; pass a table with rows")
        sources = [memory.kind] * len(raw)
        paths: Sequence[str | Path] = ()
        memory = dataclasses.replace(memory, records=[])
    else:
        paths = [data] if isinstance(data, (str, Path)) else data
        if isinstance(paths, (list, tuple)) and not paths:
            raise ConfigError("paths=[] names no data file; pass at least one file")
        if not isinstance(paths, (list, tuple)) or not all(isinstance(p, (str, Path)) for p in paths):
            read_memory(data)  # names what cannot be read
        raw = []
        sources = []
        for path in paths:
            before = len(raw)
            raw.extend(read_all(path))
            if len(raw) == before:
                raise InputError("holds no records", path=path, fix="check that it is the right file")
            sources.extend([str(path)] * (len(raw) - before))
    split_names = set(map(operator.attrgetter("split"), raw))
    splits = tuple(r.split or "" for r in raw) if split_names != {None} else None

    texts = _column(raw, fields.text, "--text", _required_text)
    contexts = None if fields.context is None else _column(raw, fields.context, "--context", _required_text)
    labels = None if fields.label is None else _column(raw, fields.label, "--label", _required_value)
    groups = None if fields.group is None else _column(raw, fields.group, "--group", _required_value)
    programs = None if fields.program is None else _column(raw, fields.program, "--program", _required_text)
    ids, generated = _resolve_ids(raw, fields.id, texts, contexts)
    return Dataset(
        records=tuple(map(operator.attrgetter("record"), raw)),
        fields=fields,
        ids=ids,
        texts=texts,
        contexts=contexts,
        labels=labels,
        groups=groups,
        sources=tuple(sources),
        ids_generated=generated,
        input_paths=tuple(str(p) for p in paths),
        programs=programs,
        splits=splits,
        memory=memory,
    )


def _column(
    raw: list[RawRecord], name: str, option: str, checked: Callable[[RawRecord, str, str], str]
) -> tuple[str, ...]:
    """Field ``name`` of every record, as ``checked`` returns it (or raises a located error).

    Fast path: when every record has ``name`` as a plain key, a non-blank string is taken as
    it is — what ``checked`` would return for it; every other value goes through ``checked``.
    """
    try:
        values = list(map(operator.itemgetter(name), map(operator.attrgetter("record"), raw)))
    except (KeyError, TypeError):  # a dotted path, or a record without the field: the checked path
        return tuple(checked(r, name, option) for r in raw)
    try:
        if all(map(str.strip, values)):  # every value text and not blank: checked at C speed
            return tuple(values)
    except TypeError:  # a value that is not text
        pass
    return tuple(v if v.__class__ is str and v.strip() else checked(r, name, option) for r, v in zip(raw, values))


def _fields_hint(record: dict[str, Any]) -> str:
    names = ", ".join(repr(k) for k in list(record)[:12])
    return f"the record has {names}" if names else "the record is empty"


def _required_text(raw: RawRecord, name: str, option: str) -> str:
    if not raw.has(name):
        raise raw.error("is missing", field=name, fix=f"{_fields_hint(raw.record)}; choose the field with {option}")
    value = raw.value(name)
    if value is None:
        raise raw.error("is null", field=name, fix="fill it in or remove the row")
    if not isinstance(value, str):
        raise raw.error(f"is a {type(value).__name__}, not text", field=name, fix=f"point {option} at a text field")
    if not value.strip():
        raise raw.error("is empty", field=name, fix="fill it in or remove the row")
    return value


def label_to_str(value: Any) -> str:
    """Labels are compared as strings; JSON scalars keep their JSON spelling (``true``, ``1``)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _required_value(raw: RawRecord, name: str, option: str) -> str:
    if not raw.has(name):
        raise raw.error("is missing", field=name, fix=f"{_fields_hint(raw.record)}; choose the field with {option}")
    value = raw.value(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise raw.error("is empty or null", field=name, fix="fill it in or remove the row")
    if isinstance(value, float) and not math.isfinite(value):  # a Parquet NaN: no class, no group
        raise raw.error(f"is {value!r}, not a value", field=name, fix="fill it in or remove the row")
    if not isinstance(value, (str, int, float, bool)):
        kind = (
            "a list" if isinstance(value, (list, tuple)) else "an object" if isinstance(value, dict) else "not a scalar"
        )
        raise raw.error(f"is {kind}, not one value", field=name, fix=f"give one string or number per row for {option}")
    return label_to_str(value)


def _resolve_ids(
    raw: list[RawRecord],
    id_field: str,
    texts: tuple[str, ...],
    contexts: tuple[str, ...] | None,
) -> tuple[tuple[str, ...], bool]:
    """Ids from ``id_field`` when every record has it; generated when none has it."""
    if all(map(operator.contains, map(operator.attrgetter("record"), raw), itertools.repeat(id_field))):
        having = raw
    else:
        having = [r for r in raw if r.has(id_field)]
    if not having:
        return tuple(
            _generated_id(i, texts[i], None if contexts is None else contexts[i]) for i in range(len(raw))
        ), True
    if len(having) != len(raw):
        missing = next(r for r in raw if not r.has(id_field))
        raise missing.error(
            "is missing here but present in other records",
            field=id_field,
            fix="give every record an id, or none (ids are then generated)",
        )
    ids = _column(raw, id_field, "--id", _required_value)
    if len(set(ids)) == len(ids):
        return ids, False
    seen: dict[str, RawRecord] = {}
    for r, value in zip(raw, ids):
        if value in seen:
            first = seen[value]
            where = f"{first.path}:{first.line}" if first.line is not None else f"{first.path} row {first.row}"
            raise r.error(
                f"repeats id {value!r} first seen at {where}",
                field=id_field,
                fix="make ids unique, or pass --id with another field",
            )
        seen[value] = r
    return ids, False


def _generated_id(position: int, text: str, context: str | None) -> str:
    """Stable id from position and content: ``"000042-3fa9c1d2"``."""
    digest = hashlib.sha1(f"{context or ''}\x1f{text}".encode()).hexdigest()[:8]
    return f"{position:06d}-{digest}"
