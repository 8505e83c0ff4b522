"""evaluate: baselines on each split, the comparison table against random splits."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import pytest
from conftest import write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.evaluate.table import SplitScore, table_rows

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "data"


def test_table_pools_random_seeds_and_computes_relative_error_increase() -> None:
    scores = [
        SplitScore(f"r{i}", "random (seed 0)", "tfidf", "accuracy", 0.8, acc)
        for i, acc in enumerate((0.80, 0.82, 0.78))
    ]
    scores.append(SplitScore("ll", "likelihood (prompted)", "tfidf", "accuracy", 0.7, 0.70))
    rows = table_rows(scores)
    assert rows[0]["split"] == "random (3 seeds)" and rows[0]["test"] == pytest.approx(0.80)
    assert rows[0]["test_std"] == pytest.approx(0.02)
    assert rows[1]["difference"] == pytest.approx(-0.10) and rows[1]["relative_error_increase"] == pytest.approx(0.5)


def _labelled_rows(n: int = 240) -> list[dict]:
    rng = random.Random(0)
    good, bad, filler = (
        ["great", "lovely", "superb"],
        ["awful", "poor", "dreadful"],
        "the a movie plot acting was very".split(),
    )
    rows = []
    for i in range(n):
        label = "pos" if i % 2 else "neg"
        words = [rng.choice(filler) for _ in range(rng.randint(2, 12))] + [rng.choice(good if label == "pos" else bad)]
        rng.shuffle(words)
        rows.append({"id": f"e{i}", "text": " ".join(words), "label": label})
    return rows


def test_evaluate_command_writes_the_table_for_every_split(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "reviews.jsonl", _labelled_rows())
    folders = []
    for name, extra in (
        ("random-0", ["--splitter", "random", "--seed", "0"]),
        ("random-1", ["--splitter", "random", "--seed", "1"]),
        ("random-2", ["--splitter", "random", "--seed", "2"]),
        ("length", ["--splitter", "length"]),
    ):
        result = runner.invoke(
            app,
            ["split", str(data), "--label", "label", "--balance-labels", "--no-analyze", "--out", str(tmp_path / name)]
            + extra,
        )
        assert result.exit_code == 0, result.output
        folders.append(str(tmp_path / name))
    result = runner.invoke(app, ["evaluate", *folders, "--out", str(tmp_path / "eval")])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "eval" / "evaluation.json").read_text())
    assert [r["split"] for r in report["table"]] == ["random (3 seeds)", "length"]
    assert all(r["sizes"] == [192, 24, 24] and r["baseline"] == "tfidf" for r in report["results"])
    assert all(0.5 < r["test"] <= 1.0 for r in report["results"])  # the label word is always there
    length = report["table"][1]
    assert length["difference"] == pytest.approx(length["test"] - report["table"][0]["test"])
    table = list(csv.DictReader(io.StringIO((tmp_path / "eval" / "table.csv").read_text())))
    assert table[1]["split"] == "length" and float(table[1]["test"]) == pytest.approx(length["test"])
    page = (tmp_path / "eval" / "report.html").read_text()
    assert "<table>" in page and page.count("<svg") == 1 and "<script" not in page
    assert f"{100 * length['test']:.1f}" in page
    bad = runner.invoke(app, ["evaluate", folders[0], "--baseline", "bert"])
    assert bad.exit_code == 2 and "baseline='bert' is not one of tfidf, tfidf-text, nn-sql" in bad.output


def test_nearest_neighbour_sql_cannot_copy_templates_held_out_by_a_template_split(tmp_path: Path) -> None:
    data = EXAMPLES / "spider_dev.jsonl.gz"
    common = ["--text", "question", "--program", "query", "--dev-size", "100", "--test-size", "100", "--no-analyze"]
    for name, extra in (("random", ["--splitter", "random"]), ("template", ["--splitter", "template"])):
        result = runner.invoke(app, ["split", str(data), *common, "--out", str(tmp_path / name), *extra])
        assert result.exit_code == 0, result.output
    result = runner.invoke(
        app, ["evaluate", str(tmp_path / "random"), str(tmp_path / "template"), "--out", str(tmp_path / "eval")]
    )
    assert result.exit_code == 0, result.output
    by_split = {r["split"]: r for r in json.loads((tmp_path / "eval" / "evaluation.json").read_text())["results"]}
    assert by_split["template"]["test_template_match"] == 0.0  # no test template occurs in train
    assert by_split["random (seed 0)"]["test_template_match"] > 0.2
    assert by_split["random (seed 0)"]["test"] > by_split["template"]["test"]


def test_predictions_mode_projects_accuracy_from_random_bucket_accuracies(tmp_path: Path) -> None:
    from tailsplit.programs.sql import SqlExtractor

    data = EXAMPLES / "spider_dev.jsonl.gz"
    common = ["--text", "question", "--program", "query", "--dev-size", "150", "--test-size", "150", "--no-analyze"]
    extractor, predictions = SqlExtractor(), []
    for name, extra in (
        ("random", ["--splitter", "random"]),
        ("length", ["--splitter", "length", "--length-of", "program"]),
    ):
        result = runner.invoke(app, ["split", str(data), *common, "--out", str(tmp_path / name), *extra])
        assert result.exit_code == 0, result.output
        rows = [json.loads(line) for line in (tmp_path / name / "test.jsonl").read_text().splitlines()]
        # a "model" right exactly on easy queries (spelled differently), wrong elsewhere
        preds = [
            {
                "id": r["id"],
                "prediction": " ".join(r["query"].replace("SELECT", "select").split())
                if extractor.parse(r["query"]).hardness == "easy"
                else "SELECT nothing FROM nowhere",
            }
            for r in rows
        ]
        predictions.append(write_jsonl(tmp_path / f"{name}-predictions.jsonl", preds))
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(tmp_path / "random"),
            str(tmp_path / "length"),
            "--predictions",
            str(predictions[0]),
            "--predictions",
            str(predictions[1]),
            "--out",
            str(tmp_path / "eval"),
        ],
    )
    assert result.exit_code == 0, result.output
    rows = {r["folder"]: r for r in json.loads((tmp_path / "eval" / "evaluation.json").read_text())["results"]}
    assert rows["random"]["buckets"]["easy"]["accuracy"] == 1.0 and rows["random"]["buckets"]["hard"]["accuracy"] == 0.0
    length = rows["length"]
    assert length["projected"] == pytest.approx(length["buckets"].get("easy", {"share": 0})["share"], abs=1e-4)
    assert length["test"] == pytest.approx(length["projected"])  # same rule in every bucket: no gap
    assert "projected" in (tmp_path / "eval" / "predictions.md").read_text()
    short = write_jsonl(tmp_path / "short.jsonl", [{"id": "nope", "prediction": "x"}])
    bad = runner.invoke(app, ["evaluate", str(tmp_path / "random"), "--predictions", str(short)])
    assert bad.exit_code == 2 and "no prediction for test id" in bad.output


def test_zero_shot_lm_classifies_with_the_bundled_model(tmp_path: Path) -> None:
    import gzip

    with gzip.open(EXAMPLES / "snli_dev_3000.jsonl.gz", "rt") as f:
        rows = [json.loads(line) for line, _ in zip(f, range(60))]
    data = write_jsonl(tmp_path / "snli.jsonl", rows)
    split = runner.invoke(
        app,
        [
            "split",
            str(data),
            "--text",
            "hypothesis",
            "--context",
            "premise",
            "--label",
            "label",
            "--splitter",
            "random",
            "--no-analyze",
            "--out",
            str(tmp_path / "random"),
        ],
    )
    assert split.exit_code == 0, split.output
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(tmp_path / "random"),
            "--zero-shot",
            "--zero-shot-template",
            "snli",
            "--baseline",
            "tfidf-text",
            "--out",
            str(tmp_path / "eval"),
        ],
    )
    assert result.exit_code == 0, result.output
    rows = {r["baseline"]: r for r in json.loads((tmp_path / "eval" / "evaluation.json").read_text())["results"]}
    assert set(rows) == {"lm-zero-shot", "tfidf-text"}
    accuracy = rows["lm-zero-shot"]["test"]
    assert 0.0 <= accuracy <= 1.0 and abs(accuracy * 6 - round(accuracy * 6)) < 1e-3  # 6 test examples
    plain = runner.invoke(app, ["evaluate", str(tmp_path / "random"), "--zero-shot"])
    assert plain.exit_code == 2 and "template='plain' has none" in plain.output
