"""Errors that tailsplit raises on purpose.

Every error says what is wrong *and* what to do about it, in the form
``"{param}={value!r} {problem}; {fix}"`` or, for data, ``"{file}:{line}: field {name!r} {problem}; {fix}"``.
The CLI prints ``str(error)`` and exits with status 2, so the text is the whole user interface.

Messages name options as command-line flags (``--label``, ``--k=0``). A call from Python gets
them in its own spelling: the public functions are wrapped in :func:`keyword_spelling`, which
rewrites each flag of an escaping error as the keyword argument (``label=``, ``k=0``,
``--no-syntax`` as ``syntax=False``) unless the command line made the call
(:func:`command_line_call`).
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import functools
import re
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar


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


_FROM_COMMAND_LINE: ContextVar[bool] = ContextVar("tailsplit_command_line", default=False)
# a flag, then (for "--dev-size 0.1", "--label-word X=WORD") the value written after a space
_FLAG = re.compile(
    r"(?<![\w-])--(no-)?([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?:=| ([0-9'\"{\[]\S*|[A-Z][A-Z_]*\b\S*|[\w-]+=\S+))?"
)
F = TypeVar("F", bound=Callable[..., Any])
# names of the on/off options (``overwrite``), written ``name=True`` when named; declared by
# tailsplit.config, which defines them (errors sits below config and never imports it)
_SWITCHES: set[str] = set()


# flags whose keyword is another name (``--label-word`` sets ``label_words``), by the flag's name
_KEYWORD_OF_FLAG: dict[str, str] = {}


def declare_switches(names: Iterable[str]) -> None:
    """Record option names that are on/off switches, for :func:`keyword_text`."""
    _SWITCHES.update(names)


def declare_flag_keywords(keywords: dict[str, str]) -> None:
    """Record the keyword of each flag whose name is not its keyword's (``label-word`` →
    ``label_words``), for :func:`keyword_text`."""
    _KEYWORD_OF_FLAG.update(keywords)


@contextlib.contextmanager
def command_line_call() -> Iterator[None]:
    """Inside the block, errors keep their command-line spelling (the CLI enters it)."""
    token = _FROM_COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _FROM_COMMAND_LINE.reset(token)


def keyword_text(text: str) -> str:
    """``text`` with each command-line flag written as a keyword argument.

    >>> import tailsplit.config  # declares the switches (overwrite, syntax, ...)
    >>> keyword_text("template='snli' uses {label}; name the field with --label")
    "template='snli' uses {label}; name the field with label="
    >>> keyword_text("--k=0 must be at least 1; drop --no-syntax or pass --dev-size 0.1")
    'k=0 must be at least 1; drop syntax=False or pass dev_size=0.1'
    >>> keyword_text("pass --label-word neutral=WORD, or --overwrite; or --no-cache")
    'pass label_words=neutral=WORD, or overwrite=True; or use_cache=False'
    """

    def spell(match: re.Match[str]) -> str:
        name = _KEYWORD_OF_FLAG.get(match.group(2), match.group(2).replace("-", "_"))
        if match.group(1):
            return f"{name}=False"
        if name in _SWITCHES and not match.group(0).endswith("=") and match.group(3) is None:
            return f"{name}=True"
        return f"{name}={match.group(3) or ''}"

    return _FLAG.sub(spell, text)


def keyword_spelling(func: F) -> F:
    """``func`` whose escaping :class:`TailsplitError` names keyword arguments, not flags,
    when it is called from Python rather than from the command line."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except TailsplitError as exc:
            if not _FROM_COMMAND_LINE.get() and exc.args and isinstance(exc.args[0], str):
                exc.args = (keyword_text(exc.args[0]), *exc.args[1:])
            raise

    return wrapper  # type: ignore[return-value]


def write_fix(exc: OSError) -> str:
    """What to do about an OS error while writing: the one rule for every output, cache and
    lock file.

    >>> write_fix(OSError(errno.ENOSPC, "No space left on device"))
    'free some space or write elsewhere'
    """
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "free some space or write elsewhere"
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return "choose a location you can write to"
    return "check the disk and the path"


def choice_hint(value: object, options: Iterable[object]) -> str:
    """What to say of a value that is not one of ``options``: the list, led by the closest
    option when one is close.

    >>> choice_hint("randm", ["likelihood", "random"])
    "did you mean 'random'? use one of ['likelihood', 'random']"
    >>> choice_hint("zzz", ["a", "b"])
    "use one of ['a', 'b']"
    """
    listed = list(options)
    close = difflib.get_close_matches(str(value), [str(o) for o in listed], n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}? use one of {listed}" if close else f"use one of {listed}"
