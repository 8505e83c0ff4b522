"""What the generated explicit signatures (:mod:`.signatures`) run on: an unknown keyword
refused as the command line refuses an unknown option, and only the options given — those not
left at their default — passed on to the command's own call."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from tailsplit.config import refuse_unknown
from tailsplit.errors import keyword_spelling

P = ParamSpec("P")
R = TypeVar("R")


def known_keywords(explained_by: Callable[..., Any] | None = None) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """The function, refusing an unknown keyword as the command line refuses an unknown
    option (naming the nearest options) rather than with Python's bare TypeError; with
    ``explained_by``, that call refuses it (it says why a keyword of another command, or the
    data given as a keyword, does not apply here), before any work."""

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        parameters = inspect.signature(func).parameters
        options = [name for name, p in parameters.items() if p.kind is p.KEYWORD_ONLY]

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            if set(kwargs) - set(parameters):
                if explained_by is not None:
                    explained_by(*args, **kwargs)
                refuse_unknown({k: v for k, v in kwargs.items() if k not in parameters}, options)
            return func(*args, **kwargs)

        return keyword_spelling(wrapper)

    return decorate


def defaults_of(func: Callable[..., Any], names: list[str]) -> dict[str, Any]:
    parameters = inspect.signature(func).parameters
    return {name: parameters[name].default for name in names}


def changed(values: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """The options given other than as their defaults (the very default objects)."""
    return {name: values[name] for name, default in defaults.items() if values[name] is not default}
