"""``tailsplit correlate``: BOSS's Type I / II / III from ID-vs-OOD accuracy points."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from tailsplit.analysis.shift_report import (
    correlate_markdown,
    relation_figure,
)
from tailsplit.config import CorrelateConfig, check_values
from tailsplit.config.arguments import path_argument
from tailsplit.errors import ConfigError, InputError, keyword_spelling
from tailsplit.fingerprint import sha256_file
from tailsplit.io.claims import released_on_error
from tailsplit.io.values import strict_json
from tailsplit.pipeline.findings import Findings, config_writer, rows_of
from tailsplit.pipeline.keywords import known_keywords
from tailsplit.pipeline.recording import command_provenance, write_outputs
from tailsplit.pipeline.shift_common import check_out
from tailsplit.render.console import Line, View
from tailsplit.render.figures import figure_files
from tailsplit.render.pages import html_page
from tailsplit.render.provenance import with_provenance
from tailsplit.shift.correlate import classify, type_label
from tailsplit.shift.csv_inputs import read_points


def relation_line(name: str, rel: Mapping[str, Any]) -> str:
    """One group's relation in words: its type, why, the shape chosen, slopes and r²."""
    if rel["type"] is None:
        return f"{name}: {rel['reason']}"
    chosen = rel["chosen"]
    turning = "" if chosen["turning_point"] is None else f", turning point {chosen['turning_point']:.3f}"
    separate = chosen.get("separate") or []
    apart = "; separate lines r² " + ", ".join(f"{x['r2']:.3f}" for x in separate) if separate else ""
    return (
        f"{name}: {type_label(rel['type'])}, {rel['reason']} ({rel['n']} points, {rel['shape']}{turning}; slopes "
        f"{', '.join(f'{s:.3f}' for s in chosen['slopes'])}; r² {', '.join(f'{r:.3f}' for r in chosen['r2'])}{apart})"
    )


def relation_view(groups: Mapping[str, Any]) -> View:
    """One line per group's relation (``correlate``'s and ``curve``'s console view)."""
    return [Line(relation_line(name, rel)) for name, rel in groups.items()]


class CorrelateContent(TypedDict):
    """What ``correlate`` finds (``correlate.json`` holds it): each group's relation."""

    groups: dict[str, dict[str, Any]]


class CorrelateResult(Findings[CorrelateContent]):
    """The ID–OOD relation of each group (``content["groups"]``: BOSS's type, the fits and the
    one chosen by BIC); its table has one row per group."""

    command = "correlate"
    written = "correlate.json, report.md, report.html, manifest.json"

    def rows(self) -> list[dict[str, Any]]:
        return rows_of(self.content["groups"])

    def view(self) -> View:
        return relation_view(self.content["groups"])


@released_on_error
@keyword_spelling
def correlate_config(config: CorrelateConfig, *, command: list[str] | None = None) -> CorrelateResult:
    """Type I / II / III fits of the (id_acc, ood_acc) points, per group when given."""

    check_out(config, [config.points])
    points = read_points(config.points, config.group)
    relations = {}
    for group, pairs in points.items():
        xy = np.array(pairs)
        try:
            relations[group] = classify(xy[:, 0], xy[:, 1])
        except ConfigError as exc:
            raise InputError(f"group {group!r}: {exc}", path=config.points, fix="add points to that group") from None
    result: CorrelateContent = {"groups": {g: r.as_dict() for g, r in relations.items()}}

    write = config_writer(_write_correlate, config, result, points, relations, command)
    if config.out is not None:
        write(Path(config.out), config.overwrite)
    return CorrelateResult(result, None if config.out is None else Path(config.out), write)


def _write_correlate(
    out: Path,
    config: CorrelateConfig,
    result: CorrelateContent,
    points: dict[str, Any],
    relations: dict[str, Any],
    command: list[str] | None,
) -> None:
    markdown = correlate_markdown(dict(result))
    inputs = [{"path": config.points, "sha256": sha256_file(config.points)}]
    provenance = command_provenance(command, inputs)
    figures = {
        f"group {g}: {type_label(r.type)}": relation_figure(
            np.array(points[g])[:, 0], np.array(points[g])[:, 1], r, type_label(r.type)
        )
        for g, r in relations.items()
    }
    write_outputs(
        out,
        config,
        {
            "correlate.json": strict_json(result),
            "report.md": with_provenance(markdown, provenance),
            "report.html": html_page("ID–OOD accuracy", markdown, figures, provenance),
            **figure_files(figures),
        },
        inputs,
        {},
        command,
    )


@known_keywords()
def correlate(
    points: str | os.PathLike[str],
    *,
    group: str | None = None,
    out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
) -> CorrelateResult:
    """``tailsplit correlate``: Type I / II / III fits of (ID, OOD) accuracy points."""
    points_path = path_argument("points", points, "a CSV file of accuracy points")
    config = CorrelateConfig(points=points_path, group=group, out=out, overwrite=overwrite)  # type: ignore[arg-type]
    check_values(config)
    return correlate_config(config)
