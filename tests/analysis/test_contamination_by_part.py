"""Where a split meets contamination: the membership scores' means and a corpus index's
coverage of the evaluation set, each against random splits of the same sizes like every other
statistic of the analysis (a text without a score left out), read from a run in memory, from
the score file a split folder keeps, or from an infini-gram index (``analyze --infini-gram``)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import explore_folders, invoke, write_jsonl

from tailsplit import analyze
from tailsplit.analysis.split_analysis import AnalysisInputs, analyze_split
from tailsplit.analysis.split_dir import load_split_dir


def test_the_evaluation_sets_mean_score_is_tested_against_random_splits() -> None:
    rng = np.random.default_rng(0)
    n = 300
    seen = rng.normal(0, 1, n)  # a score the split follows (its tail in evaluation)...
    noise = rng.normal(0, 1, n)  # ... and one it does not
    noise[:7] = np.nan  # texts without a token: left out of the mean
    parts = np.full(n, "train", dtype=object)
    order = np.argsort(seen)
    parts[order[:30]], parts[order[30:60]] = "test", "dev"
    inputs = AnalysisInputs(
        "s", tuple(f"x{i}" for i in range(n)), tuple(f"text number {i}" for i in range(n)), parts,
        membership={"min_k": seen, "zlib": noise},
    )  # fmt: skip
    analysis = analyze_split(inputs, null_splits=500, seed=0, syntax=False)
    followed, unrelated = analysis.comparison("mean_membership_min_k"), analysis.comparison("mean_membership_zlib")
    assert followed is not None and unrelated is not None
    evaluation = parts != "train"
    assert np.isclose(followed.observed, np.mean(seen[evaluation]), atol=1e-6)  # sums in millionths: exact
    assert np.isclose(unrelated.observed, np.nanmean(noise[evaluation]), atol=1e-6)
    assert followed.differs and followed.observed < followed.null_values.min()
    assert not unrelated.differs
    assert followed.family == unrelated.family  # one Holm family with the report's other statistics


def test_a_split_folder_brings_its_score_files_membership_columns(tmp_path) -> None:
    folders = explore_folders(tmp_path)
    inputs = load_split_dir(folders["ll"])
    assert inputs.membership is not None and list(inputs.membership) == ["min_k"]
    analysis = analyze_split(inputs, null_splits=50, seed=0, syntax=False)
    comparison = analysis.comparison("mean_membership_min_k")
    assert comparison is not None
    assert np.isclose(comparison.observed, inputs.membership["min_k"][inputs.eval_mask].mean(), atol=1e-6)
    assert load_split_dir(folders["rnd"]).membership is None  # no score file, no membership


def test_the_evaluation_sets_coverage_by_an_index_is_tested_against_random_splits(tmp_path) -> None:
    pytest.importorskip("infini_gram", reason="the index extra (Linux x86-64 only)")
    folders = explore_folders(tmp_path)
    inputs = load_split_dir(folders["ll"])
    test_queries = [q for q, part in zip(inputs.queries, inputs.parts) if part == "test"]
    corpus = write_jsonl(tmp_path / "corpus.jsonl", [{"text": f"as it was said: {q}"} for q in test_queries])
    probe = write_jsonl(tmp_path / "probe.jsonl", [{"id": "p", "text": "nothing"}])
    built = invoke(["overlap", "--test", probe, "--corpus", corpus, "--infini-gram", tmp_path / "ig"])
    assert built.exit_code == 0, built.output
    result = analyze(folders["ll"], infini_gram=tmp_path / "ig", null_splits=1000)
    held = result.analysis.comparison("corpus_whole_share")
    assert held is not None and result.analysis.comparison("corpus_8gram_share") is not None
    evaluation = inputs.eval_mask
    assert held.observed == pytest.approx(sum(p == "test" for p in inputs.parts) / evaluation.sum())
    assert held.differs and held.observed > held.null_values.max()
    assert result.extra["corpus_index"]["tokenizer"] == "words"
    refused = invoke(["analyze", folders["ll"], "--infini-gram", tmp_path / "none"])
    assert refused.exit_code == 2 and "holds no index yet" in refused.output
    refused = invoke(["analyze", folders["ll"], "--index-tokenizer", "smollm2"])
    assert refused.exit_code == 2 and "only with --infini-gram" in refused.output
