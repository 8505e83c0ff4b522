"""What a run returns, and its ways out of tailsplit: the split folder, a pandas DataFrame, a
Hugging Face ``DatasetDict``, and short summaries for the console and Jupyter."""

from __future__ import annotations

import dataclasses
import hashlib
import html
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tailsplit.analysis.program_metrics import ProgramMetrics, divergence_note, render_program_markdown
from tailsplit.analysis.split_dir import load_split_dir
from tailsplit.analysis.summary import PartStatistics, render_summary_markdown
from tailsplit.cache import HELD_SPLITS, default_cache_dir
from tailsplit.config.arguments import path_argument, paths_argument, switch_argument
from tailsplit.config.recorded import recorded_run
from tailsplit.core import SPLIT_PARTS, Dataset, ScoreTable, SplitIndices
from tailsplit.errors import ConfigError, TailsplitError, keyword_spelling
from tailsplit.io.arrow import arrow_table
from tailsplit.io.hf import hf_dataset, quiet_datasets
from tailsplit.io.manifest import MANIFEST, Manifest, read_manifest_file
from tailsplit.io.outputs import staged_output
from tailsplit.io.scores import score_file_bytes
from tailsplit.io.writers import OUTPUT_SUFFIX, write_records
from tailsplit.log import logger
from tailsplit.pipeline.runs.folder import (
    added_columns,
    input_schema,
    output_format,
    output_records,
    report_files,
    scoring_note,
    take,
)
from tailsplit.pipeline.runs.views import run_view
from tailsplit.programs.sets import ProgramFeatures
from tailsplit.render import html_table
from tailsplit.render.console import View

if TYPE_CHECKING:
    from tailsplit.analysis.split_analysis import SplitAnalysis

PART_COLUMN = "part"
# Hugging Face's name for each part (its convention calls the development set "validation").
HF_SPLIT_NAMES = {"train": "train", "dev": "validation", "test": "test"}


@dataclass
class RunResult:
    """Everything a run produced; ``out_dir`` is ``None`` when nothing was written.

    ``to_pandas()`` and ``to_datasets()`` hand the split to other tools."""

    dataset: Dataset
    scores: ScoreTable | None
    split: SplitIndices
    summaries: list[PartStatistics]
    manifest: dict[str, Any]
    out_dir: Path | None = None
    timings: dict[str, float] = field(default_factory=dict)
    programs: ProgramFeatures | None = None
    program_metrics: list[ProgramMetrics] = field(default_factory=list)
    analysis: SplitAnalysis | None = None

    @property
    def record(self) -> Manifest:
        """The manifest, typed (``manifest`` is it as the JSON the folder holds)."""
        return Manifest(self.manifest)

    def _records(self) -> list[dict[str, Any]]:
        return output_records(self.dataset, self.scores)

    def to_pandas(self) -> Any:
        """Every example in input order: its fields (the input's column types where it had a
        schema), the score columns, and ``part`` (train/dev/test)."""
        import pandas  # noqa: F401  (a clear ImportError before any work when pandas is missing)

        records = self._records()
        if records and PART_COLUMN in records[0]:
            raise ConfigError(f"the examples already have a field {PART_COLUMN!r}; rename it to get the part column")
        parts = self.split.assignment(len(self.dataset))
        for record, part in zip(records, parts):
            record[PART_COLUMN] = str(part)
        schema = input_schema(self.dataset)
        return arrow_table(records, schema.arrow, schema.class_labels).to_pandas()

    def to_datasets(self) -> Any:
        """A ``datasets.DatasetDict`` with ``train``, ``validation`` (the dev part) and ``test``,
        keeping the input's features (``ClassLabel`` columns included) where it had them."""

        records = self._records()
        schema = input_schema(self.dataset)
        with quiet_datasets() as datasets:
            return datasets.DatasetDict(
                {
                    HF_SPLIT_NAMES[part]: hf_dataset([records[i] for i in idx], schema.arrow, schema.class_labels)
                    for part, idx in self.split.parts().items()
                }
            )

    @keyword_spelling
    def write(self, out: str | Path, *, overwrite: bool = False) -> RunResult:
        """The split folder the command line writes — the parts, ``scores.parquet``,
        ``summary.md``, the reports when analysed, and ``manifest.json`` with every file's
        hash — all or nothing, never over an input; the result with ``out_dir`` and the
        manifest as written. ``overwrite`` replaces an earlier tailsplit folder only."""
        out = path_argument("out", out, "a folder to write")
        overwrite = bool(switch_argument("overwrite", overwrite))
        return self._write(out, overwrite=overwrite)

    def _write(self, out: str | Path, *, overwrite: bool, held: bool = False) -> RunResult:
        manifest = self.record.with_output(out=str(out), overwrite=overwrite).as_dict()
        analysis = self.analysis and dataclasses.replace(self.analysis, name=Path(out).name)  # named by its folder
        named = dataclasses.replace(self, manifest=manifest, analysis=analysis)
        out_dir, written = write_split(Path(out), named, overwrite=overwrite, held=held)
        return dataclasses.replace(named, out_dir=out_dir, manifest=written)

    def console(self) -> View:
        """What ``tailsplit run`` / ``split`` print: the split summary, program metrics, the
        analysis' headlines and what was written."""
        return run_view(self.summaries, self.record, self.program_metrics, self.programs, self.analysis, self.out_dir)

    def __repr__(self) -> str:
        sizes = ", ".join(f"{s.part}={s.size:,}" for s in self.summaries)
        splitter = self.record.splitter.name
        scored = "scored" if self.scores is not None else "unscored"
        where = f", out_dir={str(self.out_dir)!r}" if self.out_dir is not None else ""
        return f"RunResult(splitter={splitter!r}, {sizes}, {scored}{where})"

    def _repr_html_(self) -> str:
        rows = [
            {"part": s.part, "examples": s.size, "mean words": s.mean_words,
             "mean log-prob/token": s.mean_logprob_mean, "labels": _labels(s.label_counts)}
            for s in self.summaries
        ]  # fmt: skip
        splitter = html.escape(self.record.splitter.name)
        where = "" if self.out_dir is None else f" → <code>{html.escape(str(self.out_dir))}</code>"
        table = html_table(rows, ["part", "examples", "mean words", "mean log-prob/token", "labels"])
        return f"<div><b>tailsplit RunResult</b> ({splitter}){where}{table}{self._verdicts_html()}</div>"

    def _verdicts_html(self) -> str:
        """The analysis' statistics that differ from random splits, with the test named."""
        if self.analysis is None:
            return ""
        differs = [c for c in self.analysis.null if c.differs]
        items = "".join(
            f"<li>{html.escape(c.description)}: {c.observed:.4g} against {c.null_mean:.4g} "
            f"(Holm-adjusted p = {c.p_holm:.3g})</li>"
            for c in differs
        )
        found = f"<ul>{items}</ul>" if differs else "<p>no statistic differs from random splits.</p>"
        return f"<p>Against random splits ({html.escape(self.analysis.correction())}):</p>{found}"


SPLIT_WHAT = "a split folder or the result of tailsplit.split / likelihood_split"


def folder_of(split: RunResult | str | os.PathLike[str], name: str = "split", what: str = SPLIT_WHAT) -> str:
    """The split folder a command reads: the path given, where a run was written, or — for a
    run held in memory — :func:`held_folder`; anything else is refused, naming the argument."""
    if not isinstance(split, RunResult):
        return path_argument(name, split, what)
    return str(split.out_dir if split.out_dir is not None else held_folder(split))


def folders_of(splits: Any, name: str = "splits") -> list[str]:
    """:func:`folder_of` of each split: one split as itself, or a list of them."""
    if isinstance(splits, RunResult):
        return [folder_of(splits, name)]
    return paths_argument(
        name,
        splits,
        "split folders or results of tailsplit.split",
        item=lambda n, split, what: folder_of(split, n, what),
    )


def held_folder(result: RunResult) -> Path:
    """The folder in tailsplit's cache that holds a run kept in memory, for a command that reads
    split folders (evaluate, the exports): named by what the run is — its configuration, inputs,
    parts and scores — written once, then read like any split folder (its manifest verified).

    A folder found under that name is used only when what it holds is this run (a real
    folder, not a link, whose manifest's configuration and inputs, part ids and scores give
    the same digest); anything else there is left untouched and the run is written beside it."""
    manifest = result.record
    config = _held_config(manifest)
    parts = {part: [result.dataset.ids[i] for i in rows] for part, rows in result.split.parts().items()}
    scores = (
        None if result.scores is None else {p: result.scores.logprob_sum[r] for p, r in result.split.parts().items()}
    )
    digest = _held_digest(config, manifest.input_records, parts, scores)
    cache = Path(recorded_run(manifest).scoring.cache_dir or default_cache_dir()).expanduser()
    splitter = manifest.splitter.name if manifest.has_splitter else "split"
    for attempt in range(_HELD_ATTEMPTS):
        folder = cache / HELD_SPLITS / (f"{splitter}-{digest[:16]}" + (f"-{attempt}" if attempt else ""))
        if not os.path.lexists(folder):
            result._write(folder, overwrite=False, held=True)
            return folder
        if _holds_run(folder, digest):
            return folder
        logger.warning(
            f"{str(folder)!r} does not hold this run (changed since tailsplit wrote it); it is left as it is"
        )
    raise ConfigError(
        f"tailsplit's cache {str(cache)!r} holds {_HELD_ATTEMPTS} folders named for this run that do not hold it; "
        f"move its {HELD_SPLITS} folder away, or write the run with result.write(out) and pass that folder"
    )


_HELD_ATTEMPTS = 8


def _held_config(manifest: Manifest) -> dict[str, Any]:
    """A run's configuration without its output section (where it is written does not change it)."""
    return {k: v for k, v in manifest.config.values.items() if k != "output"}


def _held_digest(config: Any, inputs: Any, parts: dict[str, list[str]], scores: dict[str, np.ndarray] | None) -> str:
    """What a held run is: its configuration and inputs, each part's ids in order, its scores."""
    digest = hashlib.sha256(json.dumps([config, inputs], sort_keys=True, default=str).encode())
    for part in sorted(parts):
        digest.update(json.dumps([part, [str(i) for i in parts[part]]]).encode())
        if scores is not None:
            digest.update(np.ascontiguousarray(scores[part], dtype=np.float64).tobytes())
    return digest.hexdigest()


def _holds_run(folder: Path, digest: str) -> bool:
    """Whether ``folder`` is a real folder (not a link) holding the run of ``digest``: read
    from what it holds — its part files and scores, verified against its manifest's hashes as
    they are read, and the manifest's configuration and inputs — never trusted by its name."""
    if not folder.is_dir() or os.path.realpath(folder) != os.path.join(os.path.realpath(folder.parent), folder.name):
        return False
    try:
        inputs = load_split_dir(folder)
        manifest = read_manifest_file(folder / MANIFEST)  # its data files verified just above
    except (TailsplitError, OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    parts = {part: [i for i, p in zip(inputs.ids, inputs.parts) if p == part] for part in SPLIT_PARTS}
    scores = None
    if inputs.logprob_sum is not None:
        scores = {part: inputs.logprob_sum[inputs.parts == part] for part in SPLIT_PARTS}
    return _held_digest(_held_config(manifest), manifest.input_records, parts, scores) == digest


def _labels(counts: dict[str, int] | None) -> str:
    return "" if not counts else ", ".join(f"{k}: {v:,}" for k, v in counts.items())


assert set(HF_SPLIT_NAMES) == set(SPLIT_PARTS)


def write_split(
    out_dir: Path, result: RunResult, *, overwrite: bool, held: bool = False
) -> tuple[Path, dict[str, Any]]:
    """Write train/dev/test, scores.parquet, summary.md, reports and manifest.json, all or
    nothing; (the folder, the manifest as written)."""
    dataset, scores, split = result.dataset, result.scores, result.split
    recorded = result.record
    fmt = output_format(dataset, recorded_run(recorded).output.format)
    schema = input_schema(dataset) if fmt in ("parquet", "hf") else None
    added = added_columns(dataset, scores)
    inputs = [
        *dataset.input_paths,
        *([recorded.scores_file["path"]] if recorded.scores_file else []),
    ]
    with staged_output(out_dir, overwrite=overwrite, inputs=inputs, held=held) as folder:
        for part, idx in split.parts().items():
            part_added = {name: take(values, idx) for name, values in added.items()}
            records = [dataset.records[i] for i in idx]
            write_records(folder / f"{part}{OUTPUT_SUFFIX[fmt]}", records, fmt, schema, part_added)
        if scores is not None:
            meta = recorded.scoring_meta()
            folder.write_bytes(
                "scores.parquet", score_file_bytes(dataset, scores, meta, part=split.assignment(len(dataset)))
            )
        summary = render_summary_markdown(result.summaries)
        if scoring_note(recorded):
            summary += f"\n\nScores: {scoring_note(recorded)}."
        if result.program_metrics:
            summary += "\n\nPrograms (divergence and novelty against train):\n\n" + render_program_markdown(
                result.program_metrics
            )
            if result.programs is not None:
                summary += f"\n\n({divergence_note(result.programs.count, result.programs.extractor)})"
        folder.write_text("summary.md", summary + "\n")
        if result.analysis is not None:
            folder.write_files(report_files(result.analysis, [], recorded))
        labels = (schema or input_schema(dataset)).class_labels
        manifest = folder.write_manifest(
            {
                **result.manifest,
                # the input's ClassLabel names, in order: `export hf` gives the columns back their features
                **({"class_labels": {k: list(v) for k, v in labels.items()}} if labels else {}),
                "timings": {k: round(v, 3) for k, v in result.timings.items()},
            }
        )
    return out_dir, manifest
