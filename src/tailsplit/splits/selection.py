"""The one selection mechanism behind every splitter: fill per-stratum quotas in a given order.

A splitter decides an *order* over units (an example, or a whole group of examples) and the
*strata* whose proportions must be kept (labels; labels × length buckets). Selection walks
the units in that order and takes each unit that fits every stratum's remaining quota.
Without groups every quota is met exactly. With groups a unit is never cut and may span
strata, so a second walk tops the total up with units that fit what is left of it: the
total then falls short by less than one group, and strata stay as close to their quotas as
whole groups allow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from tailsplit.constraints import enforce_atom_constraint
from tailsplit.core import SplitIndices
from tailsplit.errors import ConfigError
from tailsplit.rng import DEV_TEST_DIVISION, seeded_rng
from tailsplit.splits.base import resolve_sizes

if TYPE_CHECKING:
    from tailsplit.splits.base import SplitInputs


class Seeded(Protocol):
    """A splitter with a seed."""

    seed: int


class Ranking(Seeded, Protocol):
    """A splitter that fills evaluation quotas from a ranking: sizes, label balance, seed."""

    dev_size: float | int
    test_size: float | int
    balance_labels: bool


def apportion(total: int, weights: np.ndarray) -> np.ndarray:
    """Split ``total`` into integer parts proportional to ``weights`` (largest remainder).

    Parts sum to ``total``; no part exceeds its weight when ``total <= weights.sum()``; ties
    go to the earlier index, so the result is deterministic.

    >>> apportion(10, np.array([5, 3, 2])).tolist(), apportion(3, np.array([1, 1, 1, 1])).tolist()
    ([5, 3, 2], [1, 1, 1, 0])
    """
    weights = np.asarray(weights, dtype=np.int64)
    whole = int(weights.sum())
    if whole == 0:
        return np.zeros_like(weights)
    ideal = total * weights / whole
    parts = np.floor(ideal).astype(np.int64)
    short = total - int(parts.sum())
    order = np.lexsort((np.arange(len(weights)), -(ideal - parts)))
    parts[order[:short]] += 1
    return parts


def codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer code per row and the sorted distinct values, for object or numeric columns."""
    uniques, inverse = np.unique(np.asarray(values).astype(str), return_inverse=True)
    return inverse.astype(np.int64), uniques


@dataclass(frozen=True)
class Strata:
    """Stratum code per row and the number of rows to select from each stratum."""

    of_row: np.ndarray
    quotas: np.ndarray


def strata_quotas(total: int, label_codes: np.ndarray | None, bucket_codes: np.ndarray | None, n: int) -> Strata:
    """Quotas that keep label proportions exact and, inside each label, bucket proportions.

    ``label_codes`` / ``bucket_codes`` are ``None`` when that constraint is off.
    """
    labels = np.zeros(n, dtype=np.int64) if label_codes is None else label_codes
    buckets = np.zeros(n, dtype=np.int64) if bucket_codes is None else bucket_codes
    n_buckets = int(buckets.max()) + 1 if n else 1
    of_row = labels * n_buckets + buckets
    label_counts = np.bincount(labels)
    label_quota = apportion(total, label_counts)
    quotas = np.zeros(len(label_counts) * n_buckets, dtype=np.int64)
    for label in range(len(label_counts)):
        in_label = buckets[labels == label]
        quotas[label * n_buckets : (label + 1) * n_buckets] = apportion(
            int(label_quota[label]), np.bincount(in_label, minlength=n_buckets)
        )
    return Strata(of_row=of_row, quotas=quotas)


def check_label_quotas(label_codes: np.ndarray, label_names: np.ndarray, n_eval: int) -> None:
    """Refuse a balance that would put every example of some label in evaluation."""
    counts = np.bincount(label_codes)
    quota = apportion(n_eval, counts)
    for name, count, want in zip(label_names.tolist(), counts, quota):
        if count > 0 and want >= count:
            raise ConfigError(
                f"--balance-labels: label {name!r} has only {count} example(s), and its share of "
                f"the {n_eval} evaluation examples is {want}, leaving none for training; "
                "remove that label, ask for smaller dev/test sizes, or turn off label balance"
            )


@dataclass(frozen=True)
class Units:
    """What moves as a whole: one example, or every example of a group."""

    of_row: np.ndarray
    count: int

    @staticmethod
    def from_groups(groups: np.ndarray | None, n: int) -> Units:
        if groups is None:
            return Units(of_row=np.arange(n, dtype=np.int64), count=n)
        of_row, uniques = codes(groups)
        firsts = np.unique(of_row, return_index=True)[1]  # a row of each group: its value as given
        missing = [
            int(of_row[i])
            for i in firsts
            if groups[i] is None or (isinstance(groups[i], float) and groups[i] != groups[i])
        ]
        if missing:
            rows = np.flatnonzero(np.isin(of_row, missing))
            raise ConfigError(
                f"the groups hold {groups[rows[0]]!r} at row {int(rows[0]) + 1} ({len(rows)} rows): a missing "
                "group keeps no examples together; give every row a group, or its own id as its group"
            )
        return Units(of_row=of_row, count=len(uniques))

    @property
    def singletons(self) -> bool:
        return self.count == len(self.of_row)

    def mean(self, values: np.ndarray) -> np.ndarray:
        """Per-unit mean of a row column."""
        sums = np.bincount(self.of_row, weights=values, minlength=self.count)
        return sums / np.bincount(self.of_row, minlength=self.count)


def fill_quotas(unit_order: np.ndarray, units: Units, strata: Strata, eligible: np.ndarray | None = None) -> np.ndarray:
    """Row mask of the units taken, walking ``unit_order`` and keeping every quota.

    ``eligible`` (row mask) restricts selection to those rows' units.
    """
    n = len(units.of_row)
    if units.singletons:
        order = unit_order if eligible is None else unit_order[eligible[unit_order]]
        chosen = np.zeros(n, dtype=bool)
        stratum_in_order = strata.of_row[order]
        for stratum, quota in enumerate(strata.quotas):
            if quota:
                chosen[order[stratum_in_order == stratum][:quota]] = True
        return chosen
    return _fill_grouped(unit_order, units, strata, eligible)


def _fill_grouped(unit_order: np.ndarray, units: Units, strata: Strata, eligible: np.ndarray | None) -> np.ndarray:
    rows_by_unit = np.argsort(units.of_row, kind="stable")
    bounds = np.searchsorted(units.of_row[rows_by_unit], np.arange(units.count + 1))
    remaining = strata.quotas.copy()
    left = int(remaining.sum())
    chosen = np.zeros(len(units.of_row), dtype=bool)
    for unit in unit_order:
        if left == 0:
            break
        rows = rows_by_unit[bounds[unit] : bounds[unit + 1]]
        if eligible is not None and not eligible[rows[0]]:
            continue
        need = np.bincount(strata.of_row[rows], minlength=len(remaining))
        if np.all(need <= remaining):
            remaining -= need
            left -= len(rows)
            chosen[rows] = True
    for unit in unit_order:  # top up the total with whole units, strata permitting or not
        if left == 0:
            break
        rows = rows_by_unit[bounds[unit] : bounds[unit + 1]]
        if chosen[rows[0]] or (eligible is not None and not eligible[rows[0]]) or len(rows) > left:
            continue
        left -= len(rows)
        chosen[rows] = True
    return chosen


def order_units(keys: np.ndarray) -> np.ndarray:
    """Units by ascending key; ties by unit index, so equal inputs give equal orders."""
    return np.lexsort((np.arange(len(keys)), keys))


def divide_evaluation(
    eval_mask: np.ndarray, n_dev: int, n_test: int, units: Units, label_codes: np.ndarray | None, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Divide the evaluation rows at random into (dev_mask, test_mask), labels kept in proportion.

    With groups the evaluation set may be a little smaller than asked; test then gets its
    proportional share of what was taken.
    """
    n_eval = int(eval_mask.sum())
    want_test = n_test if n_eval == n_dev + n_test else int(round(n_eval * n_test / (n_dev + n_test)))
    labels = np.zeros(len(eval_mask), dtype=np.int64) if label_codes is None else label_codes
    quotas = apportion(want_test, np.bincount(labels[eval_mask], minlength=int(labels.max()) + 1))
    order = seeded_rng(seed, DEV_TEST_DIVISION).permutation(units.count)
    test_mask = fill_quotas(order, units, Strata(of_row=labels, quotas=quotas), eligible=eval_mask)
    dev_mask = eval_mask & ~test_mask
    if not units.singletons:
        check_whole_units(units, n_dev, n_test, dev_mask, test_mask)
    return dev_mask, test_mask


def check_whole_units(units: Units, n_dev: int, n_test: int, dev_mask: np.ndarray, test_mask: np.ndarray) -> None:
    """Refuse a split in which whole units (groups, templates) left a requested part empty."""
    train_empty = not (~(dev_mask | test_mask)).any()
    if (n_dev and not dev_mask.any()) or (n_test and not test_mask.any()) or train_empty:
        sizes = np.bincount(units.of_row, minlength=units.count)
        empty = "train" if train_empty else "dev" if n_dev and not dev_mask.any() else "test"
        smallest = int(sizes.min())
        if train_empty:
            fix = "ask for smaller dev and test sizes, or use a finer group field"
        elif min(n for n in (n_dev, n_test) if n) < smallest:
            fix = f"every part needs at least one whole group, so ask for dev and test sizes of at least {smallest} examples each, or use a finer group field"
        else:
            fix = "the groups the sizes allow all went to the other part; ask for larger dev and test sizes, or use a finer group field"
        raise ConfigError(
            f"the {units.count} groups (of {smallest} to {int(sizes.max())} examples) cannot be divided "
            f"into train, dev ≈ {n_dev} and test ≈ {n_test} examples without cutting a group: "
            f"{empty} would be empty; {fix}"
        )


def length_bucket_codes(word_lengths: np.ndarray, length_buckets: int | str | None) -> np.ndarray | None:
    """Bucket per row: ``N`` quantile buckets of word length, ``"exact"`` one per length."""
    if length_buckets is None:
        return None
    if length_buckets == "exact":
        return codes(word_lengths)[0]
    inner = np.quantile(word_lengths, np.linspace(0.0, 1.0, int(length_buckets) + 1)[1:-1])
    return np.searchsorted(np.unique(inner), word_lengths, side="right").astype(np.int64)


def repair_atoms(
    eval_mask: np.ndarray, inputs: Any, keys: np.ndarray, strata: Strata, units: Units
) -> tuple[np.ndarray, dict[str, Any]]:
    """``eval_mask`` with the atom constraint enforced (see :mod:`tailsplit.constraints`);
    ``keys`` per row, lower = more evaluation-like; units move whole."""
    programs = inputs.require_programs("atom_constraint=True")
    repaired, repair = enforce_atom_constraint(
        eval_mask, programs.atoms, keys, strata.of_row, None if units.singletons else units.of_row
    )
    return repaired, {"atom_constraint": repair.as_dict()}


def split_by_keys(
    splitter: Ranking, inputs: SplitInputs, keys: np.ndarray, buckets: np.ndarray | None = None
) -> SplitIndices:
    """The flow every ranking splitter shares: the lowest ``keys`` (a unit's key is its rows'
    mean) fill the evaluation quotas of each label × bucket stratum; the atom constraint
    repairs that set if the splitter asks for it; a seeded draw divides it into dev and test."""

    n_dev, n_test = resolve_sizes(inputs.n, splitter.dev_size, splitter.test_size)
    units = Units.from_groups(inputs.groups, inputs.n)
    label_codes = label_codes_for(splitter, inputs, n_dev + n_test)
    strata = strata_quotas(n_dev + n_test, label_codes, buckets, inputs.n)
    eval_mask = fill_quotas(order_units(units.mean(keys)), units, strata)
    details: dict = {}
    if getattr(splitter, "atom_constraint", False):
        eval_mask, details = repair_atoms(eval_mask, inputs, keys, strata, units)
    _, test_mask = divide_evaluation(eval_mask, n_dev, n_test, units, label_codes, splitter.seed)
    return SplitIndices.from_masks(eval_mask, test_mask, details)


def label_codes_for(splitter: Ranking, inputs: SplitInputs, n_eval: int) -> np.ndarray | None:
    """Label codes when ``balance_labels`` is on (and checked to be feasible), else ``None``."""
    if not splitter.balance_labels:
        return None
    if inputs.labels is None:
        raise ConfigError("--balance-labels needs labels; name the label field with --label")
    label_codes, names = codes(inputs.labels)
    check_label_quotas(label_codes, names, n_eval)
    return label_codes
