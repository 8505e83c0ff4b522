"""A catalogue of bad inputs and faults, driven through the CLI.

Each case is one table row: how to build its files, the command's arguments, and a phrase of
the message. Every case must end with exit 2, one message, no traceback, no partial output,
inputs untouched and no model or scoring call (the fake scorer counts its calls).
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from helpers import write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app

runner = CliRunner()

LABELS = ("entailment", "neutral", "contradiction")


def pairs(n: int = 30, **extra: object) -> list[dict]:
    return [
        {
            "id": f"p{i}",
            "premise": f"A person number {i} walks.",
            "hypothesis": f"Someone {'is ' * (i % 5)}walking {i}.",
            "label": LABELS[i % 3],
            **extra,
        }
        for i in range(n)
    ]


def good(ws: Path) -> None:
    write_jsonl(ws / "good.jsonl", pairs())


def gz_truncated(ws: Path) -> None:
    data = gzip.compress("".join(json.dumps(r) + "\n" for r in pairs(300)).encode())
    (ws / "bad.jsonl.gz").write_bytes(data[: len(data) // 2])


def gz_not_gzip(ws: Path) -> None:
    (ws / "bad.jsonl.gz").write_text("".join(json.dumps(r) + "\n" for r in pairs()))


def gz_corrupt(ws: Path) -> None:
    data = bytearray(gzip.compress("".join(json.dumps(r) + "\n" for r in pairs(300)).encode()))
    for i in range(40, 80):
        data[i] ^= 0xFF
    (ws / "bad.jsonl.gz").write_bytes(bytes(data))


def csv_stray_quote(ws: Path) -> None:
    rows = ["id,hypothesis,label"] + [f"r{i},text {i},{LABELS[i % 3]}" for i in range(16)]
    rows[4] = 'r3,"an unclosed quote,neutral'
    (ws / "bad.csv").write_text("\n".join(rows) + "\n")


def tsv_quotes(ws: Path) -> None:
    rows = ["id\thypothesis\tlabel"] + [f"r{i}\ttext {i}\t{LABELS[i % 3]}" for i in range(16)]
    rows[4] = 'r3\t"Hello" he said\tneutral'
    rows[6] = 'r5\t"an unclosed quote\tneutral'
    (ws / "quotes.tsv").write_text("\n".join(rows) + "\n")


def two_groups(ws: Path) -> None:
    write_jsonl(ws / "groups.jsonl", [{**r, "g": "a" if i < 15 else "b"} for i, r in enumerate(pairs())])


def bracket_label(ws: Path) -> None:
    write_jsonl(ws / "br.jsonl", [{**r, "label": "[/]" if i % 2 else "[bold]x"} for i, r in enumerate(pairs())])


def bracket_dup_id(ws: Path) -> None:
    write_jsonl(ws / "br.jsonl", [{**r, "id": "[/]"} for r in pairs()])


def inst_query(ws: Path) -> None:
    write_jsonl(ws / "inst.jsonl", [{**r, "hypothesis": "[INST] hi [/INST]"} for r in pairs()])


def score_clash(ws: Path) -> None:
    write_jsonl(ws / "clash.jsonl", [{**r, "logprob_sum": 1.0} for r in pairs()])


def rare_label(ws: Path) -> None:
    write_jsonl(ws / "rare.jsonl", [{**r, "label": "rare" if i == 0 else "common"} for i, r in enumerate(pairs())])


def model_folder(ws: Path, config: str | None = '{"model_type": "llama"}', tokenizer: bool = False) -> Path:
    folder = ws / "model"
    folder.mkdir()
    if config is not None:
        (folder / "config.json").write_text(config)
    if tokenizer:
        (folder / "tokenizer.json").write_text("{}")
    return folder


def garbage_config(ws: Path) -> None:
    good(ws)
    model_folder(ws, config="{not json")


def no_tokenizer(ws: Path) -> None:
    good(ws)
    folder = model_folder(ws)
    (folder / "model.safetensors").write_bytes(b"\0" * 64)


def pickle_bin(ws: Path) -> None:
    good(ws)
    folder = model_folder(ws, tokenizer=True)
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04pickle")


def random_gguf(ws: Path) -> None:
    good(ws)
    (ws / "m.gguf").write_bytes(os.urandom(4096))


def corrupt_cache(ws: Path) -> None:
    good(ws)
    (ws / "cache").mkdir()
    (ws / "cache" / "scores-v1.sqlite").write_bytes(b"SQLite format 3\0" + os.urandom(4000))


def split_folder(ws: Path) -> None:
    good(ws)
    result = runner.invoke(
        app, ["split", "good.jsonl", "--text", "hypothesis", "--splitter", "random", "--no-analyze", "--out", "split"]
    )
    assert result.exit_code == 0, result.output


def unrelated_folder(ws: Path) -> None:
    (ws / "inputdir").mkdir()
    write_jsonl(ws / "inputdir" / "x.jsonl", pairs())
    (ws / "inputdir" / "notes.txt").write_text("my notes")
    (ws / "inputdir" / "sub").mkdir()
    (ws / "inputdir" / "sub" / "keep.txt").write_text("keep")


def my_folder(ws: Path) -> None:
    good(ws)
    (ws / "mine").mkdir()
    (ws / "mine" / "notes.txt").write_text("my notes")


def existing_file(ws: Path) -> None:
    good(ws)
    (ws / "taken.parquet").write_bytes(b"precious")


def corrupt_scores(ws: Path) -> None:
    good(ws)
    (ws / "s.parquet").write_bytes(b"PAR1" + os.urandom(200))


def damaged_hf_folder(ws: Path) -> None:
    (ws / "hf").mkdir()
    (ws / "hf" / "state.json").write_text("{broken")


def bom_jsonl(ws: Path) -> None:
    (ws / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + "".join(json.dumps(r) + "\n" for r in pairs()).encode())


def pretty_array(ws: Path) -> None:
    (ws / "arr.json").write_text(json.dumps(pairs(3), indent=2))


def bad_recipe(body: str) -> Callable[[Path], None]:
    def build(ws: Path) -> None:
        good(ws)
        (ws / "recipe.toml").write_text(body)

    return build


def bad_points(ws: Path) -> None:
    (ws / "points.csv").write_text("id_accuracy,ood_accuracy\n0.9,0.5\n0.8,0.4\n")


def overlap_inputs(ws: Path) -> None:
    good(ws)
    data = gzip.compress(b"a sentence\n" * 2000)
    (ws / "corpus.txt.gz").write_bytes(data[: len(data) // 2])


def foreign_index(ws: Path) -> None:
    """The files of an infini-gram index tailsplit did not build, its suffix array cut short."""
    good(ws)
    (ws / "ig").mkdir()
    (ws / "ig" / "tokenized.0").write_bytes(b"\xff\xff\x01\x00\x02\x00" * 50)
    (ws / "ig" / "offset.0").write_bytes(bytes(8))
    (ws / "ig" / "table.0").write_bytes(bytes(10))


def busy_folder(ws: Path) -> None:
    good(ws)
    (ws / "ig").mkdir()
    (ws / "ig" / "notes.txt").write_text("mine")


RUN = ["--backend", "fake", "--quiet"]
SNLI = ["--text", "hypothesis", "--context", "premise", "--label", "label"]


@dataclass
class Case:
    name: str
    build: Callable[[Path], None]
    args: list[str]
    phrase: str
    # files that must not exist afterwards (partial output)
    absent: list[str] = field(default_factory=lambda: ["out"])


CASES = [
    # -- reading files exactly --
    Case(
        "truncated gzip",
        gz_truncated,
        ["run", "bad.jsonl.gz", "--text", "hypothesis", *RUN, "--out", "out"],
        "bad.jsonl.gz",
    ),
    Case(
        "not gzip",
        gz_not_gzip,
        ["run", "bad.jsonl.gz", "--text", "hypothesis", *RUN, "--out", "out"],
        "not a gzip file",
    ),
    Case(
        "corrupt gzip",
        gz_corrupt,
        ["run", "bad.jsonl.gz", "--text", "hypothesis", *RUN, "--out", "out"],
        "bad.jsonl.gz",
    ),
    Case(
        "csv stray quote",
        csv_stray_quote,
        ["run", "bad.csv", "--text", "hypothesis", *RUN, "--out", "out"],
        "bad.csv:5",
    ),
    Case(
        "damaged datasets folder",
        damaged_hf_folder,
        ["split", "hf", "--text", "hypothesis", "--splitter", "random", "--out", "out"],
        "state.json",
    ),
    Case(
        "corrupt score file",
        corrupt_scores,
        ["split", "good.jsonl", "--text", "hypothesis", "--scores", "s.parquet", "--out", "out"],
        "s.parquet",
    ),
    Case(
        "pretty JSON array",
        pretty_array,
        ["run", "arr.json", "--text", "hypothesis", *RUN, "--out", "out"],
        "JSON array",
    ),
    Case(
        "missing overlap corpus",
        good,
        ["overlap", "--test", "good.jsonl", "--text", "hypothesis", "--corpus", "nope.txt", "--out", "out"],
        "nope.txt",
    ),
    Case(
        "truncated overlap corpus",
        overlap_inputs,
        ["overlap", "--test", "good.jsonl", "--text", "hypothesis", "--corpus", "corpus.txt.gz", "--out", "out"],
        "corpus.txt.gz",
    ),
    Case(
        "infini-gram index cut short",
        foreign_index,
        [
            "overlap",
            "--test",
            "good.jsonl",
            "--text",
            "hypothesis",
            "--infini-gram",
            "ig",
            "--index-tokenizer",
            "ig",
            "--out",
            "out",
        ],
        "has table.0 of 10 bytes",
    ),  # fmt: skip
    Case(
        "infini-gram folder of other files",
        busy_folder,
        [
            "overlap",
            "--test",
            "good.jsonl",
            "--text",
            "hypothesis",
            "--corpus",
            "good.jsonl",
            "--infini-gram",
            "ig",
            "--out",
            "out",
        ],
        "did not write",
    ),  # fmt: skip
    Case(
        "known members without non-members",
        good,
        ["score", "good.jsonl", *SNLI, "--membership-k", "20", "--members", "good.jsonl", "--out", "s.parquet"],
        "needs --non-members too",
        ["s.parquet"],
    ),
    Case(
        "a text known to be a member and not to be",
        good,
        [
            "score",
            "good.jsonl",
            *SNLI,
            "--membership-k",
            "20",
            "--members",
            "good.jsonl",
            "--non-members",
            "good.jsonl",
            "--out",
            "s.parquet",
        ],
        "holds a text that --members holds too",
        ["s.parquet"],
    ),  # fmt: skip
    # -- outputs --
    Case(
        "score --out is its input",
        good,
        ["score", "good.jsonl", "--text", "hypothesis", *RUN, "--out", "good.jsonl"],
        "input of this run",
    ),
    Case(
        "score --out input with overwrite",
        good,
        ["score", "good.jsonl", "--text", "hypothesis", *RUN, "--overwrite", "--out", "good.jsonl"],
        "input of this run",
    ),
    Case(
        "score --out existing file",
        existing_file,
        ["score", "good.jsonl", "--text", "hypothesis", *RUN, "--out", "taken.parquet"],
        "already exists",
    ),
    Case(
        "overwrite a folder holding the input",
        unrelated_folder,
        [
            "split",
            "inputdir/x.jsonl",
            "--text",
            "hypothesis",
            "--splitter",
            "random",
            "--overwrite",
            "--out",
            "inputdir",
        ],
        "input of this run",
        absent=[],
    ),
    Case(
        "overwrite a folder tailsplit did not write",
        my_folder,
        ["split", "good.jsonl", "--text", "hypothesis", "--splitter", "random", "--overwrite", "--out", "mine"],
        "not written by tailsplit",
        absent=[],
    ),
    Case(
        "evaluate into the split it reads",
        split_folder,
        ["evaluate", "split", "--overwrite", "--out", "split"],
        "input of this run",
        absent=[],
    ),
    Case(
        "similarity into the split it reads",
        split_folder,
        ["similarity", "--split", "split", "--overwrite", "--out", "split"],
        "input of this run",
        absent=[],
    ),
    Case(
        "--out is a file",
        existing_file,
        ["split", "good.jsonl", "--text", "hypothesis", "--splitter", "random", "--out", "taken.parquet"],
        "existing file",
        absent=[],
    ),
    Case(
        "--out is .",
        good,
        ["split", "good.jsonl", "--text", "hypothesis", "--splitter", "random", "--out", "."],
        "current folder",
        absent=[],
    ),
    Case(
        "--out under /proc",
        good,
        ["split", "good.jsonl", "--text", "hypothesis", "--splitter", "random", "--out", "/proc/tailsplit-out"],
        "system folder",
        absent=[],
    ),
    Case(
        "--out under /sys",
        good,
        ["split", "good.jsonl", "--text", "hypothesis", "--splitter", "random", "--out", "/sys/tailsplit-out"],
        "system folder",
        absent=[],
    ),
    # -- cheap checks before scoring --
    Case(
        "sizes too large",
        good,
        ["run", "good.jsonl", "--text", "hypothesis", *RUN, "--dev-size", "0.6", "--test-size", "0.6", "--out", "out"],
        "ask for fewer",
    ),
    Case(
        "non-empty out before scoring",
        my_folder,
        ["run", "good.jsonl", "--text", "hypothesis", *RUN, "--out", "mine"],
        "already exists",
        absent=[],
    ),
    Case(
        "score column clash before scoring",
        score_clash,
        ["run", "clash.jsonl", "--text", "hypothesis", *RUN, "--out", "out"],
        "logprob_sum",
    ),
    Case(
        "label quota before scoring",
        rare_label,
        [
            "run",
            "rare.jsonl",
            "--text",
            "hypothesis",
            "--label",
            "label",
            "--balance-labels",
            "--dev-size",
            "0.3",
            "--test-size",
            "0.3",
            *RUN,
            "--out",
            "out",
        ],
        "label 'rare'",
    ),
    Case(
        "template role before scoring",
        good,
        ["run", "good.jsonl", "--text", "hypothesis", "--template", "snli", *RUN, "--out", "out"],
        "uses {context}",
    ),
    Case("split without scores", good, ["split", "good.jsonl", "--text", "hypothesis", "--out", "out"], "--scores"),
    Case(
        "groups leave dev and test empty",
        two_groups,
        ["split", "groups.jsonl", "--text", "hypothesis", "--group", "g", "--splitter", "random", "--out", "out"],
        "the 2 groups",
    ),
    Case(
        "label word for an absent label",
        good,
        ["run", "good.jsonl", *SNLI, "--template", "snli", "--label-word", "entailmnt=yes", *RUN, "--out", "out"],
        "entailmnt",
    ),
    # -- devices and models (no model may load) --
    Case(
        "cuda without cuda",
        good,
        ["run", "good.jsonl", "--text", "hypothesis", "--device", "cuda", "--quiet", "--out", "out"],
        "CUDA",
    ),
    Case(
        "cuda:1 without cuda",
        good,
        ["run", "good.jsonl", "--text", "hypothesis", "--device", "cuda:1", "--quiet", "--out", "out"],
        "CUDA",
    ),
    Case(
        "tpu",
        good,
        ["run", "good.jsonl", "--text", "hypothesis", "--device", "tpu", "--quiet", "--out", "out"],
        "device='tpu'",
    ),
    Case(
        "garbage config.json",
        garbage_config,
        ["run", "good.jsonl", "--text", "hypothesis", "--model", "model", "--quiet", "--out", "out"],
        "config.json",
    ),
    Case(
        "model folder without tokenizer",
        no_tokenizer,
        ["run", "good.jsonl", "--text", "hypothesis", "--model", "model", "--quiet", "--out", "out"],
        "tokenizer",
    ),
    Case(
        "pickle weights",
        pickle_bin,
        ["run", "good.jsonl", "--text", "hypothesis", "--model", "model", "--quiet", "--out", "out"],
        ".bin",
    ),
    Case(
        "random .gguf",
        random_gguf,
        ["run", "good.jsonl", "--text", "hypothesis", "--model", "m.gguf", "--quiet", "--out", "out"],
        "m.gguf",
    ),
    Case(
        "corrupt score cache",
        corrupt_cache,
        ["run", "good.jsonl", "--text", "hypothesis", *RUN, "--cache-dir", "cache", "--out", "out"],
        "safe to delete",
    ),
    Case(
        "bad encoder",
        good,
        [
            "similarity",
            "a=good.jsonl@hypothesis",
            "b=good.jsonl@premise",
            "--encoder",
            "./no-such-encoder",
            "--out",
            "out",
        ],
        "no-such-encoder",
    ),
    # -- options --
    Case(
        "unbalanced brace",
        good,
        ["run", "good.jsonl", "--text", "hypothesis", "--template", "Q: {text", *RUN, "--out", "out"],
        "template",
    ),
    Case(
        "indexed placeholder",
        good,
        ["run", "good.jsonl", "--text", "hypothesis", "--template", "Q {a[b]} {text}", *RUN, "--out", "out"],
        "{a[b]}",
    ),
    Case(
        "analyze with no null splits",
        split_folder,
        ["analyze", "split", "--null-splits", "0"],
        "--null-splits",
        absent=[],
    ),
    Case(
        "unknown count",
        good,
        [
            "split",
            "good.jsonl",
            "--text",
            "hypothesis",
            "--program",
            "hypothesis",
            "--splitter",
            "random",
            "--count",
            "tokens",
            "--out",
            "out",
        ],
        "count='tokens'",
    ),
    Case(
        "unknown fold match",
        good,
        [
            "run",
            "good.jsonl",
            "--text",
            "hypothesis",
            "--method",
            "ngram",
            "--fold-match",
            "fuzzy",
            *RUN,
            "--out",
            "out",
        ],
        "--fold-match='fuzzy' is unknown",
    ),
    Case(
        "unknown analysis text",
        good,
        [
            "split",
            "good.jsonl",
            "--text",
            "hypothesis",
            "--splitter",
            "random",
            "--analysis-text",
            "all",
            "--out",
            "out",
        ],
        "--analysis-text='all' is unknown",
    ),
    Case(
        "pair analysis without a context",
        good,
        [
            "split",
            "good.jsonl",
            "--text",
            "hypothesis",
            "--splitter",
            "random",
            "--analysis-text",
            "pair",
            "--out",
            "out",
        ],
        "--context",
    ),
    Case(
        "end token that cannot end",
        good,
        ["run", "good.jsonl", "--text", "hypothesis", "--score-eos", "--end-token", "none", "--quiet", "--out", "out"],
        "--end-token='none'",
    ),
    Case(
        "negative seed",
        good,
        ["split", "good.jsonl", "--text", "hypothesis", "--splitter", "random", "--seed", "-1", "--out", "out"],
        "--seed",
    ),
    Case(
        "negative null splits",
        good,
        ["split", "good.jsonl", "--text", "hypothesis", "--splitter", "random", "--null-splits", "-5", "--out", "out"],
        "null-splits",
    ),
    Case(
        "zero null splits",
        good,
        ["split", "good.jsonl", "--text", "hypothesis", "--splitter", "random", "--null-splits", "0", "--out", "out"],
        "null-splits",
    ),
    Case(
        "length buckets abc",
        good,
        [
            "split",
            "good.jsonl",
            "--text",
            "hypothesis",
            "--splitter",
            "random",
            "--length-buckets",
            "abc",
            "--out",
            "out",
        ],
        "whole number",
    ),
    Case("bracket text field", good, ["run", "good.jsonl", "--text", "[/x]", *RUN, "--out", "out"], "[/x]"),
    Case(
        "bracket duplicate id",
        bracket_dup_id,
        ["split", "br.jsonl", "--text", "hypothesis", "--splitter", "random", "--out", "out"],
        "[/]",
    ),
    Case(
        "recipe with a string for a list",
        bad_recipe('[data]\npaths = "good.jsonl"\ntext = "hypothesis"\n'),
        ["split", "--config", "recipe.toml", "--splitter", "random", "--out", "out"],
        "paths",
    ),
    Case(
        "recipe with a string for a bool",
        bad_recipe(
            '[data]\npaths = ["good.jsonl"]\ntext = "hypothesis"\n[split]\nsplitter = "random"\nbalance_labels = "yes"\n'
        ),
        ["split", "--config", "recipe.toml", "--out", "out"],
        "balance_labels",
    ),
    Case(
        "recipe with an unknown section",
        bad_recipe('[dataa]\ntext = "x"\n'),
        ["split", "--config", "recipe.toml", "--out", "out"],
        "[dataa]",
    ),
    Case("correlate with a wrong header", bad_points, ["correlate", "points.csv", "--out", "out"], "id_acc"),
]


def snapshot(ws: Path) -> dict[str, str]:
    return {
        p.relative_to(ws).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(ws.rglob("*"))
        if p.is_file() and "cache" not in p.parts
    }


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.model) if c.name.startswith("cuda") else c for c in CASES],
    ids=[c.name for c in CASES],
)
def test_bad_input_is_one_line_exit_2_and_touches_nothing(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_backend: Any
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.chdir(ws)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    case.build(ws)
    before = snapshot(ws)
    fake_backend.calls = []
    result = runner.invoke(app, case.args)
    output = result.output
    assert result.exit_code == 2, output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), output
    assert "Traceback" not in output
    assert case.phrase in " ".join(output.split()), output
    assert fake_backend.calls == []
    assert snapshot(ws) == before
    for name in case.absent:
        assert not (ws / name).exists()
    assert not [p for p in ws.iterdir() if p.name.startswith(".") and "tmp" in p.name]


def run_cli(ws: Path, args: list[str]) -> tuple[int, str]:
    result = runner.invoke(app, args)
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.output.split())


def leftovers(ws: Path) -> list[str]:
    return [p.name for p in ws.iterdir() if p.name.startswith(".")]


def test_read_only_location_is_refused_before_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_backend: Any
) -> None:
    import tailsplit.io.outputs as outputs

    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.chdir(ws)
    good(ws)
    real = outputs.tempfile.mkdtemp

    def read_only(*args: object, dir: object = None, **kwargs: object) -> str:
        if dir is not None and Path(str(dir)).name == "ro":
            raise OSError(errno.EROFS, "Read-only file system")
        return real(*args, dir=dir, **kwargs)  # type: ignore[arg-type]

    (ws / "ro").mkdir()
    monkeypatch.setattr(outputs.tempfile, "mkdtemp", read_only)
    code, output = run_cli(ws, ["run", "good.jsonl", "--text", "hypothesis", *RUN, "--out", "ro/out"])
    assert code == 2 and "cannot be written (Read-only file system)" in output
    assert fake_backend.calls == [] and not (ws / "ro" / "out").exists()


def test_disk_full_while_writing_outputs_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tailsplit.pipeline.runs.result as split_folder  # where a split folder is written

    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.chdir(ws)
    good(ws)
    real = split_folder.write_records
    written: list[str] = []

    def fills_up(path: Path, records: object, fmt: str, schema: object = None, added: object = None) -> None:
        if written:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(str(path))
        real(path, records, fmt, schema, added)  # type: ignore[arg-type]

    monkeypatch.setattr(split_folder, "write_records", fills_up)
    code, output = run_cli(ws, ["run", "good.jsonl", "--text", "hypothesis", *RUN, "--out", "out"])
    assert code == 2 and "No space left on device" in output and "free some space" in output
    assert not (ws / "out").exists() and leftovers(ws) == []


def test_disk_full_in_the_score_cache_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tailsplit.cache import ScoreCache

    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.chdir(ws)
    good(ws)

    class FullDisk:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def executemany(self, *args: object) -> None:
            raise sqlite3.OperationalError("database or disk is full")

        def __getattr__(self, name: str) -> object:
            return getattr(self.db, name)

    real_init = ScoreCache.__init__

    def init(self: ScoreCache, directory: object) -> None:
        real_init(self, directory)  # type: ignore[arg-type]
        self._db = FullDisk(self._db)  # type: ignore[assignment]

    monkeypatch.setattr(ScoreCache, "__init__", init)
    code, output = run_cli(ws, ["run", "good.jsonl", "--text", "hypothesis", *RUN, "--out", "out"])
    assert code == 2 and "cannot grow" in output and "free some space" in output
    assert not (ws / "out").exists()


def test_the_counting_scorer_sees_a_good_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_backend: Any
) -> None:
    """The catalogue's 'no scoring call' assertion can fail: a good run does call the scorer."""
    monkeypatch.chdir(tmp_path)
    good(tmp_path)
    code, _ = run_cli(tmp_path, ["run", "good.jsonl", "--text", "hypothesis", *RUN, "--no-analyze", "--out", "out"])
    assert code == 0 and sum(fake_backend.calls) == 30
