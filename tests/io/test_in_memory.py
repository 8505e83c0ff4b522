"""Data in and out of memory: pandas, pyarrow, Hugging Face datasets, lists of dicts; output formats."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import SAMPLE, write_jsonl
from typer.testing import CliRunner

from tailsplit import DataConfig, RunConfig, load_examples, run
from tailsplit.cli import app
from tailsplit.core import FieldMap
from tailsplit.errors import ConfigError, InputError

datasets = pytest.importorskip("datasets")

LABELS = ["entailment", "neutral", "contradiction"]


def rows(n: int = 240) -> list[dict]:
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        out = [json.loads(line) for _, line in zip(range(n), handle)]
    return [{"premise": r["premise"], "hypothesis": r["hypothesis"], "label": r["label"]} for r in out]


def config(table=None, paths=None, out: Path | None = None, **split) -> RunConfig:
    cfg = RunConfig()
    cfg.data = DataConfig(table=table, paths=paths or [], text="hypothesis", context="premise", label="label")
    cfg.split.splitter = split.pop("splitter", "random")
    cfg.split.dev_size, cfg.split.test_size = 24, 24
    for key, value in split.items():
        setattr(cfg.split, key, value)
    cfg.output.out = None if out is None else str(out)
    cfg.output.analyze = False
    return cfg


def hf_dataset(records: list[dict]):
    features = datasets.Features(
        {
            "premise": datasets.Value("string"),
            "hypothesis": datasets.Value("string"),
            "label": datasets.ClassLabel(names=LABELS),
        }
    )
    return datasets.Dataset.from_list([{**r, "label": LABELS.index(r["label"])} for r in records], features=features)


@pytest.mark.parametrize("kind", ["pandas", "pyarrow", "list", "dataset"])
def test_in_memory_tables_split_exactly_as_the_file(tmp_path: Path, kind: str) -> None:
    records = rows()
    file_result = run(config(paths=[str(write_jsonl(tmp_path / "d.jsonl", records))]))
    table = {
        "pandas": lambda: pd.DataFrame(records),
        "pyarrow": lambda: pa.Table.from_pylist(records),
        "list": lambda: records,
        "dataset": lambda: hf_dataset(records),
    }[kind]()
    result = run(config(table=table))
    assert result.dataset.labels == file_result.dataset.labels  # ClassLabel codes read as their names
    assert result.dataset.ids == file_result.dataset.ids
    assert all(np.array_equal(a, b) for a, b in zip(result.split.parts().values(), file_result.split.parts().values()))
    inputs = result.manifest["inputs"]
    assert inputs[0]["rows"] == len(records) and len(inputs[0]["content_sha256"]) == 64
    assert result.manifest["config"]["data"]["table"]["in_memory"].split(".")[0] in (
        "pandas",
        "pyarrow",
        "list[dict]",
        "datasets",
    )


def test_content_hash_does_not_depend_on_the_table_type() -> None:
    records = rows(50)
    fields = FieldMap(text="hypothesis")
    hashes = {
        load_examples(t, fields).memory.sha256 for t in (records, pd.DataFrame(records), pa.Table.from_pylist(records))
    }
    assert len(hashes) == 1
    changed = [dict(r) for r in records]
    changed[7]["hypothesis"] += "!"
    assert load_examples(changed, fields).memory.sha256 not in hashes


def test_dataset_dict_is_pooled_with_its_split_names(tmp_path: Path) -> None:
    records = rows()
    dd = datasets.DatasetDict({"train": hf_dataset(records[:160]), "validation": hf_dataset(records[160:])})
    result = run(config(table=dd, out=tmp_path / "out"))
    assert result.dataset.splits is not None and set(result.dataset.splits) == {"train", "validation"}
    written = pd.concat(pd.read_parquet(tmp_path / "out" / f"{p}.parquet") for p in ("train", "dev", "test"))
    assert sorted(written["source_split"].unique()) == ["train", "validation"]
    assert result.manifest["inputs"][0]["split_rows"] == {"train": 160, "validation": 80}


def test_save_to_disk_folder_keeps_class_label_names_and_splits(tmp_path: Path) -> None:
    records = rows()
    dd = datasets.DatasetDict({"dev": hf_dataset(records[:120]), "test": hf_dataset(records[120:])})
    dd.save_to_disk(str(tmp_path / "snli-hf"))
    result = CliRunner().invoke(
        app,
        ["run", str(tmp_path / "snli-hf"), "--text", "hypothesis", "--context", "premise", "--label", "label",
         "--template", "snli", "--backend", "fake", "--balance-labels", "--dev-size", "24", "--test-size", "24",
         "--no-analyze", "--out", str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    test_rows = [json.loads(line) for line in (tmp_path / "out" / "test.jsonl").read_text().splitlines()]
    assert {r["label"] for r in test_rows} == set(LABELS)
    assert {r["source_split"] for r in test_rows} <= {"dev", "test"}


def test_negative_class_label_is_an_empty_label(tmp_path: Path) -> None:
    records = rows(30)
    ds = hf_dataset(records)
    codes = list(ds["label"])
    codes[4] = -1
    ds = ds.remove_columns("label").add_column("label", codes, feature=datasets.ClassLabel(names=LABELS))
    with pytest.raises(InputError, match="row 5.*'label' is empty or null"):
        load_examples(ds, FieldMap(text="hypothesis", label="label"))


def test_to_pandas_keeps_order_types_and_adds_part_and_scores(tmp_path: Path) -> None:
    records = [{**r, "year": np.int16(2015 + i % 3)} for i, r in enumerate(rows())]
    df = pd.DataFrame(records)
    cfg = config(table=df, splitter="likelihood")
    cfg.scoring.backend = "fake"
    result = run(cfg)
    out = result.to_pandas()
    assert list(out["hypothesis"]) == list(df["hypothesis"])
    assert out["year"].dtype == np.int16
    assert set(out["part"]) == {"train", "dev", "test"}
    assert (out["part"] == "test").sum() == 24
    assert np.allclose(out["logprob_sum"], result.scores.logprob_sum)
    assert "RunResult(splitter='likelihood', train=192, dev=24, test=24, scored)" == repr(result)
    assert "<table>" in result._repr_html_()
    assert len(repr(result.dataset)) < 300 and "240 examples" in repr(result.dataset)


def test_to_datasets_gives_train_validation_test_with_features() -> None:
    result = run(config(table=hf_dataset(rows())))
    dd = result.to_datasets()
    assert list(dd) == ["train", "validation", "test"]
    assert [len(dd[k]) for k in dd] == [192, 24, 24]
    assert isinstance(dd["test"].features["label"], datasets.ClassLabel)
    assert dd["test"].features["label"].names == LABELS
    assert dd["validation"][0]["hypothesis"] == result.dataset.texts[int(result.split.dev_idx[0])]


@pytest.mark.long
@pytest.mark.parametrize("fmt", ["parquet", "csv", "hf"])
def test_format_option_writes_that_format_and_analyze_reads_it(tmp_path: Path, fmt: str) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", rows())
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["split", str(data), "--text", "hypothesis", "--label", "label", "--splitter", "random", "--dev-size", "24",
         "--test-size", "24", "--format", fmt, "--null-splits", "5", "--no-syntax", "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    if fmt == "hf":
        assert len(datasets.load_from_disk(str(out / "test"))) == 24
    else:
        assert (out / f"test.{fmt}").is_file()
    again = CliRunner().invoke(app, ["analyze", str(out), "--null-splits", "5", "--no-syntax"])
    assert again.exit_code == 0, again.output


def test_hf_format_is_reproducible(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", rows())
    hashes = []
    for name in ("a", "b"):
        args = ["split", str(data), "--text", "hypothesis", "--splitter", "random", "--dev-size", "24",
                "--test-size", "24", "--format", "hf", "--no-analyze", "--out", str(tmp_path / name)]  # fmt: skip
        assert CliRunner().invoke(app, args).exit_code == 0
        hashes.append(json.loads((tmp_path / name / "manifest.json").read_text())["outputs"])
    assert hashes[0] == hashes[1] and any(k.startswith("test/") for k in hashes[0])


def test_parquet_output_keeps_input_types_and_metadata(tmp_path: Path) -> None:
    records = rows()
    table = pa.Table.from_pylist([{**r, "n": i} for i, r in enumerate(records)])
    schema = pa.schema(
        [f if f.name != "n" else pa.field("n", pa.int16()) for f in table.schema], metadata={b"origin": b"snli-sample"}
    )
    pq.write_table(table.cast(schema), tmp_path / "d.parquet")
    result = CliRunner().invoke(
        app,
        ["split", str(tmp_path / "d.parquet"), "--text", "hypothesis", "--splitter", "random", "--dev-size", "24",
         "--test-size", "24", "--no-analyze", "--out", str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    written = pq.read_schema(tmp_path / "out" / "test.parquet")
    assert written.field("n").type == pa.int16()
    assert written.metadata[b"origin"] == b"snli-sample"


def test_bad_tables_and_options_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ndarray cannot be read"):
        load_examples(np.zeros(3), FieldMap(text="t"))
    df = pd.DataFrame(rows(20))
    df.loc[6, "hypothesis"] = None
    with pytest.raises(InputError, match="pandas.DataFrame: row 7: field 'hypothesis' is null"):
        load_examples(df, FieldMap(text="hypothesis"))
    both = config(table=df, paths=["x.jsonl"])
    with pytest.raises(ConfigError, match="paths and table are both given"):
        run(both)
    data = write_jsonl(tmp_path / "d.jsonl", rows(60))
    bad = CliRunner().invoke(app, ["split", str(data), "--text", "hypothesis", "--splitter", "random",
                                   "--format", "xml", "--out", str(tmp_path / "o")])  # fmt: skip
    assert bad.exit_code == 2 and "format='xml'" in bad.output and not (tmp_path / "o").exists()


def test_dataset_option_loads_a_local_dataset_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    folder = tmp_path / "local-snli"
    folder.mkdir()
    records = rows()
    write_jsonl(folder / "train.jsonl", records[:180])
    write_jsonl(folder / "test.jsonl", records[180:])
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["split", "--dataset", str(folder), "--text", "hypothesis", "--label", "label", "--splitter", "random",
         "--dev-size", "24", "--test-size", "24", "--no-analyze", "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["inputs"][0]["split_rows"] == {"train": 180, "test": 60}

    def offline(name, config=None):  # noqa: ANN001, ANN202  (what datasets raises without network)
        raise ConnectionError(f"Couldn't reach '{name}' on the Hub (LocalEntryNotFoundError)")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    missing = CliRunner().invoke(app, ["split", "--dataset", "no-such-org/no-such-dataset", "--text", "t",
                                       "--splitter", "random", "--out", str(tmp_path / "o2")])  # fmt: skip
    assert missing.exit_code == 2
    assert "no-such-org/no-such-dataset: cannot be loaded (ConnectionError" in missing.output
    assert "your network" in missing.output and "Traceback" not in missing.output
