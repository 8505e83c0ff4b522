"""Likelihood (and challenge) splits: load → score → split → write, and split analysis.

Each public function mirrors a CLI command (``score``, ``split``, ``run``, ``analyze``) and
takes the same configuration, so the Python API and the CLI cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from tailsplit.analysis.null import check_null_size
from tailsplit.analysis.program_metrics import program_metrics
from tailsplit.analysis.summary import summarize_split
from tailsplit.analysis.text_counts import compute_text_counts
from tailsplit.config import NULL_SPLITS, RunConfig, ScoringConfig, SplitConfig, check_values, flag_of
from tailsplit.core import Dataset, ScoreTable, SplitIndices
from tailsplit.errors import ConfigError, MissingDependencyError, keyword_spelling
from tailsplit.fingerprint import sha256_file
from tailsplit.io.claims import released_on_error
from tailsplit.io.outputs import (
    check_output_folder,
)
from tailsplit.io.scores import read_score_file, scores_from_column
from tailsplit.io.writers import check_output_format
from tailsplit.log import logger
from tailsplit.pipeline.recording import run_manifest
from tailsplit.pipeline.runs.analysis import analysis_of_run
from tailsplit.pipeline.runs.checks import warn_repeated_queries
from tailsplit.pipeline.runs.folder import check_added_columns, check_parts_writable
from tailsplit.pipeline.runs.loading import ScoringPlan, load_dataset, plan_scoring, score_dataset
from tailsplit.pipeline.runs.result import RunResult
from tailsplit.programs.sets import ProgramFeatures, dataset_program_features
from tailsplit.shift.encoder import EncoderSource, sentence_features
from tailsplit.splits import SPLITTERS, SplitInputs, Splitter, make_splitter
from tailsplit.splits.base import resolve_sizes
from tailsplit.splits.label_quotas import shortfall_lines
from tailsplit.words import word_lengths

if TYPE_CHECKING:
    from tailsplit.analysis.text_counts import TextCounts


def check_before_work(
    dataset: Dataset,
    config: RunConfig,
    *,
    scores_path: str | Path | None,
    programs: ProgramFeatures | None,
    splitter: Splitter | None = None,
    lengths: np.ndarray | None = None,
    scores: ScoreTable | None = None,
    score_missing: bool = True,
) -> ScoringPlan | None:
    """Refuse, before any model loads, what would fail after scoring: the output folder,
    added columns, output options, the scoring options (with ``score_missing=False``, a split
    that never scores, any scoring option set at all), and the split itself (sizes, label
    quotas, groups, atom coverage), tried on a placeholder score column. Returns the scoring
    plan when the run will score."""
    check_output(dataset, config, scores_path)
    warn_repeated_queries(dataset, config)
    planned = build_splitter(config.split) if splitter is None else splitter
    if not score_missing and not (planned.needs_scores and scores is None and scores_path is None):
        refuse_unused_scoring(config.scoring)
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
        # whole groups' label misses depend on the real scores: judged after scoring, not here
        balanced = getattr(planned, "balance_labels", False)
        trial = type(planned)(**{**planned.get_params(), "label_tolerance": 1.0}) if balanced else planned
        split_dataset(dataset, placeholder, config.split, programs, splitter=trial, lengths=lengths)
        return plan
    return None


def check_output(dataset: Dataset, config: RunConfig, scores_path: str | Path | None) -> None:
    """The output folder, its format, the analysis options and the size of its null distributions."""
    output = config.output
    if output.out is not None:
        inputs = [*dataset.input_paths, *([scores_path] if scores_path is not None else [])]
        caches = [config.scoring.cache_dir] if config.scoring.cache_dir else []
        check_output_folder(output.out, overwrite=output.overwrite, inputs=inputs, caches=caches)
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
    if output.analyze:
        n_dev, n_test = resolve_sizes(len(dataset), config.split.dev_size, config.split.test_size)
        check_null_size(output.null_splits, n_dev + n_test)


# Scoring options that a run reads without a model too (where scores and encoders are cached, on which device).
_WITHOUT_A_MODEL = ("cache_dir", "use_cache", "device")


def refuse_unused_scoring(scoring: ScoringConfig) -> None:
    """A scoring option set (off its default) for a run that scores nothing — a split whose
    scores come from a file or a field, or a splitter that reads none — is refused, not ignored."""
    default = ScoringConfig()
    for f in dataclasses.fields(scoring):
        value = getattr(scoring, f.name)
        if f.name not in _WITHOUT_A_MODEL and value != getattr(default, f.name):
            raise ConfigError(
                f"{flag_of(f.name)}={value!r} ([scoring] {f.name}) has an effect only when the run scores with a "
                "model, and this one scores nothing; drop it, or use tailsplit run"
            )


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


def build_splitter(config: SplitConfig, dataset: Dataset | None = None) -> Splitter:
    """The configured splitter, its options checked (and, given the ``dataset``, that it
    has the programs the splitter needs)."""
    check_values(config)
    cls = SPLITTERS[config.splitter]
    if config.encoder is not None and not cls.needs_features:
        raise ConfigError(
            f"--encoder={config.encoder!r} does not apply to --splitter={config.splitter!r}; only aflite uses an encoder"
        )
    accepted = list(cls().get_params())
    splitter = make_splitter(config.splitter, **config.splitter_params(accepted))
    logger.debug("splitter %s with %s", config.splitter, splitter.get_params())
    if dataset is not None and splitter.needs_programs and dataset.programs is None:
        raise ConfigError(
            f"--splitter={config.splitter!r} with these options needs programs; name the "
            "program field with --program (e.g. --program 'query' for Spider)"
        )
    return splitter


class DatasetSplit(NamedTuple):
    """What splitting a dataset gives: the split, the splitter used and each example's word
    length (unpacks as the three)."""

    split: SplitIndices
    splitter: Splitter
    lengths: np.ndarray


@keyword_spelling
def split_dataset(
    dataset: Dataset,
    scores: ScoreTable | None,
    config: SplitConfig,
    programs: ProgramFeatures | None = None,
    *,
    splitter: Splitter | None = None,
    lengths: np.ndarray | None = None,
) -> DatasetSplit:
    """The split, the splitter used and the word length of each example; ``splitter`` and
    ``lengths`` when the caller has built them already."""
    splitter = build_splitter(config) if splitter is None else splitter
    if splitter.needs_scores and scores is None:
        raise ConfigError(f"--splitter={config.splitter!r} needs scores; pass --scores or use tailsplit run")
    lengths = word_lengths(dataset.texts) if lengths is None else lengths
    inputs = SplitInputs.from_dataset(dataset, scores, lengths, programs)
    if splitter.needs_features:
        if dataset.labels is None:  # before any encoder loads
            raise ConfigError(
                f"--splitter={config.splitter!r} needs labels (its classifiers predict them); pass --label"
            )

        source = EncoderSource.resolve(config.encoder)
        inputs = dataclasses.replace(inputs, features=sentence_features(dataset, config.encoder))
        split = splitter.split(inputs)
        details = {**split.details, "encoder": source.name, "encoder_sha256": source.identity}
        return DatasetSplit(dataclasses.replace(split, details=details), splitter, lengths)
    return DatasetSplit(splitter.split(inputs), splitter, lengths)


@released_on_error
@keyword_spelling
def run(
    config: RunConfig,
    *,
    scores_path: str | Path | None = None,
    progress: bool = False,
    command: list[str] | None = None,
    score_missing: bool = True,
    analyze_in_memory: bool = False,
) -> RunResult:
    """``tailsplit run`` (score, then split) or ``tailsplit split`` (``score_missing=False``: it
    scores nothing; ``scores_path``); with ``analyze_in_memory``, the analysis is made in memory."""
    timings: dict[str, float] = {}
    clock = time.perf_counter()
    dataset = load_dataset(config)
    timings["load_s"] = time.perf_counter() - clock
    logger.debug("read %d examples in %.2f s; options: %s", len(dataset), timings["load_s"], changed_options(config))
    planned = build_splitter(config.split, dataset)
    given_scores = _given_scores(dataset, config, scores_path, needs=planned.needs_scores and not score_missing)
    clock = time.perf_counter()
    programs = dataset_program_features(dataset, config.data.program_kind, config.data.count)
    timings["programs_s"] = time.perf_counter() - clock
    counts, lengths = _query_lengths(dataset, config)
    plan = check_before_work(
        dataset,
        config,
        scores_path=scores_path,
        programs=programs,
        splitter=planned,
        lengths=lengths,
        scores=None if given_scores is None else given_scores[0],
        score_missing=score_missing,
    )
    clock, scores, report = time.perf_counter(), None, None
    meta: dict[str, Any] = {}
    if given_scores is not None:
        scores, meta = given_scores
    elif scores_path is not None:
        scores, meta = _score_file(scores_path, dataset, config)
    elif planned.needs_scores:
        scores, report, meta = score_dataset(dataset, config.scoring, progress=progress, plan=plan)
    timings["score_s"] = time.perf_counter() - clock
    clock = time.perf_counter()
    split, splitter, lengths = split_dataset(dataset, scores, config.split, programs, splitter=planned, lengths=lengths)
    timings["split_s"] = time.perf_counter() - clock
    summaries = summarize_split(dataset, split, lengths, scores)
    metrics = [] if programs is None else program_metrics(programs, split)
    manifest = run_manifest(
        config,
        dataset,
        split,
        splitter,
        summaries,
        scoring=(meta, report),
        programs=(programs, metrics),
        command=command,
    )
    result = RunResult(
        dataset, scores, split, summaries, manifest, timings=timings, programs=programs, program_metrics=metrics
    )
    return _finished(result, config, counts, analyze_in_memory)


def _given_scores(
    dataset: Dataset, config: RunConfig, scores_path: str | Path | None, *, needs: bool
) -> tuple[ScoreTable, dict[str, Any]] | None:
    """Scores from a column of the data (``--score-column``), checked against the other ways
    of giving scores; ``needs``: the splitter needs scores and this command does not score."""
    given = None
    if config.data.score_column is not None:
        if scores_path is not None:
            raise ConfigError("--score-column and --scores both give scores; pass one")
        given = scores_from_column(dataset, config.data.score_column, model_name=config.data.model_name)
    elif config.data.model_name is not None and scores_path is None:
        raise ConfigError("--model-name names the model of scores given with --scores or --score-column; give one")
    if needs and scores_path is None and given is None:
        raise ConfigError(
            f"--splitter={config.split.splitter!r} needs scores; pass --scores FILE (written by "
            "tailsplit score), or use tailsplit run, which scores with the LM first"
        )
    return given


def _score_file(path: str | Path, dataset: Dataset, config: RunConfig) -> tuple[ScoreTable, dict[str, Any]]:
    """Scores from a file of ``tailsplit score`` (or the minimal external format) and what the
    manifest records about them."""
    scores, meta = read_score_file(path, dataset, model_name=config.data.model_name)
    meta = {k: meta[k] for k in ("method", "model", "template", "backend", "folds") if k in meta}
    meta["scores_file"] = {"path": str(path), "sha256": sha256_file(path)}
    return scores, meta


def _finished(result: RunResult, config: RunConfig, counts: TextCounts | None, analyze_in_memory: bool) -> RunResult:
    """The result written (with ``out``), analysed in memory (when asked), or as it is; labels
    that whole groups left off their quotas said first."""
    for line in shortfall_lines(result.split.details.get("label_quotas")):
        logger.info("labels with whole groups: %s", line)
    if config.output.out is not None:
        return _written(result, config, counts)
    if analyze_in_memory:
        return dataclasses.replace(result, analysis=_analysis_of_run(result, config, counts))
    return result


def _written(result: RunResult, config: RunConfig, counts: TextCounts | None) -> RunResult:
    """The run analysed (unless ``--no-analyze``) and written to its output folder."""
    assert config.output.out is not None
    timings = result.timings
    if config.output.analyze:
        clock = time.perf_counter()
        result = dataclasses.replace(result, analysis=_analysis_of_run(result, config, counts))
        timings["analyze_s"] = time.perf_counter() - clock
    clock = time.perf_counter()
    result = result.write(config.output.out, overwrite=config.output.overwrite)
    timings["write_s"] = time.perf_counter() - clock
    return result


def _query_lengths(dataset: Dataset, config: RunConfig) -> tuple[TextCounts | None, np.ndarray]:
    """The queries' word lengths (:func:`tailsplit.words.word_lengths`), and their text counts
    when an analysis of the queries follows: then the queries are tokenised once, for both
    (the counts' ``words`` are the same lengths)."""
    counts = _query_text_counts(dataset, config)
    return counts, word_lengths(dataset.texts) if counts is None else counts.words


def _query_text_counts(dataset: Dataset, config: RunConfig) -> TextCounts | None:
    """The queries' text counts when an analysis of the queries follows (and its extra is
    installed); their ``words`` are the lengths."""
    if config.output.out is None or not config.output.analyze or config.output.analysis_text == "pair":
        return None

    try:
        return compute_text_counts(dataset.texts)
    except MissingDependencyError:
        return None


def _analysis_of_run(result: RunResult, config: RunConfig, counts: TextCounts | None) -> Any:
    """The split's analysis (``None``, with a note, if the analysis extra is not installed);
    ``counts`` are the queries' text counts, when computed already."""
    try:
        return analysis_of_run(result, config, counts)
    except MissingDependencyError as exc:
        logger.info(f"no analysis report ({exc})")
        return None
