"""``tailsplit evaluate``: baselines trained on each split, compared with random splits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.analysis.leakage import DuplicateKeys
from tailsplit.analysis.split_dir import describe_split, no_annotations, read_split_parts, record_agreement
from tailsplit.cache import ScoreCache, default_cache_dir
from tailsplit.config import EvaluateConfig, RunConfig, check_values, config_from_keywords
from tailsplit.core import SPLIT_PARTS
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.evaluation.baselines import (
    TRAINERS,
    PartInputs,
    TrainingContext,
    baselines_for,
    reference_results,
)
from tailsplit.evaluation.conclusions import conclusions
from tailsplit.evaluation.fairness import SplitAgreement, fairness
from tailsplit.evaluation.predictions import given_prediction_rows, score_predictions
from tailsplit.evaluation.samples import below_chance_warnings, prediction_rows
from tailsplit.evaluation.table import SplitScore, table_rows
from tailsplit.evaluation.zero_shot import check_zero_shot, zero_shot_classify
from tailsplit.fields import field_value
from tailsplit.io.claims import released_on_error
from tailsplit.io.examples import label_to_str
from tailsplit.io.manifest import Manifest
from tailsplit.io.outputs import check_output_folder
from tailsplit.pipeline.evaluate_models import check_models
from tailsplit.pipeline.evaluate_result import EvaluationResult
from tailsplit.pipeline.result import folders_of
from tailsplit.pipeline.scoring import template_for
from tailsplit.registry import SCORERS


def _part_inputs(records: list[Any], data: dict[str, Any], input_fields: list[str]) -> PartInputs:
    fields = input_fields or [f for f in (data.get("context"), data.get("text")) if f]
    for raw in records:
        for name in fields + [f for f in (data.get("label"), data.get("program")) if f]:
            if not raw.has(name):
                raise raw.error("is missing", field=name, fix="evaluate the folder tailsplit wrote, unchanged")
    return PartInputs(
        columns=tuple(tuple(str(r.value(f)) for r in records) for f in fields),
        labels=tuple(label_to_str(r.value(data["label"])) for r in records) if data.get("label") else None,
        programs=tuple(str(r.value(data["program"])) for r in records) if data.get("program") else None,
    )


@released_on_error
@keyword_spelling
def evaluate_config(config: EvaluateConfig, *, command: list[str] | None = None) -> EvaluationResult:
    """Train and score every requested baseline on every split (or score the given
    predictions): the comparison table, conclusions and fairness table, written when
    ``config.out`` is set."""
    check_values(config)

    if not config.split_dirs:
        raise ConfigError("evaluate needs at least one split folder")
    if not 0.0 <= config.leakage_threshold <= 1.0:
        raise ConfigError(f"--leakage-threshold={config.leakage_threshold!r} must lie in [0, 1]")
    if config.predictions and len(config.predictions) != len(config.split_dirs):
        raise ConfigError(
            f"--predictions names {len(config.predictions)} files for {len(config.split_dirs)} split "
            "folders; give one predictions file per folder, in the same order"
        )
    if config.out is not None:
        check_output_folder(config.out, overwrite=config.overwrite, inputs=[*config.split_dirs, *config.predictions])
    folders = [read_split_parts(folder, accept_modified=config.accept_modified) for folder in config.split_dirs]
    check_comparable(config.split_dirs, [manifest for manifest, _ in folders])  # every folder read before training
    if not config.predictions:
        _check_trainable(config, folders)
    agreement = _test_agreement(config, folders)
    models = check_models(config, [m for m, _ in folders])
    files: dict[str, str | bytes] = {}
    leakage: dict[str, dict[str, float]] = {}
    predictions: list[dict[str, Any]] = []
    try:
        if config.predictions:
            scored = [
                score_predictions(folder, describe_split(manifest), manifest, parts["test"], path, config.bucket)
                for folder, (manifest, parts), path in zip(config.split_dirs, folders, config.predictions)
            ]
            scores, details, files = given_prediction_rows(scored, config.bucket)
        else:
            scores, details, predictions, leakage = _trained_baselines(config, folders, models)
    finally:
        models.close()
    evaluation = EvaluationResult(
        config, _findings(config, folders, scores, details, leakage, agreement, models), predictions, files
    )
    return (
        evaluation if config.out is None else evaluation.write(config.out, overwrite=config.overwrite, command=command)
    )


def _trained_baselines(
    config: EvaluateConfig, folders: list[tuple[Manifest, dict[str, list[Any]]]], models: Any
) -> tuple[list[SplitScore], list[dict[str, Any]], list[dict[str, Any]], dict[str, dict[str, float]]]:
    """Every requested baseline trained on each split's train part and scored on its test
    part: (scores, per-result details, per-example predictions, test leakage per folder)."""

    scores, details, predictions = [], [], []
    leakage: dict[str, dict[str, float]] = {}
    for folder, (manifest, parts) in zip(config.split_dirs, folders):
        data = manifest.config.data
        train, dev, test = (_part_inputs(parts[p], data, config.input_fields) for p in ("train", "dev", "test"))
        leakage[Path(folder).name] = _test_leakage(parts, data)
        test_ids = tuple(label_to_str(field_value(r.record, data.get("id") or "id", r.row)) for r in parts["test"])
        context = TrainingContext(data, manifest, models, config.seed)
        results = [_zero_shot(manifest, parts, config)] if config.zero_shot else []
        results += [
            TRAINERS[name](train, dev, test, context)
            for name in baselines_for(data, config.baselines, config.input_fields)
        ]
        if train.labels is not None and any(r.metric == "accuracy" for r in results):
            results += reference_results(train, dev, test)
        kind, sizes = describe_split(manifest), [len(train), len(dev), len(test)]
        gold = test.labels or test.programs or ()
        for r in results:
            predictions += prediction_rows(Path(folder).name, kind, r, test_ids, gold)
            scores.append(
                SplitScore(Path(folder).name, kind, r.baseline, r.metric, r.dev, r.test, test_ids, r.test_correct)
            )
            details.append({"folder": str(folder), "split": kind, "sizes": sizes, **r.as_dict()})
    return scores, details, predictions, leakage


def _findings(
    config: EvaluateConfig,
    folders: list[tuple[Manifest, dict[str, list[Any]]]],
    scores: list[SplitScore],
    details: list[dict[str, Any]],
    leakage: dict[str, dict[str, float]],
    agreement: list[SplitAgreement],
    models: Any,
) -> dict[str, Any]:
    """What the scores show: the table, warnings, conclusions and the fairness table."""
    for d in details:
        d["test_queries_in_train"] = leakage.get(Path(d["folder"]).name)
    rows = table_rows(scores)
    warnings = leakage_warnings(scores, leakage, config.leakage_threshold, data_text=_text_field(folders))
    test_sizes = {Path(d["folder"]).name: d["sizes"][2] for d in details if d.get("sizes")}
    found = conclusions(rows, test_sizes, [w for w in warnings if "inflates" in w], config.leakage_threshold)
    warnings += below_chance_warnings(rows, test_sizes)
    fair = fairness(
        scores,
        agreement,
        test_sizes,
        margin=config.fairness_margin,
        aflite_encoder_matches=_same_encoder(config, models.identity, [m for m, _ in folders]),
    )
    return {
        "models": models.describe(),
        "results": details,
        "table": rows,
        "conclusions": [c.as_dict() for c in found],
        "fairness": None if fair is None else fair.as_dict(),
        "leakage_warnings": warnings,
    }


def _check_trainable(config: EvaluateConfig, folders: list[tuple[Manifest, dict[str, list[Any]]]]) -> None:
    """Refuse, before any training, a classifier baseline on a split whose train part has no
    labels or a single label (a classifier needs two classes to learn anything)."""
    for folder, (manifest, parts) in zip(config.split_dirs, folders):
        data = manifest.config.data
        classifiers = [b for b in baselines_for(data, config.baselines, config.input_fields) if b != "nn-sql"]
        if not classifiers:
            continue
        if not data.get("label"):
            raise ConfigError(
                f"--baseline={classifiers[0]!r} and the other baselines that classify labels need a label field, "
                f"but {folder!r} was split without --label; split with --label, or use --predictions"
            )
        labels = {label_to_str(raw.value(data["label"])) for raw in parts["train"] if raw.has(data["label"])}
        if len(labels) < 2:
            raise ConfigError(
                f"the train part of {folder!r} holds {len(labels)} label(s) ({sorted(labels)!r}); "
                f"--baseline={classifiers[0]!r} needs at least two classes to learn; split more data"
            )


def _same_encoder(config: EvaluateConfig, identity: str, manifests: list[Manifest]) -> bool:
    """Whether every AFLite split among ``manifests`` filtered with the encoder the embed and
    encoder baselines use (its recorded weights hash; the option's value for older folders)."""
    for manifest in manifests:
        splitter = manifest.splitter
        if splitter.name != "aflite":
            continue
        recorded = splitter.details.get("encoder_sha256")
        if recorded is not None and recorded != identity:
            return False
        if recorded is None and manifest.config.split.get("encoder") != config.encoder:
            return False
    return True


def _test_agreement(
    config: EvaluateConfig, folders: list[tuple[Manifest, dict[str, list[Any]]]]
) -> list[SplitAgreement]:
    """Annotator agreement with gold of every test example (``--agreement-field``), read and
    checked before anything trains; a field no test example of any split holds is refused."""

    if config.agreement_field is None:
        return []
    out = []
    for folder, (manifest, parts) in zip(config.split_dirs, folders):
        data = manifest.config.data
        if not data.get("label"):
            raise ConfigError(
                f"--agreement-field={config.agreement_field!r} compares annotators with the gold label, but "
                f"{folder!r} was split without --label; split with --label"
            )
        test = parts["test"]
        out.append(
            SplitAgreement(
                Path(folder).name,
                describe_split(manifest),
                tuple(label_to_str(field_value(r.record, data.get("id") or "id", r.row)) for r in test),
                tuple(
                    record_agreement(r, config.agreement_field, label_to_str(r.value(data["label"])))[0] for r in test
                ),
            )
        )
    if not any(a.annotated for a in out):
        raise no_annotations(config.agreement_field, "test example of any split")
    return out


def check_comparable(split_dirs: list[str], manifests: list[Manifest]) -> None:
    """Refuse a table that would compare what cannot be compared: one folder named twice (or
    two copies of one split), or splits of different data (their inputs' hashes differ)."""
    import os

    seen: dict[str, str] = {}
    for folder, manifest in zip(split_dirs, manifests):
        parts = {k: v for k, v in manifest.outputs.items() if k.split(".")[0] in SPLIT_PARTS}
        for key in (os.path.realpath(folder), json.dumps(parts, sort_keys=True)):
            if key in seen:
                raise ConfigError(
                    f"the split folders name the same split twice ({seen[key]!r} and {folder!r}); "
                    "give each split once (random baselines need different seeds)"
                )
            seen[key] = folder
    inputs = [_data_identity(m) for m in manifests]
    for folder, identity in zip(split_dirs[1:], inputs[1:]):
        if identity != inputs[0]:
            raise ConfigError(
                f"{folder!r} splits other data than {split_dirs[0]!r} (the inputs' hashes differ); "
                "evaluate compares splits of one dataset, so give splits made from the same data"
            )


def _data_identity(manifest: Manifest) -> list[str]:
    """The sorted content hashes of a split's inputs (files or an in-memory table)."""
    return sorted(i.identity for i in manifest.inputs)


def _test_leakage(parts: dict[str, list[Any]], data: dict[str, Any]) -> dict[str, float]:
    """Share of the test part whose query occurs in train, exactly and normalised."""

    text = data.get("text")
    if not text:
        return {}
    records = [r for p in ("train", "test") for r in parts[p]]
    keys = DuplicateKeys.build([str(field_value(r.record, text, "")) for r in records], near=False)
    train = np.arange(len(records)) < len(parts["train"])
    return {match: round(keys.share(match, train, ~train), 6) for match in ("exact", "normalized")}


def _text_field(folders: list[tuple[Manifest, Any]]) -> str:
    return next((m.config.data.get("text") for m, _ in folders), None) or "TEXT"


def leakage_warnings(
    scores: list[SplitScore], leakage: dict[str, dict[str, float]], threshold: float, *, data_text: str
) -> list[str]:
    """One line per random split whose test queries occur in train (normalised) beyond ``threshold``."""
    out = []
    for folder in dict.fromkeys(s.folder for s in scores if s.is_random):
        share = leakage.get(folder, {}).get("normalized")
        if share is not None and share > threshold:
            out.append(
                f"warning: random split {folder}: {100 * share:.1f}% of its test queries also occur in train "
                f"(normalised; threshold {100 * threshold:.1f}%), which inflates its baselines and every "
                f"increase measured against it; split with --group {data_text}"
            )
    return out


def _zero_shot(manifest: Manifest, parts: dict[str, list[Any]], config: EvaluateConfig) -> Any:
    """The split's own LM, with the split's scoring settings, as a zero-shot classifier."""

    data = manifest.config.data
    scoring = RunConfig.from_dict(dict(manifest.config.values), strict=False).scoring
    scoring.method = "prompted"
    if config.zero_shot_template:
        scoring.template = config.zero_shot_template
    template = template_for(scoring)
    check_zero_shot(data, template)
    labels = sorted({label_to_str(r.value(data["label"])) for r in parts["train"]}) if data.get("label") else []
    scorer = SCORERS.create(scoring.backend, **scoring.scorer_params(SCORERS.get(scoring.backend)))
    cache = ScoreCache(scoring.cache_dir or default_cache_dir()) if scoring.use_cache else None
    try:
        return zero_shot_classify(parts["test"], labels, data, template, scorer, cache)
    finally:
        if cache is not None:
            cache.close()


@keyword_spelling
def evaluate(splits: Any, **options: Any) -> EvaluationResult:
    """``tailsplit evaluate``: baselines trained on each split's train part and scored on its
    test part, compared with the random splits among ``splits`` (split folders, or results of
    :func:`~tailsplit.likelihood_split` / :func:`~tailsplit.split`; one split as itself). ``options``
    are ``evaluate``'s (``baselines``, ``max_train``, ``max_steps``, ``seed``, ``out``, ...);
    nothing is written unless ``out`` is given (or ``result.write(out)`` is called).

    >>> tailsplit.evaluate(["snli-ll", "snli-random-0"], baselines=["tfidf"]).to_pandas()  # doctest: +SKIP
    """
    folders = folders_of(splits)
    return evaluate_config(config_from_keywords(EvaluateConfig, options, given={"split_dirs": folders}))
