"""Hostile inputs to whole commands: an edited split folder refused by every reader, evaluate's
refusals before training, and every command — split, the others, the readers of a split folder,
correlate — keeping its contract (one line, exit 2, nothing written) on generated hostile data."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import split_args, write_jsonl
from hostile import (
    ESCAPE,
    LINK,
    app,
    assert_refused_in_one_line,
    fresh_case,
    hostile_dataset,
    ok,
    pairs,
    random_split,
    refused,
    runner,
)


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


import numpy as np
import pytest
from hostile import (
    write_raw_jsonl,
)
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


NUMBERS = st.sampled_from(["0", "-1", "1", "2", "0.5", "nan", "inf", "-inf", "1e309", "x", ""])


@pytest.mark.long  # 30 s: the full suite runs it, the quick loop does not
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


def test_evaluate_refuses_a_train_part_with_one_label_before_training(tmp_path: Path) -> None:
    rows = pairs(30)
    for r in rows:
        r["label"] = "same"
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    ok([*split_args(data, tmp_path / "s")])
    refused(["evaluate", str(tmp_path / "s"), "--out", str(tmp_path / "ev")], "1 label(s)", "at least two classes")
    assert not (tmp_path / "ev").exists()


def test_an_agreement_field_no_example_has_is_refused_by_analyze(tmp_path: Path) -> None:
    folder = random_split(tmp_path)
    before = (folder / "manifest.json").read_bytes()
    refused(["analyze", str(folder), "--agreement-field", "nosuch", "--null-splits", "5"], "--agreement-field=",
            "no example")  # fmt: skip
    assert (folder / "manifest.json").read_bytes() == before


def test_an_edited_folder_exports_with_its_true_sizes_and_says_it_was_edited(tmp_path: Path) -> None:
    folder = random_split(tmp_path)
    test_file = folder / "test.jsonl"
    lines = test_file.read_text(encoding="utf-8").splitlines(keepends=True)
    test_file.write_text("".join(lines[:-1]), encoding="utf-8")
    refused(["export", "hf", str(folder), "--out", str(tmp_path / "hf")], "test.jsonl", "--accept-modified")
    ok(["export", "hf", str(folder), "--accept-modified", "--out", str(tmp_path / "hf")])
    card = (tmp_path / "hf" / "README.md").read_text(encoding="utf-8")
    assert f"| test | {len(lines) - 1} |" in card
    assert "Edited since tailsplit wrote the split: `test.jsonl`" in card
    manifest = json.loads((tmp_path / "hf" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["modified_files"] == ["test.jsonl"]


@pytest.mark.long
def test_correlate_on_many_points_fits_in_seconds() -> None:
    from tailsplit.shift.correlate import _hinge_fit, _hinge_grid, classify, synthetic_points

    x, y = synthetic_points("II", n=200)
    order = np.argsort(x, kind="stable")
    cuts = np.linspace(x.min() + 0.01, x.max() - 0.01, 25)
    rss, coef = _hinge_grid(x[order], y[order], cuts)
    for i, c in enumerate(cuts):
        expected_rss, expected_coef = _hinge_fit(x, y, c)
        assert rss[i] == pytest.approx(expected_rss, rel=1e-9, abs=1e-12)
        np.testing.assert_allclose(coef[i], expected_coef, rtol=1e-7, atol=1e-9)
    x, y = synthetic_points("I", n=200_000)
    assert classify(x, y).type == "I"  # minutes with a solve per cut; seconds now


def test_a_verbatim_copy_is_overlap_whatever_its_bm25(tmp_path: Path) -> None:
    rows = [{"id": f"t{i}", "text": f"{word} number {i}"} for i, word in enumerate(["cat", "dog", "owl", "elk"] * 5)]
    test = write_jsonl(tmp_path / "t.jsonl", rows)
    corpus = tmp_path / "c.txt"
    # The short texts copied verbatim score low (few words); long unrelated lines score high.
    corpus.write_text(
        "".join(f"{r['text']}\n" for r in rows[:4])
        + "".join(f"cat dog owl elk number {i + 100} number cat dog owl\n" for i in range(4, 20)),
        encoding="utf-8",
    )
    ok(["overlap", "--test", str(test), "--text", "text", "--corpus", str(corpus), "--out", str(tmp_path / "ov")])
    audits = [json.loads(line) for line in (tmp_path / "ov" / "audit.jsonl").read_text(encoding="utf-8").splitlines()]
    copied = {a["id"] for a in audits if a["verbatim"]}
    assert copied == {"t0", "t1", "t2", "t3"}
    clean = [json.loads(line) for line in (tmp_path / "ov" / "clean.jsonl").read_text(encoding="utf-8").splitlines()]
    assert not copied & {r["id"] for r in clean}
    summary = (tmp_path / "ov" / "summary.md").read_text(encoding="utf-8")
    assert "verbatim copies: 4" in summary and "no verbatim copy" in summary


@pytest.mark.model
def test_ood_rank_takes_a_split_folder_as_id_with_given_accuracies(tmp_path: Path) -> None:
    folder = random_split(tmp_path)
    (tmp_path / "c.csv").write_text(f"name,path,fields,source,accuracy\nb,{tmp_path / 'r.jsonl'},hypothesis,s,0.5\n")
    output = ok(["ood-rank", "--id", f"{folder}@hypothesis", "--candidates", str(tmp_path / "c.csv"),
                 "--id-accuracy", "0.8", "--out", str(tmp_path / "ood")])  # fmt: skip
    assert "drop 0.300" in " ".join(output.split())


@pytest.mark.model
@settings(max_examples=int(os.environ.get("TAILSPLIT_HOSTILE_EXAMPLES", "6")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(case=hostile_dataset(), command=st.sampled_from(["similarity", "ood-rank", "curve"]))
def test_embedding_and_training_commands_keep_the_contract_on_hostile_input(
    tmp_path: Path, case: tuple[list[dict], list[str]], command: str
) -> None:
    """`similarity`, `ood-rank` (similarity alone, and with given accuracies) and `curve` (a
    few steps) on hostile records: exit 0, or exit 2 with one line; the inputs unchanged;
    nothing written beside the output."""
    rows, _ = case
    work, data = fresh_case(tmp_path, rows)
    other = work / "e.jsonl"
    write_raw_jsonl(other, [{"text": f"a plain sentence {i}", "label": ["x", "y"][i % 2]} for i in range(12)])
    candidates = work / "c.csv"
    candidates.write_text(f"name,path,fields,source,accuracy\nplain,{other},text,web,0.5\n", encoding="utf-8")
    inputs = {p.name: p.read_bytes() for p in work.iterdir()}
    out = work / "o"
    args = {
        "similarity": ["similarity", f"d={data}", f"e={other}", "--permutations", "5", "--mmd-sample", "5"],
        "ood-rank": ["ood-rank", "--id", f"d={data}", "--candidates", str(candidates), "--id-accuracy", "0.9"],
        "curve": ["curve", "--id", f"d={data}", "--ood", f"e={other}", "--max-steps", "2", "--checkpoint-every", "1",
                  "--label-field", "label"],
    }[command]  # fmt: skip
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert {p.name: p.read_bytes() for p in work.iterdir() if p.name in inputs} == inputs
    assert {p.name for p in work.iterdir()} <= {*inputs, "o"}
    if result.exit_code != 0:
        assert_refused_in_one_line(result)
        assert not out.exists()
    else:
        assert json.loads((out / "manifest.json").read_text(encoding="utf-8"))["outputs"]
