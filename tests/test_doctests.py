"""The examples in docstrings are tests too."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "tailsplit.errors",
    "tailsplit.render",
    "tailsplit.io.values",
    "tailsplit.io.writers",
    "tailsplit.forking",
    "tailsplit.collector",
    "tailsplit.words",
    "tailsplit.progress",
    "tailsplit.rng",
    "tailsplit.constraints",
    "tailsplit.programs.divergence",
    "tailsplit.programs.hardness",
    "tailsplit.programs.sql",
    "tailsplit.splits.base",
    "tailsplit.splits.selection",
    "tailsplit.splits.likelihood",
    "tailsplit.splits.random",
    "tailsplit.splits.length",
    "tailsplit.overlap.ngrams",
    "tailsplit.overlap.tokens",
    "tailsplit.overlap.query",
    "tailsplit.analysis.null",
    "tailsplit.analysis.text_counts",
    "tailsplit.analysis.leakage",
    "tailsplit.analysis.near_duplicates",
    "tailsplit.shift.datasets",
    "tailsplit.shift.similarity",
    "tailsplit.shift.ood",
    "tailsplit.evaluation.predictions",
    "tailsplit.evaluation.encoder",
    "tailsplit.io.outputs",
    "tailsplit.cache",
    "tailsplit.config.declare",
    "tailsplit.config.values",
    "tailsplit.scoring.hf",
    "tailsplit.scoring.models",
    "tailsplit.words",
    "tailsplit.scoring.finetune",
    "tailsplit.scoring.crossfit",
    "tailsplit.analysis.syntax",
    "tailsplit.programs.sets",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
