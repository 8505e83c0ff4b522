"""``tailsplit export``: a split folder as an lm-evaluation-harness task or a Hugging Face dataset."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tailsplit.errors import ConfigError
from tailsplit.export.hf_card import dataset_card
from tailsplit.export.lm_eval import PARTS, task_name, task_records, task_yaml
from tailsplit.io.claims import released_on_error
from tailsplit.io.examples import label_to_str
from tailsplit.io.outputs import check_output_folder, staged_output
from tailsplit.io.writers import write_records
from tailsplit.prompts import resolve_template


def _split_template(manifest: dict[str, Any], template: str | None) -> Any:
    """The template the split was scored with (or ``template``, or the run's configured one)."""
    scoring = manifest.get("config", {}).get("scoring", {})
    if template is not None:
        return resolve_template(template, scoring.get("label_words") or {})
    recorded = manifest.get("template")
    if recorded:
        from tailsplit.prompts import PromptTemplate

        return PromptTemplate(recorded["name"], recorded["template"], recorded.get("label_words") or {})
    return resolve_template(scoring.get("template", "plain"), scoring.get("label_words") or {})


@released_on_error
def export_lm_eval(
    split_dir: str | Path,
    out: str | Path,
    *,
    name: str | None = None,
    template: str | None = None,
    overwrite: bool = False,
    command: list[str] | None = None,
    accept_modified: bool = False,
) -> dict[str, Any]:
    """Write ``<name>.yaml`` and train/validation/test JSON Lines into ``out``; the manifest."""
    from tailsplit.analysis.split_dir import describe_split, read_split_parts

    split_dir = Path(split_dir)
    check_output_folder(out, overwrite=overwrite, inputs=[split_dir])
    manifest, parts = read_split_parts(split_dir, accept_modified=accept_modified)
    data = manifest.get("config", {}).get("data", {})
    prompt = _split_template(manifest, template)
    task = task_name(name or f"tailsplit_{split_dir.name}")
    labels = None
    if data.get("label") and prompt.needs("label"):
        labels = list(prompt.label_words) or sorted({label_to_str(r.value(data["label"])) for r in parts["train"]})
    if prompt.needs("context") and not data.get("context"):
        raise ConfigError(f"template={prompt.name!r} uses {{context}} but the split has no context field")
    final = Path(os.path.realpath(os.path.expanduser(str(out))))
    files = {PARTS[part]: str(final / f"{PARTS[part]}.jsonl") for part in parts}
    about = {"split": describe_split(manifest), "template": prompt.template, "labels": labels or []}
    with staged_output(Path(out), overwrite=overwrite, inputs=[split_dir]) as folder:
        for part, records in parts.items():
            write_records(folder / f"{PARTS[part]}.jsonl", task_records(records, data, prompt, labels), "jsonl")
        folder.write_text(f"{task}.yaml", task_yaml(task, files, labels is not None, about))
        return folder.write_manifest(
            {
                "tailsplit_version": _version(),
                "command": command or [],
                "export": "lm-eval",
                "task": task,
                "split_dir": str(split_dir),
                "split_manifest_sha256": _sha(split_dir / "manifest.json"),
            }
        )


def _check_hf_writable(parts: dict[str, list[Any]]) -> None:
    """Refuse, naming the part file and row, records a ``DatasetDict`` cannot hold (a column
    whose values are of different kinds, across all parts, as one dataset's features)."""
    from tailsplit.io.values import check_writable
    from tailsplit.io.writers import arrow_table

    raws = [raw for records in parts.values() for raw in records]
    check_writable(
        [raw.record for raw in raws],
        "hf",
        lambda i: (raws[i].path, raws[i].line or raws[i].row),
        json_safe=True,
        arrow=arrow_table,
    )


@released_on_error
def export_hf(
    split_dir: str | Path,
    out: str | Path,
    *,
    overwrite: bool = False,
    command: list[str] | None = None,
    accept_modified: bool = False,
) -> dict[str, Any]:
    """Write a ``DatasetDict`` folder (train/validation/test) with a dataset card into ``out``."""
    from tailsplit.analysis.split_dir import describe_split, read_split_parts
    from tailsplit.io.hf import hf_dataset, quiet_datasets

    split_dir = Path(split_dir)
    check_output_folder(out, overwrite=overwrite, inputs=[split_dir])
    manifest, parts = read_split_parts(split_dir, accept_modified=accept_modified)
    _check_hf_writable(parts)
    with quiet_datasets() as datasets:
        dataset_dict = datasets.DatasetDict(
            {
                PARTS[part]: hf_dataset([r.record for r in records], None, manifest.get("class_labels") or None)
                for part, records in parts.items()
            }
        )
    analysis_path = split_dir / "analysis.json"
    analysis = json.loads(analysis_path.read_text(encoding="utf-8")) if analysis_path.is_file() else None
    with staged_output(Path(out), overwrite=overwrite, inputs=[split_dir]) as folder, quiet_datasets():
        dataset_dict.save_to_disk(str(folder.path))
        folder.write_text("README.md", dataset_card(manifest, analysis, describe_split(manifest)))
        return folder.write_manifest(
            {
                "tailsplit_version": _version(),
                "command": command or [],
                "export": "hf",
                "split_dir": str(split_dir),
                "split_manifest_sha256": _sha(split_dir / "manifest.json"),
            }
        )


def _sha(path: Path) -> str:
    from tailsplit.fingerprint import sha256_file

    return sha256_file(path)


def _version() -> str:
    from tailsplit._version import __version__

    return __version__
