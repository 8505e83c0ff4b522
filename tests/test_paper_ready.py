"""What a paper takes unedited: figures with embedded TrueType fonts, statistics that say
when a null distribution has no spread, cross-validators whose repr stays short."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from tailsplit.cli import app
from tests.conftest import nli_pairs, write_jsonl

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
