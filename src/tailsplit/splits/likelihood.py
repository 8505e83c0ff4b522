"""Likelihood Split: the examples a language model finds least likely go to evaluation.

Godbole & Jia (2023). Options combine freely: ``reverse`` (most likely to evaluation, the
control split), ``rank`` by total or per-token log-likelihood, ``length_buckets`` (pick the
tail inside each word-length bucket so evaluation keeps train's length mix),
``balance_labels``, groups that are never cut, and for programs ``atom_constraint`` (every
evaluation atom also occurs in training).
"""

from __future__ import annotations

import numpy as np

from tailsplit.core import SplitIndices
from tailsplit.errors import ConfigError
from tailsplit.splits.base import SplitInputs, Splitter, resolve_sizes
from tailsplit.splits.selection import (
    Units, check_label_quotas, codes, divide_evaluation, fill_quotas, length_bucket_codes,
    order_units, repair_atoms, strata_quotas,
)

RANKS = ("logprob_sum", "logprob_mean")


class LikelihoodSplitter(Splitter):
    """Lowest-scoring examples (by ``rank``) → evaluation, divided at random into dev and test.

    >>> inputs = SplitInputs(n=6, word_lengths=np.ones(6, int),
    ...                      logprob_sum=np.array([-1., -9, -2, -8, -3, -4]), n_tokens=np.ones(6, int))
    >>> LikelihoodSplitter(dev_size=1, test_size=1).split(inputs).eval_idx.tolist()
    [1, 3]
    """

    name = "likelihood"
    needs_scores = True

    def __init__(self, *, dev_size: float | int = 0.1, test_size: float | int = 0.1,
                 rank: str = "logprob_sum", reverse: bool = False,
                 length_buckets: int | str | None = None, balance_labels: bool = False,
                 atom_constraint: bool = False, seed: int = 0) -> None:
        self.dev_size = dev_size
        self.test_size = test_size
        self.rank = rank
        self.reverse = reverse
        self.length_buckets = length_buckets
        self.balance_labels = balance_labels
        self.atom_constraint = atom_constraint
        self.seed = seed
        validate_common(self)
        if rank not in RANKS:
            raise ConfigError(f"rank={rank!r} is unknown; use one of {list(RANKS)}")
        if length_buckets is not None and length_buckets != "exact" and not (
                isinstance(length_buckets, int) and not isinstance(length_buckets, bool)
                and length_buckets >= 1):
            raise ConfigError(f"length_buckets={length_buckets!r} is not a bucket count; "
                              "give a whole number ≥ 1 (quantile buckets) or 'exact'")

    def split(self, inputs: SplitInputs) -> SplitIndices:
        keys = self._rank_keys(inputs)
        return split_by_keys(self, inputs, keys, length_bucket_codes(inputs.word_lengths, self.length_buckets))

    def _rank_keys(self, inputs: SplitInputs) -> np.ndarray:
        if inputs.logprob_sum is None or inputs.n_tokens is None:
            raise ConfigError("splitter='likelihood' needs scores; score the dataset first "
                              "(tailsplit score) or use tailsplit run")
        keys = inputs.logprob_sum if self.rank == "logprob_sum" else (
            inputs.logprob_sum / np.maximum(inputs.n_tokens, 1))
        bad = np.flatnonzero(~np.isfinite(keys))
        if len(bad):
            raise ConfigError(f"scores are not finite for {len(bad)} example(s) (first at row "
                              f"{int(bad[0]) + 1}); rescore them or remove those rows")
        return -keys if self.reverse else keys


def split_by_keys(splitter: Splitter, inputs: SplitInputs, keys: np.ndarray,
                  buckets: np.ndarray | None = None) -> SplitIndices:
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


def validate_common(splitter: Splitter) -> None:
    """Checks shared by every splitter with dev/test sizes, labels and a seed."""
    if isinstance(splitter.seed, bool) or not isinstance(splitter.seed, (int, np.integer)):
        raise ConfigError(f"seed={splitter.seed!r} is not a whole number; pass e.g. seed=0")
    if splitter.seed < 0:
        raise ConfigError(f"seed={splitter.seed!r} is negative; pass a seed of 0 or more")


def label_codes_for(splitter: Splitter, inputs: SplitInputs, n_eval: int) -> np.ndarray | None:
    """Label codes when ``balance_labels`` is on (and checked to be feasible), else ``None``."""
    if not splitter.balance_labels:
        return None
    if inputs.labels is None:
        raise ConfigError("balance_labels=True needs labels; name the label field with --label")
    label_codes, names = codes(inputs.labels)
    check_label_quotas(label_codes, names, n_eval)
    return label_codes
