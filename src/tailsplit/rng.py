"""Seeded random streams: one independent generator per purpose, so adding a random step never
shifts another. A stream is named here once; its number is part of every past output, so a
number is never reused or changed."""

from __future__ import annotations

import numpy as np

SPLIT_ORDER = 0  # random / template / TMCD unit order, length tie-breaks
DEV_TEST_DIVISION = 1  # dividing the evaluation set into dev and test
FOLDS = 2  # cross-fitting fold assignment
FINETUNE_HELDOUT = 3  # the held-out share of a fold's fine-tuning data
NULL_SPLITS = 7  # random splits of a null distribution
AUDIT_BOOTSTRAP = 11  # overlap audit accuracy intervals
SHIFT_SUBSAMPLE = 23  # --max-examples of a dataset in the shift commands
MMD_SAMPLE = 29  # per-dataset samples of the MMD matrix
BANDWIDTH_SAMPLE = 31  # rows for the median-distance bandwidth
MMD_PERMUTATIONS = 37  # permutation test of one MMD
AFLITE_PARTITIONS = 41  # AFLite's random training partitions and tie-breaks
OOD_BOOTSTRAP = 43  # ood-rank's accuracy and drop intervals
MEMBERSHIP_BOOTSTRAP = 47  # the membership scores' calibration intervals (--members, --non-members)


def seeded_rng(seed: int, stream: int) -> np.random.Generator:
    """The generator of ``stream`` under ``seed``.

    >>> int(seeded_rng(0, NULL_SPLITS).integers(100)) == int(seeded_rng(0, NULL_SPLITS).integers(100))
    True
    """
    return np.random.default_rng(np.random.SeedSequence([int(seed), int(stream)]))
