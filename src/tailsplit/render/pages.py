"""Self-contained HTML pages for every report: one style sheet, the provenance header, the
Markdown body (text from the data already made literal by :func:`tailsplit.render.markdown_text`),
figures as inline SVG; no scripts."""

from __future__ import annotations

import html
from typing import Any

from tailsplit._version import __version__
from tailsplit.errors import MissingDependencyError
from tailsplit.render.figures import Figure
from tailsplit.render.provenance import provenance_html, title_and_rest

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
.provenance table{font-size:.85em}.provenance th{white-space:nowrap}.provenance code{word-break:break-all}
"""


def html_page(
    title: str, markdown_text: str, figures: dict[str, Figure], provenance: dict[str, Any] | None = None
) -> str:
    """A self-contained page: the Markdown's title, the provenance header, the rest of the
    Markdown, then the figures (inline SVG, no scripts)."""
    try:
        import markdown
    except ImportError:
        raise MissingDependencyError("markdown", "analysis", "the HTML report") from None
    figure_html = "".join(
        f"<figure>{figure.svg}<figcaption>{html.escape(caption)}</figcaption></figure>"
        for caption, figure in figures.items()
    )
    header = "" if provenance is None else provenance_html(provenance)
    title_line, rest = title_and_rest(markdown_text)
    body = (
        (markdown.markdown(title_line) if title_line else "")
        + header
        + markdown.markdown(rest, extensions=["tables"])
        + (f'<h2>Figures</h2><div class="figures">{figure_html}</div>' if figures else "")
    )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="tailsplit {html.escape(__version__)}">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>"
        f"<body><main>{body}</main></body></html>\n"
    )
