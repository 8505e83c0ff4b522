"""The console views of a run and of an analysis (what ``tailsplit run``/``split`` and
``analyze`` print): the split summary, program metrics, the analysis' statistics against
random splits and its headline verdicts, as :mod:`tailsplit.render.console` items."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tailsplit.analysis.null import ALPHA
from tailsplit.analysis.program_metrics import divergence_note
from tailsplit.analysis.report import headlines
from tailsplit.pipeline.runs.folder import scoring_note
from tailsplit.render.console import Line, Table, View

if TYPE_CHECKING:
    from tailsplit.analysis.compare import SplitComparison
    from tailsplit.analysis.program_metrics import ProgramMetrics
    from tailsplit.analysis.split_analysis import SplitAnalysis
    from tailsplit.analysis.summary import PartStatistics
    from tailsplit.io.manifest import Manifest
    from tailsplit.programs.sets import ProgramFeatures


def run_view(
    summaries: Sequence[PartStatistics],
    record: Manifest,
    metrics: Sequence[ProgramMetrics],
    programs: ProgramFeatures | None,
    analysis: SplitAnalysis | None,
    out_dir: Path | None,
) -> View:
    """A run's split summary, how the scores were made, program metrics, the analysis'
    headlines, and what was written (or that nothing was)."""
    rows = []
    for s in summaries:
        total = max(s.size, 1)
        labels = "\n".join(f"{k} {100 * v / total:.1f}%" for k, v in s.label_counts.items()) or "-"
        rows.append(
            [
                s.part,
                str(s.size),
                labels,
                f"{s.mean_words:.2f}",
                "-" if s.mean_logprob_sum is None else f"{s.mean_logprob_sum:.3f}",
                "-" if s.mean_logprob_mean is None else f"{s.mean_logprob_mean:.3f}",
            ]
        )
    columns = ["part", "size", "labels", "words", "logprob_sum", "logprob_mean"]
    view: View = [Table("split summary (means per example)", columns, rows, left_columns=("labels",))]
    note = scoring_note(record)
    if note:
        view.append(Line(f"scores: {note}"))
    if metrics:
        view += program_view(metrics, programs)
    if analysis is not None:
        view += headline_view(analysis)
    if out_dir is not None:
        view.append(Line(f"wrote {out_dir}/ ({', '.join(folder_listing(record.outputs))}, manifest.json)"))
    else:  # a look at the split only: say so, rather than exit 0 having written nothing in silence
        view.append(Line("nothing was written (no --out): pass --out DIR to write the split folder"))
    return view


def program_view(metrics: Sequence[ProgramMetrics], programs: ProgramFeatures | None) -> View:
    """Divergence, novelty and hardness of each part's programs against train."""
    levels = list(next((m.hardness for m in metrics if m.hardness), {}))
    rows = []
    for m in metrics:
        total = max(m.size, 1)
        rows.append(
            [
                m.part,
                "-" if m.atom_divergence is None else f"{m.atom_divergence:.3f}",
                "-" if m.compound_divergence is None else f"{m.compound_divergence:.3f}",
                "-" if m.novel_compound_share is None else f"{100 * m.novel_compound_share:.1f}%",
                "-" if m.atoms_missing_from_train is None else str(m.atoms_missing_from_train),
                "/".join(f"{100 * m.hardness[level] / total:.0f}" for level in levels) or "-",
            ]
        )
    columns = ["part", "atom div", "cmpd div", "novel cmpd", "unseen atoms", "hardness %"]
    caption = f"hardness %: {'/'.join(levels)}" if levels else None
    view: View = [Table("programs, against train", columns, rows, caption=caption)]
    if programs is not None:
        view.append(Line(divergence_note(programs.count, programs.extractor)))
    return view


def analysis_view(analysis: SplitAnalysis, comparisons: list[tuple[SplitComparison, SplitAnalysis]]) -> View:
    """The headlines, every statistic against random splits, and how compared splits' scores agree."""
    rows = [
        [
            c.name,
            f"{c.observed:.4g}",
            f"{c.null_mean:.4g}",
            f"{c.percentile:.1f}",
            f"{c.z_score:.2f}" if c.z_score == c.z_score else "–",
            ("–" if c.p_holm != c.p_holm else f"{c.p_holm:.3g}") + (" *" if c.differs else ""),
        ]
        for c in analysis.null
    ]
    columns = ["statistic", "observed", "random mean", "percentile", "z", "Holm p"]
    view = headline_view(analysis)
    view.append(Table(f"evaluation against {analysis.n_null_splits} random splits", columns, rows))
    view += [Line(f"vs {comparison.other}: {correlation_text(comparison)}") for comparison, _ in comparisons]
    return view


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


def headline_view(analysis: SplitAnalysis) -> View:
    """The headline verdicts, then how they were reached (test, correction, level)."""
    found = headlines(analysis)
    view: View = [Line("• " + line.replace("**", "")) for line in found]
    if found:
        family = max((c.family for c in analysis.null), default=0)
        view.append(
            Line(
                f"  (yes: two-sided test against {analysis.n_null_splits} random splits, Holm-adjusted across the "
                f"{family} statistics of the report, α = {ALPHA:g})"
            )
        )
    return view
