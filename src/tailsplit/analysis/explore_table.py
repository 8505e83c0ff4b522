"""What the explorer shows of one or more splits of the same data: one row per example
(its text and tokens, label, part in each split, scores, each model's prediction), the parts
of each split by label, and — for two splits or more — how their evaluation sets overlap.

Built from split folders read as the analysis reads them (:func:`load_split_dir`); the rows
follow the first split's order (train, dev, test), every other split's columns joined by id.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from tailsplit.analysis.split_analysis import AnalysisInputs
from tailsplit.core import SPLIT_PARTS
from tailsplit.errors import ConfigError
from tailsplit.render.explorer import Column, ExplorerTable, token_cell

TEST_IN = "test_in"


@dataclass(frozen=True)
class Predictions:
    """One model's answers on one split's test examples: id → (predicted, correct)."""

    split: str
    baseline: str
    answers: Mapping[str, tuple[str, bool | None]]

    @property
    def key(self) -> str:
        return f"{self.split}:{self.baseline}"


def check_same_examples(splits: Sequence[AnalysisInputs]) -> None:
    """Splits side by side must hold the same examples: refused, naming an id one lacks."""
    first = splits[0]
    ids = set(first.ids)
    for other in splits[1:]:
        theirs = set(other.ids)
        if theirs != ids:
            missing = sorted(ids - theirs) or sorted(theirs - ids)
            where = other.name if ids - theirs else first.name
            raise ConfigError(
                f"the splits {first.name!r} and {other.name!r} are not of the same data: {where!r} has no example "
                f"with id {missing[0]!r}; explore splits of one dataset together, or each on its own"
            )


def explorer_table(
    splits: Sequence[AnalysisInputs],
    tokens: tuple[Sequence[Any], Sequence[Any]] | None,
    predictions: Sequence[Predictions],
) -> ExplorerTable:
    """Every example, a column per field; ``tokens`` (pieces, log-probabilities) in the first
    split's order; membership scores from the first split whose score file holds them."""
    first = splits[0]
    scored = next((s for s in splits if s.logprob_sum is not None), None)
    columns = [Column("id", "id")]
    cells: list[list[Any]] = [[i] for i in first.ids]
    if first.contexts is not None:
        _add(columns, cells, Column("context", "context"), first.contexts)
    pieces, values = tokens if tokens is not None else (None, None)
    queries = first.queries or first.texts
    text_cells = [
        token_cell(q, None if pieces is None else pieces[i], None if values is None else values[i])
        for i, q in enumerate(queries)
    ]
    _add(columns, cells, Column("text", "text", "tokens"), text_cells)
    if first.labels is not None:
        _add(columns, cells, Column("label", "label", "category"), first.labels)
    for split in splits:
        title = "part" if len(splits) == 1 else f"part in {split.name}"
        _add(columns, cells, Column(f"part:{split.name}", title, "category"), _joined(first, split, split.parts))
    if len(splits) > 1:
        _add(columns, cells, Column(TEST_IN, "in test of", "category"), _test_in(first, splits))
    if scored is not None:
        _add_scores(columns, cells, first, scored, len(splits) > 1)
    holder = next((s for s in splits if s.membership), None)
    if holder is not None:
        _add_membership(columns, cells, first, holder)
    for answers in predictions:
        _add_predictions(columns, cells, first, answers)
    order_by = "logprob_sum" if scored is not None else None
    return ExplorerTable(columns, cells, order_by)


def _add_membership(
    columns: list[Column], cells: list[list[Any]], first: AnalysisInputs, holder: AnalysisInputs
) -> None:
    """A number column per membership score of ``holder``'s score file, in ``first``'s order."""
    for name, scores in (holder.membership or {}).items():
        title = name.replace("_plus_plus", "++").replace("min_k", "Min-K%")
        column = Column(f"membership_{name}", f"membership: {title}", "number")
        _add(columns, cells, column, [_round(v) for v in _joined(first, holder, scores)])


def _add(columns: list[Column], cells: list[list[Any]], column: Column, values: Sequence[Any]) -> None:
    columns.append(column)
    for row, value in zip(cells, values):
        row.append(value)


def _joined(first: AnalysisInputs, split: AnalysisInputs, values: Any) -> list[Any]:
    """``split``'s ``values`` in ``first``'s row order (by id)."""
    if split is first:
        return [str(v) if isinstance(v, np.str_) else v for v in values]
    at = {example: i for i, example in enumerate(split.ids)}
    return [values[at[example]] for example in first.ids]


def _test_in(first: AnalysisInputs, splits: Sequence[AnalysisInputs]) -> list[str]:
    """Which splits put each example in test: their names, "all" or "none"."""
    parts = [_joined(first, s, s.parts) for s in splits]
    names = [s.name for s in splits]
    out = []
    for row in zip(*parts):
        where = [n for n, p in zip(names, row) if p == "test"]
        out.append("all" if len(where) == len(names) else "none" if not where else ", ".join(where))
    return out


def _add_scores(
    columns: list[Column], cells: list[list[Any]], first: AnalysisInputs, scored: AnalysisInputs, named: bool
) -> None:
    suffix = f" ({scored.name})" if named else ""
    logprob_sum = _joined(first, scored, scored.logprob_sum)  # type: ignore[arg-type]
    _add(columns, cells, Column("logprob_sum", "log p (sum)" + suffix, "number"), [_round(v) for v in logprob_sum])
    if scored.n_tokens is not None:
        counts = _joined(first, scored, scored.n_tokens)
        means = [_round(s / n) if n else None for s, n in zip(logprob_sum, counts)]
        _add(columns, cells, Column("logprob_mean", "log p per token" + suffix, "number"), means)
        _add(columns, cells, Column("n_tokens", "tokens", "number"), [int(n) for n in counts])
    rank = np.argsort(np.argsort(np.asarray(logprob_sum, dtype=np.float64), kind="stable"), kind="stable")
    percentile = [round(100 * float(r) / max(len(rank) - 1, 1), 1) for r in rank]
    _add(columns, cells, Column("percentile", "likelihood percentile" + suffix, "number"), percentile)


def _add_predictions(columns: list[Column], cells: list[list[Any]], first: AnalysisInputs, p: Predictions) -> None:
    predicted = [p.answers.get(i, (None, None)) for i in first.ids]
    _add(columns, cells, Column(f"{p.key}:predicted", f"{p.baseline} predicts ({p.split})"), [a for a, _ in predicted])
    verdicts = [None if c is None else "yes" if c else "no" for _, c in predicted]
    _add(columns, cells, Column(f"{p.key}:correct", f"{p.baseline} correct ({p.split})", "category"), verdicts)


def _round(value: float) -> float | None:
    return None if not math.isfinite(value) else round(float(value), 4)


def parts_rows(split: AnalysisInputs) -> list[dict[str, Any]]:
    """Examples per part of one split, in all and per label (the label's share of the part)."""
    parts = np.asarray(split.parts)
    rows = [{"label": "all", **{p: int(np.sum(parts == p)) for p in SPLIT_PARTS}}]
    if split.labels is not None:
        labels = np.asarray(split.labels, dtype=object)
        for label in sorted(set(split.labels)):
            counts = {p: int(np.sum((parts == p) & (labels == label))) for p in SPLIT_PARTS}
            rows.append({"label": label, **counts})
    return rows


def overlap_rows(splits: Sequence[AnalysisInputs]) -> list[dict[str, Any]]:
    """For each pair of splits: their test sets' sizes, overlap and Jaccard index, and how
    many of the second's test examples the first trains on."""
    first = splits[0]
    parts = {s.name: np.array(_joined(first, s, s.parts)) for s in splits}
    rows = []
    for a, b in combinations([s.name for s in splits], 2):
        test_a, test_b = parts[a] == "test", parts[b] == "test"
        both, either = int(np.sum(test_a & test_b)), int(np.sum(test_a | test_b))
        rows.append(
            {
                "splits": f"{a} / {b}",
                "test of the first": int(test_a.sum()),
                "test of the second": int(test_b.sum()),
                "in both tests": both,
                "Jaccard": round(both / either, 3) if either else None,
                "second's test in the first's train": int(np.sum(test_b & (parts[a] == "train"))),
            }
        )
    return rows
