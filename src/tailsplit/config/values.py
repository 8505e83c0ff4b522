"""Values as recipes and the command line give them: type checks of recipe values (a TOML
value against a field's annotation) and the parsers of option text that is not a plain
number or word."""

from __future__ import annotations

import types
import typing
from typing import Any

from tailsplit.errors import ConfigError


def value_has_type(value: Any, hint: Any) -> bool:
    """Whether a TOML value fits a field's annotation (``bool`` is not a number here).

    >>> value_has_type("file", list[str]), value_has_type(["a"], list[str]), value_has_type(0.1, float | int)
    (False, True, True)
    """
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(value_has_type(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin in (list, tuple):
        return isinstance(value, list) and all(value_has_type(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            value_has_type(k, args[0]) and value_has_type(v, args[1]) for k, v in value.items()
        )
    return True


def type_name(hint: Any) -> str:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(type_name(a) for a in args)
    origin = typing.get_origin(hint)
    if origin in (list, tuple):
        return f"a list of {type_name(args[0])}"
    if origin is dict:
        return "a table of text"
    return {bool: "true/false", int: "a whole number", float: "a number", str: "text"}.get(hint, str(hint))


def example(hint: Any) -> str:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return example(args[0])
    if typing.get_origin(hint) in (list, tuple):
        return f"[{example(args[0])}]"
    if typing.get_origin(hint) is dict:
        return '{ entailment = "entailed" }'
    return {bool: "true", int: "3", float: "0.1", str: '"..."'}.get(hint, "...")


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
    """``"8,13"`` → (8, 13)."""
    try:
        return tuple(int(x) for x in value.split(",") if x.strip())
    except ValueError:
        raise ConfigError(f"{value!r} is not a comma-separated list of whole numbers; e.g. 8,13") from None
