"""Field names: a key of a record, or a dotted path into nested objects.

Real dumps nest their texts (ChaosNLI: ``{"uid": ..., "example": {"premise": ..., "hypothesis": ...}}``);
every option and template placeholder that names a field accepts ``example.premise``.

>>> field_value({"example": {"premise": "A man."}}, "example.premise")
'A man.'
>>> field_value({"a.b": 1, "a": {"b": 2}}, "a.b")  # a key holding the dot wins
1
"""

from __future__ import annotations

from typing import Any

_MISSING = object()
_ABSENT = object()


def field_value(record: Any, name: str, default: Any = _MISSING) -> Any:
    """The value of field ``name`` in ``record``; ``KeyError`` when absent and no ``default``."""
    if isinstance(record, dict) and name in record:
        return record[name]
    value = record
    for part in name.split(".") if "." in name else [name]:
        if not isinstance(value, dict) or part not in value:
            if default is _MISSING:
                raise KeyError(name)
            return default
        value = value[part]
    return value


def has_field(record: Any, name: str) -> bool:
    return field_value(record, name, _ABSENT) is not _ABSENT


def is_field_path(name: str) -> bool:
    """Whether ``name`` is a plain field name or a dotted path of them (``example.premise``)."""
    return all(part.isidentifier() for part in name.split("."))
