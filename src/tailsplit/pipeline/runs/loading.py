"""Scoring in a run: the examples loaded, the scoring checked and planned once (template,
scorer, engine), the scores computed (prompted, n-gram or k-fold), and ``tailsplit score``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from tailsplit.cache import ScoreCache, check_cache_layout, default_cache_dir
from tailsplit.config import RunConfig, ScoringConfig, check_values
from tailsplit.core import Dataset, ScoreTable
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.io.examples import load_examples
from tailsplit.io.hf import load_hub_dataset
from tailsplit.io.outputs import check_cache_folder
from tailsplit.pipeline.runs.calibration import KnownTexts, calibrate, plan_calibration
from tailsplit.pipeline.runs.checks import check_template_fields
from tailsplit.progress import announce
from tailsplit.prompts import PromptTemplate, resolve_template
from tailsplit.registry import SCORERS
from tailsplit.scoring.crossfit import cross_score_dataset
from tailsplit.scoring.distributed import RayScoringEngine
from tailsplit.scoring.driver import score_examples
from tailsplit.scoring.membership import membership_record


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
        return load_examples(load_hub_dataset(data.dataset), data.field_map())
    if not data.paths:
        raise ConfigError("paths=[] names no data file; pass one or more data files (or a table, or --dataset)")
    return load_examples(data.paths, data.field_map())


def template_for(config: ScoringConfig) -> PromptTemplate:
    return resolve_template(config.template, config.label_words)


@dataclass(frozen=True)
class ScoringPlan:
    """What scores a run, built once (no model loads until the first batch): the template,
    the backend's scorer (prompted scoring's, or the base model of k-fold fine-tuning;
    ``None`` for n-gram scoring), the engine, and the reference model's scorer of the
    membership scores (``--membership-reference``) and the texts of their calibration."""

    template: PromptTemplate
    scorer: Any
    engine: Any
    reference: Any = None
    known: KnownTexts | None = None  # --members and --non-members, loaded


@keyword_spelling
class ScoredDataset(NamedTuple):
    """What scoring a dataset gives: the scores, a report of the work done, and what the
    manifest records about how the scores were made (unpacks as the three)."""

    scores: ScoreTable
    report: dict[str, Any]
    meta: dict[str, Any]


def _scoring_plan_text(n: int, config: ScoringConfig) -> str:
    """What scoring is about to do, said before the model loads.

    >>> _scoring_plan_text(300, ScoringConfig())
    'scoring 300 examples with smollm2 (prompted)'
    """
    if config.method == "ngram":
        return f"scoring {n:,} examples with an n-gram model per fold ({config.folds} folds)"
    if config.method == "kfold":
        return (
            f"fine-tuning {config.model} on {config.folds} folds, then scoring {n:,} examples (loading the model first)"
        )
    return f"scoring {n:,} examples with {config.model} (prompted)"


def score_dataset(
    dataset: Dataset,
    config: ScoringConfig,
    *,
    progress: bool = False,
    plan: ScoringPlan | None = None,
) -> ScoredDataset:
    """Scores of every example, a report of the work done, and what the manifest records
    about how the scores were made (``plan``: from :func:`plan_scoring`, when checked already)."""
    plan = plan_scoring(dataset, config) if plan is None else plan
    template, scorer, engine = plan.template, plan.scorer, plan.engine
    announce(progress, _scoring_plan_text(len(dataset), config))
    if config.method != "prompted":
        return ScoredDataset(*cross_score_dataset(dataset, template, config, progress, base=scorer))
    cache = ScoreCache(config.cache_dir or default_cache_dir()) if config.use_cache else None
    try:
        scores, report = score_examples(
            dataset, template, scorer, cache, progress=progress, engine=engine, tokens=config.token_scores,
            membership_k=config.membership_k, reference=plan.reference,
        )  # fmt: skip
        calibration = None
        if plan.known is not None:
            calibration = calibrate(plan.known, template, scorer, cache, config, reference=plan.reference,
                                    progress=progress)  # fmt: skip
    finally:
        if cache is not None:
            cache.close()
    meta = {
        "method": "prompted",
        "model": scorer.identity(),
        "template": template.describe(),
        "backend": config.backend,
        **(
            {}
            if config.membership_k is None
            else {"membership": membership_record(config.membership_k, plan.reference, calibration)}
        ),
    }
    if hasattr(scorer, "resolved_implementation"):  # what --implementation auto chose, and where
        meta["implementation"] = scorer.resolved_implementation()
        if engine is None:  # Ray's workers resolve their own
            meta["device"] = scorer.resolved_device()
    details = report.as_dict()
    if engine is not None and engine.last_run:
        details["engine"] = engine.last_run
    return ScoredDataset(scores, details, meta)


def scoring_engine(config: ScoringConfig) -> Any:
    """``None`` for this process, or the Ray engine (prompted Hugging Face scoring only)."""
    if config.engine == "local":
        return None
    if config.method != "prompted" or config.backend != "hf":
        raise ConfigError(
            "--engine ray scores with --method prompted --backend hf only; fine-tuned "
            "and n-gram scoring run in one process (drop --engine ray)"
        )

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
            raise ConfigError(f"--template={template.name!r} uses {{{role}}}; name that field with {option}")
    template.check_labels(None if dataset.labels is None else set(dataset.labels), config.label_words)
    check_template_fields(dataset, template)
    if config.cache_dir is not None:
        check_cache_folder(config.cache_dir, markers=None, inputs=dataset.input_paths, option="--cache-dir")
    check_cache_layout(Path(config.cache_dir).expanduser() if config.cache_dir else default_cache_dir())
    engine = scoring_engine(config)
    scorer = reference = None
    if config.method != "ngram":  # the constructor checks its options; the model loads later
        params = config.scorer_params(SCORERS.get(config.backend))
        moments = {"head_moments": True} if config.membership_k is not None else {}  # Min-K%++ (an HF scorer)
        scorer = SCORERS.create(config.backend, **params, **moments)
        if config.membership_reference is not None:
            reference = SCORERS.create(config.backend, **{**params, "model": config.membership_reference})
    known = plan_calibration(dataset, config, template)
    return ScoringPlan(template, scorer, engine, reference, known)
