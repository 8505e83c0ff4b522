"""Hostile inputs at every edge, each case as a test. Paths written go through the output rules, records are validated where they are read, values and options are
strict, console output survives any locale, damaged files are named for what they are."""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import split_args, write_jsonl
from hostile import (
    ESCAPE,
    IMAGE,
    LINK,
    app,
    assert_refused_in_one_line,
    fresh_case,
    hostile_dataset,
    ok,
    pairs,
    refused,
    runner,
)

# -- 1. every path written goes through the output rules ------------------------------------


def overlap_args(tmp_path: Path, *extra: str) -> list[str]:
    test = write_jsonl(tmp_path / "t.jsonl", pairs())
    corpus = tmp_path / "c.txt"
    corpus.write_text("".join(f"someone walks {i} times today\n" for i in range(40)), encoding="utf-8")
    return ["overlap", "--test", str(test), "--text", "hypothesis", "--corpus", str(corpus), *extra]


def test_index_dir_never_replaces_a_file_or_an_input(tmp_path: Path) -> None:
    user_file = tmp_path / "some" / "file.csv"
    user_file.parent.mkdir()
    user_file.write_text("a,b\n1,2\n", encoding="utf-8")
    args = overlap_args(tmp_path, "--out", str(tmp_path / "o"))
    refused([*args, "--index-dir", str(user_file)], "--index-dir=", "is an existing file")
    assert user_file.read_text(encoding="utf-8") == "a,b\n1,2\n"
    before = (tmp_path / "t.jsonl").read_bytes()
    refused([*args, "--index-dir", str(tmp_path / "t.jsonl")], "--index-dir=")
    assert (tmp_path / "t.jsonl").read_bytes() == before
    refused([*args, "--index-dir", str(tmp_path)], "--index-dir=")  # holds the inputs
    refused([*args, "--index-dir", str(tmp_path / "o" / "index")], "an input of this run")  # inside the output
    refused([*args, "--index-dir", "/proc/index"], "system folder")
    assert not (tmp_path / "o").exists()
    ok([*args, "--index-dir", str(tmp_path / "index")])
    ok([*args, "--index-dir", str(tmp_path / "index"), "--overwrite"])  # reused, not refused


def test_overwrite_keeps_a_file_the_user_added(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    out = tmp_path / "o"
    ok(split_args(data, out))
    (out / "my_notes.txt").write_text("notes\n", encoding="utf-8")
    refused([*split_args(data, out), "--overwrite"], "'my_notes.txt'", "did not write")
    assert (out / "my_notes.txt").read_text(encoding="utf-8") == "notes\n"
    (out / "my_notes.txt").unlink()
    ok([*split_args(data, out), "--overwrite"])


def test_a_second_run_on_the_same_output_is_refused_while_the_first_runs(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    out = tmp_path / "o"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from tailsplit.io.claims import claim_output; claim_output(sys.argv[1]); "
         "print('held', flush=True); time.sleep(60)", str(out)],
        stdout=subprocess.PIPE, text=True, env=os.environ.copy(),
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        refused(split_args(data, out), "being written by another tailsplit run", str(holder.pid))
        assert not out.exists()
    finally:
        holder.kill()
        holder.wait()
    ok(split_args(data, out))  # the lock dies with its process


# -- 2. every record is validated where it is read ------------------------------------------


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_lines_with_nan_or_infinity_are_refused_at_read_time(tmp_path: Path, constant: str) -> None:
    rows = pairs()
    lines = [json.dumps(r) for r in rows]
    lines[3] = lines[3][:-1] + f', "extra": {{"x": [1, {constant}]}}}}'
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused(split_args(data, tmp_path / "o"), "d.jsonl:4:", "'extra.x[1]'", constant, "write null or a number")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "tsv", "parquet"])
def test_a_lone_surrogate_is_refused_at_read_time_for_every_format(tmp_path: Path, fmt: str) -> None:
    rows = pairs()
    rows[4]["hypothesis"] = "abc \ud800 def"
    data = write_jsonl(tmp_path / "d.jsonl", rows)  # json.dumps escapes it as \ud800
    refused([*split_args(data, tmp_path / "o"), "--format", fmt], "d.jsonl:5:", "'hypothesis'", "lone surrogate")
    assert not (tmp_path / "o").exists()
    rows[4]["hypothesis"] = "fine"
    rows[6]["note\udc80"] = "x"  # in a field name
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    refused(split_args(data, tmp_path / "o"), "d.jsonl:7:", "lone surrogate")


def test_a_lone_surrogate_in_memory_is_refused() -> None:
    from tailsplit.core import FieldMap
    from tailsplit.errors import InputError
    from tailsplit.io.examples import load_examples

    rows = pairs()
    rows[2]["premise"] = "x \udfff"
    with pytest.raises(InputError, match=r"row 3: field 'premise' holds a lone surrogate"):
        load_examples(rows, FieldMap(text="hypothesis"))
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError, match=r"row 3: field 'premise' holds a lone surrogate"):
        load_examples(pd.DataFrame(rows, dtype=object), FieldMap(text="hypothesis"))


@pytest.mark.parametrize("fmt", ["parquet", "hf"])
def test_a_column_of_mixed_types_is_refused_before_work_for_typed_formats(tmp_path: Path, fmt: str) -> None:
    rows = pairs()
    rows[5]["extra"] = 1
    rows[9]["extra"] = "one"
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    refused([*split_args(data, tmp_path / "o"), "--format", fmt], "'extra'", "is a str here but a number")
    assert not (tmp_path / "o").exists()
    ok([*split_args(data, tmp_path / "o"), "--format", "jsonl"])  # JSON holds it as it is


def test_a_dataframe_column_of_mixed_types_is_a_located_error() -> None:
    pd = pytest.importorskip("pandas")
    from tailsplit.core import FieldMap
    from tailsplit.errors import InputError
    from tailsplit.io.examples import load_examples

    frame = pd.DataFrame(pairs())
    frame["label"] = ["a", 1] * 15
    with pytest.raises(InputError, match=r"row 2: field 'label' is a number here but a str in pandas.DataFrame row 1"):
        load_examples(frame, FieldMap(text="hypothesis", label="label"))


def test_a_tab_in_a_field_is_refused_before_work_for_tsv(tmp_path: Path) -> None:
    rows = pairs()
    rows[7]["premise"] = "tab\there"
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    refused([*split_args(data, tmp_path / "o"), "--format", "tsv"], "row 8", "'premise'", "TSV cannot hold")


def test_typed_values_json_cannot_hold_are_refused_before_work(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = pairs()
    table = pa.Table.from_pylist(rows).append_column("weight", pa.array([1.0] * 29 + [math.nan]))
    pq.write_table(table, tmp_path / "d.parquet")
    ok(split_args(tmp_path / "d.parquet", tmp_path / "o"))  # Parquet holds NaN
    refused([*split_args(tmp_path / "d.parquet", tmp_path / "o2"), "--format", "jsonl"], "row 30", "'weight'", "nan")


# -- 5. values and options are strict ------------------------------------------------------


def score_csv(tmp_path: Path, column: str, values: list[str], name: str = "s.csv") -> Path:
    path = tmp_path / name
    lines = [f"id,logprob_sum,{column}"] + [f"p{i},-{i + 1}.5,{v}" for i, v in enumerate(values)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_score_file_flags_are_parsed_strictly(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    ok([*split_args(data, tmp_path / "o"), "--splitter", "likelihood", "--scores",
        str(score_csv(tmp_path, "truncated", ["False"] * 29 + ["TRUE"]))])  # fmt: skip
    parts = [json.loads(line) for p in ("train", "dev", "test") for line in open(tmp_path / "o" / f"{p}.jsonl")]
    assert sum(r["truncated"] for r in parts) == 1
    bad = score_csv(tmp_path, "truncated", ["false"] * 10 + ["yes"] * 20, "bad.csv")
    refused([*split_args(data, tmp_path / "o2"), "--splitter", "likelihood", "--scores", str(bad)],
            "bad.csv: row 11", "'truncated'", "'yes'")  # fmt: skip


def test_positive_scores_and_negative_token_counts_are_refused(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    positive = tmp_path / "pos.csv"
    positive.write_text("id,logprob_sum\n" + "".join(f"p{i},{i + 1}.5\n" for i in range(30)), encoding="utf-8")
    refused([*split_args(data, tmp_path / "o"), "--splitter", "likelihood", "--scores", str(positive)],
            "'logprob_sum'", "above 0", "negate them")  # fmt: skip
    counts = score_csv(tmp_path, "n_tokens", ["3"] * 3 + ["-1"] + ["3"] * 26, "n.csv")
    refused([*split_args(data, tmp_path / "o"), "--splitter", "likelihood", "--scores", str(counts)],
            "row 4", "'n_tokens'", "-1.0")  # fmt: skip
    rows = pairs()
    for i, r in enumerate(rows):
        r["score"] = 2.0 + i
    data = write_jsonl(tmp_path / "s.jsonl", rows)
    refused([*split_args(data, tmp_path / "o"), "--splitter", "likelihood", "--score-column", "score"], "above 0")


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


# -- 3. reports and terminals are inert ----------------------------------------------------


class _Elements(__import__("html.parser").parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))


def assert_inert(page: str, *, holds_data: bool = True) -> None:
    """No link or image made from data, no event handler, no javascript: URL."""
    parser = _Elements()
    parser.feed(page)
    for tag, attrs in parser.found:
        if tag == "a":  # report.md links its own figure files, nothing else
            assert dict(attrs).get("href", "").startswith("figures/"), attrs
            continue
        assert tag not in ("img", "script", "iframe"), (tag, attrs)
        for name, value in attrs:
            assert not name.startswith("on"), (tag, name)
            assert "javascript:" not in (value or "").lower(), (tag, name, value)
    assert "alert(1)" in page or not holds_data  # the data is there, as text


def hostile_rows(n: int = 60) -> list[dict]:
    rows = []
    for i in range(n):
        rows.append(
            {
                "id": f"{LINK}{i}",
                "premise": f"A person {i} walks {IMAGE}.",
                "hypothesis": f"Someone {LINK} walks {i} times " + "far " * (i % 7),
                "label": [LINK, IMAGE, "plain"][i % 3],
            }
        )
    return rows


@pytest.mark.long
@pytest.mark.browser
def test_hostile_data_stays_text_in_every_report(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", hostile_rows())
    out = tmp_path / "[o](javascript:3)"
    scores = tmp_path / "s.parquet"
    ok(["score", str(data), "--text", "hypothesis", "--backend", "fake", "--out", str(scores)])
    common = ["--text", "hypothesis", "--context", "premise", "--label", "label", "--null-splits", "20", "--no-syntax"]
    ok(["split", str(data), *common, "--scores", str(scores), "--out", str(out)])
    for seed in ("0", "1"):
        ok(["split", str(data), *common, "--splitter", "random", "--seed", seed, "--out", str(tmp_path / f"r{seed}")])
    ok(["evaluate", str(out), str(tmp_path / "r0"), str(tmp_path / "r1"), "--out", str(tmp_path / "eval")])
    corpus = tmp_path / "c.txt"
    corpus.write_text("".join(f"someone {LINK} walks {i} times\n" for i in range(30)), encoding="utf-8")
    ok(["overlap", "--test", str(data), "--text", "hypothesis", "--corpus", str(corpus), "--out", str(tmp_path / "ov")])
    ok(["export", "hf", str(out), "--out", str(tmp_path / "hf")])
    import markdown

    pages = {
        "split": (out / "report.html").read_text(encoding="utf-8"),
        "evaluate": (tmp_path / "eval" / "report.html").read_text(encoding="utf-8"),
        "overlap": (tmp_path / "ov" / "report.html").read_text(encoding="utf-8"),
        "card": markdown.markdown(
            (tmp_path / "hf" / "README.md").read_text(encoding="utf-8").split("---", 2)[2], extensions=["tables"]
        ),  # fmt: skip
        "summary": markdown.markdown((out / "summary.md").read_text(encoding="utf-8"), extensions=["tables"]),
        "report.md": markdown.markdown((out / "report.md").read_text(encoding="utf-8"), extensions=["tables"]),
    }
    written = [p for folder in (out, tmp_path / "eval", tmp_path / "ov", tmp_path / "hf") for p in folder.rglob("*.md")]
    assert {p.name for p in written} >= {"summary.md", "report.md", "table.md", "README.md"}
    for path in written:  # every Markdown file tailsplit writes, every line of it
        text = path.read_text(encoding="utf-8")
        body = text.split("---", 2)[2] if path.name == "README.md" else text
        pages[str(path.relative_to(tmp_path))] = markdown.markdown(body, extensions=["tables"])
    for name, page in pages.items():
        if "javascript:" in name or name.startswith("eval"):  # a folder name that holds the text, as text
            assert "javascript:" in page  # the folder name, as text
            parser = _Elements()
            parser.feed(page)
            assert all("javascript:" not in (v or "") for _, attrs in parser.found for _, v in attrs), name
            assert not [t for t, _ in parser.found if t in ("img", "script", "iframe")], name
        else:
            assert_inert(page, holds_data=name != "card" and not name.endswith("README.md"))
    from helpers import chromium

    browser = chromium()
    if browser is not None:
        for name in ("split", "evaluate", "overlap"):
            page = {"split": out, "evaluate": tmp_path / "eval", "overlap": tmp_path / "ov"}[name] / "report.html"
            dom = subprocess.run(
                [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page.resolve().as_uri()],
                capture_output=True, text=True, timeout=120, check=False,
            ).stdout  # fmt: skip
            parser = _Elements()
            parser.feed(dom)
            assert not [t for t, _ in parser.found if t in ("img", "a", "script", "iframe")], name


def test_labels_with_terminal_escapes_are_printed_as_escapes(tmp_path: Path) -> None:
    rows = pairs()
    for r in rows[:10]:
        r["label"] = f"evil{ESCAPE}"
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    output = ok(split_args(data, tmp_path / "o"))
    assert "\x1b" not in output and "\x07" not in output
    assert "evil\\x1b]0;pwned\\x07" in output
    message = refused(["split", str(data), "--text", f"nope{ESCAPE}", "--splitter", "random", "--out",
                       str(tmp_path / "o2")])  # fmt: skip
    assert "\x1b" not in message and "nope\\x1b" in message


# -- 6. environments and damaged files ------------------------------------------------------


def test_console_output_survives_an_ascii_locale(tmp_path: Path) -> None:
    rows = pairs()
    for r in rows:
        r["label"] = {"entailment": "já", "neutral": "нейтр", "contradiction": "矛盾"}[r["label"]]
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
    done = subprocess.run(
        [sys.executable, "-m", "tailsplit.cli", *split_args(data, tmp_path / "o")],
        capture_output=True, text=True, env=env, timeout=300, check=False, encoding="utf-8", errors="replace",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "j\\xe1" in done.stdout or "já" in done.stdout


def test_a_gzip_crc_error_is_named_as_damage_not_as_another_format(tmp_path: Path) -> None:
    blob = bytearray(gzip.compress("".join(json.dumps(r) + "\n" for r in pairs()).encode()))
    blob[-8] ^= 0xFF  # the CRC-32 in the trailer
    path = tmp_path / "d.jsonl.gz"
    path.write_bytes(bytes(blob))
    message = refused(split_args(path, tmp_path / "o"), "d.jsonl.gz")
    assert "not a gzip file" not in message and "checksum" in message


def test_a_recipe_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    recipe = tmp_path / "r.toml"
    recipe.write_bytes(
        b"\xef\xbb\xbf"
        + f'[data]\npaths = ["{data.name}"]\ntext = "hypothesis"\n[split]\nsplitter = "random"\n'.encode()
        + b'[output]\nout = "o"\nanalyze = false\n'
    )
    ok(["split", "--config", str(recipe)])
    assert (tmp_path / "o" / "manifest.json").exists()


def test_a_full_disk_under_the_score_cache_does_not_invite_deleting_it(tmp_path: Path) -> None:
    import errno
    import sqlite3

    from tailsplit.cache import ScoreCache

    cache = ScoreCache(tmp_path / "cache")
    full = sqlite3.OperationalError("database or disk is full")
    full.sqlite_errorcode = 13  # type: ignore[attr-defined]  # SQLITE_FULL
    message = str(cache.failure(full))
    assert "safe to delete" not in message and "space" in message
    assert errno.ENOSPC  # the OS's name for it, for the reader


def test_blank_lines_read_as_fast_as_records(tmp_path: Path) -> None:
    """Many blank lines must not fall back to a per-line path: count the fallback calls."""
    from tailsplit.io import readers

    path = tmp_path / "blank.jsonl"
    path.write_text("\n" * 200_000 + json.dumps({"text": "a"}) + "\n" + " \n" * 1000, encoding="utf-8")
    calls = []
    original = readers._read_line
    readers._read_line = lambda *a: calls.append(1) or original(*a)  # type: ignore[assignment]
    try:
        assert [r.record for r in readers.read_records(path)] == [{"text": "a"}]
    finally:
        readers._read_line = original  # type: ignore[assignment]
    assert len(calls) <= 1000  # whitespace-only lines may still be read one by one; empty lines are not


# -- 4. state that tailsplit reads back is verified ----------------------------------------


def edited_split(tmp_path: Path) -> tuple[Path, Path]:
    data = write_jsonl(tmp_path / "d.jsonl", pairs(60))
    out = tmp_path / "o"
    ok([*split_args(data, out)[:-3], "--out", str(out)])  # with --no-analyze
    return data, out


@pytest.mark.long
@pytest.mark.parametrize("edit", ["remove a row", "empty a file", "copy train into dev", "delete a file"])
def test_an_edited_split_folder_is_refused_by_every_reader(tmp_path: Path, edit: str) -> None:
    _, out = edited_split(tmp_path)
    train = (out / "train.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    target = out / ("dev.jsonl" if edit != "remove a row" else "train.jsonl")
    if edit == "remove a row":
        target.write_text("".join(train[1:]), encoding="utf-8")
    elif edit == "empty a file":
        target.write_text("", encoding="utf-8")
    elif edit == "copy train into dev":
        target.write_text(target.read_text(encoding="utf-8") + train[0], encoding="utf-8")
    else:
        target.unlink()
    name = target.name
    refused(["analyze", str(out), "--null-splits", "5", "--no-syntax"], name, "--accept-modified")
    refused(["export", "hf", str(out), "--out", str(tmp_path / "hf")], name)
    refused(["evaluate", str(out), "--out", str(tmp_path / "ev")], name)
    assert not (tmp_path / "hf").exists() and not (tmp_path / "ev").exists()
    if edit != "delete a file":
        ok(["analyze", str(out), "--null-splits", "5", "--no-syntax", "--accept-modified"])
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        assert manifest["analyzed_modified_files"] == [name]


def test_evaluate_refuses_one_folder_twice_and_splits_of_different_data(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs(60))
    other = write_jsonl(tmp_path / "e.jsonl", pairs(61))
    for name, source, seed in (("a", data, "0"), ("b", data, "1"), ("c", other, "0")):
        ok([*split_args(source, tmp_path / name), "--seed", seed])
    refused(["evaluate", str(tmp_path / "a"), str(tmp_path / "a")], "the same split twice")
    import shutil

    shutil.copytree(tmp_path / "a", tmp_path / "a-copy")
    refused(["evaluate", str(tmp_path / "a"), str(tmp_path / "a-copy")], "the same split twice")
    refused(["evaluate", str(tmp_path / "a"), str(tmp_path / "c")], "splits other data")


# -- 7. a generative safety net ------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(
    max_examples=int(os.environ.get("TAILSPLIT_HOSTILE_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=hostile_dataset())
def test_split_keeps_its_contract_on_hostile_input(tmp_path: Path, case: tuple[list[dict], list[str]]) -> None:

    rows, options = case
    work, data = fresh_case(tmp_path, rows)
    before = data.read_bytes()
    out = work / "o"
    result = runner.invoke(app, ["split", str(data), "--text", "text", "--splitter", "random", "--no-analyze",
                                 "--out", str(out), *options])  # fmt: skip
    assert data.read_bytes() == before
    assert sorted(p.name for p in work.iterdir()) in (["d.jsonl"], ["d.jsonl", "o"])
    if result.exit_code == 0:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        assert sum(manifest["sizes"].values()) == len(rows)
    else:
        assert_refused_in_one_line(result, usage_ok=True)
        assert not out.exists()


@pytest.mark.model
def test_a_converted_model_rewritten_with_its_old_size_and_time_is_hashed_again(
    model_cache: Path, tmp_path: Path
) -> None:
    import shutil

    from tailsplit.scoring.models import verify_converted

    (converted,) = [p for p in (model_cache / "models").iterdir() if not p.name.startswith(".")]
    copy = tmp_path / "copy"
    shutil.copytree(converted, copy)
    assert verify_converted(copy) is None  # times differ from the record: hashed, same bytes, record refreshed
    weights = copy / "model.safetensors"
    stat = weights.stat()
    with open(weights, "r+b") as handle:
        handle.seek(stat.st_size - 1000)
        handle.write(bytes(10))
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # old size, old modification time
    assert weights.stat().st_mtime_ns == stat.st_mtime_ns and weights.stat().st_size == stat.st_size
    assert "other contents" in (verify_converted(copy) or "")


def test_a_damaged_embedding_cache_row_is_encoded_again(tmp_path: Path) -> None:
    import sqlite3

    from tailsplit.errors import CacheError
    from tailsplit.shift.encoder import EmbeddingCache

    cache = EmbeddingCache(tmp_path)
    cache.put_many([("k1", np.ones(4)), ("k2", np.full(4, 2.0))])
    cache.close()
    db = sqlite3.connect(tmp_path / "embeddings-v2.sqlite")
    db.execute("UPDATE vectors SET vector = ? WHERE key = 'k1'", (np.full(4, 9.0, dtype="<f4").tobytes(),))
    db.commit()
    db.close()
    cache = EmbeddingCache(tmp_path)
    found = cache.get_many(["k1", "k2"])
    assert list(found) == ["k2"]  # the changed row is a miss
    cache.put_many([("k1", np.ones(4))])
    assert np.array_equal(cache.get_many(["k1"])["k1"], np.ones(4))
    cache.close()
    (tmp_path / "embeddings-v2.sqlite").write_bytes(b"not a database at all" * 100)
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"embeddings-v2.sqlite{suffix}").unlink(missing_ok=True)
    with pytest.raises(CacheError, match="damaged.*safe to delete"):
        EmbeddingCache(tmp_path).get_many(["k1"])


def test_a_truncated_or_changed_overlap_index_is_rebuilt(tmp_path: Path) -> None:
    args = overlap_args(tmp_path, "--index-dir", str(tmp_path / "index"))
    first = ok([*args, "--out", str(tmp_path / "o1")])
    tokens = tmp_path / "index" / "tokens.npy"
    tokens.write_bytes(tokens.read_bytes()[:-8])  # truncated
    ok([*args, "--out", str(tmp_path / "o2")])
    audit = [(tmp_path / o / "audit.jsonl").read_bytes() for o in ("o1", "o2")]
    assert audit[0] == audit[1] and first
    blob = tmp_path / "index" / "texts.bin"
    data = bytearray(blob.read_bytes())
    data[0] ^= 1  # same size, other bytes
    blob.write_bytes(bytes(data))
    ok([*args, "--out", str(tmp_path / "o3")])
    assert (tmp_path / "o3" / "audit.jsonl").read_bytes() == audit[0]


NUMBERS = st.sampled_from(["0", "-1", "1", "2", "0.5", "nan", "inf", "-inf", "1e309", "x", ""])


@st.composite
def hostile_command(draw: st.DrawFn) -> tuple[list[dict], str, list[str]]:
    rows, _ = draw(hostile_dataset())
    command = draw(st.sampled_from(["score", "overlap", "run-ngram"]))
    options: list[str] = []
    if command == "overlap":
        for flag in draw(st.lists(st.sampled_from(["--k", "--threshold", "--k1", "--b", "--top-quantile", "--window"]),
                                  max_size=2, unique=True)):  # fmt: skip
            options += [flag, draw(NUMBERS)]
    if command == "run-ngram":
        for flag in draw(st.lists(st.sampled_from(["--ngram-order", "--folds", "--dev-size", "--null-splits"]),
                                  max_size=2, unique=True)):  # fmt: skip
            options += [flag, draw(NUMBERS)]
    return rows, command, options


@pytest.mark.long  # 30 s: the full suite runs it, the quick loop does not
@settings(max_examples=int(os.environ.get("TAILSPLIT_HOSTILE_EXAMPLES", "20")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(case=hostile_command())
def test_other_commands_keep_the_contract_on_hostile_input(
    tmp_path: Path, case: tuple[list[dict], str, list[str]]
) -> None:

    rows, command, options = case
    work, data = fresh_case(tmp_path, rows)
    corpus = work / "c.txt"
    corpus.write_text("some text\nr1 other words\n", encoding="utf-8")
    inputs = {p.name: p.read_bytes() for p in (data, corpus)}
    out = work / "o"
    args = {
        "score": ["score", str(data), "--text", "text", "--backend", "fake", "--out", str(work / "o.parquet")],
        "overlap": ["overlap", "--test", str(data), "--text", "text", "--corpus", str(corpus), "--index-dir",
                    str(work / "index"), "--out", str(out)],
        "run-ngram": ["run", str(data), "--text", "text", "--method", "ngram", "--folds", "2", "--no-syntax",
                      "--out", str(out)],
    }[command]  # fmt: skip
    result = runner.invoke(app, [*args, *options])
    assert {p.name: p.read_bytes() for p in (data, corpus)} == inputs
    allowed = {"d.jsonl", "c.txt", "o", "o.parquet", "index"}
    assert {p.name for p in work.iterdir()} <= allowed
    if result.exit_code != 0:
        assert_refused_in_one_line(result, usage_ok=True)
        assert not out.exists() and not (work / "o.parquet").exists()
    elif command == "overlap":
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        assert manifest["overlap"] + manifest["clean"] == len(rows)


_KEYS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6)
_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), _KEYS, st.sampled_from([LINK, "a\tb", "x\ny"])
)
_VALUES = st.recursive(_LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(_KEYS, inner, max_size=3)), max_leaves=6)  # fmt: skip


@settings(max_examples=int(os.environ.get("TAILSPLIT_HOSTILE_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(records=st.lists(st.dictionaries(_KEYS, _VALUES, max_size=4), min_size=1, max_size=6))
def test_records_accepted_for_a_format_are_written_in_it(tmp_path: Path, records: list[dict]) -> None:
    """The property behind "no crash after scoring": whatever check_writable lets through (it
    runs before any model loads), the writer writes; JSON Lines reads back equal."""
    from tailsplit.errors import InputError
    from tailsplit.io.arrow import arrow_table
    from tailsplit.io.readers import read_records
    from tailsplit.io.values import check_writable
    from tailsplit.io.writers import OUTPUT_FORMATS, OUTPUT_SUFFIX, write_records

    for fmt in OUTPUT_FORMATS:
        path = tmp_path / f"out-{fmt}{OUTPUT_SUFFIX[fmt]}"
        try:
            check_writable(records, fmt, lambda i: ("mem", i + 1), json_safe=False, arrow=arrow_table)
        except InputError:
            continue
        write_records(path, records, fmt)
        if fmt == "jsonl":
            assert [r.record for r in read_records(path)] == records


def test_export_hf_refuses_a_column_of_mixed_types_before_writing(tmp_path: Path) -> None:
    rows = pairs(30)
    rows[3]["extra"] = 1
    rows[20]["extra"] = "one"
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    ok(split_args(data, tmp_path / "o"))  # JSON Lines holds it
    message = refused(["export", "hf", str(tmp_path / "o"), "--out", str(tmp_path / "hf")], "'extra'", "is a")
    assert ".jsonl" in message and not (tmp_path / "hf").exists()


def test_a_refused_run_gives_its_output_back(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    out = tmp_path / "o"
    refused([*split_args(data, out), "--test-size", "40"], "--test-size=40")  # after the output was claimed
    claimed = subprocess.run(
        [sys.executable, "-c", "import sys; from tailsplit.io.claims import claim_output; claim_output(sys.argv[1])",
         str(out)], capture_output=True, text=True, env=os.environ.copy(), check=False,
    )  # fmt: skip
    assert claimed.returncode == 0, claimed.stderr


@pytest.mark.long
@settings(max_examples=int(os.environ.get("TAILSPLIT_HOSTILE_EXAMPLES", "8")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(case=hostile_dataset())
def test_readers_of_a_split_folder_keep_the_contract_on_hostile_data(
    tmp_path: Path, case: tuple[list[dict], list[str]]
) -> None:
    """Whatever split a hostile dataset gives, analyze, export (hf, lm-eval) and evaluate
    either work or refuse in one line, leaving the split folder as it was but for analyze's
    reports."""

    rows, _ = case
    work, data = fresh_case(tmp_path, rows)
    split = work / "s"
    made = runner.invoke(app, ["split", str(data), "--text", "text", "--label", "label", "--splitter", "random",
                               "--no-analyze", "--out", str(split)])  # fmt: skip
    if made.exit_code != 0:
        return
    parts = {p.name: p.read_bytes() for p in split.iterdir() if p.name.split(".")[0] in ("train", "dev", "test")}
    for args in (
        ["analyze", str(split), "--null-splits", "5", "--no-syntax"],
        ["export", "hf", str(split), "--out", str(work / "hf")],
        ["export", "lm-eval", str(split), "--out", str(work / "lm")],
        ["evaluate", str(split), "--baseline", "tfidf", "--out", str(work / "ev")],
    ):
        result = runner.invoke(app, args)
        if result.exit_code != 0:
            assert_refused_in_one_line(result)
        assert {p.name: p.read_bytes() for p in split.iterdir() if p.name in parts} == parts
    assert {p.name for p in work.iterdir()} <= {"d.jsonl", "s", "hf", "lm", "ev"}


@settings(max_examples=int(os.environ.get("TAILSPLIT_HOSTILE_EXAMPLES", "30")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    points=st.lists(st.tuples(st.sampled_from(["0.5", "0.9", "1", "nan", "inf", "-1", "x", "", "1e309"]),
                              st.sampled_from(["0.4", "0.8", "nan", "2", "y", ""]),
                              st.sampled_from(["a", LINK, ESCAPE, ""])), max_size=12)
)  # fmt: skip
def test_correlate_keeps_the_contract_on_hostile_points(tmp_path: Path, points: list[tuple[str, str, str]]) -> None:
    import shutil

    work = tmp_path / "case"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    csv_path = work / "p.csv"
    csv_path.write_text("id_acc,ood_acc,group\n" + "".join(f"{a},{b},{g}\n" for a, b, g in points), encoding="utf-8")
    result = runner.invoke(app, ["correlate", str(csv_path), "--out", str(work / "o")])
    if result.exit_code != 0:
        assert_refused_in_one_line(result)
        assert not (work / "o").exists()
    assert {p.name for p in work.iterdir()} <= {"p.csv", "o"}


@settings(max_examples=int(os.environ.get("TAILSPLIT_HOSTILE_EXAMPLES", "30")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    case=hostile_dataset(),
    roles=st.fixed_dictionaries({"text": st.sampled_from(["text", 0, "nosuch", ""]),
                                 "label": st.sampled_from(["label", None, 1.5])}),
)  # fmt: skip
def test_the_python_api_keeps_the_contract_on_hostile_tables(
    tmp_path: Path, case: tuple[list[dict], list[str]], roles: dict[str, Any]
) -> None:
    """In memory (a list of dicts, as Python holds it: surrogates, NaN, numpy-free), with any
    role name (text or not, present or not), ``run`` returns a result covering every row or
    raises a TailsplitError — never another exception."""
    import copy

    import tailsplit
    from tailsplit.errors import TailsplitError

    rows, _ = case
    given_rows = copy.deepcopy(rows)
    config = tailsplit.RunConfig()
    config.split.splitter = "random"
    config.output.analyze = False
    try:
        config.data = tailsplit.DataConfig(table=rows, **roles)  # a role that is no text is refused here
        result = tailsplit.run(config)
    except TailsplitError:
        pass
    else:
        assert sum(len(p) for p in result.split.parts().values()) == len(rows)
    assert repr(rows) == repr(given_rows)  # the caller's table is left as it was


def test_evaluate_refuses_a_train_part_with_one_label_before_training(tmp_path: Path) -> None:
    rows = pairs(30)
    for r in rows:
        r["label"] = "same"
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    ok([*split_args(data, tmp_path / "s")])
    refused(["evaluate", str(tmp_path / "s"), "--out", str(tmp_path / "ev")], "1 label(s)", "at least two classes")
    assert not (tmp_path / "ev").exists()
