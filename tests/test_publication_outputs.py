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
    labels = [re.search(r"\\label\{(tab:[^}]*)\}", t.read_text(encoding="utf-8")).group(1) for t in tables]
    assert len(set(labels)) == len(labels), labels  # two splits' tables in one paper: no label defined twice
    assert "tab:likelihood-of-pairs-parts" in labels and "tab:ev-evaluation" in labels
    grouped = [line.split(" & ")[0] for line in evaluation.splitlines() if line.endswith("\\tabularnewline")][1:]
    assert [g.replace("\\raggedright", "").strip() for g in grouped] == [
        "tfidf",
        "",
        "",
        "chance",
        "",
        "",
        "majority",
        "",
        "",
    ]
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
        if "\\begin{table*}" in text:  # spans both columns only where it must: in one column it overflows
            narrow = tmp_path / f"{table.parent.parent.name}-{table.stem}-in-a-column.tex"
            narrow.write_text(text.replace("{table*}", "{table}"), encoding="utf-8")
            doc = tmp_path / f"doc-{narrow.stem}.tex"
            doc.write_text(
                "\\documentclass[twocolumn]{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                f"\\input{{{narrow.as_posix()}}}\n\\end{{document}}\n",
                encoding="utf-8",
            )
            subprocess.run(
                [latex, "-interaction=nonstopmode", doc.name], cwd=tmp_path, capture_output=True, timeout=120
            )
            assert "Overfull \\hbox" in doc.with_suffix(".log").read_text(encoding="utf-8", errors="replace"), doc.name


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
