"""The documentation site builds strictly (no broken link or reference), and its command-line
reference is the commands' own options."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from conftest import chromium, headless_dom

from tailsplit.cli import app
from tailsplit.cli.reference import cli_reference_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_the_command_line_reference_lists_every_option_of_every_command() -> None:
    page = cli_reference_markdown()
    root = typer.main.get_command(app)
    for name, command in root.commands.items():
        leaves = getattr(command, "commands", {name: command})
        for sub, leaf in leaves.items():
            path = name if leaf is command else f"{name} {sub}"
            assert f"## tailsplit {path}\n" in page
            section = page.split(f"## tailsplit {path}\n", 1)[1].split("\n## tailsplit ", 1)[0]
            for param in leaf.params:
                for flag in [*param.opts, *param.secondary_opts]:
                    if flag.startswith("--") and flag != "--help":
                        assert f"`{flag}" in section or f", {flag}`" in section, (path, flag)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly: a broken link, reference or missing page fails the build."""
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    if mkdocs is None:
        pytest.skip("mkdocs is not installed (the docs extra)")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [mkdocs, "build", "--strict", "-q", "-d", str(out)], cwd=ROOT, capture_output=True, text=True, env=env,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.long
def test_the_site_builds_strictly(site: Path) -> None:
    assert (site / "index.html").is_file()
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "--batch-tokens" in cli and "1024 on a CPU, 32768 on a GPU" in cli
    python = (site / "reference" / "python" / "index.html").read_text(encoding="utf-8")
    assert "tailsplit.run" in python and "RunConfig" in python
    performance = (site / "performance" / "index.html").read_text(encoding="utf-8")
    for results in (ROOT / "benchmarks" / "results").glob("*.*"):
        assert f"<code>{results.name}</code>" in performance, results.name


@pytest.mark.long
@pytest.mark.browser
def test_the_home_page_and_a_generated_reference_render_in_chromium(site: Path, tmp_path: Path) -> None:
    browser = chromium()
    if browser is None:
        pytest.skip("chromium is not installed (CI installs it)")
    home = headless_dom(browser, site / "index.html", tmp_path / "profile")
    assert home.returncode == 0, home.stderr[-2000:]
    assert "Put the long tail in the test set." in home.stdout and "demo-against-random.svg" in home.stdout
    cli = headless_dom(browser, site / "reference" / "cli" / "index.html", tmp_path / "profile")
    assert cli.returncode == 0, cli.stderr[-2000:]
    assert "tailsplit evaluate" in cli.stdout and "--fairness-margin" in cli.stdout


def test_the_readmes_links_lead_to_files() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)\)", readme)
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    assert len(local) >= 15
    for target in local:
        assert (ROOT / target).is_file(), target
