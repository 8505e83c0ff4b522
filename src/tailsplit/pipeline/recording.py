"""What every command's manifest records: input files with hashes and row counts; and the
staged write of a command's output files with their manifest."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tailsplit._version import __version__
from tailsplit.analysis.summary import PartStatistics
from tailsplit.config import RunConfig
from tailsplit.core import Dataset, SplitIndices
from tailsplit.fingerprint import sha256_file
from tailsplit.io.outputs import staged_output
from tailsplit.programs.sets import ProgramFeatures
from tailsplit.splits import Splitter


def input_records(dataset: Dataset) -> list[dict[str, Any]]:
    """Each input file with its sha256 and rows; an in-memory table with its kind, content hash
    and rows (per split for a DatasetDict)."""
    if dataset.memory is not None:
        record: dict[str, Any] = {
            "in_memory": dataset.memory.kind,
            "content_sha256": dataset.memory.sha256,
            "rows": len(dataset),
        }
        if dataset.splits is not None:
            record["split_rows"] = {s: dataset.splits.count(s) for s in dict.fromkeys(dataset.splits)}
        if dataset.memory.about:
            record["about"] = dict(dataset.memory.about)
        return [record]
    counts = {p: 0 for p in dataset.input_paths}
    for source in dataset.sources:
        counts[source] += 1
    return [{"path": p, "sha256": sha256_file(p), "rows": counts[p]} for p in dataset.input_paths]


def recorded_command(command: Sequence[str] | None) -> list[str]:
    """The command a manifest records: the command line's as typed (``tailsplit run …``), or
    nothing for a Python call (its configuration is the record). Never ``sys.argv``, whose first
    item is a path on this machine (and in a notebook, the kernel's own arguments).

    >>> recorded_command(["tailsplit", "run", "d.jsonl"]), recorded_command(None)
    (['tailsplit', 'run', 'd.jsonl'], [])
    """
    return [str(part) for part in command] if command else []


def command_provenance(
    command: list[str] | None, inputs: list[dict[str, Any]], *, model: Any = None, seed: Any = None
) -> dict[str, Any]:
    """What a report's provenance header shows for a command that writes with :func:`write_outputs`
    (the same facts its manifest records)."""
    out: dict[str, Any] = {"tailsplit_version": __version__, "command": recorded_command(command), "inputs": inputs}
    if model:
        out["model"] = model
    if seed is not None:
        out["seed"] = seed
    return out


def write_outputs(
    out: Path,
    config: Any,
    files: dict[str, str | bytes],
    inputs: list[dict[str, Any]],
    extra: dict[str, Any],
    command: list[str] | None,
) -> dict[str, Any]:
    """The files, and a manifest with the command, configuration, input and output hashes (returned)."""
    with staged_output(out, overwrite=config.overwrite, inputs=[i["path"] for i in inputs]) as folder:
        folder.write_files(files)
        return folder.write_manifest(
            {
                "tailsplit_version": __version__,
                "command": recorded_command(command),
                "config": dataclasses.asdict(config),
                "inputs": inputs,
                **extra,
            }
        )


def run_manifest(
    config: RunConfig,
    dataset: Dataset,
    split: SplitIndices,
    splitter: Splitter,
    summaries: Sequence[PartStatistics],
    *,
    scoring: tuple[dict[str, Any], dict[str, Any] | None],
    programs: tuple[ProgramFeatures | None, Sequence[Any]],
    command: list[str] | None,
) -> dict[str, Any]:
    """What a run's manifest records: everything needed to redo it (version, command, config,
    inputs with hashes, how the scores were made, the splitter and its parameters, the seed)
    and what came out (sizes, label counts, per-part summaries, program metrics)."""
    meta, report = scoring
    features, metrics = programs
    manifest = {
        "tailsplit_version": __version__,
        "command": recorded_command(command),
        "config": config.as_dict(),
        "inputs": input_records(dataset),
        **meta,
        "splitter": {"name": splitter.name, "params": splitter.get_params(), "details": dict(split.details)},
        "seed": config.split.seed,
        "sizes": {s.part: s.size for s in summaries},
        "label_counts": {s.part: s.label_counts for s in summaries},
        "summary": [s.as_dict() for s in summaries],
        "scoring": report,
    }
    if features is not None:
        manifest["programs"] = {
            "field": config.data.program,
            "kind": features.extractor,
            "count": features.count,
            "metrics": [m.as_dict() for m in metrics],
        }
    return manifest
