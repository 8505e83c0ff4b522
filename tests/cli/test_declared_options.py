"""Each option is declared once, as a config field: the command line, its help, recipes and
Python calls all come from that field."""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import typer
from helpers import ROOT_DIR, nli_pairs, split_args, write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.cli.declared import COMMON, declared_fields
from tailsplit.config import (
    COMMAND_CONFIGS,
    AnalyzeConfig,
    CorrelateConfig,
    CurveConfig,
    DataConfig,
    EvaluateConfig,
    ExploreConfig,
    HfExportConfig,
    LmEvalExportConfig,
    OodRankConfig,
    OutputConfig,
    OverlapConfig,
    RunConfig,
    ScoringConfig,
    SimilarityConfig,
    SplitConfig,
    WeightsExportConfig,
    declared_option,
)

SNAPSHOTS = ROOT_DIR / "tests" / "snapshots" / "help"
# Each command: the config classes it reads, and its own options that are no config field
# (the files a command reads or writes beside its config).
COMMANDS: dict[tuple[str, ...], tuple[tuple[type, ...], set[str]]] = {
    ("run",): ((DataConfig, ScoringConfig, SplitConfig, OutputConfig), set()),
    ("score",): ((DataConfig, ScoringConfig), {"out", "overwrite"}),
    ("split",): ((DataConfig, SplitConfig, OutputConfig), {"scores"}),
    ("analyze",): ((AnalyzeConfig,), set()),
    ("evaluate",): ((EvaluateConfig,), set()),
    ("explore",): ((ExploreConfig,), set()),
    ("overlap",): ((OverlapConfig,), set()),
    ("similarity",): ((SimilarityConfig,), set()),
    ("ood-rank",): ((OodRankConfig,), set()),
    ("correlate",): ((CorrelateConfig,), set()),
    ("curve",): ((CurveConfig,), set()),
    ("export", "lm-eval"): ((LmEvalExportConfig,), set()),
    ("export", "hf"): ((HfExportConfig,), set()),
    ("export", "weights"): ((WeightsExportConfig,), set()),
}
runner = CliRunner()


def click_command(path: tuple[str, ...]) -> Any:
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    return command


def test_every_command_is_listed_here() -> None:
    root = typer.main.get_command(app)
    listed = {p[0] for p in COMMANDS}
    assert set(root.commands) == listed
    assert set(root.commands["export"].commands) == {p[1] for p in COMMANDS if p[0] == "export"}


@pytest.mark.parametrize("path", list(COMMANDS), ids=" ".join)
def test_every_option_is_one_config_field_and_every_field_one_option(path: tuple[str, ...]) -> None:
    classes, own = COMMANDS[path]
    params = [p for p in click_command(path).params if p.name not in ("help", "help_all", "ctx")]
    fields = {f.name: f for cls in classes for f in declared_fields(cls)}
    for param in params:
        assert param.name in fields or param.name in own | set(COMMON), f"{path}: {param.name} is no field"
    names = [p.name for p in params]
    assert len(names) == len(set(names))
    flags = [flag for p in params for flag in [*p.opts, *p.secondary_opts]]
    assert len(flags) == len(set(flags)), f"{path}: a flag is declared twice"
    left_out = set(fields) - set(names)
    if path == ("score",):  # scoring reads no programs and takes no outside scores
        assert left_out == {"program", "program_kind", "count", "score_column", "model_name"}
    else:
        assert not left_out


def test_every_field_is_an_option_of_some_command() -> None:
    """A field the command line cannot set says so (``command_line=False``); only the
    in-memory table is one."""
    reachable = {(cls, f.name) for classes, _ in COMMANDS.values() for cls in classes for f in declared_fields(cls)}
    for cls in COMMAND_CONFIGS:
        for f in dataclasses.fields(cls):
            declared = declared_option(f)
            if declared is None or not declared.command_line:
                assert (cls, f.name) == (DataConfig, "table"), f"{cls.__name__}.{f.name} has no option"
            else:
                assert (cls, f.name) in reachable
                assert declared.help.strip()


def help_text(path: tuple[str, ...], flag: str = "-h") -> str:
    result = runner.invoke(
        app, [*path, flag], prog_name="tailsplit", env={"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}
    )
    assert result.exit_code == 0, result.output
    return "\n".join(line.rstrip() for line in result.output.splitlines()) + "\n"


@pytest.mark.parametrize("path", list(COMMANDS), ids=" ".join)
def test_help_matches_its_snapshot(path: tuple[str, ...]) -> None:
    """``tailsplit COMMAND -h`` as a user sees it (100 columns). After an intended change,
    rewrite the snapshots with TAILSPLIT_UPDATE_SNAPSHOTS=1 and read the diff."""
    shown = help_text(path)
    snapshot = SNAPSHOTS / f"{'-'.join(path)}.txt"
    if os.environ.get("TAILSPLIT_UPDATE_SNAPSHOTS"):
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_text(shown, encoding="utf-8")
    assert shown == snapshot.read_text(encoding="utf-8")
    assert "<list" not in shown and "<bool>" not in shown and "<str>" not in shown and "<int>" not in shown


@pytest.mark.parametrize("path", list(COMMANDS), ids=" ".join)
def test_help_shows_each_true_default(path: tuple[str, ...]) -> None:
    every = any(p.name == "help_all" for p in click_command(path).params)
    shown = " ".join(help_text(path, "--help-all" if every else "-h").replace("│", " ").split())
    options = {p.name for p in click_command(path).params}
    for cls in COMMANDS[path][0]:
        for f in declared_fields(cls):
            if f.name not in options or f.name in COMMANDS[path][1]:
                continue
            declared = declared_option(f)
            assert declared is not None
            default = getattr(cls(), f.name)
            if declared.shown_default is not None:
                expected = declared.shown_default
            elif isinstance(default, bool) or default in (None, "", [], {}):
                continue
            else:
                expected = ",".join(map(str, default)) if isinstance(default, tuple) else str(default)
            assert f"[default: {' '.join(expected.split())}]" in shown, (path, f.name)


def test_batch_tokens_help_states_the_device_defaults() -> None:
    shown = " ".join(help_text(("run",), "--help-all").replace("│", " ").split())
    assert "Padded tokens per batch. [default: 1024 on a CPU; on a GPU from its free memory" in shown
    assert "--max-batch-size" in shown


def seeded_split_args(data: Path, out: Path) -> list[str]:
    return split_args(data, out, "--seed", "3", "--dev-size", "0.2", "--test-size", "4", "--balance-labels")


def manifest_config(out: Path) -> dict[str, Any]:
    return json.loads((out / "manifest.json").read_text())["config"]


def test_a_recipe_a_command_line_and_a_python_call_give_the_same_config(tmp_path: Path) -> None:
    data = tmp_path / "pairs.jsonl"
    write_jsonl(data, nli_pairs(30))
    by_cli = tmp_path / "cli"
    assert runner.invoke(app, seeded_split_args(data, by_cli)).exit_code == 0
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(
        f'[data]\npaths = ["{data}"]\ntext = "hypothesis"\nlabel = "label"\n'
        '[split]\nsplitter = "random"\nseed = 3\ndev_size = 0.2\ntest_size = 4\nbalance_labels = true\n'
        f'[output]\nanalyze = false\nout = "{tmp_path / "recipe"}"\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["split", "--config", str(recipe)])
    assert result.exit_code == 0, result.output
    from tailsplit import pipeline

    config = RunConfig(
        data=DataConfig(paths=[str(data)], text="hypothesis", label="label"),
        split=SplitConfig(splitter="random", seed=3, dev_size=0.2, test_size=4, balance_labels=True),
        output=OutputConfig(analyze=False, out=str(tmp_path / "python")),
    )
    pipeline.run(config, score_missing=False)
    configs = [manifest_config(tmp_path / name) for name in ("cli", "recipe", "python")]
    for c in configs:
        c["output"].pop("out")
    assert configs[0] == configs[1] == configs[2]


def test_options_on_the_command_line_override_the_recipe_and_no_others(tmp_path: Path) -> None:
    data = tmp_path / "pairs.jsonl"
    write_jsonl(data, nli_pairs(30))
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(
        f'[data]\npaths = ["{data}"]\ntext = "hypothesis"\nlabel = "label"\n'
        '[split]\nsplitter = "random"\nseed = 3\nbalance_labels = true\n[output]\nanalyze = false\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = runner.invoke(app, ["split", "--config", str(recipe), "--seed", "4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    config = manifest_config(out)
    assert config["split"]["seed"] == 4 and config["split"]["balance_labels"] is True
    assert config["output"]["analyze"] is False


def test_quiet_and_verbose_work_after_the_subcommand(tmp_path: Path) -> None:
    data = tmp_path / "pairs.jsonl"
    write_jsonl(data, nli_pairs(30))
    quiet = runner.invoke(app, [*seeded_split_args(data, tmp_path / "q"), "-q"])
    assert quiet.exit_code == 0, quiet.output
    assert "note:" not in quiet.stderr and "debug:" not in quiet.stderr
    loud = runner.invoke(app, [*seeded_split_args(data, tmp_path / "v"), "-v"])
    assert loud.exit_code == 0, loud.output
    assert re.search(r"^debug: ", loud.stderr, re.M), loud.stderr


def test_values_are_checked_once_in_the_config_whichever_way_they_come(tmp_path: Path) -> None:
    data = tmp_path / "pairs.jsonl"
    write_jsonl(data, nli_pairs(30))
    result = runner.invoke(app, ["run", str(data), "--dtype", "float8", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "--dtype='float8' is unknown; did you mean 'float32'? use one of ['float32'," in " ".join(
        result.output.split()
    )
    with pytest.raises(Exception, match=r"^dtype='float8' is unknown"):
        ScoringConfig(dtype="float8")
    recipe = tmp_path / "recipe.toml"
    recipe.write_text('[scoring]\ndtype = "float8"\n', encoding="utf-8")
    result = runner.invoke(app, ["run", str(data), "--config", str(recipe)])
    assert result.exit_code == 2 and "'float8' is unknown" in result.output


@pytest.mark.parametrize("path", [("run",), ("split",), ("score",)], ids=" ".join)
def test_short_help_leaves_the_rarely_set_options_to_help_all(path: tuple[str, ...]) -> None:
    """-h shows the options most calls set and names the panels --help-all adds; --help-all
    shows every option; -h after it is short again (the command object is shared in-process)."""
    classes = COMMANDS[path][0]
    more = {f.name for cls in classes for names in getattr(cls, "MORE_PANELS", {}).values() for f in
            declared_fields(cls) if f.name in names}  # fmt: skip
    options = {p.name: p for p in click_command(path).params}
    hidden = [options[name] for name in more if name in options]
    assert hidden, path
    short, every = help_text(path), help_text(path, "--help-all")

    def rows(text: str) -> set[str]:  # the flags of the options' table rows (not the examples below it)
        return {line.split()[1] for line in text.splitlines() if line.startswith("│ --")}

    assert "--help-all" in rows(short) and not rows(short) & {p.opts[0] for p in hidden}
    assert {p.opts[0] for p in hidden} <= rows(every)
    panels = {panel for cls in classes for panel in getattr(cls, "MORE_PANELS", {})}
    flat = " ".join(short.replace("│", " ").split())
    assert all(
        f"─ {panel} ─" in every and panel.lower() in flat for panel in panels
    )  # named in -h, shown by --help-all
    assert help_text(path) == short
    assert "…" not in short + every  # no flag cut short, no choice list wrapped inside a word
    assert len(short.splitlines()) < len(every.splitlines())
    assert path != ("run",) or len(short.splitlines()) <= 150  # 309 lines at 100 columns when -h showed all
