"""``tailsplit export lm-eval``: a split folder as an lm-evaluation-harness task whose scores
reproduce tailsplit's."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

from tailsplit._version import __version__
from tailsplit.analysis.split_dir import describe_split, read_split_parts
from tailsplit.cache import default_cache_dir
from tailsplit.config import DataConfig, LmEvalExportConfig, check_values
from tailsplit.config.arguments import path_argument, switch_argument
from tailsplit.config.recorded import recorded_run
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.export.hf_hub import check_repo_id
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
from tailsplit.io.claims import released_on_error
from tailsplit.io.examples import label_to_str
from tailsplit.io.manifest import Manifest
from tailsplit.io.outputs import check_output_folder, staged_output
from tailsplit.io.writers import write_records
from tailsplit.pipeline.findings import ExportResult, SplitExportContent
from tailsplit.pipeline.keywords import known_keywords
from tailsplit.pipeline.recording import recorded_command
from tailsplit.pipeline.runs.result import RunResult, folder_of
from tailsplit.prompts import PromptTemplate, resolve_template
from tailsplit.render.console import Line, View


class LmEvalExportContent(SplitExportContent):
    """What ``export lm-eval`` wrote: the task, how lm-eval runs it and whether its model
    arguments reproduce the split's scores."""

    task: str
    lm_eval_model: dict[str, Any]
    lm_eval_command: str
    dataset_path: str | None
    upload_command: str | None
    local_to_this_machine: list[str]


class LmEvalExportResult(ExportResult[LmEvalExportContent]):
    """The lm-eval task written (``content["task"]``), the command that runs it
    (``content["lm_eval_command"]``) and whether its model arguments reproduce the split's
    scores (``content["lm_eval_model"]``)."""

    command = "export lm-eval"

    def view(self) -> View:
        c = self.content
        model = c["lm_eval_model"]
        if model["model_args"] is None:
            said = f"no lm-eval model reproduces the split's scores ({model['note']})"
        elif model["exact"]:
            said = "these model arguments reproduce the split's logprob_sum per example"
        else:
            said = f"these model arguments come closest to the split's scores, but {model['note']}"
        lines: View = [
            Line(f"wrote task {c['task']} to {self.out_dir}; {said}:"),
            Line(c["lm_eval_command"], copyable=True),
        ]
        lines += [Line(f"local to this machine: {part}", copyable=True) for part in c["local_to_this_machine"]]
        upload = c["upload_command"]
        if upload:
            lines += [
                Line(
                    "upload the data files where the task loads them from (from the folder that holds the task):",
                    copyable=True,
                ),
                Line(upload, copyable=True),
            ]
        return lines


def _split_template(manifest: Manifest, template: str | None) -> Any:
    """The template the split was scored with (or ``template``, or the run's configured one)."""
    scoring = recorded_run(manifest).scoring
    if template is not None:
        return resolve_template(template, scoring.label_words or {})
    recorded = manifest.template
    if recorded:
        return PromptTemplate(recorded["name"], recorded["template"], recorded.get("label_words") or {})
    return resolve_template(scoring.template, scoring.label_words or {})


def _task_labels(data: DataConfig, prompt: PromptTemplate, parts: dict[str, list[Any]]) -> list[str] | None:
    """The labels of a classification task (the template's words, else train's labels in
    order); ``None`` for a likelihood task. A template's field the split lacks is refused."""
    if prompt.needs("context") and not data.context:
        raise ConfigError(f"--template={prompt.name!r} uses {{context}} but the split has no context field")
    if not (data.label and prompt.needs("label")):
        return None
    return list(prompt.label_words) or sorted({label_to_str(r.value(data.label)) for r in parts["train"]})


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
    recorded = recorded_run(manifest)
    data = recorded.data
    prompt = _split_template(manifest, template)
    task = task_name(name or f"tailsplit_{split_dir.name}")
    labels = _task_labels(data, prompt, parts)
    final = Path(os.path.realpath(os.path.expanduser(str(out))))
    files = {PARTS[part]: str(final / f"{PARTS[part]}.jsonl") for part in parts}
    reproduce = lm_eval_model(manifest, Path(recorded.scoring.cache_dir or default_cache_dir()))
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
                "tailsplit_version": tailsplit_version(),
                "command": recorded_command(command),
                "export": "lm-eval",
                "task": task,
                "lm_eval_model": reproduce.describe(),
                "lm_eval_command": lm_eval_command(task, final, reproduce),
                "dataset_path": dataset_path,
                "upload_command": upload_command(dataset_path, final.name) if dataset_path else None,
                "local_to_this_machine": list(local_parts(dataset_path, reproduce).values()),
                "split_dir": str(split_dir),
                "split_manifest_sha256": split_manifest_sha256(split_dir / "manifest.json"),
            }
        )


def split_manifest_sha256(path: Path) -> str:

    return sha256_file(path)


def tailsplit_version() -> str:

    return __version__


@known_keywords()
def export_lm_eval(
    split: RunResult | str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    task_name: str | None = None,
    template: str | None = None,
    dataset_path: str | None = None,
    overwrite: bool = False,
    accept_modified: bool = False,
) -> LmEvalExportResult:
    """``tailsplit export-lm-eval``: an lm-evaluation-harness task for the split's test part
    whose scores reproduce tailsplit's; what was written."""
    config = LmEvalExportConfig(
        split_dir=folder_of(split),
        out=path_argument("out", out, "a folder"),
        task_name=task_name,
        template=template,
        dataset_path=dataset_path,
        overwrite=overwrite,
    )
    check_values(config)
    return export_lm_eval_config(config, accept_modified=switch_argument("accept_modified", accept_modified) or False)


def export_lm_eval_config(
    config: LmEvalExportConfig, *, accept_modified: bool = False, command: list[str] | None = None
) -> LmEvalExportResult:
    """:func:`export_lm_eval_task` with a checked config's options (the command line and the
    keyword call both come through here)."""

    def export(out: Path, overwrite: bool) -> dict[str, Any]:
        return export_lm_eval_task(
            config.split_dir,
            str(out),
            name=config.task_name,
            template=config.template,
            overwrite=overwrite,
            command=command,
            accept_modified=accept_modified,
            dataset_path=config.dataset_path,
        )

    def write(out: Path, overwrite: bool) -> None:
        export(out, overwrite)

    written = export(Path(str(config.out)), config.overwrite)
    return LmEvalExportResult(cast(LmEvalExportContent, written), Path(str(config.out)), write)
