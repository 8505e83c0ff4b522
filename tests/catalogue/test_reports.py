"""Hostile data in reports and consoles: it stays text in every report, terminal escapes in labels print as escapes, and console output survives an ASCII locale."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import split_args, write_jsonl
from hostile import (
    ESCAPE,
    IMAGE,
    LINK,
    Elements,
    assert_inert,
    ok,
    pairs,
    random_split,
    refused,
)


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
            parser = Elements()
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
            parser = Elements()
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


def test_a_missing_statistic_reads_n_a_in_the_card() -> None:
    from tailsplit.export.hf_card import headline

    row = {"description": "agreement", "observed": None, "null_mean": None, "null_std": None, "percentile": None}
    assert headline({"null_splits": 5, "against_null": [row]}) == [
        "agreement: n/a in the evaluation set vs n/a ± n/a over 5 random splits (percentile n/a)"
    ]


def test_a_changed_analysis_is_not_put_in_a_card(tmp_path: Path) -> None:
    folder = random_split(tmp_path)
    ok(["analyze", str(folder), "--null-splits", "5", "--no-syntax"])
    analysis = folder / "analysis.json"
    analysis.write_text(analysis.read_text(encoding="utf-8").replace('"observed": ', '"observed": 1'), encoding="utf-8")
    refused(["export", "hf", str(folder), "--out", str(tmp_path / "hf")], "analysis.json", "was changed")


def test_the_below_chance_warning_is_inert_in_table_md() -> None:
    import markdown

    from tailsplit.render import markdown_text

    warning = "warning: tfidf scores 10.0% on likelihood (<img src=x onerror=alert(1)> [a](javascript:x)), below"
    page = markdown.markdown(markdown_text(warning))
    assert "<img" not in page and "<a" not in page and "&lt;img" in page and "javascript:x" in page
