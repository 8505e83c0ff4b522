"""What every command's manifest records: input files with hashes and row counts, strict JSON;
and the staged write of a command's output files with their manifest."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit import __version__
from tailsplit.core import Dataset
from tailsplit.fingerprint import sha256_file
from tailsplit.io.writers import staged_dir


def input_records(dataset: Dataset) -> list[dict[str, Any]]:
    counts = {p: 0 for p in dataset.input_paths}
    for source in dataset.sources:
        counts[source] += 1
    return [{"path": p, "sha256": sha256_file(p), "rows": counts[p]} for p in dataset.input_paths]


def finite(value: Any) -> Any:
    """``value`` with NaN and infinities as ``None`` (strict JSON has no NaN)."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        return None
    return value


def json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


def write_outputs(out: Path, config: Any, files: dict[str, str], inputs: list[dict[str, Any]],
                   extra: dict[str, Any], command: list[str] | None) -> None:
    """The files, and a manifest with the command, configuration, input and output hashes."""
    with staged_dir(out, overwrite=config.overwrite) as staging:
        outputs = {}
        for name, text in files.items():
            (staging / name).write_text(text, encoding="utf-8")
            outputs[name] = sha256_file(staging / name)
        manifest = {"tailsplit_version": __version__, "command": command or sys.argv,
                    "config": dataclasses.asdict(config), "inputs": inputs, **extra, "outputs": outputs}
        (staging / "manifest.json").write_text(json.dumps(finite(manifest), indent=2, default=json_default) + "\n")
