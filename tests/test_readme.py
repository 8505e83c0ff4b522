"""The code of the README and of the documentation pages runs as written.

Every ```python block — the README's, then each page's in the site's order — runs, in order
and in one namespace (as a notebook would), in a folder
holding the bundled SNLI sample under its own name — its first ``TAILSPLIT_README_ROWS`` rows
(default 150; 3000 runs the full sample). Every ``tailsplit`` command of a ```bash block is
parsed by the real command line (options and their values checked; nothing runs), so a
renamed or misspelt option in the README fails here.

Slow: the Python example scores the sample with the bundled model.
"""

from __future__ import annotations

import gzip
import os
import shlex
import shutil
from pathlib import Path

import pytest
from helpers import SAMPLE, blocks, pages, shell_lines

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"


def test_every_page_of_the_site_is_in_its_navigation() -> None:
    listed = {p.relative_to(ROOT / "docs").as_posix() for p in pages()[1:]}
    assert listed == {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}


def commands(block: str) -> list[list[str]]:
    """The ``tailsplit`` command lines of a shell block (continuations joined, comments dropped)."""
    out = []
    for line in shell_lines(block):
        words = shlex.split(line, comments=True)
        if words and words[0] == "tailsplit":
            out.append(words[1:])
    return out


def test_the_readme_has_python_and_shell_examples() -> None:
    assert len(blocks("python", [README])) >= 1 and sum(len(commands(b)) for b in blocks("bash", [README])) >= 5
    assert len(blocks("python")) >= 3 and sum(len(commands(b)) for b in blocks("bash")) >= 15


@pytest.mark.slow
def test_every_python_block_runs_as_written(tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    _sample_folder(tmp_path, model_cache, monkeypatch)
    namespace: dict[str, object] = {"__name__": "readme"}
    for i, block in enumerate(blocks("python")):
        exec(compile(block, f"python block {i + 1}", "exec"), namespace)  # noqa: S102 - the docs' own code
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "examples"]  # the examples write nothing


@pytest.mark.slow
def test_the_readmes_command_line_example_runs_as_written(
    tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every ``tailsplit`` command of the README, in order, on the bundled sample (its first
    ``TAILSPLIT_README_ROWS`` rows), scored with the bundled model."""
    from typer.testing import CliRunner

    from tailsplit.cli import app

    pytest.importorskip("torch")
    _sample_folder(tmp_path, model_cache, monkeypatch)
    runner = CliRunner()
    for command in [c for b in blocks("bash", [README]) for c in commands(b)]:
        result = runner.invoke(app, command)
        assert result.exit_code == 0, f"tailsplit {' '.join(command)}: {result.output[-2000:]}"


def _sample_folder(tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A working folder holding the bundled sample's first rows under its own name, and a
    cache with the converted bundled model."""
    rows = int(os.environ.get("TAILSPLIT_README_ROWS", "60"))
    data = tmp_path / "examples" / "data" / SAMPLE.name
    data.parent.mkdir(parents=True)
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as source, gzip.open(data, "wt", encoding="utf-8") as target:
        target.writelines(line for _, line in zip(range(rows), source))
    cache = tmp_path / "cache"
    shutil.copytree(model_cache / "models", cache / "models", copy_function=os.link)
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(cache))
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("command", [c for b in blocks("bash") for c in commands(b)], ids=lambda c: " ".join(c)[:60])
def test_every_shell_command_parses(command: list[str]) -> None:
    import typer

    from tailsplit.cli import app

    group = typer.main.get_command(app)  # typer's own click: its classes are matched by what they do
    context = group.make_context("tailsplit", list(command), resilient_parsing=True)
    name, sub, rest = group.resolve_command(context, list(command))
    assert sub is not None, command
    while hasattr(sub, "resolve_command") and rest:  # a group of commands (tailsplit export hf)
        inner = sub.make_context(name or "", list(rest), parent=context, resilient_parsing=True)
        name, sub, rest = sub.resolve_command(inner, list(rest))
        context = inner
    try:
        sub.make_context(name or "", list(rest), parent=context)
    except Exception as exc:  # noqa: BLE001 - click's usage errors, from typer's copy of click
        if type(exc).__name__ != "MissingParameter":  # a missing value elided with "..." is fine
            pytest.fail(f"tailsplit {' '.join(command)}: {getattr(exc, 'format_message', exc.__str__)()}")


def test_the_all_extra_installs_every_extra_the_front_page_uses() -> None:
    """``pip install ".[all]"`` covers the README's examples: LM scoring, the analysis (with
    syntax), the overlap audit, shift and AFLite features, evaluation, pandas and the hf export."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    (requirement,) = extras["all"]
    named = set(requirement.split("[", 1)[1].rstrip("]").split(","))
    assert requirement.startswith("tailsplit[") and named <= set(extras)
    assert {"lm", "analysis", "syntax", "overlap", "shift", "evaluate", "hf"} <= named
    assert 'pip install ".[all]"' in (ROOT / "README.md").read_text(encoding="utf-8")
