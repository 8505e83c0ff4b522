"""A two-column paper page built from what tailsplit writes, unedited: a split's parts table and
its table against random splits, an evaluation's table, and a figure of each, set in
``\\documentclass[twocolumn]{article}`` with booktabs and compiled with pdflatex. Prints the
pages and any overfull line (a table or figure wider than its column or page)::

    make demo   # the README's likelihood split: demo-out/snli-likelihood
    tailsplit split examples/data/snli_dev_3000.jsonl.gz --text hypothesis --context premise \\
        --label label --splitter random --balance-labels --out paper/r0
    tailsplit evaluate demo-out/snli-likelihood paper/r0 --baseline tfidf --out paper/ev
    python -m benchmarks.evidence.paper_page demo-out/snli-likelihood paper/ev --out paper/page
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from benchmarks.harness import parser

PARAGRAPH = (
    "Likelihood splits put the examples a language model finds least likely into the evaluation parts. "
    "This page sets the tables and figures tailsplit writes as a paper would, without editing them. "
) * 4

PAGE = r"""\documentclass[twocolumn,10pt]{article}
\usepackage[a4paper,margin=2cm]{geometry}
\usepackage{booktabs}
\usepackage{graphicx}
\begin{document}
\section{Splits}
%(p)s
\input{parts.tex}
\begin{figure}[t]\centering\includegraphics[width=\columnwidth]{split-figure.pdf}
\caption{A figure of the split, as written.}\end{figure}
%(p)s
\input{against-random-splits.tex}
\section{Evaluation}
%(p)s
\input{evaluation.tex}
\begin{figure}[t]\centering\includegraphics[width=\columnwidth]{evaluation-figure.pdf}
\caption{The evaluation's figure, as written.}\end{figure}
%(p)s
\end{document}
"""


def build(split: Path, evaluation: Path, out: Path) -> tuple[Path, list[str]]:
    """``out/paper.pdf`` and the overfull-box lines of its log."""
    out.mkdir(parents=True, exist_ok=True)
    for name in ("parts.tex", "against-random-splits.tex"):
        shutil.copy(split / "tables" / name, out / name)
    shutil.copy(evaluation / "table.tex", out / "evaluation.tex")
    shutil.copy(sorted((split / "figures").glob("query-length*.pdf"))[0], out / "split-figure.pdf")
    shutil.copy(sorted((evaluation / "figures").glob("*.pdf"))[0], out / "evaluation-figure.pdf")
    (out / "paper.tex").write_text(PAGE % {"p": PARAGRAPH}, encoding="utf-8")
    for _ in range(2):  # twice: floats and references settle
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=out,
                       capture_output=True, check=True)  # fmt: skip
    log = (out / "paper.log").read_text(encoding="utf-8", errors="replace")
    return out / "paper.pdf", [line for line in log.splitlines() if re.match(r"Overfull \\[hv]box", line)]


def main() -> None:
    args = parser(__doc__, results=None)
    args.add_argument("split", type=Path, help="a split folder tailsplit wrote")
    args.add_argument("evaluation", type=Path, help="an evaluation folder tailsplit evaluate wrote")
    args.add_argument("--out", type=Path, required=True, help="folder for paper.tex and paper.pdf")
    given = args.parse_args()
    pdf, overfull = build(given.split, given.evaluation, given.out)
    from pypdf import PdfReader

    print(f"{pdf}: {len(PdfReader(pdf).pages)} pages, {len(overfull)} overfull lines")
    for line in overfull:
        print(line)


if __name__ == "__main__":
    main()
