"""No option or input makes tailsplit work without bound: every numeric option has a declared
range (an expensive one is sized before it starts), a record's 64 MiB limit is exact however
it falls across read blocks, an overlap index has at most one shard per corpus line, and what a
killed run left in the cache goes with the next run whatever its settings."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from helpers import nli_pairs, write_jsonl
from hostile import ok, refused

from tailsplit.config import COMMAND_CONFIGS, declared_option
from tailsplit.config.declare import field_types
from tailsplit.config.values import is_list_type
from tailsplit.io.files import MAX_RECORD_BYTES
from tailsplit.overlap.corpus import split_into_parts
from tailsplit.overlap.sharded import plan_shards

NUMBERS = (int, float)


def _is_number(hint: object) -> bool:
    import typing

    args = [a for a in typing.get_args(hint) if a is not type(None)] or [hint]
    if is_list_type(hint):
        args = [a for arg in args for a in typing.get_args(arg)[:1]]
    return any(a in NUMBERS for a in args)


@pytest.mark.parametrize("cls", COMMAND_CONFIGS, ids=lambda c: c.__name__)
def test_every_numeric_option_declares_its_range(cls: type) -> None:
    hints = field_types(cls)
    for f in dataclasses.fields(cls):
        declared = declared_option(f)
        if declared is None or not _is_number(hints[f.name]):
            continue
        assert declared.bounds is not None, f"{cls.__name__}.{f.name} has no declared range"


def test_a_record_longer_than_the_limit_is_refused_wherever_it_falls(tmp_path: Path) -> None:
    """A 65 MiB line that begins in one 8 MiB read block and ends in a later one."""
    data = tmp_path / "big.jsonl"
    with open(data, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"hypothesis": "a b", "label": "x"}) + "\n")
        handle.write(json.dumps({"hypothesis": "y" * ((65 << 20) - 40), "label": "y"}) + "\n")
        handle.write(json.dumps({"hypothesis": "c d", "label": "x"}) + "\n")
    refused(["split", str(data), "--text", "hypothesis", "--splitter", "random", "--no-analyze", "--out",
             str(tmp_path / "o")], "big.jsonl:2:", "longer than 64 MiB")  # fmt: skip
    assert not (tmp_path / "o").exists()


def test_a_record_of_exactly_the_limit_is_read(tmp_path: Path) -> None:
    data = tmp_path / "edge.jsonl"
    record = json.dumps({"hypothesis": "y" * (MAX_RECORD_BYTES - 64), "label": "y"}).encode()
    data.write_bytes(record + b" " * (MAX_RECORD_BYTES - len(record) - 1) + b"\n" + b'{"hypothesis": "c d"}\n')
    assert data.stat().st_size > MAX_RECORD_BYTES
    ok(["split", str(data), "--text", "hypothesis", "--splitter", "random", "--no-analyze", "--dev-size", "0",
        "--test-size", "1", "--out", str(tmp_path / "o")])  # fmt: skip


def test_a_samples_file_with_a_record_past_the_limit_is_refused(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))
    samples = tmp_path / "samples_task.jsonl"
    with open(samples, "w", encoding="utf-8") as handle:
        doc = {"id": "p0", "hypothesis": "x" * (65 << 20)}
        handle.write(json.dumps({"doc_id": 0, "doc": doc, "resps": [[[-1.0, False]]]}) + "\n")
    refused(["split", str(data), "--text", "hypothesis", "--splitter", "likelihood", "--scores", str(samples),
             "--no-analyze", "--out", str(tmp_path / "o")], "samples_task.jsonl:1:", "longer than 64 MiB")  # fmt: skip


def corpus(tmp_path: Path, lines: int) -> Path:
    path = tmp_path / "corpus.txt"
    path.write_text("".join(f"someone walks {i} times today by the river\n" for i in range(lines)), encoding="utf-8")
    return path


def test_shards_never_outnumber_the_corpus_lines(tmp_path: Path) -> None:
    path = corpus(tmp_path, 30)
    plan = plan_shards([path], 1000)
    assert len(plan) == 30
    starts = [part.start for group in plan for part in group]
    text = path.read_bytes()
    assert all(start == 0 or text[start - 1 : start] == b"\n" for start in starts)  # whole lines only
    assert len(split_into_parts([path], 1)) == 30


def test_a_shard_count_past_its_range_is_refused_before_work(tmp_path: Path) -> None:
    path = corpus(tmp_path, 30)
    test = write_jsonl(tmp_path / "t.jsonl", nli_pairs(5))
    refused(["overlap", "--test", str(test), "--text", "hypothesis", "--corpus", str(path), "--shards", "100000"],
            "--shards=100000 must be between 1 and 1024")  # fmt: skip


def test_a_killed_runs_staging_and_lock_go_with_the_next_run_whatever_its_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(cache))
    overlap = cache / "overlap"
    staging = overlap / ".0123abcd-shards500.tmp-999999999-dead"
    (staging / "shard-0001").mkdir(parents=True)
    (staging / "shard-0001" / "tokens.npy").write_bytes(b"x" * 1000)
    lock = overlap / ".0123abcd-shards500.tailsplit-lock"
    lock.write_bytes(f"999999999 {os.path.realpath(overlap / '0123abcd-shards500')}\n".encode())
    test = write_jsonl(tmp_path / "t.jsonl", nli_pairs(5))
    path = corpus(tmp_path, 30)
    ok(["overlap", "--test", str(test), "--text", "hypothesis", "--corpus", str(path), "--shards", "1"])
    assert not staging.exists() and not lock.exists()


def test_too_many_null_splits_are_refused_before_any_work(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))
    refused(["split", str(data), "--text", "hypothesis", "--splitter", "random", "--null-splits", "1000000000",
             "--out", str(tmp_path / "o")], "--null-splits=1000000000 must be between 1 and 100000")  # fmt: skip
    assert not (tmp_path / "o").exists()


def test_null_distributions_larger_than_memory_allows_are_refused() -> None:
    from tailsplit.analysis.null import check_null_size
    from tailsplit.errors import ConfigError

    with pytest.raises(ConfigError, match="give at most 13,421"):
        check_null_size(100_000, 20_000)
    check_null_size(100_000, 2_000)


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--ngram-orders", ""], "names no number"),
        (["--ngram-orders", "100000"], "--ngram-orders=(100000,) must be between 1 and 64"),
    ],
)
def test_ngram_orders_name_at_least_one_size_in_range(tmp_path: Path, args: list[str], fragment: str) -> None:
    test = write_jsonl(tmp_path / "t.jsonl", nli_pairs(5))
    refused(["overlap", "--test", str(test), "--text", "hypothesis", "--corpus", str(corpus(tmp_path, 5)), *args],
            fragment)  # fmt: skip


def test_an_empty_ngram_orders_is_refused_in_python(tmp_path: Path) -> None:
    import tailsplit

    test = write_jsonl(tmp_path / "t.jsonl", nli_pairs(5))
    with pytest.raises(tailsplit.ConfigError, match=r"^ngram_orders=\(\) names no n-gram size"):
        tailsplit.audit_overlap(test, corpus=[corpus(tmp_path, 5)], text="hypothesis", ngram_orders=[])
