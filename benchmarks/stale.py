"""Which results files the docs cite were measured on code that has changed since.

Usage: python -m benchmarks.stale [--check] [--docs docs] [--results benchmarks/results]

For every results file a docs page reads (``{{ FILE:... }}`` fields), the code it measured:
the benchmark module its provenance names (``python -m benchmarks....``) with every
benchmark module it imports, every tailsplit module those import (and what they import in
turn, by the import graph), and for a command-line call from the benchmark (``"ood-rank"``
beside ``tailsplit.cli``, or the ``tailsplit(...)`` helper) that command's module and its
imports. A file is **stale** when ``git`` shows any of that code changed between its
provenance commit and ``HEAD``; **unknown** when it records no commit (or one this clone
lacks) or no benchmark module. ``--check`` exits 1 when any cited file is stale or unknown.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from benchmarks import harness

ROOT = harness.ROOT
FIELD = re.compile(r"\{\{\s*([A-Za-z0-9_]+):")
MODULE = re.compile(r"python -m ((?:benchmarks)(?:\.\w+)+)")
# The CLI's commands and the module of each (tailsplit/pipeline/COMMAND.py).
COMMANDS = {
    "run": "runs", "split": "runs", "score": "score", "analyze": "analyze", "evaluate": "evaluate",
    "overlap": "overlap", "similarity": "similarity", "ood-rank": "ood_rank", "correlate": "correlate",
    "curve": "curve", "export": "export_hf",
}  # fmt: skip


def cited_results(docs: Path) -> list[str]:
    """The results files a docs page reads, by name, in order of first citation."""
    names: dict[str, None] = {}
    for page in sorted(docs.rglob("*.md")):
        for name in FIELD.findall(page.read_text(encoding="utf-8")):
            if name != "source":
                names.setdefault(name, None)
    return list(names)


def _exports() -> dict[str, str]:
    """What ``tailsplit/__init__.py`` re-exports: each name and the module that defines it
    (``tailsplit.score`` → ``tailsplit.pipeline.score``), so a benchmark that imports the
    package is charged with what it uses, not the whole package."""
    tree = ast.parse((ROOT / "src" / "tailsplit" / "__init__.py").read_text(encoding="utf-8"))
    return {
        alias.asname or alias.name: node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


def _imports(path: Path) -> tuple[set[str], set[str]]:
    """(modules imported — ``tailsplit.NAME`` for a re-exported name used —, string constants) of a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: set[str] = set()
    strings: set[str] = set()
    exports = _exports()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "tailsplit":
            if node.attr in exports:
                modules.add(exports[node.attr])
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names if alias.name != "tailsplit")
        elif isinstance(node, ast.ImportFrom) and node.module == "tailsplit":
            modules.update(exports[alias.name] for alias in node.names if alias.name in exports)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.add(node.value)
    return modules, strings


def _module_file(name: str) -> Path | None:
    for base in (ROOT, ROOT / "src"):
        for candidate in (
            base / Path(*name.split(".")).with_suffix(".py"),
            base / Path(*name.split(".")) / "__init__.py",
        ):
            if candidate.is_file():
                return candidate
    return None


def measured_files(benchmark: str, graph: object) -> set[Path]:
    """The files of the code a benchmark module measured (see the module's docstring)."""
    seen: set[str] = set()
    todo = [benchmark]
    files: set[Path] = set()
    tailsplit_modules: set[str] = set()
    calls_cli = False
    commands: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = _module_file(name)
        if path is None:
            continue
        if name != "benchmarks.harness":  # provenance and timing rounds: measures nothing itself
            files.add(path)
        modules, strings = _imports(path)
        calls_cli = calls_cli or "tailsplit.cli" in strings or "tailsplit" in strings
        commands.update(COMMANDS[s] for s in strings if s in COMMANDS)
        for module in modules:
            if module.startswith("benchmarks."):
                todo.append(module)
            elif module == "tailsplit" or module.startswith("tailsplit."):
                tailsplit_modules.add(module)
    if calls_cli:
        tailsplit_modules.update(f"tailsplit.pipeline.{c}" for c in commands)
    known = graph.modules  # type: ignore[attr-defined]
    for module in list(tailsplit_modules):
        while module not in known and "." in module:  # ``from tailsplit.x import name``: the module x
            module = module.rsplit(".", 1)[0]
        if module in known:
            tailsplit_modules.add(module)
            tailsplit_modules.update(graph.find_upstream_modules(module))  # type: ignore[attr-defined]
    for module in tailsplit_modules:
        path = _module_file(module)
        if path is not None:
            files.add(path)
    return files


def changed_since(commit: str, files: Iterable[Path]) -> list[str] | None:
    """The files changed between ``commit`` and HEAD (``None`` when the commit is unknown here)."""
    relative = sorted(str(f.relative_to(ROOT)) for f in files)
    known = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=ROOT, capture_output=True)
    if known.returncode != 0:
        return None
    out = subprocess.run(
        ["git", "diff", "--name-only", commit, "HEAD", "--", *relative],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return out.stdout.split()


def report(docs: Path, results: Path) -> list[dict[str, object]]:
    import grimp

    graph = grimp.build_graph("tailsplit")
    rows = []
    for name in cited_results(docs):
        path = results / f"{name}.json"
        if not path.is_file():
            continue  # a CSV, or a missing file: the docs build says so
        provenance = json.loads(path.read_text(encoding="utf-8")).get("provenance") or {}
        commit, command = provenance.get("commit"), provenance.get("command") or ""
        module = MODULE.search(command)
        if not commit or module is None:
            rows.append({"file": name, "state": "unknown", "why": "no commit or no benchmark module in its provenance"})
            continue
        changed = changed_since(commit, measured_files(module.group(1), graph))
        if changed is None:
            rows.append({"file": name, "state": "unknown", "why": f"commit {commit} is not in this clone"})
        elif changed:
            rows.append({"file": name, "state": "stale", "commit": commit, "changed": changed})
        else:
            rows.append({"file": name, "state": "current", "commit": commit})
    return rows


def main() -> None:
    parser = harness.parser(__doc__, results=None)
    parser.add_argument("--docs", type=Path, default=ROOT / "docs")
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument("--check", action="store_true", help="exit 1 when a cited file is stale or unknown")
    args = parser.parse_args()
    rows = report(args.docs, args.results)
    for row in rows:
        if row["state"] == "stale":
            changed = list(row["changed"])  # type: ignore[call-overload]
            shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
            print(f"stale    {row['file']}: measured at {row['commit']}; changed since: {shown}")
        elif row["state"] == "unknown":
            print(f"unknown  {row['file']}: {row['why']}")
        else:
            print(f"current  {row['file']} ({row['commit']})")
    counts = {state: sum(r["state"] == state for r in rows) for state in ("current", "stale", "unknown")}
    print(
        f"{len(rows)} cited results files: {counts['current']} current, {counts['stale']} stale, {counts['unknown']} unknown"
    )
    if args.check and (counts["stale"] or counts["unknown"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
