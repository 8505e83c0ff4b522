"""The explorer page: every example of one or more splits in one self-contained HTML file —
search, sort, filters by category, each query's tokens shaded by their log-probability.

The table library is DataTables as itables bundles it (``dt_bundle.js``, MIT; the ``explore``
extra), embedded in the page, so the page needs no network; the page's own script
(``explorer.js`` beside this module) only configures it. Rows travel as JSON in a
``<script type="application/json">`` element with every ``<``, ``>`` and ``&`` escaped, and
every text reaches the page as text (DataTables' text renderer, or ``textContent``).

A query's tokens travel compactly: when the pieces spell the query, their lengths (in
UTF-16 code units, as JavaScript counts) — else the pieces themselves — and each token's
log-probability in hundredths of a nat.
"""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from tailsplit._version import __version__
from tailsplit.errors import MissingDependencyError
from tailsplit.render.pages import STYLE
from tailsplit.render.provenance import provenance_html

# A token at or below -SCALE nats is shaded fully; 0 nats not at all.
SCALE = 10.0
COLOUR = "214, 39, 40"  # the rgb of the shade
KINDS = ("text", "number", "category", "tokens")
MAX_TAIL_BUTTONS = 50  # a button per label up to this many labels

EXPLORER_STYLE = """
main{max-width:1800px}.dt-container{overflow-x:auto}
.tok{border-radius:2px}
.filters{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}.filters label{font-size:.9em}
.tails button{margin:2px 4px 2px 0}
.legend span{display:inline-block;width:44px;text-align:center;font-size:.85em}
table.dataTable td{vertical-align:top}table.dataTable td.tokens{min-width:24em}table.dataTable td.context{min-width:16em}
"""


@dataclass(frozen=True)
class Column:
    """One column of the table: its key (the filters name it), title and kind — ``text``,
    ``number``, ``category`` (a filter of its values is offered) or ``tokens`` (a cell made
    by :func:`token_cell`)."""

    key: str
    title: str
    kind: str = "text"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"column kind {self.kind!r} is not one of {KINDS}")


@dataclass
class ExplorerTable:
    """The table's columns and rows (a list of cells per row, in column order)."""

    columns: list[Column]
    rows: list[list[Any]] = field(default_factory=list)
    order_by: str | None = None  # the column sorted on first, ascending (the tail first)

    def category_values(self, key: str) -> list[str]:
        index = [c.key for c in self.columns].index(key)
        return sorted({str(row[index]) for row in self.rows if row[index] is not None})


def token_cell(text: str, pieces: Sequence[str] | None, logprobs: Sequence[float] | None) -> list[Any]:
    """A query's cell: ``[text]``, or ``[text, pieces, centinats]`` where ``pieces`` are the
    tokens' lengths when they spell ``text`` (else the pieces), ``centinats`` the rounded
    log-probabilities times 100.

    >>> token_cell("a cat", ["a", " cat"], [-1.234, -5.0])
    ['a cat', [1, 4], [-123, -500]]
    >>> token_cell("a cat", None, None)
    ['a cat']
    """
    if pieces is None or logprobs is None:
        return [text]
    spelled = "".join(pieces) == text
    shown: list[Any] = [_utf16_length(p) for p in pieces] if spelled else list(pieces)
    return [text, shown, [round(float(v) * 100) for v in logprobs]]


def shade_alpha(logprob: float) -> float:
    """The alpha of a token's shade, as the page computes it from the centinats it holds.

    >>> shade_alpha(-2.5), shade_alpha(0.0), shade_alpha(-30.0)
    (0.25, 0.0, 1.0)
    """
    centinats = round(logprob * 100)
    return math.floor(min(max(-centinats, 0), SCALE * 100) / SCALE + 0.5) / 100  # Math.round: halves up


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def inert_json(value: Any) -> str:
    """JSON that cannot close its ``<script>`` element or open another: ``<``, ``>`` and
    ``&`` as escapes (the same value to ``JSON.parse``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def table_bundle() -> tuple[str, str]:
    """DataTables as itables ships it: (the ES module, its style sheet)."""
    try:
        folder = resources.files("itables") / "html"
    except ModuleNotFoundError:
        raise MissingDependencyError("itables", "explore", "the explorer page's table") from None
    return (folder / "dt_bundle.js").read_text(encoding="utf-8"), (folder / "dt_bundle.css").read_text(encoding="utf-8")


def bundle_version() -> str:
    """The itables version whose DataTables bundle a page embeds (for the manifest)."""
    from importlib.metadata import version

    return version("itables")


def explorer_html(
    title: str, table: ExplorerTable, sections: str, provenance: dict[str, Any] | None, label_key: str | None
) -> str:
    """The page: title, provenance, ``sections`` (HTML made by the caller, escaped), the
    filters, the legend and the table."""
    script, style = table_bundle()
    page_script = resources.files("tailsplit.render").joinpath("explorer.js").read_text(encoding="utf-8")
    keys = [c.key for c in table.columns]
    order = [[keys.index(table.order_by), "asc"]] if table.order_by in keys else [[0, "asc"]]
    spec = {
        "columns": [c.__dict__ for c in table.columns],
        "order": order,
        "scale": SCALE,
        "colour": COLOUR,
        "label_key": label_key,
    }
    head = "".join(f"<th>{html.escape(c.title)}</th>" for c in table.columns)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="tailsplit {html.escape(__version__)}">'
        f"<title>{html.escape(title)}</title><style>{STYLE}{EXPLORER_STYLE}</style>"
        f"<style>{style}</style></head><body><main>"
        f"<h1>{html.escape(title)}</h1>"
        + ("" if provenance is None else provenance_html(provenance))
        + sections
        + _filters(table)
        + _tails(table, label_key)
        + _legend()
        + _element("table", f"<thead><tr>{head}</tr></thead>", id="explorer", **{"class": "display compact"})
        + _element("script", inert_json(spec), type="application/json", id="explorer-spec")
        + _element("script", inert_json(table.rows), type="application/json", id="explorer-rows")
        + _element("script", base64.b64encode(script.encode()).decode(), type="text/plain", id="explorer-bundle")
        + _element("script", page_script, type="module")
        + "</main></body></html>\n"
    )


def _element(tag: str, content: str, **attributes: str) -> str:
    """``<tag attributes>content</tag>``; ``content`` is the caller's, made inert already."""
    named = "".join(f' {name}="{html.escape(value)}"' for name, value in attributes.items())
    return f"<{tag}{named}>{content}</{tag}>"


def _filters(table: ExplorerTable) -> str:
    """A select of every value of each category column (exact match; empty: all rows)."""
    boxes = []
    for index, column in enumerate(table.columns):
        if column.kind != "category":
            continue
        options = "".join(
            f'<option value="{html.escape(v)}">{html.escape(v)}</option>' for v in table.category_values(column.key)
        )
        boxes.append(
            f"<label>{html.escape(column.title)} "
            f'<select data-column="{html.escape(column.key)}" data-index="{index}">'
            f'<option value="">all</option>{options}</select></label>'
        )
    return f'<div class="filters">{"".join(boxes)}</div>' if boxes else ""


def _tails(table: ExplorerTable, label_key: str | None) -> str:
    """One button per label: that label's rows, least likely first (its tail)."""
    if label_key is None or table.order_by is None or len(table.category_values(label_key)) > MAX_TAIL_BUTTONS:
        return ""  # without scores there is no tail; with hundreds of labels, the label filter serves
    buttons = "".join(
        f'<button type="button" data-tail="{html.escape(v)}">{html.escape(v)}</button>'
        for v in table.category_values(label_key)
    )
    return f'<p class="tails">The tail of each label, least likely first: {buttons}</p>'


def _legend() -> str:
    steps = [0, -2, -4, -6, -8, -10]
    cells = "".join(f'<span style="background-color:rgba({COLOUR}, {shade_alpha(v)})">{v:g}</span>' for v in steps)
    return (
        f'<p class="legend">Each query token is shaded by its log-probability (nats; ≤ {-SCALE:g} is the '
        f"darkest; hover a token for its value): {cells}</p>"
    )
