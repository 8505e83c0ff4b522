"""TMCD split (Shaw et al. 2021): atoms shared, compounds as different as possible.

Start from a random split, enforce the atom constraint, then swap examples between train and
evaluation while each swap raises the compound divergence (Chernoff, α = 0.1) and keeps
every evaluation atom in training.

The published greedy scan recomputes the divergence from all compound counts for every
candidate. Here a candidate's effect is incremental: moving example ``i`` changes only the
terms of its own compounds, so with ``T = Σ_k a_k^α b_k^(1−α)`` over train/eval counts
``a, b`` (totals ``A, B``), the similarity after the move is
``(T + Σ_{k∈i} Δ_k) / ((A − |i|)^α (B + |i|)^(1−α))``, where ``Δ_k`` depends only on
``a_k, b_k``. One pass over the sparse rows scores *every* candidate at once, so each step
takes the best move out of training, then the best move back, rather than the first
improving pair; the search stops when that pair does not raise the divergence — another,
not-best pair may still raise it slightly (the published greedy stops only when none does).
"""

from __future__ import annotations

import numpy as np

from tailsplit.choices import LABEL_TOLERANCE
from tailsplit.core import SplitIndices
from tailsplit.errors import ConfigError
from tailsplit.programs.divergence import COMPOUND_ALPHA
from tailsplit.programs.sets import SparseSets
from tailsplit.rng import SPLIT_ORDER, seeded_rng
from tailsplit.splits.base import SplitInputs, Splitter, check_params, resolve_sizes
from tailsplit.splits.selection import (
    Units,
    divide_evaluation,
    fill_quotas,
    label_quotas_for,
    repair_atoms,
    strata_quotas,
)


class TmcdSplitter(Splitter):
    """Random split → atom constraint → best-swap compound-divergence ascent.

    ``max_iterations=None`` swaps until no swap raises the divergence.
    """

    name = "tmcd"

    def __init__(
        self,
        *,
        dev_size: float | int = 0.1,
        test_size: float | int = 0.1,
        balance_labels: bool = False,
        label_quota: str = "proportional",
        label_tolerance: float = LABEL_TOLERANCE,
        max_iterations: int | None = None,
        seed: int = 0,
    ) -> None:
        self.dev_size = dev_size
        self.test_size = test_size
        self.balance_labels = balance_labels
        self.label_quota = label_quota
        self.label_tolerance = label_tolerance
        self.max_iterations = max_iterations
        self.seed = seed
        check_params(self)

    @property
    def needs_programs(self) -> bool:
        return True

    def split(self, inputs: SplitInputs) -> SplitIndices:
        programs = inputs.require_programs("--splitter='tmcd'")
        if inputs.groups is not None:
            raise ConfigError("--splitter='tmcd' swaps single examples and cannot keep groups; drop --group")
        n_dev, n_test = resolve_sizes(inputs.n, self.dev_size, self.test_size)
        units = Units.from_groups(None, inputs.n)
        order = seeded_rng(self.seed, SPLIT_ORDER).permutation(inputs.n)
        keys = np.empty(inputs.n, dtype=np.float64)
        keys[order] = np.arange(inputs.n)
        labels = label_quotas_for(self, inputs, keys, (n_dev, n_test))
        strata = strata_quotas((n_dev, n_test), labels, None, inputs.n)
        eval_mask = fill_quotas(order, units, strata)
        eval_mask, details = repair_atoms(eval_mask, inputs, keys, strata, units)
        search = CompoundDivergenceSearch(programs.compounds, programs.atoms, eval_mask, strata.of_row)
        start = search.divergence()
        iterations = search.run(self.max_iterations)
        details["tmcd"] = {
            "iterations": iterations,
            "compound_divergence_start": round(start, 6),
            "compound_divergence_end": round(search.divergence(), 6),
        }
        _, test_mask, divided = divide_evaluation(search.eval_mask, n_dev, n_test, units, labels, self.seed)
        return SplitIndices.from_masks(search.eval_mask, test_mask, {**details, **divided})


class CompoundDivergenceSearch:
    """Train/eval compound counts and the swaps that raise their Chernoff divergence.

    Atom counts in training are kept too: a training example may leave only if each of its
    atoms stays in at least one other training example.
    """

    def __init__(
        self,
        compounds: SparseSets,
        atoms: SparseSets,
        eval_mask: np.ndarray,
        strata: np.ndarray | None = None,
        alpha: float = COMPOUND_ALPHA,
    ) -> None:
        self.compounds, self.atoms, self.alpha = compounds, atoms, alpha
        self.eval_mask = eval_mask.copy()
        self.strata = np.zeros(len(eval_mask), dtype=np.int64) if strata is None else strata
        self.weights = compounds.entry_weights  # 1 each, or occurrences
        # Moves are priced per compound for each distinct weight, then gathered per entry.
        self._weight_values, self._weight_index = np.unique(self.weights, return_inverse=True)
        totals = compounds.counts(np.ones(len(eval_mask), dtype=bool))
        largest = int(totals.max() if len(totals) else 0) + int(self.weights.max(initial=0)) + 2
        self._pow_train = np.arange(largest, dtype=np.float64) ** alpha
        self._pow_eval = np.arange(largest, dtype=np.float64) ** (1.0 - alpha)
        self.train_counts = compounds.counts(~self.eval_mask)
        self.eval_counts = compounds.counts(self.eval_mask)
        self.atom_train_counts = atoms.presence(~self.eval_mask)
        self.sizes = compounds.weighted_sizes()
        self._atom_starts = atoms.indptr[:-1]
        self._atomless = atoms.sizes() == 0
        self._starts = compounds.indptr[:-1]
        self._has_items = compounds.sizes() > 0

    def _terms(self, train: np.ndarray, evaluation: np.ndarray) -> np.ndarray:
        return self._pow_train[train] * self._pow_eval[evaluation]

    def similarity(self) -> float:
        total_train, total_eval = self.train_counts.sum(), self.eval_counts.sum()
        if total_train == 0 or total_eval == 0:
            return 0.0
        numerator = self._terms(self.train_counts, self.eval_counts).sum()
        return float(numerator / (total_train**self.alpha * total_eval ** (1.0 - self.alpha)))

    def divergence(self) -> float:
        return 1.0 - self.similarity()

    def _row_sums(self, per_entry: np.ndarray) -> np.ndarray:
        sums = np.add.reduceat(per_entry, self._starts) if len(per_entry) else np.zeros(len(self._starts))
        return np.where(self._has_items, sums, 0.0)

    def _candidates(self, to_eval: bool) -> np.ndarray:
        """Similarity after moving each row to the other side (``inf`` where not allowed).

        Moving row ``i`` shifts each of its compounds ``k`` by its weight ``w`` (1, or its
        occurrences): the change of the numerator is priced once per compound and distinct
        weight, then summed over each row's entries."""
        a, b = self.train_counts, self.eval_counts
        current = self._terms(a, b)
        sign = -1 if to_eval else 1
        # delta[j, k]: change of compound k's term when it moves by weight_values[j]
        delta = (
            np.stack(
                [
                    self._terms(np.maximum(a + sign * w, 0), np.maximum(b - sign * w, 0)) - current
                    for w in self._weight_values
                ]
            )
            if len(self._weight_values)
            else np.zeros((0, len(a)))
        )
        per_entry = delta[self._weight_index, self.compounds.ids] if len(self.compounds.ids) else np.zeros(0)
        total_train = a.sum() + sign * self.sizes
        total_eval = b.sum() - sign * self.sizes
        with np.errstate(divide="ignore", invalid="ignore"):
            similarity = (current.sum() + self._row_sums(per_entry)) / (
                np.maximum(total_train, 1) ** self.alpha * np.maximum(total_eval, 1) ** (1.0 - self.alpha)
            )
        allowed = ~self.eval_mask if to_eval else self.eval_mask.copy()
        if to_eval:
            allowed &= self._safe_to_leave_training()
        return np.where(allowed, similarity, np.inf)

    def _safe_to_leave_training(self) -> np.ndarray:
        counts = self.atom_train_counts[self.atoms.ids]
        least = np.minimum.reduceat(counts, self._atom_starts) if len(counts) else np.zeros(0)
        return np.where(self._atomless, True, least >= 2)

    def _move(self, row: int, to_eval: bool) -> None:
        ids = self.compounds.row(row)
        step = self.compounds.row_weights(row) * (1 if to_eval else -1)
        self.train_counts[ids] -= step
        self.eval_counts[ids] += step
        self.atom_train_counts[self.atoms.row(row)] -= 1 if to_eval else -1
        self.eval_mask[row] = to_eval

    def step(self) -> bool:
        """Make the best swap (best move out of training, then best move back) if it raises the
        divergence; ``False`` when that pair does not (other pairs are not searched)."""
        before = self.similarity()
        leaving_train = self._candidates(to_eval=True)
        if not np.isfinite(leaving_train).any():
            return False
        out_row = int(np.argmin(leaving_train))
        self._move(out_row, to_eval=True)
        leaving_eval = self._candidates(to_eval=False)
        leaving_eval[out_row] = np.inf
        leaving_eval[self.strata != self.strata[out_row]] = np.inf
        in_row = int(np.argmin(leaving_eval))
        if not np.isfinite(leaving_eval[in_row]) or leaving_eval[in_row] >= before - 1e-12:
            self._move(out_row, to_eval=False)
            return False
        self._move(in_row, to_eval=False)
        return True

    def run(self, max_iterations: int | None) -> int:
        """Swap until the best pair stops helping or ``max_iterations`` swaps were made; returns the count."""
        done = 0
        while max_iterations is None or done < max_iterations:
            if not self.step():
                break
            done += 1
        return done
