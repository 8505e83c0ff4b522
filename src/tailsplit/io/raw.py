"""A record as a reader yields it, with the place it came from (file and line or row), so a
problem found later can name them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tailsplit.errors import InputError
from tailsplit.fields import field_value, has_field


@dataclass(slots=True)
class RawRecord:
    """One record and its location: ``line`` for text formats, ``row`` (1-based) for tables.

    Not frozen: a frozen dataclass sets each field through ``object.__setattr__``, six times
    slower to build, and a reader builds one per row."""

    record: dict[str, Any]
    path: str
    row: int
    line: int | None = None
    split: str | None = None  # the split of a DatasetDict this record came from

    def has(self, name: str) -> bool:
        """Whether field ``name`` (a key or a dotted path) is present."""
        return has_field(self.record, name)

    def value(self, name: str) -> Any:
        """The value of field ``name`` (a key or a dotted path); ``KeyError`` when absent."""
        return field_value(self.record, name)

    def error(self, problem: str, *, field: str | None = None, fix: str | None = None) -> InputError:
        return InputError(
            problem,
            path=self.path,
            line=self.line,
            row=None if self.line is not None else self.row,
            field=field,
            fix=fix,
        )
