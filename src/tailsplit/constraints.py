"""The atom constraint: every atom of an evaluation program also occurs in training.

Without it a test item may need a token (a column name, an operator) no training program
ever showed, which measures vocabulary, not generalisation. :func:`enforce_atom_constraint`
repairs any evaluation set by swaps that keep its size:

1. while some evaluation atom is missing from training, move the evaluation example that
   holds a missing atom and is *least* evaluation-like (highest key) into training;
2. move the *most* evaluation-like training example that is *safe* — none of its atoms
   occurs in fewer than two training examples, so taking it out uncovers nothing — to
   evaluation, from the same stratum when one is safe there.

Each swap covers at least one missing atom and uncovers none, so at most one swap per
missing atom is made, and the result does not depend on anything but the inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError
from tailsplit.programs.sets import SparseSets


@dataclass(frozen=True)
class AtomRepair:
    """What the repair did: swaps made, how many crossed strata, atoms that were missing, and
    by how many examples evaluation fell short (only when whole groups could not refill it)."""

    n_swaps: int
    n_cross_stratum: int
    n_missing_before: int
    shortfall: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "swaps": self.n_swaps,
            "cross_stratum_swaps": self.n_cross_stratum,
            "atoms_missing_before": self.n_missing_before,
            "evaluation_shortfall": self.shortfall,
        }


def missing_atoms(atoms: SparseSets, train_mask: np.ndarray, eval_mask: np.ndarray) -> np.ndarray:
    """Ids of atoms held by some evaluation example and by no training example."""
    return np.flatnonzero((atoms.presence(eval_mask) > 0) & (atoms.presence(train_mask) == 0))


def enforce_atom_constraint(
    eval_mask: np.ndarray,
    atoms: SparseSets,
    keys: np.ndarray,
    strata: np.ndarray | None = None,
    unit_of_row: np.ndarray | None = None,
) -> tuple[np.ndarray, AtomRepair]:
    """``eval_mask`` repaired so that training covers every evaluation atom.

    ``keys``: per row, lower = more evaluation-like (the order the splitter filled evaluation
    in). ``strata``: code per row whose counts swaps should keep (labels, buckets).
    ``unit_of_row``: rows that move together (groups, templates); a unit's key is its rows'
    mean. Without units the size is kept exactly; with units, evaluation is refilled with
    whole units that fit, so it may end a little smaller (``shortfall``).

    >>> atoms = SparseSets.from_rows([["a"], ["a", "b"], ["a"], ["a"]])
    >>> mask, repair = enforce_atom_constraint(np.array([False, True, False, False]), atoms,
    ...                                        keys=np.array([3., 0., 1., 2.]))
    >>> mask.tolist(), repair.n_swaps
    ([False, False, True, False], 1)
    """
    n = len(eval_mask)
    units = _UnitIndex(np.arange(n) if unit_of_row is None else unit_of_row)
    unit_keys = np.bincount(units.of_row, weights=keys, minlength=units.count) / units.sizes
    unit_strata = (np.zeros(n, dtype=np.int64) if strata is None else strata)[units.first_row]
    unit_eval = eval_mask[units.first_row].copy()
    train_counts = atoms.presence(~eval_mask)
    missing = np.zeros(atoms.n_items, dtype=bool)
    missing[missing_atoms(atoms, ~eval_mask, eval_mask)] = True
    n_missing_before = int(missing.sum())
    owner_unit = units.of_row[atoms.owner]
    order = np.lexsort((np.arange(units.count), unit_keys))  # most evaluation-like first
    pinned = np.zeros(units.count, dtype=bool)  # moved into training: stays there
    swaps = cross = shortfall = 0
    while missing.any():
        holders = np.unique(owner_unit[missing[atoms.ids] & unit_eval[owner_unit]])
        incoming = int(holders[np.lexsort((-holders, unit_keys[holders]))[-1]])
        unit_eval[incoming], pinned[incoming] = False, True
        incoming_atoms = units.atom_ids(atoms, incoming)
        np.add.at(train_counts, incoming_atoms, 1)
        missing[incoming_atoms] = False
        gap = int(units.sizes[incoming])
        while gap > 0:
            outgoing = _safe_training_unit(
                order, unit_eval, pinned, train_counts, atoms, units, unit_strata, unit_strata[incoming], gap
            )
            if outgoing is None:
                break
            cross += int(unit_strata[outgoing] != unit_strata[incoming])
            unit_eval[outgoing] = True
            np.add.at(train_counts, units.atom_ids(atoms, outgoing), -1)
            gap -= int(units.sizes[outgoing])
        if gap == units.sizes[incoming]:
            raise ConfigError(_infeasible_message(atoms, missing))
        shortfall += gap
        swaps += 1
    return unit_eval[units.of_row], AtomRepair(swaps, cross, n_missing_before, shortfall)


class _UnitIndex:
    """Rows of each unit, found without a Python loop over rows."""

    def __init__(self, of_row: np.ndarray) -> None:
        uniques, self.of_row = np.unique(of_row, return_inverse=True)
        self.count = len(uniques)
        self.sizes = np.bincount(self.of_row, minlength=self.count)
        self._rows = np.argsort(self.of_row, kind="stable")
        self._bounds = np.concatenate([[0], np.cumsum(self.sizes)])
        self.first_row = self._rows[self._bounds[:-1]]

    def rows(self, unit: int) -> np.ndarray:
        return self._rows[self._bounds[unit] : self._bounds[unit + 1]]

    def atom_ids(self, atoms: SparseSets, unit: int) -> np.ndarray:
        """Atom ids of the unit's rows, one entry per row holding the atom."""
        rows = self.rows(unit)
        if len(rows) == 1:
            return atoms.row(int(rows[0]))
        return np.concatenate([atoms.row(int(r)) for r in rows])


def _safe_training_unit(
    order: np.ndarray,
    unit_eval: np.ndarray,
    pinned: np.ndarray,
    train_counts: np.ndarray,
    atoms: SparseSets,
    units: _UnitIndex,
    unit_strata: np.ndarray,
    stratum: int,
    room: int,
) -> int | None:
    """The most evaluation-like training unit of at most ``room`` rows whose atoms all stay
    in training without it; from ``stratum`` if one is."""
    movable = ~unit_eval & ~pinned & (units.sizes <= room)
    if units.count == atoms.n_rows:  # one row per unit: check every row at once
        movable &= _least_count(train_counts, atoms)[units.first_row] >= 2
        candidates = order[movable[order]]
        same = candidates[unit_strata[candidates] == stratum]
        pick = same if len(same) else candidates
        return int(pick[0]) if len(pick) else None
    fallback = None
    for unit in order[movable[order]]:
        held, per_atom = np.unique(units.atom_ids(atoms, int(unit)), return_counts=True)
        if np.any(train_counts[held] <= per_atom):
            continue
        if unit_strata[unit] == stratum:
            return int(unit)
        if fallback is None:
            fallback = int(unit)
    return fallback


def _least_count(train_counts: np.ndarray, atoms: SparseSets) -> np.ndarray:
    """Per row, the smallest training count among its atoms (a large number if it has none)."""
    least = np.full(atoms.n_rows, np.iinfo(np.int64).max)
    sizes = atoms.sizes()
    if len(atoms.ids):
        reduced = np.minimum.reduceat(train_counts[atoms.ids], atoms.indptr[:-1][sizes > 0])
        least[sizes > 0] = reduced
    return least


def _infeasible_message(atoms: SparseSets, missing: np.ndarray) -> str:
    still = [atoms.names[i] for i in np.flatnonzero(missing)[:5]]
    return (
        "--atom-constraint cannot be met: no training example can move to evaluation "
        "without leaving one of its atoms unseen in training"
        + (f" (atoms still missing from training: {still})" if still else "")
        + "; ask for smaller dev/test sizes or turn the atom constraint off"
    )
