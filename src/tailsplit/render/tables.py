"""Tables for papers: LaTeX (``booktabs``) and CSV, from one list of header cells and rows.

Every ``.tex`` table compiles with pdflatex in a minimal ``article`` with ``booktabs``: cell
text is escaped, symbols pdflatex does not know as text (``≥``, ``±``, Greek letters) become
math, other characters outside what pdflatex's default UTF-8 input sets up are written as
``[U+4E2D]`` (the code point), missing values (``nan``, ``-``, empty) as an en dash; columns whose cells are
all numbers are right-aligned, text columns of long cells wrap (ragged right, narrowed so
that the table fits a one-column page); a minus sign is set as one; the label comes from the
file name; a table too wide for one column of a two-column paper spans both (``table*``).

>>> print(latex_table(["split", "acc."], [["random", "79.9"], ["likelihood_50%", "nan"]], "Test accuracy.", "acc"))
\\begin{table}[t]
\\centering
\\footnotesize
\\setlength{\\tabcolsep}{4pt}
\\hyphenpenalty=10000\\exhyphenpenalty=50
\\begin{tabular}{lr}
\\toprule
split & acc. \\tabularnewline
\\midrule
random & 79.9 \\tabularnewline
likelihood\\_50\\% & -- \\tabularnewline
\\bottomrule
\\end{tabular}
\\caption{Test accuracy.}
\\label{tab:acc}
\\end{table}
<BLANKLINE>
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from typing import Any

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "/": r"\slash{}",  # a slash a line may break after (case/punctuation/space)
    "[": "{[}",  # a cell starting with [ after \\ would be read as \\[length]
    "]": "{]}",
}
_LATEX_PATTERN = re.compile("|".join(re.escape(k) for k in _LATEX_SPECIAL))


# Symbols that pdflatex's text fonts lack, written as math.
_LATEX_SYMBOLS = {
    "≥": r"$\geq$", "≤": r"$\leq$", "±": r"$\pm$", "−": r"$-$", "×": r"$\times$", "→": r"$\rightarrow$",
    "≈": r"$\approx$", "²": r"$^2$", "α": r"$\alpha$", "ρ": r"$\rho$", "Δ": r"$\Delta$", "µ": r"$\mu$",
    "–": "--", "—": "---", "…": r"\ldots{}", "•": r"$\bullet$", "’": "'", "‘": "`", "“": "``", "”": "''",
}  # fmt: skip
_MISSING = {"nan", "-", "–", "", "none", "None"}
_NUMBER = re.compile(r"^[-+−]?(\d[\d,]*\.?\d*|\.\d+)(e[-+]?\d+)?\s*(%|pp)?(\s*(±|\+/-)\s*[\d.]+\s*(%|pp)?)?$")


def _char(ch: str) -> str:
    if ch in _LATEX_SPECIAL:
        return _LATEX_SPECIAL[ch]
    if ch in _LATEX_SYMBOLS:
        return _LATEX_SYMBOLS[ch]
    if ord(ch) < 0x80 or 0xC0 <= ord(ch) <= 0xFF and ch not in "×÷ÐÞðþ":  # ASCII, Latin-1 letters OT1 has
        return ch if ch.isprintable() else " "
    return f"{{[}}U+{ord(ch):04X}{{]}}"


def latex_escape(text: Any) -> str:
    """Text shown literally in LaTeX that pdflatex accepts as it is installed."""
    return "".join(map(_char, str(text)))


# A minus sign before a number (``-5.0``, ``[-22.6, ...``): typeset as a minus, not a hyphen.
_NEGATIVE = re.compile(r"(?<![\w.])-(?=\d)")


class _Blank(str):
    """A cell left empty on purpose (not a missing value, which reads as an en dash)."""


# The cell of a group's rows after its first (the group named once, at its first row).
BLANK = _Blank("")


def _cell(value: Any) -> str:
    if isinstance(value, _Blank):
        return ""
    if isinstance(value, (list, tuple)):  # lines in one cell (of a p{} column)
        return r" \newline ".join(_minus(latex_escape(item)) for item in value) if value else "--"
    return "--" if str(value).strip() in _MISSING else _minus(latex_escape(value))


def _minus(text: str) -> str:
    r"""``text`` with each hyphen that starts a number typeset as a minus sign.

    >>> _minus("-5.0 [-22.6, +12.5]"), _minus("bi-gram 3-4")
    ('$-$5.0 [$-$22.6, +12.5]', 'bi-gram 3-4')
    """
    return _NEGATIVE.sub("$-$", text)


def _numeric(cells: Sequence[Any]) -> bool:
    present = [str(c).strip() for c in cells if str(c).strip() not in _MISSING]
    return bool(present) and all(_NUMBER.match(c) for c in present)


def _header(text: str, width: int = 14) -> str:
    """A header cell broken into lines of about ``width`` characters (``\\shortstack``), so a
    long name does not widen a column of short numbers."""
    words, lines = text.split(), [""]
    for word in words:
        lines[-1] = f"{lines[-1]} {word}".strip() if len(lines[-1]) + len(word) < width else lines[-1]
        if word not in lines[-1].split():
            lines.append(word)
    if len(lines) == 1:
        return latex_escape(text)
    return r"\shortstack{" + r" \\ ".join(latex_escape(line) for line in lines) + "}"


_WRAP_CHARS = 20  # a text column of longer cells wraps at about this many characters
# What fits across one column of a two-column paper at \\footnotesize, in em (229 pt, 28.7 em, less a margin).
_COLUMN_EMS = 27


def _width(value: Any) -> int:
    items = value if isinstance(value, (list, tuple)) else [value]
    return max((len(str(item)) for item in items), default=0)


# What a table may span, in em at \\footnotesize: a one-column article's text (345 pt, 43 em),
# less a margin (2 em: an em is not quite a column's share); a table* of a two-column page has more.
_PAGE_EMS = 39


def _wrapped_widths(chars: Sequence[int], wraps: Sequence[bool]) -> list[float]:
    """Each wrapped column's width in em (half its characters, at most ``_WRAP_CHARS``),
    narrowed alike where they would not leave the table within :data:`_PAGE_EMS` (each
    column also takes 1 em of separation; a column of numbers about half an em a character).

    >>> _wrapped_widths([30, 30, 30, 30], [True] * 4), _wrapped_widths([30, 8], [True, False])
    ([8.75, 8.75, 8.75, 8.75], [10.0, 0])
    """
    fixed = sum(1 + (0 if wrap else n / 2) for n, wrap in zip(chars, wraps))
    wanted = [min(n, _WRAP_CHARS) / 2 if wrap else 0 for n, wrap in zip(chars, wraps)]
    room = _PAGE_EMS - fixed
    if not any(wraps):
        return [0.0] * len(wraps)
    factor = 1.0 if sum(wanted) <= room else max(room, 0.0) / sum(wanted)
    return [max(4.0, round(w * factor * 4) / 4) if w else 0 for w in wanted]


# An em of \footnotesize holds about this many characters of a word (capitals and digits are wider).
_CHARS_PER_EM = 1.8


def _longest_word(column: Sequence[Any]) -> int:
    """The longest run of characters in a column that a line cannot break (between spaces,
    slashes and hyphens, where a wrapped line may break).

    >>> _longest_word(["random (3 seeds)", "likelihood (prompted, length-controlled)"])
    11
    """
    items = [item for cell in column for item in (cell if isinstance(cell, (list, tuple)) else [cell])]
    return max((len(word) for item in items for word in re.split(r"[\s/-]+", str(item))), default=0)


def _at_least_words(widths: Sequence[float], words: Sequence[int], wraps: Sequence[bool]) -> list[float]:
    """Each wrapped column at least as wide as its longest unbreakable word (no word is
    hyphenated, and none overflows its column)."""
    return [max(w, round(n / _CHARS_PER_EM * 4 + 1) / 4) if wrap else w for w, n, wrap in zip(widths, words, wraps)]


# Widths in em of \\footnotesize characters (Computer Modern), for the column-or-page decision:
# digits and most lowercase letters are half an em, capitals wider, punctuation and spaces narrower.
_NARROW, _WIDE = set(".,:;!|'()[]ijlft"), set("ABCDEFGHKLMNOPQRSTUVWXYZmw")


def _ems(value: Any) -> float:
    """A cell's width in em (its widest line), character by character.

    >>> _ems("100.0"), _ems("1 len:train")
    (2.28, 4.45)
    """
    items = value if isinstance(value, (list, tuple)) else [value]
    widths = [
        sum(0.28 if ch in _NARROW else 0.33 if ch in " -" else 0.75 if ch in _WIDE else 0.5 for ch in text)
        for text in (str(item) for item in items)
    ]
    return round(max(widths, default=0.0), 2)


def _span(ems: Sequence[float], widths: Sequence[float], wraps: Sequence[bool]) -> float:
    """A table's estimated width in em: its wrapped columns' widths, the others' ``ems``, an em
    of separation per column."""
    return sum(1 + (w if wrap else e) for e, w, wrap in zip(ems, widths, wraps))


def table_label(*names: str) -> str:
    """A table's LaTeX label from what it is of (the split or output folder) and what it shows:
    unique per split, so a paper that sets two splits' tables refers to each.

    >>> table_label("snli-likelihood", "parts"), table_label("<b> len", "against-random-splits")
    ('snli-likelihood-parts', 'b-len-against-random-splits')
    """
    slugs = [re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") for name in names]
    return "-".join(s for s in slugs if s) or "table"


def latex_table(
    header: Sequence[str], rows: Sequence[Sequence[Any]], caption: str, label: str, align: str | None = None
) -> str:
    """A ``booktabs`` table (``\\usepackage{booktabs}``) labelled ``tab:<label>``; every cell
    is escaped (a list becomes lines in its cell) and a number's minus sign set as one;
    numeric columns right-aligned unless ``align`` says otherwise; text columns of long cells
    wrap, ragged right (``p{}``); a table whose estimated width exceeds a column spans both
    (``table*``)."""
    columns = list(zip(*rows)) if rows else [()] * len(header)
    kinds = align or "".join("r" if _numeric(c) else "l" for c in columns)
    chars = [max([_width(c) for c in column] + [min(len(h), 14)]) for column, h in zip(columns, header)]
    listed = [any(isinstance(c, (list, tuple)) for c in column) for column in columns]
    wraps = [(k == "l" and n > _WRAP_CHARS) or stacked for k, n, stacked in zip(kinds, chars, listed)]
    words = [_longest_word(column) for column in columns]
    widths = _at_least_words(_wrapped_widths(chars, wraps), words, wraps)
    if (
        _span([n / 2 for n in chars], widths, wraps) > _PAGE_EMS
    ):  # too wide for a one-column page: shorter text wraps too
        wraps = [wrap or (k == "l" and n > 8) for k, n, wrap in zip(kinds, chars, wraps)]
        widths = _at_least_words(_wrapped_widths(chars, wraps), words, wraps)
    spec = "".join(rf"p{{{w:g}em}}" if wrap else k for k, w, wrap in zip(kinds, widths, wraps))
    ems = [max([_ems(c) for c in column] + [_ems(h[:14])]) for column, h in zip(columns, header)]
    env = "table*" if _span(ems, widths, wraps) > _COLUMN_EMS else "table"  # measured character by character
    wrapped = [s.startswith("p") for s in re.findall(r"p\{[^}]*\}|[lrc]", spec)]
    lines = [
        rf"\begin{{{env}}}[t]",
        r"\centering",
        r"\footnotesize",
        r"\setlength{\tabcolsep}{4pt}",
        r"\hyphenpenalty=10000\exhyphenpenalty=50",  # names and words are never broken inside
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        # rows end with \tabularnewline: a wrapped cell is ragged right (\raggedright), which
        # would take a \\ ending its row for a line break of its own
        " & ".join(_header(h) for h in header) + r" \tabularnewline",
        r"\midrule",
        *[
            " & ".join((r"\raggedright " if w else "") + _cell(c) for c, w in zip(row, wrapped)) + r" \tabularnewline"
            for row in rows
        ],
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{latex_escape(caption)}}}",
        rf"\label{{tab:{re.sub(r'[^A-Za-z0-9:-]', '-', label)}}}",
        rf"\end{{{env}}}",
    ]
    return "\n".join(lines) + "\n"


def csv_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(["" if c is None else c for c in row] for row in rows)
    return out.getvalue()
