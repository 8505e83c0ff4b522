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
    if summary["cut"].get("by") == "copies":
        return _index_markdown(summary, audits, test, top)
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
    lines += _shared_ngrams_and_accuracy(summary)
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


def _shared_ngrams_and_accuracy(summary: Mapping[str, Any]) -> list[str]:
    """How many examples share each n-gram order with the corpus, then accuracy by subset."""
    lines = [f"- sharing at least one {n}-gram with the corpus: {c}" for n, c in summary["ngram_contaminated"].items()]
    if not summary["accuracy"]:
        return lines
    lines += ["", "| subset | examples | accuracy | 95% bootstrap interval |", "|---|---:|---:|---|"]
    return lines + [
        f"| {a['subset']} | {a['n']} | {100 * a['accuracy']:.1f}% | {100 * a['ci_low']:.1f}–{100 * a['ci_high']:.1f}% |"
        for a in summary["accuracy"]
        if a["n"]
    ]


def _index_markdown(summary: Mapping[str, Any], audits: list[Any], test: Dataset, top: int) -> str:
    """Against an infini-gram index: the copies, then the examples with the longest matches."""
    info = summary["index"]
    built = "built by tailsplit" if info["built_by"] == "tailsplit" else "used read-only"
    lines = [
        "# Overlap audit",
        "",
        f"{summary['examples']} test examples against an infini-gram index of {info['documents']:,} documents "
        f"({info['tokens']:,} tokens of the {markdown_text(info['tokenizer'])} tokenizer, {info['bytes']:,} bytes "
        f"memory-mapped, {built}; peak memory of the audit {info['peak_rss_mib']:,} MiB).",
        "",
        f"- overlapping: {summary['overlap']} (held whole by one document, or sharing an n-gram with the corpus)",
        f"- clean: {summary['clean']}",
        f"- held whole: {summary.get('verbatim', 0)}",
    ]
    lines += _shared_ngrams_and_accuracy(summary)
    ranked = sorted(range(len(audits)), key=lambda i: (-audits[i].profile.longest, test.ids[i]))[:top]
    orders = list(summary["ngram_contaminated"])
    lines += ["", "## Longest matches", "", "| id | tokens | longest match | its count | "
              + " | ".join(f"covered by {n}-grams" for n in orders) + " | text |",
              "|---|---:|---:|---:|" + "---:|" * len(orders) + "---|"]  # fmt: skip
    for i in ranked:
        p = audits[i].profile
        covered = " | ".join(f"{100 * p.coverage[int(n)]:.0f}%" for n in orders)
        lines.append(
            f"| {markdown_text(test.ids[i])} | {p.tokens} | {p.longest} | {p.longest_count:,} | {covered} | "
            f"{markdown_text(test.texts[i])} |"
        )
    return "\n".join(lines)


def overlap_html(
    markdown_text: str, audits: list[Any], threshold: float | None, provenance: dict[str, Any]
) -> dict[str, Any]:
    """``report.html`` and its figure files (a histogram of each test example's best BM25 score
    with the overlap threshold, or, without one, of its longest match in an infini-gram index);
    empty when the analysis extra is not installed."""

    try:
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(6, 3.2))
        if threshold is None:  # an infini-gram index: the longest match per example
            ax.hist([a.profile.longest for a in audits], bins=40, color="#8c96a0")
            ax.set_xlabel("longest n-gram of the test example found in the corpus (tokens)")
            title = "Longest match per test example"
        else:
            ax.hist([a.best_score for a in audits], bins=40, color="#8c96a0")
            ax.axvline(threshold, color="#d1495b", linewidth=2, label=f"overlap threshold ({threshold})")
            ax.set_xlabel("best BM25 score of the test example against the corpus")
            ax.legend(frameon=False)
            title = "Best BM25 score per test example"
        ax.set_ylabel("test examples")
        figures = {title: render_figure(fig)}
        return {"report.html": html_page("Overlap audit", markdown_text, figures, provenance), **figure_files(figures)}
    except MissingDependencyError:
        return {}
