"""A model's predictions on the audited test set: read exactly, matched to the test ids."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tailsplit.errors import InputError
from tailsplit.io.examples import label_to_str
from tailsplit.io.readers import read_all


def prediction_correctness(
    path: str | Path, test_ids: Sequence[str], gold: Sequence[str], *, id_field: str, prediction_field: str
) -> np.ndarray:
    """Per test example (in order): is its prediction the gold label? Predictions carry the
    example's id, or — when none has an id field — come one per test row, in order."""
    raws = read_all(path)
    positional = all(not raw.has(id_field) for raw in raws)
    if positional and len(raws) != len(test_ids):
        raise InputError(
            f"has {len(raws)} predictions without ids for {len(test_ids)} test examples",
            path=path,
            fix=f"give one per test example in order, or an {id_field!r} field",
        )
    predicted: dict[str, str] = {}
    for position, raw in enumerate(raws):
        for name in (() if positional else (id_field,)) + (prediction_field,):
            if not raw.has(name):
                raise raw.error(
                    "is missing",
                    field=name,
                    fix="give every prediction an id and a prediction (--prediction-field names the latter)",
                )
        key = test_ids[position] if positional else label_to_str(raw.value(id_field))
        predicted[key] = label_to_str(raw.value(prediction_field))
    missing = next((i for i in test_ids if i not in predicted), None)
    if missing is not None:
        raise InputError(f"has no prediction for test id {missing!r}", path=path, fix="predict every test example")
    return np.array([predicted[i] == g for i, g in zip(test_ids, gold)], dtype=bool)
