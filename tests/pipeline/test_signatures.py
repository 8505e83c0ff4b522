"""Every public command function has an explicit signature — each option a keyword parameter
with its type and the command line's default — generated from the config declarations into
``tailsplit/pipeline/signatures.py`` and held to them here: the file is what the declarations
give today (``TAILSPLIT_UPDATE_SNAPSHOTS=1`` rewrites it), ``help()`` and a notebook see every
option, and mypy catches a misspelt keyword in user code."""

from __future__ import annotations

import dataclasses
import inspect
import os
import subprocess
import sys
import textwrap
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT_DIR

import tailsplit
from tailsplit import config as c
from tailsplit.config.declare import declared_option, field_types
from tailsplit.errors import ConfigError

GENERATED = Path(tailsplit.__file__).parent / "pipeline" / "signatures.py"
RUN = (c.DataConfig, c.ScoringConfig, c.SplitConfig, c.OutputConfig)
DATA_AND_SCORING = (c.DataConfig, c.ScoringConfig)
NOT_KEYWORDS = {"paths", "dataset", "table"}  # given as the data argument, or not at all
# Calls that say themselves why a keyword does not apply (data as a keyword; a split option to
# score), refusing before any work.
EXPLAINED = {"likelihood_split", "split", "score"}

# name: (the internal call, its positional parameters as source, the configs, fields set by
# the call itself, keywords of the call that are no config field, its result type)
COMMANDS: dict[str, tuple[str, str, tuple[type, ...], set[str], str, str]] = {
    "likelihood_split": ("_likelihood_split", "data: Any", RUN, {"splitter"}, "progress: bool | None = None",
                         "RunResult"),
    "split": ("_split", "data: Any, splitter: str | Splitter = \"random\"", RUN, {"splitter"},
              "scores: str | os.PathLike[str] | None = None, progress: bool | None = None", "RunResult"),
    "score": ("_score", "data: Any", DATA_AND_SCORING, set(),
              "out: str | os.PathLike[str] | None = None, overwrite: bool = False, progress: bool | None = None",
              "ScoreResult"),
    "analyze": ("_analyze", "split: Any", (c.AnalyzeConfig,), {"split_dir", "compare"},
                "compare: Any = ()", "AnalysisResult"),
    "evaluate": ("_evaluate", "splits: Any", (c.EvaluateConfig,), {"split_dirs"}, "", "EvaluationResult"),
    "audit_overlap": ("_audit_overlap", "test: Any", (c.OverlapConfig,), {"test"},
                      "progress: bool | None = None", "OverlapResult"),
    "similarity": ("_similarity", "datasets: Any", (c.SimilarityConfig,), {"datasets"}, "", "SimilarityResult"),
    "ood_rank": ("_ood_rank", "id: Any, candidates: Any", (c.OodRankConfig,), {"id", "candidates"}, "",
                 "OodRankResult"),
    "correlate": ("_correlate", "points: Any", (c.CorrelateConfig,), {"points"}, "", "CorrelateResult"),
    "curve": ("_curve", "id: Any, ood: Any", (c.CurveConfig,), {"id", "ood"}, "", "CurveResult"),
    "export_hf": ("_export_hf", "split: Any, out: Any", (c.HfExportConfig,), {"split_dir", "out"}, "",
                  "HfExportResult"),
    "export_lm_eval": ("_export_lm_eval", "split: Any, out: Any", (c.LmEvalExportConfig,),
                       {"split_dir", "out"}, "accept_modified: bool = False", "LmEvalExportResult"),
    "export_weights": ("_export_weights", "out: Any", (c.WeightsExportConfig,), {"out"}, "", "WeightsExportResult"),
}  # fmt: skip


def type_source(hint: Any, path: bool) -> str:
    """A field's type as a parameter annotation: a list option takes one item or a sequence,
    a path option a path object too."""
    if hint is Any:
        return "Any"
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(dict.fromkeys(type_source(a, path) for a in args))
    if hint is type(None):
        return "None"
    if origin in (list, tuple):
        item = type_source(args[0], path)
        return f"{item} | Sequence[{item}]"
    if origin is dict:
        return "Mapping[str, str]"
    if hint is str and path:
        return "str | os.PathLike[str]"
    return hint.__name__


# Options whose Python default is not the config's: ``analyze`` is on by default only when a
# folder is written; in memory the analysis runs when ``analyze=True`` is passed.
PYTHON_DEFAULTS = {"analyze": "None"}


def default_source(f: dataclasses.Field[Any]) -> str:
    if f.name in PYTHON_DEFAULTS:
        return PYTHON_DEFAULTS[f.name]
    if f.default_factory is not dataclasses.MISSING:  # a list or dict: an empty tuple or None stands for it
        return "()" if isinstance(f.default_factory(), list) else "None"
    return repr(f.default)


def parameters(configs: tuple[type, ...], skipped: set[str]) -> list[tuple[str, str, str]]:
    """(name, annotation, default) of every keyword the configs declare, in declaration order."""
    out = []
    for cls in configs:
        hints = field_types(cls)
        for f in dataclasses.fields(cls):
            declared = declared_option(f)
            if declared is None or f.name in skipped | NOT_KEYWORDS:
                continue
            annotation = type_source(hints[f.name], declared.metavar in ("DIR", "FILE"))
            default = default_source(f)
            if default == "None" and "None" not in annotation:
                annotation += " | None"
            out.append((f.name, annotation, default))
    return out


def render_function(name: str) -> str:
    target, positional, configs, skipped, extra, result = COMMANDS[name]
    own = [p.strip() for p in extra.split(", ") if p.strip()] if extra else []
    own_names = {p.split(":")[0] for p in own}
    params = [f"{n}: {a} = {d}" for n, a, d in parameters(configs, skipped | own_names)]
    lines, line = [], "   "
    for item in [*params, *own]:
        piece = f" {item},"
        if len(line) + len(piece) > 116:
            lines.append(line)
            line = "   "
        line += piece
    lines.append(line)
    defaults = [n for n, _, _ in parameters(configs, skipped | own_names)]
    passed = ", ".join(p.split(":")[0] + "=" + p.split(":")[0] for p in own)
    call_args = ", ".join(a.split(":")[0].strip() for a in positional.split(", "))
    return "\n".join(
        [
            "",
            "",
            f"@_known_keywords({target if name in EXPLAINED else ''})",
            f"def {name}(",
            f"    {positional},",
            "    *,",
            *lines,
            f") -> {result}:",
            f"    given = _changed(locals(), _DEFAULTS[{name!r}])",
            f"    return {target}({call_args}, {passed + ', ' if passed else ''}**given)",
            "",
            "",
            f"{name}.__doc__ = {target}.__doc__  # type: ignore[attr-defined]",
            f"_DEFAULTS[{name!r}] = _defaults({name}, {sorted(defaults)!r})",
        ]
    )


HEADER = '''"""Every command as one Python function with an explicit signature: each option a keyword
parameter with its type and the command line's default, so ``help()``, a notebook's completion
and a type checker see them. Generated from the config declarations by ``tests/pipeline/test_signatures.py``
(``TAILSPLIT_UPDATE_SNAPSHOTS=1 pytest tests/pipeline/test_signatures.py`` rewrites it; the test fails
when it is out of date). Each function passes the options given — those not left at their
default — to the command's own call (in :mod:`.calls`, :mod:`.overlap`, :mod:`.shift`, ...), which checks
them as the command line's; an unknown keyword is refused naming the nearest ones (:mod:`.keywords`).
"""

# fmt: off
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from tailsplit.pipeline.analyze import AnalysisResult
from tailsplit.pipeline.analyze import analyze as _analyze
from tailsplit.pipeline.correlate import CorrelateResult
from tailsplit.pipeline.correlate import correlate as _correlate
from tailsplit.pipeline.curve import CurveResult
from tailsplit.pipeline.curve import curve as _curve
from tailsplit.pipeline.evaluate import EvaluationResult
from tailsplit.pipeline.evaluate import evaluate as _evaluate
from tailsplit.pipeline.export_hf import HfExportResult
from tailsplit.pipeline.export_hf import export_hf as _export_hf
from tailsplit.pipeline.export_lm_eval import LmEvalExportResult
from tailsplit.pipeline.export_lm_eval import export_lm_eval as _export_lm_eval
from tailsplit.pipeline.export_weights import WeightsExportResult
from tailsplit.pipeline.export_weights import export_weights as _export_weights
from tailsplit.pipeline.keywords import changed as _changed
from tailsplit.pipeline.keywords import defaults_of as _defaults
from tailsplit.pipeline.keywords import known_keywords as _known_keywords
from tailsplit.pipeline.ood_rank import OodRankResult
from tailsplit.pipeline.ood_rank import ood_rank as _ood_rank
from tailsplit.pipeline.overlap import OverlapResult
from tailsplit.pipeline.overlap import audit_overlap as _audit_overlap
from tailsplit.pipeline.result import RunResult
from tailsplit.pipeline.score import ScoreResult
from tailsplit.pipeline.score import score as _score
from tailsplit.pipeline.similarity import SimilarityResult
from tailsplit.pipeline.similarity import similarity as _similarity
from tailsplit.pipeline.split import likelihood_split as _likelihood_split
from tailsplit.pipeline.split import split as _split
from tailsplit.splits import Splitter

_DEFAULTS: dict[str, dict[str, Any]] = {}'''


def render() -> str:
    return HEADER + "".join(render_function(name) for name in COMMANDS) + "\n# fmt: on\n"


def test_the_signatures_are_generated_from_the_declarations() -> None:
    text = render()
    if os.environ.get("TAILSPLIT_UPDATE_SNAPSHOTS"):
        GENERATED.write_text(text, encoding="utf-8")
    assert GENERATED.read_text(encoding="utf-8") == text, (
        "tailsplit/pipeline/signatures.py is out of date: TAILSPLIT_UPDATE_SNAPSHOTS=1 pytest tests/pipeline/test_signatures.py"
    )


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_shows_every_option_with_the_command_lines_default(name: str) -> None:
    function = getattr(tailsplit, name)
    signature = inspect.signature(function).parameters
    _, _, configs, skipped, _, _ = COMMANDS[name]
    defaults = {f.name: getattr(cls(), f.name) for cls in configs for f in dataclasses.fields(cls)}
    for option, _, _ in parameters(configs, skipped):
        assert option in signature, (name, option)
        assert signature[option].kind is inspect.Parameter.KEYWORD_ONLY
        shown = signature[option].default
        if option in PYTHON_DEFAULTS:
            assert repr(shown) == PYTHON_DEFAULTS[option], (name, option)
        else:
            assert shown == defaults[option] or (shown in ((), None) and defaults[option] in ([], {})), (name, option)
    assert not any(p.kind is p.VAR_KEYWORD for p in signature.values())


def test_an_unknown_keyword_is_refused_naming_the_nearest() -> None:
    with pytest.raises(ConfigError, match=r"^balance_label=True is not an option; did you mean balance_labels"):
        tailsplit.split("d.jsonl", "random", balance_label=True)  # type: ignore[call-arg]


def test_mypy_catches_a_misspelt_keyword_in_user_code(tmp_path: Path) -> None:
    snippet = tmp_path / "user_code.py"
    snippet.write_text(
        textwrap.dedent(
            """
            import tailsplit

            tailsplit.split("d.jsonl", "random", text="hypothesis", balance_labels=True)
            tailsplit.likelihood_split("d.jsonl", balance_label=True)
            tailsplit.evaluate("split", baseline=["tfidf"])
            """
        ),
        encoding="utf-8",
    )
    checked = subprocess.run(  # the project's settings and cache (make lint has filled it: under a second)
        [sys.executable, "-m", "mypy", str(snippet)], capture_output=True, text=True, timeout=600, cwd=ROOT_DIR
    )
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 2, checked.stdout
    assert 'Unexpected keyword argument "balance_label"' in errors[0] and ":5:" in errors[0]
    assert 'Unexpected keyword argument "baseline"' in errors[1]
