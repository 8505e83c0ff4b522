"""``tailsplit evaluate``: baselines trained on each split, compared with random splits."""

from __future__ import annotations

import dataclasses
import html
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tailsplit.analysis.split_dir import describe_split, read_split_parts
from tailsplit.cache import ScoreCache, default_cache_dir
from tailsplit.config import DataConfig, EvaluateConfig, check_values
from tailsplit.config.arguments import path_argument, switch_argument
from tailsplit.config.recorded import recorded_run
from tailsplit.errors import ConfigError, MissingDependencyError, keyword_spelling
from tailsplit.evaluation.baselines import (
    TRAINERS,
    PartInputs,
    TrainingContext,
    baselines_for,
    reference_results,
)
from tailsplit.evaluation.conclusions import Conclusion, conclusions, conclusions_markdown
from tailsplit.evaluation.fairness import (
    Fairness,
    SplitAgreement,
    fairness,
    fairness_console,
    fairness_csv,
    fairness_markdown,
)
from tailsplit.evaluation.predictions import given_prediction_rows, score_predictions
from tailsplit.evaluation.report import evaluation_figures, evaluation_html, evaluation_markdown
from tailsplit.evaluation.samples import below_chance_warnings, prediction_rows
from tailsplit.evaluation.table import (
    TABLE_HEADER,
    SplitScore,
    table_csv,
    table_display_rows,
    table_latex,
    table_markdown,
    table_rows,
)
from tailsplit.evaluation.zero_shot import check_zero_shot, zero_shot_classify
from tailsplit.fields import field_value
from tailsplit.fingerprint import sha256_file
from tailsplit.io.claims import released_on_error
from tailsplit.io.examples import label_to_str
from tailsplit.io.manifest import Manifest
from tailsplit.io.outputs import check_output_folder
from tailsplit.io.values import json_lines, strict_json
from tailsplit.pipeline.baseline_models import check_models
from tailsplit.pipeline.evaluate_checks import (
    check_comparable,
    check_trainable,
    leakage_of_test,
    leakage_warnings,
    same_encoder,
    split_agreements,
    text_field_of,
)
from tailsplit.pipeline.keywords import known_keywords, progress_shown
from tailsplit.pipeline.recording import command_provenance, write_outputs
from tailsplit.pipeline.runs.loading import template_for
from tailsplit.pipeline.runs.result import RunResult, folders_of
from tailsplit.progress import say, shown
from tailsplit.registry import SCORERS
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
        table = html_table(table_display_rows(self.table), TABLE_HEADER)  # as the report prints it
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
        "table.tex": table_latex(rows, out.name),
        **({"fairness.md": with_provenance(fairness_text, provenance)} if fair else {}),
        **({"fairness.csv": fairness_csv(fair)} if fair else {}),
        **_html_report(rows, provenance, body),
        **({"predictions.jsonl": json_lines(predictions)} if predictions else {}),
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


def _part_inputs(records: list[Any], data: DataConfig, input_fields: list[str]) -> PartInputs:
    fields = input_fields or [f for f in (data.context, data.text) if f]
    for raw in records:
        for name in fields + [f for f in (data.label, data.program) if f]:
            if not raw.has(name):
                raise raw.error("is missing", field=name, fix="evaluate the folder tailsplit wrote, unchanged")
    return PartInputs(
        columns=tuple(tuple(str(r.value(f)) for r in records) for f in fields),
        labels=tuple(label_to_str(r.value(data.label)) for r in records) if data.label else None,
        programs=tuple(str(r.value(data.program)) for r in records) if data.program else None,
    )


@released_on_error
@keyword_spelling
def evaluate_config(config: EvaluateConfig, *, command: list[str] | None = None) -> EvaluationResult:
    """Train and score every requested baseline on every split (or score the given
    predictions): the comparison table, conclusions and fairness table, written when
    ``config.out`` is set."""
    check_values(config)

    if not config.split_dirs:
        raise ConfigError("evaluate needs at least one split folder")
    if not 0.0 <= config.leakage_threshold <= 1.0:
        raise ConfigError(f"--leakage-threshold={config.leakage_threshold!r} must lie in [0, 1]")
    if config.predictions and len(config.predictions) != len(config.split_dirs):
        raise ConfigError(
            f"--predictions names {len(config.predictions)} files for {len(config.split_dirs)} split "
            "folders; give one predictions file per folder, in the same order"
        )
    if config.out is not None:
        check_output_folder(config.out, overwrite=config.overwrite, inputs=[*config.split_dirs, *config.predictions])
    folders = [read_split_parts(folder, accept_modified=config.accept_modified) for folder in config.split_dirs]
    check_comparable(config.split_dirs, [manifest for manifest, _ in folders])  # every folder read before training
    if not config.predictions:
        check_trainable(config, folders)
    agreement = split_agreements(config, folders)
    models = check_models(config, [m for m, _ in folders])
    files: dict[str, str | bytes] = {}
    leakage: dict[str, dict[str, float]] = {}
    predictions: list[dict[str, Any]] = []
    try:
        if config.predictions:
            scored = [
                score_predictions(folder, describe_split(manifest), manifest, parts["test"], path, config.bucket)
                for folder, (manifest, parts), path in zip(config.split_dirs, folders, config.predictions)
            ]
            scores, details, files = given_prediction_rows(scored, config.bucket)
        else:
            scores, details, predictions, leakage = _trained_baselines(config, folders, models)
    finally:
        models.close()
    evaluation = EvaluationResult(
        config, _findings(config, folders, scores, details, leakage, agreement, models), predictions, files
    )
    return (
        evaluation if config.out is None else evaluation.write(config.out, overwrite=config.overwrite, command=command)
    )


def _trained_baselines(
    config: EvaluateConfig, folders: list[tuple[Manifest, dict[str, list[Any]]]], models: Any
) -> tuple[list[SplitScore], list[dict[str, Any]], list[dict[str, Any]], dict[str, dict[str, float]]]:
    """Every requested baseline trained on each split's train part and scored on its test
    part: (scores, per-result details, per-example predictions, test leakage per folder)."""

    scores, details, predictions = [], [], []
    leakage: dict[str, dict[str, float]] = {}
    for folder, (manifest, parts) in zip(config.split_dirs, folders):
        data = recorded_run(manifest).data
        train, dev, test = (_part_inputs(parts[p], data, config.input_fields) for p in ("train", "dev", "test"))
        leakage[Path(folder).name] = leakage_of_test(parts, data)
        test_ids = tuple(label_to_str(field_value(r.record, data.id, r.row)) for r in parts["test"])
        context = TrainingContext(data, manifest, models, config.seed)
        results = [_zero_shot(manifest, parts, config)] if config.zero_shot else []
        for name in baselines_for(data, config.baselines, config.input_fields):
            say(f"{Path(folder).name}: {name} on {len(train):,} training examples, {len(test):,} test examples")
            results.append(TRAINERS[name](train, dev, test, context))
        if train.labels is not None and any(r.metric == "accuracy" for r in results):
            results += reference_results(train, dev, test)
        kind, sizes = describe_split(manifest), [len(train), len(dev), len(test)]
        gold = test.labels or test.programs or ()
        for r in results:
            predictions += prediction_rows(Path(folder).name, kind, r, test_ids, gold)
            scores.append(
                SplitScore(Path(folder).name, kind, r.baseline, r.metric, r.dev, r.test, test_ids, r.test_correct)
            )
            details.append({"folder": str(folder), "split": kind, "sizes": sizes, **r.as_dict()})
    return scores, details, predictions, leakage


def _findings(
    config: EvaluateConfig,
    folders: list[tuple[Manifest, dict[str, list[Any]]]],
    scores: list[SplitScore],
    details: list[dict[str, Any]],
    leakage: dict[str, dict[str, float]],
    agreement: list[SplitAgreement],
    models: Any,
) -> dict[str, Any]:
    """What the scores show: the table, warnings, conclusions and the fairness table."""
    for d in details:
        d["test_queries_in_train"] = leakage.get(Path(d["folder"]).name)
    rows = table_rows(scores)
    warnings = leakage_warnings(scores, leakage, config.leakage_threshold, data_text=text_field_of(folders))
    test_sizes = {Path(d["folder"]).name: d["sizes"][2] for d in details if d.get("sizes")}
    found = conclusions(rows, test_sizes, [w for w in warnings if "inflates" in w], config.leakage_threshold)
    warnings += below_chance_warnings(rows, test_sizes)
    fair = fairness(
        scores,
        agreement,
        test_sizes,
        margin=config.fairness_margin,
        aflite_encoder_matches=same_encoder(config, models.identity, [m for m, _ in folders]),
    )
    return {
        "models": models.describe(),
        "results": details,
        "table": rows,
        "conclusions": [c.as_dict() for c in found],
        "fairness": None if fair is None else fair.as_dict(),
        "leakage_warnings": warnings,
    }


def _zero_shot(manifest: Manifest, parts: dict[str, list[Any]], config: EvaluateConfig) -> Any:
    """The split's own LM, with the split's scoring settings, as a zero-shot classifier."""

    data = recorded_run(manifest).data
    scoring = recorded_run(manifest).scoring
    scoring.method = "prompted"
    if config.zero_shot_template:
        scoring.template = config.zero_shot_template
    template = template_for(scoring)
    check_zero_shot(data, template)
    labels = sorted({label_to_str(r.value(data.label)) for r in parts["train"]}) if data.label else []
    scorer = SCORERS.create(scoring.backend, **scoring.scorer_params(SCORERS.get(scoring.backend)))
    cache = ScoreCache(scoring.cache_dir or default_cache_dir()) if scoring.use_cache else None
    try:
        return zero_shot_classify(parts["test"], labels, data, template, scorer, cache)
    finally:
        if cache is not None:
            cache.close()


# fmt: off
@known_keywords()
def evaluate(
    splits: RunResult | str | os.PathLike[str] | Sequence[RunResult | str | os.PathLike[str]],
    *,
    baselines: str | Sequence[str] = (), input_fields: str | Sequence[str] = (),
    predictions: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] = (), bucket: str | None = None,
    zero_shot: bool = False, zero_shot_template: str | None = None, encoder: str | None = None,
    max_steps: int = 800, max_train: int | None = None, device: str = "auto", leakage_threshold: float = 0.05,
    agreement_field: str | None = None, fairness_margin: float = 0.02, accept_modified: bool = False, seed: int = 0,
    out: str | os.PathLike[str] | None = None, overwrite: bool = False, progress: bool | None = None,
) -> EvaluationResult:
    """``tailsplit evaluate``: baselines trained on each split's train part and scored on its
    test part, compared with the random splits among ``splits`` (split folders, or results of
    :func:`~tailsplit.likelihood_split` / :func:`~tailsplit.split`; one split as itself);
    nothing is written unless ``out`` is given (or ``result.write(out)`` is called).

    >>> tailsplit.evaluate(["snli-ll", "snli-random-0"], baselines=["tfidf"]).to_pandas()  # doctest: +SKIP
    """
    config = EvaluateConfig(
        split_dirs=folders_of(splits), baselines=baselines, input_fields=input_fields,  # type: ignore[arg-type]
        predictions=predictions, bucket=bucket, zero_shot=zero_shot,  # type: ignore[arg-type]
        zero_shot_template=zero_shot_template, encoder=encoder, max_steps=max_steps, max_train=max_train,
        device=device, leakage_threshold=leakage_threshold, agreement_field=agreement_field,
        fairness_margin=fairness_margin, accept_modified=accept_modified, seed=seed,
        out=out, overwrite=overwrite)  # type: ignore[arg-type]
    check_values(config)
    with shown(progress_shown(progress)):
        return evaluate_config(config)
# fmt: on
