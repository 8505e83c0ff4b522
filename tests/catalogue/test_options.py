"""Hostile options: values out of range refused by every command, the Python calls refusing what the command line refuses, and a model name that never replaces a recorded identity."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import split_args, write_jsonl
from hostile import (
    ok,
    overlap_args,
    pairs,
    refused,
)


def test_model_name_does_not_replace_a_recorded_identity(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    ok(["score", str(data), "--text", "hypothesis", "--backend", "fake", "--out", str(tmp_path / "s.parquet")])
    refused([*split_args(data, tmp_path / "o"), "--splitter", "likelihood", "--scores", str(tmp_path / "s.parquet"),
             "--model-name", "other"], "records its model", "'fake:smollm2'")  # fmt: skip


@pytest.mark.parametrize(
    "option",
    [["--k", "0"], ["--k", "-1"], ["--threshold", "nan"], ["--k1", "-1"], ["--ngram-orders", "0"],
     ["--b", "2"], ["--top-quantile", "1.5"], ["--shards", "0"]],
)  # fmt: skip
def test_overlap_options_out_of_range_are_refused(tmp_path: Path, option: list[str]) -> None:
    refused([*overlap_args(tmp_path, "--out", str(tmp_path / "o")), *option], f"{option[0]}=", "; give")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "option",
    [["--permutations", "0"], ["--mmd-sample", "-5"], ["--max-examples", "0"], ["--batch-size", "0"]],
)
def test_similarity_options_out_of_range_are_refused(tmp_path: Path, option: list[str]) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    refused(["similarity", f"a={data}@hypothesis", f"b={data}@premise", *option],
            f"{option[0]}=", "must be")  # fmt: skip


def test_ood_rank_and_ngram_order_out_of_range_are_refused(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    refused(["ood-rank", "--id", f"a={data}@hypothesis", "--candidates", str(tmp_path / "c.csv"),
             "--id-accuracy", "nan"], "--id-accuracy=nan", "finite")  # fmt: skip
    refused(["run", str(data), "--text", "hypothesis", "--method", "ngram", "--ngram-order", "0",
             "--out", str(tmp_path / "o")], "--ngram-order=0")  # fmt: skip


def test_the_python_api_refuses_what_the_cli_refuses() -> None:
    from tailsplit.errors import ConfigError
    from tailsplit.model_selection import LikelihoodSplit, RandomSplit

    n = 40
    X = np.arange(n).reshape(-1, 1)
    cv = LikelihoodSplit(scores=-np.arange(1.0, n + 1), n_tokens=np.zeros(n, int), rank="logprob_mean")
    with pytest.raises(ConfigError, match="n_tokens is 0 at row 1"):
        next(cv.split(X))
    groups = [float("nan")] * 20 + list(range(20))
    with pytest.raises(ConfigError, match="groups is nan at row 0"):
        next(RandomSplit().split(X, groups=groups))
    from tailsplit.config import OverlapConfig

    with pytest.raises(ConfigError, match="^k=0 must be at least 1"):
        OverlapConfig(k=0)


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--end-token", "</s>"], "--end-token='</s>' has an effect only with --score-eos"),
        (["--method", "ngram", "--template", "snli", "--context", "premise"], "--template='snli' has an effect only"),
        (["--fold-seed", "3"], "--fold-seed=3 has an effect only with --method kfold or ngram"),
        (["--workers", "3"], "--workers=3 has an effect only with --engine ray"),
        (["--method", "ngram", "--finetune-steps", "5"], "--finetune-steps=5 has an effect only with --method kfold"),
    ],
)
def test_a_scoring_option_without_effect_is_refused(tmp_path: Path, extra: list[str], fragment: str) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    refused(["score", str(data), "--text", "hypothesis", "--backend", "fake", *extra, "--out",
             str(tmp_path / "s.parquet")], fragment)  # fmt: skip
    assert not (tmp_path / "s.parquet").exists()


def test_options_without_effect_in_evaluate_and_ood_rank_are_refused() -> None:
    from tailsplit.config import EvaluateConfig, OodRankConfig, check_values
    from tailsplit.errors import ConfigError

    with pytest.raises(ConfigError, match="zero_shot_template='x {label}' has an effect only with zero_shot=True"):
        check_values(EvaluateConfig(zero_shot_template="x {label}"))
    with pytest.raises(ConfigError, match="fairness_margin=0.05 has an effect only with an in-the-loop model"):
        check_values(EvaluateConfig(fairness_margin=0.05, baselines=["tfidf"]))
    check_values(EvaluateConfig(fairness_margin=0.05, baselines=["lm"]))
    with pytest.raises(ConfigError, match="min_drop=0.1 has an effect only when the accuracy drop is measured"):
        check_values(OodRankConfig(min_drop=0.1, skip_training=True))
    with pytest.raises(ConfigError, match="id_accuracy=1.5 must be between 0 and 1"):
        OodRankConfig(id_accuracy=1.5)


def test_an_empty_label_word_is_refused(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    refused(["score", str(data), "--text", "hypothesis", "--context", "premise", "--label", "label", "--backend",
             "fake", "--template", "snli", "--label-word", "neutral= ", "--out", str(tmp_path / "s.parquet")],
            "empty word")  # fmt: skip


@pytest.mark.model
def test_max_tokens_beyond_the_models_context_is_refused(tiny_llama: Path, tmp_path: Path) -> None:
    from tailsplit.errors import ConfigError
    from tailsplit.scoring.hf import HFScorer

    with pytest.raises(ConfigError, match="max.tokens=100000 is beyond the model's context of 512 tokens"):
        HFScorer(str(tiny_llama), cache_dir=tmp_path, max_tokens=100_000).context_limit()
    assert HFScorer(str(tiny_llama), cache_dir=tmp_path, max_tokens=100).context_limit() == 100
