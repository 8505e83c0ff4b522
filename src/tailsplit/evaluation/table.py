"""The paper's table: each split's test score, and its difference and relative error increase
against the mean of the random splits (as in the Likelihood Splits paper).

Relative error increase = (error − random error) / random error, with error = 1 − score.

Every non-random split also gets a paired bootstrap 95% interval of its test score and of its
difference to the random mean: each replicate draws the examples of all test parts together
(multinomial weights over the union of their ids, so an example in two test parts is drawn
equally often in both) and recomputes every split's weighted score; the 2.5th and 97.5th
percentiles of the replicates are the interval.
"""

from __future__ import annotations

import csv
import io
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.render import markdown_text
from tailsplit.render.tables import BLANK, latex_table, table_label


@dataclass(frozen=True)
class SplitScore:
    folder: str
    kind: str  # describe_split's name
    baseline: str
    metric: str
    dev: float
    test: float
    ids: tuple[str, ...] = ()  # test example ids (shared ids pair the bootstrap draws)
    correct: tuple[bool, ...] = ()  # per test example

    @property
    def is_random(self) -> bool:
        return self.kind.startswith("random")


BOOTSTRAP_REPLICATES = 2000


def replicate_means(
    samples: Sequence[tuple[Sequence[str], Sequence[float]]], *, replicates: int = BOOTSTRAP_REPLICATES, seed: int = 0
) -> np.ndarray:
    """(samples × replicates) weighted means under one set of paired bootstrap draws.

    Each sample is (example ids, one value per example; NaN where the example has none). Each
    replicate draws multinomial weights over the union of all samples' ids, so an example that
    two samples share (two models on one test part, or two test parts) is drawn equally often
    in both; a sample's replicate is its values' mean under those weights, NaNs left out."""
    union = {k: i for i, k in enumerate(dict.fromkeys(k for ids, _ in samples for k in ids))}
    rng = np.random.default_rng(seed)
    means = np.zeros((len(samples), replicates))
    if not union:
        return means
    columns = [np.fromiter((union[k] for k in ids), dtype=np.int64, count=len(ids)) for ids, _ in samples]
    values = [np.asarray(v, dtype=np.float64) for _, v in samples]
    for start in range(0, replicates, 250):  # bounded memory: 250 replicates at a time
        count = min(250, replicates - start)
        weights = rng.multinomial(len(union), np.full(len(union), 1 / len(union)), size=count).astype(np.float64)
        for row, (index, v) in enumerate(zip(columns, values)):
            present = np.isfinite(v)
            w = weights[:, index] * present
            means[row, start : start + count] = (w @ np.where(present, v, 0.0)) / np.maximum(w.sum(axis=1), 1)
    return means


def score_samples(scores: Sequence[SplitScore]) -> list[tuple[tuple[str, ...], tuple[bool, ...]]]:
    """(ids, correct) of each score for :func:`replicate_means`; a part without ids gets its own."""
    return [
        (s.ids if len(s.ids) == len(s.correct) else tuple(f"{s.folder}\0{i}" for i in range(len(s.correct))), s.correct)
        for s in scores
    ]


def bootstrap_intervals(
    scores: Sequence[SplitScore], *, replicates: int = BOOTSTRAP_REPLICATES, seed: int = 0
) -> dict[str, tuple[tuple[float, float], tuple[float, float] | None]]:
    """Per non-random folder of one baseline: (95% interval of its test score, 95% interval of
    its difference to the random mean, or None without random splits)."""
    usable = [s for s in scores if s.correct]
    if not usable:
        return {}
    accuracy = replicate_means(score_samples(usable), replicates=replicates, seed=seed)
    randoms = [row for row, s in enumerate(usable) if s.is_random]
    reference = accuracy[randoms].mean(axis=0) if randoms else None
    out = {}
    for row, s in enumerate(usable):
        if s.is_random:
            continue
        low, high = np.percentile(accuracy[row], [2.5, 97.5])
        difference = None
        if reference is not None:
            d_low, d_high = np.percentile(accuracy[row] - reference, [2.5, 97.5])
            difference = (float(d_low), float(d_high))
        out[s.folder] = ((float(low), float(high)), difference)
    return out


def table_rows(scores: Sequence[SplitScore]) -> list[dict[str, Any]]:
    """Per baseline: the random splits pooled into one row (mean ± std), then every other split
    with its difference and relative error increase against that mean, and their bootstrap
    intervals."""
    rows: list[dict[str, Any]] = []
    for baseline in dict.fromkeys(s.baseline for s in scores):
        mine = [s for s in scores if s.baseline == baseline]
        intervals = bootstrap_intervals(mine)
        randoms = [s.test for s in mine if s.is_random]
        reference = float(np.mean(randoms)) if randoms else None
        if randoms:
            rows.append(
                {
                    "baseline": baseline,
                    "metric": mine[0].metric,
                    "split": f"random ({len(randoms)} seed{'s' * (len(randoms) != 1)})",
                    "folder": ", ".join(s.folder for s in mine if s.is_random),
                    "test": reference,
                    "test_std": float(np.std(randoms, ddof=1)) if len(randoms) > 1 else None,
                    "difference": None,
                    "relative_error_increase": None,
                    "test_ci": None,
                    "difference_ci": None,
                }
            )
        for s in mine:
            if s.is_random:
                continue
            difference = None if reference is None else s.test - reference
            increase = (
                None if reference is None or reference >= 1 else ((1 - s.test) - (1 - reference)) / (1 - reference)
            )
            test_ci, difference_ci = intervals.get(s.folder, (None, None))
            rows.append(
                {
                    "baseline": baseline,
                    "metric": s.metric,
                    "split": s.kind,
                    "folder": s.folder,
                    "test": s.test,
                    "test_std": None,
                    "difference": difference,
                    "relative_error_increase": increase,
                    "test_ci": test_ci,
                    "difference_ci": difference_ci,
                }
            )
    return rows


def _pct(value: float | None, signed: bool = False) -> str:
    if value is None:
        return ""
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}"


def _interval(bounds: Sequence[float] | None, signed: bool = False) -> str:
    return "" if bounds is None else f" [{_pct(bounds[0], signed)}, {_pct(bounds[1], signed)}]"


TABLE_HEADER = ["baseline", "split", "folder", "test [95% CI]", "Δ vs random [95% CI]", "relative error increase"]


def table_latex(rows: Sequence[dict[str, Any]], name: str = "evaluation") -> str:
    """The table for a paper (``booktabs``), with the same numbers as the Markdown table: the
    rows grouped by baseline (named once, at its group's first row; its metric there too
    unless every row has the one the caption names), labelled after ``name`` (the folder)."""

    named = Counter((r["baseline"], r["split"]) for r in rows)
    metrics = sorted({r["metric"] for r in rows})
    cells, previous = [], None
    for r in rows:  # no folder column: a split is named by its kind (and its folder only where two share a kind)
        baseline = r["baseline"] if len(metrics) == 1 else f"{r['baseline']} ({r['metric']})"
        split = r["split"] if named[r["baseline"], r["split"]] == 1 else f"{r['split']}, {r['folder']}"
        cells.append([baseline if r["baseline"] != previous else BLANK, split, *_number_cells(r)])
        previous = r["baseline"]
    header = [h.replace("Δ", "difference") for h in TABLE_HEADER if h != "folder"]
    score = f"Test {metrics[0]}" if len(metrics) == 1 else "Test score"
    caption = (
        f"{score} of a model trained on each split's train part, by baseline; random splits pooled "
        "(mean ± std); brackets: paired bootstrap 95% intervals."
    )
    return latex_table(header, cells, caption, table_label(name, "evaluation"), align="llrrr")


def _number_cells(r: dict[str, Any]) -> list[str]:
    test = (
        _pct(r["test"])
        + (f" ± {_pct(r['test_std'])}" if r["test_std"] is not None else "")
        + _interval(r.get("test_ci"))
    )
    difference = _pct(r["difference"], signed=True) + _interval(r.get("difference_ci"), signed=True)
    increase = "" if r["relative_error_increase"] is None else f"{100 * r['relative_error_increase']:+.1f}%"
    return [test, difference, increase]


def table_display_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """The table's rows as the report prints them (its headers; scores in percent, differences
    in points, intervals in brackets): what a notebook shows.

    >>> table_display_rows([{"baseline": "tfidf", "metric": "accuracy", "split": "random (1 seed)", "folder": "r",
    ...     "test": 0.537, "test_std": None, "difference": None, "relative_error_increase": None}])[0]["test [95% CI]"]
    '53.7'
    """
    return [
        dict(zip(TABLE_HEADER, [f"{r['baseline']} ({r['metric']})", r["split"], r["folder"], *_number_cells(r)]))
        for r in rows
    ]


def table_markdown(rows: Sequence[dict[str, Any]]) -> str:
    """The table; intervals in brackets are paired bootstrap 95% intervals."""
    lines = ["| " + " | ".join(TABLE_HEADER) + " |", "|---|---|---|---:|---:|---:|"]
    for r in rows:
        test, difference, increase = _number_cells(r)
        lines.append(
            f"| {markdown_text(r['baseline'])} ({r['metric']}) | {markdown_text(r['split'])} | "
            f"{markdown_text(r['folder'])} | {test} | {difference} | {increase} |"
        )
    return "\n".join(lines) + "\n"


# table.csv's columns: (header, row key, scale). Scores and their intervals in percent,
# differences in percentage points, as every tailsplit CSV gives a share (the unit in the header).
CSV_COLUMNS = [
    ("baseline", "baseline", None), ("metric", "metric", None), ("split", "split", None), ("folder", "folder", None),
    ("test (%)", "test", 100), ("test, sd over random splits (pp)", "test_std", 100),
    ("difference vs random (pp)", "difference", 100), ("relative error increase (%)", "relative_error_increase", 100),
    ("test, 95% CI low (%)", "test_ci_low", 100), ("test, 95% CI high (%)", "test_ci_high", 100),
    ("difference, 95% CI low (pp)", "difference_ci_low", 100), ("difference, 95% CI high (pp)", "difference_ci_high", 100),
]  # fmt: skip


def table_csv(rows: Sequence[dict[str, Any]]) -> str:
    """``table.csv``: the table's numbers as numbers, in percent (differences in percentage
    points), one column per quantity with its unit in the header; an empty cell where missing."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([header for header, _, _ in CSV_COLUMNS])
    for r in rows:
        flat = {k: v for k, v in r.items() if k not in ("test_ci", "difference_ci")}
        for name in ("test_ci", "difference_ci"):
            flat[f"{name}_low"], flat[f"{name}_high"] = r.get(name) or (None, None)
        writer.writerow([_csv_value(flat.get(key), scale) for _, key, scale in CSV_COLUMNS])
    return out.getvalue()


def _csv_value(value: Any, scale: int | None) -> Any:
    if value is None:
        return ""
    if scale is not None and isinstance(value, (int, float)):
        return f"{scale * value:.4f}" if math.isfinite(value) else ""
    return value
