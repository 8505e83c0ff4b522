"""The analysis as a Markdown summary and a self-contained HTML report.

Every piece of dataset text goes through :func:`html.escape` (HTML) or
:func:`markdown_cell` (Markdown), so text from the data is shown, never interpreted. The
HTML page has no scripts and no external resources; figures are inline SVG.
"""

from __future__ import annotations

import html
from typing import Any

from tailsplit._version import __version__
from tailsplit.analysis.compare import SplitComparison
from tailsplit.analysis.null import NullComparison
from tailsplit.analysis.program_metrics import render_program_markdown
from tailsplit.analysis.split_analysis import SplitAnalysis
from tailsplit.errors import MissingDependencyError

HEADLINE_STATISTICS = ("mean_words", "rare_word_fraction", "fk_grade", "mean_logprob_sum")
LEVEL = 95.0


def headlines(analysis: SplitAnalysis) -> list[str]:
    """One sentence per key statistic: is evaluation beyond 95% of random splits?"""
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
        higher = c.percentile >= 50
        share = c.percentile if higher else 100 - c.percentile
        answer = "yes" if share >= LEVEL else "no"
        out.append(
            f"Evaluation examples {up if higher else down} than in ≥ {LEVEL:.0f}% of random splits: "
            f"**{answer}** ({_value(name, c.observed)} against {_value(name, c.null_mean)} ± "
            f"{_value(name, c.null_std, spread=True)}; {c.verdict()})."
        )
    return out


def _value(name: str, value: float, spread: bool = False) -> str:
    if value != value:
        return "n/a"
    if (
        name.endswith(("_fraction", "share", "_in_train"))
        or name.startswith("hardness_")
        or name == "annotator_agreement"
    ):
        return f"{100 * value:.2f}%" if not spread else f"{100 * value:.2f} pp"
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.2f}"


def markdown_cell(text: Any) -> str:
    """Text safe inside a Markdown table cell (HTML escaped, pipes and newlines neutralised)."""
    return html.escape(str(text)).replace("|", "&#124;").replace("\n", " ").replace("\r", " ")


def render_markdown(analysis: SplitAnalysis, comparisons: list[tuple[SplitComparison, SplitAnalysis]]) -> str:
    overview, details = _sections(analysis, comparisons)
    return "\n".join(overview + details)


def _sections(
    analysis: SplitAnalysis,
    comparisons: list[tuple[SplitComparison, SplitAnalysis]],
) -> tuple[list[str], list[str]]:
    """(overview lines, detail lines); the HTML page puts the figures between them."""
    what = "queries" if analysis.text_kind == "query" else "texts (context + query)"
    overview = [
        f"# Split analysis: {markdown_cell(analysis.name)}",
        "",
        f"{analysis.n} examples; text statistics of the {what}. Each evaluation (dev + test) statistic "
        f"is compared with {analysis.n_null_splits} random splits of the same sizes (seed {analysis.seed}).",
        "",
    ]
    overview += [f"- {h}" for h in headlines(analysis)] + [
        "",
        "## Parts",
        "",
        *_parts_markdown(analysis),
        "",
        "## Evaluation against random splits",
        "",
        *_null_markdown(analysis.null),
        "",
    ]
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
            details += [f"## {title}", "", "| id | part | label | logprob_sum | text |", "|---|---|---|---:|---|"]
            details += [
                f"| {markdown_cell(r['id'])} | {r['part']} | {markdown_cell(r.get('label', '-'))} | "
                f"{r['logprob_sum']:.2f} | {markdown_cell(r['text'])} |"
                for r in rows
            ] + [""]
    details += ["## Syntax", "", analysis.syntax_note, ""]
    return overview, details


def _parts_markdown(analysis: SplitAnalysis) -> list[str]:
    rows = [
        "| part | size | labels | mean words | median words | rare words | unlisted words | FK grade (pooled) | "
        "FK grade per example, mean ± sd | dependency depth | mean logprob_sum | mean logprob_mean |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for p in analysis.parts:
        total = max(p.size, 1)
        labels = ", ".join(f"{markdown_cell(k)} {100 * v / total:.1f}%" for k, v in p.label_counts.items()) or "-"
        rows.append(
            f"| {p.part} | {p.size} | {labels} | {p.mean_words:.2f} | {p.median_words:.1f} | "
            f"{_share(p.rare_word_fraction)} | {_share(p.unlisted_word_fraction)} | {p.fk_grade:.2f} | "
            f"{p.fk_grade_example_mean:.2f} ± {p.fk_grade_example_sd:.2f} | {_opt(p.mean_dependency_depth)} | "
            f"{_opt(p.mean_logprob_sum)} | "
            f"{_opt(p.mean_logprob_mean)} |"
        )
    return rows


def _opt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}%"


def _null_markdown(null: list[NullComparison]) -> list[str]:
    rows = ["| statistic | observed | random splits: mean ± std | percentile | z | |", "|---|---:|---:|---:|---:|---|"]
    for c in null:
        rows.append(
            f"| {c.description} | {_value(c.name, c.observed)} | {_value(c.name, c.null_mean)} ± "
            f"{_value(c.name, c.null_std, spread=True)} | {c.percentile:.1f} | {c.z_score:.2f} | "
            f"{c.verdict()} |"
        )
    return rows


def _leakage_markdown(analysis: SplitAnalysis) -> list[str]:
    """Per evaluation part, the share of queries (and pairs) also in train."""
    leakage = getattr(analysis, "leakage", None) or {}
    names = list(dict.fromkeys(name for shares in leakage.values() for name in shares))
    if not names:
        return []
    from tailsplit.analysis.leakage import NEAR_JACCARD

    header = [name.replace("_", " ", 1).replace("query", "queries").replace("pair", "pairs") for name in names]
    rows = [
        "## Leakage: evaluation examples also in train",
        "",
        "Share of each evaluation part whose query (or whole context + query pair) also occurs in train: "
        f"exactly, after case/punctuation/space normalisation, or as a near-duplicate (word-bigram Jaccard ≥ "
        f"{NEAR_JACCARD}, MinHash LSH). A random split that leaks inflates its baseline; keep repeated "
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
        f"## Annotator agreement ({markdown_cell(analysis.agreement_field)})",
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
            f"| {markdown_cell(comparison.other)} | {_opt(comparison.pearson_r)} | "
            f"{_opt(comparison.spearman_rho)} | {comparison.eval_shared} "
            f"({100 * comparison.eval_shared_share:.1f}%) |"
        )
    names = [markdown_cell(analysis.name)] + [markdown_cell(c.other) for c, _ in comparisons]
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
    analysis: SplitAnalysis, comparisons: list[tuple[SplitComparison, SplitAnalysis]], figures: dict[str, str]
) -> str:
    """The whole page; ``figures`` maps a caption to an inline SVG made by tailsplit."""
    try:
        import markdown
    except ImportError:
        raise MissingDependencyError("markdown", "analysis", "the HTML report") from None

    overview, details = _sections(analysis, comparisons)
    figure_html = "".join(
        f'<figure class="{"wide" if "random splits" in caption else ""}">{svg}'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        for caption, svg in figures.items()
    )
    body = (
        markdown.markdown("\n".join(overview), extensions=["tables"])
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


STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d232a;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:4px}
table{border-collapse:collapse;margin:8px 0;font-size:.92em;background:#fff}
th,td{border:1px solid #ddd;padding:4px 8px;vertical-align:top}th{background:#f0f2f4;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(480px,1fr));gap:16px}
figure{margin:0;background:#fff;border:1px solid #ddd;padding:8px}figure svg{width:100%;height:auto}
figure.wide{grid-column:1/-1}
figcaption{font-size:.9em;color:#555}
"""
