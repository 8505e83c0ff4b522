"""What cannot take effect, or would be read the wrong way, is refused rather than accepted
without a word: a scoring option for a split that scores nothing, zero filtering rounds, a
size that is neither a fraction nor a count, a split compared with itself, a licence that is
no licence id, lengths that are not counts, and a missing group."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import nli_pairs, split_args, write_jsonl
from hostile import ok, refused

import tailsplit
from tailsplit.errors import ConfigError
from tailsplit.splits.length import LengthSplitter


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))


def test_a_scoring_option_in_a_split_recipe_is_refused(data: Path, tmp_path: Path) -> None:
    recipe = tmp_path / "r.toml"
    recipe.write_text(
        '[data]\ntext = "hypothesis"\n[scoring]\nlabel_words = { entailment = "entailed" }\n'
        '[split]\nsplitter = "random"\n[output]\nanalyze = false\n',
        encoding="utf-8",
    )
    refused(["split", str(data), "--config", str(recipe), "--out", str(tmp_path / "o")],
            "--label-word=", "has an effect only when the run scores with a model")  # fmt: skip
    assert not (tmp_path / "o").exists()
    with pytest.raises(ConfigError, match=r"^label_words=\{'entailment': 'entailed'\}"):
        tailsplit.split(data, "random", text="hypothesis", label_words={"entailment": "entailed"})


def test_zero_filtering_rounds_are_refused(data: Path, tmp_path: Path) -> None:
    refused(
        [*split_args(data, tmp_path / "o"), "--splitter", "aflite", "--rounds", "0"], "--rounds=0 must be at least 1"
    )


def test_an_id_size_that_is_neither_fraction_nor_count_is_refused(data: Path, tmp_path: Path) -> None:
    refused(["curve", "--id", f"{data}@hypothesis", "--ood", f"{data}@hypothesis", "--id-dev-size", "1.5",
             "--out", str(tmp_path / "c")], "--id-dev-size=1.5 is neither a fraction below 1 nor a whole count")  # fmt: skip
    assert not (tmp_path / "c").exists()


def test_a_split_compared_with_itself_is_refused(data: Path, tmp_path: Path) -> None:
    ok(split_args(data, tmp_path / "s"))
    refused(["analyze", str(tmp_path / "s"), "--compare", str(tmp_path / "s")], "is the split being analysed")
    refused(["analyze", str(tmp_path / "s"), "--compare", str(tmp_path / "." / "s")], "is the split being analysed")


def test_a_licence_is_a_licence_id(data: Path, tmp_path: Path) -> None:
    ok(split_args(data, tmp_path / "s"))
    message = refused(["export", "hf", str(tmp_path / "s"), "--out", str(tmp_path / "hf"), "--license", "x" * 100_000],
                      "is not a licence id")  # fmt: skip
    assert len(message) < 400 and not (tmp_path / "hf").exists()


def test_lengths_are_whole_counts() -> None:
    inputs = tailsplit.SplitInputs(n=10, word_lengths=np.arange(10) * 0.5)
    with pytest.raises(ConfigError, match="a length is a whole count"):
        LengthSplitter(dev_size=2, test_size=2).split(inputs)


def test_a_missing_group_is_refused_by_the_splitter_itself() -> None:
    groups = np.array(["a", "b", float("nan"), "c"] * 5, dtype=object)
    inputs = tailsplit.SplitInputs(n=20, word_lengths=np.ones(20), groups=groups)
    with pytest.raises(ConfigError, match="the groups hold nan at row 3"):
        tailsplit.RandomSplitter(dev_size=4, test_size=4).split(inputs)


def test_shift_options_beyond_their_sense_are_refused(data: Path, tmp_path: Path) -> None:
    csv = tmp_path / "c.csv"
    csv.write_text(f"name,path,fields,source\nb,{data},hypothesis,web\n", encoding="utf-8")
    common = ["ood-rank", "--id", f"a={data}@hypothesis", "--candidates", str(csv), "--out", str(tmp_path / "o")]
    refused([*common, "--max-similarity", "150"], "--max-similarity=150.0 must be between -100 and 100")
    refused([*common, "--skip-training", "--label-map", "neutral=not_entailment"],
            "--label-map=", "has an effect only when the accuracy drop is measured")  # fmt: skip
    refused([*common, "--label-map", "PER=person=x"], "--label-map='PER=person=x' is not FROM=TO with one '='")
    refused(["similarity", f"{data}@hypothesis", f"{data}@premise", "--permutations", "1000000000"],
            "--permutations=1000000000 must be between 1 and 100000")  # fmt: skip
    assert not (tmp_path / "o").exists()


def test_a_refused_score_file_name_claims_nothing(data: Path, tmp_path: Path) -> None:
    result = tailsplit.score(data, text="hypothesis", method="ngram")
    with pytest.raises(ConfigError, match="a score file is Parquet"):
        result.write(tmp_path / "R02.csv")
    assert not [p.name for p in tmp_path.iterdir() if "R02" in p.name]  # no lock left behind


def test_shared_memory_is_an_ordinary_output_folder(tmp_path: Path) -> None:
    from tailsplit.io.paths import check_not_system

    if not Path("/dev/shm").is_dir():
        pytest.skip("no /dev/shm here")
    check_not_system(Path("/dev/shm/tailsplit-out"), "--out")  # a tmpfs, not a system folder
    with pytest.raises(ConfigError, match="is a system folder"):
        check_not_system(Path("/dev/sda"), "--out")
