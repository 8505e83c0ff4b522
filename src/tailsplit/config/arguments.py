"""The arguments of the Python calls that are not config fields — the data, the files or split
folders a command reads, ``progress`` — checked by what they must be, as fields are by their
declared types (:func:`~tailsplit.config.declare.check_values`): a path is a ``str`` or a
path object (a DataFrame is not a path), a list of paths takes one path as itself (a string is
never read character by character), and a switch is ``True`` or ``False``.

>>> paths_argument("test", "t.jsonl", "test files")
['t.jsonl']
>>> path_argument("points", 3, "a CSV file")
Traceback (most recent call last):
tailsplit.errors.ConfigError: points=3 is not a path; give a CSV file (a str or a pathlib.Path)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from tailsplit.config.values import short_repr
from tailsplit.errors import ConfigError


def _not_a_path(name: str, value: Any, what: str) -> ConfigError:
    hint = "; write it to a file first" if hasattr(value, "to_csv") or hasattr(value, "to_pandas") else ""
    return ConfigError(f"{name}={short_repr(value)} is not a path; give {what} (a str or a pathlib.Path){hint}")


def path_argument(name: str, value: Any, what: str) -> str:
    """``value`` as the text of one path; anything but a ``str`` or a path object is refused."""
    if isinstance(value, (str, os.PathLike)):
        text = os.fspath(value)
        if isinstance(text, str):
            return text
    raise _not_a_path(name, value, what)


def paths_argument(
    name: str, value: Any, what: str, *, item: Callable[[str, Any, str], str] = path_argument
) -> list[str]:
    """``value`` as a list of path texts: one path as itself, or a list or tuple of them (each
    read by ``item``); a string is one path, never its characters; an empty list is refused."""
    if isinstance(value, (str, os.PathLike)) or not isinstance(value, (list, tuple)):
        return [item(name, value, what)]
    if not value:
        raise ConfigError(f"{name}=[] names nothing; give {what}")
    return [item(name, v, what) for v in value]


def known_paths(name: str, value: Any) -> list[str]:
    """Files of known members or non-members (``()``: none), each a path.

    >>> known_paths("members", ()), known_paths("members", "m.jsonl")
    ([], ['m.jsonl'])
    """
    return paths_argument(name, value, "files of texts") if value not in ((), [], None) else []


def switch_argument(name: str, value: Any) -> bool | None:
    """``True``, ``False`` or ``None`` (the default); ``"no"``, ``1`` and the like are refused."""
    if value is None or isinstance(value, bool):
        return value
    raise ConfigError(f"{name}={short_repr(value)} is not True or False; give True or False")
