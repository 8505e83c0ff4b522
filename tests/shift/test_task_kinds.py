"""BOSS's tasks as a registry: the pipeline asks the task and never compares its name."""

from __future__ import annotations

import ast
from pathlib import Path

import tailsplit
from tailsplit.choices import SHIFT_TASKS
from tailsplit.shift.task_kinds import TASKS, task_kind

SOURCE = Path(tailsplit.__file__).parent


def test_every_task_the_command_line_offers_is_registered() -> None:
    assert set(TASKS) == set(SHIFT_TASKS)
    for name, kind in TASKS.items():
        assert kind.name == name and kind.metric_name and kind.default_fields and kind.default_label_field
        module, _, head = kind.head.partition(":")
        assert (SOURCE.parent / Path(*module.split("."))).with_suffix(".py").is_file(), kind.head


def _task_name_comparisons(tree: ast.AST) -> list[int]:
    """Lines comparing something with a task's name (``task == "ner"``, ``kind in ("qa",)``)."""
    names = set(TASKS)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                values = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                if any(isinstance(v, ast.Constant) and v.value in names for v in values):
                    found.append(node.lineno)
    return found


def test_no_module_compares_a_task_name() -> None:
    offenders = {
        str(path.relative_to(SOURCE)): lines
        for path in sorted(SOURCE.rglob("*.py"))
        if (lines := _task_name_comparisons(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert offenders == {}, offenders


def test_the_checker_finds_a_comparison() -> None:
    assert _task_name_comparisons(ast.parse('if task == "ner":\n    pass\nx = kind in ("qa", "x")')) == [1, 3]


def test_unknown_tasks_are_refused_with_the_registered_names() -> None:
    import pytest

    from tailsplit.errors import ConfigError

    with pytest.raises(ConfigError, match=r"--task='pos' is unknown; use one of \['classification', 'ner', 'qa'\]"):
        task_kind("pos")
