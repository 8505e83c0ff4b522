"""An lm-evaluation-harness task for a split: YAML plus data files.

With labels and a template that names ``{label}`` (SNLI's), the task is the zero-shot
classification tailsplit's own ``evaluate --baseline lm-zero-shot`` runs: one prompt per label
(the template with that label's word), the query as the shared continuation, and the label
whose prompt makes the query most likely as the prediction — lm-eval's "multiple input"
``multiple_choice`` task (as Winogrande). Without labels, it is the query's likelihood under
its prompt (``loglikelihood``; perplexity and greedy-match accuracy), the quantity the split
was ranked by.

The data files carry each record's fields plus ``tailsplit_prompts`` (one per label),
``tailsplit_gold`` (index of the gold label), ``tailsplit_prompt`` and ``tailsplit_query``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from tailsplit.errors import ConfigError
from tailsplit.io.examples import label_to_str
from tailsplit.prompts import PromptTemplate

PARTS = {"train": "train", "dev": "validation", "test": "test"}


def task_name(name: str) -> str:
    """A task name lm-eval accepts: lower-case letters, digits and underscores."""
    cleaned = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_")
    if not cleaned:
        raise ConfigError(f"task name {name!r} has no letters or digits; pass --task-name")
    return cleaned


def task_records(
    records: Sequence[Any], data: Mapping[str, Any], template: PromptTemplate, labels: list[str] | None
) -> list[dict[str, Any]]:
    """The part's records with the task's columns added (``records`` are RawRecords)."""
    out = []
    for raw in records:
        text = str(raw.value(data["text"]))
        context = str(raw.value(data["context"])) if data.get("context") else None
        row = dict(raw.record)
        if labels is not None:
            gold = label_to_str(raw.value(data["label"]))
            if gold not in labels:
                raise raw.error(
                    f"has label {gold!r}, which train does not have",
                    field=data["label"],
                    fix="export a split whose evaluation labels all occur in train",
                )
            row["tailsplit_prompts"] = [
                template.render(raw.record, text=text, context=context, label=label)[0] for label in labels
            ]
            row["tailsplit_gold"] = labels.index(gold)
        else:
            row["tailsplit_prompt"] = template.render(raw.record, text=text, context=context, label=None)[0]
        row["tailsplit_query"] = text
        out.append(row)
    return out


def task_yaml(name: str, data_files: Mapping[str, str], classification: bool, about: Mapping[str, Any]) -> str:
    """The task's YAML (lm-eval reads it with ``--include_path``; data files by absolute path)."""
    lines = [
        f"task: {name}",
        "dataset_path: json",
        "dataset_kwargs:",
        "  data_files:",
        *[f"    {split}: {json.dumps(path)}" for split, path in data_files.items()],
        "training_split: train",
        "validation_split: validation",
        "test_split: test",
        'target_delimiter: ""',
        "doc_to_target: tailsplit_query",
    ]
    if classification:
        lines += [
            "output_type: multiple_choice",
            "doc_to_text: tailsplit_gold",
            "doc_to_choice: tailsplit_prompts",
            "metric_list:",
            "  - metric: acc",
            "    aggregation: mean",
            "    higher_is_better: true",
        ]
    else:
        lines += [
            "output_type: loglikelihood",
            "doc_to_text: tailsplit_prompt",
            "metric_list:",
            "  - metric: perplexity",
            "    aggregation: perplexity",
            "    higher_is_better: false",
            "  - metric: acc",
            "    aggregation: mean",
            "    higher_is_better: true",
        ]
    lines += ["metadata:", "  version: 1.0"]
    lines += [f"  tailsplit_{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in about.items()]
    return "\n".join(lines) + "\n"
