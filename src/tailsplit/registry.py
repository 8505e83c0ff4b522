"""Name → implementation registries, resolved lazily so heavy imports (torch) happen only
when that implementation is chosen. Built-in backends register here exactly as a third
party would::

    from tailsplit.registry import SCORERS
    SCORERS.register("my-lm", "my_package.scoring:MyScorer")
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from tailsplit.errors import ConfigError, choice_hint


class Registry:
    """Maps names to ``"module:attribute"`` strings or to already-imported objects."""

    def __init__(self, kind: str, entries: dict[str, str | Callable[..., Any]]) -> None:
        self.kind = kind
        self._entries = dict(entries)

    def register(self, name: str, target: str | Callable[..., Any]) -> None:
        self._entries[name] = target

    def names(self) -> list[str]:
        return sorted(self._entries)

    def listed(self) -> tuple[str, ...]:
        """The names in the order they were registered (the order choices are shown in)."""
        return tuple(self._entries)

    def get(self, name: str) -> Callable[..., Any]:
        if name not in self._entries:
            raise ConfigError(f"{self.kind}={name!r} is unknown; {choice_hint(name, self.names())}")
        target = self._entries[name]
        if isinstance(target, str):
            module, _, attribute = target.partition(":")
            target = getattr(importlib.import_module(module), attribute)
            self._entries[name] = target
        return target

    def create(self, name: str, **params: Any) -> Any:
        return self.get(name)(**params)


SCORERS = Registry("backend", {"hf": "tailsplit.scoring.hf:HFScorer"})

EXTRACTORS = Registry("program_kind", {"sql": "tailsplit.programs.sql:SqlExtractor"})

# Every splitter, registered once: a splitter is its own module (its class declares its name and
# its parameters) and this line; ``--splitter``'s choices are these names, in this order, and
# :data:`tailsplit.splits.SPLITTERS` maps them to the classes.
SPLITTER_CLASSES = Registry(
    "splitter",
    {
        "likelihood": "tailsplit.splits.likelihood:LikelihoodSplitter",
        "random": "tailsplit.splits.random:RandomSplitter",
        "length": "tailsplit.splits.length:LengthSplitter",
        "template": "tailsplit.splits.template:TemplateSplitter",
        "tmcd": "tailsplit.splits.tmcd:TmcdSplitter",
        "aflite": "tailsplit.splits.aflite:AfliteSplitter",
    },
)
