"""The analysis a run makes of its own split, in memory: what it reads of the run (the texts,
parts, labels, scores and programs) and the analysis against random splits (``tailsplit
analyze`` reads the same from a run held in memory)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from tailsplit.analysis.split_analysis import AnalysisInputs, SplitAnalysis, analyze_split
from tailsplit.analysis.split_dir import describe_split, pair_text
from tailsplit.analysis.text_counts import TextCounts
from tailsplit.config import RunConfig
from tailsplit.io.manifest import Manifest
from tailsplit.pipeline.runs.result import RunResult


def run_analysis_inputs(result: RunResult, config: RunConfig, name: str) -> AnalysisInputs:
    """What the analysis of a run reads: its texts (queries, or context + query pairs as
    ``config.output.analysis_text`` says), parts, labels, scores and programs."""
    dataset, scores = result.dataset, result.scores
    texts = dataset.texts
    if config.output.analysis_text == "pair" and dataset.contexts is not None:
        texts = tuple(pair_text(c, t) for c, t in zip(dataset.contexts, dataset.texts))
    return AnalysisInputs(
        name=name,
        kind=describe_split(Manifest({**result.manifest, "config": dataclasses.asdict(config)})),
        ids=dataset.ids,
        texts=texts,
        parts=result.split.assignment(len(dataset)),
        labels=dataset.labels,
        logprob_sum=None if scores is None else np.asarray(scores.logprob_sum, dtype=np.float64),
        n_tokens=None if scores is None or not scores.has_token_counts else np.asarray(scores.n_tokens),
        programs=result.programs,
        balance_labels=config.split.balance_labels,
        text_kind=config.output.analysis_text,
        queries=dataset.texts,
        contexts=dataset.contexts,
        membership=None if scores is None else scores.membership,
    )


def analysis_of_run(result: RunResult, config: RunConfig, counts: TextCounts | None) -> SplitAnalysis:
    """The analysis a run makes of its own split (named after its output folder), with the
    queries' text counts when computed already."""
    inputs = run_analysis_inputs(result, config, Path(config.output.out or "split").name)
    return analyze_split(
        inputs,
        null_splits=config.output.null_splits,
        seed=config.split.seed,
        syntax=config.output.syntax,
        text=counts if inputs.texts is result.dataset.texts else None,
    )
