"""The analysis as a Markdown summary and a self-contained HTML report.

Every piece of dataset text goes through :func:`html.escape` (HTML) or
:func:`markdown_text` (Markdown), so text from the data is shown, never interpreted. The
HTML page has no scripts and no external resources; figures are inline SVG.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import numpy as np

from tailsplit._version import __version__
from tailsplit.analysis.compare import SplitComparison
from tailsplit.analysis.leakage import NEAR_JACCARD
from tailsplit.analysis.null import ALPHA, NullComparison, is_share
from tailsplit.analysis.program_metrics import render_program_markdown
from tailsplit.analysis.split_analysis import SplitAnalysis
from tailsplit.analysis.table_csv import null_csv_rows, parts_csv_rows
from tailsplit.errors import MissingDependencyError
from tailsplit.io.manifest import Manifest
from tailsplit.render import markdown_text
from tailsplit.render.pages import STYLE
from tailsplit.render.provenance import provenance_html, provenance_markdown
from tailsplit.render.tables import csv_table, latex_table, table_label

if TYPE_CHECKING:
    from tailsplit.render.figures import Figure

HEADLINE_STATISTICS = ("mean_words", "rare_word_fraction", "fk_grade", "mean_logprob_sum")
LEVEL = 95.0


def headlines(analysis: SplitAnalysis) -> list[str]:
    """One sentence per key statistic: does evaluation differ from random splits, after the
    report's multiple-testing correction (:meth:`SplitAnalysis.correction`)?"""
    out = []
    words = {
        "mean_words": ("longer", "shorter"),
        "rare_word_fraction": ("richer in rare words", "poorer in rare words"),
        "fk_grade": ("harder to read", "easier to read"),
        "mean_logprob_sum": ("more likely", "less likely"),
    }
    for name in HEADLINE_STATISTICS:
        c = analysis.comparison(name)
        if c is None or c.percentile != c.percentile:
            continue
        up, down = words[name]
        answer = "yes" if c.differs else "no"
        out.append(
            f"Evaluation examples {up if c.percentile >= 50 else down} than random splits: **{answer}** "
            f"({_value(name, c.observed)} against {_value(name, c.null_mean)} ± "
            f"{_value(name, c.null_std, spread=True)}; {c.verdict()}; Holm-adjusted p = {_p(c.p_holm)})."
        )
    return out


def verdict_note(analysis: SplitAnalysis) -> str:
    """The sentence that says how the yes/no verdicts were reached."""
    return f"yes = differs at α = {ALPHA:g} after correction: {analysis.correction()}."


def _p(value: float) -> str:
    return "n/a" if value != value else f"{value:.3g}"


def _value(name: str, value: float, spread: bool = False) -> str:
    if value != value:
        return "n/a"
    if is_share(name):
        return f"{100 * value:.2f}%" if not spread else f"{100 * value:.2f} pp"
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.2f}"


def render_markdown(
    analysis: SplitAnalysis,
    comparisons: list[tuple[SplitComparison, SplitAnalysis]],
    provenance: Manifest | None = None,
    figure_links: dict[str, str] | None = None,
) -> str:
    """report.md: the provenance header, the overview, links to the figure files, the details."""
    overview, details = _sections(analysis, comparisons)
    header = provenance_markdown(provenance) if provenance is not None else []
    links = (
        ["## Figures", "", *[f"- [{caption}]({path})" for caption, path in figure_links.items()], ""]
        if figure_links
        else []
    )
    return "\n".join(overview[:1] + [""] + header + overview[2:] + links + details)


def _sections(
    analysis: SplitAnalysis,
    comparisons: list[tuple[SplitComparison, SplitAnalysis]],
) -> tuple[list[str], list[str]]:
    """(overview lines, detail lines); the HTML page puts the figures between them."""
    what = "queries" if analysis.text_kind == "query" else "texts (context + query)"
    overview = [
        f"# Split analysis: {markdown_text(analysis.name)}",
        "",
        f"{analysis.n} examples; text statistics of the {what}. Each evaluation (dev + test) statistic "
        f"is compared with {analysis.n_null_splits} random splits of the same sizes (seed {analysis.seed}).",
        "",
    ]
    found = headlines(analysis)
    overview += (
        [f"- {h}" for h in found]
        + ([f"- ({markdown_text(verdict_note(analysis))})"] if found else [])
        + [
            "",
            "## Parts",
            "",
            *_parts_markdown(analysis),
            "",
            "## Evaluation against random splits",
            "",
            *_null_markdown(analysis.null),
            "",
            f"Holm p: {markdown_text(analysis.correction())}; * marks a statistic that differs at that level.",
            "",
        ]
    )
    overview += _leakage_markdown(analysis) + _agreement_markdown(analysis)
    details: list[str] = []
    if analysis.program_metrics:
        details += ["## Programs (against train)", "", render_program_markdown(analysis.program_metrics), ""]
        if getattr(analysis, "program_note", None):
            details += [f"({analysis.program_note})", ""]
    if comparisons:
        details += ["## Other splits of the same examples", "", *_comparison_markdown(analysis, comparisons), ""]
    for title, rows in (("Least likely examples", analysis.hardest), ("Most likely examples", analysis.easiest)):
        if rows:
            pair = any("context" in r for r in rows)
            head = "| id | part | label | logprob_sum | " + ("context | query |" if pair else "text |")
            details += [f"## {title}", "", head, "|---|---|---|---:|---|" + ("---|" if pair else "")]
            details += [
                f"| {markdown_text(r['id'])} | {r['part']} | {markdown_text(r.get('label', '-'))} | "
                f"{r['logprob_sum']:.2f} | "
                + (f"{markdown_text(r.get('context', ''))} | " if pair else "")
                + f"{markdown_text(r['text'])} |"
                for r in rows
            ] + [""]
    details += ["## Syntax", "", analysis.syntax_note, ""]
    return overview, details


PARTS_HEADER = [
    "part", "size", "labels", "mean words", "median words", "rare words", "unlisted words", "FK grade (pooled)",
    "FK grade per example, mean ± sd", "dependency depth", "mean logprob_sum", "mean logprob_mean",
]  # fmt: skip
NULL_HEADER = ["statistic", "observed", "random splits: mean ± std", "percentile", "z", "Holm p", ""]


def parts_cells(analysis: SplitAnalysis) -> list[list[str]]:
    """The parts table's cells (plain text, not yet escaped)."""
    rows = []
    for p in analysis.parts:
        total = max(p.size, 1)
        labels = ", ".join(f"{k} {100 * v / total:.1f}%" for k, v in p.label_counts.items()) or "-"
        rows.append(
            [
                p.part, str(p.size), labels, f"{p.mean_words:.2f}", f"{p.median_words:.1f}",
                _share(p.rare_word_fraction), _share(p.unlisted_word_fraction), f"{p.fk_grade:.2f}",
                f"{p.fk_grade_example_mean:.2f} ± {p.fk_grade_example_sd:.2f}", _opt(p.mean_dependency_depth),
                _opt(p.mean_logprob_sum), _opt(p.mean_logprob_mean),
            ]
        )  # fmt: skip
    return rows


def null_cells(null: list[NullComparison]) -> list[list[str]]:
    return [
        [
            c.description,
            _value(c.name, c.observed),
            f"{_value(c.name, c.null_mean)} ± {_value(c.name, c.null_std, spread=True)}",
            f"{c.percentile:.1f}",
            f"{c.z_score:.2f}" if np.isfinite(c.z_score) else "–",
            _p(c.p_holm) + (" *" if c.differs else ""),
            c.verdict(),
        ]
        for c in null
    ]


def _markdown_rows(header: list[str], align: str, cells: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        align,
        *["| " + " | ".join(markdown_text(c) for c in row) + " |" for row in cells],
    ]


def _parts_markdown(analysis: SplitAnalysis) -> list[str]:
    return _markdown_rows(
        PARTS_HEADER, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|", parts_cells(analysis)
    )


def analysis_tables(analysis: SplitAnalysis) -> dict[str, str]:
    """``tables/parts`` and ``tables/against-random-splits`` as LaTeX (booktabs) and CSV."""

    what = "queries" if analysis.text_kind == "query" else "texts (context + query)"
    split = f"the {analysis.kind} split" if analysis.kind else analysis.name  # a caption names no folder
    tables = {
        "parts": (PARTS_HEADER, parts_cells(analysis), f"Parts of {split}; statistics of the {what}."),
        "against-random-splits": (
            NULL_HEADER[:-1] + ["verdict"],
            null_cells(analysis.null),
            f"Evaluation set (dev + test) of {split} against {analysis.n_null_splits} random splits "
            f"of the same sizes (seed {analysis.seed}).",
        ),
    }
    files = {}
    csv_rows = {
        "parts": parts_csv_rows(analysis.parts),
        "against-random-splits": null_csv_rows(analysis.null, is_share),
    }
    for name, (header, rows, caption) in tables.items():
        if name == "parts":  # one column per part in the paper: 12 statistics do not fit across a column
            latex_header = ["statistic", *[row[0] for row in rows]]
            latex_rows = [[h, *[_lines(row[i]) for row in rows]] for i, h in enumerate(header) if i]
            files[f"tables/{name}.tex"] = latex_table(
                latex_header, latex_rows, caption, table_label(analysis.name, name)
            )
        else:  # the verdict is the Holm p and its star, said in the caption (a column of sentences did not fit a page)
            files |= _against_random_latex(analysis, header[:-1], [row[:-1] for row in rows], caption)
        files[f"tables/{name}.csv"] = csv_table(*csv_rows[name])  # numbers as numbers, units in the header
    return files


def _against_random_latex(
    analysis: SplitAnalysis, header: list[str], rows: list[list[str]], caption: str
) -> dict[str, str]:
    """The paper's table of the headline statistics against random splits, and every statistic
    in ``-all`` (the CSV holds them all too); the Holm p of each is adjusted across all of them."""
    family = max((c.family for c in analysis.null), default=len(rows))
    starred = f" *: Holm-adjusted (across {family} statistics) two-sided Monte Carlo p ≤ {ALPHA:g}: the split differs."
    headline = [row for row, c in zip(rows, analysis.null) if c.name in HEADLINE_STATISTICS]
    every, every_caption = _parser_in_caption(rows, caption, analysis.parser)
    files = {
        "tables/against-random-splits-all.tex": latex_table(
            header, every, every_caption + starred, table_label(analysis.name, "against-random-splits-all")
        )
    }
    short = f"{caption} Headline statistics ({len(headline)} of {len(rows)})." if headline else every_caption
    files["tables/against-random-splits.tex"] = latex_table(
        header, headline or every, short + starred, table_label(analysis.name, "against-random-splits")
    )
    return files


def _lines(cell: str) -> str | list[str]:
    """A labels cell (``a 50.0%, b 50.0%``) as one line per label for a narrow LaTeX column."""
    return cell.split(", ") if ", " in cell else cell


def _opt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}%"


def _null_markdown(null: list[NullComparison]) -> list[str]:
    return _markdown_rows(NULL_HEADER, "|---|---:|---:|---:|---:|---:|---|", null_cells(null))


def _leakage_markdown(analysis: SplitAnalysis) -> list[str]:
    """Per evaluation part, the share of queries (and pairs) also in train."""
    leakage = getattr(analysis, "leakage", None) or {}
    names = list(dict.fromkeys(name for shares in leakage.values() for name in shares))
    if not names:
        return []

    header = [name.replace("_", " ", 1).replace("query", "queries").replace("pair", "pairs") for name in names]
    rows = [
        "## Leakage: evaluation examples also in train",
        "",
        "Share of each evaluation part whose query (or whole context + query pair) also occurs in train: "
        f"exactly, after case/punctuation/space normalisation, or as a near-duplicate (word-bigram Jaccard ≥ "
        f"{NEAR_JACCARD}, every such pair found). A random split that leaks inflates its baseline; keep repeated "
        "queries whole with `--group`.",
        "",
        "| part | " + " | ".join(header) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for part, shares in leakage.items():
        rows.append(
            f"| {part} | "
            + " | ".join(f"{100 * shares[n]:.2f}%" if shares.get(n) == shares.get(n) else "-" for n in names)
            + " |"
        )
    return rows + [""]


def _agreement_markdown(analysis: SplitAnalysis) -> list[str]:
    agreement = getattr(analysis, "agreement", None) or {}
    if not agreement:
        return []
    rows = [
        f"## Annotator agreement ({markdown_text(analysis.agreement_field)})",
        "",
        "Per annotated example: the share of annotators agreeing with the gold label, the entropy of their "
        "labels (bits) and the share of unanimous examples, averaged per part.",
        "",
        "| part | annotated | agreement with gold | label entropy | unanimous |",
        "|---|---:|---:|---:|---:|",
    ]
    for part, v in agreement.items():
        rows.append(
            f"| {part} | {v['annotated']} | {100 * v['agreement']:.2f}% | {v['entropy']:.3f} | "
            f"{100 * v['unanimous']:.2f}% |"
            if v["annotated"]
            else f"| {part} | 0 | - | - | - |"
        )
    return rows + [""]


def _comparison_markdown(
    analysis: SplitAnalysis, comparisons: list[tuple[SplitComparison, SplitAnalysis]]
) -> list[str]:
    rows = ["| split | Pearson r | Spearman ρ | shared evaluation examples |", "|---|---:|---:|---:|"]
    for comparison, _ in comparisons:
        rows.append(
            f"| {markdown_text(comparison.other)} | {_opt(comparison.pearson_r)} | "
            f"{_opt(comparison.spearman_rho)} | {comparison.eval_shared} "
            f"({100 * comparison.eval_shared_share:.1f}%) |"
        )
    names = [markdown_text(analysis.name)] + [markdown_text(c.other) for c, _ in comparisons]
    rows += ["", "| evaluation statistic | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for c in analysis.null:
        values = [c] + [other.comparison(c.name) for _, other in comparisons]
        rows.append(
            f"| {c.description} | "
            + " | ".join("-" if v is None else _value(c.name, v.observed) for v in values)
            + " |"
        )
    return rows


def render_html(
    analysis: SplitAnalysis,
    comparisons: list[tuple[SplitComparison, SplitAnalysis]],
    figures: dict[str, Figure],
    provenance: Manifest | None = None,
) -> str:
    """The whole page; ``figures`` maps a caption to a figure made by tailsplit (inlined as SVG)."""
    try:
        import markdown
    except ImportError:
        raise MissingDependencyError("markdown", "analysis", "the HTML report") from None

    overview, details = _sections(analysis, comparisons)
    figure_html = "".join(
        f'<figure class="{"wide" if "random splits" in caption else ""}">{figure.svg}'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        for caption, figure in figures.items()
    )
    title = markdown.markdown(overview[0])
    header = "" if provenance is None else provenance_html(provenance)
    body = (
        title
        + header
        + markdown.markdown("\n".join(overview[1:]), extensions=["tables"])
        + f'<h2>Figures</h2><div class="figures">{figure_html}</div>'
        + markdown.markdown("\n".join(details), extensions=["tables"])
    )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="tailsplit {html.escape(__version__)}">'
        f"<title>Split analysis: {html.escape(analysis.name)}</title><style>{STYLE}</style></head>"
        f"<body><main>{body}</main></body></html>\n"
    )


def _parser_in_caption(rows: list[list[str]], caption: str, parser: str | None) -> tuple[list[list[str]], str]:
    """A paper table's statistics without the parser's name and versions (they widened the
    column past the page), said once in the caption instead.

    >>> _parser_in_caption([["mean depth (sm 3.8.0 (spaCy 3.8.7))", "1"]], "Cap.", "sm 3.8.0 (spaCy 3.8.7)")
    ([['mean depth', '1']], 'Cap. Parsed with sm 3.8.0 (spaCy 3.8.7).')
    """
    if parser is None:
        return rows, caption
    named = f" ({parser})"
    return [[row[0].removesuffix(named), *row[1:]] for row in rows], f"{caption} Parsed with {parser}."
