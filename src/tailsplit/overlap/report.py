"""The overlap audit's Markdown summary (dataset text escaped)."""

from __future__ import annotations

from typing import Any

from tailsplit.analysis.report import markdown_cell
from tailsplit.core import Dataset


def render_overlap_markdown(summary: dict[str, Any], audits: list[Any], test: Dataset, top: int = 10) -> str:
    info = summary["index"]
    lines = [
        "# Overlap audit",
        "",
        f"{summary['examples']} test examples against {info['entries']:,} corpus entries "
        f"({info['tokens']:,} tokens; BM25 k1 = {info['k1']}, b = {info['b']}).",
        "",
        f"- overlapping (best BM25 ≥ {summary['threshold']}): {summary['overlap']}",
        f"- clean: {summary['clean']}",
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
            f"| {markdown_cell(test.ids[i])} | {audits[i].best_score:.2f} | {markdown_cell(test.texts[i])} | "
            f"{markdown_cell(match['entry'])}: {markdown_cell(match['snippet'])} |"
        )
    return "\n".join(lines)
