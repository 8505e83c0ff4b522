"""The evaluation table as a self-contained HTML page: the table, then one bar chart per
baseline (test score of every split with its bootstrap 95% interval as a whisker, the random
splits' mean ± std as a band)."""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Sequence
from typing import Any

from tailsplit.evaluation.samples import REFERENCES
from tailsplit.render import markdown_text
from tailsplit.render.figures import Figure, pyplot, render_figure
from tailsplit.render.pages import html_page

# The chart is drawn at a paper column's width, its smallest text at this size, so that set at
# \columnwidth (a two-column paper's column, 3.3 in) no text is smaller than 7 pt.
WIDTH_IN = 3.0
SMALLEST_PT = 8


def scores_figure(rows: Sequence[dict[str, Any]], baseline: str) -> Figure:
    mine = [r for r in rows if r["baseline"] == baseline]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 0.9 + 0.34 * len(mine)))
    kinds = Counter(str(r["split"]) for r in mine)  # a split named by its folder only where two share a kind
    labels = [
        textwrap.fill(str(r["split"]) if kinds[str(r["split"])] == 1 else f"{r['split']} ({r['folder']})", 22)
        for r in mine
    ]  # wrapped: a long split name would widen the chart past its column
    values = [100 * r["test"] for r in mine]
    ends = [100 * r["test_ci"][1] if r.get("test_ci") else v for r, v in zip(mine, values)]
    colours = ["#999999" if r["test_std"] is not None else "#3b6ea8" for r in mine]
    ax.barh(range(len(mine)), values, color=colours)
    for y, r in enumerate(mine):
        if r.get("test_ci"):
            low, high = (100 * v for v in r["test_ci"])
            ax.plot([low, high], [y, y], color="#1d232a", lw=1.2)
    for r in mine:
        if r["test_std"] is not None:
            mean, std = 100 * r["test"], 100 * r["test_std"]
            ax.axvspan(mean - std, mean + std, color="#999999", alpha=0.25, lw=0)
            ax.axvline(mean, color="#555555", lw=1)
    for y, (value, end) in enumerate(zip(values, ends)):
        ax.text(max(value, end), y, f" {value:.1f}", va="center", fontsize=SMALLEST_PT)  # past its whisker
    ax.set_yticks(range(len(mine)), labels, fontsize=SMALLEST_PT)
    ax.tick_params(axis="x", labelsize=SMALLEST_PT)
    ax.invert_yaxis()
    ax.set_xlabel(f"test {mine[0]['metric']} (%)")
    chance = [100 * r["test"] for r in rows if r["baseline"] == "chance" and r["test_std"] is None]
    if chance and mine[0]["metric"] == "accuracy":  # the reference every accuracy is read against
        ax.axvline(max(chance), color="#b03a2e", lw=1, ls="--")
        ax.text(max(chance), len(mine) - 0.4, " chance", color="#b03a2e", fontsize=SMALLEST_PT, va="bottom")
    ax.set_xlim(0, max(values + ends + chance + [1]) * 1.18)  # every interval whole, with room for its label
    ax.set_title(baseline)
    return render_figure(fig)


def evaluation_figures(rows: Sequence[dict[str, Any]]) -> dict[str, Figure]:
    """One bar chart per model, captioned by its name (chance drawn as a line; the references
    chance and majority are rows of the table, not charts)."""
    models = dict.fromkeys(r["baseline"] for r in rows if r["baseline"] not in REFERENCES)
    return {f"Test scores, {b}": scores_figure(rows, b) for b in models}


def evaluation_markdown(
    rows: Sequence[dict[str, Any]], table: str, conclusions: str, warnings: Sequence[str], fairness: str
) -> str:
    """The evaluation as a reader meets it: a title naming the splits and models, the
    conclusions (each with its test and interval), the warnings, the fairness table, then the
    scores table the conclusions rest on."""
    folders = {f.strip() for r in rows for f in str(r["folder"]).split(",")}
    models = list(dict.fromkeys(str(r["baseline"]) for r in rows if r["baseline"] not in REFERENCES))
    named = f"{len(folders)} split{'s' * (len(folders) != 1)} with {', '.join(models) or 'the references'}"
    parts = [f"# Evaluation of {markdown_text(named)}", ""]
    if conclusions:
        parts += [conclusions]
    if warnings:
        parts += ["## Warnings", "", *[f"- {markdown_text(w)}" for w in warnings], ""]
    if fairness:
        parts += [fairness]
    parts += [
        "## Scores",
        "",
        "Test score of a model trained on each split's train part; the random splits pooled (mean ± std); "
        "difference and relative error increase against them; in brackets, paired bootstrap 95% intervals.",
        "",
        table,
    ]
    return "\n".join(parts)


def evaluation_html(body: str, figures: dict[str, Figure], provenance: dict[str, Any] | None = None) -> str:
    """``report.html``: the evaluation's Markdown (:func:`evaluation_markdown`) and its charts."""
    return html_page("tailsplit evaluation", body, figures, provenance)
