"""The CSV files the shift commands read, parsed exactly (file, line and field in every
error): ``ood-rank``'s candidate list and ``correlate``'s (ID accuracy, OOD accuracy) points."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tailsplit.errors import InputError
from tailsplit.io.readers import read_csv_table
from tailsplit.shift.datasets import DatasetSpec


@dataclass(frozen=True)
class CandidateRow:
    """One OOD candidate: its dataset (a relative path read from the list's folder), its text
    source, and the accuracy a model trained on ID reaches on it, when known."""

    dataset: DatasetSpec
    source: str
    accuracy: float | None


def read_candidates(path: str) -> list[CandidateRow]:
    """Every row of a candidate list (columns name, path, source; fields, accuracy optional)."""
    rows = read_csv_table(path)
    base = Path(path).parent
    specs, sources, accuracies = [], [], []
    for line, row in rows:
        for name in ("name", "path", "source"):
            if not row.get(name):
                raise InputError(
                    "is missing or empty",
                    path=path,
                    line=line,
                    field=name,
                    fix="give every candidate a name, path, source (and fields, accuracy if known)",
                )
        location = row["path"] if Path(row["path"]).is_absolute() else str(base / row["path"])
        fields = tuple(f for f in row.get("fields", "").split("+") if f) or ("text",)
        specs.append(DatasetSpec(row["name"], location, fields))
        sources.append(row["source"])
        accuracies.append(number(path, line, row, "accuracy", required=False))
    if not specs:
        raise InputError("lists no candidates", path=path, fix="add one row per candidate dataset")
    return [CandidateRow(*row) for row in zip(specs, sources, accuracies)]


def read_points(path: str, group: str | None) -> dict[str, list[tuple[float, float]]]:
    """(id_acc, ood_acc) points per group (the ``group`` column, or ``group`` when the file has
    one, else all in ``"all"``)."""
    rows = read_csv_table(path)
    group_column = group or ("group" if rows and "group" in rows[0][1] else None)
    points: dict[str, list[tuple[float, float]]] = {}
    for line, row in rows:
        if group_column is not None and group_column not in row:
            raise InputError(
                "is missing",
                path=path,
                line=line,
                field=group_column,
                fix="add the group column, or leave out --group",
            )
        x = number(path, line, row, "id_acc")
        y = number(path, line, row, "ood_acc")
        points.setdefault(row[group_column] if group_column else "all", []).append((x, y))  # type: ignore[arg-type]
    if not points:
        raise InputError("holds no points", path=path, fix="give rows with id_acc and ood_acc columns")
    return points


def number(path: str, line: int, row: dict[str, str], name: str, *, required: bool = True) -> float | None:
    """Column ``name`` of a CSV row as an accuracy: a number in [0, 1] (None when optional and empty)."""
    if required and name not in row:
        raise InputError(
            f"is missing (the header has {sorted(row)})", path=path, line=1, field=name, fix=f"name a column {name!r}"
        )
    value = row.get(name, "")
    if value == "" and not required:
        return None
    try:
        parsed = float(value)
    except ValueError:
        raise InputError(
            f"is {value!r}, not a number", path=path, line=line, field=name, fix="write accuracies as numbers like 0.83"
        ) from None
    if not np.isfinite(parsed):
        raise InputError(f"is {value!r}", path=path, line=line, field=name, fix="give a finite number")
    if not 0 <= parsed <= 1:
        raise InputError(
            f"is {value!r}, not an accuracy between 0 and 1",
            path=path,
            line=line,
            field=name,
            fix="write accuracies as shares (0.83, not 83)",
        )
    return parsed
