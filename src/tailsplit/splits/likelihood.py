"""Likelihood Split: the examples a language model finds least likely go to evaluation.

Godbole & Jia (2023). Options combine freely: ``reverse`` (most likely to evaluation, the
control split), ``rank`` by total or per-token log-likelihood, ``length_buckets`` (pick the
tail inside each word-length bucket so evaluation keeps train's length mix),
``balance_labels``, groups that are never cut, and for programs ``atom_constraint`` (every
evaluation atom also occurs in training).
"""

from __future__ import annotations

import numpy as np

from tailsplit.choices import LABEL_TOLERANCE
from tailsplit.core import SplitIndices
from tailsplit.errors import ConfigError
from tailsplit.splits.base import SplitInputs, Splitter, check_params
from tailsplit.splits.selection import length_bucket_codes, split_by_keys


class LikelihoodSplitter(Splitter):
    """Lowest-scoring examples (by ``rank``) → evaluation, divided at random into dev and test.

    >>> inputs = SplitInputs(n=6, word_lengths=np.ones(6, int),
    ...                      logprob_sum=np.array([-1., -9, -2, -8, -3, -4]), n_tokens=np.ones(6, int))
    >>> LikelihoodSplitter(dev_size=1, test_size=1).split(inputs).eval_idx.tolist()
    [1, 3]
    """

    name = "likelihood"
    needs_scores = True

    def __init__(
        self,
        *,
        dev_size: float | int = 0.1,
        test_size: float | int = 0.1,
        rank: str = "logprob_sum",
        reverse: bool = False,
        length_buckets: int | str | None = None,
        balance_labels: bool = False,
        label_quota: str = "proportional",
        label_tolerance: float = LABEL_TOLERANCE,
        atom_constraint: bool = False,
        seed: int = 0,
    ) -> None:
        self.dev_size = dev_size
        self.test_size = test_size
        self.rank = rank
        self.reverse = reverse
        self.length_buckets = length_buckets
        self.balance_labels = balance_labels
        self.label_quota = label_quota
        self.label_tolerance = label_tolerance
        self.atom_constraint = atom_constraint
        self.seed = seed
        check_params(self)

    def split(self, inputs: SplitInputs) -> SplitIndices:
        keys = self._rank_keys(inputs)
        return split_by_keys(self, inputs, keys, length_bucket_codes(inputs.word_lengths, self.length_buckets))

    def _rank_keys(self, inputs: SplitInputs) -> np.ndarray:
        if inputs.logprob_sum is None:
            raise ConfigError(
                "--splitter='likelihood' needs scores; score the dataset first (tailsplit score) or use tailsplit run"
            )
        if self.rank == "logprob_sum":
            keys = inputs.logprob_sum
        elif inputs.n_tokens is None:
            raise ConfigError(
                "--rank='logprob_mean' divides by token counts, and these scores have none (every n_tokens is 0 "
                "or missing: scores made elsewhere); give scores with each row's token count, or rank by logprob_sum"
            )
        else:
            uncounted = np.flatnonzero(np.asarray(inputs.n_tokens) < 1)
            if len(uncounted):
                raise ConfigError(
                    f"n_tokens is {int(inputs.n_tokens[uncounted[0]])} at row {int(uncounted[0]) + 1} "
                    f"({len(uncounted)} rows below 1); --rank='logprob_mean' divides logprob_sum by the "
                    "scored tokens, so give every row its count of 1 or more, or rank by logprob_sum"
                )
            keys = inputs.logprob_sum / inputs.n_tokens
        bad = np.flatnonzero(~np.isfinite(keys))
        if len(bad):
            raise ConfigError(
                f"scores are not finite for {len(bad)} example(s) (first at row "
                f"{int(bad[0]) + 1}); rescore them or remove those rows"
            )
        return -keys if self.reverse else keys
