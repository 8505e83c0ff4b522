"""Likelihood (and challenge) splits: load → score → split → write, and split analysis.

Each public function mirrors a CLI command (``score``, ``split``, ``run``, ``analyze``) and
takes the same configuration, so the Python API and the CLI cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tailsplit._version import __version__
from tailsplit.analysis.program_metrics import program_metrics
from tailsplit.analysis.summary import summarize_split
from tailsplit.cache import ScoreCache, default_cache_dir
from tailsplit.config import NULL_SPLITS, AnalyzeConfig, RunConfig, ScoringConfig, SplitConfig, check_values
from tailsplit.core import Dataset, ScoreTable, SplitIndices
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.fingerprint import sha256_file
from tailsplit.io.claims import released_on_error
from tailsplit.io.examples import load_examples
from tailsplit.io.outputs import (
    check_cache_folder,
    check_output_file,
    check_output_folder,
    update_reports,
    write_output_file,
)
from tailsplit.io.scores import read_score_file, score_file_bytes, scores_from_column
from tailsplit.io.writers import check_output_format
from tailsplit.log import logger
from tailsplit.pipeline.checks import check_template_fields, warn_repeated_queries
from tailsplit.pipeline.manifest import input_records
from tailsplit.pipeline.result import RunResult, write_split
from tailsplit.pipeline.split_folder import check_added_columns, check_parts_writable, report_files
from tailsplit.programs.sets import ProgramFeatures, dataset_program_features
from tailsplit.prompts import PromptTemplate, resolve_template
from tailsplit.registry import SCORERS
from tailsplit.scoring.crossfit import cross_score_dataset
from tailsplit.scoring.driver import score_examples
from tailsplit.splits import SPLITTERS, SplitInputs, Splitter, make_splitter
from tailsplit.words import word_lengths

if TYPE_CHECKING:
    from tailsplit.analysis.text_counts import TextCounts


def load_dataset(config: RunConfig) -> Dataset:
    """The examples of ``config.data``: its files, its in-memory table, or its hub dataset."""
    for section in (config.data, config.scoring, config.split, config.output):
        check_values(section)
    data = config.data
    given = [name for name, value in (("paths", data.paths), ("table", data.table), ("dataset", data.dataset))
             if value is not None and (name != "paths" or len(value))]  # fmt: skip
    if len(given) > 1:
        raise ConfigError(f"{' and '.join(given)} are both given; pass the data one way")
    if data.table is not None:
        return load_examples(data.table, data.field_map())
    if data.dataset is not None:
        from tailsplit.io.hf import load_hub_dataset

        return load_examples(load_hub_dataset(data.dataset), data.field_map())
    if not data.paths:
        raise ConfigError("paths=[] names no data file; pass one or more data files (or a table, or --dataset)")
    return load_examples(data.paths, data.field_map())


def template_for(config: ScoringConfig) -> PromptTemplate:
    return resolve_template(config.template, config.label_words)


@dataclass(frozen=True)
class ScoringPlan:
    """What scores a run, built once (no model loads until the first batch): the template,
    the prompted scorer (``None`` for n-gram and k-fold scoring) and the engine."""

    template: PromptTemplate
    scorer: Any
    engine: Any


@keyword_spelling
def score_dataset(
    dataset: Dataset,
    config: ScoringConfig,
    *,
    progress: bool = False,
    plan: ScoringPlan | None = None,
) -> tuple[ScoreTable, dict[str, Any], dict[str, Any]]:
    """Scores of every example, a report of the work done, and what the manifest records
    about how the scores were made (``plan``: from :func:`plan_scoring`, when checked already)."""
    plan = plan_scoring(dataset, config) if plan is None else plan
    template, scorer, engine = plan.template, plan.scorer, plan.engine
    if config.method != "prompted":
        return cross_score_dataset(dataset, template, config, progress)
    cache = ScoreCache(config.cache_dir or default_cache_dir()) if config.use_cache else None
    try:
        scores, report = score_examples(dataset, template, scorer, cache, progress=progress, engine=engine)
    finally:
        if cache is not None:
            cache.close()
    meta = {
        "method": "prompted",
        "model": scorer.identity(),
        "template": template.describe(),
        "backend": config.backend,
    }
    details = report.as_dict()
    if engine is not None and engine.last_run:
        details["engine"] = engine.last_run
    return scores, details, meta


def scoring_engine(config: ScoringConfig) -> Any:
    """``None`` for this process, or the Ray engine (prompted Hugging Face scoring only)."""
    if config.engine == "local":
        return None
    if config.method != "prompted" or config.backend != "hf":
        raise ConfigError(
            "--engine ray scores with --method prompted --backend hf only; fine-tuned "
            "and n-gram scoring run in one process (drop --engine ray)"
        )
    from tailsplit.scoring.distributed import RayScoringEngine

    work_dir = Path(config.cache_dir or default_cache_dir()) / "ray-scoring"
    return RayScoringEngine(
        work_dir=work_dir,
        address=config.ray_address,
        workers=config.workers,
        cpus_per_worker=config.cpus_per_worker,
        gpus_per_worker=config.gpus_per_worker,
        shard_tokens=config.shard_tokens,
    )


def plan_scoring(dataset: Dataset, config: ScoringConfig) -> ScoringPlan:
    """Everything about scoring that can be checked without a model — method, template, its
    roles and label words, engine, backend options and device — checked once, and the scorer
    and engine that the run then uses."""
    template = template_for(config)
    for role, column, option in (("context", dataset.contexts, "--context"), ("label", dataset.labels, "--label")):
        if template.needs(role) and column is None:
            raise ConfigError(f"template={template.name!r} uses {{{role}}}; name that field with {option}")
    template.check_labels(None if dataset.labels is None else set(dataset.labels), config.label_words)
    check_template_fields(dataset, template)
    if config.cache_dir is not None:
        check_cache_folder(config.cache_dir, markers=None, inputs=dataset.input_paths, option="--cache-dir")
    engine = scoring_engine(config)
    scorer = None
    if config.method == "prompted":  # the constructor checks its options; the model loads later
        scorer = SCORERS.create(config.backend, **config.scorer_params(SCORERS.get(config.backend)))
    elif config.method == "kfold":
        SCORERS.create(config.backend, **config.scorer_params(SCORERS.get(config.backend)))  # options only
    return ScoringPlan(template, scorer, engine)


def check_before_work(
    dataset: Dataset,
    config: RunConfig,
    *,
    scores_path: str | Path | None,
    programs: ProgramFeatures | None,
    splitter: Splitter | None = None,
    lengths: np.ndarray | None = None,
    scores: ScoreTable | None = None,
) -> ScoringPlan | None:
    """Refuse, before any model loads, what would fail after scoring: the output folder,
    added columns, output options, the scoring options, and the split itself (sizes, label
    quotas, groups, atom coverage), tried on a placeholder score column. Returns the scoring
    plan when the run will score."""
    output = config.output
    if output.out is not None:
        inputs = [*dataset.input_paths, *([scores_path] if scores_path is not None else [])]
        check_output_folder(output.out, overwrite=output.overwrite, inputs=inputs)
    if output.format is not None:
        check_output_format(output.format)
    if output.out is not None:
        check_parts_writable(dataset, output.format)
    if output.analysis_text == "pair" and dataset.contexts is None:
        raise ConfigError("--analysis-text pair reads context + query; name the context field with --context")
    if output.analyze and output.null_splits < 1:
        raise ConfigError(
            f"--null-splits={output.null_splits!r} must be 1 or more ({NULL_SPLITS} is usual); "
            "pass --no-analyze to skip the analysis"
        )
    warn_repeated_queries(dataset, config)
    planned = build_splitter(config.split) if splitter is None else splitter
    will_score = scores_path is not None or scores is not None or planned.needs_scores
    check_added_columns(dataset, with_scores=will_score)
    if planned.needs_scores and scores is not None:
        split_dataset(dataset, scores, config.split, programs, splitter=planned, lengths=lengths)
    elif planned.needs_scores and scores_path is None:
        plan = plan_scoring(dataset, config.scoring)
        lengths = word_lengths(dataset.texts) if lengths is None else lengths
        placeholder = ScoreTable(
            ids=dataset.ids,
            logprob_sum=-lengths.astype(np.float64),
            n_tokens=lengths,
            truncated=np.zeros(len(dataset), dtype=bool),
        )
        split_dataset(dataset, placeholder, config.split, programs, splitter=planned, lengths=lengths)
        return plan
    return None


def changed_options(config: RunConfig) -> str:
    """The options of a run that differ from their defaults, as ``name=value`` (for ``-v``)."""
    changed = []
    for section in (config.data, config.scoring, config.split, config.output):
        default = type(section)()
        changed += [
            f"{f.name}={getattr(section, f.name)!r}"
            for f in dataclasses.fields(section)
            if f.name != "table" and getattr(section, f.name) != getattr(default, f.name)
        ]
    return ", ".join(changed) or "the defaults"


def build_splitter(config: SplitConfig) -> Splitter:
    check_values(config)
    cls = SPLITTERS[config.splitter]
    if config.encoder is not None and not cls.needs_features:
        raise ConfigError(
            f"encoder={config.encoder!r} does not apply to splitter={config.splitter!r}; only aflite uses an encoder"
        )
    accepted = list(cls().get_params())
    return make_splitter(config.splitter, **config.splitter_params(accepted))


@keyword_spelling
def split_dataset(
    dataset: Dataset,
    scores: ScoreTable | None,
    config: SplitConfig,
    programs: ProgramFeatures | None = None,
    *,
    splitter: Splitter | None = None,
    lengths: np.ndarray | None = None,
) -> tuple[SplitIndices, Splitter, np.ndarray]:
    """(split, the splitter used, word length per example); ``splitter`` and ``lengths`` when
    the caller has built them already."""
    splitter = build_splitter(config) if splitter is None else splitter
    if splitter.needs_scores and scores is None:
        raise ConfigError(f"splitter={config.splitter!r} needs scores; pass --scores or use tailsplit run")
    lengths = word_lengths(dataset.texts) if lengths is None else lengths
    inputs = SplitInputs.from_dataset(dataset, scores, lengths, programs)
    if splitter.needs_features:
        if dataset.labels is None:  # before any encoder loads
            raise ConfigError(f"splitter={config.splitter!r} needs labels (its classifiers predict them); pass --label")
        from tailsplit.shift.encoder import EncoderSource, sentence_features

        source = EncoderSource.resolve(config.encoder)
        inputs = dataclasses.replace(inputs, features=sentence_features(dataset, config.encoder))
        split = splitter.split(inputs)
        details = {**split.details, "encoder": source.name, "encoder_sha256": source.identity}
        return dataclasses.replace(split, details=details), splitter, lengths
    return splitter.split(inputs), splitter, lengths


@released_on_error
@keyword_spelling
def score(
    config: RunConfig, out_path: str | Path, *, progress: bool = False, command: list[str] | None = None
) -> tuple[ScoreTable, dict[str, Any]]:
    """``tailsplit score``: score the data and write a score file (atomically).

    ``config.output.overwrite`` allows replacing an existing file; an input never is."""
    dataset = load_dataset(config)
    check_output_file(out_path, overwrite=config.output.overwrite, inputs=dataset.input_paths)
    plan = plan_scoring(dataset, config.scoring)
    scores, report, meta = score_dataset(dataset, config.scoring, progress=progress, plan=plan)
    meta = {
        **meta,
        "tailsplit_version": __version__,
        "command": command or sys.argv,
        "inputs": input_records(dataset),
        "config": config.as_dict(),
        "scoring": report,
    }
    write_output_file(
        out_path, score_file_bytes(dataset, scores, meta), overwrite=config.output.overwrite, inputs=dataset.input_paths
    )
    return scores, report


@released_on_error
@keyword_spelling
def run(
    config: RunConfig,
    *,
    scores_path: str | Path | None = None,
    progress: bool = False,
    command: list[str] | None = None,
    score_missing: bool = True,
) -> RunResult:
    """``tailsplit run`` (score, then split) or ``tailsplit split`` (with ``scores_path``).

    With ``score_missing=False`` (``tailsplit split``) a splitter that needs scores and has no
    ``scores_path`` is an error instead of a scoring run."""
    timings: dict[str, float] = {}
    clock = time.perf_counter()
    dataset = load_dataset(config)
    timings["load_s"] = time.perf_counter() - clock
    logger.debug("read %d examples in %.2f s; options: %s", len(dataset), timings["load_s"], changed_options(config))
    planned = build_splitter(config.split)
    logger.debug("splitter %s with %s", config.split.splitter, planned.get_params())
    if planned.needs_programs and dataset.programs is None:
        raise ConfigError(
            f"splitter={config.split.splitter!r} with these options needs programs; name the "
            "program field with --program (e.g. --program query for Spider)"
        )
    needs_scores = planned.needs_scores
    given_scores = None
    if config.data.score_column is not None:
        if scores_path is not None:
            raise ConfigError("--score-column and --scores both give scores; pass one")
        given_scores = scores_from_column(dataset, config.data.score_column, model_name=config.data.model_name)
    elif config.data.model_name is not None and scores_path is None:
        raise ConfigError("--model-name names the model of scores given with --scores or --score-column; give one")
    if needs_scores and scores_path is None and given_scores is None and not score_missing:
        raise ConfigError(
            f"splitter={config.split.splitter!r} needs scores; pass --scores FILE (written by "
            "tailsplit score), or use tailsplit run, which scores with the LM first"
        )
    clock = time.perf_counter()
    programs = dataset_program_features(dataset, config.data.program_kind, config.data.count)
    timings["programs_s"] = time.perf_counter() - clock
    counts = _query_text_counts(dataset, config)  # tokenised once: lengths and the analysis' counts
    lengths = word_lengths(dataset.texts) if counts is None else counts.words
    plan = check_before_work(
        dataset,
        config,
        scores_path=scores_path,
        programs=programs,
        splitter=planned,
        lengths=lengths,
        scores=None if given_scores is None else given_scores[0],
    )
    scores, report = None, None
    meta: dict[str, Any] = {}
    clock = time.perf_counter()
    if given_scores is not None:
        scores, meta = given_scores
    elif scores_path is not None:
        scores, meta = read_score_file(scores_path, dataset, model_name=config.data.model_name)
        meta = {k: meta[k] for k in ("method", "model", "template", "backend", "folds") if k in meta}
        meta["scores_file"] = {"path": str(scores_path), "sha256": sha256_file(scores_path)}
    elif needs_scores:
        scores, report, meta = score_dataset(dataset, config.scoring, progress=progress, plan=plan)
    timings["score_s"] = time.perf_counter() - clock
    clock = time.perf_counter()
    split, splitter, lengths = split_dataset(dataset, scores, config.split, programs, splitter=planned, lengths=lengths)
    timings["split_s"] = time.perf_counter() - clock
    summaries = summarize_split(dataset, split, lengths, scores)
    metrics = [] if programs is None else program_metrics(programs, split)
    manifest = {
        "tailsplit_version": __version__,
        "command": command or sys.argv,
        "config": config.as_dict(),
        "inputs": input_records(dataset),
        **meta,
        "splitter": {"name": splitter.name, "params": splitter.get_params(), "details": dict(split.details)},
        "seed": config.split.seed,
        "sizes": {s.part: s.size for s in summaries},
        "label_counts": {s.part: s.label_counts for s in summaries},
        "summary": [s.as_dict() for s in summaries],
        "scoring": report,
    }
    if programs is not None:
        manifest["programs"] = {
            "field": config.data.program,
            "kind": programs.extractor,
            "count": programs.count,
            "metrics": [m.as_dict() for m in metrics],
        }
    result = RunResult(
        dataset, scores, split, summaries, manifest, timings=timings, programs=programs, program_metrics=metrics
    )
    if config.output.out is not None:
        if config.output.analyze:
            clock = time.perf_counter()
            result = dataclasses.replace(result, analysis=_analysis_of_run(result, config, counts))
            timings["analyze_s"] = time.perf_counter() - clock
        clock = time.perf_counter()
        out_dir, written = write_split(Path(config.output.out), result, overwrite=config.output.overwrite)
        timings["write_s"] = time.perf_counter() - clock
        result = dataclasses.replace(result, out_dir=out_dir, manifest=written)
    return result


def _query_text_counts(dataset: Dataset, config: RunConfig) -> TextCounts | None:
    """The queries' text counts when an analysis of the queries follows (and its extra is
    installed); their ``words`` are the lengths."""
    if config.output.out is None or not config.output.analyze or config.output.analysis_text == "pair":
        return None
    from tailsplit.errors import MissingDependencyError

    try:
        from tailsplit.analysis.text_counts import compute_text_counts

        return compute_text_counts(dataset.texts)
    except MissingDependencyError:
        return None


def _analysis_of_run(result: RunResult, config: RunConfig, counts: TextCounts | None) -> Any:
    """The split's analysis (``None``, with a note, if the analysis extra is not installed);
    ``counts`` are the queries' text counts, when computed already."""
    from tailsplit.analysis.split_analysis import AnalysisInputs, analyze_split
    from tailsplit.analysis.split_dir import pair_text
    from tailsplit.errors import MissingDependencyError

    dataset, scores = result.dataset, result.scores
    texts = dataset.texts
    if config.output.analysis_text == "pair" and dataset.contexts is not None:
        texts = tuple(pair_text(c, t) for c, t in zip(dataset.contexts, dataset.texts))
    inputs = AnalysisInputs(
        name=Path(config.output.out or "split").name,
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
    )
    try:
        return analyze_split(
            inputs,
            null_splits=config.output.null_splits,
            seed=config.split.seed,
            syntax=config.output.syntax,
            text=counts if texts is dataset.texts else None,
        )
    except MissingDependencyError as exc:
        logger.info(f"no analysis report ({exc})")
        return None


@keyword_spelling
def analyze(
    split_dir: str | Path,
    *,
    null_splits: int | None = None,
    seed: int = 0,
    compare: Sequence[str | Path] | None = None,
    text_kind: str | None = None,
    syntax: bool | None = None,
    agreement_field: str | None = None,
    accept_modified: bool = False,
) -> Any:
    """``tailsplit analyze``: analyse a split folder and write its reports into it.

    ``text_kind`` and ``syntax`` default to what the run that wrote the folder used;
    ``agreement_field`` adds annotator agreement (a field holding each example's labels)."""
    from tailsplit.analysis.compare import compare_splits
    from tailsplit.analysis.plots import comparison_figure
    from tailsplit.analysis.split_analysis import analyze_split
    from tailsplit.analysis.split_dir import load_split_dir

    AnalyzeConfig(  # checks the values
        split_dir=str(split_dir), null_splits=null_splits, seed=seed, analysis_text=text_kind, syntax=syntax
    )
    null_splits = NULL_SPLITS if null_splits is None else null_splits
    from tailsplit.analysis.split_dir import read_manifest

    inputs = load_split_dir(split_dir, text_kind, agreement_field, accept_modified=accept_modified)
    manifest = read_manifest(Path(split_dir), accept_modified=accept_modified)
    if syntax is None:
        syntax = bool(manifest.get("config", {}).get("output", {}).get("syntax", True))
    analysis = analyze_split(inputs, null_splits=null_splits, seed=seed, syntax=syntax)
    comparisons = []
    figures = {}
    for other_dir in compare or []:
        other = load_split_dir(other_dir, inputs.text_kind, accept_modified=accept_modified)
        comparisons.append(
            (compare_splits(inputs, other), analyze_split(other, null_splits=0, seed=seed, syntax=syntax))
        )
        figure = comparison_figure(inputs, other)
        if figure is not None:
            figures[f"Scores in {inputs.name} against scores in {other.name}"] = figure
    extra = {"analyzed_modified_files": manifest["modified_files"]} if "modified_files" in manifest else {}
    update_reports(split_dir, report_files(analysis, comparisons, manifest, figures), extra=extra)
    return analysis, comparisons
