"""``python -m benchmarks.stale``: which cited results files were measured on code that changed since."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import grimp
from helpers import ROOT_DIR

from benchmarks import stale


def test_a_benchmark_is_charged_with_the_code_it_runs() -> None:
    files = {
        str(p.relative_to(ROOT_DIR))
        for p in stale.measured_files("benchmarks.evidence.boss_ner_qa", grimp.build_graph("tailsplit"))
    }
    # its CLI calls (ood-rank, curve) and what those modules import; not the package root's every re-export
    for expected in ("benchmarks/evidence/boss_ner_qa.py", "src/tailsplit/pipeline/ood_rank.py",
                     "src/tailsplit/pipeline/curve.py", "src/tailsplit/shift/task_kinds.py", "src/tailsplit/shift/correlate.py"):  # fmt: skip
        assert expected in files, expected
    assert "src/tailsplit/overlap/bm25.py" not in files and "benchmarks/harness.py" not in files


def test_cited_files_are_current_stale_or_unknown_by_their_commit(tmp_path: Path) -> None:
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT_DIR, capture_output=True, text=True, check=True
    ).stdout.strip()
    docs, results = tmp_path / "docs", tmp_path / "results"
    docs.mkdir(), results.mkdir()
    (docs / "page.md").write_text("{{ now:x }} {{ never:x }} {{ source:now }} {{ absent:y }}\n", encoding="utf-8")
    command = "python -m benchmarks.evidence.boss_ner_qa --json x.json"
    (results / "now.json").write_text(json.dumps({"provenance": {"commit": head, "command": command}}))
    (results / "never.json").write_text(json.dumps({"provenance": {"commit": "0" * 40, "command": command}}))
    assert stale.cited_results(docs) == ["now", "never", "absent"]
    rows = {row["file"]: row for row in stale.report(docs, results)}
    assert rows["now"]["state"] == "current"  # commits are compared, not the working tree
    assert rows["never"]["state"] == "unknown" and "not in this clone" in str(rows["never"]["why"])
    assert "absent" not in rows  # no results file: the docs build refuses the page
