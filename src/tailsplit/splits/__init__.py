"""Splitters: each maps score and feature columns to train/dev/test index arrays."""

from __future__ import annotations

from typing import Any

from tailsplit.errors import ConfigError
from tailsplit.registry import SPLITTER_CLASSES
from tailsplit.splits.aflite import AfliteSplitter
from tailsplit.splits.base import SplitInputs, Splitter, resolve_size, resolve_sizes
from tailsplit.splits.length import LengthSplitter
from tailsplit.splits.likelihood import LikelihoodSplitter
from tailsplit.splits.random import RandomSplitter
from tailsplit.splits.template import TemplateSplitter
from tailsplit.splits.tmcd import TmcdSplitter


def _splitter_class(name: str) -> type[Splitter]:
    """The class registered as ``name``: a :class:`Splitter` whose own ``name`` is that name."""
    cls = SPLITTER_CLASSES.get(name)
    if not (isinstance(cls, type) and issubclass(cls, Splitter) and cls.name == name):
        raise ImportError(f"splitter {name!r} is registered as {cls!r}, which is no Splitter named {name!r}")
    return cls


# Each registered splitter's class by its name (tailsplit.registry.SPLITTER_CLASSES registers
# them, in --splitter's order).
SPLITTERS: dict[str, type[Splitter]] = {name: _splitter_class(name) for name in SPLITTER_CLASSES.listed()}


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
