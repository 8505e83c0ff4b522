"""MkDocs hooks: pages whose content is generated at build time, so it cannot drift.

- The command-line reference, from the declarations the CLI itself is built from (each
  command's options come from its config fields): the same as ``tailsplit COMMAND -h``.
- The list of benchmark results files, each with the command, date and commit that wrote it
  (as the file records them)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

MARKER = "<!-- command-line reference -->"
RESULTS_MARKER = "<!-- benchmark results -->"
RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER in markdown:
        from tailsplit.cli.reference import cli_reference_markdown

        markdown = markdown.replace(MARKER, cli_reference_markdown())
    if RESULTS_MARKER in markdown:
        markdown = markdown.replace(RESULTS_MARKER, results_table())
    return markdown


def results_table() -> str:
    """One row per file in ``benchmarks/results``: what it holds and how it was made."""
    rows = ["| file | holds | command | date | commit |", "|---|---|---|---|---|"]
    for path in sorted(RESULTS.iterdir()):
        if path.suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            made = data.get("provenance", {}) if isinstance(data, dict) else {}
            holds = ", ".join(k for k in data if k != "provenance") if isinstance(data, dict) else "a list"
        elif path.suffix == ".csv":
            with path.open(encoding="utf-8", newline="") as handle:
                reader = csv.reader(handle)
                header = next(reader, [])
                n = sum(1 for _ in reader)
            made, holds = {}, f"{n} rows: {', '.join(header)}"
        else:
            continue
        command = f"`{made['command']}`" if made.get("command") else "not recorded"
        rows.append(
            f"| `{path.name}` | {holds} | {command} | {made.get('date') or 'not recorded'} | "
            f"{made.get('commit') or ''} |"
        )
    return "\n".join(rows)
