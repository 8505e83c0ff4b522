"""What the commands print: the split summary, program metrics, the analysis headlines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tailsplit.analysis.null import ALPHA
from tailsplit.analysis.program_metrics import divergence_note
from tailsplit.analysis.report import headlines
from tailsplit.cli.app import stdout
from tailsplit.pipeline.split_folder import scoring_note
from tailsplit.render import console_text

if TYPE_CHECKING:
    from tailsplit.analysis.compare import SplitComparison
    from tailsplit.analysis.program_metrics import ProgramMetrics
    from tailsplit.analysis.split_analysis import SplitAnalysis
    from tailsplit.pipeline.result import RunResult
    from tailsplit.programs.sets import ProgramFeatures


def print_summary(result: RunResult) -> None:
    from rich.table import Table

    table = Table(title="split summary (means per example)")
    for column in ("part", "size", "labels", "words", "logprob_sum", "logprob_mean"):
        table.add_column(column, justify="left" if column in ("part", "labels") else "right", no_wrap=True)
    for s in result.summaries:
        total = max(s.size, 1)
        labels = "\n".join(f"{console_text(k)} {100 * v / total:.1f}%" for k, v in s.label_counts.items()) or "-"
        table.add_row(
            s.part,
            str(s.size),
            labels,
            f"{s.mean_words:.2f}",
            "-" if s.mean_logprob_sum is None else f"{s.mean_logprob_sum:.3f}",
            "-" if s.mean_logprob_mean is None else f"{s.mean_logprob_mean:.3f}",
        )
    stdout.print(table)

    if scoring_note(result.manifest):
        stdout.print(f"scores: {scoring_note(result.manifest)}", highlight=False)
    if result.program_metrics:
        print_program_metrics(result.program_metrics, result.programs)
    if result.analysis is not None:
        print_headlines(result.analysis)
    if result.out_dir is not None:
        stdout.print(
            f"wrote {result.out_dir}/ ({', '.join(folder_listing(result.manifest['outputs']))}, manifest.json)"
        )
    else:  # a look at the split only: say so, rather than exit 0 having written nothing in silence
        stdout.print("nothing was written (no --out): pass --out DIR to write the split folder", highlight=False)


def print_program_metrics(metrics: list[ProgramMetrics], programs: ProgramFeatures | None) -> None:
    from rich.table import Table

    levels = list(next((m.hardness for m in metrics if m.hardness), {}))
    table = Table(title="programs, against train", caption=f"hardness %: {'/'.join(levels)}" if levels else None)
    for column in ("part", "atom div", "cmpd div", "novel cmpd", "unseen atoms", "hardness %"):
        table.add_column(column, justify="left" if column == "part" else "right", no_wrap=True)
    for m in metrics:
        total = max(m.size, 1)
        table.add_row(
            m.part,
            "-" if m.atom_divergence is None else f"{m.atom_divergence:.3f}",
            "-" if m.compound_divergence is None else f"{m.compound_divergence:.3f}",
            "-" if m.novel_compound_share is None else f"{100 * m.novel_compound_share:.1f}%",
            "-" if m.atoms_missing_from_train is None else str(m.atoms_missing_from_train),
            "/".join(f"{100 * m.hardness[level] / total:.0f}" for level in levels) or "-",
        )
    stdout.print(table)
    if programs is not None:
        stdout.print(divergence_note(programs.count, programs.extractor), highlight=False)


def print_analysis(analysis: SplitAnalysis, comparisons: list[tuple[SplitComparison, SplitAnalysis]]) -> None:
    from rich.table import Table

    print_headlines(analysis)
    table = Table(title=f"evaluation against {analysis.n_null_splits} random splits")
    for column in ("statistic", "observed", "random mean", "percentile", "z", "Holm p"):
        table.add_column(column, justify="left" if column == "statistic" else "right")
    for c in analysis.null:
        table.add_row(
            c.name,
            f"{c.observed:.4g}",
            f"{c.null_mean:.4g}",
            f"{c.percentile:.1f}",
            f"{c.z_score:.2f}" if c.z_score == c.z_score else "–",
            ("–" if c.p_holm != c.p_holm else f"{c.p_holm:.3g}") + (" *" if c.differs else ""),
        )
    stdout.print(table)
    for comparison, _ in comparisons:
        stdout.print(f"vs {comparison.other}: {correlation_text(comparison)}", highlight=False)


def correlation_text(comparison: Any) -> str:
    """How two splits' scores agree, in words: the correlations where both splits have scores,
    else why there are none (a random split has no scores) — never ``None``."""
    shared = f"shared evaluation examples {100 * comparison.eval_shared_share:.1f}%"
    if comparison.pearson_r is None or comparison.spearman_rho is None:
        return f"no score correlation (a split without scores); {shared}"
    return f"Pearson r {comparison.pearson_r:.3f}, Spearman ρ {comparison.spearman_rho:.3f}, {shared}"


def folder_listing(outputs: list[str] | dict[str, str]) -> list[str]:
    """Top-level names of written files; a subfolder once, with its file count (``figures/ (10 files)``)."""
    counts: dict[str, int] = {}
    for name in outputs:
        top, sep, _ = name.partition("/")
        key = top + sep
        counts[key] = counts.get(key, 0) + 1
    return [f"{key} ({n} files)" if key.endswith("/") else key for key, n in counts.items()]


def print_headlines(analysis: SplitAnalysis) -> None:
    """The headline verdicts, then how they were reached (test, correction, level)."""

    found = headlines(analysis)
    for line in found:
        stdout.print("• " + line.replace("**", ""), highlight=False, markup=False)
    if found:
        family = max((c.family for c in analysis.null), default=0)
        stdout.print(
            f"  (yes: two-sided test against {analysis.n_null_splits} random splits, Holm-adjusted across the "
            f"{family} statistics of the report, α = {ALPHA:g})",
            highlight=False,
            markup=False,
        )
