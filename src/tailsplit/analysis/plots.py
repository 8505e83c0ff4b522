"""Figures of an analysis: inline SVG for the HTML page, and SVG + PDF files for a paper
(matplotlib, Agg; both byte-identical from run to run).

Text is drawn as paths, so the SVG carries no markup from the data; only tailsplit's own
labels appear in it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np

from tailsplit.analysis.null import NullComparison, is_share
from tailsplit.analysis.split_analysis import AnalysisInputs, SplitAnalysis
from tailsplit.render.figures import Figure, drawn_once, place_axes, pyplot, render_figure

PART_COLOURS = {"train": "#8c96a0", "dev": "#2a7ab8", "test": "#d1495b"}


def _part_histograms(values: dict[str, np.ndarray], xlabel: str, integer: bool = False) -> Figure:
    inputs = [xlabel, integer, *(x for part, v in values.items() for x in (part, np.asarray(v)))]
    return drawn_once("part histograms", inputs, lambda: _draw_part_histograms(values, xlabel, integer))


def _draw_part_histograms(values: dict[str, np.ndarray], xlabel: str, integer: bool) -> Figure:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    finite = np.concatenate([v[np.isfinite(v)] for v in values.values()]) if values else np.zeros(0)
    if len(finite) == 0:
        finite = np.zeros(1)
    if integer:
        bins = np.arange(finite.min() - 0.5, finite.max() + 1.5)
    else:
        low, high = float(finite.min()), float(finite.max())
        if high - low <= 1e-12 * max(1.0, abs(low)):  # one value: a bin around it (zero-width bins divide by 0)
            low, high = low - 0.5, high + 0.5
        bins = np.linspace(low, high, 40)
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
    place_axes(fig, left=0.8, right=0.15, top=0.15, bottom=0.5)
    return render_figure(fig, crop=False)


# The null grid's layout in inches: the wrapped title above each panel (7.5 pt lines), the
# tick labels and x label below it, a margin to its left and right.
TITLE_LINE, TITLE_PAD, PANEL_HEIGHT, BELOW_PANEL, SIDE_OF_PANEL = 0.135, 0.1, 1.6, 0.5, 0.25


def varying(analysis: SplitAnalysis) -> tuple[list[NullComparison], list[NullComparison]]:
    """The statistics with random splits, split into those whose random splits vary (drawn) and
    those constant across them (a bar at one value: said in the caption instead)."""
    tested = [c for c in analysis.null if len(c.null_values)]
    drawn = [c for c in tested if np.ptp(c.null_values) > 0]
    return drawn, [c for c in tested if c not in drawn]


def null_grid(analysis: SplitAnalysis, names: Sequence[str] | None = None, cols: int = 3) -> Figure:
    """One panel per statistic whose random splits vary: the histogram of its random splits
    (grey, no count axis: its shape is what it shows) and the evaluation set (red line); four
    ticks on the value axis, shares in percent, so the labels stay short and apart at the size
    the figure is saved at. (Every label is drawn as a path: without the count axis the figure
    draws about a fifth faster.) ``names``: only these statistics, in this order (the docs'
    front page shows four)."""
    comparisons = varying(analysis)[0]
    if names is not None:
        by_name = {c.name: c for c in comparisons}
        comparisons = [by_name[name] for name in names]
    inputs = [cols, *(x for c in comparisons for x in (c.name, c.description, c.observed, c.percentile, c.null_values))]
    return drawn_once("null grid", inputs, lambda: _draw_null_grid(comparisons, cols))


def _draw_null_grid(comparisons: list[NullComparison], cols: int) -> Figure:
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    plt = pyplot()
    titles = [textwrap.fill(c.description, 42) for c in comparisons]
    rows = max(1, int(np.ceil(len(comparisons) / cols)))
    above = TITLE_PAD + TITLE_LINE * max((t.count("\n") + 1 for t in titles), default=1)
    height = rows * (above + PANEL_HEIGHT + BELOW_PANEL)
    fig, axes = plt.subplots(rows, cols, figsize=(10 * cols / 3, height), squeeze=False)
    for ax, c, title in zip(axes.flat, comparisons, titles):
        counts, edges = np.histogram(c.null_values, bins=30)
        ax.stairs(counts, edges, fill=True, color="#b8c2cc")  # one patch, not 30 bars: a third faster to draw
        ax.axvline(c.observed, color=PART_COLOURS["test"], linewidth=2)
        ax.set_title(title, fontsize=7.5)
        ax.set_xlabel(f"evaluation set: percentile {c.percentile:.0f} of random splits", fontsize=7)
        ax.xaxis.set_major_locator(MaxNLocator(4))
        if is_share(c.name):
            ax.xaxis.set_major_formatter(PercentFormatter(xmax=1, decimals=None))
        ax.tick_params(labelsize=7)
        ax.set_yticks([])
        ax.spines[["left", "top", "right"]].set_visible(False)
    for ax in list(axes.flat)[len(comparisons) :]:
        ax.axis("off")
    place_axes(
        fig, left=SIDE_OF_PANEL, right=SIDE_OF_PANEL, top=above, bottom=BELOW_PANEL,
        wspace=2 * SIDE_OF_PANEL, hspace=above + BELOW_PANEL,
    )  # fmt: skip
    return render_figure(fig, crop=False)


def _hardness_bars(analysis: SplitAnalysis) -> Figure:
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
    place_axes(fig, left=0.7, right=0.15, top=0.15, bottom=0.45)
    return render_figure(fig, crop=False)


def analysis_figures(analysis: SplitAnalysis) -> dict[str, Figure]:
    """Caption → figure, in reading order."""
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
    drawn, constant = varying(analysis)
    if drawn:
        caption = (
            f"Evaluation statistics (red line) against {analysis.n_null_splits} random splits of the same sizes (grey)"
        )
        if constant:
            caption += "; constant across random splits, not drawn: " + ", ".join(c.description for c in constant)
        figures[caption] = null_grid(analysis)
    if any(m.hardness for m in analysis.program_metrics):
        figures["Program hardness by part"] = _hardness_bars(analysis)
    return figures


def comparison_figure(study: AnalysisInputs, other: AnalysisInputs) -> Figure | None:
    """Each example's score in one split against its score in the other (aligned by id),
    coloured by which split puts it in evaluation; ``None`` unless both splits have scores."""
    if study.logprob_sum is None or other.logprob_sum is None:
        return None
    position = {i: k for k, i in enumerate(other.ids)}
    align = np.array([position[i] for i in study.ids])
    x, y = study.logprob_sum, other.logprob_sum[align]
    mine, theirs = study.eval_mask, other.eval_mask[align]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    for mask, colour, label in (
        (~mine & ~theirs, "#c4ccd4", "train in both"),
        (mine & ~theirs, PART_COLOURS["test"], f"evaluation in {study.name} only"),
        (~mine & theirs, PART_COLOURS["dev"], f"evaluation in {other.name} only"),
        (mine & theirs, "#6a3d9a", "evaluation in both"),
    ):
        if mask.any():
            ax.scatter(x[mask], y[mask], s=4, color=colour, label=f"{label} ({int(mask.sum())})", linewidths=0)
    ax.set_xlabel(f"logprob_sum in {study.name}")
    ax.set_ylabel(f"logprob_sum in {other.name}")
    ax.legend(frameon=False, fontsize=7, markerscale=3)
    return render_figure(fig)
