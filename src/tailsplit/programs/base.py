"""What a program extractor gives for one program, and the protocol extractors follow.

A *program* is the structured output of an example (SQL, a logical form...). Its *atoms* are
its normalised tokens; its *compounds* are small fragments of its parse tree; its *template*
is the program with names and values replaced by placeholders; its *hardness* is a coarse
difficulty class where the formalism has one (Spider's four for SQL).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from tailsplit.errors import TailsplitError


class ProgramError(TailsplitError, ValueError):
    """A program could not be parsed; the message says why."""


@dataclass(frozen=True)
class ProgramParse:
    """Atoms and compounds list every occurrence, sorted for stable output (whether repeats
    count is decided where they are counted: ``count="examples"`` or ``"occurrences"``);
    ``n_tokens`` is the program's length in tokens (punctuation excluded)."""

    atoms: tuple[str, ...]
    compounds: tuple[str, ...]
    template: str
    hardness: str | None = None
    n_tokens: int = 0


class ProgramExtractor(Protocol):
    """Turns one program string into a :class:`ProgramParse` or raises :class:`ProgramError`."""

    name: str
    hardness_levels: tuple[str, ...]

    def parse(self, program: str) -> ProgramParse: ...

    def canonical(self, program: str) -> str:
        """The program in one spelling, so that equal programs compare equal (exact match)."""
        ...
