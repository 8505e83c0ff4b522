"""What tailsplit promises about data: files read exactly, outputs complete or absent, only
its own folders replaced, caches that never serve damaged numbers."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import NLI_LABELS, nli_pairs, write_jsonl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.errors import InputError
from tailsplit.io.readers import read_records

runner = CliRunner()
LABELS = NLI_LABELS
pairs = nli_pairs


def invoke(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.output


# -- reading exactly ------------------------------------------------------------------------


def test_tsv_keeps_quotes_as_text(tmp_path: Path) -> None:
    path = tmp_path / "q.tsv"
    path.write_text('id\thypothesis\n1\t"Hello" he said\n2\t"unclosed\n3\tplain\n', encoding="utf-8")
    texts = [r.record["hypothesis"] for r in read_records(path)]
    assert texts == ['"Hello" he said', '"unclosed', "plain"]


def test_csv_accepts_quoted_line_breaks_and_refuses_a_stray_quote(tmp_path: Path) -> None:
    good = tmp_path / "good.csv"
    good.write_text('id,text\n1,"two\nlines"\n2,"say ""hi"""\n', encoding="utf-8")
    assert [(r.record["text"], r.line) for r in read_records(good)] == [("two\nlines", 2), ('say "hi"', 4)]
    bad = tmp_path / "bad.csv"
    bad.write_text('id,text\n1,fine\n2,"open\n3,later\n4,"x",\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.csv:3: .*quoted field"):
        list(read_records(bad))


def test_jsonl_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"text": "a"}\n{"text": "b"}\n')
    assert [r.record["text"] for r in read_records(path)] == ["a", "b"]


cell = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
tsv_cell = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\t\n\r"), max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(cell, cell), min_size=1, max_size=8))
def test_csv_written_by_tailsplit_reads_back_exactly(rows: list[tuple[str, str]]) -> None:
    from tailsplit.io.writers import write_records

    path = Path(os.environ["HYPOTHESIS_TMP"]) / "p.csv"
    write_records(path, [{"a": a, "b": b} for a, b in rows], "csv")
    got = [(r.record["a"], r.record["b"]) for r in read_records(path)]
    assert got == rows


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(tsv_cell, tsv_cell), min_size=1, max_size=8))
def test_tsv_reads_back_every_field_literally(rows: list[tuple[str, str]]) -> None:
    path = Path(os.environ["HYPOTHESIS_TMP"]) / "p.tsv"
    path.write_text("a\tb\n" + "".join(f"{a}\t{b}\n" for a, b in rows), encoding="utf-8", newline="")
    got = [(r.record["a"], r.record["b"]) for r in read_records(path)]
    assert got == rows


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(cell, cell), min_size=1, max_size=6),
    st.sampled_from(["csv", "tsv", "jsonl"]),
    st.lists(
        st.tuples(st.integers(0, 10_000), st.sampled_from(['"', "\n", ",", "\t", "{", "}", "\\", "\r"])),
        min_size=1,
        max_size=3,
    ),
)
def test_damaged_files_are_read_exactly_or_refused_with_a_location(
    rows: list[tuple[str, str]], fmt: str, damage: list[tuple[int, str]]
) -> None:
    """Insert stray characters anywhere: the reader either refuses with an InputError naming
    the file, or returns records each of which is accounted for by the file's lines."""
    if fmt == "jsonl":
        text = "".join(json.dumps({"a": a, "b": b}) + "\n" for a, b in rows)
    else:
        buffer = io.StringIO(newline="")
        csv.writer(buffer, lineterminator="\n", delimiter="," if fmt == "csv" else "\t").writerows([("a", "b"), *rows])
        text = buffer.getvalue()
    for position, char in damage:
        position %= len(text) + 1
        text = text[:position] + char + text[position:]
    path = Path(os.environ["HYPOTHESIS_TMP"]) / f"d.{fmt}"
    path.write_text(text, encoding="utf-8", newline="")
    try:
        records = list(read_records(path))
    except InputError as exc:
        assert str(exc).startswith(str(path))
        return
    physical = len(re.split(r"\r\n|\r|\n", text))
    assert len(records) <= physical
    lines = [r.line for r in records]
    assert lines == sorted(set(lines)) and all(1 <= line <= physical for line in lines)


@pytest.fixture(autouse=True)
def hypothesis_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYPOTHESIS_TMP", str(tmp_path))


# -- outputs ------------------------------------------------------------------------------


@pytest.mark.long
def test_an_accepted_input_comes_back_whole(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", pairs(40))
    invoke(["run", str(src), "--text", "hypothesis", "--backend", "fake", "--quiet", "--out", str(tmp_path / "o")])
    parts = [
        json.loads(line)
        for p in ("train", "dev", "test")
        for line in (tmp_path / "o" / f"{p}.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    stripped = sorted(tuple(sorted((k, v) for k, v in r.items() if k in pairs(1)[0])) for r in parts)
    assert stripped == sorted(tuple(sorted(r.items())) for r in pairs(40))


@pytest.mark.long
def test_manifest_hashes_every_file_and_is_strict_json(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", pairs(40))
    out = tmp_path / "o"
    invoke(
        [
            "split",
            str(src),
            "--text",
            "hypothesis",
            "--splitter",
            "random",
            "--dev-size",
            "0",
            "--test-size",
            "5",
            "--null-splits",
            "20",
            "--out",
            str(out),
        ]
    )
    text = (out / "manifest.json").read_text(encoding="utf-8")
    manifest = json.loads(text, parse_constant=lambda c: pytest.fail(f"bare {c} in manifest.json"))
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != "manifest.json")
    assert sorted(manifest["outputs"]) == files and "report.html" in files and "tables/parts.tex" in files
    from tailsplit.fingerprint import sha256_file

    assert all(manifest["outputs"][name] == sha256_file(out / name) for name in files)
    assert [s["mean_words"] for s in manifest["summary"] if s["part"] == "dev"] == [None]


@pytest.mark.long
def test_analyze_refreshes_the_manifest_hashes(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", pairs(40))
    out = tmp_path / "o"
    invoke(["split", str(src), "--text", "hypothesis", "--splitter", "random", "--no-analyze", "--out", str(out)])
    invoke(["analyze", str(out), "--null-splits", "20"])
    from tailsplit.fingerprint import sha256_file

    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["outputs"]["report.html"] == sha256_file(out / "report.html")


def test_overwrite_replaces_a_folder_tailsplit_wrote(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", pairs(40))
    out = tmp_path / "o"
    args = ["split", str(src), "--text", "hypothesis", "--splitter", "random", "--no-analyze", "--out", str(out)]
    invoke(args + ["--seed", "1"])
    first = (out / "test.jsonl").read_bytes()
    invoke(args + ["--seed", "2", "--overwrite"])
    assert (out / "test.jsonl").read_bytes() != first
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_outputs_respect_the_umask(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", pairs(40))
    out = tmp_path / "o"
    old = os.umask(0o027)
    try:
        invoke(["split", str(src), "--text", "hypothesis", "--splitter", "random", "--no-analyze", "--out", str(out)])
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o750
    assert (out / "train.jsonl").stat().st_mode & 0o777 == 0o640


def test_staging_left_by_a_killed_run_is_removed(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", pairs(40))
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    ).stdout.strip()
    stale = tmp_path / f".o.tmp-{dead}-abc123"
    stale.mkdir()
    (stale / "train.jsonl").write_text("partial", encoding="utf-8")
    alive = tmp_path / f".o.tmp-{os.getppid()}-def456"  # a running process: left alone
    alive.mkdir()
    other = tmp_path / f".other.tmp-{dead}-abc123"  # another output's staging: left alone
    other.mkdir()
    invoke(
        [
            "split",
            str(src),
            "--text",
            "hypothesis",
            "--splitter",
            "random",
            "--no-analyze",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert not stale.exists() and alive.exists() and other.exists()


def test_user_text_prints_literally(tmp_path: Path) -> None:
    rows = [{**r, "label": ["[positive]", "[bold]x", "[/]"][i % 3]} for i, r in enumerate(pairs(30))]
    src = write_jsonl(tmp_path / "b.jsonl", rows)
    output = invoke(
        [
            "split",
            str(src),
            "--text",
            "hypothesis",
            "--label",
            "label",
            "--splitter",
            "random",
            "--no-analyze",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert "[positive]" in output and "[bold]x" in output and "[/]" in output
    summary = (tmp_path / "o" / "summary.md").read_text(encoding="utf-8")
    assert "\\[positive\\]" in summary  # Markdown-escaped: shown as [positive], never a link


@pytest.mark.long
def test_text_files_are_utf8_whatever_the_locale(tmp_path: Path) -> None:
    rows = [{**r, "label": ["ünïcödé", "négatif", "中立"][i % 3]} for i, r in enumerate(pairs(30))]
    src = write_jsonl(tmp_path / "u.jsonl", rows)
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": "utf-8"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tailsplit.cli",
            "split",
            str(src),
            "--text",
            "hypothesis",
            "--label",
            "label",
            "--splitter",
            "random",
            "--null-splits",
            "20",
            "--no-syntax",  # no spaCy to start in this process: the files' encoding is the point
            "--out",
            str(tmp_path / "o"),
        ],
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    assert result.returncode == 0, result.stderr
    assert "中立" in (tmp_path / "o" / "summary.md").read_text(encoding="utf-8")
    corpus = tmp_path / "tweets.txt"
    corpus.write_text("".join(f"ünïcödé tweet {i} 😀 中立\n" for i in range(50)), encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tailsplit.cli",
            "overlap",
            "--test",
            str(src),
            "--text",
            "hypothesis",
            "--corpus",
            str(corpus),
            "--index-dir",
            str(tmp_path / "index"),
            "--out",
            str(tmp_path / "ov"),
        ],
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    assert result.returncode == 0, result.stderr
    assert "中立" in (tmp_path / "ov" / "audit.jsonl").read_text(encoding="utf-8")


def test_json_errors_read_naturally(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"text": "a\tb"}\n')
    with pytest.raises(InputError) as caught:
        list(read_records(path))
    assert "Invalid control character at column 12" in str(caught.value) and "at at" not in str(caught.value)


# -- caches -------------------------------------------------------------------------------


def test_a_damaged_cache_row_is_scored_again(tmp_path: Path, fake_backend: Any) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", pairs(30))
    cache = tmp_path / "cache"
    args = ["score", str(src), "--text", "hypothesis", "--backend", "fake", "--quiet", "--cache-dir", str(cache)]
    invoke(args + ["--out", str(tmp_path / "a.parquet")])
    with sqlite3.connect(cache / "scores-v1.sqlite") as db:
        key = db.execute("SELECT key FROM scores ORDER BY key LIMIT 1").fetchone()[0]
        db.execute("UPDATE scores SET logprob_sum = logprob_sum + 3.5 WHERE key = ?", (key,))
    fake_backend.calls = []
    result = runner.invoke(app, args + ["--out", str(tmp_path / "b.parquet")])
    assert result.exit_code == 0, result.output
    assert len(fake_backend.calls) == 1 and "1 damaged rows" in result.output  # one batch, the damaged row in it
    import pyarrow.parquet as pq

    a, b = (pq.read_table(tmp_path / f"{x}.parquet").column("logprob_sum").to_numpy() for x in "ab")
    assert np.array_equal(a, b)
    fake_backend.calls = []
    invoke(args + ["--out", str(tmp_path / "c.parquet")])
    assert fake_backend.calls == []  # the damaged row was replaced


@pytest.mark.model
def test_a_converted_model_that_does_not_verify_is_noticed(model_cache: Path, tmp_path: Path) -> None:
    import shutil

    from tailsplit.scoring.models import verify_converted

    (converted,) = [p for p in (model_cache / "models").iterdir() if not p.name.startswith(".")]
    assert verify_converted(converted) is None
    copy = tmp_path / "copy"
    shutil.copytree(converted, copy)
    weights = copy / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1000:-990] = bytes(10)
    weights.write_bytes(bytes(data))
    assert "other contents" in verify_converted(copy)
    with open(weights, "ab") as handle:
        handle.write(b"\0")
    assert "bytes instead of" in verify_converted(copy)
