"""Splitter behaviour and invariants, on columns only (no scorer, no torch)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import check_split
from hypothesis import given, settings
from hypothesis import strategies as st

from tailsplit.errors import ConfigError
from tailsplit.splits import LikelihoodSplitter, RandomSplitter, SplitInputs, make_splitter


def inputs(n: int, seed: int = 0, n_labels: int = 3, group_size: int | None = None) -> SplitInputs:
    rng = np.random.default_rng(seed)
    return SplitInputs(
        n=n,
        word_lengths=rng.integers(3, 30, n),
        logprob_sum=-rng.gamma(5.0, 8.0, n),
        n_tokens=rng.integers(3, 40, n),
        labels=np.array([f"l{i}" for i in rng.integers(0, n_labels, n)], dtype=object),
        groups=None if group_size is None else np.array([f"g{i // group_size}" for i in range(n)], dtype=object),
    )


SPLITTERS = [
    LikelihoodSplitter(),
    LikelihoodSplitter(reverse=True),
    LikelihoodSplitter(rank="logprob_mean"),
    LikelihoodSplitter(length_buckets=5),
    LikelihoodSplitter(length_buckets="exact"),
    LikelihoodSplitter(balance_labels=True),
    LikelihoodSplitter(balance_labels=True, length_buckets=4),
    RandomSplitter(),
    RandomSplitter(balance_labels=True),
]


@pytest.mark.parametrize("splitter", SPLITTERS, ids=repr)
def test_every_splitter_covers_each_row_once_with_exact_sizes(splitter) -> None:
    split = splitter.split(inputs(1000))
    check_split(split, 1000, n_dev=100, n_test=100)


@pytest.mark.parametrize("splitter", SPLITTERS, ids=repr)
def test_every_splitter_is_deterministic(splitter) -> None:
    a, b = splitter.split(inputs(500, seed=3)), splitter.split(inputs(500, seed=3))
    for x, y in zip(a.parts().values(), b.parts().values()):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("splitter", SPLITTERS, ids=repr)
def test_every_splitter_keeps_groups_whole(splitter) -> None:
    data = inputs(600, group_size=3)
    split = splitter.split(data)
    check_split(split, 600)
    part_of = split.assignment(600)
    for g in np.unique(data.groups):
        assert len(set(part_of[data.groups == g])) == 1
    n_eval = len(split.dev_idx) + len(split.test_idx)
    assert 120 - 3 < n_eval <= 120


def test_likelihood_puts_lowest_scores_in_evaluation() -> None:
    data = inputs(1000)
    split = LikelihoodSplitter(dev_size=0.1, test_size=0.1).split(data)
    threshold = np.sort(data.logprob_sum)[199]
    assert np.all(data.logprob_sum[split.eval_idx] <= threshold)
    assert np.all(data.logprob_sum[split.train_idx] >= threshold)


def test_reverse_puts_highest_scores_in_evaluation() -> None:
    data = inputs(1000)
    split = LikelihoodSplitter(reverse=True).split(data)
    assert data.logprob_sum[split.eval_idx].min() >= data.logprob_sum[split.train_idx].max()


def test_rank_by_mean_uses_per_token_scores() -> None:
    data = SplitInputs(
        n=4,
        word_lengths=np.ones(4, int),
        logprob_sum=np.array([-10.0, -9.0, -2.0, -1.0]),
        n_tokens=np.array([10, 1, 1, 1]),
    )
    assert LikelihoodSplitter(dev_size=0, test_size=1).split(data).test_idx.tolist() == [0]
    assert LikelihoodSplitter(dev_size=0, test_size=1, rank="logprob_mean").split(data).test_idx.tolist() == [1]
    assert LikelihoodSplitter(dev_size=0, test_size=2, rank="logprob_mean").split(data).test_idx.tolist() == [1, 2]


def test_label_balance_matches_label_proportions_in_every_part() -> None:
    data = inputs(3000)
    split = LikelihoodSplitter(balance_labels=True).split(data)
    overall = Counter(data.labels)
    for idx in (split.dev_idx, split.test_idx):
        counts = Counter(data.labels[idx])
        for label, total in overall.items():
            assert abs(counts[label] - total * len(idx) / 3000) < 1.0 + 1e-9


def test_length_buckets_keep_the_length_mix_of_the_data() -> None:
    rng = np.random.default_rng(0)
    lengths = rng.integers(2, 40, 4000)
    data = SplitInputs(
        n=4000, word_lengths=lengths, logprob_sum=-3.0 * lengths + rng.normal(0, 2, 4000), n_tokens=lengths
    )
    plain = LikelihoodSplitter().split(data)
    controlled = LikelihoodSplitter(length_buckets="exact").split(data)
    assert lengths[plain.eval_idx].mean() > lengths.mean() + 10  # long examples flood a plain split
    assert abs(lengths[controlled.eval_idx].mean() - lengths.mean()) < 0.5


def test_ties_are_broken_by_row_order() -> None:
    data = SplitInputs(n=6, word_lengths=np.ones(6, int), logprob_sum=np.full(6, -5.0), n_tokens=np.ones(6, int))
    split = LikelihoodSplitter(dev_size=1, test_size=1).split(data)
    assert split.eval_idx.tolist() == [0, 1]


def test_dev_test_division_depends_on_seed_only() -> None:
    data = inputs(1000)
    a = LikelihoodSplitter(seed=0).split(data)
    b = LikelihoodSplitter(seed=1).split(data)
    assert np.array_equal(a.eval_idx, b.eval_idx)
    assert not np.array_equal(a.test_idx, b.test_idx)


def test_random_splits_differ_by_seed() -> None:
    a, b = RandomSplitter(seed=0).split(inputs(500)), RandomSplitter(seed=1).split(inputs(500))
    assert not np.array_equal(a.eval_idx, b.eval_idx)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rank": "ppl"}, "rank='ppl' is unknown"),
        ({"length_buckets": 0}, "length_buckets=0"),
        ({"length_buckets": "some"}, "length_buckets='some'"),
        ({"seed": 1.5}, "seed=1.5"),
    ],
)
def test_bad_likelihood_parameters_are_named(kwargs, message) -> None:
    with pytest.raises(ConfigError, match=message):
        LikelihoodSplitter(**kwargs)


def test_sizes_that_do_not_fit_are_refused() -> None:
    with pytest.raises(ConfigError, match="only 10"):
        RandomSplitter(dev_size=5, test_size=5).split(inputs(10))
    with pytest.raises(ConfigError, match="test_size=1.5"):
        RandomSplitter(test_size=1.5).split(inputs(10))


def test_balance_needs_labels_and_enough_examples_per_label() -> None:
    with pytest.raises(ConfigError, match="needs labels"):
        RandomSplitter(balance_labels=True).split(SplitInputs(n=10, word_lengths=np.ones(10)))
    labels = np.array(["a"] * 18 + ["rare"] * 2, dtype=object)
    with pytest.raises(ConfigError, match="label 'rare' has only 2"):
        RandomSplitter(balance_labels=True, dev_size=0.5, test_size=0.45).split(
            SplitInputs(n=20, word_lengths=np.ones(20), labels=labels)
        )


def test_likelihood_refuses_missing_or_non_finite_scores() -> None:
    with pytest.raises(ConfigError, match="needs scores"):
        LikelihoodSplitter().split(SplitInputs(n=10, word_lengths=np.ones(10)))
    scores = np.full(10, -1.0)
    scores[4] = np.nan
    with pytest.raises(ConfigError, match="row 5"):
        LikelihoodSplitter().split(
            SplitInputs(n=10, word_lengths=np.ones(10), logprob_sum=scores, n_tokens=np.ones(10, int))
        )


def test_registry_lists_splitters_on_unknown_name() -> None:
    with pytest.raises(
        ConfigError, match=r"use one of \['aflite', 'length', 'likelihood', 'random', 'template', 'tmcd'\]"
    ):
        make_splitter("tmcd-ish")


def test_repr_shows_the_configuration() -> None:
    assert (
        repr(RandomSplitter(seed=4))
        == "RandomSplitter(dev_size=0.1, test_size=0.1, balance_labels=False, label_quota='proportional', label_tolerance=0.02, atom_constraint=False, seed=4)"
    )


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(3, 300),
    dev=st.floats(0, 0.45),
    test=st.floats(0.01, 0.45),
    seed=st.integers(0, 2**31),
    n_labels=st.integers(1, 4),
    group=st.sampled_from([None, 1, 2, 5]),
    buckets=st.sampled_from([None, 3, "exact"]),
    balance=st.booleans(),
    reverse=st.booleans(),
)
def test_property_likelihood_split_is_a_partition(
    n, dev, test, seed, n_labels, group, buckets, balance, reverse
) -> None:
    data = inputs(n, seed=seed % 1000, n_labels=n_labels, group_size=group)
    splitter = LikelihoodSplitter(
        dev_size=dev, test_size=test, seed=seed, length_buckets=buckets, balance_labels=balance, reverse=reverse
    )
    asked = int(np.floor(dev * n + 0.5)) + int(np.floor(test * n + 0.5))
    try:
        split = splitter.split(data)
    except ConfigError as exc:  # only these inputs may be refused (never half-done):
        message = str(exc)
        assert (
            (asked == 0 and "leave no evaluation examples" in message)
            or (asked >= n and "so that training keeps at least one" in message)
            or (balance and message.startswith("balance_labels=True: label"))
            or (group not in (None, 1) and "cannot be divided" in message)
            # whole groups that cannot meet the label quotas within --label-tolerance: refused, named
            or (balance and group not in (None, 1) and message.startswith("balance_labels=True with whole groups:"))
        ), message
        return
    n_dev, n_test = round(dev * n + 1e-9), round(test * n + 1e-9)
    check_split(split, n)
    if group in (None, 1):
        assert len(split.dev_idx) + len(split.test_idx) == int(np.floor(dev * n + 0.5)) + int(np.floor(test * n + 0.5))
    again = splitter.split(data)
    assert all(np.array_equal(x, y) for x, y in zip(split.parts().values(), again.parts().values()))
    if balance and group in (None, 1):
        overall = Counter(data.labels)
        counts = Counter(data.labels[split.eval_idx])
        n_eval = len(split.eval_idx)
        for label, total in overall.items():
            assert abs(counts[label] - total * n_eval / n) < 1.0 + 1e-9
    del n_dev, n_test


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 10_000), value=st.one_of(st.floats(0, 0.999), st.integers(0, 10_000)))
def test_property_size_resolution(n, value) -> None:
    from tailsplit.splits import resolve_size

    count = resolve_size(value, n, "test_size")
    if isinstance(value, int):
        assert count == value
    else:
        assert abs(count - value * n) <= 0.5


def test_aflite_from_the_command_line_embeds_filters_and_records_its_settings(tmp_path) -> None:
    import json

    from helpers import write_jsonl
    from typer.testing import CliRunner

    from tailsplit.cli import app

    pytest.importorskip("sentence_transformers")
    pytest.importorskip("sklearn")
    runner = CliRunner()
    import gzip

    from helpers import SAMPLE

    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for _, line in zip(range(150), handle)]
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    common = ["split", str(data), "--text", "hypothesis", "--context", "premise", "--no-analyze"]
    args = [*common, "--label", "label", "--splitter", "aflite", "--partitions", "8", "--removals-per-round", "15",
            "--balance-labels", "--dev-size", "15", "--test-size", "15"]  # fmt: skip
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["splitter"]["name"] == "aflite" and manifest["splitter"]["params"]["partitions"] == 8
    assert manifest["splitter"]["params"]["predictability_threshold"] == 0.75
    details = manifest["splitter"]["details"]
    assert details["rounds"] >= 1 and details["filtered_out"] + details["left"] == 150 and details["stopped"]
    from tailsplit.shift.encoder import EncoderSource

    bundled = EncoderSource.resolve(None)  # the encoder's weights hash, so evaluate can tell it is the same
    assert details["encoder"] == "all-MiniLM-L6-v2" and details["encoder_sha256"] == bundled.identity
    split = manifest["config"]["split"]
    assert split["splitter"] == "aflite" and split["partitions"] == 8 and split["removals_per_round"] == 15
    assert manifest["sizes"] == {"train": 120, "dev": 15, "test": 15}
    again = runner.invoke(app, [*args, "--out", str(tmp_path / "b")])
    assert (
        again.exit_code == 0
        and (tmp_path / "a" / "test.jsonl").read_bytes() == (tmp_path / "b" / "test.jsonl").read_bytes()
    )
    # refused before any encoder loads
    no_labels = runner.invoke(app, [*common, "--splitter", "aflite", "--out", str(tmp_path / "c")])
    assert no_labels.exit_code == 2 and "needs labels" in no_labels.output
    misplaced = runner.invoke(app, [*common, "--splitter", "random", "--encoder", "x", "--out", str(tmp_path / "d")])
    assert misplaced.exit_code == 2 and "only aflite uses an encoder" in misplaced.output
    bad = runner.invoke(app, [*args, "--partitions", "0", "--out", str(tmp_path / "e")])
    assert bad.exit_code == 2 and "--partitions=0" in bad.output
