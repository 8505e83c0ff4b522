"""Hostile outputs and reads: one claim per output wherever the cache is, only verified files
read back, no input that hangs or exhausts, inert Markdown everywhere, strict values and
messages that point the right way, and an audit that never calls a copy clean."""

from __future__ import annotations

import errno
import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from helpers import split_args, write_jsonl
from hostile import (
    app,
    assert_refused_in_one_line,
    fresh_case,
    hostile_dataset,
    ok,
    pairs,
    refused,
    runner,
    write_raw_jsonl,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tailsplit.io import claims

# -- 1. one process per output, whatever the cache -------------------------------------------


def hold(out: Path, cache: Path) -> subprocess.Popen[str]:
    """Another process, with its own cache, claiming ``out`` (as a running tailsplit would)."""
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from tailsplit.io.claims import claim_output; claim_output(sys.argv[1]); "
         "print('held', flush=True); time.sleep(60)", str(out)],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "TAILSPLIT_CACHE_DIR": str(cache)},
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_run_with_another_cache_is_refused_while_the_first_holds_the_output(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    out = tmp_path / "o"
    holder = hold(out, tmp_path / "cache-of-another-user")
    try:
        assert (tmp_path / ".o.tailsplit-lock").is_file()  # the claim lives beside the output
        refused(split_args(data, out), "being written by another tailsplit run", str(holder.pid))
        assert not out.exists()
    finally:
        holder.kill()
        holder.wait()
    ok(split_args(data, out))
    assert not (tmp_path / ".o.tailsplit-lock").exists()  # given up when the output is published


def test_two_real_runs_with_different_caches_never_both_write_one_output(tmp_path: Path) -> None:
    """Two `tailsplit split` processes on one --out, each with its own cache: the first is
    stopped (SIGSTOP) while it holds the output, so the second must be refused; the first then
    finishes and publishes its output."""
    data = write_jsonl(tmp_path / "d.jsonl", pairs(400))
    command = [sys.executable, "-m", "tailsplit.cli", *split_args(data, tmp_path / "o"), "--null-splits", "300"]
    first = subprocess.Popen(
        command, env={**os.environ, "TAILSPLIT_CACHE_DIR": str(tmp_path / "c1")},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    lock = tmp_path / ".o.tailsplit-lock"
    deadline = time.monotonic() + 120
    while not lock.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    if first.poll() is not None:
        pytest.skip("the first run finished before it could be paused")
    first.send_signal(signal.SIGSTOP)
    try:
        second = subprocess.run(
            command, env={**os.environ, "TAILSPLIT_CACHE_DIR": str(tmp_path / "c2")},
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    finally:
        first.send_signal(signal.SIGCONT)
    _, stderr = first.communicate(timeout=300)
    assert second.returncode == 2, second.stderr
    assert "being written by another tailsplit run" in second.stderr and "Traceback" not in second.stderr
    assert first.returncode == 0, stderr
    assert json.loads((tmp_path / "o" / "manifest.json").read_text(encoding="utf-8"))["outputs"]


@pytest.mark.parametrize("kind", ["folder", "link", "fifo"])
def test_a_lock_path_that_is_not_a_lock_file_refuses_the_run(tmp_path: Path, kind: str) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    lock = tmp_path / ".o.tailsplit-lock"
    if kind == "folder":
        lock.mkdir()
    elif kind == "link":
        lock.symlink_to(tmp_path / "elsewhere")
    else:
        os.mkfifo(lock)
    refused(split_args(data, tmp_path / "o"), "is not tailsplit's lock file", "move it away")
    assert not (tmp_path / "o").exists() and not (tmp_path / "elsewhere").exists()


def test_a_lock_that_cannot_be_written_refuses_with_one_line(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())

    def full(*_: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    with mock.patch.object(claims.os, "pwrite", full):
        message = refused(split_args(data, tmp_path / "o"), "No space left on device", "free some space")
    assert "lock" in message
    assert not (tmp_path / "o").exists() and not (tmp_path / ".o.tailsplit-lock").exists()
    with mock.patch.object(claims.os, "open", mock.Mock(side_effect=OSError(errno.EROFS, "Read-only file system"))):
        refused(split_args(data, tmp_path / "deep" / "o"), "Read-only file system", "cannot be created")
    assert not (tmp_path / "deep").exists()  # the folder made for the claim went with it


def test_an_output_inside_the_cache_or_holding_it_is_refused(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    cache = Path(os.environ["TAILSPLIT_CACHE_DIR"])
    cache.mkdir(parents=True, exist_ok=True)
    database = cache / "scores-v1.sqlite"
    database.write_bytes(b"cached scores")
    score = ["score", str(data), "--text", "hypothesis", "--backend", "fake"]
    refused([*score, "--overwrite", "--out", str(database)], "inside tailsplit's cache")
    assert database.read_bytes() == b"cached scores"
    refused(split_args(data, cache / "split"), "inside tailsplit's cache")
    refused(split_args(data, cache.parent), "holds tailsplit's cache")
    run = ["run", str(data), "--text", "hypothesis", "--backend", "fake", "--splitter", "likelihood"]
    refused([*run, "--cache-dir", str(tmp_path / "o" / "my-cache"), "--out", str(tmp_path / "o")],
            "holds tailsplit's cache")  # fmt: skip
    assert not (tmp_path / "o").exists()


def test_a_path_through_a_dangling_link_is_refused_and_nothing_is_created(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    target = tmp_path / "nowhere" / "deeper"
    (tmp_path / "dang").symlink_to(target)
    refused(split_args(data, tmp_path / "dang" / "o"), "a link to", "does not exist")
    refused(split_args(data, tmp_path / "dang"), "a link to", "does not exist")
    assert not (tmp_path / "nowhere").exists()
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    refused(split_args(data, tmp_path / "afile" / "o"), "which is a file")


# -- 2. every file read back is verified or not read ------------------------------------------


def random_split(tmp_path: Path, name: str = "r", rows: list[dict] | None = None) -> Path:
    data = write_jsonl(tmp_path / f"{name}.jsonl", rows or pairs())
    ok([*split_args(data, tmp_path / name), "--null-splits", "5", "--no-syntax"])
    return tmp_path / name


def test_a_file_the_manifest_does_not_list_is_not_read(tmp_path: Path) -> None:
    folder = random_split(tmp_path)
    (folder / "scores.parquet").write_bytes(b"not parquet at all")
    output = ok(["analyze", str(folder), "--null-splits", "5", "--no-syntax"])
    assert "Traceback" not in output
    analysis = json.loads((folder / "analysis.json").read_text(encoding="utf-8"))
    assert "logprob" not in json.dumps(analysis.get("against_null", []))


def test_an_agreement_field_no_example_has_is_refused_by_analyze(tmp_path: Path) -> None:
    folder = random_split(tmp_path)
    before = (folder / "manifest.json").read_bytes()
    refused(["analyze", str(folder), "--agreement-field", "nosuch", "--null-splits", "5"], "--agreement-field=",
            "no example")  # fmt: skip
    assert (folder / "manifest.json").read_bytes() == before


def test_a_missing_statistic_reads_n_a_in_the_card() -> None:
    from tailsplit.export.hf_card import headline

    row = {"description": "agreement", "observed": None, "null_mean": None, "null_std": None, "percentile": None}
    assert headline({"null_splits": 5, "against_null": [row]}) == [
        "agreement: n/a in the evaluation set vs n/a ± n/a over 5 random splits (percentile n/a)"
    ]


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


def test_a_changed_analysis_is_not_put_in_a_card(tmp_path: Path) -> None:
    folder = random_split(tmp_path)
    ok(["analyze", str(folder), "--null-splits", "5", "--no-syntax"])
    analysis = folder / "analysis.json"
    analysis.write_text(analysis.read_text(encoding="utf-8").replace('"observed": ', '"observed": 1'), encoding="utf-8")
    refused(["export", "hf", str(folder), "--out", str(tmp_path / "hf")], "analysis.json", "was changed")


# -- 3. no input can hang or exhaust it -------------------------------------------------------


def test_a_citation_file_that_never_ends_or_blocks_is_refused(tmp_path: Path) -> None:
    folder = random_split(tmp_path)
    export = ["export", "hf", str(folder), "--out", str(tmp_path / "hf")]
    refused([*export, "--citation-file", "/dev/zero"], "--citation-file=", "character device")
    fifo = tmp_path / "cite.fifo"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "tailsplit.cli", *export, "--citation-file", str(fifo)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "FIFO" in done.stderr, done.stderr
    big = tmp_path / "big.bib"
    big.write_bytes(b"@misc{a, note={" + b"x" * (1 << 20) + b"}}")
    refused([*export, "--citation-file", str(big)], "larger than 1024 KiB")
    assert not (tmp_path / "hf").exists()


def test_a_data_file_that_is_a_fifo_or_device_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "d.jsonl"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "tailsplit.cli", *split_args(fifo, tmp_path / "o")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "FIFO" in done.stderr, done.stderr


def test_a_deeply_nested_recipe_is_refused_in_one_line(tmp_path: Path) -> None:
    recipe = tmp_path / "r.toml"
    recipe.write_text("[data]\ntext = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    refused(["run", "--config", str(recipe)], "more than 100 levels deep")
    dotted = tmp_path / "d.toml"
    dotted.write_text("[data]\n" + ".".join(["k"] * 5000) + " = 1\n", encoding="utf-8")
    refused(["run", "--config", str(dotted)], "config=")


def test_a_record_beyond_the_size_limit_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    from tailsplit.io import lines

    rows = pairs()
    rows[3]["hypothesis"] = "long " * 400
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    with mock.patch.object(lines, "MAX_RECORD_BYTES", 1000), mock.patch.object(lines, "_BLOCK_BYTES", 256):
        refused(split_args(data, tmp_path / "o"), "d.jsonl:4:", "longer than", "limit for one record")
    assert not (tmp_path / "o").exists()


def test_gzip_with_trailing_junk_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl.gz"
    path.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in pairs()).encode()) + b"junk after")
    message = refused(split_args(path, tmp_path / "o"), "trailing junk")
    assert "not a gzip file" not in message


def test_sigterm_removes_the_staging_folder_like_ctrl_c(tmp_path: Path) -> None:
    corpus = tmp_path / "c.txt"
    corpus.write_text("".join(f"line {i} of words {i % 97} and more {i % 13}\n" for i in range(300_000)),
                      encoding="utf-8")  # fmt: skip
    test = write_jsonl(tmp_path / "t.jsonl", pairs())
    cache = tmp_path / "cache"
    process = subprocess.Popen(
        [sys.executable, "-m", "tailsplit.cli", "overlap", "--test", str(test), "--text", "hypothesis",
         "--corpus", str(corpus), "--out", str(tmp_path / "ov")],
        env={**os.environ, "TAILSPLIT_CACHE_DIR": str(cache)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    staging: list[Path] = []
    while not staging and process.poll() is None and time.monotonic() < deadline:
        staging = [p for p in cache.rglob(".*tmp-*")] if cache.exists() else []
        time.sleep(0.02)
    if process.poll() is not None:
        pytest.skip("the index was built before the test could interrupt it")
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 143, stderr
    assert "Traceback" not in stderr and "terminated" in stderr
    assert not [p for p in cache.rglob(".*tmp-*")]
    assert not (tmp_path / "ov").exists()


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


# -- 4. inert everywhere, not only in HTML ----------------------------------------------------


def test_the_below_chance_warning_is_inert_in_table_md() -> None:
    import markdown

    from tailsplit.render import markdown_text

    warning = "warning: tfidf scores 10.0% on likelihood (<img src=x onerror=alert(1)> [a](javascript:x)), below"
    page = markdown.markdown(markdown_text(warning))
    assert "<img" not in page and "<a" not in page and "&lt;img" in page and "javascript:x" in page


# -- 5. values and messages -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--end-token", "</s>"], "--end-token='</s>' has an effect only with --score-eos"),
        (["--method", "ngram", "--template", "snli", "--context", "premise"], "--template='snli' has an effect only"),
        (["--fold-seed", "3"], "--fold-seed=3 has an effect only with --method kfold or ngram"),
        (["--workers", "3"], "--workers=3 has an effect only with --engine ray"),
        (["--method", "ngram", "--finetune-steps", "5"], "--finetune-steps=5 has an effect only with --method kfold"),
    ],
)
def test_a_scoring_option_without_effect_is_refused(tmp_path: Path, extra: list[str], fragment: str) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    refused(["score", str(data), "--text", "hypothesis", "--backend", "fake", *extra, "--out",
             str(tmp_path / "s.parquet")], fragment)  # fmt: skip
    assert not (tmp_path / "s.parquet").exists()


def test_options_without_effect_in_evaluate_and_ood_rank_are_refused() -> None:
    from tailsplit.config import EvaluateConfig, OodRankConfig, check_values
    from tailsplit.errors import ConfigError

    with pytest.raises(ConfigError, match="zero_shot_template='x {label}' has an effect only with zero_shot=True"):
        check_values(EvaluateConfig(zero_shot_template="x {label}"))
    with pytest.raises(ConfigError, match="fairness_margin=0.05 has an effect only with an in-the-loop model"):
        check_values(EvaluateConfig(fairness_margin=0.05, baselines=["tfidf"]))
    check_values(EvaluateConfig(fairness_margin=0.05, baselines=["lm"]))
    with pytest.raises(ConfigError, match="min_drop=0.1 has an effect only when the accuracy drop is measured"):
        check_values(OodRankConfig(min_drop=0.1, skip_training=True))
    with pytest.raises(ConfigError, match="id_accuracy=1.5 must be between 0 and 1"):
        OodRankConfig(id_accuracy=1.5)


@pytest.mark.parametrize("value", [["a", "b"], {"x": 1}])
@pytest.mark.parametrize("role", ["label", "id"])
def test_list_and_dict_labels_and_ids_are_refused(tmp_path: Path, value: object, role: str) -> None:
    rows = pairs()
    rows[4][role] = value
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    args = [*split_args(data, tmp_path / "o"), *(["--label", "label"] if role == "label" else [])]
    refused(args, "d.jsonl:5:", f"'{role}'", "not one value")


def test_score_out_must_name_a_parquet_file(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    refused(["score", str(data), "--text", "hypothesis", "--backend", "fake", "--out", str(tmp_path / "x.csv")],
            "a score file is Parquet", "'x.parquet'")  # fmt: skip
    assert not (tmp_path / "x.csv").exists()


def test_an_empty_label_word_is_refused(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    refused(["score", str(data), "--text", "hypothesis", "--context", "premise", "--label", "label", "--backend",
             "fake", "--template", "snli", "--label-word", "neutral= ", "--out", str(tmp_path / "s.parquet")],
            "empty word")  # fmt: skip


def test_non_text_role_names_are_refused_in_python() -> None:
    import pandas as pd

    import tailsplit
    from tailsplit.errors import ConfigError

    table = pd.DataFrame({0: ["a b c"] * 20, 1: ["x", "y"] * 10})
    with pytest.raises(ConfigError, match="text=0 is not text, so not a field name"):
        tailsplit.run(tailsplit.RunConfig(data=tailsplit.DataConfig(table=table, text=0)))  # type: ignore[arg-type]


# -- 5b. an audit never calls a copy clean ----------------------------------------------------


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


def test_a_bad_value_in_a_dataframe_is_reported_at_its_own_row() -> None:
    import pandas as pd

    from tailsplit.core import FieldMap
    from tailsplit.errors import InputError
    from tailsplit.io.examples import load_examples

    base = {"text": [f"a b {i}" for i in range(20)], "label": ["x", "y"] * 10}
    null_text = pd.DataFrame(base)
    null_text.loc[4, "text"] = None
    list_label = pd.DataFrame(base).astype({"label": object})
    list_label.at[4, "label"] = ["x", "y"]
    for table, field in ((null_text, "text"), (list_label, "label")):
        with pytest.raises(InputError, match=f"row 5: field '{field}'"):
            load_examples(table, FieldMap(text="text", label="label"))


def test_accuracies_outside_zero_to_one_are_refused(tmp_path: Path) -> None:
    points = tmp_path / "p.csv"
    points.write_text("id_acc,ood_acc\n0.5,0.4\n0.6,1.4\n0.7,0.5\n", encoding="utf-8")
    refused(["correlate", str(points)], "p.csv:3:", "'ood_acc'", "not an accuracy between 0 and 1", "0.83, not 83")


@pytest.mark.model
def test_max_tokens_beyond_the_models_context_is_refused(tiny_llama: Path, tmp_path: Path) -> None:
    from tailsplit.errors import ConfigError
    from tailsplit.scoring.hf import HFScorer

    with pytest.raises(ConfigError, match="max.tokens=100000 is beyond the model's context of 512 tokens"):
        HFScorer(str(tiny_llama), cache_dir=tmp_path, max_tokens=100_000).context_limit()
    assert HFScorer(str(tiny_llama), cache_dir=tmp_path, max_tokens=100).context_limit() == 100


@pytest.mark.model
def test_ood_rank_takes_a_split_folder_as_id_with_given_accuracies(tmp_path: Path) -> None:
    folder = random_split(tmp_path)
    (tmp_path / "c.csv").write_text(f"name,path,fields,source,accuracy\nb,{tmp_path / 'r.jsonl'},hypothesis,s,0.5\n")
    output = ok(["ood-rank", "--id", f"{folder}@hypothesis", "--candidates", str(tmp_path / "c.csv"),
                 "--id-accuracy", "0.8", "--out", str(tmp_path / "ood")])  # fmt: skip
    assert "drop 0.300" in " ".join(output.split())


# -- 6. the safety net: generated hostile input for the commands that embed or train ----------


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
