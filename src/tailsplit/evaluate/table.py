"""The paper's table: each split's test score, and its difference and relative error increase
against the mean of the random splits (SPEC §1).

Relative error increase = (error − random error) / random error, with error = 1 − score.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.analysis.report import markdown_cell


@dataclass(frozen=True)
class SplitScore:
    folder: str
    kind: str                 # describe_split's name
    baseline: str
    metric: str
    dev: float
    test: float

    @property
    def is_random(self) -> bool:
        return self.kind.startswith("random")


def table_rows(scores: Sequence[SplitScore]) -> list[dict[str, Any]]:
    """Per baseline: the random splits pooled into one row (mean ± std), then every other split
    with its difference and relative error increase against that mean."""
    rows = []
    for baseline in dict.fromkeys(s.baseline for s in scores):
        mine = [s for s in scores if s.baseline == baseline]
        randoms = [s.test for s in mine if s.is_random]
        reference = float(np.mean(randoms)) if randoms else None
        if randoms:
            rows.append({"baseline": baseline, "metric": mine[0].metric, "split": f"random ({len(randoms)} seeds)",
                         "folder": ", ".join(s.folder for s in mine if s.is_random), "test": reference,
                         "test_std": float(np.std(randoms, ddof=1)) if len(randoms) > 1 else None,
                         "difference": None, "relative_error_increase": None})
        for s in mine:
            if s.is_random:
                continue
            difference = None if reference is None else s.test - reference
            increase = None if reference is None or reference >= 1 else ((1 - s.test) - (1 - reference)) / (1 - reference)
            rows.append({"baseline": baseline, "metric": s.metric, "split": s.kind, "folder": s.folder, "test": s.test,
                         "test_std": None, "difference": difference, "relative_error_increase": increase})
    return rows


def _pct(value: float | None, signed: bool = False) -> str:
    if value is None:
        return ""
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}"


def table_markdown(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["| baseline | split | folder | test | Δ vs random | relative error increase |", "|---|---|---|---:|---:|---:|"]
    for r in rows:
        test = _pct(r["test"]) + (f" ± {_pct(r['test_std'])}" if r["test_std"] is not None else "")
        increase = "" if r["relative_error_increase"] is None else f"{100 * r['relative_error_increase']:+.1f}%"
        lines.append(f"| {markdown_cell(r['baseline'])} ({r['metric']}) | {markdown_cell(r['split'])} | "
                     f"{markdown_cell(r['folder'])} | {test} | {_pct(r['difference'], signed=True)} | {increase} |")
    return "\n".join(lines) + "\n"


def table_csv(rows: Sequence[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["baseline", "metric", "split", "folder", "test", "test_std", "difference",
                                             "relative_error_increase"], lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: (f"{v:.6f}" if isinstance(v, float) else ("" if v is None else v)) for k, v in r.items()})
    return out.getvalue()
