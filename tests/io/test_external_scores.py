"""Scores made elsewhere: a score column in the data, and the minimal score-file format."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import write_jsonl
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


@pytest.mark.long
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


@pytest.mark.long
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


def test_parquet_scores_match_by_arrow_as_the_python_path_does(tmp_path: Path) -> None:
    """Text ids are matched by Arrow's hashing, other ids in Python: the same scores in the
    data's order either way, shuffled or not; every mismatch is one located error."""
    from tailsplit.core import FieldMap
    from tailsplit.errors import InputError
    from tailsplit.io import load_examples
    from tailsplit.io.scores import read_score_file

    dataset = load_examples(data(tmp_path), FieldMap(text="text", id="id"))
    rng = np.random.default_rng(0)
    shuffled = rng.permutation(100)
    lp = -rng.gamma(2.0, 3.0, 100)
    counts = rng.integers(1, 20, 100)
    flags = rng.random(100) < 0.2
    scores = tmp_path / "s.parquet"

    def read(**columns: object) -> tuple:
        pq.write_table(pa.table(columns), scores)
        table, _ = read_score_file(scores, dataset)
        return table.logprob_sum.tolist(), table.n_tokens.tolist(), table.truncated.tolist()

    ids = np.array([f"e{i}" for i in shuffled])
    by_arrow = read(id=ids, logprob_sum=lp[shuffled], n_tokens=counts[shuffled], truncated=flags[shuffled])
    assert by_arrow == (lp.tolist(), counts.tolist(), flags.tolist())
    as_objects = pa.array([f"e{i}" for i in shuffled], pa.large_string())  # not Arrow's string type: Python path
    assert (
        read(id=as_objects, logprob_sum=lp[shuffled], n_tokens=counts[shuffled], truncated=flags[shuffled]) == by_arrow
    )
    with_nulls = pa.array([None if i == 5 else bool(f) for i, f in enumerate(flags[shuffled])])
    assert read(id=ids, logprob_sum=lp[shuffled], truncated=with_nulls)[2] == [
        bool(flags[i]) and i != shuffled[5] for i in range(100)
    ]

    problems = {
        "repeats id 'e7'": dict(id=[*ids[:99], "e7"], logprob_sum=lp),
        "has no score for id": dict(id=[*ids[:99], "x"], logprob_sum=lp),
        "scores for ids that are not in the data": dict(id=[*ids, "x"], logprob_sum=[*lp, 0.0]),
        "has nan for id": dict(id=ids, logprob_sum=[*lp[:50], float("nan"), *lp[51:]]),
        "has None for id": dict(id=ids, logprob_sum=pa.array([*lp[:3], None, *lp[4:]])),
    }
    for message, columns in problems.items():
        with pytest.raises(InputError, match=message):
            read(**columns)


def test_a_repeated_id_late_in_a_large_score_file_is_found_at_once(tmp_path: Path) -> None:
    from tailsplit.core import FieldMap
    from tailsplit.errors import InputError
    from tailsplit.io import load_examples
    from tailsplit.io.scores import read_score_file

    dataset = load_examples(data(tmp_path), FieldMap(text="text", id="id"))
    ids = [f"x{i}" for i in range(200_000)] + ["x199999"]  # quadratic search would take minutes
    pq.write_table(pa.table({"id": ids, "logprob_sum": [0.0] * len(ids)}), tmp_path / "s.parquet")
    with pytest.raises(InputError, match="repeats id 'x199999'"):
        read_score_file(tmp_path / "s.parquet", dataset)


def _sample(row: dict, responses: list[float], **extra: object) -> dict:
    """One line as lm-eval's --log_samples writes it (responses as strings, as lm-eval sanitises them)."""
    return {"doc_id": 0, "doc": row, "target": row["text"], "arguments": {}, "filter": "none",
            "resps": [[[str(r), "False"]] for r in responses],
            "filtered_resps": [[str(r), "False"] for r in responses]} | extra  # fmt: skip


def test_lm_eval_samples_are_a_score_file_and_their_problems_are_one_line(tmp_path: Path) -> None:
    """lm-eval's samples file, read as written (the real lm-eval run is in
    test_lm_eval_reproduction): one response per document, or the gold choice's."""
    path = data(tmp_path, n=40)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    one = write_jsonl(tmp_path / "samples_one.jsonl", [_sample(r, [-1.0 - i]) for i, r in enumerate(rows)])
    result = CliRunner().invoke(app, split_args(path, tmp_path / "one", "--scores", str(one), "--no-analyze"))
    assert result.exit_code == 0, result.output
    read = pq.read_table(tmp_path / "one" / "scores.parquet").to_pydict()
    assert dict(zip(read["id"], read["logprob_sum"])) == {r["id"]: -1.0 - i for i, r in enumerate(rows)}
    gold = write_jsonl(tmp_path / "samples_gold.jsonl",
                       [_sample(r, [-50.0, -2.0 - i], target=1) for i, r in enumerate(rows)])  # fmt: skip
    result = CliRunner().invoke(app, split_args(path, tmp_path / "gold", "--scores", str(gold), "--no-analyze"))
    assert result.exit_code == 0, result.output
    read = pq.read_table(tmp_path / "gold" / "scores.parquet").to_pydict()
    assert dict(zip(read["id"], read["logprob_sum"])) == {r["id"]: -2.0 - i for i, r in enumerate(rows)}

    other_text = dict(rows[3], text="not the data's text")
    cases = [
        ([*[_sample(r, [-1.0]) for r in rows[:5]], {"id": "e5", "logprob_sum": -1.0}], ":6: is not an lm-eval sample"),
        ([_sample(r, [-1.0, -2.0]) for r in rows], ":1: field 'resps' holds 2 responses (a multiple-choice task) "
                                                   "and no gold choice"),
        ([_sample({k: v for k, v in r.items() if k != "id"}, [-1.0]) for r in rows], "without the id field 'id'"),
        ([_sample(r, [-1.0]) if i != 3 else _sample(other_text, [-1.0]) for i, r in enumerate(rows)],
         "scores a different text for id 'e3'"),
        ([_sample(r, [-1.0]) if i != 7 else _sample(r, []) for i, r in enumerate(rows)], ":8: field 'resps' has no"),
    ]  # fmt: skip
    for n, (lines, said) in enumerate(cases):
        bad = write_jsonl(tmp_path / f"samples_bad{n}.jsonl", lines)
        result = CliRunner().invoke(app, split_args(path, tmp_path / f"bad{n}", "--scores", str(bad)))
        assert result.exit_code == 2 and said in result.output and len(result.output.strip().splitlines()) == 1, (
            n, result.output)  # fmt: skip
        assert not (tmp_path / f"bad{n}").exists()
