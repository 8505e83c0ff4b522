"""The analysed split's four figures (SVG + PDF each), with each PDF's font subset kept for the
next figure (as tailsplit draws them) against matplotlib's own subsetting of every PDF (the
baseline), timed in alternating rounds in one process. Each round starts with no kept subset
and no kept figure, as a fresh run does; a third timing draws the same split again in the
process (its figures kept, as ``analyze`` after ``run``). The demo's split of the bundled SNLI
sample, as drawn by ``make demo``::

    python -m benchmarks.speed.bench_figures --rounds 6 --json benchmarks/results/figures_cpu.json
"""

from __future__ import annotations

import contextlib
import statistics
from collections.abc import Iterator

from benchmarks.evidence.demo_figure import demo_analysis
from benchmarks.harness import in_rounds, parser, write_results
from tailsplit.analysis.plots import analysis_figures
from tailsplit.render import figures


@contextlib.contextmanager
def _matplotlib_subsets() -> Iterator[None]:
    yield


def main() -> None:
    args = parser(__doc__)
    args.add_argument("--rounds", type=int, default=6)
    given = args.parse_args()
    analysis = demo_analysis()
    kept = figures._subsets_kept
    analysis_figures(analysis)  # fonts and caches of matplotlib warm for both

    def drawn(subsets: object) -> int:
        figures._SUBSETS.clear()
        figures._DRAWN.clear()
        figures._subsets_kept = subsets  # type: ignore[assignment]
        try:
            return sum(len(f.pdf) for f in analysis_figures(analysis).values())
        finally:
            figures._subsets_kept = kept

    def drawn_again() -> int:
        return sum(len(f.pdf) for f in analysis_figures(analysis).values())

    seconds, pdf_bytes = in_rounds(
        {
            "kept_subsets": lambda: drawn(kept),
            "matplotlib_subsets": lambda: drawn(_matplotlib_subsets),
            "kept_figures": drawn_again,  # the split's figures are kept from the draw before
        },
        given.rounds,
    )
    medians = {name: statistics.median(times) for name, times in seconds.items()}
    result = {
        "figures": 4,
        "rounds": given.rounds,
        "seconds": {name: [round(t, 3) for t in times] for name, times in seconds.items()},
        "median_s": {name: round(t, 3) for name, t in medians.items()},
        "speedup": round(medians["matplotlib_subsets"] / medians["kept_subsets"], 2),
        "pdf_bytes": pdf_bytes,
    }
    print(result)
    if given.json:
        write_results(given.json, result)


if __name__ == "__main__":
    main()
