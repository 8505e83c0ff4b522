"""What ``tailsplit evaluate`` finds, as a result object: the comparison table, the
conclusions and the fairness table, shown in a notebook, as a DataFrame, or written as the
evaluation folder (the command line writes through :meth:`EvaluationResult.write`).
"""

from __future__ import annotations

import dataclasses
import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tailsplit.config import EvaluateConfig
from tailsplit.config.arguments import path_argument, switch_argument
from tailsplit.errors import MissingDependencyError, keyword_spelling
from tailsplit.evaluation.conclusions import Conclusion, conclusions_markdown
from tailsplit.evaluation.fairness import Fairness, fairness_console, fairness_csv, fairness_markdown
from tailsplit.evaluation.report import evaluation_figures, evaluation_html, evaluation_markdown
from tailsplit.evaluation.samples import predictions_jsonl
from tailsplit.evaluation.table import table_csv, table_latex, table_markdown
from tailsplit.fingerprint import sha256_file
from tailsplit.io.manifest import Manifest
from tailsplit.io.outputs import check_output_folder
from tailsplit.io.values import strict_json
from tailsplit.pipeline.manifest import command_provenance, write_outputs
from tailsplit.render import html_table
from tailsplit.render.console import Line, View
from tailsplit.render.figures import figure_files
from tailsplit.render.provenance import with_provenance


@dataclass(frozen=True)
class EvaluationResult:
    """An evaluation of split folders: ``findings`` (``table``, ``results``,
    ``conclusions``, ``fairness``, ``leakage_warnings``, as ``evaluation.json`` holds them),
    the options it ran with, and what its folder would hold besides (per-example predictions,
    given predictions' files); ``out_dir`` and ``outputs`` once written."""

    config: EvaluateConfig
    findings: dict[str, Any]
    predictions: list[dict[str, Any]] = field(default_factory=list, repr=False)
    files: dict[str, str | bytes] = field(default_factory=dict, repr=False)
    out_dir: Path | None = None
    outputs: list[str] = field(default_factory=list)

    @property
    def table(self) -> list[dict[str, Any]]:
        """One row per split and baseline: test score, interval, relative error increase."""
        return list(self.findings["table"])

    @property
    def conclusions(self) -> list[dict[str, Any]]:
        """Each calibrated conclusion (question, outcome, evidence, test)."""
        return list(self.findings["conclusions"])

    def to_pandas(self) -> Any:
        """The comparison table as a DataFrame (the rows of :attr:`table`)."""
        import pandas

        return pandas.DataFrame(self.table)

    @keyword_spelling
    def write(self, out: str | Path, *, overwrite: bool = False, command: list[str] | None = None) -> EvaluationResult:
        """The evaluation folder — ``evaluation.json``, ``table.md``/``.csv``/``.tex``,
        ``report.html``, fairness tables, predictions, ``manifest.json`` — all or nothing,
        never over an input; the result with ``out_dir`` and ``outputs``."""
        out = path_argument("out", out, "a folder to write")
        config = dataclasses.replace(self.config, out=out, overwrite=bool(switch_argument("overwrite", overwrite)))
        check_output_folder(out, overwrite=overwrite, inputs=[*config.split_dirs, *config.predictions])
        outputs = _write_evaluation(Path(out), config, self.findings, self.predictions, self.files, command)
        return dataclasses.replace(self, config=config, out_dir=Path(out), outputs=outputs)

    def __repr__(self) -> str:
        where = f", out_dir={str(self.out_dir)!r}" if self.out_dir is not None else ""
        return f"EvaluationResult(splits={len(self.config.split_dirs)}, rows={len(self.table)}{where})"

    def console(self) -> View:
        """What ``tailsplit evaluate`` prints: the table, leakage warnings, the calibrated
        conclusions, the fairness check, projections from bucket accuracies, what was written."""
        found = self.findings
        view: View = [Line(table_markdown(found["table"]))]
        view += [Line(w.removeprefix("warning: "), warning=True) for w in found["leakage_warnings"]]
        view += [
            Line(f"conclusion: {c['baseline']}: {c['question']} — {c['outcome']} ({c['evidence']}).")
            for c in found["conclusions"]
        ]
        if found["fairness"] is not None:
            view.append(Line(fairness_console(found["fairness"])))
        view += [
            Line(
                f"{r['folder']}: {100 * r['test']:.1f} against {100 * r['projected']:.1f} projected from the "
                "random splits' bucket accuracies"
            )
            for r in found["results"]
            if r.get("projected") is not None
        ]
        if self.out_dir is not None:
            view.append(Line(f"wrote {self.out_dir}/ ({', '.join(self.outputs)}, manifest.json)"))
        return view

    def _repr_html_(self) -> str:
        rows = self.table
        table = html_table(rows, list(rows[0]) if rows else [])
        found = "".join(
            f"<li>{html.escape(c['baseline'])}: {html.escape(c['question'])} — <b>{html.escape(c['outcome'])}</b> "
            f"({html.escape(c['evidence'])})</li>"
            for c in self.conclusions
        )
        return f"<div><b>tailsplit evaluation</b>{table}{f'<ul>{found}</ul>' if found else ''}</div>"


def _write_evaluation(
    out: Path,
    config: EvaluateConfig,
    result: dict[str, Any],
    predictions: list[dict[str, Any]],
    files: dict[str, str | bytes],
    command: list[str] | None,
) -> list[str]:
    """The evaluation folder (tables, reports, predictions, manifest); the files it holds."""

    inputs = [
        {"path": str(Path(f) / "manifest.json"), "sha256": sha256_file(Path(f) / "manifest.json")}
        for f in config.split_dirs
    ]
    provenance = command_provenance(command, inputs, seed=config.seed)
    rows, warnings = result["table"], result["leakage_warnings"]
    found = [Conclusion(**c) for c in result["conclusions"]]
    fair = None if result["fairness"] is None else Fairness.from_dict(result["fairness"])
    fairness_text = fairness_markdown(fair)
    body = evaluation_markdown(rows, table_markdown(rows), conclusions_markdown(found), warnings, fairness_text)
    outputs: dict[str, str | bytes] = {
        "evaluation.json": strict_json(result),
        "table.md": with_provenance(body, provenance),
        "table.csv": table_csv(rows),
        "table.tex": table_latex(rows),
        **({"fairness.md": with_provenance(fairness_text, provenance)} if fair else {}),
        **({"fairness.csv": fairness_csv(fair)} if fair else {}),
        **_html_report(rows, provenance, body),
        **({"predictions.jsonl": predictions_jsonl(predictions)} if predictions else {}),
        **files,
    }
    manifest = write_outputs(out, config, outputs, inputs, {"models": result.get("models", {})}, command)
    return list(Manifest(manifest).outputs)


def _html_report(rows: list[dict[str, Any]], provenance: dict[str, Any], body: str) -> dict[str, str | bytes]:
    """``report.html`` (the same text as ``table.md``, with the charts) and its figures as files,
    when the analysis extra (matplotlib, markdown) is installed."""
    if not rows:
        return {}
    try:
        figures = evaluation_figures(rows)
        return {"report.html": evaluation_html(body, figures, provenance), **figure_files(figures)}
    except MissingDependencyError:
        return {}
