"""``tailsplit export hf``: a split folder as a Hugging Face ``DatasetDict`` folder with a dataset card."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NotRequired, cast

from tailsplit.analysis.split_dir import describe_split, listed_json, read_split_parts
from tailsplit.config import HfExportConfig, check_values
from tailsplit.config.arguments import path_argument
from tailsplit.config.recorded import recorded_run
from tailsplit.config.values import short_repr
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.export.class_labels import parse_class_labels, with_class_labels
from tailsplit.export.hf_card import CardSource, card_task_and_language, dataset_card, info_citation, info_description
from tailsplit.export.hf_hub import HUB_FOLDER, check_repo_id, push_hub_folder, write_hub_folder
from tailsplit.export.lm_eval import (
    PARTS,
)
from tailsplit.io.arrow import arrow_table
from tailsplit.io.claims import released_on_error
from tailsplit.io.files import read_option_text
from tailsplit.io.hf import hf_dataset, quiet_datasets
from tailsplit.io.manifest import Manifest
from tailsplit.io.memory import HF_ABOUT
from tailsplit.io.outputs import check_output_folder, staged_output
from tailsplit.io.values import check_writable
from tailsplit.pipeline.export_lm_eval import split_manifest_sha256, tailsplit_version
from tailsplit.pipeline.findings import ExportResult, SplitExportContent
from tailsplit.pipeline.keywords import known_keywords
from tailsplit.pipeline.recording import recorded_command
from tailsplit.pipeline.runs.result import RunResult, folder_of
from tailsplit.render.console import Line, View


class HfExportContent(SplitExportContent):
    """What ``export hf`` wrote: the card's licence, the ``ClassLabel`` columns, the label
    field and, when pushed, where (``hub_url``)."""

    license: str | None
    push_to_hub: str | None
    label_field: str | None
    class_labels: dict[str, list[str]]
    rows: dict[str, int]
    hub_url: NotRequired[str]
    modified_files: NotRequired[list[str]]


class HfExportResult(ExportResult[HfExportContent]):
    """The ``DatasetDict`` folder written, its licence (``content["license"]``), its
    ``ClassLabel`` columns (``content["class_labels"]``) and, when pushed, ``content["hub_url"]``;
    ``write(out)`` writes the folder again into ``out`` (without pushing it again)."""

    command = "export hf"

    def rows(self) -> list[dict[str, Any]]:
        """One row per part: its rows, the label column's feature and the card's licence —
        what a user checks before publishing (the files' hashes are in the manifest)."""
        c = self.content
        field = c["label_field"]
        names = c["class_labels"].get(field or "")
        feature = f"ClassLabel({', '.join(names)})" if names else ("values as given" if field else "no label")
        return [
            {"part": part, "rows": n, "label": field or "", "label feature": feature, "licence": c["license"] or ""}
            for part, n in c["rows"].items()
        ]

    def view(self) -> View:
        c = self.content
        lines: View = [Line(f"wrote {self.out_dir} (datasets.load_from_disk reads it)")]
        if c.get("hub_url"):
            lines.append(Line(f"pushed to {c.get('hub_url')} (datasets.load_dataset reads it)"))
        field = c["label_field"]
        if field and field not in c["class_labels"]:
            lines.append(
                Line(
                    f"note: label field {field!r} is exported as its values are; --class-labels NAMES (in id order) "
                    "makes it a ClassLabel, as datasets ships NLI data"
                )
            )
        if not c["license"]:
            lines.append(
                Line("note: the card states no licence; the source dataset's applies — give it with --license")
            )
        return lines


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
    columns: Sequence[str] = (),
    source_dataset: str | None = None,
) -> dict[str, Any]:
    """A ``DatasetDict`` folder (train/validation/test) with a card in ``out`` (with ``push_to_hub``,
    its hub layout in ``out/hub``, uploaded once complete); description, citation and licence in
    every ``DatasetInfo`` and the card (``license``, ``citation_file``, else the input's own);
    ``class_labels`` makes the label a ``ClassLabel``; ``task_category``, ``language`` go to the
    card, as ``source_dataset``; ``columns`` chooses the release's columns (all, if empty)."""
    split_dir = Path(split_dir)
    if push_to_hub is not None:
        check_repo_id(push_to_hub)
    names = None if class_labels is None else parse_class_labels(class_labels)
    citation = _citation(citation_file)
    check_output_folder(out, overwrite=overwrite, inputs=[split_dir, *([citation_file] if citation_file else [])])
    manifest, parts = read_split_parts(split_dir, accept_modified=accept_modified)
    _check_hf_writable(parts)
    records, classes = _chosen_columns(*_part_records(manifest, parts, names), columns)
    description = describe_split(manifest)
    source = card_source(manifest, license, citation, task_category, language, source_dataset)
    analysis, manifest = listed_json(split_dir, manifest, "analysis.json", accept_modified=accept_modified)
    exported = manifest.with_sizes({part: len(records) for part, records in parts.items()})  # edited or not
    dataset_dict = _dataset_dict(exported, records, classes, source, analysis)
    card = dataset_card(exported, analysis, description, source)
    with staged_output(Path(out), overwrite=overwrite, inputs=[split_dir]) as folder, quiet_datasets():
        dataset_dict.save_to_disk(str(folder.path))
        folder.write_text("README.md", card)
        if push_to_hub is not None:
            write_hub_folder(folder / HUB_FOLDER, dataset_dict, card)
        written = folder.write_manifest(
            {
                "tailsplit_version": tailsplit_version(),
                "command": recorded_command(command),
                "export": "hf",
                "license": source.license,
                "push_to_hub": push_to_hub,
                **_release_record(manifest, records, classes, columns),
                "split_dir": str(split_dir),
                "split_manifest_sha256": split_manifest_sha256(split_dir / "manifest.json"),
                **({"modified_files": manifest.modified_files} if manifest.modified_files else {}),
            }
        )
    if push_to_hub is not None:
        message = f"tailsplit {description}"
        written = {**written, "hub_url": push_hub_folder(Path(out) / HUB_FOLDER, push_to_hub, message)}
    return written


def _part_records(
    manifest: Manifest, parts: dict[str, Any], names: list[str] | None
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[str]]]:
    """Each part's records and the ``ClassLabel`` columns to export: the input's own, and the
    label field when ``names`` are given."""
    if names is not None:
        return with_class_labels(manifest, parts, names)
    return {part: [r.record for r in raws] for part, raws in parts.items()}, manifest.class_labels


def _release_record(
    manifest: Manifest, records: dict[str, list[dict[str, Any]]], classes: dict[str, list[str]], columns: Sequence[str]
) -> dict[str, Any]:
    """What the export's manifest says of the release: its label field and ``ClassLabel``
    columns, the columns chosen, and each part's rows."""
    return {
        "label_field": recorded_run(manifest).data.label,
        "class_labels": classes,
        "columns": list(columns) or None,
        "rows": {PARTS[part]: len(part_records) for part, part_records in records.items()},
    }


def _chosen_columns(
    records: dict[str, list[dict[str, Any]]], classes: dict[str, list[str]], columns: Sequence[str]
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[str]]]:
    """Each part's records with only ``columns``, in their order (all when empty); a name no
    record holds is refused, listing the split's columns, before anything is written."""
    if not columns:
        return records, classes
    held = list(dict.fromkeys(k for part in records.values() for record in part for k in record))
    missing = [c for c in columns if c not in held]
    if missing:
        raise ConfigError(f"--column={missing[0]!r} is not a column of the split; use some of {held}")
    chosen = {part: [{c: r[c] for c in columns if c in r} for r in rows] for part, rows in records.items()}
    return chosen, {name: names for name, names in classes.items() if name in columns}


def _dataset_dict(
    manifest: Manifest,
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
    manifest: Manifest,
    license: str | None,
    citation: str | None,
    task_category: str | None = None,
    language: str | None = None,
    source_dataset: str | None = None,
) -> CardSource:
    """What the card says of the source data: the options first, then the input's own metadata
    (a Hugging Face table's ``DatasetInfo``, or a ``save_to_disk`` folder's ``dataset_info.json``);
    task category and language from the options, else from the split's built-in template."""
    about: dict[str, str] = {}
    for record in manifest.inputs:
        about = dict(record.about) or _folder_about(record.path)
        if about:
            break
    if license is not None and not license.strip():
        raise ConfigError("--license is empty; give a licence id such as cc-by-sa-4.0")
    if license is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}", license):
        raise ConfigError(
            f"--license={short_repr(license)} is not a licence id (letters, digits, '.', '+', '-', at most 64); "
            "give one such as cc-by-sa-4.0, or 'other' and describe the licence in the card"
        )
    template = (manifest.template or {}).get("name")
    tasks, languages = card_task_and_language(template, task_category, language)
    return CardSource(
        task_categories=tasks,
        language=languages,
        license=(license or about.get("license") or None),
        citation=citation or about.get("citation") or None,
        name=_source_dataset(source_dataset) or about.get("dataset_name") or None,
        description=about.get("description") or None,
        homepage=about.get("homepage") or None,
    )


def _source_dataset(name: str | None) -> str | None:
    """``--source-dataset``: a hub dataset id (``NAME`` or ``OWNER/NAME``), checked."""
    if name is not None and not re.fullmatch(r"[A-Za-z0-9][\w.-]{0,95}(/[A-Za-z0-9][\w.-]{0,95})?", name):
        raise ConfigError(
            f"--source-dataset={short_repr(name)} is not a hub dataset id; give NAME or OWNER/NAME, e.g. stanfordnlp/snli"
        )
    return name


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


# fmt: off
@known_keywords()
def export_hf(
    split: RunResult | str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    license: str | None = None, citation_file: str | os.PathLike[str] | None = None,  # noqa: A002
    push_to_hub: str | None = None, class_labels: str | None = None, task_category: str | None = None,
    language: str | None = None, source_dataset: str | None = None, columns: str | Sequence[str] = (),
    overwrite: bool = False, accept_modified: bool = False,
) -> HfExportResult:
    """``tailsplit export-hf``: the split folder (or a run written to one) exported as a
    Hugging Face ``DatasetDict`` folder with a dataset card; what was written."""
    config = HfExportConfig(
        split_dir=folder_of(split), out=path_argument("out", out, "a folder"), license=license,
        citation_file=citation_file, push_to_hub=push_to_hub, class_labels=class_labels,  # type: ignore[arg-type]
        task_category=task_category, language=language, source_dataset=source_dataset,
        columns=columns, overwrite=overwrite,  # type: ignore[arg-type]
        accept_modified=accept_modified)
    check_values(config)
    return export_hf_config(config)
# fmt: on


def export_hf_config(config: HfExportConfig, *, command: list[str] | None = None) -> HfExportResult:
    """:func:`export_hf_folder` with a checked config's options (the command line and the
    keyword call both come through here)."""

    def export(out: Path, overwrite: bool, push_to_hub: str | None) -> dict[str, Any]:
        return export_hf_folder(
            config.split_dir,
            str(out),
            overwrite=overwrite,
            command=command,
            accept_modified=config.accept_modified,
            license=config.license,
            citation_file=None if config.citation_file is None else Path(config.citation_file),
            push_to_hub=push_to_hub,
            class_labels=config.class_labels,
            task_category=config.task_category,
            language=config.language,
            columns=config.columns,
            source_dataset=config.source_dataset,
        )

    def write(out: Path, overwrite: bool) -> None:
        export(out, overwrite, None)

    written = export(Path(str(config.out)), config.overwrite, config.push_to_hub)
    return HfExportResult(cast(HfExportContent, written), Path(str(config.out)), write)
