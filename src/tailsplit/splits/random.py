"""Random split: the baseline every challenge split is compared with."""

from __future__ import annotations

import numpy as np

from tailsplit.choices import LABEL_TOLERANCE
from tailsplit.core import SplitIndices
from tailsplit.rng import SPLIT_ORDER, seeded_rng
from tailsplit.splits.base import SplitInputs, Splitter, check_params
from tailsplit.splits.selection import Units, split_by_keys


class RandomSplitter(Splitter):
    """Evaluation drawn uniformly at random (groups whole, labels in proportion if asked).

    >>> s = RandomSplitter(dev_size=2, test_size=2, seed=1).split(SplitInputs(n=10, word_lengths=np.ones(10)))
    >>> len(s.train_idx), len(s.dev_idx), len(s.test_idx)
    (6, 2, 2)
    """

    name = "random"
    needs_scores = False

    def __init__(
        self,
        *,
        dev_size: float | int = 0.1,
        test_size: float | int = 0.1,
        balance_labels: bool = False,
        label_quota: str = "proportional",
        label_tolerance: float = LABEL_TOLERANCE,
        atom_constraint: bool = False,
        seed: int = 0,
    ) -> None:
        self.dev_size = dev_size
        self.test_size = test_size
        self.balance_labels = balance_labels
        self.label_quota = label_quota
        self.label_tolerance = label_tolerance
        self.atom_constraint = atom_constraint
        self.seed = seed
        check_params(self)

    def split(self, inputs: SplitInputs) -> SplitIndices:
        units = Units.from_groups(inputs.groups, inputs.n)
        order = seeded_rng(self.seed, SPLIT_ORDER).permutation(units.count)
        position = np.empty(units.count, dtype=np.float64)
        position[order] = np.arange(units.count)  # each unit's place in a random order
        return split_by_keys(self, inputs, position[units.of_row])
