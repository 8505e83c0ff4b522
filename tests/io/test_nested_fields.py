"""Dotted field paths (``example.premise``) wherever a field is named: options, templates, analysis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.fields import field_value, has_field
from tailsplit.prompts import resolve_template


def chaos_rows(n: int = 60) -> list[dict]:
    labels = ["e", "n", "c"]
    return [
        {
            "uid": f"u{i}",
            "example": {"premise": f"A person number {i} walks.", "hypothesis": f"Someone {'x ' * (i % 7)}walks {i}."},
            "label": labels[i % 3],
        }
        for i in range(n)
    ]


def test_field_value_reads_keys_then_paths() -> None:
    record = {"a": {"b": {"c": 1}}, "x.y": 2, "x": {"y": 3}}
    assert field_value(record, "a.b.c") == 1
    assert field_value(record, "x.y") == 2
    assert not has_field(record, "a.c")
    assert field_value(record, "a.c", None) is None
    with pytest.raises(KeyError):
        field_value(record, "a.b.c.d")


def test_template_fills_dotted_placeholders() -> None:
    template = resolve_template("Premise: {example.premise} Hypothesis: {text}")
    prompt, query = template.render(chaos_rows(1)[0], text="q", context=None, label=None)
    assert prompt == "Premise: A person number 0 walks. Hypothesis: "


@pytest.mark.long
def test_cli_splits_and_analyses_nested_records(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "chaos.jsonl", chaos_rows())
    out = tmp_path / "split"
    result = CliRunner().invoke(
        app,
        [
            "run", str(data), "--text", "example.hypothesis", "--context", "example.premise", "--label", "label",
            "--id", "uid", "--backend", "fake", "--template", "P: {example.premise} H: {text}",
            "--dev-size", "6", "--test-size", "6", "--null-splits", "5", "--no-syntax", "--out", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    test_rows = [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]
    assert len(test_rows) == 6 and all("premise" in r["example"] for r in test_rows)  # records keep their nesting
    assert json.loads((out / "analysis.json").read_text())
    rerun = CliRunner().invoke(app, ["analyze", str(out), "--null-splits", "5", "--no-syntax"])
    assert rerun.exit_code == 0, rerun.output


def test_template_field_missing_in_a_record_is_refused_before_scoring(tmp_path: Path, fake_backend) -> None:
    rows = chaos_rows()
    del rows[7]["example"]["premise"]
    data = write_jsonl(tmp_path / "chaos.jsonl", rows)
    result = CliRunner().invoke(
        app,
        [
            "run", str(data), "--text", "example.hypothesis", "--id", "uid", "--backend", "fake",
            "--template", "P: {example.premise} H: {text}", "--dev-size", "6", "--test-size", "6",
            "--out", str(tmp_path / "out"),
        ],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "row 8" in result.output and "example.premise" in result.output
    assert fake_backend.calls == [] and not (tmp_path / "out").exists()


def test_missing_nested_text_names_the_line(tmp_path: Path) -> None:
    rows = chaos_rows()
    del rows[3]["example"]["hypothesis"]
    data = write_jsonl(tmp_path / "chaos.jsonl", rows)
    result = CliRunner().invoke(app, ["split", str(data), "--text", "example.hypothesis", "--splitter", "random",
                                      "--id", "uid", "--out", str(tmp_path / "o")])  # fmt: skip
    assert result.exit_code == 2
    assert "chaos.jsonl:4" in result.output and "example.hypothesis" in result.output
