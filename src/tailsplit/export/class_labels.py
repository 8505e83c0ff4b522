"""``--class-labels``: a split's label field exported as a ``datasets.ClassLabel`` (as ``datasets``
ships NLI data: ``label`` an integer with named classes), checked on every record first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tailsplit.config.recorded import recorded_run
from tailsplit.errors import ConfigError
from tailsplit.io.manifest import Manifest


def parse_class_labels(names: str | Sequence[str]) -> list[str]:
    """Class names in id order, from ``"a,b,c"`` or a sequence; refused when empty or repeated."""
    listed = [n.strip() for n in names.split(",")] if isinstance(names, str) else [str(n).strip() for n in names]
    if len(listed) < 2 or any(not name for name in listed):
        raise ConfigError(
            f"--class-labels {','.join(listed)!r} must name two or more classes, comma-separated, none empty"
        )
    repeated = sorted({name for name in listed if listed.count(name) > 1})
    if repeated:
        raise ConfigError(f"--class-labels names {', '.join(map(repr, repeated))} twice; give each class once")
    return listed


def with_class_labels(
    manifest: Manifest, parts: Mapping[str, Sequence[Any]], names: Sequence[str]
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[str]]]:
    """Each part's records with the label field as class names (an integer label is read as a
    class id), and the class labels to export. Refused, naming the file, line and field, when
    a label is not one of ``names``; refused when the input's own ClassLabel names differ."""

    field = recorded_run(manifest).data.label
    if not field:
        raise ConfigError("--class-labels needs a split made with a label field (--label)")
    existing = manifest.class_labels
    if field in existing and list(existing[field]) != list(names):
        raise ConfigError(
            f"--class-labels {','.join(names)!r} differs from the input's own ClassLabel names for {field!r} "
            f"({','.join(existing[field])!r}); leave --class-labels out to keep them"
        )
    records: dict[str, list[dict[str, Any]]] = {}
    for part, raws in parts.items():
        records[part] = []
        for raw in raws:
            record = dict(raw.record)
            if field not in record:
                raise raw.error(
                    "has no top-level label field", field=field, fix="--class-labels applies to a top-level field"
                )
            record[field] = _class_name(raw, field, record[field], names)
            records[part].append(record)
    return records, {**existing, field: list(names)}


def _class_name(raw: Any, field: str, value: Any, names: Sequence[str]) -> str | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    if isinstance(value, str) and value in names:
        return value
    raise raw.error(
        f"has label {value!r}, which --class-labels does not name (it names {', '.join(names)}; "
        f"an integer label is a class id from 0 to {len(names) - 1})",
        field=field,
        fix="name every label of the split in --class-labels",
    )
