"""The claim beside each output never hurts a file: the lock is created exclusively, and a file
already at the lock path is taken over only when it is one tailsplit wrote (a regular file with
one link, this user's, empty or holding a claim on this output) — a hard link to a data file,
another user's file or any other content is refused, untouched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import write_jsonl
from hostile import ok, pairs, refused

from tailsplit.io import claims

SPLIT = ["--text", "hypothesis", "--label", "label", "--splitter", "random", "--no-analyze"]


def test_a_hard_link_at_the_lock_path_never_truncates_the_file_it_names(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "in.jsonl", pairs())
    before = data.read_bytes()
    (tmp_path / "out").mkdir()
    os.link(data, tmp_path / "out" / ".K07.tailsplit-lock")
    refused(
        ["split", str(data), *SPLIT, "--out", str(tmp_path / "out" / "K07")], "is not tailsplit's lock file", "links"
    )
    assert data.read_bytes() == before
    assert not (tmp_path / "out" / "K07").exists()


def test_a_hard_link_at_the_lock_of_a_score_file_is_refused(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "in.jsonl", pairs())
    before = data.read_bytes()
    os.link(data, tmp_path / ".scores.parquet.tailsplit-lock")
    refused(
        ["score", str(data), "--text", "hypothesis", "--method", "ngram", "--out", str(tmp_path / "scores.parquet")],
        "is not tailsplit's lock file",
    )
    assert data.read_bytes() == before


def test_a_hard_link_at_the_lock_of_an_export_is_refused(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "in.jsonl", pairs())
    ok(["split", str(data), *SPLIT, "--out", str(tmp_path / "s")])
    before = data.read_bytes()
    os.link(data, tmp_path / ".hf.tailsplit-lock")
    refused(["export", "hf", str(tmp_path / "s"), "--out", str(tmp_path / "hf")], "is not tailsplit's lock file")
    assert data.read_bytes() == before
    assert not (tmp_path / "hf").exists()


@pytest.mark.parametrize("content", [b"my notes\n", b"123 /somewhere/else\n", b"x" * 5000])
def test_a_lock_path_holding_anything_but_a_claim_is_left_as_it_is(tmp_path: Path, content: bytes) -> None:
    lock = tmp_path / ".o.tailsplit-lock"
    lock.write_bytes(content)
    with pytest.raises(Exception, match="is not tailsplit's lock file"):
        claims.claim_output(tmp_path / "o")
    assert lock.read_bytes() == content


@pytest.mark.parametrize("stale", [b"", "{pid} {out}\n"])
def test_a_lock_a_killed_run_left_is_taken_over(tmp_path: Path, stale: bytes | str) -> None:
    out = tmp_path / "o"
    lock = tmp_path / ".o.tailsplit-lock"
    text = stale if isinstance(stale, bytes) else stale.format(pid=999_999_999, out=os.path.realpath(out)).encode()
    lock.write_bytes(text)
    claims.claim_output(out)
    try:
        assert lock.read_bytes() == f"{os.getpid()} {os.path.realpath(out)}\n".encode()
    finally:
        claims.release_output(out)
    assert not lock.exists()


def test_the_lock_is_created_exclusively(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock path that appears between the check and the open (a race) is opened as an
    existing file and checked, never created over."""
    seen: list[int] = []
    real_open = os.open

    def spy(path: object, flags: int, *args: object) -> int:
        if str(path).endswith(claims.LOCK_SUFFIX):
            seen.append(flags)
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(claims.os, "open", spy)
    claims.claim_output(tmp_path / "o")
    claims.release_output(tmp_path / "o")
    assert seen and seen[0] & os.O_CREAT and seen[0] & os.O_EXCL


def test_stale_locks_in_a_cache_folder_go_and_held_ones_stay(tmp_path: Path) -> None:
    held = tmp_path / "a"
    claims.claim_output(held)
    try:
        stale = tmp_path / ".b.tailsplit-lock"
        stale.write_bytes(f"999999999 {os.path.realpath(tmp_path / 'b')}\n".encode())
        foreign = tmp_path / ".c.tailsplit-lock"
        foreign.write_bytes(b"not a claim\n")
        removed = claims.remove_stale_locks(tmp_path)
        assert removed == [stale]
        assert (tmp_path / ".a.tailsplit-lock").exists() and foreign.exists()
    finally:
        claims.release_output(held)
