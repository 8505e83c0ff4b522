"""Figures of an analysis as inline SVG strings (matplotlib, Agg, no files, no fonts needed).

Text is drawn as paths, so the SVG carries no markup from the data; only tailsplit's own
labels appear in it.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from tailsplit.analysis.split_analysis import SplitAnalysis
from tailsplit.errors import MissingDependencyError

PART_COLOURS = {"train": "#8c96a0", "dev": "#2a7ab8", "test": "#d1495b"}


def pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise MissingDependencyError("matplotlib", "analysis", "the report's figures") from None
    matplotlib.use("Agg")
    matplotlib.rcParams.update({"svg.fonttype": "path", "svg.hashsalt": "tailsplit", "font.size": 9})
    import matplotlib.pyplot as plt

    return plt


def figure_svg(fig: Any) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    pyplot().close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _part_histograms(values: dict[str, np.ndarray], xlabel: str, integer: bool = False) -> str:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    finite = np.concatenate([v[np.isfinite(v)] for v in values.values()]) if values else np.zeros(0)
    if len(finite) == 0:
        finite = np.zeros(1)
    if integer:
        bins = np.arange(finite.min() - 0.5, finite.max() + 1.5)
    else:
        bins = np.linspace(finite.min(), finite.max(), 40)
    for part, v in values.items():
        if len(v):
            ax.hist(
                v,
                bins=bins,
                density=True,
                histtype="step",
                linewidth=1.6,
                color=PART_COLOURS.get(part),
                label=f"{part} ({len(v)})",
            )
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of examples")
    ax.legend(frameon=False)
    return figure_svg(fig)


def _null_grid(analysis: SplitAnalysis) -> str:
    plt = pyplot()
    comparisons = [c for c in analysis.null if len(c.null_values)]
    cols = 3
    rows = max(1, int(np.ceil(len(comparisons) / cols)))
    fig, axes = plt.subplots(rows, cols, figsize=(9, 2.4 * rows), squeeze=False)
    for ax, c in zip(axes.flat, comparisons):
        ax.hist(c.null_values, bins=30, color="#b8c2cc")
        ax.axvline(c.observed, color=PART_COLOURS["test"], linewidth=2)
        ax.set_title(f"{c.name} (p{c.percentile:.0f})", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(comparisons) :]:
        ax.axis("off")
    fig.tight_layout()
    return figure_svg(fig)


def _hardness_bars(analysis: SplitAnalysis) -> str:
    plt = pyplot()
    levels = list(next((m.hardness for m in analysis.program_metrics if m.hardness), {}))
    fig, ax = plt.subplots(figsize=(6, 3))
    width = 0.8 / max(len(analysis.program_metrics), 1)
    for k, m in enumerate(analysis.program_metrics):
        shares = [100 * m.hardness[level] / max(m.size, 1) for level in levels]
        ax.bar(np.arange(len(levels)) + k * width, shares, width, color=PART_COLOURS.get(m.part), label=m.part)
    ax.set_xticks(np.arange(len(levels)) + width * (len(analysis.program_metrics) - 1) / 2, levels)
    ax.set_ylabel("% of programs")
    ax.legend(frameon=False)
    return figure_svg(fig)


def analysis_figures(analysis: SplitAnalysis) -> dict[str, str]:
    """Caption → SVG, in reading order."""
    figures = {}
    if analysis.scores:
        figures["Total log-likelihood (logprob_sum) by part"] = _part_histograms(analysis.scores, "logprob_sum")
    what = "Query" if analysis.text_kind == "query" else "Text (context + query)"
    figures[f"{what} length by part (word tokens)"] = _part_histograms(
        {p: v.astype(np.float64) for p, v in analysis.word_counts.items()}, "words", integer=True
    )
    if analysis.fk_grades:
        figures["Flesch–Kincaid grade per example, by part"] = _part_histograms(
            {p: v[np.isfinite(v)] for p, v in analysis.fk_grades.items()}, "grade"
        )
    figures[
        (f"Evaluation statistics (red line) against {analysis.n_null_splits} random splits of the same sizes (grey)")
    ] = _null_grid(analysis)
    if any(m.hardness for m in analysis.program_metrics):
        figures["Program hardness by part"] = _hardness_bars(analysis)
    return figures
