"""Values as recipes, Python calls and the command line give them: type checks of recipe
values (a TOML value against a field's annotation) and of Python values (a keyword against the
same annotation), values shown in one-line messages, and the parsers of option text that is not
a plain number or word."""

from __future__ import annotations

import numbers
import os
import types
import typing
from typing import Any

from tailsplit.errors import ConfigError


def is_list_type(hint: Any) -> bool:
    """Whether ``hint`` is (or, with ``None``, may be) a list or tuple type."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return any(is_list_type(a) for a in typing.get_args(hint))
    return typing.get_origin(hint) in (list, tuple)


def plain_value(value: Any) -> Any:
    """A value as a config field keeps it: numpy scalars as Python numbers, paths as text
    (inside lists too); anything else unchanged."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_"):  # numpy's bool: no Number
        return bool(value)
    if isinstance(value, numbers.Number) and not isinstance(value, (bool, int, float)):
        item = getattr(value, "item", None)
        return item() if callable(item) else value
    if isinstance(value, (list, tuple)) and any(isinstance(v, (os.PathLike, numbers.Number)) for v in value):
        items = [plain_value(v) for v in value]
        return items if isinstance(value, list) or any(isinstance(v, os.PathLike) for v in value) else tuple(items)
    return value


def value_has_type(value: Any, hint: Any) -> bool:
    """Whether a value — from a recipe (TOML) or a Python call — fits a field's type: ``bool``
    only for a switch (``"no"`` and ``1`` are not switches), whole numbers for ``int``, any real
    number for ``float`` (a bool is no number), a list or tuple (never a string) for a list.

    >>> value_has_type("no", bool), value_has_type(2, float), value_has_type("ab", list[str])
    (False, True, False)
    """
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(value_has_type(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin in (list, tuple):
        item = args[0] if args else Any
        return isinstance(value, (list, tuple)) and all(value_has_type(v, item) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            value_has_type(k, args[0]) and value_has_type(v, args[1]) for k, v in value.items()
        )
    return True


def short_repr(value: Any, limit: int = 60) -> str:
    """A value for a one-line message: its repr, cut to ``limit`` characters; an object whose
    repr spans lines (a DataFrame) by its type's name.

    >>> short_repr("x" * 100)[-12:], short_repr(3)
    ("xx...' (cut)", '3')
    """
    if not isinstance(value, (str, int, float, bool, list, tuple, dict, type(None))):
        return f"<{type(value).__module__.split('.')[0]}.{type(value).__name__}>"
    text = repr(value)
    if "\n" in text:
        return f"<{type(value).__name__}>"
    if len(text) <= limit:
        return text
    return text[: limit - 4] + ("...' (cut)" if isinstance(value, str) else "... (cut)")


# A type and an example value in words, as a recipe (TOML) or a Python call writes them.
_WORDS = {
    "toml": {bool: "true/false", int: "a whole number", float: "a number", str: "text", dict: "a table of text"},
    "python": {bool: "True or False", int: "a whole number", float: "a number", str: "a str",
               dict: "a dict of text to text"},
}  # fmt: skip
_PLURAL = {bool: "switches", int: "whole numbers", float: "numbers", str: "texts"}
_EXAMPLES = {
    "toml": {bool: "true", int: "3", float: "0.1", str: '"..."', dict: '{ entailment = "entailed" }'},
    "python": {bool: "True or False", int: "3", float: "0.1", str: "'...'", dict: "{'entailment': 'entailed'}"},
}


def type_name(hint: Any, spelling: str = "toml", *, path: bool = False) -> str:
    """A field's type in words (``spelling``: ``toml`` for recipes, ``python`` for keywords;
    ``path``: a text option that names a file or folder, which a path object gives too).

    >>> type_name(int | None), type_name(bool | None, "python"), type_name(list[int], "python")
    ('a whole number', 'True or False or None', 'a list of whole numbers')
    >>> type_name(str | None, "python", path=True)
    'a str or pathlib.Path or None'
    """
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        named = " or ".join(type_name(a, spelling, path=path) for a in args)
        return named + (" or None" if spelling == "python" and type(None) in typing.get_args(hint) else "")
    if origin in (list, tuple):
        return f"a list of {_PLURAL.get(args[0], 'values') if args else 'values'}"
    if path and hint is str and spelling == "python":
        return "a str or pathlib.Path"
    return _WORDS[spelling].get(dict if origin is dict else hint, str(hint))


def example(hint: Any, spelling: str = "toml") -> str:
    """A value of the field's type, as ``spelling`` writes it."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return example(args[0], spelling)
    if origin in (list, tuple):
        return f"[{example(args[0], spelling) if args else '...'}]"
    return _EXAMPLES[spelling].get(dict if origin is dict else hint, "...")


def wrong_type(source: str, key: str, value: Any, hint: Any) -> ConfigError:
    return ConfigError(
        f"{source} {key} = {value!r} is not of type {type_name(hint)}; write e.g. {key} = {example(hint)}"
    )


def parse_size(value: str) -> float | int:
    """A part's size as given on the command line: ``"0.1"`` → 0.1, ``"1000"`` → 1000."""
    try:
        return int(value) if value.strip().lstrip("-").isdigit() else float(value)
    except ValueError:
        raise ConfigError(f"{value!r} is not a number; give a fraction like 0.1 or a count like 1000") from None


def parse_label_words(items: list[str]) -> dict[str, str]:
    """``LABEL=WORD`` pairs → ``{LABEL: WORD}``."""
    words = {}
    for item in items:
        label, sep, word = item.partition("=")
        if not sep or not label:
            raise ConfigError(f"{item!r} is not LABEL=WORD; e.g. --label-word contradiction='a contradiction'")
        words[label] = word
    return words


def parse_length_buckets(value: str) -> int | str:
    """``"10"`` → 10 quantile buckets; ``"exact"`` → one bucket per length."""
    if value != "exact" and not value.strip().isdigit():
        raise ConfigError(f"{value!r} is neither a whole number of buckets (e.g. 10) nor 'exact'")
    return value if value == "exact" else int(value)


def parse_orders(value: str) -> tuple[int, ...]:
    """``"8,13"`` → (8, 13); text naming no number is refused."""
    try:
        orders = tuple(int(x) for x in value.split(",") if x.strip())
    except ValueError:
        raise ConfigError(f"{value!r} is not a comma-separated list of whole numbers; e.g. 8,13") from None
    if not orders:
        raise ConfigError(f"{value!r} names no number; give a comma-separated list of whole numbers, e.g. 8,13")
    return orders
