"""load → score → split → write, through the Python API and the CLI, with the fake scorer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import FIXTURES, ROOT_DIR, SAMPLE, FakeScorer, write_jsonl
from typer.testing import CliRunner

from tailsplit import pipeline
from tailsplit.cli import app
from tailsplit.config import DataConfig, RunConfig, load_config
from tailsplit.errors import ConfigError, InputError, OutputError

runner = CliRunner()


def snli_config(out: Path | None, paths: list[str] | None = None, **split: object) -> RunConfig:
    config = RunConfig()
    config.data = DataConfig(paths=paths or [str(SAMPLE)], text="hypothesis", context="premise", label="label")
    config.scoring.backend = "fake"
    config.scoring.template = "snli"
    config.split.balance_labels = True
    for key, value in split.items():
        setattr(config.split, key, value)
    config.output.out = None if out is None else str(out)
    config.output.analyze = False  # the analysis has its own tests
    return config


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_run_writes_every_example_once_with_scores_and_manifest(tmp_path: Path) -> None:
    result = pipeline.run(snli_config(tmp_path / "out"))
    out = tmp_path / "out"
    parts = {p: read_jsonl(out / f"{p}.jsonl") for p in ("train", "dev", "test")}
    assert [len(v) for v in parts.values()] == [2400, 300, 300]
    pairs = [(r["premise"], r["hypothesis"], r["label"]) for rows in parts.values() for r in rows]
    assert len(pairs) == 3000 and len(set(map(tuple, [r["id"] for rows in parts.values() for r in rows]))) == 3000
    first = parts["test"][0]
    assert {"premise", "hypothesis", "label", "logprob_sum", "n_tokens", "logprob_mean", "truncated", "id"} <= set(
        first
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["sizes"] == {"train": 2400, "dev": 300, "test": 300}
    assert manifest["model"] == {"name": "fake:smollm2"}
    assert manifest["template"]["name"] == "snli"
    assert manifest["inputs"][0]["rows"] == 3000 and len(manifest["inputs"][0]["sha256"]) == 64
    assert set(manifest["outputs"]) == {"train.jsonl", "dev.jsonl", "test.jsonl", "scores.parquet", "summary.md"}
    assert manifest["label_counts"]["test"] == {"contradiction": 99, "entailment": 101, "neutral": 100}
    summary = {s.part: s for s in result.summaries}
    assert summary["test"].mean_logprob_sum < summary["train"].mean_logprob_sum


def test_same_inputs_and_seed_give_identical_bytes(tmp_path: Path) -> None:
    pipeline.run(snli_config(tmp_path / "a"))
    pipeline.run(snli_config(tmp_path / "b"))
    for name in ("train.jsonl", "dev.jsonl", "test.jsonl", "scores.parquet", "summary.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    a, b = (json.loads((tmp_path / d / "manifest.json").read_text()) for d in "ab")
    for manifest in (a, b):
        manifest.pop("timings"), manifest.pop("scoring"), manifest["config"]["output"].pop("out")
    assert a == b


def test_scores_are_cached_across_runs(tmp_path: Path) -> None:
    first = pipeline.run(snli_config(None))
    unique = first.manifest["scoring"]["n_unique"]
    assert unique == 2999  # one pair (same premise, label and hypothesis) occurs twice: scored once
    assert sum(FakeScorer.calls) == unique
    FakeScorer.calls.clear()
    result = pipeline.run(snli_config(None))
    assert FakeScorer.calls == [] and result.manifest["scoring"]["n_cached"] == unique


def test_score_then_split_equals_run(tmp_path: Path) -> None:
    config = snli_config(tmp_path / "split")
    pipeline.score_data(config, out_path=tmp_path / "scores.parquet")
    pipeline.run(config, scores_path=tmp_path / "scores.parquet")
    pipeline.run(snli_config(tmp_path / "run"))
    for name in ("train.jsonl", "dev.jsonl", "test.jsonl", "scores.parquet"):
        assert (tmp_path / "split" / name).read_bytes() == (tmp_path / "run" / name).read_bytes()


def test_a_score_file_for_other_data_is_refused(tmp_path: Path) -> None:
    config = snli_config(None, paths=[str(FIXTURES / "pairs.jsonl")])
    pipeline.score_data(config, out_path=tmp_path / "scores.parquet")
    other = snli_config(None)
    with pytest.raises(InputError, match="has no score for id"):
        pipeline.run(other, scores_path=tmp_path / "scores.parquet")
    rows = read_jsonl(FIXTURES / "pairs.jsonl")
    rows[2]["hypothesis"] = "Something else entirely."
    changed = snli_config(None, paths=[str(write_jsonl(tmp_path / "changed.jsonl", rows))])
    with pytest.raises(InputError, match="scores a different text for id 'p3'"):
        pipeline.run(changed, scores_path=tmp_path / "scores.parquet")


def test_a_failed_write_leaves_no_partial_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tailsplit.pipeline.runs import result

    real = result.write_records
    written = []

    def failing(path, records, fmt, schema=None, added=None):  # noqa: ANN001
        if written:
            raise OSError("disk full")
        written.append(path)
        real(path, records, fmt, schema, added)

    monkeypatch.setattr(result, "write_records", failing)
    with pytest.raises(OutputError, match="disk full"):
        pipeline.run(snli_config(tmp_path / "out"))
    assert not (tmp_path / "out").exists()
    assert list(tmp_path.iterdir()) == [tmp_path / "cache"]


def test_existing_output_needs_overwrite(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    with pytest.raises(ConfigError, match="already exists and is not empty"):
        pipeline.run(snli_config(tmp_path / "out"))
    assert (tmp_path / "out" / "keep.txt").read_text() == "mine"


@pytest.mark.long
def test_output_keeps_the_input_format(tmp_path: Path) -> None:
    config = snli_config(
        tmp_path / "out", paths=[str(FIXTURES / "pairs.csv")], dev_size=1, test_size=1, balance_labels=False
    )
    config.output.analyze, config.output.null_splits = True, 20
    pipeline.run(config)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "analysis.json",
        "dev.csv",
        "figures",
        "manifest.json",
        "report.html",
        "report.md",
        "scores.parquet",
        "summary.md",
        "tables",
        "test.csv",
        "train.csv",
    ]


def test_pooled_inputs_get_a_source_column(tmp_path: Path) -> None:
    more = write_jsonl(tmp_path / "more.jsonl", [{"id": "x1", "premise": "P.", "hypothesis": "H.", "label": "neutral"}])
    config = snli_config(
        tmp_path / "out",
        paths=[str(FIXTURES / "pairs.jsonl"), str(more)],
        dev_size=1,
        test_size=1,
        balance_labels=False,
    )
    pipeline.run(config)
    rows = [r for p in ("train", "dev", "test") for r in read_jsonl(tmp_path / "out" / f"{p}.jsonl")]
    assert {r["source_file"] for r in rows} == {str(FIXTURES / "pairs.jsonl"), str(more)}


def test_a_field_named_like_a_score_column_is_refused(tmp_path: Path) -> None:
    rows = [{"q": f"question {i}", "n_tokens": 3} for i in range(10)]
    config = RunConfig()
    config.data = DataConfig(paths=[str(write_jsonl(tmp_path / "d.jsonl", rows))], text="q")
    config.scoring.backend = "fake"
    config.output.out = str(tmp_path / "out")
    with pytest.raises(InputError, match="field 'n_tokens' already exists"):
        pipeline.run(config)
    assert not (tmp_path / "out").exists()


def test_template_roles_must_be_mapped() -> None:
    config = snli_config(None)
    config.data.context = None
    with pytest.raises(ConfigError, match=r"uses \{context\}; name that field with context="):
        pipeline.run(config)


def test_options_that_do_not_apply_to_a_splitter_are_errors() -> None:
    with pytest.raises(ConfigError, match="reverse=True does not apply to splitter='random'"):
        pipeline.run(snli_config(None, splitter="random", reverse=True))


def test_random_split_needs_no_scorer(tmp_path: Path) -> None:
    result = pipeline.run(snli_config(tmp_path / "out", splitter="random", seed=3))
    assert FakeScorer.calls == [] and result.scores is None
    assert not (tmp_path / "out" / "scores.parquet").exists()


def test_recipe_paths_are_relative_to_the_recipe(tmp_path: Path) -> None:
    recipe = tmp_path / "r.toml"
    recipe.write_text('[data]\npaths = ["d.jsonl"]\ntext = "q"\n[output]\nout = "o"\n')
    config = load_config(recipe)
    assert config.data.paths == [str(tmp_path / "d.jsonl")] and config.output.out == str(tmp_path / "o")
    recipe.write_text("[data]\ntxt = 'q'\n")
    with pytest.raises(ConfigError, match=r"\[data\] has key 'txt'"):
        load_config(recipe)


# -- CLI ----------------------------------------------------------------------------------------


@pytest.mark.long
def test_cli_run_prints_a_summary_and_writes_outputs(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "run",
            str(SAMPLE),
            "--text",
            "hypothesis",
            "--context",
            "premise",
            "--label",
            "label",
            "--template",
            "snli",
            "--backend",
            "fake",
            "--balance-labels",
            "--dev-size",
            "0.1",
            "--test-size",
            "300",
            "--null-splits",
            "300",
            "--no-syntax",  # parsing 3,000 texts is most of a run; test_analysis tests the parse
            "--out",
            str(tmp_path / "o"),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "split summary" in result.output and "2400" in result.output
    assert "Evaluation examples longer than random splits: yes" in " ".join(result.output.split())
    assert json.loads((tmp_path / "o" / "manifest.json").read_text())["sizes"]["test"] == 300


@pytest.mark.long
def test_cli_score_and_split(tmp_path: Path) -> None:
    common = [str(FIXTURES / "pairs.jsonl"), "--text", "hypothesis"]
    scored = runner.invoke(
        app, ["score", *common, "--backend", "fake", "--out", str(tmp_path / "s.parquet"), "--quiet"]
    )
    assert scored.exit_code == 0, scored.output
    split = runner.invoke(
        app,
        [
            "split",
            *common,
            "--scores",
            str(tmp_path / "s.parquet"),
            "--dev-size",
            "1",
            "--test-size",
            "1",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert split.exit_code == 0, split.output
    assert len(read_jsonl(tmp_path / "o" / "test.jsonl")) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--text", "nope"], "field 'nope' is missing"),
        (["--text", "hypothesis", "--test-size", "lots"], "--test-size='lots' is not a number"),
        (["--text", "hypothesis", "--splitter", "tmcd-ish"], "splitter='tmcd-ish' is unknown"),
        (["--text", "hypothesis", "--template", "snli"], "uses {context}"),
    ],
)
def test_cli_errors_are_one_clear_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["run", str(FIXTURES / "pairs.jsonl"), "--backend", "fake", *args])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_cli_help_shows_worked_examples() -> None:
    for command in ("run", "score", "split"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0 and "Examples" in result.output


SPIDER = ROOT_DIR / "examples" / "data" / "spider_dev.jsonl.gz"


@pytest.mark.parametrize(
    "splitter, extra",
    [("tmcd", []), ("template", ["--atom-constraint"]), ("random", ["--atom-constraint"]), ("length", [])],
)
def test_cli_program_splits_write_program_metrics(tmp_path: Path, splitter: str, extra: list[str]) -> None:
    out = tmp_path / splitter
    result = runner.invoke(
        app,
        [
            "split",
            str(SPIDER),
            "--text",
            "question",
            "--program",
            "query",
            "--splitter",
            splitter,
            *extra,
            "--dev-size",
            "100",
            "--test-size",
            "100",
            "--no-analyze",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "programs, against train" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    metrics = {m["part"]: m for m in manifest["programs"]["metrics"]}
    assert [metrics[p]["size"] for p in ("train", "dev", "test")] == [834, 100, 100]
    if splitter != "length":
        assert metrics["dev"]["atoms_missing_from_train"] == metrics["test"]["atoms_missing_from_train"] == 0
    assert sum(metrics["train"]["hardness"].values()) == 834
    assert "Programs (divergence and novelty against train)" in (out / "summary.md").read_text()


def test_count_occurrences_is_recorded_and_changes_divergences(tmp_path: Path) -> None:
    divergences = {}
    for count in ("examples", "occurrences"):
        out = tmp_path / count
        result = runner.invoke(
            app,
            [
                "split",
                str(SPIDER),
                "--text",
                "question",
                "--program",
                "query",
                "--splitter",
                "random",
                "--atom-constraint",
                "--count",
                count,
                "--dev-size",
                "100",
                "--test-size",
                "100",
                "--no-analyze",
                "--out",
                str(out),
            ],
        )
        assert result.exit_code == 0, result.output
        assert ("counted by occurrence" in result.output) == (count == "occurrences")
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["programs"]["count"] == count
        test = manifest["programs"]["metrics"][2]
        divergences[count] = (test["atom_divergence"], test["compound_divergence"], test["novel_compound_share"])
        assert (out / "test.jsonl").read_bytes() == (tmp_path / "examples" / "test.jsonl").read_bytes()  # same split
    assert divergences["examples"][:2] != divergences["occurrences"][:2]
    assert divergences["examples"][2] == divergences["occurrences"][2]  # novelty is presence: unchanged


def test_cli_program_splitter_without_program_field_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["split", str(SPIDER), "--text", "question", "--splitter", "tmcd", "--out", str(tmp_path / "x")]
    )
    assert result.exit_code == 2
    assert "--program" in result.output and not (tmp_path / "x").exists()


def test_unparsable_program_names_file_row_and_field(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "q.jsonl",
        [
            {"question": "a?", "query": "SELECT a FROM t"},
            {"question": "b?", "query": "SELECT FROM WHERE"},
            {"question": "c?", "query": "SELECT c FROM t"},
        ],
    )
    result = runner.invoke(
        app,
        [
            "split",
            str(path),
            "--text",
            "question",
            "--program",
            "query",
            "--splitter",
            "random",
            "--dev-size",
            "1",
            "--test-size",
            "1",
            "--out",
            str(tmp_path / "x"),
        ],
    )
    assert result.exit_code == 2
    assert "q.jsonl: row 2: field 'query' is not SQL" in result.output
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("command", ["run", "score"])
def test_a_run_builds_one_scorer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    """The scorer checked before any work is the one that scores (one construction per run)."""
    built: list[object] = []
    real = FakeScorer.__init__

    def counted(self: FakeScorer, *args: object, **kwargs: object) -> None:
        built.append(self)
        real(self, *args, **kwargs)

    monkeypatch.setattr(FakeScorer, "__init__", counted)
    out = tmp_path / ("scores.parquet" if command == "score" else "split")
    args = [command, str(FIXTURES / "pairs.jsonl"), "--text", "hypothesis", "--backend", "fake", "--out", str(out)]
    if command == "run":
        args += ["--dev-size", "1", "--test-size", "1", "--no-analyze"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert len(built) == 1


def test_a_split_without_out_says_that_nothing_was_written(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from tailsplit.cli import app

    data = write_jsonl(tmp_path / "d.jsonl", [{"id": f"r{i}", "text": f"words {i} " * (i % 5 + 1)} for i in range(40)])
    result = CliRunner().invoke(app, ["split", str(data), "--text", "text", "--splitter", "random", "--no-analyze"])
    assert result.exit_code == 0, result.output
    assert "nothing was written (no --out): pass --out DIR" in result.output
    assert {p.name for p in tmp_path.iterdir()} <= {"d.jsonl", "cache"}  # nothing beside the input
