"""What every command's manifest records: input files with hashes and row counts, strict JSON."""

from __future__ import annotations

from typing import Any

import numpy as np

from tailsplit.core import Dataset
from tailsplit.fingerprint import sha256_file


def input_records(dataset: Dataset) -> list[dict[str, Any]]:
    counts = {p: 0 for p in dataset.input_paths}
    for source in dataset.sources:
        counts[source] += 1
    return [{"path": p, "sha256": sha256_file(p), "rows": counts[p]} for p in dataset.input_paths]


def finite(value: Any) -> Any:
    """``value`` with NaN and infinities as ``None`` (strict JSON has no NaN)."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        return None
    return value


def json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot write {type(value).__name__} to JSON")
