"""A split folder: what it holds (train/dev/test in the input's format, scores, summary,
reports, manifest) and how it is written — all or nothing, inside ``--out``."""

from __future__ import annotations

import itertools
import operator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tailsplit.analysis.plots import analysis_figures
from tailsplit.analysis.report import analysis_tables, render_html, render_markdown
from tailsplit.core import Dataset, ScoreTable
from tailsplit.errors import InputError
from tailsplit.io.arrow import arrow_table
from tailsplit.io.arrow_files import hf_folder_schema
from tailsplit.io.examples import SOURCE_COLUMN, SPLIT_COLUMN
from tailsplit.io.manifest import Manifest
from tailsplit.io.readers import detect_format
from tailsplit.io.scores import SCORE_COLUMNS
from tailsplit.io.values import check_writable, strict_json
from tailsplit.io.writers import InputSchema, output_format_for
from tailsplit.render.figures import figure_files

if TYPE_CHECKING:
    from tailsplit.analysis.compare import SplitComparison
    from tailsplit.analysis.split_analysis import SplitAnalysis
    from tailsplit.render.figures import Figure


def scoring_note(manifest: Manifest) -> str | None:
    """How fold models were trained, when the scores are k-fold fine-tuned (else ``None``)."""
    recipe = manifest.folds.get("recipe")
    return None if recipe is None else f"k-fold fine-tuned, {recipe}"


def report_files(
    analysis: SplitAnalysis,
    comparisons: list[tuple[SplitComparison, SplitAnalysis]],
    manifest: Manifest,
    extra_figures: dict[str, Figure] | None = None,
) -> dict[str, str | bytes]:
    """report.md, report.html and analysis.json of an analysis, its figures (``figures/*.svg``,
    ``*.pdf``) and tables (``tables/*.tex``, ``*.csv``); every report opens with the provenance
    of ``manifest`` (the split's)."""

    payload = {**analysis.as_dict(), "compared_with": [c.as_dict() for c, _ in comparisons]}
    figures = {**analysis_figures(analysis), **(extra_figures or {})}
    files = figure_files(figures)
    links = {caption: path for caption, path in zip(figures, [p for p in files if p.endswith(".svg")])}
    return {
        "report.md": render_markdown(analysis, comparisons, manifest, links),
        "report.html": render_html(analysis, comparisons, figures, manifest),
        "analysis.json": strict_json(payload),
        **files,
        **analysis_tables(analysis),
    }


def output_format(dataset: Dataset, requested: str | None) -> str:
    """The format parts are written in: ``requested``, else the input's (an in-memory table:
    Parquet when typed, JSON Lines for a list of dicts)."""
    if requested:
        return requested
    if dataset.memory is not None:
        return str(dataset.memory.natural_format)
    return output_format_for(detect_format(Path(dataset.input_paths[0])))


def check_parts_writable(dataset: Dataset, requested: str | None) -> None:
    """Refuse, before any work, records that the parts' format cannot write (a value JSON
    cannot hold, a tab in a TSV cell, a column with values of different kinds for Parquet)."""

    fmt = output_format(dataset, requested)
    schema = input_schema(dataset) if fmt in ("parquet", "hf") else InputSchema()
    json_safe = dataset.memory is None and all(
        detect_format(Path(p)) in ("jsonl", "csv", "tsv") for p in dataset.input_paths
    )
    check_writable(
        dataset.records,
        fmt,
        dataset.location,
        json_safe=json_safe,
        arrow=lambda records: arrow_table(records, schema.arrow, schema.class_labels),
    )


def input_schema(dataset: Dataset) -> InputSchema:
    """The input's column types (Parquet files sharing one schema, datasets folders, typed
    in-memory tables); none for text formats, whose types are inferred."""
    if dataset.memory is not None:
        return InputSchema(dataset.memory.schema, dataset.memory.class_labels)
    paths = [Path(p) for p in dataset.input_paths]
    formats = {detect_format(p) for p in paths}
    if formats == {"parquet"}:
        import pyarrow.parquet as pq

        schemas = [pq.read_schema(p) for p in paths]
        return InputSchema(schemas[0] if all(s.equals(schemas[0]) for s in schemas) else None)
    if formats == {"hf"}:
        found = [hf_folder_schema(p) for p in paths]
        labels = found[0][1] if all(f[1] == found[0][1] for f in found) else None
        same = all(f[0] is not None and f[0].equals(found[0][0]) for f in found)
        return InputSchema(found[0][0] if same else None, labels or None)
    return InputSchema()


def check_added_columns(dataset: Dataset, *, with_scores: bool) -> None:
    """Refuse input fields that the columns tailsplit adds (scores, generated id, source file) would overwrite."""
    added = list(SCORE_COLUMNS) if with_scores else []
    if dataset.ids_generated:
        added.append(dataset.fields.id)
    if len(set(dataset.sources)) > 1:
        added.append(SOURCE_COLUMN)
    if has_split_column(dataset):
        added.append(SPLIT_COLUMN)
    records = dataset.records
    if not any(any(map(operator.contains, records, itertools.repeat(name))) for name in added):
        return  # the common case, checked at C speed; the loop below only locates a clash
    for i, record in enumerate(records):
        clash = next((name for name in added if name in record), None)
        if clash is not None:
            raise InputError(
                f"already exists in {dataset.sources[i]} (record {i + 1}); tailsplit adds a column of that name",
                field=clash,
                fix="rename or drop that field first",
            )


def has_split_column(dataset: Dataset) -> bool:
    """Whether rows get a ``source_split`` column: pooled from a DatasetDict of several splits."""
    return dataset.splits is not None and len(set(dataset.splits)) > 1


def added_columns(dataset: Dataset, scores: ScoreTable | None) -> dict[str, Any]:
    """The columns a split folder appends to each input record, in order: scores, a
    generated id, the source file (pooled inputs) and split (a pooled DatasetDict) — each a
    NumPy array or a sequence with one value per record. A record that already has one of
    them is refused (:func:`check_added_columns`)."""
    check_added_columns(dataset, with_scores=scores is not None)
    n = len(dataset)
    added: dict[str, Any] = {}
    if scores is not None:
        counted = scores.has_token_counts
        added["logprob_sum"] = np.asarray(scores.logprob_sum, dtype=np.float64)
        added["n_tokens"] = np.asarray(scores.n_tokens, dtype=np.int64) if counted else [None] * n
        added["logprob_mean"] = np.asarray(scores.logprob_mean, dtype=np.float64) if counted else [None] * n
        added["truncated"] = np.asarray(scores.truncated, dtype=bool)
    if dataset.ids_generated:
        added[dataset.fields.id] = dataset.ids
    if len(set(dataset.sources)) > 1:
        added[SOURCE_COLUMN] = dataset.sources
    if has_split_column(dataset):
        added[SPLIT_COLUMN] = dataset.splits
    return added


def take(values: Any, idx: np.ndarray) -> Any:
    """``values`` (an array or a list) at the rows ``idx``."""
    return values[idx] if isinstance(values, np.ndarray) else [values[i] for i in idx]


def output_records(dataset: Dataset, scores: ScoreTable | None) -> list[dict[str, Any]]:
    """Each input record with the columns of :func:`added_columns` appended."""
    added = added_columns(dataset, scores)
    names = list(added)
    columns = [v.tolist() if isinstance(v, np.ndarray) else v for v in added.values()]
    return [{**record, **dict(zip(names, values))} for record, *values in zip(dataset.records, *columns)]
