"""evaluate: baselines on each split, the comparison table against random splits."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import pytest
from helpers import ROOT_DIR, write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.evaluation.table import SplitScore, table_rows

runner = CliRunner()
EXAMPLES = ROOT_DIR / "examples" / "data"


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
    assert [(r["baseline"], r["split"]) for r in report["table"]] == [
        ("tfidf", "random (3 seeds)"), ("tfidf", "length"), ("chance", "random (3 seeds)"), ("chance", "length"),
        ("majority", "random (3 seeds)"), ("majority", "length"),
    ]  # fmt: skip
    tfidf = [r for r in report["results"] if r["baseline"] == "tfidf"]
    assert all(r["sizes"] == [192, 24, 24] for r in report["results"]) and len(tfidf) == 4
    assert all(0.5 < r["test"] <= 1.0 for r in tfidf)  # the label word is always there
    assert all(r["test"] == 0.5 for r in report["results"] if r["baseline"] == "chance")  # two classes
    assert all(r["test"] == 0.5 for r in report["results"] if r["baseline"] == "majority")  # balanced labels
    samples = [json.loads(line) for line in (tmp_path / "eval" / "predictions.jsonl").read_text().splitlines()]
    assert len(samples) == 4 * 24 * 2  # tfidf and majority; chance is an expectation
    first = next(s for s in samples if s["baseline"] == "tfidf")
    assert set(first) == {"folder", "split", "baseline", "id", "gold", "predicted", "probability", "correct"}
    assert first["correct"] == (first["gold"] == first["predicted"]) and 0.5 <= first["probability"] <= 1
    by_folder = {}
    for sample in samples:
        if sample["baseline"] == "tfidf":
            by_folder.setdefault(sample["folder"], []).append(sample["correct"])
    assert {f: sum(v) / len(v) for f, v in by_folder.items()} == {
        Path(r["folder"]).name: pytest.approx(r["test"], abs=1e-4) for r in tfidf
    }
    length = report["table"][1]
    assert length["difference"] == pytest.approx(length["test"] - report["table"][0]["test"])
    table = list(csv.DictReader(io.StringIO((tmp_path / "eval" / "table.csv").read_text())))
    assert table[1]["split"] == "length" and float(table[1]["test (%)"]) == pytest.approx(100 * length["test"])
    assert float(table[1]["difference vs random (pp)"]) == pytest.approx(100 * length["difference"], abs=1e-4)
    page = (tmp_path / "eval" / "report.html").read_text()
    assert "<table>" in page and page.count("<svg") == 1 and "<script" not in page
    assert f"{100 * length['test']:.1f}" in page
    # what it found first, each conclusion with its test and interval, then the evidence
    assert "<h1>Evaluation of 4 splits with tfidf</h1>" in page
    order = [page.index(h) for h in ("<h1>", "<h2>Provenance", "<h2>Conclusions", "<h2>Scores", "<svg")]  # title first
    assert order == sorted(order)
    assert "tfidf: length (length) is harder than random" in page and "paired-bootstrap 95% interval" in page
    assert "the random reference is not leakage-inflated" in page
    text = (tmp_path / "eval" / "table.md").read_text()
    assert text.startswith("# Evaluation of 4 splits with tfidf") and text.index("## Conclusions") < text.index(
        "## Scores"
    )
    bad = runner.invoke(app, ["evaluate", folders[0], "--baseline", "bert"])
    assert bad.exit_code == 2 and "--baseline='bert' is not one of tfidf, tfidf-text, nn-sql" in bad.output


def accuracy_row(
    split: str, folder: str, test: float, *, std: float | None = None, ci: tuple | None = None, baseline: str = "tfidf"
) -> dict:
    """A row of the evaluation table, as the table gives it."""
    return {"baseline": baseline, "metric": "accuracy", "split": split, "folder": folder, "test": test,
            "test_std": std, "test_ci": ci}  # fmt: skip


def test_a_baseline_below_chance_is_flagged_by_a_stated_test_with_its_cause_and_fix() -> None:
    from scipy.stats import binom

    from tailsplit.evaluation.samples import below_chance_warnings

    rows = [
        accuracy_row("random (3 seeds)", "r0, r1, r2", 0.156, std=0.107),
        accuracy_row("likelihood", "ll", 0.30, ci=(0.2, 0.4)),
        accuracy_row("length", "small", 0.2),
        *[accuracy_row("s", f, 1 / 3, baseline="chance") for f in ("r0", "r1", "r2", "ll", "small")],
    ]
    sizes = {"r0": 100, "r1": 100, "r2": 100, "ll": 100, "small": 30}
    # 0.30 of 100 (p = 0.27) and 0.2 of 30 (p = 0.09) are noise; 47 of 300 pooled is not
    assert binom.cdf(6, 30, 1 / 3) > 0.05 and binom.cdf(30, 100, 1 / 3) > 0.05
    (warning,) = below_chance_warnings(rows, sizes)
    assert "15.6% ± 10.7 on random (3 seeds)" in warning and "below chance (33.3%; one-sided exact binomial" in warning
    assert "47 of 300 test answers correct" in warning and "Holm-adjusted over 3 model rows" in warning
    assert "--group premise" in warning
    aflite = {**rows[1], "split": "aflite", "folder": "af", "test": 0.2}
    (adversarial,) = below_chance_warnings([aflite, {**rows[3], "folder": "af"}], {"af": 300})
    assert "AFLite held out" in adversarial and "--group" not in adversarial and "60 of 300" in adversarial
    zero_shot = {**rows[1], "baseline": "lm-zero-shot", "folder": "z"}
    (untrained,) = below_chance_warnings([zero_shot, {**rows[3], "folder": "z"}], {"z": 1000})
    assert "zero-shot model does not do the task" in untrained and "learns in train" not in untrained
    assert below_chance_warnings([zero_shot, {**rows[3], "folder": "z"}], {"z": 30}) == []  # 9 of 30: noise


@pytest.mark.long
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


@pytest.mark.long
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
    table = json.loads((tmp_path / "eval" / "evaluation.json").read_text())["table"]
    row = next(r for r in table if r["folder"] == "length")  # predictions get the baselines' intervals
    assert row["test_ci"][0] <= row["test"] <= row["test_ci"][1] and row["difference_ci"] is not None
    short = write_jsonl(tmp_path / "short.jsonl", [{"id": "nope", "prediction": "x"}])
    bad = runner.invoke(app, ["evaluate", str(tmp_path / "random"), "--predictions", str(short)])
    assert bad.exit_code == 2 and "no prediction for test id" in bad.output


@pytest.mark.model
def test_zero_shot_lm_classifies_with_the_bundled_model(tmp_path: Path, bundled_model_cache: Path) -> None:
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
    assert set(rows) == {"lm-zero-shot", "tfidf-text", "chance", "majority"}
    accuracy = rows["lm-zero-shot"]["test"]
    samples = [json.loads(line) for line in (tmp_path / "eval" / "predictions.jsonl").read_text().splitlines()]
    zero_shot = [s for s in samples if s["baseline"] == "lm-zero-shot"]
    assert len(zero_shot) == 6 and sum(s["correct"] for s in zero_shot) / 6 == pytest.approx(accuracy, abs=1e-4)
    assert all(1 / 3 <= s["probability"] <= 1 for s in zero_shot)  # the most likely of three labels
    assert 0.0 <= accuracy <= 1.0 and abs(accuracy * 6 - round(accuracy * 6)) < 1e-3  # 6 test examples
    plain = runner.invoke(app, ["evaluate", str(tmp_path / "random"), "--zero-shot"])
    assert plain.exit_code == 2 and "the split's template 'plain' has none" in plain.output


def test_conclusions_state_what_the_intervals_show() -> None:
    from tailsplit.evaluation.conclusions import conclusions, conclusions_markdown

    def row(split: str, folder: str, difference: float | None, ci: tuple[float, float] | None) -> dict:
        return {"baseline": "encoder", "metric": "accuracy", "split": split, "folder": folder, "test": 0.7,
                "difference": difference, "difference_ci": ci}  # fmt: skip

    rows = [
        row("random (3 seeds)", "r0, r1, r2", None, None),
        row("likelihood (prompted)", "ll", -0.075, (-0.11, -0.04)),
        row("likelihood (prompted, length-controlled)", "len", -0.02, (-0.06, 0.02)),
        row("likelihood (prompted, reverse)", "rev", -0.022, (-0.05, 0.01)),
        row("likelihood (kfold)", "kf", 0.01, (0.0, 0.03)),
        {**row("likelihood (prompted)", "ll", -0.5, (-0.6, -0.4)), "baseline": "majority"},  # a reference: no claim
    ]
    found = conclusions(rows, {"ll": 1000, "len": 1000}, [], 0.05)
    assert [c.question for c in found] == [
        "likelihood (prompted) (ll) is harder than random",
        "likelihood (prompted, length-controlled) (len) is harder than random",
        "the reverse control holds: likelihood (prompted, reverse) (rev) is not harder than random",
        "likelihood (kfold) (kf) is harder than random",
        "the random reference is not leakage-inflated",  # stated whenever random splits are present
    ]
    assert [c.outcome for c in found] == ["demonstrated", "inconclusive", "demonstrated", "not demonstrated",
                                          "demonstrated"]  # fmt: skip
    assert "n = 1000 test examples" in found[0].evidence and "[-11.0, -4.0]" in found[0].evidence
    assert "includes 0" in found[1].evidence and "threshold (5%)" in found[-1].evidence
    assert found[1].evidence.startswith("harder here, but not beyond chance variation: difference -2.0 points")
    higher = conclusions([rows[0], row("likelihood (prompted)", "ll", 0.033, (-0.05, 0.11))], {}, [], 0.05)[0]
    assert higher.outcome == "inconclusive" and higher.evidence.startswith("not harder here: difference +3.3 points")
    harder_reverse = conclusions(
        [rows[0], row("likelihood (prompted, reverse)", "rev", -0.1, (-0.15, -0.05))], {}, [], 0.05
    )
    assert harder_reverse[0].outcome == "not demonstrated"
    leaky = conclusions(rows[:2], {}, ["warning: random split r0: 5.6% ... inflates ..."], 0.05)
    assert (
        leaky[-1].question == "the random reference is not leakage-inflated" and leaky[-1].outcome == "not demonstrated"
    )
    assert conclusions_markdown(found).startswith("## Conclusions")
    # every split that is not random gets its conclusion: AFLite, length, template, TMCD
    others = [row("aflite", "af", -0.092, (-0.184, -0.01)), row("length", "len", 0.01, (-0.02, 0.04)),
              row("template", "tpl", -0.3, (-0.35, -0.25)), row("tmcd", "tm", 0.02, (0.005, 0.04))]  # fmt: skip
    stated = {c.question: c.outcome for c in conclusions([rows[0], *others], {}, [], 0.05)}
    assert stated == {
        "aflite (af) is harder than random": "demonstrated",
        "length (len) is harder than random": "inconclusive",
        "template (tpl) is harder than random": "demonstrated",
        "tmcd (tm) is harder than random": "not demonstrated",
        "the random reference is not leakage-inflated": "demonstrated",
    }
    assert conclusions([row("likelihood (prompted)", "ll", None, None)], {}, [], 0.05) == []  # no random reference


def test_the_score_chart_shows_every_interval_whole_with_its_label_past_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import tailsplit.evaluation.report as report

    drawn = []
    monkeypatch.setattr(report, "render_figure", lambda fig, **_: drawn.append(fig))
    rows = [
        accuracy_row("random (3 seeds)", "r0, r1, r2", 0.475, std=0.014),
        accuracy_row("likelihood (prompted)", "ll", 0.90, ci=(0.85, 0.97)),
        accuracy_row("likelihood (prompted)", "ll-2", 0.42, ci=(0.35, 0.50)),
    ]
    report.scores_figure(rows, "tfidf")
    (ax,) = drawn[0].axes
    assert ax.get_xlim()[1] > 97  # the widest interval is not clipped
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert [label.replace("\n", " ") for label in labels] == [  # long names wrap: the chart keeps a column's width
        "random (3 seeds)",
        "likelihood (prompted) (ll)",
        "likelihood (prompted) (ll-2)",
    ]
    values = {t.get_text().strip(): t.get_position()[0] for t in ax.texts if t.get_text().startswith(" ")}
    assert values["90.0"] >= 97 and values["42.0"] >= 50  # each value written past its whisker
