"""Program features of a whole dataset, computed once: atom and compound sets as sparse
rows over a vocabulary, template codes and hardness classes.

:class:`SparseSets` is the compact form every consumer (atom constraint, TMCD, metrics)
works on: ``ids[indptr[i]:indptr[i + 1]]`` are the item ids of row ``i`` and ``weights`` how
much each counts in a distribution: 1 (``count="examples"``: an item counts once per example,
tailsplit's default) or its number of occurrences in the program (``count="occurrences"``,
as the nqg TMCD code and Godbole & Jia count with ``Counter``). Presence — which rows hold an
item, what the atom constraint and novelty use — does not depend on the choice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tailsplit.choices import COUNTS
from tailsplit.core import Dataset
from tailsplit.errors import ConfigError, InputError
from tailsplit.programs.base import ProgramError, ProgramExtractor, ProgramParse
from tailsplit.registry import EXTRACTORS


@dataclass(frozen=True)
class SparseSets:
    """One set of items per row, each with a weight. Invariant: ids within a row are distinct.

    >>> sets = SparseSets.from_rows([["a", "a", "b"], ["b"]], count="occurrences")
    >>> sets.counts(np.array([True, True])).tolist(), sets.presence(np.array([True, True])).tolist()
    ([2, 2], [1, 2])
    """

    indptr: np.ndarray
    ids: np.ndarray
    names: tuple[str, ...]
    weights: np.ndarray | None = None  # per stored id; None: all 1

    @staticmethod
    def from_rows(rows: Sequence[Sequence[str]], count: str = "examples") -> SparseSets:
        if count not in COUNTS:
            raise ConfigError(f"--count={count!r} is unknown; use one of {list(COUNTS)}")
        vocabulary: dict[str, int] = {}
        tallies = [Counter(row) for row in rows]
        ids = [vocabulary.setdefault(item, len(vocabulary)) for tally in tallies for item in tally]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(tally) for tally in tallies], out=indptr[1:])
        weights = None
        if count == "occurrences":
            weights = np.asarray([n for tally in tallies for n in tally.values()], dtype=np.int64)
        return SparseSets(indptr=indptr, ids=np.asarray(ids, dtype=np.int64), names=tuple(vocabulary), weights=weights)

    @property
    def n_rows(self) -> int:
        return len(self.indptr) - 1

    @property
    def n_items(self) -> int:
        return len(self.names)

    @property
    def owner(self) -> np.ndarray:
        """Row of each stored id."""
        return np.repeat(np.arange(self.n_rows), np.diff(self.indptr))

    @property
    def entry_weights(self) -> np.ndarray:
        """Weight of each stored id (all 1 when items count once per example)."""
        return np.ones(len(self.ids), dtype=np.int64) if self.weights is None else self.weights

    def row(self, i: int) -> np.ndarray:
        return self.ids[self.indptr[i] : self.indptr[i + 1]]

    def row_weights(self, i: int) -> np.ndarray:
        return self.entry_weights[self.indptr[i] : self.indptr[i + 1]]

    def sizes(self) -> np.ndarray:
        """Distinct items per row."""
        return np.diff(self.indptr)

    def weighted_sizes(self) -> np.ndarray:
        """Total weight per row (occurrences, or distinct items)."""
        if self.weights is None:
            return self.sizes()
        return np.add.reduceat(self.weights, self.indptr[:-1]) * (self.sizes() > 0) if len(self.ids) else self.sizes()

    def counts(self, row_mask: np.ndarray) -> np.ndarray:
        """Each item's weight summed over the selected rows: the distribution divergences compare."""
        chosen = row_mask[self.owner]
        weights = None if self.weights is None else self.weights[chosen]
        return np.bincount(self.ids[chosen], weights=weights, minlength=self.n_items).astype(np.int64)

    def presence(self, row_mask: np.ndarray) -> np.ndarray:
        """How many of the selected rows hold each item."""
        return np.bincount(self.ids[row_mask[self.owner]], minlength=self.n_items)


@dataclass(frozen=True)
class ProgramFeatures:
    extractor: str
    atoms: SparseSets
    compounds: SparseSets
    templates: tuple[str, ...]
    hardness: tuple[str, ...] | None
    hardness_levels: tuple[str, ...]
    n_tokens: np.ndarray
    count: str = "examples"

    def __len__(self) -> int:
        return self.atoms.n_rows

    def template_codes(self) -> np.ndarray:
        _, codes = np.unique(np.asarray(self.templates, dtype=object).astype(str), return_inverse=True)
        return codes.astype(np.int64)


@dataclass(frozen=True)
class ProgramFailure:
    row: int
    reason: str


def extract_program_features(
    programs: Sequence[str],
    extractor: ProgramExtractor,
    count: str = "examples",
) -> tuple[ProgramFeatures | None, list[ProgramFailure]]:
    """Features of every program (each distinct program parsed once), or the failures."""
    parsed: dict[str, ProgramParse | ProgramError] = {}
    for program in programs:
        if program not in parsed:
            try:
                parsed[program] = extractor.parse(program)
            except ProgramError as exc:
                parsed[program] = exc
    failures = [
        ProgramFailure(row=i, reason=str(parsed[p]))
        for i, p in enumerate(programs)
        if isinstance(parsed[p], ProgramError)
    ]
    if failures:
        return None, failures
    rows = [r for r in (parsed[p] for p in programs) if isinstance(r, ProgramParse)]  # all parsed, as checked
    levels = [r.hardness for r in rows]
    hardness = tuple(h for h in levels if h is not None) if all(h is not None for h in levels) else None
    features = ProgramFeatures(
        extractor=extractor.name,
        atoms=SparseSets.from_rows([r.atoms for r in rows], count),
        compounds=SparseSets.from_rows([r.compounds for r in rows], count),
        templates=tuple(r.template for r in rows),
        hardness=hardness,
        hardness_levels=tuple(extractor.hardness_levels),
        n_tokens=np.asarray([r.n_tokens for r in rows], dtype=np.int64),
        count=count,
    )
    return features, []


def dataset_program_features(dataset: Dataset, kind: str, count: str = "examples") -> ProgramFeatures | None:
    """Features of ``dataset.programs`` (``None`` without a program field); a program that
    does not parse is an :class:`InputError` naming its file, record and the reason."""
    if dataset.programs is None:
        return None

    features, failures = extract_program_features(dataset.programs, EXTRACTORS.create(kind), count)
    if failures:
        first = failures[0]
        path, record = dataset.location(first.row)
        others = f" ({len(failures) - 1} more program(s) fail too)" if len(failures) > 1 else ""
        raise InputError(
            f"{first.reason}{others}",
            path=path,
            row=record,
            field=dataset.fields.program,
            fix=f"fix or drop that row, or choose another --program-kind (now {kind!r})",
        )
    return features
