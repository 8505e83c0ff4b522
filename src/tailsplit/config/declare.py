"""How an option is declared: once, as a config dataclass field whose metadata holds its flag,
help, panel, allowed values or range, command-line parser and shown default.

The command line builds every command's options from these fields (:mod:`tailsplit.cli.declared`),
recipes and Python calls set the same fields, and :func:`check_values` checks every value in
one place, whichever way it came."""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tailsplit.config.values import (
    example,
    is_list_type,
    plain_value,
    short_repr,
    type_name,
    value_has_type,
)
from tailsplit.errors import ConfigError, choice_hint, keyword_spelling


@dataclass(frozen=True)
class Bounds:
    """The allowed range of a numeric option (each value of a list option); NaN and
    infinities are never allowed. With ``exclusive``, the ends themselves are not allowed;
    ``exclusive="low"`` leaves out the low end only (a share of (0, 100])."""

    low: float | None = None
    high: float | None = None
    exclusive: bool | str = False

    def describe(self) -> str:
        if self.low is None and self.high is None:
            return "a finite number"
        if self.exclusive == "low":
            return f"above {self.low} and at most {self.high}"
        if self.low is not None and self.high is not None:
            return ("strictly " if self.exclusive else "") + f"between {self.low} and {self.high}"
        if self.exclusive:
            return f"above {self.low}" if self.low is not None else f"below {self.high}"
        return f"at least {self.low}" if self.low is not None else f"at most {self.high}"

    def allows(self, value: float) -> bool:
        if not math.isfinite(value):
            return False
        if self.exclusive == "low":
            return (self.low is None or value > self.low) and (self.high is None or value <= self.high)
        if self.exclusive:
            return (self.low is None or value > self.low) and (self.high is None or value < self.high)
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


@dataclass(frozen=True)
class Applies:
    """When an option has an effect: ``when(config)`` is true; ``said`` completes "has an effect
    only ..." (e.g. ``with --score-eos``). A value other than the default where it has none is
    refused rather than silently ignored."""

    when: Callable[[Any], bool]
    said: str


@dataclass(frozen=True)
class Option:
    """Everything the command line, its help and the checks need to know about one field.

    ``flag`` is the option's name on the command line: ``--field-name`` unless given, and
    ``--on/--off`` for a switch whose off form is worth typing. ``parse`` turns the text given
    on the command line into the field's value (sizes, ``LABEL=WORD`` pairs); ``shown_default``
    is the help's ``[default: ...]`` where the default is not a plain value (it depends on
    the device, or on the data). ``argument`` options are positional; ``command_line=False``
    fields are set from Python or a recipe only."""

    help: str
    flag: str | None = None
    panel: str | None = None
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    bounds: Bounds | None = None
    parse: Callable[[Any], Any] | None = None
    shown_default: str | None = None
    argument: bool = False
    command_line: bool = True
    applies: Applies | None = None
    size: bool = False  # a fraction below 1 or a whole count: 1.5 is neither


def option(
    default: Any,
    help: str,
    *,
    low: float | None = None,
    high: float | None = None,
    bounded: bool = False,
    exclusive: bool | str = False,
    **declared: Any,
) -> Any:
    """A config field declared as an option (see :class:`Option`); ``low``/``high`` (or
    ``bounded`` for any finite number) declare its range, ``exclusive`` leaves its ends out.
    A list or dict default is copied for each config."""
    bounds = Bounds(low, high, exclusive) if bounded or low is not None or high is not None else None
    metadata = {"option": Option(help=help, bounds=bounds, **declared)}
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata=metadata)
    return field(default=default, metadata=metadata)


def declared_option(f: dataclasses.Field[Any]) -> Option | None:
    return f.metadata.get("option")


# fields whose flag is not their name's (``label_words``: ``--label-word``), declared by tailsplit.config
_FLAG_OF_FIELD: dict[str, str] = {}


def flag_of(name: str) -> str:
    """The flag that errors name for a field (``dev_size`` → ``--dev-size``, ``label_words`` →
    ``--label-word``); a message read from Python spells it as the keyword again
    (:func:`tailsplit.errors.keyword_text`)."""
    return _FLAG_OF_FIELD.get(name) or "--" + name.replace("_", "-")


def declare_field_flags(flags: dict[str, str]) -> None:
    """Record the flag of each field whose flag is not its name's, for :func:`flag_of`."""
    _FLAG_OF_FIELD.update(flags)


_FIELD_TYPES: dict[type, dict[str, Any]] = {}


def field_types(cls: type) -> dict[str, Any]:
    """Each field's type, resolved from the class's annotations (class variables left out)."""
    if cls not in _FIELD_TYPES:
        names = {f.name for f in dataclasses.fields(cls)}
        _FIELD_TYPES[cls] = {name: hint for name, hint in typing.get_type_hints(cls).items() if name in names}
    return _FIELD_TYPES[cls]


def check_values(config: Any, *, effects: bool = True) -> None:
    """Refuse a value outside its field's declared range or allowed values, naming the option;
    with ``effects``, also a value given to an option that has no effect with the other values
    (its declared :class:`Applies`): checked on the whole config, once it is complete.

    >>> from tailsplit.config import OverlapConfig, ScoringConfig
    >>> check_values(OverlapConfig(k=0))
    Traceback (most recent call last):
    tailsplit.errors.ConfigError: k=0 must be at least 1; give a value at least 1
    >>> check_values(ScoringConfig(dtype="float8"))
    Traceback (most recent call last):
    tailsplit.errors.ConfigError: dtype='float8' is unknown; did you mean 'float32'? use one of ['float32', 'bfloat16', 'float16', 'mixed-bfloat16', 'mixed-float16']
    """
    keyword_spelling(_check_values)(config, effects)


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return f.default


def wrong_keyword_type(f: dataclasses.Field[Any], declared: Option, value: Any, hint: Any) -> ConfigError:
    """The one message for a value of the wrong type: the types accepted, and a real example
    — the option's default where it is one, else a value of its type (its metavar for a text
    option: ``label_map=['FROM=TO']``).

    >>> from tailsplit.config import OutputConfig
    >>> OutputConfig(null_splits="many")
    Traceback (most recent call last):
    tailsplit.errors.ConfigError: null_splits='many' is not a whole number; give a whole number, e.g. null_splits=500
    """
    path = declared.metavar in ("DIR", "FILE")
    accepted = type_name(hint, "python", path=path)
    return ConfigError(
        f"{flag_of(f.name)}={short_repr(value)} is not {accepted}; give {accepted}, e.g. "
        f"{flag_of(f.name)}={_example_value(f, declared, hint)}"
    )


def _example_value(f: dataclasses.Field[Any], declared: Option, hint: Any) -> str:
    default = _default(f)
    if default not in (None, "", [], (), {}) and value_has_type(default, hint):
        return repr(list(default) if isinstance(default, tuple) else default)
    shown = example(hint, "python")
    if "'...'" not in shown:
        return shown
    text = next(iter(declared.choices or ()), None) or declared.metavar or f.name.replace("_", "-")
    return shown.replace("'...'", repr(text))


def _check_values(config: Any, effects: bool) -> None:
    hints = field_types(type(config))
    for f in dataclasses.fields(config):
        declared = declared_option(f)
        if declared is None:
            continue
        value = as_declared(plain_value(getattr(config, f.name)), hints[f.name])
        if not value_has_type(value, hints[f.name]):
            if declared.metavar == "FIELD" and value is not None:
                raise ConfigError(
                    f"{flag_of(f.name)}={short_repr(value)} is not text, so not a field name; name the field as "
                    f"text, e.g. {flag_of(f.name)}={str(value)!r} (a table's column names are read as text)"
                )
            raise wrong_keyword_type(f, declared, value, hints[f.name])
        if value is not getattr(config, f.name):
            object.__setattr__(config, f.name, value)
        if effects and declared.applies and value != _default(f) and not declared.applies.when(config):
            raise ConfigError(
                f"{flag_of(f.name)}={value!r} has an effect only {declared.applies.said}; drop it, or add what it needs"
            )
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if (
                declared.metavar in ("DIR", "FILE")
                and isinstance(item, str)
                and not item.strip()
                and value != _default(f)
            ):
                raise ConfigError(f"{flag_of(f.name)}={item!r} names no path; give a path")
            number = isinstance(item, (int, float)) and not isinstance(item, bool) and declared.bounds is not None
            if declared.choices is not None and item is not None and item not in declared.choices and not number:
                raise ConfigError(f"{flag_of(f.name)}={item!r} is unknown; {choice_hint(item, declared.choices)}")
            if declared.bounds is None or item is None or isinstance(item, bool):
                continue
            if declared.size and isinstance(item, float) and item >= 1 and not item.is_integer():
                raise ConfigError(
                    f"{flag_of(f.name)}={item!r} is neither a fraction below 1 nor a whole count; give e.g. 0.1 or 1000"
                )
            if isinstance(item, (int, float)) and not declared.bounds.allows(item):
                raise ConfigError(f"{flag_of(f.name)}={value!r} {_outside(declared.bounds, item)}")


def as_declared(value: Any, hint: Any) -> Any:
    """A Python value in the form its field keeps: one item given to a list option as a list
    of it (a string is never read character by character; a number to a tuple option, a tuple
    of it), a tuple given to a ``list`` field as a list (so a signature's ``()`` default is the
    config's ``[]``).

    >>> as_declared("tfidf", list[str]), as_declared((), list[str]), as_declared(500, tuple[int, ...])
    (['tfidf'], [], (500,))
    """
    if isinstance(value, str) and is_list_type(hint):
        return [value]
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if number and is_list_type(hint) and not _list_origin(hint):
        return (value,)
    if isinstance(value, tuple) and _list_origin(hint):
        return list(value)
    return value


def _list_origin(hint: Any) -> bool:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return any(_list_origin(a) for a in typing.get_args(hint))
    return typing.get_origin(hint) is list


def _outside(bounds: Bounds, item: float) -> str:
    """What is wrong with a number outside ``bounds``, and what to give instead."""
    allowed = bounds.describe()
    if bounds.low is None and bounds.high is None:
        return f"is not a finite number; give {allowed}"
    finite = "" if math.isfinite(item) else "a finite number "
    return f"must be {finite}{allowed}; give a value {allowed}"


def refuse_unknown(options: dict[str, Any], known: Any) -> None:
    """A :class:`ConfigError` for the first keyword of ``options`` not in ``known`` (the
    nearest known names suggested).

    >>> refuse_unknown({"lable": "label"}, ["label", "text"])
    Traceback (most recent call last):
    tailsplit.errors.ConfigError: lable='label' is not an option; did you mean label?
    """
    unknown = sorted(set(options) - set(known))
    if unknown:
        name = unknown[0]
        close = difflib.get_close_matches(name, list(known), n=3)
        hint = f"did you mean {', '.join(close)}?" if close else f"use one of {', '.join(sorted(known))}"
        raise ConfigError(f"{name}={options[name]!r} is not an option; {hint}")


class Checked:
    """Config classes check their declared values when built (and the pipeline checks them
    again, since fields may be set afterwards); setting a name that is not a field is refused
    (a misspelt option never passes silently).

    >>> from tailsplit.config import SplitConfig
    >>> SplitConfig().balance_label = True
    Traceback (most recent call last):
    tailsplit.errors.ConfigError: SplitConfig has no option 'balance_label'; did you mean balance_labels?
    """

    def __post_init__(self) -> None:
        check_values(self, effects=False)  # fields may still be set one by one; the pipeline checks effects

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in field_types(type(self)):
            known = list(field_types(type(self)))
            close = difflib.get_close_matches(name, known, n=3)
            hint = f"did you mean {', '.join(close)}?" if close else f"use one of {', '.join(sorted(known))}"
            raise ConfigError(f"{type(self).__name__} has no option {name!r}; {hint}")
        object.__setattr__(self, name, value)


# Options that several commands share, declared once.
RAY_ADDRESS_HELP = "Ray cluster to join ('auto' finds a running one)."


def seed_option() -> Any:
    return option(0, "Random seed: samples, random splits, folds and training.", low=0)


def out_option(help: str = "Output folder (written atomically).") -> Any:
    return option(None, help, metavar="DIR", panel="Output")


def overwrite_option(help: str = "Replace a non-empty output folder.") -> Any:
    return option(False, help, panel="Output")


def accept_modified_option() -> Any:
    return option(
        False, "Read split folders whose data files changed since tailsplit wrote them (recorded in the manifest)."
    )


def agreement_field_option() -> Any:
    return option(
        None,
        "Field holding each example's annotator labels (a list): agreement with the gold label per split, "
        "against random splits.",
        metavar="FIELD",
    )
