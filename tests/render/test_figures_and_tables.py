"""The renderers every report shares: PDF figures embed TrueType fonts with every glyph drawn and are kept when drawn again from the same inputs, constant statistics are named not drawn, CSV tables hold one quantity per column with units, and console lines in a log never wrap or cut."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from helpers import nli_pairs, write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app

runner = CliRunner()


@pytest.mark.long
def test_pdf_figures_embed_truetype_fonts_not_type3(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(60))
    result = runner.invoke(app, ["split", str(data), "--text", "hypothesis", "--label", "label", "--splitter",
                                 "random", "--null-splits", "20", "--no-syntax", "--out", str(tmp_path / "o")])  # fmt: skip
    assert result.exit_code == 0, result.output
    pdfs = sorted((tmp_path / "o" / "figures").glob("*.pdf"))
    assert pdfs
    for pdf in pdfs:
        subtypes = set(re.findall(rb"/Subtype\s*/(\w+)", pdf.read_bytes()))
        assert b"Type3" not in subtypes, (pdf.name, subtypes)
        assert subtypes & {b"TrueType", b"CIDFontType2"}, (pdf.name, subtypes)


def test_the_embedded_font_keeps_its_glyphs_without_the_layout_tables() -> None:
    """The PDF's TrueType subset drops GSUB/GPOS/GDEF (a PDF places glyphs itself) and keeps the
    outlines and metrics every glyph needs; fontTools' options are back as they were after."""
    import io

    import pypdf
    from fontTools import subset
    from fontTools.ttLib import TTFont

    from tailsplit.render.figures import pyplot, render_figure

    original = subset.Options
    fig, ax = pyplot().subplots()
    ax.set_xlabel("share of examples (%)")
    pdf = pypdf.PdfReader(io.BytesIO(render_figure(fig).pdf))
    assert subset.Options is original
    assert "share of examples (%)" in pdf.pages[0].extract_text()
    fonts = [f.get_object() for f in pdf.pages[0]["/Resources"]["/Font"].values()]
    descriptors = [
        f["/FontDescriptor"] if "/FontDescriptor" in f else f["/DescendantFonts"][0]["/FontDescriptor"] for f in fonts
    ]
    embedded = [TTFont(io.BytesIO(d["/FontFile2"].get_object().get_data())) for d in descriptors]
    assert embedded and all({"glyf", "hmtx", "cmap"} <= set(font.keys()) for font in embedded)
    assert not any({"GSUB", "GPOS", "GDEF"} & set(font.keys()) for font in embedded)


def test_a_kept_font_subset_gives_the_bytes_a_fresh_one_does_and_every_glyph_drawn() -> None:
    """Each font subset is made once and reused by the next PDF: a figure drawn with its
    subset made afresh and with it kept is the same PDF, and a character outside the kept
    ASCII set (here ü and −) is in the subset and in the text a PDF reader extracts."""
    import io

    import pypdf
    from matplotlib.backends import _backend_pdf_ps

    from tailsplit.render import figures
    from tailsplit.render.figures import pyplot, render_figure

    def drawn(label: str) -> bytes:
        fig, ax = pyplot().subplots()
        ax.set_xlabel(label)
        return render_figure(fig).pdf

    original = getattr(_backend_pdf_ps, "get_glyphs_subset", None)
    figures._SUBSETS.clear()
    fresh = drawn("share of examples (%)")
    assert figures._SUBSETS or not hasattr(_backend_pdf_ps, "SubsetResults")  # kept where matplotlib allows
    assert drawn("share of examples (%)") == fresh
    assert getattr(_backend_pdf_ps, "get_glyphs_subset", None) is original  # put back after each save
    other = pypdf.PdfReader(io.BytesIO(drawn("Größe −1 (ü)")))
    assert "Größe −1 (ü)" in other.pages[0].extract_text()
    assert "share of examples (%)" in pypdf.PdfReader(io.BytesIO(fresh)).pages[0].extract_text()


@pytest.mark.long
def test_csv_tables_hold_numbers_one_quantity_per_column_with_units(tmp_path: Path) -> None:
    import pandas as pd

    rows = [{**r, "hypothesis": "Someone walks far " * (i % 5) + r["hypothesis"]} for i, r in enumerate(nli_pairs(60))]
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    result = runner.invoke(app, ["split", str(data), "--text", "hypothesis", "--label", "label", "--splitter",
                                 "length", "--null-splits", "20", "--no-syntax", "--out", str(tmp_path / "o")])  # fmt: skip
    assert result.exit_code == 0, result.output
    parts = pd.read_csv(tmp_path / "o" / "tables" / "parts.csv")
    assert list(parts["part"]) == ["train", "dev", "test"]
    assert "rare words (% of words)" in parts and "label neutral (% of part)" in parts
    numeric = parts.drop(columns=["part"]).dropna(axis=1, how="all")
    assert all(pd.api.types.is_numeric_dtype(t) for t in numeric.dtypes), numeric.dtypes
    null = pd.read_csv(tmp_path / "o" / "tables" / "against-random-splits.csv")
    quantities = null.drop(columns=["statistic", "name", "unit", "verdict", "differs (Holm p <= 0.05)"]).dropna(
        axis=1, how="all"
    )
    assert all(pd.api.types.is_numeric_dtype(t) for t in quantities.dtypes), quantities.dtypes
    assert {"p (two-sided Monte Carlo)", "p (Holm-adjusted over the family)", "differs (Holm p <= 0.05)"} <= set(null)
    assert (null["p (Holm-adjusted over the family)"] >= null["p (two-sided Monte Carlo)"]).all()
    assert set(null["differs (Holm p <= 0.05)"]) <= {"yes", "no"}
    words = null.set_index("name").loc["mean_words"]
    assert words["observed"] > words["random splits: mean"] and words["random splits (n)"] == 20
    assert null.loc[null["name"] == "rare_word_fraction", "unit"].item() == "%"


def test_the_null_figure_draws_only_statistics_that_vary_and_names_the_constant_ones(tmp_path: Path) -> None:
    """A statistic constant across random splits is a bar at one value: it is named in the
    caption instead of drawn, and share statistics' ticks read in percent."""
    from dataclasses import replace

    from analysis.test_verdicts import analyse, load_sample

    from tailsplit.analysis import plots

    pytest.importorskip("wordfreq")
    sample = load_sample()
    analysis = analyse(sample, sample["parts"], 0)
    drawn, constant = plots.varying(analysis)
    assert len(drawn) == 13 and constant == []
    flat = type(analysis.null[0]).of(analysis.null[0].name, analysis.null[0].description, 3.0, np.full(50, 3.0))
    steady = replace(analysis, null=[*analysis.null[1:], flat])
    drawn, constant = plots.varying(steady)
    assert constant == [flat] and flat not in drawn
    (caption,) = [c for c in plots.analysis_figures(steady) if c.startswith("Evaluation statistics")]
    assert caption.endswith("constant across random splits, not drawn: " + flat.description)
    assert plots.null_grid(steady).svg.count('<g id="axes_') == 12  # twelve panels in four full rows


def test_a_figure_drawn_again_from_the_same_inputs_is_the_one_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A split analysed again in one process is not drawn again: its figures are the ones kept,
    byte for byte those a new draw makes; any change in the inputs draws anew."""
    from collections import OrderedDict

    from analysis.test_verdicts import analyse, load_sample

    from tailsplit.analysis import plots
    from tailsplit.render import figures

    pytest.importorskip("wordfreq")
    monkeypatch.setattr(figures, "_DRAWN", OrderedDict())
    drawn: list[int] = []

    def draw() -> figures.Figure:
        drawn.append(1)
        return figures.Figure(svg=f"<svg>{len(drawn)}</svg>", pdf=b"")

    values = np.arange(5.0)
    first = figures.drawn_once("k", ["x", values], draw)
    assert figures.drawn_once("k", ["x", values.copy()], draw) is first and len(drawn) == 1
    for other in (("k", ["x", values + 1e-12]), ("k", ["x", values.astype(np.float32)]), ("k", ["y", values]),
                  ("j", ["x", values])):  # fmt: skip
        assert figures.drawn_once(*other, draw) is not first
    import matplotlib

    with matplotlib.rc_context({"lines.linewidth": 3.0}):  # a notebook's own style: drawn anew
        assert figures.drawn_once("k", ["x", values], draw) is not first
    assert figures.drawn_once("k", ["x", values], draw) is first and len(drawn) == 6
    sample = load_sample()
    analysis = analyse(sample, sample["parts"], 0)
    kept = plots.analysis_figures(analysis)
    assert all(plots.analysis_figures(analysis)[c] is f for c, f in kept.items())
    monkeypatch.setattr(figures, "_DRAWN", OrderedDict())
    assert plots.analysis_figures(analysis) == kept  # drawn anew: the same bytes


def test_a_histogram_of_one_value_draws_without_a_warning() -> None:
    """Every example of the same length (or grade) drew zero-width bins, and numpy warned of a
    division by zero on every such split: a warning the user cannot act on."""
    import warnings

    from tailsplit.analysis.plots import _part_histograms

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure = _part_histograms({"train": np.full(5, 4.0), "test": np.full(3, 4.0)}, "grade")
    assert figure.svg.startswith("<svg")


def test_console_output_in_a_log_never_wraps_or_cuts_a_line(tmp_path: Path) -> None:
    """Piped (a log, ``| tee``, CI), with COLUMNS as small as a narrow terminal's: every sentence
    on its line and every table cell whole, as a terminal would show them given the room."""
    import os
    import subprocess
    import sys

    long_label = "a label far longer than any terminal is wide, " * 3 + "end"
    rows = [dict(row, label=long_label if i % 3 == 0 else row["label"]) for i, row in enumerate(nli_pairs(60))]
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    args = ["split", str(data), "--text", "hypothesis", "--label", "label", "--splitter", "length",
            "--dev-size", "10", "--test-size", "10", "--null-splits", "5", "--no-syntax", "--out", str(tmp_path / "o")]  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "tailsplit.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "40"})  # fmt: skip
    assert done.returncode == 0, done.stderr
    shown = done.stdout + done.stderr
    assert "…" not in shown
    assert any(long_label in line for line in shown.splitlines())  # the cell whole, on one line
    bullets = [line for line in shown.splitlines() if line.startswith("• ")]
    assert bullets and all(line.endswith(").") for line in bullets), bullets  # each sentence on one line
    assert re.search(r"^wrote .*manifest\.json\)$", done.stdout, re.MULTILINE), done.stdout
