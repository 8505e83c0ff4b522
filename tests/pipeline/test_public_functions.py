"""Every command's Python function is hand-written in its module; this one test holds its
signature to its config's declarations (as scikit-learn's ``test_public_functions.py`` holds
its functions to their parameter constraints): each keyword-only parameter is a declared field
with the field's type (as a caller may give it: a path object for a path, one item for a list)
and the command line's default, in declaration order, and no field is missing. A new option
declared on a config and left out of the function, or a default changed in one place only,
fails here, naming the command and the parameter.

The splitters are held to the same declarations: each splitter class's parameters are
:class:`~tailsplit.SplitConfig` fields with its types and defaults."""

from __future__ import annotations

import dataclasses
import inspect
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
from tailsplit.splits import SPLITTERS, Splitter

NOT_KEYWORDS = {"paths", "dataset", "table"}  # given as the data argument, or not at all
DATA_FIELDS = [f.name for f in dataclasses.fields(c.DataConfig) if f.name not in NOT_KEYWORDS]


def accepted_by(cls: type[Splitter]) -> set[str]:
    """The split fields a splitter takes (the encoder for one that reads feature vectors)."""
    return set(inspect.signature(cls.__init__).parameters) - {"self"} | ({"encoder"} if cls.needs_features else set())


ALL_SPLIT = {f.name for f in dataclasses.fields(c.SplitConfig)} - {"splitter"}
NO_SPLIT: set[str] = set()


@dataclasses.dataclass(frozen=True)
class Command:
    """A command's function as its declarations make it: the configs whose fields are its
    keywords (for a run, the split fields it takes), its positional parameters, the fields
    they (or the call itself) set, and its own keywords that are no field."""

    configs: tuple[type, ...]
    positional: tuple[str, ...]
    set_by_call: frozenset[str] = frozenset()
    own: tuple[tuple[str, str, str], ...] = ()  # (name, annotation, default)
    split_fields: frozenset[str] = frozenset(ALL_SPLIT)


PROGRESS = ("progress", "bool | None", "None")
RUN = (c.DataConfig, c.ScoringConfig, c.SplitConfig, c.OutputConfig)
COMMANDS: dict[str, Command] = {
    "likelihood_split": Command(RUN, ("data",), own=(PROGRESS,),
                                split_fields=frozenset(accepted_by(SPLITTERS["likelihood"]))),
    "split": Command((c.DataConfig, c.SplitConfig, c.OutputConfig), ("data", "splitter"),
                     own=(("scores", "str | os.PathLike[str] | None", "None"), PROGRESS)),
    "score": Command((c.DataConfig, c.ScoringConfig), ("data",),
                     own=(("out", "str | os.PathLike[str] | None", "None"), ("overwrite", "bool", "False"), PROGRESS)),
    "analyze": Command((c.AnalyzeConfig,), ("split",), frozenset({"split_dir", "compare"}),
                       own=(("compare", "SplitSource | Sequence[SplitSource]", "()"),)),
    "evaluate": Command((c.EvaluateConfig,), ("splits",), frozenset({"split_dirs"}), own=(PROGRESS,)),
    "explore": Command((c.ExploreConfig,), ("splits",), frozenset({"split_dirs"})),
    "audit_overlap": Command((c.OverlapConfig,), ("test",), frozenset({"test"}), own=(PROGRESS,)),
    "similarity": Command((c.SimilarityConfig,), ("datasets",), frozenset({"datasets"}), own=(PROGRESS,)),
    "ood_rank": Command((c.OodRankConfig,), ("id", "candidates"), frozenset({"id", "candidates"}), own=(PROGRESS,)),
    "correlate": Command((c.CorrelateConfig,), ("points",), frozenset({"points"})),
    "curve": Command((c.CurveConfig,), ("id", "ood"), frozenset({"id", "ood"}), own=(PROGRESS,)),
    "export_hf": Command((c.HfExportConfig,), ("split", "out"), frozenset({"split_dir", "out"})),
    "export_lm_eval": Command((c.LmEvalExportConfig,), ("split", "out"), frozenset({"split_dir", "out"}),
                              own=(("accept_modified", "bool", "False"),)),
    "export_weights": Command((c.WeightsExportConfig,), ("out",), frozenset({"out"})),
}  # fmt: skip

# Options whose Python default is not the config's: ``analyze`` is on by default only when a
# folder is written; in memory the analysis runs when ``analyze=True`` is passed.
PYTHON_DEFAULTS = {"analyze": "None"}


def type_source(hint: Any, path: bool) -> str:
    """A field's type as a caller may give it: a list option takes one item or a sequence, a
    path option a path object too, a mapping any mapping."""
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


def default_source(f: dataclasses.Field[Any]) -> str:
    if f.name in PYTHON_DEFAULTS:
        return PYTHON_DEFAULTS[f.name]
    if f.default_factory is not dataclasses.MISSING:  # a list or dict: an empty tuple or None stands for it
        return "()" if isinstance(f.default_factory(), list) else "None"
    return repr(f.default)


def declared_parameters(command: Command) -> list[tuple[str, str, str]]:
    """(name, annotation, default) of every keyword the declarations give the command."""
    out = []
    own = {name for name, _, _ in command.own}
    for cls in command.configs:
        hints = field_types(cls)
        for f in dataclasses.fields(cls):
            declared = declared_option(f)
            if declared is None or f.name in command.set_by_call | own | NOT_KEYWORDS:
                continue
            if cls is c.SplitConfig and f.name not in command.split_fields:
                continue
            annotation = type_source(hints[f.name], declared.metavar in ("DIR", "FILE"))
            default = default_source(f)
            if default == "None" and "None" not in annotation:
                annotation += " | None"
            out.append((f.name, annotation, default))
    return out + list(command.own)


def written_parameters(function: Any) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The function's positional names, and (name, annotation, default) of its keywords."""
    parameters = inspect.signature(function).parameters.values()
    positional = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
    keywords = [(p.name, str(p.annotation), repr(p.default)) for p in parameters if p.kind is p.KEYWORD_ONLY]
    assert not any(p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in parameters)
    return positional, keywords


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_commands_signature_is_its_declarations(name: str) -> None:
    positional, keywords = written_parameters(getattr(tailsplit, name))
    command = COMMANDS[name]
    assert positional == list(command.positional), name
    expected = declared_parameters(command)
    missing = [p[0] for p in expected if p[0] not in {k[0] for k in keywords}]
    extra = [k[0] for k in keywords if k[0] not in {p[0] for p in expected}]
    assert not missing and not extra, f"{name}: parameters missing {missing}, not declared {extra}"
    for written, declared in zip(keywords, expected, strict=True):
        assert written == declared, f"{name}: {written} is declared as {declared}"


def test_every_exported_command_is_held_here() -> None:
    commands = {
        name for name in tailsplit.__all__ if inspect.isfunction(getattr(tailsplit, name)) and
        getattr(tailsplit, name).__module__.startswith("tailsplit.pipeline.") and not name.endswith("_dataset")
    }  # fmt: skip
    assert commands - {"run"} == set(COMMANDS)


@pytest.mark.parametrize("name", sorted(SPLITTERS))
def test_a_splitters_parameters_are_the_split_declarations(name: str) -> None:
    cls = SPLITTERS[name]
    hints = field_types(c.SplitConfig)
    fields = {f.name: f for f in dataclasses.fields(c.SplitConfig)}
    for parameter in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        assert parameter.kind is parameter.KEYWORD_ONLY, (name, parameter.name)
        assert parameter.name in fields, f"{cls.__name__}({parameter.name}=) is no SplitConfig field"
        assert parameter.annotation == type_source(hints[parameter.name], False), (name, parameter.name)
        assert parameter.default == fields[parameter.name].default, (name, parameter.name)


def test_likelihood_split_lists_only_what_a_likelihood_split_takes() -> None:
    keywords = {k for k, _, _ in written_parameters(tailsplit.likelihood_split)[1]}
    assert not keywords & {"partitions", "rounds", "train_share", "length_of", "max_iterations", "encoder"}
    split_keywords = {k for k, _, _ in written_parameters(tailsplit.split)[1]}
    assert not split_keywords & {f.name for f in dataclasses.fields(c.ScoringConfig)}


def test_a_keyword_of_another_command_is_refused_saying_why() -> None:
    with pytest.raises(ConfigError, match=r"^partitions=3 does not apply to splitter='likelihood'; it accepts"):
        tailsplit.likelihood_split("d.jsonl", partitions=3)  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match=r"^model='x' \(\[scoring\] model\) has an effect only when the run scores"):
        tailsplit.split("d.jsonl", "random", model="x")  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match=r"^dev_size= does not apply to score"):
        tailsplit.score("d.jsonl", dev_size=3)  # type: ignore[call-arg]


def test_an_unknown_keyword_is_refused_naming_the_nearest() -> None:
    with pytest.raises(ConfigError, match=r"^balance_label=True is not an option; did you mean balance_labels"):
        tailsplit.split("d.jsonl", "random", balance_label=True)  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match=r"^baseline=\['tfidf'\] is not an option; did you mean baselines"):
        tailsplit.evaluate("split", baseline=["tfidf"])  # type: ignore[call-arg]


def test_one_item_and_path_objects_are_kept_in_their_declared_form() -> None:
    config = c.CurveConfig(id="a", ood="b", train_sizes=500, label_map=("a=b",), out=Path("o"))  # type: ignore[arg-type]
    assert (config.ood, config.train_sizes, config.label_map, config.out) == (["b"], (500,), ["a=b"], "o")


def test_mypy_catches_a_misspelt_keyword_in_user_code(tmp_path: Path) -> None:
    snippet = tmp_path / "user_code.py"
    snippet.write_text(
        textwrap.dedent(
            """
            import tailsplit

            tailsplit.split("d.jsonl", "random", text="hypothesis", balance_labels=True)
            tailsplit.likelihood_split("d.jsonl", balance_label=True)
            tailsplit.evaluate("split", baseline=["tfidf"])
            tailsplit.split("d.jsonl", tailsplit.AfliteSplitter(partitions=32, rounds=3))
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
