"""Atom constraint, length, template and TMCD splitters, on synthetic programs (no parser)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import check_split, program_inputs, synthetic_programs
from hypothesis import given, settings
from hypothesis import strategies as st

from tailsplit.constraints import enforce_atom_constraint, missing_atoms
from tailsplit.errors import ConfigError
from tailsplit.programs import SparseSets, chernoff_divergence
from tailsplit.splits import (
    LengthSplitter,
    LikelihoodSplitter,
    RandomSplitter,
    SplitInputs,
    TemplateSplitter,
    TmcdSplitter,
)
from tailsplit.splits.tmcd import CompoundDivergenceSearch


def masks(split, n: int) -> tuple[np.ndarray, np.ndarray]:
    train = np.zeros(n, dtype=bool)
    train[split.train_idx] = True
    return train, ~train


PROGRAM_SPLITTERS = [
    LikelihoodSplitter(atom_constraint=True),
    LikelihoodSplitter(atom_constraint=True, length_buckets=4),
    LikelihoodSplitter(atom_constraint=True, balance_labels=True),
    LikelihoodSplitter(atom_constraint=True, reverse=True),
    RandomSplitter(atom_constraint=True),
    RandomSplitter(atom_constraint=True, balance_labels=True, seed=4),
    LengthSplitter(),
    LengthSplitter(atom_constraint=True),
    LengthSplitter(length_of="program", atom_constraint=True),
    TemplateSplitter(),
    TemplateSplitter(atom_constraint=True),
    TmcdSplitter(),
    TmcdSplitter(max_iterations=5),
    TmcdSplitter(balance_labels=True),
]


@pytest.mark.parametrize("splitter", PROGRAM_SPLITTERS, ids=repr)
def test_program_splitters_cover_each_row_once_deterministically(splitter) -> None:
    data = program_inputs(800)
    split = splitter.split(data)
    check_split(split, 800, n_dev=80, n_test=80)
    again = splitter.split(program_inputs(800))
    assert all(np.array_equal(a, b) for a, b in zip(split.parts().values(), again.parts().values()))
    if getattr(splitter, "atom_constraint", False) or isinstance(splitter, TmcdSplitter):
        train, evaluation = masks(split, 800)
        assert len(missing_atoms(data.programs.atoms, train, evaluation)) == 0


def test_atom_constraint_keeps_label_balance_when_strata_allow() -> None:
    data = program_inputs(800)
    split = LikelihoodSplitter(atom_constraint=True, balance_labels=True).split(data)
    assert split.details["atom_constraint"]["swaps"] > 0
    expected = Counter(data.labels)
    got = Counter(data.labels[split.eval_idx])
    for label, count in expected.items():
        assert abs(got[label] - 160 * count / 800) <= 1


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(40, 300), st.floats(0.05, 0.4))
def test_atom_repair_covers_every_evaluation_atom_and_keeps_the_size(seed: int, n: int, share: float) -> None:
    atoms = synthetic_programs(n, seed, vocabulary=60).atoms
    rng = np.random.default_rng(seed)
    eval_mask = np.zeros(n, dtype=bool)
    eval_mask[rng.choice(n, size=max(1, int(share * n)), replace=False)] = True
    missing_before = len(missing_atoms(atoms, ~eval_mask, eval_mask))
    try:
        repaired, repair = enforce_atom_constraint(eval_mask, atoms, rng.random(n))
    except ConfigError as exc:
        assert "cannot be met" in str(exc)
        return
    assert repaired.sum() == eval_mask.sum()
    assert len(missing_atoms(atoms, ~repaired, repaired)) == 0
    assert repair.n_swaps <= missing_before == repair.n_missing_before


def test_atom_repair_moves_whole_units() -> None:
    data = program_inputs(600, group_size=3)
    split = RandomSplitter(atom_constraint=True, seed=1).split(data)
    part_of = split.assignment(600)
    for g in np.unique(data.groups):
        assert len(set(part_of[data.groups == g])) == 1
    train, evaluation = masks(split, 600)
    assert len(missing_atoms(data.programs.atoms, train, evaluation)) == 0


def test_impossible_atom_constraint_is_a_clear_error() -> None:
    atoms = SparseSets.from_rows([["x"], ["y"], ["z"]])  # every atom occurs once
    with pytest.raises(ConfigError, match="--atom-constraint cannot be met"):
        enforce_atom_constraint(np.array([True, False, False]), atoms, np.zeros(3))


def test_program_splitters_need_programs() -> None:
    data = SplitInputs(n=10, word_lengths=np.ones(10, int))
    for splitter in (TemplateSplitter(), TmcdSplitter(), RandomSplitter(atom_constraint=True)):
        with pytest.raises(ConfigError, match="program='query'"):
            splitter.split(data)


def test_length_splitter_puts_the_longest_in_evaluation() -> None:
    data = program_inputs(500)
    split = LengthSplitter(dev_size=50, test_size=50).split(data)
    train, evaluation = masks(split, 500)
    assert data.word_lengths[evaluation].min() >= data.word_lengths[train].max()


def test_template_split_never_shares_a_template_between_parts() -> None:
    data = program_inputs(800)
    for splitter in (TemplateSplitter(seed=2), TemplateSplitter(atom_constraint=True, seed=2)):
        split = splitter.split(data)
        templates = np.asarray(data.programs.templates)
        seen = [set(templates[idx]) for idx in split.parts().values()]
        assert not (seen[0] & seen[1]) and not (seen[0] & seen[2]) and not (seen[1] & seen[2])


def test_tmcd_raises_compound_divergence_and_tracks_it_exactly() -> None:
    data = program_inputs(600, seed=5)
    compounds, atoms = data.programs.compounds, data.programs.atoms
    rng = np.random.default_rng(0)
    eval_mask = np.zeros(600, dtype=bool)
    eval_mask[rng.choice(600, 120, replace=False)] = True
    eval_mask, _ = enforce_atom_constraint(eval_mask, atoms, rng.random(600))
    search = CompoundDivergenceSearch(compounds, atoms, eval_mask)
    previous = search.divergence()
    for _ in range(30):
        if not search.step():
            break
        now = search.divergence()
        assert now > previous
        previous = now
        expected = chernoff_divergence(compounds.counts(~search.eval_mask), compounds.counts(search.eval_mask), 0.1)
        assert now == pytest.approx(expected, abs=1e-9)
        assert len(missing_atoms(atoms, ~search.eval_mask, search.eval_mask)) == 0
    assert search.eval_mask.sum() == 120


@pytest.mark.parametrize("count", ["examples", "occurrences"])
def test_tmcd_prices_every_candidate_as_a_full_recount(count: str) -> None:
    """The incremental price of moving each row equals 1 − divergence recomputed after the move,
    also when a compound occurring twice in a program counts twice."""
    rng = np.random.default_rng(3)
    rows = [[f"c{i}" for i in rng.integers(0, 25, rng.integers(1, 8))] for _ in range(120)]  # repeats kept
    compounds = SparseSets.from_rows(rows, count)
    atoms = SparseSets.from_rows([[r[0]] for r in rows])
    assert (count == "occurrences") == (
        compounds.counts(np.ones(120, bool)).sum() > compounds.presence(np.ones(120, bool)).sum()
    )
    eval_mask = np.zeros(120, dtype=bool)
    eval_mask[rng.choice(120, 30, replace=False)] = True
    search = CompoundDivergenceSearch(compounds, atoms, eval_mask)
    for to_eval in (True, False):
        priced = search._candidates(to_eval)
        for row in np.flatnonzero(np.isfinite(priced))[:15]:
            moved = search.eval_mask.copy()
            moved[row] = to_eval
            recount = 1 - chernoff_divergence(compounds.counts(~moved), compounds.counts(moved), 0.1)
            assert priced[row] == pytest.approx(recount, abs=1e-12)


def test_tmcd_beats_a_first_improvement_scan_at_equal_iterations() -> None:
    data = program_inputs(400, seed=9)
    compounds, atoms = data.programs.compounds, data.programs.atoms
    rng = np.random.default_rng(1)
    start = np.zeros(400, dtype=bool)
    start[rng.choice(400, 80, replace=False)] = True
    start, _ = enforce_atom_constraint(start, atoms, rng.random(400))
    search = CompoundDivergenceSearch(compounds, atoms, start)
    iterations = search.run(20)
    assert iterations == 20
    assert search.divergence() >= first_improvement_divergence(compounds, atoms, start, iterations)


def first_improvement_divergence(
    compounds: SparseSets, atoms: SparseSets, eval_mask: np.ndarray, iterations: int
) -> float:
    """The published greedy: take the first train example whose move raises divergence (and
    keeps atoms), then the first evaluation example whose move back does; recompute fully."""
    mask = eval_mask.copy()

    def divergence(m: np.ndarray) -> float:
        return chernoff_divergence(compounds.counts(~m), compounds.counts(m), 0.1)

    for _ in range(iterations):
        current = divergence(mask)
        atom_counts = atoms.counts(~mask)
        out = next(
            (
                i
                for i in np.flatnonzero(~mask)
                if atom_counts[atoms.row(i)].min() >= 2 and divergence(_flip(mask, i)) > current
            ),
            None,
        )
        if out is None:
            break
        mask = _flip(mask, out)
        back = next((j for j in np.flatnonzero(mask) if j != out and divergence(_flip(mask, j)) > current), None)
        if back is None:
            break
        mask = _flip(mask, back)
    return divergence(mask)


def _flip(mask: np.ndarray, i: int) -> np.ndarray:
    out = mask.copy()
    out[i] = not out[i]
    return out
