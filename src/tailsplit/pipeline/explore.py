"""``tailsplit explore``: every example of one or more split folders in one self-contained page
(``explorer.html``) — search, sort, filters by part and label, the tail of each label, each
query's tokens shaded by log-probability (when the run kept them: ``--token-scores``), the
predictions of ``evaluate`` beside the examples, and several splits of the same data side by
side with the overlap of their test sets.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

from tailsplit.analysis.explore_table import (
    Predictions,
    check_same_examples,
    explorer_table,
    overlap_rows,
    parts_rows,
)
from tailsplit.analysis.split_analysis import AnalysisInputs
from tailsplit.analysis.split_dir import listed_file, load_split_dir
from tailsplit.config import ExploreConfig, check_values
from tailsplit.config.arguments import path_argument, paths_argument
from tailsplit.errors import ConfigError, InputError, keyword_spelling
from tailsplit.evaluation.samples import REFERENCES
from tailsplit.fingerprint import sha256_file
from tailsplit.io.claims import released_on_error
from tailsplit.io.manifest import MANIFEST, read_manifest_file
from tailsplit.io.readers import read_all
from tailsplit.pipeline.findings import Findings, config_writer
from tailsplit.pipeline.keywords import known_keywords
from tailsplit.pipeline.recording import command_provenance, write_outputs
from tailsplit.pipeline.runs.result import RunResult, folders_of
from tailsplit.pipeline.shift_common import check_out
from tailsplit.render import html_table
from tailsplit.render.console import Line, View
from tailsplit.render.explorer import bundle_version, explorer_html, table_bundle

PREDICTION_FIELDS = ("folder", "baseline", "id", "predicted", "correct")


class ExploreContent(TypedDict):
    """What the page shows: the splits, its rows and columns, whether tokens are shaded, the
    models whose predictions it holds, and the overlap of the splits' test sets."""

    splits: list[str]
    rows: int
    columns: list[str]
    tokens: bool
    predictions: list[str]
    overlap: list[dict[str, Any]]


class ExploreResult(Findings[ExploreContent]):
    """The explorer page of one or more splits; its table has one row per pair of splits
    (their test sets' overlap), or the split's rows and columns for one split."""

    command = "explore"
    written = "explorer.html, manifest.json"

    def rows(self) -> list[dict[str, Any]]:
        if self.content["overlap"]:
            return list(self.content["overlap"])
        return [{"split": self.content["splits"][0], "rows": self.content["rows"], "tokens": self.content["tokens"]}]

    def view(self) -> View:
        content = self.content
        shaded = "tokens shaded" if content["tokens"] else "no token scores (score with --token-scores to shade them)"
        lines: View = [Line(f"{content['rows']:,} examples of {', '.join(content['splits'])}; {shaded}")]
        lines += [Line(f"predictions of {name}") for name in content["predictions"]]
        lines += [
            Line(f"{row['splits']}: {row['in both tests']:,} examples in both tests (Jaccard {row['Jaccard']})")
            for row in content["overlap"]
        ]
        return lines


@released_on_error
@keyword_spelling
def explore_config(config: ExploreConfig, *, command: list[str] | None = None) -> ExploreResult:
    """Read the split folders (and predictions), check them, and write the page when ``out``."""
    if not config.split_dirs:
        raise ConfigError("name at least one split folder to explore")
    check_out(config, [*config.split_dirs, *config.predictions])
    table_bundle()  # the table library is there before anything is read
    splits = [load_split_dir(Path(d), "query", accept_modified=config.accept_modified) for d in config.split_dirs]
    names = [s.name for s in splits]
    if len(set(names)) != len(names):
        raise ConfigError(f"two split folders are named {names[0]!r}; explore folders of distinct names")
    check_same_examples(splits)
    tokens = _tokens(config, splits)
    predictions = [p for path in config.predictions for p in read_predictions(Path(path), splits)]
    content: ExploreContent = {
        "splits": names,
        "rows": len(splits[0].ids),
        "columns": [],
        "tokens": tokens is not None,
        "predictions": [p.key for p in predictions],
        "overlap": overlap_rows(splits) if len(splits) > 1 else [],
    }
    table = explorer_table(splits, tokens, predictions)
    content["columns"] = [c.title for c in table.columns]
    write = config_writer(_write_explorer, config, content, (splits, table), command)
    if config.out is not None:
        write(Path(config.out), config.overwrite)
    return ExploreResult(content, None if config.out is None else Path(config.out), write)


def _tokens(config: ExploreConfig, splits: Sequence[AnalysisInputs]) -> tuple[list[Any], list[Any]] | None:
    """The first split's rows' tokens, from the first split folder whose score file kept them."""
    import pyarrow.parquet as pq

    for folder in config.split_dirs:
        manifest = read_manifest_file(Path(folder) / MANIFEST)  # its files' hashes checked as the folder was loaded
        path = listed_file(Path(folder), manifest, "scores.parquet")
        if path is None or not {"token_pieces", "token_logprobs"} <= set(pq.read_schema(path).names):
            continue
        columns = pq.read_table(path, columns=["id", "token_pieces", "token_logprobs"]).to_pydict()
        at = {example: i for i, example in enumerate(columns["id"])}
        missing = next((i for i in splits[0].ids if i not in at), None)
        if missing is not None:
            raise InputError(f"has no row for id {missing!r}", path=path, fix="rewrite the split with tailsplit split")
        rows = [at[i] for i in splits[0].ids]
        return [columns["token_pieces"][r] for r in rows], [columns["token_logprobs"][r] for r in rows]
    return None


def read_predictions(path: Path, splits: Sequence[AnalysisInputs]) -> list[Predictions]:
    """``evaluate``'s predictions.jsonl, grouped by split folder (matched by name) and baseline,
    for the splits shown (a file that names none of them is refused)."""
    names = {s.name: set(s.ids) for s in splits}
    grouped: dict[tuple[str, str], dict[str, tuple[str, bool | None]]] = {}
    records = read_all(path)
    for raw in records:
        for name in PREDICTION_FIELDS:
            if not raw.has(name):
                raise raw.error("is missing", field=name, fix="give the predictions.jsonl tailsplit evaluate wrote")
        split, example = Path(str(raw.value("folder"))).name, str(raw.value("id"))  # the folder evaluate read
        if split not in names or raw.value("baseline") in REFERENCES:  # chance and majority say nothing per example
            continue
        if example not in names[split]:
            raise raw.error(f"names id {example!r}, not an example of {split!r}", field="id")
        correct = raw.value("correct")
        if not isinstance(correct, bool):
            raise raw.error(f"is {correct!r}, not true or false", field="correct")
        grouped.setdefault((split, str(raw.value("baseline"))), {})[example] = (str(raw.value("predicted")), correct)
    if not grouped:
        shown = ", ".join(sorted(names))
        raise InputError(
            f"has no predictions for {shown} ({len(records)} rows)",
            path=path,
            fix="give the predictions.jsonl of an evaluate run of these splits",
        )
    return [Predictions(split, baseline, answers) for (split, baseline), answers in grouped.items()]


def _write_explorer(
    out: Path, config: ExploreConfig, content: ExploreContent, built: tuple[Any, Any], command: list[str] | None
) -> None:
    splits, table = built
    inputs = [{"path": str(Path(d) / MANIFEST), "sha256": sha256_file(Path(d) / MANIFEST)} for d in config.split_dirs]
    inputs += [{"path": p, "sha256": sha256_file(p)} for p in config.predictions]
    title = f"Explorer: {', '.join(content['splits'])}"
    label_key = "label" if splits[0].labels is not None else None
    page = explorer_html(title, table, _sections(splits), command_provenance(command, inputs), label_key)
    extra = {"explorer": {k: v for k, v in content.items() if k != "overlap"}, "itables_version": bundle_version()}
    write_outputs(out, config, {"explorer.html": page}, inputs, extra, command)


def _sections(splits: Sequence[AnalysisInputs]) -> str:
    """The parts of each split by label, and (two splits or more) their test sets' overlap."""
    html_parts = []
    for split in splits:
        html_parts.append(f"<h2>Parts of {html.escape(split.name)}</h2>{html_table(parts_rows(split))}")
    if len(splits) > 1:
        html_parts.append(f"<h2>Overlap of the test sets</h2>{html_table(overlap_rows(splits))}")
    return "".join(html_parts) + "<h2>Every example</h2>"


@known_keywords()
def explore(
    splits: RunResult | str | os.PathLike[str] | Sequence[RunResult | str | os.PathLike[str]],
    *,
    predictions: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (),
    accept_modified: bool = False,
    out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
) -> ExploreResult:
    """``tailsplit explore``: every example of one or more splits of the same data — folders,
    or runs in memory — in one page (``out``: the folder ``explorer.html`` is written into;
    ``result.write(out)`` later)."""
    config = ExploreConfig(
        split_dirs=folders_of(splits),
        predictions=paths_argument("predictions", predictions, "predictions.jsonl files") if predictions else [],
        out=None if out is None else path_argument("out", out, "a folder to write"),
        overwrite=overwrite,
        accept_modified=accept_modified,
    )
    check_values(config)
    return explore_config(config)
