"""Hostile outputs: an index folder never replaces a file or an input, overwrite keeps what the user added, a second run on one output is refused while the first runs, a full disk under the score cache never invites deleting it, and a refused run or export gives its output back untouched."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import pytest
from helpers import split_args, write_jsonl
from hostile import (
    ok,
    overlap_args,
    pairs,
    refused,
)

from tailsplit.io import claims


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


def test_score_out_must_name_a_parquet_file(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    refused(["score", str(data), "--text", "hypothesis", "--backend", "fake", "--out", str(tmp_path / "x.csv")],
            "a score file is Parquet", "'x.parquet'")  # fmt: skip
    assert not (tmp_path / "x.csv").exists()
