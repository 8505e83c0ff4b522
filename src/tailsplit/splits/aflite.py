"""AFLite: adversarial filtering (Le Bras et al., ICML 2020, Algorithm 1), as a splitter.

The comparison the Likelihood Splits paper makes: instead of holding out what a language
model finds unlikely, hold out what simple classifiers cannot predict. On feature vectors
(sentence embeddings, computed by the pipeline with the bundled encoder or ``--encoder``):

1. ``partitions`` times (the paper's *m*), divide the remaining examples at random into a
   training share (``train_share``; the paper's *t*, as a share) and the rest, fit a linear
   classifier (logistic regression) on the first, predict the rest;
2. an example's *predictability* is the share of its held-out predictions that were correct;
3. remove from the remaining set (into train) the ``removals_per_round`` (*k*) most
   predictable examples whose predictability is at least ``predictability_threshold`` (*τ*);

and repeat until the remaining set is no larger than the evaluation set, fewer than *k*
examples reach the threshold (the paper's stopping rule), or ``rounds`` rounds have run. The examples left are the least predictable;
every example's key is the round it was removed in (later = harder; never removed = hardest),
then its last predictability, and the lowest keys fill the evaluation set with the same
sizes, label balance, groups and dev/test division as every other splitter. Groups move as a
whole in the partitions too, so an example is never predicted by a classifier trained on its
own group. Defaults: m = 64 and τ = 0.75, as the paper's WinoGrande filtering; a training
share of one half and k = 5% of the examples per round are tailsplit's (the paper sets t and k
per dataset).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from tailsplit.choices import LABEL_TOLERANCE
from tailsplit.core import SplitIndices
from tailsplit.errors import ConfigError, MissingDependencyError
from tailsplit.rng import AFLITE_PARTITIONS, seeded_rng
from tailsplit.splits.base import SplitInputs, Splitter, check_params, resolve_sizes
from tailsplit.splits.selection import Units, codes, split_by_keys


class AfliteSplitter(Splitter):
    """The least predictable examples (AFLite) → evaluation.

    >>> rng = np.random.default_rng(0)
    >>> labels = np.array(["a", "b"] * 40, dtype=object)
    >>> easy = (np.where(labels == "a", 1.0, -1.0) * np.r_[np.ones(60), np.zeros(20)]).reshape(-1, 1)
    >>> features = np.hstack([easy, rng.normal(size=(80, 3))])
    >>> inputs = SplitInputs(n=80, word_lengths=np.ones(80), labels=labels, features=features)
    >>> split = AfliteSplitter(dev_size=10, test_size=10, partitions=16).split(inputs)
    >>> int((split.eval_idx >= 60).sum())  # of the 20 held out, those whose features say nothing of the label
    17
    """

    name = "aflite"
    needs_features = True

    def __init__(
        self,
        *,
        dev_size: float | int = 0.1,
        test_size: float | int = 0.1,
        partitions: int = 64,
        train_share: float = 0.5,
        removals_per_round: float | int = 0.05,
        predictability_threshold: float = 0.75,
        rounds: int | None = None,
        balance_labels: bool = False,
        label_quota: str = "proportional",
        label_tolerance: float = LABEL_TOLERANCE,
        seed: int = 0,
    ) -> None:
        self.dev_size = dev_size
        self.test_size = test_size
        self.partitions = partitions
        self.train_share = train_share
        self.removals_per_round = removals_per_round
        self.predictability_threshold = predictability_threshold
        self.rounds = rounds
        self.balance_labels = balance_labels
        self.label_quota = label_quota
        self.label_tolerance = label_tolerance
        self.seed = seed
        check_params(self)

    def split(self, inputs: SplitInputs) -> SplitIndices:
        if inputs.features is None:
            raise ConfigError(
                "--splitter='aflite' needs feature vectors; tailsplit run and split compute sentence embeddings "
                "(--encoder), or pass features in SplitInputs"
            )
        if inputs.labels is None:
            raise ConfigError("--splitter='aflite' needs labels (its classifiers predict them); name them with --label")
        n_dev, n_test = resolve_sizes(inputs.n, self.dev_size, self.test_size)
        features = np.asarray(inputs.features, dtype=np.float64)
        keys, details = self.filter(features, inputs.labels, inputs.groups, n_dev + n_test)
        split = split_by_keys(self, inputs, keys)
        return dataclasses.replace(split, details={**split.details, **details})

    def filter(
        self, features: np.ndarray, labels: np.ndarray, groups: np.ndarray | None, target: int
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Per example: −2 × (rounds it survived) + its last predictability (lower = harder);
        and what the filter did (rounds, examples left, why it stopped) for the manifest."""
        try:
            from sklearn.linear_model import LogisticRegression
        except ImportError:
            raise MissingDependencyError("scikit-learn", "evaluate", "the aflite splitter") from None
        n = len(labels)
        label_codes, _ = codes(labels)
        units = Units.from_groups(groups, n)
        rng = seeded_rng(self.seed, AFLITE_PARTITIONS)
        k = self._removals(n)
        remaining = np.ones(n, dtype=bool)
        survived = np.zeros(n, dtype=np.int64)
        predictability = np.zeros(n, dtype=np.float64)
        done, stopped = 0, "the remaining examples fit the evaluation set"
        while remaining.sum() > target and (self.rounds is None or done < self.rounds):
            rows = np.flatnonzero(remaining)
            correct, counted = np.zeros(n), np.zeros(n)
            unit_ids = np.unique(units.of_row[rows])
            for _ in range(self.partitions):
                chosen = rng.permutation(unit_ids)[: max(1, int(round(self.train_share * len(unit_ids))))]
                in_train = np.isin(units.of_row[rows], chosen)
                train, held_out = rows[in_train], rows[~in_train]
                if len(held_out) == 0 or len(np.unique(label_codes[train])) < 2:
                    continue
                model = LogisticRegression(max_iter=500).fit(features[train], label_codes[train])
                correct[held_out] += model.predict(features[held_out]) == label_codes[held_out]
                counted[held_out] += 1
            seen = counted[rows] > 0
            predictability[rows[seen]] = correct[rows[seen]] / counted[rows[seen]]
            eligible = rows[seen & (predictability[rows] >= self.predictability_threshold)]
            if len(eligible) == 0:
                stopped = f"no example reached predictability {self.predictability_threshold}"
                break
            order = np.lexsort((rng.random(len(eligible)), -predictability[eligible]))
            wanted = min(k, int(remaining.sum()) - target)
            removed = eligible[order[:wanted]]
            remaining[removed] = False
            survived[remaining] += 1
            done += 1
            if len(removed) < wanted:  # fewer than k reached the threshold: the filter has converged
                stopped = f"fewer than {wanted} examples reached predictability {self.predictability_threshold}"
                break
        else:
            if self.rounds is not None and done >= self.rounds and remaining.sum() > target:
                stopped = f"rounds={self.rounds} reached"
        details = {"rounds": done, "filtered_out": int(n - remaining.sum()), "left": int(remaining.sum())}
        return -2.0 * survived + predictability, {**details, "stopped": stopped}

    def _removals(self, n: int) -> int:
        value = self.removals_per_round
        if isinstance(value, (int, np.integer)):
            return max(1, int(value))
        return max(1, int(round(float(value) * n)))
