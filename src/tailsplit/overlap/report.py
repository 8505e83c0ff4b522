"""The overlap audit's Markdown summary and HTML report (dataset text escaped)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tailsplit.core import Dataset
from tailsplit.errors import MissingDependencyError
from tailsplit.render import markdown_text
from tailsplit.render.figures import figure_files, pyplot, render_figure
from tailsplit.render.pages import html_page


def render_overlap_markdown(summary: Mapping[str, Any], audits: list[Any], test: Dataset, top: int = 10) -> str:
    info = summary["index"]
    lines = [
        "# Overlap audit",
        "",
        f"{summary['examples']} test examples against {info['entries']:,} corpus entries "
        f"({info['tokens']:,} tokens; BM25 k1 = {info['k1']}, b = {info['b']}).",
        "",
        f"- overlapping: {summary['overlap']} (best BM25 ≥ {summary['threshold']}, or copied: the whole text "
        f"verbatim in one corpus entry, or sharing an n-gram with the corpus; "
        f"{summary.get('copied_below_threshold', 0)} of them copied below the BM25 cut)",
        f"- clean: {summary['clean']} (below the BM25 cut, no verbatim copy and no shared n-gram)",
        f"- verbatim copies: {summary.get('verbatim', 0)}",
    ]
    for n, count in summary["ngram_contaminated"].items():
        lines.append(f"- sharing at least one {n}-gram with the corpus: {count}")
    if summary["accuracy"]:
        lines += ["", "| subset | examples | accuracy | 95% bootstrap interval |", "|---|---:|---:|---|"]
        lines += [
            f"| {a['subset']} | {a['n']} | {100 * a['accuracy']:.1f}% | "
            f"{100 * a['ci_low']:.1f}–{100 * a['ci_high']:.1f}% |"
            for a in summary["accuracy"]
            if a["n"]
        ]
    ranked = sorted(range(len(audits)), key=lambda i: (-audits[i].best_score, test.ids[i]))[:top]
    lines += [
        "",
        "## Most overlapping test examples",
        "",
        "| id | best BM25 | text | best match |",
        "|---|---:|---|---|",
    ]
    for i in ranked:
        match = audits[i].matches[0] if audits[i].matches else {"entry": "-", "snippet": ""}
        lines.append(
            f"| {markdown_text(test.ids[i])} | {audits[i].best_score:.2f} | {markdown_text(test.texts[i])} | "
            f"{markdown_text(match['entry'])}: {markdown_text(match['snippet'])} |"
        )
    return "\n".join(lines)


def overlap_html(markdown_text: str, audits: list[Any], threshold: float, provenance: dict[str, Any]) -> dict[str, Any]:
    """``report.html`` and its figure files (a histogram of each test example's best BM25 score
    with the overlap threshold); empty when the analysis extra is not installed."""

    try:
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(6, 3.2))
        scores = [a.best_score for a in audits]
        ax.hist(scores, bins=40, color="#8c96a0")
        ax.axvline(threshold, color="#d1495b", linewidth=2, label=f"overlap threshold ({threshold})")
        ax.set_xlabel("best BM25 score of the test example against the corpus")
        ax.set_ylabel("test examples")
        ax.legend(frameon=False)
        figures = {"Best BM25 score per test example": render_figure(fig)}
        return {"report.html": html_page("Overlap audit", markdown_text, figures, provenance), **figure_files(figures)}
    except MissingDependencyError:
        return {}
