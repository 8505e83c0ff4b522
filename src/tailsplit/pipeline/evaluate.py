"""``tailsplit evaluate``: baselines trained on each split, compared with random splits."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.config import EvaluateConfig
from tailsplit.errors import ConfigError, MissingDependencyError
from tailsplit.evaluate.baselines import BASELINES, PartInputs, nearest_neighbour_sql, tfidf_logistic
from tailsplit.evaluate.table import SplitScore, table_csv, table_markdown, table_rows
from tailsplit.fingerprint import sha256_file
from tailsplit.io.examples import label_to_str
from tailsplit.io.outputs import check_output_folder, strict_json
from tailsplit.pipeline.records import write_outputs


def _part_inputs(records: list[Any], data: dict[str, Any], input_fields: list[str]) -> PartInputs:
    fields = input_fields or [f for f in (data.get("context"), data.get("text")) if f]
    for raw in records:
        for name in fields + [f for f in (data.get("label"), data.get("program")) if f]:
            if name not in raw.record:
                raise raw.error("is missing", field=name, fix="evaluate the folder tailsplit wrote, unchanged")
    return PartInputs(columns=tuple(tuple(str(r.record[f]) for r in records) for f in fields),
                      labels=tuple(label_to_str(r.record[data["label"]]) for r in records) if data.get("label") else None,
                      programs=tuple(str(r.record[data["program"]]) for r in records) if data.get("program") else None)


def baselines_for(data: dict[str, Any], requested: list[str], input_fields: list[str]) -> list[str]:
    if requested:
        unknown = [b for b in requested if b not in BASELINES]
        if unknown:
            raise ConfigError(f"baseline={unknown[0]!r} is not one of {', '.join(BASELINES)}")
        return requested
    if data.get("program"):
        return ["nn-sql"]
    return ["tfidf", "tfidf-text"] if data.get("context") or len(input_fields) > 1 else ["tfidf"]


def evaluate(config: EvaluateConfig, *, command: list[str] | None = None) -> dict[str, Any]:
    """Train and score every requested baseline on every split (or score the given
    predictions); the comparison table."""
    from tailsplit.analysis.split_dir import describe_split, read_split_parts
    from tailsplit.registry import EXTRACTORS

    if not config.split_dirs:
        raise ConfigError("evaluate needs at least one split folder")
    if config.predictions and len(config.predictions) != len(config.split_dirs):
        raise ConfigError(f"--predictions names {len(config.predictions)} files for {len(config.split_dirs)} split "
                          "folders; give one predictions file per folder, in the same order")
    if config.out is not None:
        check_output_folder(config.out, overwrite=config.overwrite, inputs=[*config.split_dirs, *config.predictions])
    scores, details, scored = [], [], []
    for position, folder in enumerate(config.split_dirs):
        manifest, parts = read_split_parts(folder)
        data = manifest.get("config", {}).get("data", {})
        if config.predictions:
            scored.append(_scored_predictions(folder, manifest, parts["test"], config.predictions[position], config.bucket))
            continue
        train, dev, test = (_part_inputs(parts[p], data, config.input_fields) for p in ("train", "dev", "test"))
        if config.zero_shot:
            result = _zero_shot(manifest, parts, config)
            kind = describe_split(manifest)
            scores.append(SplitScore(Path(folder).name, kind, result.baseline, result.metric, result.dev, result.test))
            details.append({"folder": str(folder), "split": kind, "sizes": [len(parts[p]) for p in ("train", "dev", "test")],
                            **result.as_dict()})
        for baseline in baselines_for(data, config.baselines, config.input_fields):
            if baseline == "nn-sql":
                result = nearest_neighbour_sql(train, dev, test, EXTRACTORS.create(data.get("program_kind") or "sql"))
            else:
                result = tfidf_logistic(train, dev, test, text_only=baseline == "tfidf-text", seed=config.seed)
            kind = describe_split(manifest)
            scores.append(SplitScore(Path(folder).name, kind, result.baseline, result.metric, result.dev, result.test))
            details.append({"folder": str(folder), "split": kind, "sizes": [len(train), len(dev), len(test)],
                            **result.as_dict()})
    files: dict[str, str] = {}
    if scored:
        scores, details, files = _prediction_rows(scored, config.bucket)
    rows = table_rows(scores)
    result = {"results": details, "table": rows}
    if config.out is not None:
        inputs = [{"path": str(Path(f) / "manifest.json"), "sha256": sha256_file(Path(f) / "manifest.json")}
                  for f in config.split_dirs]
        manifest = write_outputs(Path(config.out), config, {"evaluation.json": strict_json(result),
                                                             "table.md": table_markdown(rows), "table.csv": table_csv(rows),
                                                             **_html_report(rows), **files},
                                 inputs, {}, command)
        result["outputs"] = list(manifest["outputs"])
    return result


def _scored_predictions(folder: str, manifest: dict[str, Any], test_records: list[Any], path: str,
                        bucket: str | None) -> Any:
    """Correctness and bucket of every test example under the predictions in ``path``."""
    from tailsplit.analysis.split_dir import describe_split
    from tailsplit.evaluate.predictions import ScoredPredictions
    from tailsplit.io.readers import read_records
    from tailsplit.registry import EXTRACTORS

    data = manifest.get("config", {}).get("data", {})
    id_field, gold_field = data.get("id") or "id", data.get("program") or data.get("label")
    if gold_field is None:
        raise ConfigError(f"split_dir={folder!r} has neither labels nor programs to score predictions against")
    predicted = {}
    for raw in read_records(path):
        for name in (id_field, "prediction"):
            if name not in raw.record:
                raise raw.error("is missing", field=name, fix="give every prediction the example's id and a prediction")
        predicted[label_to_str(raw.record[id_field])] = raw.record["prediction"]
    extractor = EXTRACTORS.create(data.get("program_kind") or "sql") if data.get("program") else None
    correct, buckets = [], []
    for raw in test_records:
        key = label_to_str(raw.record[id_field])
        if key not in predicted:
            raise ConfigError(f"predictions {path!r} have no prediction for test id {key!r} of {folder!r}; "
                              "predict every test example of the split")
        gold = raw.record[gold_field]
        if extractor is not None:
            correct.append(_program_match(extractor, str(predicted[key]), extractor.canonical(str(gold))))
            buckets.append(extractor.parse(str(gold)).hardness if bucket in (None, "hardness")
                           else label_to_str(raw.record.get(bucket)))
        else:
            correct.append(label_to_str(predicted[key]) == label_to_str(gold))
            buckets.append(label_to_str(raw.record.get(bucket or data["label"])))
    return ScoredPredictions(Path(folder).name, describe_split(manifest), np.asarray(correct, dtype=float), tuple(buckets),
                             "exact match" if extractor is not None else "accuracy")


def _program_match(extractor: Any, predicted: str, gold_canonical: str) -> bool:
    from tailsplit.programs.base import ProgramError

    try:
        return extractor.canonical(predicted) == gold_canonical
    except ProgramError:
        return False          # a prediction that does not parse is wrong, not an input error


def _prediction_rows(scored: list[Any], bucket: str | None) -> tuple[list[SplitScore], list[dict[str, Any]], dict[str, str]]:
    from tailsplit.evaluate.predictions import predictions_markdown, projected_accuracy, random_bucket_accuracy

    reference = random_bucket_accuracy(scored)
    scores, details = [], []
    for s in scored:
        test = float(s.correct.mean()) if len(s.correct) else float("nan")
        scores.append(SplitScore(s.folder, s.kind, "predictions", s.metric, float("nan"), test))
        details.append({"folder": s.folder, "split": s.kind, "baseline": "predictions", "test": round(test, 4),
                        "projected": None if s.is_random else projected_accuracy(s, reference),
                        "buckets": {b: {"n": n, "share": round(n / len(s.correct), 4), "accuracy": round(acc, 4)}
                                    for b, (n, acc) in s.by_bucket().items()}})
    return scores, details, {"predictions.md": predictions_markdown(details, bucket or "bucket")}


def _zero_shot(manifest: dict[str, Any], parts: dict[str, list[Any]], config: EvaluateConfig) -> Any:
    """The split's own LM as a classifier: each label's verbalisation scored through the
    template, the most likely one predicted (test accuracy; nothing is trained or selected,
    so dev is not scored)."""
    from tailsplit.cache import ScoreCache, default_cache_dir
    from tailsplit.config import ScoringConfig
    from tailsplit.evaluate.baselines import BaselineResult
    from tailsplit.pipeline.runs import template_for
    from tailsplit.registry import SCORERS
    from tailsplit.scoring.base import ScoreRequest
    from tailsplit.scoring.driver import score_requests

    data = manifest.get("config", {}).get("data", {})
    known = {f.name for f in dataclasses.fields(ScoringConfig)}
    scoring = ScoringConfig(**{k: v for k, v in manifest.get("config", {}).get("scoring", {}).items() if k in known})
    scoring.method = "prompted"
    if config.zero_shot_template:
        scoring.template = config.zero_shot_template
    template = template_for(scoring)
    if not data.get("label") or "{label}" not in template.template:
        raise ConfigError(f"zero-shot classification needs labels and a template with {{label}}; template="
                          f"{template.name!r} has none — give --zero-shot-template (e.g. snli) or a --label-word set")
    labels = sorted({label_to_str(r.record[data["label"]]) for r in parts["train"]})
    scorer = SCORERS.create(scoring.backend, **scoring.scorer_params())
    cache = ScoreCache(scoring.cache_dir or default_cache_dir()) if scoring.use_cache else None
    accuracy = {}
    try:
        for part in ("test",):
            records = parts[part]
            requests = [ScoreRequest(*template.render(r.record, text=str(r.record[data["text"]]),
                                                      context=str(r.record[data["context"]]) if data.get("context") else None,
                                                      label=label))
                        for r in records for label in labels]
            logprob_sum, _, _, _ = score_requests(requests, scorer, cache)
            predicted = np.asarray(labels, dtype=object)[np.asarray(logprob_sum).reshape(len(records), len(labels)).argmax(axis=1)]
            gold = np.asarray([label_to_str(r.record[data["label"]]) for r in records], dtype=object)
            accuracy[part] = float(np.mean(predicted == gold)) if len(records) else float("nan")
    finally:
        if cache is not None:
            cache.close()
    return BaselineResult("lm-zero-shot", float("nan"), accuracy["test"], "accuracy", {})


def _html_report(rows: list[dict[str, Any]]) -> dict[str, str]:
    """``report.html`` when the analysis extra (matplotlib, markdown) is installed."""
    if not rows:
        return {}
    try:
        from tailsplit.analysis.evaluation_report import evaluation_html

        return {"report.html": evaluation_html(rows, table_markdown(rows))}
    except MissingDependencyError:
        return {}
