"""What the commands' Python functions share beyond their signatures: an unknown keyword
refused as the command line refuses an unknown option (or, for a keyword of another command
of the run family, saying why it does not apply), the ``data`` argument read as paths or a
table, and a splitter object's parameters set on the split's config."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

from tailsplit.config import CONFIG_SECTIONS, SplitConfig, flag_of, refuse_unknown
from tailsplit.config.arguments import switch_argument
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.progress import watched
from tailsplit.splits import SPLITTERS, Splitter

P = ParamSpec("P")
R = TypeVar("R")

# Each run field's section: a keyword of another command of the run family is named by it.
SECTION_OF: dict[str, str] = {
    f.name: section for section, cls in CONFIG_SECTIONS.items() for f in dataclasses.fields(cls) if f.name != "table"
}


def known_keywords(explained_by: Callable[..., None] | None = None) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """The function, refusing an unknown keyword as the command line refuses an unknown
    option (naming the nearest options) rather than with Python's bare TypeError; with
    ``explained_by``, that call first says why a keyword of another command, or the data given
    as a keyword, does not apply here (it is given the unknown keywords), before any work."""

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        parameters = inspect.signature(func).parameters
        options = [name for name, p in parameters.items() if p.kind is p.KEYWORD_ONLY]

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            unknown = {k: v for k, v in kwargs.items() if k not in parameters}
            if unknown:
                if explained_by is not None:
                    explained_by(unknown)
                refuse_unknown(unknown, options)
            return func(*args, **kwargs)

        return keyword_spelling(wrapper)

    return decorate


def _given_as_data(unknown: dict[str, Any]) -> None:
    for name in ("paths", "dataset", "table"):
        if name in unknown:
            raise ConfigError(f"{name}= is given as data (the first argument); pass data={unknown[name]!r}")


def not_for_likelihood(unknown: dict[str, Any]) -> None:
    """Why a keyword of ``split`` does not apply to ``likelihood_split``."""
    _given_as_data(unknown)
    accepted = list(SPLITTERS["likelihood"]().get_params())
    for name in sorted(unknown):
        if SECTION_OF.get(name) == "split":
            raise ConfigError(
                f"{flag_of(name)}={unknown[name]!r} does not apply to --splitter='likelihood'; it accepts {accepted}"
            )


def not_for_split(unknown: dict[str, Any]) -> None:
    """Why a scoring keyword does not apply to ``split``, which reads scores."""
    _given_as_data(unknown)
    for name in sorted(unknown):
        if SECTION_OF.get(name) == "scoring":
            raise ConfigError(
                f"{flag_of(name)}={unknown[name]!r} ([scoring] {name}) has an effect only when the run scores with a "
                "model, and split scores nothing; score with tailsplit.likelihood_split, or tailsplit.score then "
                "tailsplit.split(data, 'likelihood', scores=...)"
            )


def not_for_score(unknown: dict[str, Any]) -> None:
    """Why a split or output keyword does not apply to ``score``."""
    _given_as_data(unknown)
    elsewhere = sorted(name for name in unknown if SECTION_OF.get(name) in ("split", "output"))
    if elsewhere:
        raise ConfigError(
            f"{elsewhere[0]}= does not apply to score, which scores without splitting; split with "
            "tailsplit.split(data, 'likelihood', scores=...) or tailsplit.likelihood_split"
        )


def progress_shown(progress: Any) -> bool:
    """Whether a Python call shows progress: as ``progress=`` asks, or when a person is
    watching (a terminal, a notebook) where it asks nothing."""
    asked = switch_argument("progress", progress)
    return watched() if asked is None else asked


def data_fields(data: Any) -> dict[str, Any]:
    """``paths`` for a path or a list of paths; ``table`` for anything else."""
    if isinstance(data, (str, os.PathLike)):
        return {"paths": [os.fspath(data)]}
    if isinstance(data, Sequence) and data and all(isinstance(item, (str, os.PathLike)) for item in data):
        return {"paths": [os.fspath(item) for item in data]}
    if data is None:
        raise ConfigError("data=None; pass a path, a list of paths, or a table (DataFrame, list of dicts, ...)")
    return {"table": data}


def label_words_of(value: Mapping[str, str] | None) -> dict[str, str]:
    """``label_words=`` as the config keeps it: ``None`` as no words, any mapping as a dict
    (anything else is left as given, for the config's type check to refuse by name)."""
    if value is None:
        return {}
    return dict(value) if isinstance(value, Mapping) else value


def splitter_options(splitter: Any, config: SplitConfig) -> SplitConfig:
    """The split's config with the splitter argument set: its name, and for a splitter object
    its parameters (one also given as a keyword other than its default is refused: it would
    be said twice, perhaps differently)."""
    if not isinstance(splitter, Splitter):
        config.splitter = splitter
        return config
    params = splitter.get_params()
    defaults = SplitConfig()
    for name in params:
        if getattr(config, name) != getattr(defaults, name):
            value = getattr(config, name)
            raise ConfigError(
                f"{name}={value!r} is given as a keyword and by {type(splitter).__name__}; set it on "
                f"the splitter, e.g. {type(splitter).__name__}({name}={value!r})"
            )
    return dataclasses.replace(config, splitter=splitter.name, **params)
