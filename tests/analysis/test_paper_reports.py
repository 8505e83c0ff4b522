"""Reports fit for a paper: a provenance header everywhere, figures as SVG + PDF files, tables as
LaTeX + CSV, readable null panels, pair examples with their context, a --compare figure, an
overlap HTML report — and the header checked in what headless Chromium renders."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import write_jsonl
from typer.testing import CliRunner

from tailsplit.analysis import plots
from tailsplit.cli import app
from tailsplit.render.tables import latex_escape

runner = CliRunner()


def snli_split(data: Path, out: Path, *extra: str) -> Path:
    args = ["run", str(data), "--text", "hypothesis", "--context", "premise", "--label", "label", "--template",
            "snli", "--backend", "fake", "--dev-size", "40", "--test-size", "40", "--null-splits", "20", "--no-syntax",
            "--out", str(out), *extra]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory, snli_600: Path) -> Path:
    from helpers import FakeScorer

    from tailsplit.registry import SCORERS

    SCORERS.register("fake", FakeScorer)
    return snli_split(snli_600, tmp_path_factory.mktemp("reports") / "snli-ll")


@pytest.mark.long
def test_split_report_files_for_a_paper(split: Path) -> None:
    manifest = json.loads((split / "manifest.json").read_text())
    figures = sorted(p for p in manifest["outputs"] if p.startswith("figures/"))
    assert figures and len([p for p in figures if p.endswith(".pdf")]) == len(
        [p for p in figures if p.endswith(".svg")]
    )
    assert all((split / p).read_bytes()[:5] == b"%PDF-" for p in figures if p.endswith(".pdf"))
    report = (split / "report.md").read_text()
    for path in (p for p in figures if p.endswith(".svg")):
        assert f"]({path})" in report  # report.md links every figure
    assert report.startswith("# Split analysis: snli-ll\n\n**Provenance**")
    assert "- model: `fake:smollm2`" in report and "- seed: `0`" in report and "sha256" in report
    assert "Premise: {context} This hypothesis is {label}: {text}" in report
    tex = (split / "tables" / "parts.tex").read_text()
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex and "FK grade (pooled)" in tex
    csv = (split / "tables" / "against-random-splits.csv").read_text().splitlines()
    assert csv[0].startswith("statistic,name,unit,observed,") and len(csv) > 3


def test_pair_examples_show_their_context(split: Path) -> None:
    report = (split / "report.md").read_text()
    section = report.split("## Least likely examples")[1]
    assert "| id | part | label | logprob_sum | context | query |" in section


@pytest.mark.long
def test_null_panels_are_titled_in_words(monkeypatch: pytest.MonkeyPatch, split: Path) -> None:
    from tailsplit.analysis.split_analysis import analyze_split
    from tailsplit.analysis.split_dir import load_split_dir

    seen: list[tuple[str, str]] = []
    real = plots.render_figure

    def spy(fig, **options):  # noqa: ANN001, ANN003, ANN202
        seen.extend((ax.get_title(), ax.get_xlabel()) for ax in fig.axes if ax.get_title())
        if not options.get("crop", True):
            laid_out_within_the_figure(fig)
        return real(fig, **options)

    monkeypatch.setattr(plots, "render_figure", spy)
    analysis = analyze_split(load_split_dir(split), null_splits=10, seed=0, syntax=False)
    plots.analysis_figures(analysis)
    titles = " ".join(t for t, _ in seen)
    assert "mean query length (word tokens)" in titles and "mean_words (p" not in titles
    assert any("percentile" in x for _, x in seen)


def laid_out_within_the_figure(fig) -> None:  # noqa: ANN001
    """A figure saved as laid out (not cropped): each panel, with its title, labels and tick
    labels as drawn, lies inside the figure, and no two panels overlap."""
    fig.canvas.draw()  # labels take their places when drawn
    renderer = fig.canvas.get_renderer()
    page = fig.bbox
    boxes = [ax.get_tightbbox(renderer) for ax in fig.axes if ax.axison]
    for box in boxes:
        assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1, (box, page)
    for i, box in enumerate(boxes):
        assert not any(box.overlaps(other) for other in boxes[i + 1 :]), box


@pytest.mark.long
def test_compare_draws_scores_against_each_other(split: Path, tmp_path: Path, snli_600: Path) -> None:
    other = snli_split(snli_600, tmp_path / "snli-rev", "--reverse")
    result = runner.invoke(app, ["analyze", str(split), "--compare", str(other), "--null-splits", "10", "--no-syntax"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((split / "manifest.json").read_text())
    assert "figures/scores-in-snli-ll-against-scores-in-snli-rev.pdf" in manifest["outputs"]


def test_evaluate_report_has_provenance_and_latex(split: Path, tmp_path: Path, snli_600: Path) -> None:
    pytest.importorskip("sklearn")
    rand = tmp_path / "rand"
    args = ["split", str(snli_600), "--text", "hypothesis", "--context", "premise", "--label", "label", "--splitter",
            "random", "--dev-size", "40", "--test-size", "40", "--no-analyze", "--out", str(rand)]  # fmt: skip
    assert runner.invoke(app, args).exit_code == 0
    out = tmp_path / "eval"
    result = runner.invoke(app, ["evaluate", str(split), str(rand), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (
        (out / "table.md").read_text().startswith("# Evaluation of 2 splits with tfidf, tfidf-text\n\n**Provenance**")
    )
    assert "\\toprule" in (out / "table.tex").read_text()
    assert "Provenance" in (out / "report.html").read_text()
    assert any(
        p.startswith("figures/") and p.endswith(".pdf")
        for p in json.loads((out / "manifest.json").read_text())["outputs"]
    )


def test_overlap_has_an_html_report_with_provenance(tmp_path: Path) -> None:
    pytest.importorskip("bm25s")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("The council refused the demonstrators a permit because they feared violence.\nBirds sing.\n")
    test = write_jsonl(tmp_path / "test.jsonl", [{"id": f"t{i}", "text": t} for i, t in enumerate(
        ["The council refused them because they feared violence.", "Nothing here to see at all today."])])  # fmt: skip
    out = tmp_path / "overlap"
    result = runner.invoke(app, ["overlap", "--test", str(test), "--corpus", str(corpus), "--out", str(out)])
    assert result.exit_code == 0, result.output
    page = (out / "report.html").read_text()
    assert "Overlap audit" in page and "Provenance" in page and "<svg" in page
    assert (out / "summary.md").read_text().startswith("# Overlap audit\n\n**Provenance**")


def test_latex_escaping() -> None:
    assert latex_escape("50% of {a_b} & $x$ #1 ~ ^ \\") == (
        "50\\% of \\{a\\_b\\} \\& \\$x\\$ \\#1 \\textasciitilde{} \\textasciicircum{} \\textbackslash{}"
    )


@pytest.mark.browser
def test_provenance_header_in_what_chromium_renders(split: Path, tmp_path: Path) -> None:
    """Headless Chromium prints the report to PDF and takes a screenshot; the PDF's first page
    (its text extracted) opens with the provenance header, and the screenshot is not blank."""
    from helpers import chromium

    browser = chromium()
    if browser is None:
        pytest.skip("chromium is not installed (CI installs it)")
    pypdf = pytest.importorskip("pypdf")
    common = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
              "--disable-background-networking", "--disable-component-update", f"--user-data-dir={tmp_path / 'p'}",
              "--hide-scrollbars", "--window-size=1200,900"]  # fmt: skip
    page = (split / "report.html").resolve().as_uri()
    pdf, png = tmp_path / "report.pdf", tmp_path / "report.png"
    for flag in (f"--print-to-pdf={pdf}", f"--screenshot={png}"):
        done = subprocess.run([*common, flag, page], capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
    first = pypdf.PdfReader(str(pdf)).pages[0].extract_text()
    assert "Split analysis: snli-ll" in first
    assert "Provenance" in first and "tailsplit" in first and "command" in first and "fake:smollm2" in first
    assert first.index("Provenance") < first.index("Parts")
    from PIL import Image

    image = Image.open(png).convert("L")
    assert image.size == (1200, 900)
    top = image.crop((0, 0, 1200, 300))
    assert top.getextrema()[0] < 100  # dark text in the header band, not a blank page
