"""Tables for papers: LaTeX (``booktabs``) and CSV, from one list of header cells and rows.

>>> print(latex_table(["split", "acc."], [["random", "79.9"], ["likelihood_50%", "72.3"]], "Test accuracy."))
\\begin{table}[t]
\\centering
\\begin{tabular}{ll}
\\toprule
split & acc. \\\\
\\midrule
random & 79.9 \\\\
likelihood\\_50\\% & 72.3 \\\\
\\bottomrule
\\end{tabular}
\\caption{Test accuracy.}
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
}
_LATEX_PATTERN = re.compile("|".join(re.escape(k) for k in _LATEX_SPECIAL))


def latex_escape(text: Any) -> str:
    """Text shown literally in LaTeX (its special characters escaped)."""
    return _LATEX_PATTERN.sub(lambda m: _LATEX_SPECIAL[m.group()], str(text))


def latex_table(header: Sequence[str], rows: Sequence[Sequence[Any]], caption: str, align: str | None = None) -> str:
    """A ``booktabs`` table (``\\usepackage{booktabs}``); every cell is escaped."""
    align = align or "l" * len(header)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(latex_escape(h) for h in header) + r" \\",
        r"\midrule",
        *[" & ".join(latex_escape(c) for c in row) + r" \\" for row in rows],
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{latex_escape(caption)}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def csv_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(["" if c is None else c for c in row] for row in rows)
    return out.getvalue()
