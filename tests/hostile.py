"""What the hostile-input catalogues share: the command line driven in process with one-line
checks of a refusal (``refused``) or a success (``ok``), small NLI pairs, a folder's files, and
hypothesis strategies for hostile records (``hostile_dataset``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import nli_pairs, split_args, write_jsonl
from hypothesis import strategies as st
from typer.testing import CliRunner

from tailsplit.cli import app

runner = CliRunner()


def pairs(n: int = 30) -> list[dict]:
    return nli_pairs(n, hypothesis="Someone walks {i} times today.")


def refused(args: list[str], *fragments: str) -> str:
    """The command exits 2 with one line (no traceback) holding every fragment."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    message = " ".join(result.output.split())
    for fragment in fragments:
        assert fragment in message, message
    return message


def ok(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.output


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


LINK = "[click](javascript:alert(1))"
IMAGE = "<img src=x onerror=alert(2)>"
ESCAPE = "\x1b]0;pwned\x07\x1b[2J"

HOSTILE_TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", " ", LINK, IMAGE, ESCAPE, "a\tb", "a\nb", "\ud800", "$x$", "NaN", "`", "|"]),
)
HOSTILE_VALUE = st.one_of(
    HOSTILE_TEXT,
    st.integers(-5, 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.lists(st.integers(0, 3), max_size=2),
)


@st.composite
def hostile_dataset(draw: st.DrawFn) -> tuple[list[dict], list[str]]:
    """Mostly ordinary rows (so that runs get through to the writers and reports), labels and
    extra fields from a hostile pool, and up to two fields anywhere replaced by a hostile value."""
    n = draw(st.integers(3, 16))
    label_pool = draw(st.lists(st.sampled_from(["a", "b", LINK, IMAGE, ESCAPE, "$x$", "`", "|", 1, True, 2.5]),
                               min_size=1, max_size=3))  # fmt: skip
    extra = draw(st.sampled_from(["note", IMAGE, LINK, "a.b", "a\tb"]))
    rows = []
    for i in range(n):
        row = {"id": f"r{i}", "text": f"words number {i} " + "x " * draw(st.integers(0, 3))}
        row["label"] = label_pool[i % len(label_pool)]
        if draw(st.booleans()):
            row[extra] = draw(st.one_of(HOSTILE_TEXT, st.integers(-3, 3), st.booleans()))
        rows.append(row)
    for _ in range(draw(st.integers(0, 2))):
        row = rows[draw(st.integers(0, n - 1))]
        row[draw(st.sampled_from(["id", "text", "label", extra]))] = draw(HOSTILE_VALUE)
    options = draw(
        st.lists(
            st.sampled_from(
                [["--label", "label"], ["--balance-labels"], ["--format", "parquet"], ["--format", "tsv"],
                 ["--format", "csv"], ["--format", "hf"], ["--dev-size", "0.3"], ["--test-size", "2"],
                 ["--test-size", "-1"], ["--group", "label"], ["--seed", "-3"], ["--group", extra]]
            ),
            max_size=3,
        )
    )  # fmt: skip
    return rows, [o for option in options for o in option]


def assert_refused_in_one_line(result: Any, *, usage_ok: bool = False) -> None:
    """Exit 2 with one ``error:`` line (warnings aside) and no traceback; with ``usage_ok``,
    the option parser's own usage message for a value it cannot parse is accepted too."""
    assert result.exit_code == 2, (result.exception, result.output)
    assert isinstance(result.exception, SystemExit), result.exception
    lines = [line for line in result.output.splitlines() if line.strip() and not line.startswith("warning:")]
    if usage_ok and lines and lines[0].startswith("Usage:"):
        return
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    assert "Traceback" not in result.output


def fresh_case(tmp_path: Path, rows: list[dict]) -> tuple[Path, Path]:
    """An empty folder for one generated example (hypothesis reuses ``tmp_path``) holding
    ``rows`` as ``d.jsonl``: (the folder, the data file)."""
    import shutil

    work = tmp_path / "case"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    data = work / "d.jsonl"
    write_raw_jsonl(data, rows)
    return work, data


def write_raw_jsonl(path: Path, rows: list[dict]) -> None:
    """Rows as Python's json.dumps writes them (NaN, Infinity and \\ud800 escapes included)."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def overlap_args(tmp_path: Path, *extra: str) -> list[str]:
    """An overlap command on a small test set and a corpus of its hypotheses' kind."""
    test = write_jsonl(tmp_path / "t.jsonl", pairs())
    corpus = tmp_path / "c.txt"
    corpus.write_text("".join(f"someone walks {i} times today\n" for i in range(40)), encoding="utf-8")
    return ["overlap", "--test", str(test), "--text", "hypothesis", "--corpus", str(corpus), *extra]


def random_split(tmp_path: Path, name: str = "r", rows: list[dict] | None = None) -> Path:
    """A random split of small NLI pairs written to ``tmp_path / name`` (its folder)."""
    data = write_jsonl(tmp_path / f"{name}.jsonl", rows or pairs())
    ok([*split_args(data, tmp_path / name), "--null-splits", "5", "--no-syntax"])
    return tmp_path / name


class Elements(__import__("html.parser").parser.HTMLParser):
    """The start tags of an HTML page, with their attributes (what a browser would make live)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))


def assert_inert(page: str, *, holds_data: bool = True) -> None:
    """No link or image made from data, no event handler, no javascript: URL."""
    parser = Elements()
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
