"""What a paper takes unedited: figures with embedded TrueType fonts, statistics that say
when a null distribution has no spread, cross-validators whose repr stays short."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from helpers import ROOT_DIR, external_tool, nli_pairs, write_jsonl
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


def test_a_statistic_constant_across_random_splits_says_so() -> None:
    from tailsplit.analysis.null import NullComparison

    same = NullComparison.of("x", "x", 1.0, np.ones(50))
    other = NullComparison.of("x", "x", 2.0, np.ones(50))
    assert same.verdict() == "constant across random splits (this split too)"
    assert other.verdict() == "constant across random splits; this split differs"
    assert "50.0%" not in same.verdict()


def test_a_cross_validator_repr_shows_array_shapes_not_values() -> None:
    from tailsplit.model_selection import LikelihoodSplit

    text = repr(LikelihoodSplit(scores=-np.arange(1.0, 10_001), dev_size=0.2))
    assert text == "LikelihoodSplit(scores=array(shape=(10000,), dtype=float64), dev_size=0.2)"


def pdflatex() -> str | None:
    return external_tool("pdflatex", required_by="TAILSPLIT_REQUIRE_LATEX")


@pytest.mark.long
def test_every_generated_latex_table_compiles_with_pdflatex(tmp_path: Path, tiny_encoder: Path) -> None:
    """Every .tex tailsplit writes — a length, a likelihood and two random splits of SNLI pairs, a
    Spider TMCD split, an evaluation of three baselines over four splits, similarity tables of
    two and of six datasets — sets in a two-column and a one-column article without an
    overfull line."""
    import subprocess

    import pytest
    from helpers import FakeScorer

    from tailsplit.registry import SCORERS

    SCORERS.register("fake", FakeScorer)

    latex = pdflatex()
    if latex is None:
        pytest.skip("pdflatex is not installed (CI installs texlive-latex-base and -recommended)")
    rows = nli_pairs(90)
    for i, r in enumerate(rows):
        r["label"] = ["entailment ≥ 1", "neutral_é", "contradiction 中 [x]"][i % 3]
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    common = ["--text", "hypothesis", "--label", "label", "--null-splits", "20"]
    for name, extra in (("r0", ["split", "--splitter", "random", "--seed", "0", "--no-syntax"]),
                        ("r1", ["split", "--splitter", "random", "--seed", "1", "--no-syntax"]),
                        ("len", ["split", "--splitter", "length"]),  # the length split parses (spaCy's version)
                        ("likelihood-of-pairs", ["run", "--backend", "fake", "--no-syntax"])):  # fmt: skip
        result = runner.invoke(app, [extra[0], str(data), *common, *extra[1:], "--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
    spider = ["split", str(ROOT_DIR / "examples" / "data" / "spider_dev.jsonl.gz"), "--text", "question", "--program", "query",
              "--splitter", "tmcd", "--dev-size", "60", "--test-size", "60", "--null-splits", "20", "--no-syntax"]  # fmt: skip
    result = runner.invoke(app, [*spider, "--out", str(tmp_path / "spider")])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["evaluate", str(tmp_path / "r0"), str(tmp_path / "r1"), str(tmp_path / "len"),
                                 str(tmp_path / "likelihood-of-pairs"), "--baseline", "tfidf", "--out", str(tmp_path / "ev")])  # fmt: skip
    assert result.exit_code == 0, result.output
    for name, splits in (("sim-2", ["len"]), ("sim-6", ["len", "r0"])):
        args = [a for split in splits for a in ("--split", str(tmp_path / split))]
        result = runner.invoke(
            app, ["similarity", *args, "--encoder", str(tiny_encoder), "--out", str(tmp_path / name)]
        )
        assert result.exit_code == 0, result.output
    tables = [*sorted((tmp_path / "len" / "tables").glob("*.tex")), *sorted((tmp_path / "spider" / "tables").glob("*.tex")),
              *sorted((tmp_path / "likelihood-of-pairs" / "tables").glob("*.tex")), tmp_path / "ev" / "table.tex",
              *sorted((tmp_path / "sim-2" / "tables").glob("*.tex")), *sorted((tmp_path / "sim-6" / "tables").glob("*.tex"))]  # fmt: skip
    assert len(tables) == 16  # length, likelihood, Spider: parts, against random (headline; -all); similarity: 3 each
    evaluation = (tmp_path / "ev" / "table.tex").read_text(encoding="utf-8")
    assert evaluation.count("\\tabularnewline") == 1 + 3 * 3  # header; three baselines × (random, length, likelihood)
    from tailsplit.evaluation.report import SMALLEST_PT

    for figure in (tmp_path / "ev" / "figures").glob("*.svg"):  # legible at \columnwidth (241 pt): text ≥ 7 pt
        width = float(re.search(r'width="([0-9.]+)pt"', figure.read_text(encoding="utf-8")).group(1))
        assert SMALLEST_PT * 241 / width >= 7, (figure.name, width)
    from benchmarks.evidence.paper_page import build  # a two-column page of the tables and figures as written

    pdf, overfull = build(tmp_path / "likelihood-of-pairs", tmp_path / "ev", tmp_path / "page")
    assert pdf.stat().st_size > 0 and overfull == []
    mmd = (tmp_path / "sim-2" / "tables" / "mmd2.tex").read_text(encoding="utf-8")
    assert "e-0" not in mmd and "p-value" in (tmp_path / "sim-2" / "tables" / "pairs.tex").read_text(encoding="utf-8")
    evaluation = (tmp_path / "ev" / "table.tex").read_text(encoding="utf-8")
    assert "folder" not in evaluation and "$-$" in evaluation + (tmp_path / "len" / "tables" / "parts.tex").read_text()
    against = (tmp_path / "len" / "tables" / "against-random-splits-all.tex").read_text(encoding="utf-8")
    assert "spaCy" in against.split("\\caption")[1] and "spaCy" not in against.split("\\caption")[0]  # in the caption
    headline = (tmp_path / "len" / "tables" / "against-random-splits.tex").read_text(encoding="utf-8")
    rows = [line for line in headline.splitlines() if line.endswith("\\tabularnewline")][1:]  # less the header
    assert len(rows) == 3 and "Headline statistics (3 of " in headline and "dependency" not in headline, (
        headline
    )  # no scores: no log-probability row
    assert len([line for line in against.splitlines() if line.endswith("\\tabularnewline")]) > 8
    for table in tables:
        text = table.read_text(encoding="utf-8")
        assert "nan" not in text and "≥" not in text and "\\label{tab:" in text
        for columns in ("twocolumn", "onecolumn"):  # an ACL/EMNLP page, and a one-column one
            doc = tmp_path / f"doc-{table.parent.parent.name}-{table.stem}-{columns}.tex"
            doc.write_text(
                f"\\documentclass[{columns}]{{article}}\n\\usepackage{{booktabs}}\n\\begin{{document}}\n"
                f"\\input{{{table.as_posix()}}}\n\\end{{document}}\n",
                encoding="utf-8",
            )
            done = subprocess.run(
                [latex, "-interaction=nonstopmode", "-halt-on-error", doc.name],
                cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            assert done.returncode == 0, (doc.name, done.stdout[-1500:])
            assert doc.with_suffix(".pdf").stat().st_size > 0
            log = doc.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
            assert "Overfull \\hbox" not in log, (doc.name, text)  # fits its column, or spans both (table*)


def test_export_hf_keeps_the_inputs_class_labels(tmp_path: Path) -> None:
    datasets = __import__("pytest").importorskip("datasets")
    names = ["entailment", "neutral", "contradiction"]
    rows = nli_pairs(60)
    features = datasets.Features(
        {k: datasets.Value("string") for k in ("id", "premise", "hypothesis")}
        | {"label": datasets.ClassLabel(names=names)}
    )
    table = datasets.Dataset.from_list([{**r, "label": names.index(r["label"])} for r in rows], features=features)
    datasets.DatasetDict({"train": table}).save_to_disk(str(tmp_path / "in"))
    result = runner.invoke(app, ["split", str(tmp_path / "in"), "--text", "hypothesis", "--label", "label",
                                 "--splitter", "random", "--no-analyze", "--out", str(tmp_path / "s")])  # fmt: skip
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["export", "hf", str(tmp_path / "s"), "--out", str(tmp_path / "hf")])
    assert result.exit_code == 0, result.output
    exported = datasets.load_from_disk(str(tmp_path / "hf"))
    for part in ("train", "validation", "test"):
        feature = exported[part].features["label"]
        assert isinstance(feature, datasets.ClassLabel) and feature.names == names, (part, feature)
    back = {r["id"]: names[r["label"]] for part in exported.values() for r in part}
    assert back == {r["id"]: r["label"] for r in rows}


BIBTEX = "@inproceedings{bowman-etal-2015-large,\n  title = {A large annotated corpus for learning natural language inference},\n  year = {2015}\n}"


def labelled_hf_split(tmp_path: Path, **info: str) -> tuple[Path, list[str]]:
    """A random split of a ``save_to_disk`` DatasetDict with a ClassLabel column and ``info``."""
    datasets = __import__("pytest").importorskip("datasets")
    names = ["entailment", "neutral", "contradiction"]
    features = datasets.Features(
        {k: datasets.Value("string") for k in ("id", "premise", "hypothesis")}
        | {"label": datasets.ClassLabel(names=names)}
    )
    rows = [{**r, "label": names.index(r["label"])} for r in nli_pairs(60)]
    table = datasets.Dataset.from_list(rows, info=datasets.DatasetInfo(features=features, **info))
    datasets.DatasetDict({"train": table}).save_to_disk(str(tmp_path / "in"))
    result = runner.invoke(app, ["split", str(tmp_path / "in"), "--text", "hypothesis", "--label", "label",
                                 "--splitter", "random", "--no-analyze", "--out", str(tmp_path / "s")])  # fmt: skip
    assert result.exit_code == 0, result.output
    return tmp_path / "s", names


def test_export_hf_puts_licence_citation_and_description_in_datasetinfo_and_a_parsable_card(tmp_path: Path) -> None:
    datasets = __import__("pytest").importorskip("datasets")
    from huggingface_hub import DatasetCard

    split, _ = labelled_hf_split(tmp_path, dataset_name="snli", homepage="https://nlp.stanford.edu/projects/snli/")
    (tmp_path / "snli.bib").write_text(BIBTEX, encoding="utf-8")
    result = runner.invoke(app, ["export", "hf", str(split), "--out", str(tmp_path / "hf"), "--license",
                                 "cc-by-sa-4.0", "--citation-file", str(tmp_path / "snli.bib")])  # fmt: skip
    assert result.exit_code == 0, result.output
    exported = datasets.load_from_disk(str(tmp_path / "hf"))
    for part in exported.values():
        assert part.info.license == "cc-by-sa-4.0"
        assert part.info.citation.startswith("@inproceedings{bowman-etal-2015-large")
        assert "of snli" in part.info.description and part.info.homepage.startswith("https://nlp.stanford.edu")
    card = DatasetCard.load(tmp_path / "hf" / "README.md")
    assert card.data.license == "cc-by-sa-4.0" and card.data.source_datasets == ["snli"]
    assert card.data.sizes == {"train": 48, "validation": 6, "test": 6}
    assert "bowman-etal-2015-large" in card.text and "Licence: cc-by-sa-4.0" in card.text

    # without options, the input's own licence is taken; with none at all the card says so
    split2, _ = labelled_hf_split(tmp_path / "b", license="mit")
    assert runner.invoke(app, ["export", "hf", str(split2), "--out", str(tmp_path / "hf2")]).exit_code == 0
    assert DatasetCard.load(tmp_path / "hf2" / "README.md").data.license == "mit"
    split3, _ = labelled_hf_split(tmp_path / "c")
    result = runner.invoke(app, ["export", "hf", str(split3), "--out", str(tmp_path / "hf3")])
    assert result.exit_code == 0 and "states no licence" in result.output
    assert DatasetCard.load(tmp_path / "hf3" / "README.md").data.license is None


def test_export_hf_pushes_data_and_card_that_load_dataset_reads_back(
    tmp_path: Path, monkeypatch: __import__("pytest").MonkeyPatch
) -> None:
    """The upload goes to a local stand-in for the hub (a folder); `load_dataset` on that
    folder reads what the hub would serve: ClassLabel features, the card, the licence."""
    datasets = __import__("pytest").importorskip("datasets")
    import shutil

    from huggingface_hub import DatasetCard, HfApi

    hub = tmp_path / "hub-standin"
    calls = []
    monkeypatch.setattr(HfApi, "create_repo", lambda self, repo_id, **kw: calls.append(("create", repo_id, kw)))

    def upload_folder(self, *, repo_id, folder_path, repo_type, commit_message):
        calls.append(("upload", repo_id, repo_type))
        shutil.copytree(folder_path, hub / repo_id)

    monkeypatch.setattr(HfApi, "upload_folder", upload_folder)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    split, names = labelled_hf_split(tmp_path)
    result = runner.invoke(app, ["export", "hf", str(split), "--out", str(tmp_path / "hf"), "--license", "mit",
                                 "--push-to-hub", "someone/snli-ll"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert [c[0] for c in calls] == ["create", "upload"] and calls[1][1:] == ("someone/snli-ll", "dataset")
    pushed = datasets.load_dataset(str(hub / "someone/snli-ll"))
    assert {k: len(v) for k, v in pushed.items()} == {"train": 48, "validation": 6, "test": 6}
    assert pushed["test"].features["label"] == datasets.ClassLabel(names=names)
    local = datasets.load_from_disk(str(tmp_path / "hf"))
    assert pushed["test"].to_list() == local["test"].to_list()
    card = DatasetCard.load(hub / "someone/snli-ll" / "README.md")
    assert card.data.license == "mit" and card.data.configs[0]["config_name"] == "default"
    assert "tailsplit split: random" in card.text

    bad = runner.invoke(app, ["export", "hf", str(split), "--out", str(tmp_path / "x"), "--push-to-hub", "a/b/c"])
    assert bad.exit_code == 2 and "OWNER/NAME" in bad.output and not (tmp_path / "x").exists()


def test_python_errors_name_keyword_arguments_and_the_command_line_names_flags(tmp_path: Path) -> None:
    import pytest

    import tailsplit
    from tailsplit.config import OverlapConfig

    config = tailsplit.RunConfig()
    config.data = tailsplit.DataConfig(table=nli_pairs(30), text="hypothesis")
    config.scoring.template = "snli"
    with pytest.raises(tailsplit.ConfigError) as raised:
        tailsplit.run(config)
    assert "context=" in str(raised.value) and "--" not in str(raised.value)
    with pytest.raises(tailsplit.ConfigError, match=r"^k=0 must be at least 1") as raised:
        OverlapConfig(k=0)
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))
    cli = runner.invoke(
        app, ["run", str(data), "--text", "hypothesis", "--template", "snli", "--out", str(tmp_path / "o")]
    )
    assert cli.exit_code == 2 and "--context" in cli.output, cli.output
    # The same template problem in each one's words: the flag on the command line, the keyword in Python.
    cli = runner.invoke(app, ["run", str(data), "--text", "hypothesis", "--template", "no query {label}",
                              "--out", str(tmp_path / "o")])  # fmt: skip
    assert cli.exit_code == 2 and "error: --template='no query {label}' is neither a built-in" in cli.output
    config.scoring.template = "no query {label}"
    with pytest.raises(tailsplit.ConfigError, match=r"^template='no query \{label\}' is neither a built-in"):
        tailsplit.run(config)
    with pytest.raises(tailsplit.ConfigError, match=r"^template='x' does not end"):
        tailsplit.PromptTemplate("mine", "x")


def test_the_null_figure_draws_only_statistics_that_vary_and_names_the_constant_ones(tmp_path: Path) -> None:
    """A statistic constant across random splits is a bar at one value: it is named in the
    caption instead of drawn, and share statistics' ticks read in percent."""
    from dataclasses import replace

    from test_verdicts import analyse, load_sample

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

    from test_verdicts import analyse, load_sample

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
