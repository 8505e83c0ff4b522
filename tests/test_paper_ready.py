"""What a paper takes unedited: figures with embedded TrueType fonts, statistics that say
when a null distribution has no spread, cross-validators whose repr stays short."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from tailsplit.cli import app
from tests.conftest import external_tool, nli_pairs, write_jsonl

runner = CliRunner()


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


def test_every_generated_latex_table_compiles_with_pdflatex(tmp_path: Path) -> None:
    import subprocess

    import pytest

    latex = pdflatex()
    if latex is None:
        pytest.skip("pdflatex is not installed (CI installs texlive-latex-base and -recommended)")
    rows = nli_pairs(90)
    for i, r in enumerate(rows):
        r["label"] = ["entailment ≥ 1", "neutral_é", "contradiction 中 [x]"][i % 3]
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    common = ["--text", "hypothesis", "--label", "label", "--null-splits", "20", "--no-syntax"]
    for name, seed in (("r0", "0"), ("r1", "1"), ("len", None)):
        extra = ["--splitter", "random", "--seed", seed] if seed else ["--splitter", "length"]
        result = runner.invoke(app, ["split", str(data), *common, *extra, "--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["evaluate", str(tmp_path / "r0"), str(tmp_path / "r1"), str(tmp_path / "len"),
                                 "--baseline", "tfidf", "--out", str(tmp_path / "ev")])  # fmt: skip
    assert result.exit_code == 0, result.output
    tables = [*sorted((tmp_path / "len" / "tables").glob("*.tex")), tmp_path / "ev" / "table.tex"]
    assert len(tables) == 3
    for table in tables:
        text = table.read_text(encoding="utf-8")
        assert "nan" not in text and "≥" not in text and "\\label{tab:" in text
        doc = tmp_path / f"doc-{table.stem}.tex"
        doc.write_text(
            "\\documentclass[twocolumn]{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
            f"\\input{{{table.as_posix()}}}\n\\end{{document}}\n",
            encoding="utf-8",
        )
        done = subprocess.run(
            [latex, "-interaction=nonstopmode", "-halt-on-error", doc.name],
            cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, (table.name, done.stdout[-1500:])
        assert (tmp_path / f"doc-{table.stem}.pdf").stat().st_size > 0
        log = (tmp_path / f"doc-{table.stem}.log").read_text(encoding="utf-8", errors="replace")
        assert "Overfull \\hbox" not in log, (table.name, text)  # fits its column, or spans both (table*)


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
