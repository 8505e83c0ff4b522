"""Calibrated verdicts: a random split is flagged on some statistic at most 5% of the time.

Each report tests about 13 statistics against its random splits; its yes/no verdicts use
two-sided Monte Carlo p-values adjusted by Holm across them. Here 200 label-balanced random
splits of the bundled SNLI sample (300 + 300 evaluation pairs, as the demo), each analysed
against 500 random splits of its own, must be flagged on *any* statistic no more often than a
family-wise error of 5% allows (a binomial bound), while the demo's likelihood split is still
flagged on length, rare words, readability and likelihood.

``fixtures/snli_sample_demo_split.jsonl.gz`` holds, per row of the sample, the demo's part and
its scores (``make demo``: bundled SmolLM2, SNLI prompt, scorer ``hf-causal-lm/2``).
"""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from helpers import FIXTURES, SAMPLE

from tailsplit.analysis.leakage import duplicate_views
from tailsplit.analysis.split_analysis import AnalysisInputs, analyze_split
from tailsplit.analysis.text_counts import compute_text_counts

FIXTURE = FIXTURES / "snli_sample_demo_split.jsonl.gz"
RANDOM_SPLITS = 200


@pytest.fixture(scope="module")
def sample() -> dict:
    pytest.importorskip("wordfreq")
    return load_sample()


def load_sample() -> dict:
    """The bundled SNLI sample, the demo's parts and scores, and the sample's text counts."""
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as handle:
        demo = [json.loads(line) for line in handle]
    texts = tuple(r["hypothesis"] for r in records)
    contexts = tuple(r["premise"] for r in records)
    return {
        "ids": tuple(f"{i:06d}" for i in range(len(records))),
        "texts": texts,
        "labels": tuple(r["label"] for r in records),
        "contexts": contexts,
        "parts": np.array([d["part"] for d in demo]),
        "logprob_sum": np.array([d["logprob_sum"] for d in demo]),
        "n_tokens": np.array([d["n_tokens"] for d in demo]),
        "text": compute_text_counts(texts),
        "duplicates": duplicate_views(texts, contexts),  # the sample's, once
    }


def analyse(sample: dict, parts: np.ndarray, seed: int):
    inputs = AnalysisInputs(
        "s", sample["ids"], sample["texts"], parts, labels=sample["labels"], logprob_sum=sample["logprob_sum"],
        n_tokens=sample["n_tokens"], balance_labels=True, contexts=sample["contexts"],
    )  # fmt: skip
    return analyze_split(
        inputs, null_splits=500, seed=seed, text=sample["text"], syntax=False, duplicates=sample["duplicates"]
    )


def random_parts(labels: tuple[str, ...], demo_parts: np.ndarray, seed: int) -> np.ndarray:
    """A random split with the demo's part sizes in every label."""
    rng = np.random.default_rng(10_000 + seed)
    labels_array = np.asarray(labels)
    parts = np.full(len(labels), "train", dtype=object)
    for label in np.unique(labels_array):
        rows = rng.permutation(np.flatnonzero(labels_array == label))
        n_dev = int(np.sum((labels_array == label) & (demo_parts == "dev")))
        n_test = int(np.sum((labels_array == label) & (demo_parts == "test")))
        parts[rows[:n_dev]], parts[rows[n_dev : n_dev + n_test]] = "dev", "test"
    return parts.astype(str)


@pytest.mark.long
def test_random_splits_are_flagged_within_the_family_wise_error(sample: dict) -> None:
    from scipy.stats import binom

    flagged = []
    for seed in range(RANDOM_SPLITS):
        analysis = analyse(sample, random_parts(sample["labels"], sample["parts"], seed), seed)
        assert analysis.null[0].family >= 10  # the whole report is one family
        flagged.append(any(c.differs for c in analysis.null))
    bound = binom.ppf(0.999, RANDOM_SPLITS, 0.05)  # the count a 5% rate exceeds once in 1,000 runs
    assert sum(flagged) <= bound, (sum(flagged), bound)


def test_the_demo_likelihood_split_is_still_flagged(sample: dict) -> None:
    analysis = analyse(sample, sample["parts"], 0)
    alone = analyse({**sample, "duplicates": None}, sample["parts"], 0)  # its own duplicate keys
    assert [(c.name, c.observed, c.null_values.tolist()) for c in alone.null] == [
        (c.name, c.observed, c.null_values.tolist()) for c in analysis.null
    ]
    for name in ("mean_words", "rare_word_fraction", "fk_grade", "mean_logprob_sum"):
        assert analysis.comparison(name).differs, name
