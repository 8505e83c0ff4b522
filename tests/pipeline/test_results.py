"""Every command returns one typed result with one surface — ``to_pandas()``, ``write(...)`` or
``out=``, a notebook table and the console view the command line prints — and the command
line prints that view through one renderer, nothing else."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import io
import typing
from collections.abc import Mapping
from pathlib import Path

import pytest
from rich.console import Console

import tailsplit
from tailsplit.pipeline.analyze import AnalysisResult
from tailsplit.pipeline.correlate import CorrelateResult
from tailsplit.pipeline.curve import CurveResult
from tailsplit.pipeline.evaluate import EvaluationResult
from tailsplit.pipeline.export_hf import HfExportResult
from tailsplit.pipeline.export_lm_eval import LmEvalExportResult
from tailsplit.pipeline.export_weights import WeightsExportResult
from tailsplit.pipeline.findings import Findings
from tailsplit.pipeline.ood_rank import OodRankResult
from tailsplit.pipeline.overlap import OverlapResult
from tailsplit.pipeline.runs.result import RunResult
from tailsplit.pipeline.score import ScoreResult
from tailsplit.pipeline.similarity import SimilarityResult
from tailsplit.render.console import Line, Table, print_view

RESULTS = (RunResult, ScoreResult, AnalysisResult, EvaluationResult, OverlapResult, SimilarityResult, OodRankResult,
           CorrelateResult, CurveResult, LmEvalExportResult, HfExportResult, WeightsExportResult)  # fmt: skip
COMMANDS = ("likelihood_split", "split", "score", "analyze", "evaluate", "audit_overlap", "similarity", "ood_rank",
            "correlate", "curve", "export_hf", "export_lm_eval", "export_weights")  # fmt: skip
CLI = Path(tailsplit.__file__).parent / "cli"


def test_every_command_returns_one_of_the_typed_results() -> None:
    returned = {name: typing.get_type_hints(getattr(tailsplit, name))["return"] for name in COMMANDS}
    assert set(returned.values()) <= set(RESULTS), returned
    assert set(RESULTS) - {RunResult} <= set(returned.values())  # each result is some command's


@pytest.mark.parametrize("result", RESULTS, ids=lambda r: r.__name__)
def test_every_result_has_the_same_surface(result: type) -> None:
    for method in ("to_pandas", "console", "_repr_html_", "write"):
        assert callable(getattr(result, method, None)), (result, method)
    write = inspect.signature(result.write).parameters
    assert list(write)[:2] == ["self", "out"] and write["overwrite"].kind is inspect.Parameter.KEYWORD_ONLY
    assert write["overwrite"].default is False
    # typed: a dataclass of typed fields, the findings' content a TypedDict — never a mapping read by key
    assert dataclasses.is_dataclass(result) and not issubclass(result, Mapping), result
    if issubclass(result, Findings):
        hint = typing.get_args(result.__orig_bases__[0])[0]  # type: ignore[attr-defined]
        assert typing.is_typeddict(hint), (result, hint)


def test_the_command_line_prints_only_results_console_views() -> None:
    for module in ("run.py", "evaluate.py", "overlap.py", "shift.py", "export.py"):
        tree = ast.parse((CLI / module).read_text(encoding="utf-8"))
        prints = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "print"]
        assert prints == [], (module, prints)


def _printed(view: list) -> tuple[str, list[str]]:
    buffer, warned = io.StringIO(), []
    print_view(Console(file=buffer, width=200, markup=False), view, warned.append)
    return buffer.getvalue(), warned


def test_a_view_prints_data_as_inert_text() -> None:
    text, warned = _printed(
        [
            Table("t", ["name", "n"], [["[red]x[/red] \x1b[2J", "1"]]),
            Line("[bold]b[/bold] \x1b]0;title\x07"),
            Line("w", warning=True),
        ]  # fmt: skip
    )
    assert "[red]x[/red] \\x1b[2J" in text and "[bold]b[/bold]" in text and "\x1b" not in text and warned == ["w"]


def test_findings_views_say_what_the_command_line_said() -> None:
    overlap = OverlapResult(
        {"examples": 4, "overlap": 2, "clean": 2, "threshold": 2.5, "verbatim": 1, "copied_below_threshold": 0,
         "index": {"entries": 1200}, "ngram_contaminated": {"8": 1}, "accuracy": [],
         "cut": {"by": "top_quantile", "top_quantile": 0.5}},
        Path("audit"),
    )  # fmt: skip
    text, _ = _printed(overlap.console())
    assert text.splitlines() == [
        "4 test examples: 1 copied verbatim in the corpus, 1 share a 8-gram with it (index of 1,200 entries)",
        "partition: 2 overlapping — the top 50% of the test set by BM25 score (best BM25 ≥ 2.5), a share set by "
        "--top-quantile, not a finding, or copied (0 copied below the cut) — and 2 clean",
        "wrote audit/ (overlap, clean, audit.jsonl, summary.md, manifest.json)",
    ]
    assert overlap.to_pandas()["clean"].tolist() == [2] and "<table>" in overlap._repr_html_()
    assert _printed(CorrelateResult({"groups": {"all": {"type": None, "reason": "too few points"}}}).console())[0] == (
        "all: too few points\n"
    )
    export = LmEvalExportResult(
        {"task": "t", "lm_eval_model": {"model_args": None, "note": "kfold"}, "lm_eval_command": "lm_eval --tasks t",
         "local_to_this_machine": [], "upload_command": None, "outputs": {"t.yaml": "ab"}},
        Path("task"),
    )  # fmt: skip
    assert _printed(export.console())[0].splitlines() == [
        "wrote task t to task; no lm-eval model reproduces the split's scores (kfold):",
        "lm_eval --tasks t",
    ]
    assert export.rows() == [{"file": "t.yaml", "sha256": "ab"}] and export.content["task"] == "t"


def test_findings_are_abstract_each_command_names_its_table_and_view() -> None:
    with pytest.raises(TypeError):
        Findings({})  # type: ignore[abstract]
    assert all(not inspect.isabstract(r) for r in RESULTS)


def test_no_exported_name_shadows_a_module_of_the_orchestration_layer() -> None:
    import tailsplit.pipeline as pipeline

    modules = {path.stem for path in Path(pipeline.__file__).parent.glob("*.py")}
    assert not modules & set(pipeline.__all__), modules & set(pipeline.__all__)
