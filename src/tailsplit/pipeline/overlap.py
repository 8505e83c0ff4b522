"""``tailsplit overlap``: audit a test set against a corpus, write the partition."""

from __future__ import annotations

import dataclasses
import os
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from tailsplit._version import __version__
from tailsplit.config import OverlapConfig, check_values
from tailsplit.config.arguments import paths_argument
from tailsplit.core import Dataset, FieldMap
from tailsplit.errors import ConfigError, InputError, keyword_spelling
from tailsplit.io.claims import released_on_error
from tailsplit.io.examples import load_examples
from tailsplit.io.files import file_problem
from tailsplit.io.outputs import check_cache_folder, check_output_folder, staged_output
from tailsplit.io.readers import detect_format
from tailsplit.io.values import json_lines
from tailsplit.io.writers import OUTPUT_SUFFIX, output_format_for, write_records
from tailsplit.overlap.audit import ExampleAudit, audit_all, partition_overlap, subset_accuracies
from tailsplit.overlap.index import INDEX_MARKERS, open_or_build_index
from tailsplit.overlap.index_audit import IndexPlan, IndexRequest, audit_with_index, open_index, plan_index
from tailsplit.overlap.predictions import prediction_correctness
from tailsplit.overlap.query import QUERY_EXTRACTORS, StructuredQuery
from tailsplit.overlap.report import overlap_html, render_overlap_markdown
from tailsplit.overlap.sharded import audit_sharded, make_executor, open_or_build_sharded
from tailsplit.pipeline.findings import Findings, config_writer
from tailsplit.pipeline.keywords import known_keywords, progress_shown
from tailsplit.pipeline.recording import command_provenance, input_records, recorded_command
from tailsplit.pipeline.runs.folder import check_parts_writable
from tailsplit.render.console import Line, View
from tailsplit.render.provenance import with_provenance


class OverlapContent(TypedDict):
    """What ``overlap`` finds (its ``summary.md`` and manifest say the same)."""

    examples: int
    overlap: int
    clean: int
    threshold: float | None
    verbatim: int
    copied_below_threshold: int
    index: dict[str, Any]
    queries_with_notes: int
    accuracy: list[dict[str, Any]]
    ngram_contaminated: dict[str, int]
    cut: dict[str, Any]
    seconds: dict[str, float]


class OverlapResult(Findings[OverlapContent]):
    """What the overlap audit found: the counts (``content["overlap"]``, ``["clean"]``, the
    BM25 ``["threshold"]``), the n-gram counts and the accuracy by subset; its table is the
    counts as one row."""

    command = "overlap"
    written = "overlap, clean, audit.jsonl, summary.md, manifest.json"

    def rows(self) -> list[dict[str, Any]]:
        c = self.content
        keys = ("examples", "overlap", "clean", "verbatim", "copied_below_threshold", "threshold")
        return [dict(zip(keys, (c["examples"], c["overlap"], c["clean"], c["verbatim"],
                                c["copied_below_threshold"], c["threshold"]), strict=True))]  # fmt: skip

    def view(self) -> View:
        """Copies first (the absolute count a reader wants), then the partition and how it was cut."""
        c = self.content
        copied = ", ".join(f"{count} share a {n}-gram with it" for n, count in c["ngram_contaminated"].items())
        cut = c["cut"]
        how = (
            f"the top {100 * cut['top_quantile']:g}% of the test set by BM25 score (best BM25 ≥ {c['threshold']}), "
            "a share set by --top-quantile, not a finding"
            if cut.get("by") == "top_quantile"
            else f"best BM25 ≥ {c['threshold']}"
        )
        if cut.get("by") == "copies":
            index = c["index"]
            lines: View = [
                Line(
                    f"{c['examples']} test examples against an infini-gram index of {index['tokens']:,} tokens "
                    f"({index['tokenizer']}): {c['verbatim']} held whole" + (f", {copied}" if copied else "")
                ),
                Line(f"partition: {c['overlap']} overlapping (held whole or sharing an n-gram) and {c['clean']} clean"),
            ]
        else:
            lines = [
                Line(
                    f"{c['examples']} test examples: {c['verbatim']} copied verbatim in the corpus"
                    + (f", {copied}" if copied else "")
                    + f" (index of {c['index']['entries']:,} entries)"
                ),
                Line(
                    f"partition: {c['overlap']} overlapping — {how}, or copied ({c['copied_below_threshold']} "
                    f"copied below the cut) — and {c['clean']} clean"
                ),
            ]
        lines += [
            Line(
                f"accuracy {a['subset']}: {100 * a['accuracy']:.1f}% (95% CI {100 * a['ci_low']:.1f}–"
                f"{100 * a['ci_high']:.1f}%, n = {a['n']})"
            )
            for a in c["accuracy"]
            if a["n"]
        ]
        return lines


@released_on_error
@keyword_spelling
def audit_overlap_config(
    config: OverlapConfig, *, command: list[str] | None = None, progress: bool = False
) -> OverlapResult:
    """``tailsplit overlap``: audit a test set against a corpus; write the partition
    (``progress``: show the corpus being indexed)."""
    config = _checked(config)
    plan = _index_plan(config)
    started = time.perf_counter()
    test = load_examples(config.test, FieldMap(text=config.text, id=config.id, label=config.label))
    if config.out is not None:
        check_parts_writable(test, None)
    extractor = QUERY_EXTRACTORS.create(
        config.query_kind,
        window=config.window,
        **({"required_fields": config.required_fields} if config.required_fields else {}),
    )
    queries = _queries(extractor, test)
    audits, info, ngram_orders = _audits(config, plan, test, queries, progress)
    built_s = info.pop("built_s") - started
    copied = np.array([a.copied for a in audits], dtype=bool)
    if plan is None:
        best = np.array([a.best_score for a in audits])
        by_bm25, threshold = partition_overlap(best, threshold=config.threshold, top_quantile=config.top_quantile)
    else:  # an index counts n-grams, it scores nothing: the partition is the copies
        by_bm25, threshold = np.zeros(len(audits), dtype=bool), None
    overlap = by_bm25 | copied  # a copy is overlap whatever its BM25 score: never "clean"
    accuracy = _prediction_accuracy(config, test, overlap) if config.predictions else []
    summary: OverlapContent = {
        "examples": len(test),
        "overlap": int(overlap.sum()),
        "clean": int((~overlap).sum()),
        "threshold": None if threshold is None else round(threshold, 4),
        "verbatim": int(sum(a.verbatim for a in audits)),
        "copied_below_threshold": int((copied & ~by_bm25).sum()),
        "index": info,
        "queries_with_notes": sum(q.note is not None for q in queries),
        "accuracy": [a.as_dict() for a in accuracy],
        "ngram_contaminated": {str(n): int(sum(a.ngram_hits[n] > 0 for a in audits)) for n in ngram_orders},
        "cut": _cut(config),
        "seconds": {"index": round(built_s, 3), "audit": round(time.perf_counter() - started - built_s, 3)},
    }

    write = config_writer(_write_overlap, config, test, audits, queries, overlap, summary, command)
    if config.out is not None:
        write(Path(config.out), config.overwrite)
    return OverlapResult(summary, None if config.out is None else Path(config.out), write)


def _checked(config: OverlapConfig) -> OverlapConfig:
    """Everything checked before the index is built: inputs, the index and output folders;
    the config with its default cut (the top half by BM25, unless a threshold is given)."""
    if not config.test or not (config.corpus or config.infini_gram):
        raise ConfigError("tailsplit overlap needs --test FILE and at least one --corpus FILE (or --infini-gram DIR)")
    if not config.ngram_orders:
        raise ConfigError("--ngram-orders=() names no n-gram size; give at least one, e.g. --ngram-orders 8,13")
    if config.top_quantile is None and config.threshold is None and config.infini_gram is None:
        config = dataclasses.replace(config, top_quantile=0.5)  # the caller's config is left as given
    for path in config.corpus:
        if problem := file_problem(path):
            raise InputError(problem, path=path, fix="give corpus files with --corpus")
    if config.index_dir is not None:
        read = [*config.test, *config.corpus, *([config.predictions] if config.predictions else [])]
        check_cache_folder(
            config.index_dir,
            markers=INDEX_MARKERS,
            inputs=[*read, *([config.out] if config.out else [])],
            option="--index-dir",
        )
    if config.out is not None:
        check_output_folder(config.out, overwrite=config.overwrite, inputs=overlap_inputs(config))
    return config


def _index_plan(config: OverlapConfig) -> IndexPlan | None:
    """The ``--infini-gram`` folder planned (checked without loading anything), or ``None``."""
    if config.infini_gram is None:
        return None
    read = [*config.test, *config.corpus, *([config.predictions] if config.predictions else [])]
    return plan_index(_index_request(config), [*read, *([config.out] if config.out else [])])


def _index_request(config: OverlapConfig) -> IndexRequest:
    assert config.infini_gram is not None  # asked only with the option
    return IndexRequest(Path(config.infini_gram), config.index_tokenizer, tuple(config.corpus), config.corpus_field)


def _cut(config: OverlapConfig) -> dict[str, Any]:
    if config.infini_gram is not None:
        return {"by": "copies"}
    if config.threshold is not None:
        return {"by": "threshold"}
    return {"by": "top_quantile", "top_quantile": config.top_quantile}


def _audits(
    config: OverlapConfig, plan: IndexPlan | None, test: Dataset, queries: list[Any], progress: bool = False
) -> tuple[list[ExampleAudit], dict, Any]:
    """Every test example audited against the corpus index (built or opened; one index, or
    shards on an executor, or an infini-gram index), the index's description (with
    ``built_s``: when it was ready) and its n-gram orders."""
    if plan is not None:
        index = open_index(plan, _index_request(config), progress)
        built = time.perf_counter()
        audits, info = audit_with_index(index, test.ids, test.texts, config.ngram_orders, progress)
        return audits, {**info, "built_s": built}, tuple(config.ngram_orders)
    if config.shards == 1 and config.engine == "local":
        single = open_or_build_index(config, progress)
        built = time.perf_counter()
        info = {k: v for k, v in single.info.items() if k != "files"}
        return (
            audit_all(single, test.ids, test.texts, queries, k=config.k),
            {**info, "built_s": built},
            single.ngram_orders,
        )
    executor = make_executor(config.engine, config.ray_address)
    try:
        sharded = open_or_build_sharded(config, executor)
        built = time.perf_counter()
        audits = audit_sharded(sharded, executor, test.ids, test.texts, queries, k=config.k)
        return audits, {**sharded.info, "built_s": built}, sharded.ngram_orders
    finally:
        if hasattr(executor, "close"):
            executor.close()


def _queries(extractor: Any, test: Dataset) -> list[StructuredQuery]:
    """Each test record's structured query; a record the extractor cannot read is named by its
    file and its row there."""
    queries, rows = [], Counter[str]()
    for record, text, source in zip(test.records, test.texts, test.sources):
        rows[source] += 1
        try:
            queries.append(extractor.query(record, text))
        except InputError as exc:
            if exc.path is not None:
                raise
            raise InputError(exc.problem, path=source, row=rows[source], field=exc.field, fix=exc.fix) from None
    return queries


def overlap_inputs(config: OverlapConfig) -> list[str]:
    """Every file the audit reads (an output must not be, or hold, one of them)."""
    return [
        *config.test,
        *config.corpus,
        *([config.predictions] if config.predictions else []),
        *([config.index_dir] if config.index_dir else []),
        *([config.infini_gram] if config.infini_gram else []),
    ]


def _prediction_accuracy(config: OverlapConfig, test: Dataset, overlap: np.ndarray) -> list[Any]:

    if test.labels is None:
        raise ConfigError("--predictions needs the gold labels; name the test label field with --label")
    assert config.predictions is not None  # called only with predictions
    correct = prediction_correctness(
        config.predictions, test.ids, test.labels, id_field=config.id, prediction_field=config.prediction_field
    )
    return subset_accuracies(correct, overlap, seed=config.seed)


def _audit_row(audit: Any, query: Any) -> dict[str, Any]:
    """The audit of one example with the phrases its query required (and any note on them)."""
    row = {**audit.as_dict(), "required": [" ".join(phrase) for phrase in query.required]}
    if query.note:
        row["query_note"] = query.note
    return row


def _audit_columns(audit: ExampleAudit) -> dict[str, Any]:
    """The audit's columns beside a test record: its best BM25 score, or (against an
    infini-gram index) its longest match, that match's count and the coverage per order."""
    hits = {f"ngram{n}_hits": audit.ngram_hits[n] for n in audit.ngram_hits}
    if audit.profile is None:
        return {"best_bm25": round(audit.best_score, 4), "verbatim": audit.verbatim, **hits}
    p = audit.profile
    coverage = {f"coverage{n}": round(v, 6) for n, v in p.coverage.items()}
    return {"longest_match": p.longest, "longest_match_count": p.longest_count, "verbatim": audit.verbatim,
            **hits, **coverage}  # fmt: skip


def _write_overlap(
    out: Path,
    config: OverlapConfig,
    test: Dataset,
    audits: list[Any],
    queries: list[Any],
    overlap: np.ndarray,
    summary: OverlapContent,
    command: list[str] | None,
) -> None:
    fmt = output_format_for(detect_format(Path(test.input_paths[0])))
    rows = []
    for record, audit, flag in zip(test.records, audits, overlap):
        rows.append({**record, **_audit_columns(audit), "overlap": bool(flag)})
    with staged_output(out, overwrite=config.overwrite, inputs=overlap_inputs(config)) as folder:
        for name, keep in (("overlap", overlap), ("clean", ~overlap)):
            write_records(folder / f"{name}{OUTPUT_SUFFIX[fmt]}", [r for r, k in zip(rows, keep) if k], fmt)
        folder.write_text(
            "audit.jsonl",
            json_lines(_audit_row(a, q) for a, q in zip(audits, queries)),
        )
        provenance = command_provenance(command, input_records(test), seed=config.seed)
        markdown = render_overlap_markdown(summary, audits, test)
        folder.write_text("summary.md", with_provenance(markdown, provenance) + "\n")
        folder.write_files(overlap_html(markdown, audits, summary["threshold"], provenance))
        folder.write_manifest(
            {
                "tailsplit_version": __version__,
                "command": recorded_command(command),
                "config": dataclasses.asdict(config),
                "inputs": input_records(test),
                **summary,
            }
        )


# fmt: off
@known_keywords()
def audit_overlap(
    test: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    text: str = "text", id: str = "id", label: str | None = None,  # noqa: A002
    corpus: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (), corpus_field: str = "text",
    index_dir: str | os.PathLike[str] | None = None, infini_gram: str | os.PathLike[str] | None = None,
    index_tokenizer: str | None = None, query_kind: str = "generic",
    required_fields: str | Sequence[str] = (), window: int = 10, k: int = 5,
    ngram_orders: int | Sequence[int] = (8, 13), k1: float = 1.5, b: float = 0.75, threshold: float | None = None,
    top_quantile: float | None = None, predictions: str | os.PathLike[str] | None = None,
    prediction_field: str = "prediction", shards: int = 1, engine: str = "local", ray_address: str | None = None,
    seed: int = 0, out: str | os.PathLike[str] | None = None, overwrite: bool = False, progress: bool | None = None,
) -> OverlapResult:
    """``tailsplit overlap``: the test examples audited against the ``corpus`` (BM25 retrieval,
    then n-gram overlap); the clean / dirty partition and its counts.

    >>> tailsplit.audit_overlap("test.jsonl", corpus=["train.jsonl"], text="question")  # doctest: +SKIP
    """
    shown = progress_shown(progress)
    config = OverlapConfig(
        test=paths_argument("test", test, "test files"), text=text, id=id, label=label,
        corpus=corpus, corpus_field=corpus_field, index_dir=index_dir, infini_gram=infini_gram,  # type: ignore[arg-type]
        index_tokenizer=index_tokenizer, query_kind=query_kind,
        required_fields=required_fields, window=window, k=k, ngram_orders=ngram_orders,  # type: ignore[arg-type]
        k1=k1, b=b, threshold=threshold, top_quantile=top_quantile, predictions=predictions,  # type: ignore[arg-type]
        prediction_field=prediction_field, shards=shards, engine=engine, ray_address=ray_address, seed=seed,
        out=out, overwrite=overwrite)  # type: ignore[arg-type]
    check_values(config)
    config.ngram_orders = tuple(config.ngram_orders)
    return audit_overlap_config(config, progress=shown)
# fmt: on
