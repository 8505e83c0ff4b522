"""Splitters: each maps score and feature columns to train/dev/test index arrays."""

from __future__ import annotations

from typing import Any

from tailsplit.choices import SPLITTERS as SPLITTER_NAMES
from tailsplit.errors import ConfigError
from tailsplit.splits.aflite import AfliteSplitter
from tailsplit.splits.base import SplitInputs, Splitter, resolve_size, resolve_sizes
from tailsplit.splits.length import LengthSplitter
from tailsplit.splits.likelihood import LikelihoodSplitter
from tailsplit.splits.random import RandomSplitter
from tailsplit.splits.template import TemplateSplitter
from tailsplit.splits.tmcd import TmcdSplitter

_CLASSES = {
    cls.name: cls
    for cls in (LikelihoodSplitter, RandomSplitter, LengthSplitter, TemplateSplitter, TmcdSplitter, AfliteSplitter)
}
# The one list of splitter names is tailsplit.choices.SPLITTERS (the config's --splitter choices
# read it): the registry is built from it, so a name without a class fails here, at import.
SPLITTERS: dict[str, type[Splitter]] = {name: _CLASSES[name] for name in SPLITTER_NAMES}


def make_splitter(name: str, **params: Any) -> Splitter:
    """Build a registered splitter by name; unknown names list the options."""
    if name not in SPLITTERS:
        raise ConfigError(f"--splitter={name!r} is unknown; use one of {sorted(SPLITTERS)}")
    return SPLITTERS[name](**params)


__all__ = [
    "AfliteSplitter",
    "LengthSplitter",
    "LikelihoodSplitter",
    "RandomSplitter",
    "SPLITTERS",
    "TemplateSplitter",
    "TmcdSplitter",
    "SplitInputs",
    "Splitter",
    "make_splitter",
    "resolve_size",
    "resolve_sizes",
]
