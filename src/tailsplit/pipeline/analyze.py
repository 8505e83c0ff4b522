"""A split analysed against random splits (``tailsplit analyze``) as one Python call, from a
split folder or a run in memory: :func:`analyze` returns an :class:`AnalysisResult`, which
shows its verdicts, tables its statistics and writes its reports (the command line writes
through it).
"""

from __future__ import annotations

import dataclasses
import functools
import html
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tailsplit._version import __version__
from tailsplit.analysis.compare import SplitComparison, compare_splits
from tailsplit.analysis.plots import comparison_figure, null_grid
from tailsplit.analysis.report import NULL_HEADER, null_cells
from tailsplit.analysis.split_analysis import AnalysisInputs, SplitAnalysis, analyze_split
from tailsplit.analysis.split_dir import describe_split, load_split_dir, read_manifest
from tailsplit.analysis.split_statistics import CORPUS_ORDER, corpus_columns
from tailsplit.config import NULL_SPLITS, AnalyzeConfig, check_values
from tailsplit.config.arguments import path_argument, switch_argument
from tailsplit.config.recorded import recorded_run
from tailsplit.errors import ConfigError, MissingDependencyError, keyword_spelling
from tailsplit.io.manifest import MANIFEST, Manifest, read_manifest_file
from tailsplit.io.outputs import staged_output, update_reports
from tailsplit.overlap.index_audit import IndexPlan, IndexRequest, open_index, plan_index, profiles
from tailsplit.pipeline.keywords import known_keywords
from tailsplit.pipeline.recording import recorded_command
from tailsplit.pipeline.runs.analysis import run_analysis_inputs
from tailsplit.pipeline.runs.folder import report_files
from tailsplit.pipeline.runs.result import RunResult, folder_of
from tailsplit.pipeline.runs.views import analysis_view, correlation_text
from tailsplit.progress import showing
from tailsplit.render import html_table
from tailsplit.render.console import Line, View

if TYPE_CHECKING:
    from tailsplit.render.figures import Figure

SplitSource = RunResult | str | Path


def check_still_analysed(folder: Path, analysed: Manifest, reports: set[str]) -> None:
    """Refuse to write an analysis into a folder that no longer holds the split it describes:
    a part, the scores, the configuration or the seed changed since (re-split, overwritten)."""
    current = read_manifest_file(folder / MANIFEST)  # the record only: an analysis of edited files was asked for
    kept = {name for name in analysed.outputs if name not in reports}
    changed = sorted(
        name
        for name in kept | set(current.outputs) - reports
        if analysed.outputs.get(name) != current.outputs.get(name)
    )
    if changed or current.record.get("config") != analysed.record.get("config") or current.seed != analysed.seed:
        what = f"{', '.join(changed[:3])} changed" if changed else "its configuration or seed changed"
        raise ConfigError(
            f"split_dir={str(folder)!r} no longer holds the split this analysis describes ({what} since it was "
            f"analysed: seed {analysed.seed} then, {current.seed} now); analyze the folder again, then write"
        )


@dataclass
class AnalysisResult:
    """An analysis (``analysis``), its comparisons with other splits of the same examples
    (each with the other's own analysis), the manifest of the split analysed and the folder it
    was read from (``None`` for a run in memory)."""

    analysis: SplitAnalysis
    comparisons: list[tuple[SplitComparison, SplitAnalysis]]
    manifest: Manifest
    folder: Path | None = None
    figures: dict[str, Figure] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    written_to: Path | None = None  # where write() put the reports

    def to_pandas(self) -> Any:
        """One row per statistic tested against random splits: observed value, the random
        splits' mean, percentile, z, Monte Carlo p, Holm-adjusted p and the verdict."""
        import pandas

        rows = [
            {
                "statistic": c.name,
                "description": c.description,
                "observed": c.observed,
                "random_mean": c.null_mean,
                "percentile": c.percentile,
                "z": c.z_score,
                "p": c.p_value,
                "p_holm": c.p_holm,
                "differs": c.differs,
            }
            for c in self.analysis.null
        ]
        return pandas.DataFrame(rows)

    @keyword_spelling
    def write(self, out: str | Path | None = None, *, overwrite: bool = False) -> Path:
        """The reports — report.md, report.html, analysis.json, figures and tables — into the
        split folder analysed (``out`` left out: its manifest's hashes refreshed; never
        another split's folder, its reports are of this split), or into a folder of their own
        (``out``: all or nothing, never over an input, with a manifest of their hashes — how a
        run held in memory keeps its analysis); the folder written."""
        files = report_files(self.analysis, self.comparisons, self.manifest, self.figures)
        if out is not None:
            target = Path(path_argument("out", out, "a folder to write"))
            write_report_folder(target, files, self, overwrite=bool(switch_argument("overwrite", overwrite)))
        elif self.folder is None:
            raise ConfigError(
                "this analysis is of a run in memory; write it to a folder of its own (result.write(out)), or write "
                "the run first (result.write(out)) and analyze that"
            )
        else:
            target = self.folder
            check_still_analysed(target, self.manifest, set(files))
            update_reports(target, files, extra=self.extra)
        self.written_to = target
        return target

    def console(self) -> View:
        """What ``tailsplit analyze`` prints: the headlines, every statistic against random
        splits, the comparisons, and the reports written."""
        where = self.written_to
        wrote = [] if where is None else [Line(f"wrote {where}/report.html, report.md, analysis.json")]
        return [*analysis_view(self.analysis, self.comparisons), *wrote]

    def __repr__(self) -> str:
        differs = [c.name for c in self.analysis.null if c.differs]
        return (
            f"AnalysisResult(split={self.analysis.name!r}, n={self.analysis.n}, "
            f"null_splits={self.analysis.n_null_splits}, differs={differs})"
        )

    def _repr_html_(self) -> str:
        """The report's table of statistics against random splits, its cells as the report
        prints them (shares in percent), titled by the split's kind and name, with each
        ``compare=`` split's agreement."""
        a = self.analysis
        header = [*NULL_HEADER[:-1], "verdict"]
        rows = [dict(zip(header, cells, strict=True)) for cells in null_cells(a.null)]
        kind = f"the {a.kind} split " if a.kind else ""
        compared = "".join(
            f"<li>vs {html.escape(c.other)}: {html.escape(correlation_text(c))}</li>" for c, _ in self.comparisons
        )
        return (
            f"<div><b>tailsplit analysis</b> of {html.escape(kind)}{html.escape(a.name)} ({a.n:,} examples) against "
            f"{a.n_null_splits:,} random splits{html_table(rows, header)}"
            f"<p>{html.escape(a.correction())}</p>{f'<ul>{compared}</ul>' if compared else ''}{self._figure_svg}</div>"
        )

    @functools.cached_property
    def _figure_svg(self) -> str:
        """The key figure, inline: each statistic's random splits and the evaluation set (an
        SVG whose text is drawn as paths); empty without the analysis extra's matplotlib."""
        if not self.analysis.null:
            return ""
        try:
            return null_grid(self.analysis).svg
        except MissingDependencyError:
            return ""


# fmt: off
@known_keywords()
def analyze(
    split: SplitSource,
    *,
    null_splits: int | None = None, seed: int = 0, analysis_text: str | None = None, syntax: bool | None = None,
    agreement_field: str | None = None, infini_gram: str | os.PathLike[str] | None = None,
    index_tokenizer: str | None = None, accept_modified: bool = False,
    compare: SplitSource | Sequence[SplitSource] = (),
) -> AnalysisResult:
    """``tailsplit analyze``: ``split`` (a split folder, or the result of
    :func:`~tailsplit.likelihood_split` / :func:`~tailsplit.split`) against random splits, and
    against each split of ``compare``; nothing is written (``result.write()`` adds the
    reports to the split folder).

    >>> tailsplit.analyze("snli-likelihood", compare=["snli-random-0"]).to_pandas()  # doctest: +SKIP
    """
    settings = AnalyzeConfig(null_splits=null_splits, seed=seed, analysis_text=analysis_text, syntax=syntax,
                             agreement_field=agreement_field, infini_gram=infini_gram,  # type: ignore[arg-type]
                             index_tokenizer=index_tokenizer, accept_modified=accept_modified)
    check_values(settings)
    return analyze_settings(split, _one_or_list(compare), settings)
# fmt: on


def write_report_folder(
    target: Path, files: dict[str, str | bytes], result: AnalysisResult, *, overwrite: bool
) -> None:
    """An analysis's reports as a folder of their own, with a manifest: the split analysed
    (its kind, its folder if it has one, its manifest's sha256) and every file's hash."""
    inputs = [r.path for r in result.manifest.inputs if r.path] + ([] if result.folder is None else [result.folder])
    with staged_output(target, overwrite=overwrite, inputs=inputs) as folder:
        folder.write_files(files)
        folder.write_manifest(
            {
                "tailsplit_version": __version__,
                "command": recorded_command(None),
                "analysis_of": describe_split(result.manifest),
                "split_dir": None if result.folder is None else str(result.folder),
                **result.extra,
            }
        )


def analyze_settings(split: SplitSource, compare: Sequence[SplitSource], settings: AnalyzeConfig) -> AnalysisResult:
    """The analysis of ``split`` (and each split of ``compare``) as ``settings`` ask."""
    split = split if isinstance(split, RunResult) else folder_of(split)
    compare = [c if isinstance(c, RunResult) else folder_of(c, "compare") for c in compare]
    _refuse_self_comparison(split, compare)
    null_splits = NULL_SPLITS if settings.null_splits is None else settings.null_splits
    request = (
        None if settings.infini_gram is None else IndexRequest(Path(settings.infini_gram), settings.index_tokenizer)
    )
    plan = None if request is None else plan_index(request, [])
    inputs, manifest, folder = _inputs(split, settings.analysis_text, settings.agreement_field, settings)
    extra: dict[str, Any] = {}
    if request is not None and plan is not None:
        inputs, extra["corpus_index"] = _with_corpus(inputs, plan, request)
    syntax = settings.syntax
    if syntax is None:
        syntax = bool(recorded_run(manifest).output.syntax)
    analysis = analyze_split(inputs, null_splits=null_splits, seed=settings.seed, syntax=syntax)
    comparisons, figures = [], {}
    for other_split in compare:
        other = _inputs(other_split, inputs.text_kind, None, settings)[0]
        comparisons.append(
            (compare_splits(inputs, other), analyze_split(other, null_splits=0, seed=settings.seed, syntax=syntax))
        )
        figure = comparison_figure(inputs, other)
        if figure is not None:
            figures[f"Scores in {inputs.name} against scores in {other.name}"] = figure
    if manifest.modified_files:
        extra["analyzed_modified_files"] = manifest.modified_files
    return AnalysisResult(analysis, comparisons, manifest, folder, figures, extra)


def _with_corpus(inputs: AnalysisInputs, plan: IndexPlan, request: IndexRequest) -> tuple[AnalysisInputs, dict]:
    """The inputs with each query's profile against the index, and the index's description."""
    index = open_index(plan, request, showing())
    found = profiles(index, inputs.queries or inputs.texts, (CORPUS_ORDER,), showing())
    return dataclasses.replace(inputs, corpus=corpus_columns(found)), {**index.info, "order": CORPUS_ORDER}


def _inputs(
    split: SplitSource, text_kind: str | None, agreement_field: str | None, settings: AnalyzeConfig
) -> tuple[AnalysisInputs, Manifest, Path | None]:
    """What an analysis reads from a split folder or a run in memory, its manifest and folder."""
    if isinstance(split, RunResult):
        if agreement_field is not None:
            raise ConfigError("--agreement-field= reads a split folder; write the run first (result.write(out))")
        config = recorded_run(split.record)
        if text_kind is not None:
            config.output.analysis_text = text_kind
        name = split.out_dir.name if split.out_dir is not None else "split"
        return run_analysis_inputs(split, config, name), split.record, split.out_dir
    folder = Path(split)
    inputs = load_split_dir(folder, text_kind, agreement_field, accept_modified=settings.accept_modified)
    return inputs, read_manifest(folder, accept_modified=settings.accept_modified), folder


def _one_or_list(splits: Any) -> list[Any]:
    """``compare=``: one split as itself, or a list of them (a string is one folder)."""
    return list(splits) if isinstance(splits, (list, tuple)) else [splits]


def _refuse_self_comparison(split: Any, compare: list[Any]) -> None:
    """A split compared with itself (the same folder, however named, or the same run) says
    nothing: refused, naming it."""
    key = split if isinstance(split, RunResult) else os.path.realpath(split)
    for other in compare:
        if (other is key) if isinstance(other, RunResult) else os.path.realpath(other) == key:
            shown = "the split itself" if isinstance(other, RunResult) else repr(other)
            raise ConfigError(f"--compare={shown} is the split being analysed; compare it with another split")
