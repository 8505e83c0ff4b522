"""The analysis tables as CSV for other programs: numbers as numbers, one column per quantity.

The Markdown, HTML and LaTeX tables show ``2.14%`` and ``3.07 ± 2.72``; the CSV files hold
``2.14`` under a header that names the unit (``rare words (% of words)``) and a mean and a
standard deviation in columns of their own, so pandas or a spreadsheet reads every column as
numbers. A missing value is an empty cell. Shares in the against-random-splits table are in
percent, as the ``unit`` column says.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tailsplit.analysis.null import NullComparison


def _number(value: float | None, digits: int = 6) -> float | str:
    """``value`` rounded to ``digits`` significant decimals; empty when missing or not finite."""
    if value is None or not math.isfinite(value):
        return ""
    return round(float(value), digits)


def _percent(value: float | None) -> float | str:
    return "" if value is None or not math.isfinite(value) else round(100 * float(value), 4)


def parts_csv_rows(parts: Sequence[Any]) -> tuple[list[str], list[list[Any]]]:
    """Header and rows of ``tables/parts.csv``: one share column per label."""
    labels = list(dict.fromkeys(label for p in parts for label in p.label_counts))
    header = [
        "part", "size (examples)", *[f"label {label} (% of part)" for label in labels],
        "mean words (word tokens)", "median words (word tokens)", "rare words (% of words)",
        "unlisted words (% of words)", "FK grade, pooled (grade)", "FK grade per example, mean (grade)",
        "FK grade per example, sd (grade)", "dependency depth, mean (levels)", "logprob_sum, mean (nats)",
        "logprob_mean, mean (nats per token)",
    ]  # fmt: skip
    rows = []
    for p in parts:
        total = max(p.size, 1)
        rows.append(
            [
                p.part, p.size, *[_number(100 * p.label_counts.get(label, 0) / total, 4) for label in labels],
                _number(p.mean_words), _number(p.median_words), _percent(p.rare_word_fraction),
                _percent(p.unlisted_word_fraction), _number(p.fk_grade), _number(p.fk_grade_example_mean),
                _number(p.fk_grade_example_sd), _number(p.mean_dependency_depth), _number(p.mean_logprob_sum),
                _number(p.mean_logprob_mean),
            ]
        )  # fmt: skip
    return header, rows


def null_csv_rows(null: Sequence[NullComparison], is_share: Any) -> tuple[list[str], list[list[Any]]]:
    """Header and rows of ``tables/against-random-splits.csv``; ``is_share(name)`` says which
    statistics are shares (written in percent)."""
    header = [
        "statistic", "name", "unit", "observed", "random splits: mean", "random splits: sd", "random splits: min",
        "random splits: max", "random splits (n)", "percentile (% of random splits below)", "z",
        "p (two-sided Monte Carlo)", "p (Holm-adjusted over the family)", "family (statistics tested)",
        "differs (Holm p <= 0.05)", "verdict",
    ]  # fmt: skip
    rows = []
    for c in null:
        scale = 100.0 if is_share(c.name) else 1.0
        values = c.null_values
        rows.append(
            [
                c.description, c.name, "%" if scale == 100.0 else "", _number(scale * c.observed),
                _number(scale * c.null_mean), _number(scale * c.null_std),
                _number(scale * float(values.min())) if len(values) else "",
                _number(scale * float(values.max())) if len(values) else "", len(values), _number(c.percentile, 3),
                _number(c.z_score, 4), _number(c.p_value), _number(c.p_holm), c.family or "",
                "yes" if c.differs else "no", c.verdict(),
            ]
        )  # fmt: skip
    return header, rows
