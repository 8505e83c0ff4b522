"""``tailsplit export``: a split folder as an lm-evaluation-harness task or a Hugging Face dataset."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tailsplit._version import __version__
from tailsplit.analysis.split_dir import describe_split, listed_json, read_split_parts
from tailsplit.cache import default_cache_dir
from tailsplit.config import HfExportConfig, LmEvalExportConfig, config_from_keywords
from tailsplit.config.arguments import path_argument, switch_argument
from tailsplit.config.values import short_repr
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.export.class_labels import parse_class_labels, with_class_labels
from tailsplit.export.hf_card import CardSource, card_task_and_language, dataset_card, info_citation, info_description
from tailsplit.export.hf_hub import HUB_FOLDER, check_repo_id, push_hub_folder, write_hub_folder
from tailsplit.export.lm_eval import (
    METRICS_MODULE,
    METRICS_SOURCE,
    PARTS,
    lm_eval_command,
    local_parts,
    portable,
    task_name,
    task_readme,
    task_records,
    task_yaml,
    upload_command,
)
from tailsplit.export.lm_eval_model import lm_eval_model
from tailsplit.fingerprint import sha256_file
from tailsplit.io.arrow import arrow_table
from tailsplit.io.claims import released_on_error
from tailsplit.io.examples import label_to_str
from tailsplit.io.files import read_option_text
from tailsplit.io.hf import hf_dataset, quiet_datasets
from tailsplit.io.memory import HF_ABOUT
from tailsplit.io.outputs import check_output_folder, staged_output
from tailsplit.io.values import check_writable
from tailsplit.io.writers import write_records
from tailsplit.pipeline.manifest import recorded_command
from tailsplit.pipeline.result import RunResult, folder_of
from tailsplit.prompts import PromptTemplate, resolve_template


def _split_template(manifest: dict[str, Any], template: str | None) -> Any:
    """The template the split was scored with (or ``template``, or the run's configured one)."""
    scoring = manifest.get("config", {}).get("scoring", {})
    if template is not None:
        return resolve_template(template, scoring.get("label_words") or {})
    recorded = manifest.get("template")
    if recorded:
        return PromptTemplate(recorded["name"], recorded["template"], recorded.get("label_words") or {})
    return resolve_template(scoring.get("template", "plain"), scoring.get("label_words") or {})


def _task_labels(data: dict[str, Any], prompt: PromptTemplate, parts: dict[str, list[Any]]) -> list[str] | None:
    """The labels of a classification task (the template's words, else train's labels in
    order); ``None`` for a likelihood task. A template's field the split lacks is refused."""
    if prompt.needs("context") and not data.get("context"):
        raise ConfigError(f"--template={prompt.name!r} uses {{context}} but the split has no context field")
    if not (data.get("label") and prompt.needs("label")):
        return None
    return list(prompt.label_words) or sorted({label_to_str(r.value(data["label"])) for r in parts["train"]})


@released_on_error
@keyword_spelling
def export_lm_eval_task(
    split_dir: str | Path,
    out: str | Path,
    *,
    name: str | None = None,
    template: str | None = None,
    overwrite: bool = False,
    command: list[str] | None = None,
    accept_modified: bool = False,
    dataset_path: str | None = None,
) -> dict[str, Any]:
    """Write ``<name>.yaml`` and train/validation/test JSON Lines into ``out``; the manifest.
    With ``dataset_path`` (a hub dataset repository), the YAML loads the data files from there."""

    split_dir = Path(split_dir)
    if dataset_path is not None:
        check_repo_id(dataset_path, "--dataset-path")
    check_output_folder(out, overwrite=overwrite, inputs=[split_dir])
    manifest, parts = read_split_parts(split_dir, accept_modified=accept_modified)
    data = manifest.get("config", {}).get("data", {})
    prompt = _split_template(manifest, template)
    task = task_name(name or f"tailsplit_{split_dir.name}")
    labels = _task_labels(data, prompt, parts)
    final = Path(os.path.realpath(os.path.expanduser(str(out))))
    files = {PARTS[part]: str(final / f"{PARTS[part]}.jsonl") for part in parts}
    scoring = manifest.get("config", {}).get("scoring", {})
    reproduce = lm_eval_model(manifest, Path(scoring.get("cache_dir") or default_cache_dir()))
    about = {
        "split": describe_split(manifest),
        "template": prompt.template,
        "labels": labels or [],
        "model_args": portable(reproduce).model_args,
        "reproduces_logprob_sum": reproduce.exact,
        "reproduction_note": reproduce.note,
    }
    with staged_output(Path(out), overwrite=overwrite, inputs=[split_dir]) as folder:
        for part, records in parts.items():
            write_records(folder / f"{PARTS[part]}.jsonl", task_records(records, data, prompt, labels), "jsonl")
        folder.write_text(f"{task}.yaml", task_yaml(task, dataset_path or files, labels is not None, about))
        if labels is None:
            folder.write_text(f"{METRICS_MODULE}.py", METRICS_SOURCE)
        folder.write_text(
            "README.md", task_readme(task, describe_split(manifest), labels, reproduce, final.name, dataset_path)
        )
        return folder.write_manifest(
            {
                "tailsplit_version": _version(),
                "command": recorded_command(command),
                "export": "lm-eval",
                "task": task,
                "lm_eval_model": reproduce.describe(),
                "lm_eval_command": lm_eval_command(task, final, reproduce),
                "dataset_path": dataset_path,
                "upload_command": upload_command(dataset_path, final.name) if dataset_path else None,
                "local_to_this_machine": list(local_parts(dataset_path, reproduce).values()),
                "split_dir": str(split_dir),
                "split_manifest_sha256": _sha(split_dir / "manifest.json"),
            }
        )


def _check_hf_writable(parts: dict[str, list[Any]]) -> None:
    """Refuse, naming the part file and row, records a ``DatasetDict`` cannot hold (a column
    whose values are of different kinds, across all parts, as one dataset's features)."""

    raws = [raw for records in parts.values() for raw in records]
    check_writable(
        [raw.record for raw in raws],
        "hf",
        lambda i: (raws[i].path, raws[i].line or raws[i].row),
        json_safe=True,
        arrow=arrow_table,
    )


@released_on_error
@keyword_spelling
def export_hf_folder(
    split_dir: str | Path,
    out: str | Path,
    *,
    overwrite: bool = False,
    command: list[str] | None = None,
    accept_modified: bool = False,
    license: str | None = None,
    citation_file: str | Path | None = None,
    push_to_hub: str | None = None,
    class_labels: str | Sequence[str] | None = None,
    task_category: str | None = None,
    language: str | None = None,
) -> dict[str, Any]:
    """Write a ``DatasetDict`` folder (train/validation/test) with a dataset card into ``out``
    (and, with ``push_to_hub``, its hub layout in ``out/hub``, uploaded after the export is
    complete). Description, citation and licence go into every part's ``DatasetInfo`` and the
    card: ``license`` and ``citation_file`` (BibTeX) first, else the input's own metadata.
    ``class_labels`` (class names in id order) makes the label field a ``ClassLabel``;
    ``task_category`` and ``language`` (comma-separated codes) go into the card's metadata."""

    split_dir = Path(split_dir)
    if push_to_hub is not None:
        check_repo_id(push_to_hub)
    names = None if class_labels is None else parse_class_labels(class_labels)
    citation = _citation(citation_file)
    check_output_folder(out, overwrite=overwrite, inputs=[split_dir, *([citation_file] if citation_file else [])])
    manifest, parts = read_split_parts(split_dir, accept_modified=accept_modified)
    _check_hf_writable(parts)
    records, classes = _part_records(manifest, parts, names)
    description = describe_split(manifest)
    source = card_source(manifest, license, citation, task_category, language)
    analysis = listed_json(split_dir, manifest, "analysis.json", accept_modified=accept_modified)
    sizes = {part: len(records) for part, records in parts.items()}  # what is exported, edited or not
    dataset_dict = _dataset_dict({**manifest, "sizes": sizes}, records, classes, source, analysis)
    card = dataset_card({**manifest, "sizes": sizes}, analysis, description, source)
    with staged_output(Path(out), overwrite=overwrite, inputs=[split_dir]) as folder, quiet_datasets():
        dataset_dict.save_to_disk(str(folder.path))
        folder.write_text("README.md", card)
        if push_to_hub is not None:
            write_hub_folder(folder / HUB_FOLDER, dataset_dict, card)
        written = folder.write_manifest(
            {
                "tailsplit_version": _version(),
                "command": recorded_command(command),
                "export": "hf",
                "license": source.license,
                "push_to_hub": push_to_hub,
                "label_field": manifest.get("config", {}).get("data", {}).get("label"),
                "class_labels": classes,
                "split_dir": str(split_dir),
                "split_manifest_sha256": _sha(split_dir / "manifest.json"),
                **({"modified_files": manifest["modified_files"]} if manifest.get("modified_files") else {}),
            }
        )
    if push_to_hub is not None:
        message = f"tailsplit {description}"
        written = {**written, "hub_url": push_hub_folder(Path(out) / HUB_FOLDER, push_to_hub, message)}
    return written


def _part_records(
    manifest: dict[str, Any], parts: dict[str, Any], names: list[str] | None
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[str]]]:
    """Each part's records and the ``ClassLabel`` columns to export: the input's own, and the
    label field when ``names`` are given."""
    if names is not None:
        return with_class_labels(manifest, parts, names)
    return {part: [r.record for r in raws] for part, raws in parts.items()}, dict(manifest.get("class_labels") or {})


def _dataset_dict(
    manifest: dict[str, Any],
    records: dict[str, list[dict[str, Any]]],
    classes: dict[str, list[str]],
    source: Any,
    analysis: dict[str, Any] | None,
) -> Any:
    """The split's parts as a ``DatasetDict`` (``classes`` as ``ClassLabel`` columns), each
    part's ``DatasetInfo`` holding the description, citation, licence and homepage."""

    description = describe_split(manifest)
    with quiet_datasets() as datasets:
        dataset_dict = datasets.DatasetDict(
            {PARTS[part]: hf_dataset(rows, None, classes or None) for part, rows in records.items()}
        )
        for dataset in dataset_dict.values():
            dataset.info.description = info_description(description, source, manifest, analysis)
            dataset.info.citation = info_citation(manifest, source)
            dataset.info.license = source.license or ""
            dataset.info.homepage = source.homepage or ""
    return dataset_dict


def _citation(path: str | Path | None) -> str | None:
    """The BibTeX text of ``--citation-file``, read exactly (UTF-8)."""
    if path is None:
        return None
    text = read_option_text(path, "--citation-file", "a BibTeX file")
    if not text.strip():
        raise ConfigError(f"--citation-file {str(path)!r} is empty; give a BibTeX file")
    return text.strip()


def card_source(
    manifest: dict[str, Any],
    license: str | None,
    citation: str | None,
    task_category: str | None = None,
    language: str | None = None,
) -> CardSource:
    """What the card says of the source data: the options first, then the input's own metadata
    (a Hugging Face table's ``DatasetInfo``, or a ``save_to_disk`` folder's ``dataset_info.json``);
    task category and language from the options, else from the split's built-in template."""
    about: dict[str, str] = {}
    for record in manifest.get("inputs", []):
        about = dict(record.get("about") or {}) or _folder_about(record.get("path"))
        if about:
            break
    if license is not None and not license.strip():
        raise ConfigError("--license is empty; give a licence id such as cc-by-sa-4.0")
    if license is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}", license):
        raise ConfigError(
            f"--license={short_repr(license)} is not a licence id (letters, digits, '.', '+', '-', at most 64); "
            "give one such as cc-by-sa-4.0, or 'other' and describe the licence in the card"
        )
    template = (manifest.get("template") or {}).get("name")
    tasks, languages = card_task_and_language(template, task_category, language)
    return CardSource(
        task_categories=tasks,
        language=languages,
        license=(license or about.get("license") or None),
        citation=citation or about.get("citation") or None,
        name=about.get("dataset_name") or None,
        description=about.get("description") or None,
        homepage=about.get("homepage") or None,
    )


def _folder_about(path: str | None) -> dict[str, str]:
    """``dataset_info.json`` fields of a ``save_to_disk`` input folder (its first split's for a
    ``DatasetDict``), when the folder is still there."""
    if not path or not Path(path).is_dir():
        return {}
    folder = Path(path)
    candidates = [folder / "dataset_info.json", *sorted(folder.glob("*/dataset_info.json"))]
    for info_path in candidates:
        if info_path.is_file():
            try:
                info = json.loads(info_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return {}
            return {k: str(v).strip() for k, v in info.items() if k in HF_ABOUT and v and str(v).strip()}
    return {}


def _sha(path: Path) -> str:

    return sha256_file(path)


def _version() -> str:

    return __version__


@keyword_spelling
def export_hf(split: RunResult | str | Path, out: str | Path, **options: Any) -> dict[str, Any]:
    """``tailsplit export hf``: a split (its folder, or a run written with ``result.write``)
    as a Hugging Face ``DatasetDict`` folder with a dataset card (``license=``,
    ``citation_file=``, ``push_to_hub=``, ``class_labels=``, ``task_category=``, ``language=``, ``overwrite=``, ``accept_modified=``); the manifest
    written."""
    config = config_from_keywords(
        HfExportConfig, options, given={"split_dir": folder_of(split), "out": path_argument("out", out, "a folder")}
    )
    return export_hf_config(config)


def export_hf_config(config: HfExportConfig, *, command: list[str] | None = None) -> dict[str, Any]:
    """:func:`export_hf_folder` with a checked config's options (the command line and the
    keyword call both come through here)."""
    return export_hf_folder(
        config.split_dir,
        str(config.out),
        overwrite=config.overwrite,
        command=command,
        accept_modified=config.accept_modified,
        license=config.license,
        citation_file=None if config.citation_file is None else Path(config.citation_file),
        push_to_hub=config.push_to_hub,
        class_labels=config.class_labels,
        task_category=config.task_category,
        language=config.language,
    )


@keyword_spelling
def export_lm_eval(
    split: RunResult | str | Path, out: str | Path, *, accept_modified: bool = False, **options: Any
) -> dict[str, Any]:
    """``tailsplit export lm-eval``: a split as an lm-evaluation-harness task (``task_name=``,
    ``template=``, ``dataset_path=``, ``overwrite=``) whose scores reproduce tailsplit's; the manifest written."""
    switch_argument("accept_modified", accept_modified)
    config = config_from_keywords(
        LmEvalExportConfig, options, given={"split_dir": folder_of(split), "out": path_argument("out", out, "a folder")}
    )
    return export_lm_eval_config(config, accept_modified=accept_modified)


def export_lm_eval_config(
    config: LmEvalExportConfig, *, accept_modified: bool = False, command: list[str] | None = None
) -> dict[str, Any]:
    """:func:`export_lm_eval_task` with a checked config's options (the command line and the
    keyword call both come through here)."""
    return export_lm_eval_task(
        config.split_dir,
        str(config.out),
        name=config.task_name,
        template=config.template,
        overwrite=config.overwrite,
        command=command,
        accept_modified=accept_modified,
        dataset_path=config.dataset_path,
    )
