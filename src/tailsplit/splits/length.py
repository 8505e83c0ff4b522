"""Length split: the longest examples go to evaluation (a classic challenge split)."""

from __future__ import annotations

import numpy as np

from tailsplit.choices import LABEL_TOLERANCE
from tailsplit.core import SplitIndices
from tailsplit.errors import ConfigError
from tailsplit.rng import SPLIT_ORDER, seeded_rng
from tailsplit.splits.base import SplitInputs, Splitter, check_params
from tailsplit.splits.selection import split_by_keys


class LengthSplitter(Splitter):
    """Longest queries (word tokens; or program tokens with ``length_of="program"``) →
    evaluation; equal lengths are ordered at random from the seed.

    >>> inputs = SplitInputs(n=5, word_lengths=np.array([3, 9, 1, 7, 2]))
    >>> LengthSplitter(dev_size=1, test_size=1).split(inputs).eval_idx.tolist()
    [1, 3]
    """

    name = "length"

    def __init__(
        self,
        *,
        dev_size: float | int = 0.1,
        test_size: float | int = 0.1,
        length_of: str = "text",
        balance_labels: bool = False,
        label_quota: str = "proportional",
        label_tolerance: float = LABEL_TOLERANCE,
        atom_constraint: bool = False,
        seed: int = 0,
    ) -> None:
        self.dev_size = dev_size
        self.test_size = test_size
        self.length_of = length_of
        self.balance_labels = balance_labels
        self.label_quota = label_quota
        self.label_tolerance = label_tolerance
        self.atom_constraint = atom_constraint
        self.seed = seed
        check_params(self)

    @property
    def needs_programs(self) -> bool:
        return self.atom_constraint or self.length_of == "program"

    def split(self, inputs: SplitInputs) -> SplitIndices:
        lengths = np.asarray(
            inputs.word_lengths
            if self.length_of == "text"
            else inputs.require_programs("--length-of='program'").n_tokens
        )
        wrong = np.flatnonzero(~np.isfinite(lengths.astype(np.float64)) | (lengths < 0) | (lengths % 1 != 0))
        if len(wrong):
            raise ConfigError(
                f"the lengths hold {lengths[wrong[0]]!r} at row {int(wrong[0]) + 1} ({len(wrong)} rows); "
                "a length is a whole count of tokens, 0 or more: give word_lengths as whole numbers"
            )
        tie_break = seeded_rng(self.seed, SPLIT_ORDER).permutation(inputs.n) / max(inputs.n, 1)
        keys = -np.asarray(lengths, dtype=np.float64) + tie_break  # in [−length, −length + 1)
        return split_by_keys(self, inputs, keys)
