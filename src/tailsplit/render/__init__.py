"""Every report's rendering: console views (:mod:`.console`), HTML pages (:mod:`.pages`),
figures (:mod:`.figures`), LaTeX and CSV tables (:mod:`.tables`) and the provenance block each
report opens with (:mod:`.provenance`) — and, here, text made inert where it lands: Markdown
(and the HTML rendered from it), and terminals.

Data — texts, labels, ids, field names, paths — reaches reports and consoles. There it must
stay text: no link, image or emphasis from a ``[click](javascript:…)`` in a label, no HTML
from ``<img onerror=…>`` in a field name, no terminal escape sequence from a label that
would retitle or clear a terminal.

>>> markdown_text("[click](javascript:alert(1)) <b>")
'\\\\[click\\\\](javascript:alert(1)) &lt;b&gt;'
>>> markdown_code("a `b` c")
'`` a `b` c ``'
>>> console_text("red \\x1b[31m label")
'red \\\\x1b[31m label'
"""

from __future__ import annotations

import html
import re
from typing import Any

from tailsplit.log import inert

# Characters that start Markdown inline syntax inside a line: links and images ([ ] and the
# ! before them), emphasis (* _ ~), code spans (`), escapes (\). HTML and autolinks are
# taken care of by escaping < > & as HTML entities.
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]~!])")


def number(value: Any, spec: str = ".4g") -> str:
    """A statistic formatted with ``spec``, or ``n/a`` when there is none (``None``, NaN):
    a report never prints ``None`` nor fails on a statistic that could not be computed.

    >>> number(0.123456), number(None), number(float("nan")), number(3, ".1f")
    ('0.1235', 'n/a', 'n/a', '3.0')
    """
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return "n/a"
    return format(value, spec)


def table_cell(value: Any) -> str:
    """A value as a result's table shows it in a notebook: numbers to 4 significant digits, a
    pair of numbers as an interval, nested data as ``…``, nothing for a missing value.

    >>> table_cell(0.047619047619047616), table_cell((0.047619047619047616, 0.4)), table_cell(None)
    ('0.04762', '[0.04762, 0.4]', '')
    >>> table_cell({"a": 1}), table_cell([]), table_cell("text")
    ('…', '', 'text')
    """
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, (int, float)) for v in value):
        return "[" + ", ".join(table_cell(float(v)) for v in value) + "]"
    if isinstance(value, (dict, list, tuple)):
        return "…" if value else ""
    return "" if value is None else str(value)


def html_table(rows: list[dict[str, Any]], columns: list[str] | None = None) -> str:
    """``rows`` as an HTML table of :func:`table_cell` values, every cell escaped (``columns``:
    every key of the rows, in order of appearance, unless given)."""
    columns = list(dict.fromkeys(c for row in rows for c in row)) if columns is None else columns
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(table_cell(row.get(c)))}</td>" for c in columns) + "</tr>" for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def markdown_text(text: Any) -> str:
    """``text`` shown literally in Markdown and in the HTML made from it (one line: table
    cells and list items; pipes and line breaks neutralised). Quotes stay as they are: they
    mean nothing in Markdown or in HTML text outside a tag, and ``<`` cannot open one."""
    escaped = html.escape(_MARKDOWN_INLINE.sub(r"\\\1", str(text)), quote=False)
    return escaped.replace("|", "&#124;").replace("\n", " ").replace("\r", " ")


def markdown_code(text: Any) -> str:
    """``text`` as a Markdown code span (shown literally, HTML included), fenced by more
    backticks than any run inside it, on one line."""
    value = str(text).replace("\n", " ").replace("\r", " ")
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or longest else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def console_text(text: Any) -> str:
    """``text`` with control characters shown as escapes (``\\x1b``), so a label or id printed
    on a terminal cannot move the cursor, retitle or clear it."""
    return inert(text)
