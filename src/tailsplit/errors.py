"""Errors that tailsplit raises on purpose.

Every error says what is wrong *and* what to do about it, in the form
``"{param}={value!r} {problem}; {fix}"`` or, for data, ``"{file}:{line}: field {name!r} {problem}; {fix}"``.
The CLI prints ``str(error)`` and exits with status 2, so the text is the whole user interface.
"""

from __future__ import annotations

from pathlib import Path


class TailsplitError(Exception):
    """Base class: an error whose message is meant for the user, not a traceback."""


class ConfigError(TailsplitError, ValueError):
    """A parameter (CLI option, config key or keyword argument) has a value that cannot work."""


class InputError(TailsplitError, ValueError):
    """A data file cannot be used as given.

    >>> str(InputError("empty text", path="d.jsonl", line=3, field="hypothesis", fix="drop the row"))
    "d.jsonl:3: field 'hypothesis' empty text; drop the row"
    """

    def __init__(
        self,
        problem: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        row: int | None = None,
        field: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.problem = problem
        self.path = None if path is None else str(path)
        self.line = line
        self.row = row
        self.field = field
        self.fix = fix
        super().__init__(self._render())

    def _render(self) -> str:
        where = self.path or ""
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        elif self.row is not None:
            where = f"{where}: row {self.row}" if where else f"row {self.row}"
        parts = [f"{where}: " if where else ""]
        if self.field is not None:
            parts.append(f"field {self.field!r} ")
        parts.append(self.problem)
        if self.fix:
            parts.append(f"; {self.fix}")
        return "".join(parts)


class MissingDependencyError(TailsplitError, ImportError):
    """An optional dependency is needed for what was asked."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        super().__init__(
            f"{purpose} needs the Python package {package!r}, which is not installed; "
            f"install it with: pip install 'tailsplit[{extra}]'"
        )


class OutputError(TailsplitError, RuntimeError):
    """An output could not be written (disk full, read-only, permissions); nothing partial is left."""


class CacheError(TailsplitError, RuntimeError):
    """A cache file cannot be used; the message says whether deleting it is safe."""


class ScoringError(TailsplitError, RuntimeError):
    """A language model could not be loaded or could not score an input."""
