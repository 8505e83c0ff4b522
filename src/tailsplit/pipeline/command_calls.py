"""The overlap audit, the dataset-shift commands and the exports as one Python call each: the
command's inputs as arguments, every other option a keyword named after its config field (checked as
the command line's options are, unknown names refused with the nearest ones). The audit and
the shift commands return :class:`~tailsplit.pipeline.findings.Findings` (read like the JSON
the command writes, tabled by ``to_pandas()``, shown in a notebook); the exports return the
manifest they wrote. A folder is written only when ``out`` is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tailsplit.config import (
    CorrelateConfig,
    CurveConfig,
    HfExportConfig,
    LmEvalExportConfig,
    OodRankConfig,
    OverlapConfig,
    SimilarityConfig,
)
from tailsplit.config import config_from_keywords as configured
from tailsplit.config.arguments import path_argument, paths_argument, switch_argument
from tailsplit.errors import keyword_spelling
from tailsplit.pipeline import export as exports
from tailsplit.pipeline.curve import curve_config
from tailsplit.pipeline.findings import Findings
from tailsplit.pipeline.overlap import audit_overlap_config
from tailsplit.pipeline.result import RunResult, folder_of
from tailsplit.pipeline.shift import correlate_config, ood_rank_config, similarity_config
from tailsplit.progress import watched

Paths = str | Path | Sequence[str | Path]


@keyword_spelling
def audit_overlap(test: Paths, *, progress: bool | None = None, **options: Any) -> Findings:
    """``tailsplit overlap``: ``test`` (files) audited against ``corpus=`` (BM25 candidates,
    then n-gram overlap); the clean / dirty partition and its counts.

    >>> tailsplit.audit_overlap("test.jsonl", corpus=["train.jsonl"], text="question")  # doctest: +SKIP
    """
    switch_argument("progress", progress)
    config = configured(OverlapConfig, options, given={"test": paths_argument("test", test, "test files")})
    config.ngram_orders = tuple(config.ngram_orders)
    return Findings("overlap", audit_overlap_config(config, progress=watched() if progress is None else progress))


@keyword_spelling
def similarity(datasets: Paths, **options: Any) -> Findings:
    """``tailsplit similarity``: centroid similarity and MMD between every pair of
    ``datasets`` (``NAME=FILE[:FIELD]`` or files), and between the parts of ``splits=``."""
    config = configured(SimilarityConfig, options, given={"datasets": paths_argument("datasets", datasets, "datasets")})
    return Findings("similarity", similarity_config(config))


@keyword_spelling
def ood_rank(id: str | Path, candidates: str | Path, **options: Any) -> Findings:  # noqa: A002 - BOSS's name
    """``tailsplit ood-rank``: the ``candidates`` (a CSV of datasets) decided and ranked as
    out-of-distribution for the ID dataset by BOSS's criteria."""
    given = {
        "id": path_argument("id", id, "the ID dataset"),
        "candidates": path_argument("candidates", candidates, "a CSV file"),
    }
    return Findings("ood-rank", ood_rank_config(configured(OodRankConfig, options, given=given)))


@keyword_spelling
def correlate(points: str | Path, **options: Any) -> Findings:
    """``tailsplit correlate``: Type I / II / III fits of (ID, OOD) accuracy points."""
    given = {"points": path_argument("points", points, "a CSV file of accuracy points")}
    return Findings("correlate", correlate_config(configured(CorrelateConfig, options, given=given)))


@keyword_spelling
def curve(id: str | Path, ood: Paths, **options: Any) -> Findings:  # noqa: A002 - BOSS's name
    """``tailsplit curve``: a task model trained on ``id``, ID and OOD accuracy at each
    checkpoint, and the fitted relation (needs ``out=``: it writes its points and fits)."""
    given = {"id": path_argument("id", id, "the ID dataset"), "ood": paths_argument("ood", ood, "OOD datasets")}
    return Findings("curve", curve_config(configured(CurveConfig, options, given=given)))


@keyword_spelling
def export_hf(split: RunResult | str | Path, out: str | Path, **options: Any) -> dict[str, Any]:
    """``tailsplit export hf``: a split (its folder, or a run written with ``result.write``)
    as a Hugging Face ``DatasetDict`` folder with a dataset card (``license=``,
    ``citation_file=``, ``push_to_hub=``, ``class_labels=``, ``task_category=``, ``language=``, ``overwrite=``, ``accept_modified=``); the manifest
    written."""
    config = configured(
        HfExportConfig, options, given={"split_dir": folder_of(split), "out": path_argument("out", out, "a folder")}
    )
    return exports.export_hf(
        config.split_dir,
        str(config.out),
        overwrite=config.overwrite,
        accept_modified=config.accept_modified,
        license=config.license,
        citation_file=None if config.citation_file is None else Path(config.citation_file),
        push_to_hub=config.push_to_hub,
        class_labels=config.class_labels,
        task_category=config.task_category,
        language=config.language,
    )


@keyword_spelling
def export_lm_eval(
    split: RunResult | str | Path, out: str | Path, *, accept_modified: bool = False, **options: Any
) -> dict[str, Any]:
    """``tailsplit export lm-eval``: a split as an lm-evaluation-harness task (``task_name=``,
    ``template=``, ``dataset_path=``, ``overwrite=``) whose scores reproduce tailsplit's; the manifest written."""
    switch_argument("accept_modified", accept_modified)
    config = configured(
        LmEvalExportConfig, options, given={"split_dir": folder_of(split), "out": path_argument("out", out, "a folder")}
    )
    return exports.export_lm_eval(
        config.split_dir,
        str(config.out),
        name=config.task_name,
        template=config.template,
        overwrite=config.overwrite,
        accept_modified=accept_modified,
        dataset_path=config.dataset_path,
    )
