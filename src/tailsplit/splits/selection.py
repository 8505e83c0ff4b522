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
from tailsplit.splits.label_quotas import LabelQuotas, apportion, label_report

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
    label_quota: str
    label_tolerance: float


def codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer code per row and the sorted distinct values, for object or numeric columns."""
    uniques, inverse = np.unique(np.asarray(values).astype(str), return_inverse=True)
    return inverse.astype(np.int64), uniques


@dataclass(frozen=True)
class Strata:
    """Stratum code per row and the number of rows to select from each stratum."""

    of_row: np.ndarray
    quotas: np.ndarray
    n_buckets: int = 1  # stratum s is label s // n_buckets, bucket s % n_buckets

    @property
    def n_labels(self) -> int:
        return len(self.quotas) // self.n_buckets

    def label_remaining(self, remaining: np.ndarray) -> np.ndarray:
        """What is left of each label's quota, from what is left of each stratum's."""
        return remaining.reshape(-1, self.n_buckets).sum(axis=1)


def strata_quotas(
    n_dev_test: tuple[int, int], labels: LabelQuotas | None, bucket_codes: np.ndarray | None, n: int
) -> Strata:
    """Quotas of dev and test together that give each label its quota (``labels``' rule) and,
    inside each label, keep the buckets' proportions. ``labels`` / ``bucket_codes`` are
    ``None`` when that constraint is off."""
    label_codes = np.zeros(n, dtype=np.int64) if labels is None else labels.codes
    buckets = np.zeros(n, dtype=np.int64) if bucket_codes is None else bucket_codes
    n_buckets = int(buckets.max()) + 1 if n else 1
    of_row = label_codes * n_buckets + buckets
    label_quota = np.array([sum(n_dev_test)]) if labels is None else labels.evaluation_quota(*n_dev_test)
    quotas = np.zeros(len(label_quota) * n_buckets, dtype=np.int64)
    for label in range(len(label_quota)):
        in_label = buckets[label_codes == label]
        quotas[label * n_buckets : (label + 1) * n_buckets] = apportion(
            int(label_quota[label]), np.bincount(in_label, minlength=n_buckets)
        )
    return Strata(of_row=of_row, quotas=quotas, n_buckets=n_buckets)


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
    """Whole units in ``unit_order`` that fit every stratum's quota, then units that fit the
    total; where the strata hold several labels and that leaves a label off its quota, the
    walk with label prices (:func:`_priced_fill`) when it comes nearer."""
    rows_by_unit = np.argsort(units.of_row, kind="stable")
    bounds = np.searchsorted(units.of_row[rows_by_unit], np.arange(units.count + 1))
    if eligible is not None:
        unit_order = unit_order[eligible[rows_by_unit[bounds[unit_order]]]]
    remaining = strata.quotas.copy()
    left = int(remaining.sum())
    chosen = np.zeros(len(units.of_row), dtype=bool)
    for unit in unit_order:
        if left == 0:
            break
        rows = rows_by_unit[bounds[unit] : bounds[unit + 1]]
        need = np.bincount(strata.of_row[rows], minlength=len(remaining))
        if np.all(need <= remaining):
            remaining -= need
            left -= len(rows)
            chosen[rows] = True
    for unit in unit_order:  # top up the total with whole units, strata permitting or not
        if left == 0:
            break
        rows = rows_by_unit[bounds[unit] : bounds[unit + 1]]
        if chosen[rows[0]] or len(rows) > left:
            continue
        left -= len(rows)
        chosen[rows] = True
    if strata.n_labels < 2 or _label_miss(chosen, strata) == 0:
        return chosen
    priced = _priced_fill(unit_order, units, strata)
    return priced if _label_miss(priced, strata) < _label_miss(chosen, strata) else chosen


def _label_miss(chosen: np.ndarray, strata: Strata) -> int:
    """Examples by which the labels taken miss their quotas, summed over labels."""
    taken = np.bincount(strata.of_row[chosen] // strata.n_buckets, minlength=strata.n_labels)
    return int(np.abs(strata.label_remaining(strata.quotas) - taken).sum())


def _priced_fill(unit_order: np.ndarray, units: Units, strata: Strata) -> np.ndarray:
    """Whole units taken by a key that adds a price per label to each unit's place in
    ``unit_order``: ``place / n_units + Σ price[label] × share of the unit's rows with that
    label``. Prices are set label by label (bisection, a few sweeps) so each label's count
    meets its quota as nearly as whole units allow, the total filled up to its quota in that
    order. A unit of one label keeps its order among its label's units; mixed units move by
    how much of each label they bring (a Lagrangian relaxation of the label quotas).
    """
    n_labels = strata.n_labels
    quota = strata.label_remaining(strata.quotas)
    total = int(quota.sum())
    label_of_row = strata.of_row // strata.n_buckets
    size = np.bincount(units.of_row, minlength=units.count)
    mix = np.zeros((units.count, n_labels))
    np.add.at(mix, (units.of_row, label_of_row), 1.0)
    mix = mix[unit_order] / size[unit_order, None]
    place = np.arange(len(unit_order)) / max(len(unit_order), 1)
    sizes = size[unit_order]

    def counts(price: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        order = np.lexsort((place, place + mix @ price))
        taken = order[: int(np.searchsorted(np.cumsum(sizes[order]), total, side="right"))]
        return taken, (mix[taken] * sizes[taken, None]).sum(axis=0).round().astype(np.int64)

    price = np.zeros(n_labels)
    best_miss, best_price = int(np.abs(counts(price)[1] - quota).sum()), price.copy()
    for _ in range(4):
        for label in range(n_labels):
            low, high = -2.0, 2.0  # a price of ±1 outweighs any difference of place
            for _ in range(24):
                price[label] = (low + high) / 2
                got = counts(price)[1]
                miss = int(np.abs(got - quota).sum())
                if miss < best_miss:
                    best_miss, best_price = miss, price.copy()
                if got[label] > quota[label]:
                    low = price[label]
                elif got[label] < quota[label]:
                    high = price[label]
                else:
                    break
            price[label] = best_price[label]
    taken = counts(best_price)[0]
    chosen = np.zeros(len(units.of_row), dtype=bool)
    chosen[np.isin(units.of_row, unit_order[taken])] = True
    return chosen


def order_units(keys: np.ndarray) -> np.ndarray:
    """Units by ascending key; ties by unit index, so equal inputs give equal orders."""
    return np.lexsort((np.arange(len(keys)), keys))


def divide_evaluation(
    eval_mask: np.ndarray, n_dev: int, n_test: int, units: Units, labels: LabelQuotas | None, seed: int
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Divide the evaluation rows at random into (dev_mask, test_mask, details), each label
    taking its test quota; with ``labels``, the details hold each part's label counts against
    its quotas, and a miss beyond the tolerance is refused (:func:`label_report`).

    With groups the evaluation set may be a little smaller than asked; test then gets its
    proportional share of what was taken.
    """
    n_eval = int(eval_mask.sum())
    want_test = n_test if n_eval == n_dev + n_test else int(round(n_eval * n_test / (n_dev + n_test)))
    if labels is None:
        strata = Strata(of_row=np.zeros(len(eval_mask), dtype=np.int64), quotas=np.array([want_test]))
    else:
        quotas = labels.test_quota(labels.evaluation_quota(n_dev, n_test), want_test)
        strata = Strata(of_row=labels.codes, quotas=quotas)
    order = seeded_rng(seed, DEV_TEST_DIVISION).permutation(units.count)
    test_mask = fill_quotas(order, units, strata, eligible=eval_mask)
    dev_mask = eval_mask & ~test_mask
    if not units.singletons:
        check_whole_units(units, n_dev, n_test, dev_mask, test_mask)
    if labels is None:
        return dev_mask, test_mask, {}
    group_size = int(np.median(np.bincount(units.of_row, minlength=units.count)))
    report = label_report(labels, dev_mask, test_mask, n_dev, n_test, group_size)
    return dev_mask, test_mask, {"label_quotas": report}


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
    labels = label_quotas_for(splitter, inputs, keys, (n_dev, n_test))
    strata = strata_quotas((n_dev, n_test), labels, buckets, inputs.n)
    eval_mask = fill_quotas(order_units(units.mean(keys)), units, strata)
    details: dict = {}
    if getattr(splitter, "atom_constraint", False):
        eval_mask, details = repair_atoms(eval_mask, inputs, keys, strata, units)
    _, test_mask, divided = divide_evaluation(eval_mask, n_dev, n_test, units, labels, splitter.seed)
    return SplitIndices.from_masks(eval_mask, test_mask, {**details, **divided})


def label_quotas_for(
    splitter: Ranking, inputs: SplitInputs, keys: np.ndarray, n_dev_test: tuple[int, int]
) -> LabelQuotas | None:
    """The labels and their quota rule when ``balance_labels`` is on (checked to be
    feasible), else ``None``. ``keys`` (lower = more evaluation-like) name the label that
    takes the equal rule's remainders: the most train-like example's, as gen_ll_split.py
    gives them to the first label met in descending likelihood."""
    if not splitter.balance_labels:
        return None
    if inputs.labels is None:
        raise ConfigError("--balance-labels needs labels; name the label field with --label")
    label_codes, names = codes(inputs.labels)
    first = int(label_codes[int(np.argmax(keys))]) if len(keys) else 0
    labels = LabelQuotas(label_codes, names, splitter.label_quota, splitter.label_tolerance, first)
    labels.check_feasible(*n_dev_test)
    return labels
