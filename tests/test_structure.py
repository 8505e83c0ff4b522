"""The shape the code keeps: small modules, short functions, and dependencies stated at the
top of each module (the import layers themselves are checked by import-linter in make lint)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "tailsplit"
MODULES = sorted(SOURCE.rglob("*.py"))
# Function-level imports of tailsplit's own modules defer a heavy third-party import; each one
# is listed here with the module it would pull in.
DEFERRED = {
    ("scoring/hf.py", "tailsplit.scoring.llama"): "torch",
    ("scoring/head.py", "tailsplit.scoring.llama"): "torch",
    ("scoring/hf.py", "tailsplit.scoring.varlen"): "torch",
}


def test_the_source_is_found() -> None:
    assert len(MODULES) > 100


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SOURCE)))
def test_modules_and_functions_stay_small(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 450, f"{path.name}: over 450 lines; it holds two ideas"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1  # type: ignore[operator]
            assert length <= 60, f"{path.name}: {node.name} is {length} lines (at most 60)"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SOURCE)))
def test_own_imports_are_at_the_top_unless_they_defer_a_heavy_one(path: Path) -> None:
    relative = str(path.relative_to(SOURCE))
    for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tailsplit"):
                assert (relative, node.module) in DEFERRED, f"{relative}:{node.lineno} imports {node.module} late"
