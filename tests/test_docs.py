"""The documentation site builds strictly (no broken link or reference), and its command-line
reference is the commands' own options."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from helpers import chromium, headless_dom

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
    assert "--batch-tokens" in cli and "1024 on a CPU; on a GPU from its free memory" in cli
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


def _hooks() -> Any:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_results_fields_read_values_from_results_files(tmp_path: Path) -> None:
    hooks = _hooks()
    (tmp_path / "bench.json").write_text(
        json.dumps(
            {"rate": 1234.56, "share": 0.9967, "rounds": [{"r": 2.3}, {"r": 2.16}], "by": {"a b": {"x": -0.05}}}
        ),
        encoding="utf-8",
    )
    (tmp_path / "rows.csv").write_text("split,metric,value\nrandom,acc,0.5\nll (prompted),acc,0.25\n", encoding="utf-8")
    page = (
        "{{ bench:rate | ,.1f }} {{ bench:share | pct:.1f }}% {{ bench:rounds[*].r | .2f }} {{ bench:rounds | len }} "
        "{{ bench:by.a b.x | pct:+.1f }} {{ rows:[split=ll (prompted)][metric=acc].value | pct:.0f }}"
    )
    assert hooks.fill_results_fields(page, tmp_path) == "1,234.6 99.7% 2.16–2.30 2 -5.0 25"
    assert "written by" not in hooks.fill_results_fields("{{ source:bench }}", tmp_path)
    # sentences around a number take their words from the result, never fixed prose
    (tmp_path / "boss.json").write_text(json.dumps({
        "drop_ci": [0.157, 0.247], "flat_ci": [-0.01, 0.03], "types": ["I", "none", "undecided"], "slope": -0.4,
        "decisions": [{"kept": True, "rank": 1}, {"kept": False, "rank": None}, {"kept": False, "undecided": True}],
    }), encoding="utf-8")  # fmt: skip
    words = (
        "{{ boss:drop_ci | words:interval }}; {{ boss:flat_ci | words:interval }}; {{ boss:types[0] | words:type }}; "
        "{{ boss:types[1] | words:type }}; {{ boss:types[2] | words:type }}; {{ boss:slope | words:trend }}; "
        "{{ boss:decisions[0] | words:decision }}; {{ boss:decisions[1] | words:decision }}; "
        "{{ boss:decisions[2] | words:decision }}"
    )
    assert hooks.fill_results_fields(words, tmp_path) == (
        "an interval clear of zero; an interval that includes zero; Type I; none of Types I–III; undecided; falls; "
        "kept (rank 1); rejected; undecided"
    )
    (tmp_path / "text.json").write_text(
        json.dumps({"note": "<script>x</script> *a* | [b](c)", "provenance": {"command": "run `x` <b>", "date": "d",
                    "tailsplit": "0", "commit": "c"}}), encoding="utf-8",
    )  # fmt: skip
    shown = hooks.fill_results_fields("{{ text:note }} {{ source:text }}", tmp_path)
    assert "<script>" not in shown and "<b>" not in shown.split("``")[0] and "*a*" not in shown and "| [" not in shown
    assert "`` run `x` <b> ``" in shown  # a command is a code span, whatever backticks it holds
    for broken in ("{{ bench:missing }}", "{{ nofile:rate }}", "{{ rows:[split=none].value }}", "{{ bench }}"):
        with pytest.raises(hooks.ResultsFieldError):
            hooks.fill_results_fields(broken, tmp_path)
    # a page keeps each field filled (read on GitHub, its numbers show); the site shows the value alone
    kept = hooks.written_fields("rate {{ bench:rate | ,.0f }}/s", tmp_path)
    assert kept == "rate <!--{{ bench:rate | ,.0f }}-->1,235<!--/-->/s"
    (tmp_path / "bench.json").write_text(json.dumps({"rate": 99.0}), encoding="utf-8")  # a rerun: new numbers
    assert hooks.written_fields(kept, tmp_path) == "rate <!--{{ bench:rate | ,.0f }}-->99<!--/-->/s"
    assert hooks.fill_results_fields(kept, tmp_path) == "rate 99/s"


def test_every_page_holds_its_numbers_as_the_results_files_give_them() -> None:
    """Read where no build runs (on GitHub), a page shows its numbers: each field is kept
    filled, and filled with the results files' values as they are now (``make docs-numbers``
    fills them again after a benchmark writes new results)."""
    hooks = _hooks()
    stale, bare = [], []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        if hooks.written_fields(text, hooks.RESULTS, where=page.name) != text:
            stale.append(page.name)
        if hooks.FIELD.search(hooks.FILLED.sub("", text)):
            bare.append(page.name)
    assert not stale, f"run make docs-numbers: {stale} hold numbers the results files no longer give"
    assert not bare, f"fields not kept filled: {bare}"


BY_HAND = [
    "docs/fidelity.md",
    "docs/guides/likelihood-splits.md",
]  # pages with a table no results file holds yet (one entry per table)


def test_every_measured_table_cell_comes_from_a_results_file() -> None:
    """In every table of the docs, a cell past the first column that holds a number takes it from
    a results file (a ``{{ FILE:PATH }}`` field); numbers inside inline code are options, not
    measurements, and a reference row's 1.00 / 1 / 100 % / 0 are definitions."""
    definitions = {"1.00", "1", "100 %", "0"}
    stray, by_hand = [], []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        rows, previous, marked = 0, "", False
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if not line.lstrip().startswith("|"):
                rows, previous = 0, line if line.strip() else previous
                continue
            rows += 1
            if rows == 1:
                marked = previous.startswith("<!-- by hand: ")
                if marked:
                    by_hand.append(str(page.relative_to(ROOT)))
            if rows <= 2 or marked:  # the header and the rule; a table shown as recorded by hand
                continue
            field = r"<!--\{\{[^{}]*\}\}-->.*?<!--/-->|\{\{[^{}]*\}\}"  # a field, kept filled or bare
            cells = re.sub(field, "F", line).replace("\\|", "").strip().strip("|").split("|")[1:]
            for cell in cells:
                bare = re.sub(r"`[^`]*`", "", cell).strip()
                if re.search(r"\d", bare) and bare not in definitions:
                    stray.append(f"{page.relative_to(ROOT)}:{number}: {bare}")
    assert not stray, "\n".join(stray[:20])
    assert by_hand == BY_HAND, "tables recorded by hand changed: update BY_HAND (and say so in the docs)"


def test_results_files_record_commands_without_machine_paths() -> None:
    for path in sorted((ROOT / "benchmarks" / "results").glob("*.json")):
        made = json.loads(path.read_text(encoding="utf-8")).get("provenance") or {}
        absolute = [word for word in str(made.get("command", "")).split() if word.startswith(("/", "~"))]
        assert not absolute, f"{path.name}: {absolute}"


@pytest.mark.long
def test_the_front_page_figure_is_the_demos_analysis_as_drawn_now() -> None:
    """docs/assets/demo-against-random.svg is what benchmarks/evidence/demo_figure.py draws from
    the demo's split (the four headline statistics against 500 random splits): a change to the
    analysis or the figure shows here until the asset is drawn again."""
    pytest.importorskip("wordfreq")
    from benchmarks.evidence.demo_figure import demo_figure_svg

    assert demo_figure_svg() == (ROOT / "docs" / "assets" / "demo-against-random.svg").read_text(encoding="utf-8")


def test_the_where_to_change_what_table_names_files_that_exist() -> None:
    """Every module, test file and page the architecture page's table names is there."""
    import re

    root = Path(__file__).resolve().parents[1]
    page = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = page[page.index("## Where to change what") :]
    paths = re.findall(r"`((?:src|tests|docs)/[^`]+)`", table)
    assert len(paths) > 40
    missing = [p for p in paths if not (root / p).exists()]
    assert not missing, missing
    listed = {p for p in paths if p.startswith("src/tailsplit/") and p.endswith(".py")}
    for module in ("pipeline/keywords.py", "config/declare.py", "scoring/fused.py", "io/claims.py"):
        assert f"src/tailsplit/{module}" in listed


def test_the_python_reference_covers_every_export() -> None:
    import tailsplit

    root = Path(__file__).resolve().parents[1]
    page = (root / "docs" / "reference" / "python.md").read_text(encoding="utf-8")
    missing = [name for name in tailsplit.__all__ if f"tailsplit.{name}" not in page and name != "__version__"]
    assert not missing, missing
