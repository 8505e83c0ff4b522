"""Scores made elsewhere: a score column in the data, and the minimal score-file format."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app


def data(tmp_path: Path, n: int = 100, with_scores: bool = False) -> Path:
    rows = [
        {"id": f"e{i}", "text": f"sentence number {i} " + "word " * (i % 9), "label": "ab"[i % 2]}
        | ({"lp": -float((i * 37) % 101) - 0.5} if with_scores else {})
        for i in range(n)
    ]
    return write_jsonl(tmp_path / "d.jsonl", rows)


def split_args(path: Path, out: Path, *extra: str) -> list[str]:
    return ["split", str(path), "--text", "text", "--dev-size", "10", "--test-size", "10", "--null-splits", "5",
            "--no-syntax", "--out", str(out), *extra]  # fmt: skip


def test_score_column_splits_without_a_model(tmp_path: Path, fake_backend) -> None:
    path = data(tmp_path, with_scores=True)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, split_args(path, out, "--score-column", "lp", "--model-name", "vllm:llama-3-8b"))
    assert result.exit_code == 0, result.output
    assert fake_backend.calls == []
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["model"] == {"name": "vllm:llama-3-8b"} and manifest["method"] == "external"
    test_ids = {json.loads(line)["id"] for line in (out / "test.jsonl").read_text().splitlines()}
    dev_ids = {json.loads(line)["id"] for line in (out / "dev.jsonl").read_text().splitlines()}
    lp = {f"e{i}": -float((i * 37) % 101) - 0.5 for i in range(100)}
    assert test_ids | dev_ids == set(sorted(lp, key=lp.get)[:20])
    scores = pq.read_table(out / "scores.parquet").to_pydict()
    assert scores["n_tokens"][0] is None and scores["logprob_mean"][0] is None
    assert CliRunner().invoke(app, ["analyze", str(out), "--null-splits", "5", "--no-syntax"]).exit_code == 0


def test_score_column_with_a_bad_value_names_the_line(tmp_path: Path) -> None:
    path = data(tmp_path, with_scores=True)
    lines = path.read_text().splitlines()
    record = json.loads(lines[5])
    record["lp"] = "high"
    lines[5] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(app, split_args(path, tmp_path / "out", "--score-column", "lp"))
    assert result.exit_code == 2 and "row 6" in result.output and "'lp'" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
def test_minimal_score_file_from_elsewhere(tmp_path: Path, fmt: str) -> None:
    path = data(tmp_path)
    ids = [f"e{i}" for i in range(100)]
    lp = [-float((i * 37) % 101) - 0.5 for i in range(100)]
    scores = tmp_path / f"scores.{fmt}"
    if fmt == "parquet":
        pq.write_table(pa.table({"id": ids, "logprob_sum": lp}), scores)
    elif fmt == "csv":
        scores.write_text("id,logprob_sum\n" + "".join(f"{i},{v}\n" for i, v in zip(ids, lp)))
    else:
        write_jsonl(scores, [{"id": i, "logprob_sum": v} for i, v in zip(ids, lp)])
    out = tmp_path / "out"
    result = CliRunner().invoke(app, split_args(path, out, "--scores", str(scores), "--model-name", "api:model-x"))
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["model"] == {"name": "api:model-x"}
    eval_ids = {json.loads(x)["id"] for p in ("dev", "test") for x in (out / f"{p}.jsonl").read_text().splitlines()}
    assert eval_ids == {ids[i] for i in np.argsort(lp, kind="stable")[:20]}


def test_per_token_rank_needs_token_counts(tmp_path: Path) -> None:
    path = data(tmp_path, with_scores=True)
    result = CliRunner().invoke(app, split_args(path, tmp_path / "o", "--score-column", "lp", "--rank", "logprob_mean"))
    assert result.exit_code == 2 and "divides by token counts" in result.output


def test_score_file_problems_are_one_line(tmp_path: Path) -> None:
    path = data(tmp_path)
    scores = tmp_path / "s.parquet"
    pq.write_table(pa.table({"id": [f"e{i}" for i in range(100)], "score": [0.0] * 100}), scores)
    result = CliRunner().invoke(app, split_args(path, tmp_path / "o", "--scores", str(scores)))
    assert result.exit_code == 2 and "lacks columns ['logprob_sum']" in result.output and "optional" in result.output
    pq.write_table(pa.table({"id": [f"e{i}" for i in range(99)], "logprob_sum": [0.0] * 99}), scores)
    result = CliRunner().invoke(app, split_args(path, tmp_path / "o", "--scores", str(scores)))
    assert result.exit_code == 2 and "has no score for id 'e99'" in result.output
    both = CliRunner().invoke(app, split_args(path, tmp_path / "o", "--scores", str(scores), "--score-column", "x"))
    assert both.exit_code == 2 and "pass one" in both.output
    alone = CliRunner().invoke(app, split_args(path, tmp_path / "o", "--splitter", "random", "--model-name", "m"))
    assert alone.exit_code == 2 and "--model-name" in alone.output
