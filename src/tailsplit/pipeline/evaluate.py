"""``tailsplit evaluate``: baselines trained on each split, compared with random splits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tailsplit.config import EvaluateConfig
from tailsplit.errors import ConfigError
from tailsplit.evaluate.baselines import BASELINES, PartInputs, nearest_neighbour_sql, tfidf_logistic
from tailsplit.evaluate.table import SplitScore, table_csv, table_markdown, table_rows
from tailsplit.fingerprint import sha256_file
from tailsplit.io.examples import label_to_str
from tailsplit.pipeline.records import finite, write_outputs


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
    """Train and score every requested baseline on every split; the comparison table."""
    from tailsplit.analysis.split_dir import describe_split, read_split_parts
    from tailsplit.registry import EXTRACTORS

    if not config.split_dirs:
        raise ConfigError("evaluate needs at least one split folder")
    scores, details = [], []
    for folder in config.split_dirs:
        manifest, parts = read_split_parts(folder)
        data = manifest.get("config", {}).get("data", {})
        train, dev, test = (_part_inputs(parts[p], data, config.input_fields) for p in ("train", "dev", "test"))
        for baseline in baselines_for(data, config.baselines, config.input_fields):
            if baseline == "nn-sql":
                result = nearest_neighbour_sql(train, dev, test, EXTRACTORS.create(data.get("program_kind") or "sql"))
            else:
                result = tfidf_logistic(train, dev, test, text_only=baseline == "tfidf-text", seed=config.seed)
            kind = describe_split(manifest)
            scores.append(SplitScore(Path(folder).name, kind, result.baseline, result.metric, result.dev, result.test))
            details.append({"folder": str(folder), "split": kind, "sizes": [len(train), len(dev), len(test)],
                            **result.as_dict()})
    rows = table_rows(scores)
    result = {"results": details, "table": rows}
    if config.out is not None:
        inputs = [{"path": str(Path(f) / "manifest.json"), "sha256": sha256_file(Path(f) / "manifest.json")}
                  for f in config.split_dirs]
        write_outputs(Path(config.out), config, {"evaluation.json": json.dumps(finite(result), indent=2) + "\n",
                                                  "table.md": table_markdown(rows), "table.csv": table_csv(rows)},
                       inputs, {}, command)
    return result
