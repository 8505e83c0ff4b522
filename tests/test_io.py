"""Loading every supported format, and clear errors for bad input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from conftest import FIXTURES, write_jsonl

from tailsplit.core import FieldMap
from tailsplit.errors import InputError
from tailsplit.io import load_examples

PAIRS = FieldMap(text="hypothesis", context="premise", label="label")


@pytest.mark.parametrize(
    "name", ["pairs.jsonl", "pairs.jsonl.gz", "pairs.csv", "pairs.tsv", "pairs.parquet", "pairs_hf"]
)
def test_every_format_loads_the_same_examples(name: str) -> None:
    ds = load_examples(FIXTURES / name, PAIRS)
    reference = load_examples(FIXTURES / "pairs.jsonl", PAIRS)
    assert ds.ids == reference.ids == ("p1", "p2", "p3", "p4", "p5", "p6")
    assert ds.texts == reference.texts
    assert ds.contexts == reference.contexts
    assert ds.labels == reference.labels
    assert dict(ds.records[0]) == dict(reference.records[0])


def test_datasets_dict_folder_pools_its_splits(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "dd"
    for split in ("train", "test"):
        shutil.copytree(FIXTURES / "pairs_hf", root / split)
    (root / "dataset_dict.json").write_text(json.dumps({"splits": ["train", "test"]}))
    ds = load_examples(root, FieldMap(text="hypothesis", id="none"))
    assert len(ds) == 12


def test_pooling_keeps_the_source_of_each_example(tmp_path: Path) -> None:
    other = write_jsonl(
        tmp_path / "more.jsonl", [{"id": "q1", "premise": "P.", "hypothesis": "H.", "label": "neutral"}]
    )
    ds = load_examples([FIXTURES / "pairs.jsonl", other], PAIRS)
    assert len(ds) == 7
    assert ds.sources[-1] == str(other) and ds.sources[0] == str(FIXTURES / "pairs.jsonl")


def test_missing_ids_are_generated_stably(tmp_path: Path) -> None:
    rows = [{"hypothesis": "A dog."}, {"hypothesis": "A cat."}]
    a = load_examples(write_jsonl(tmp_path / "a.jsonl", rows), FieldMap(text="hypothesis"))
    b = load_examples(write_jsonl(tmp_path / "b.jsonl", rows), FieldMap(text="hypothesis"))
    assert a.ids == b.ids and a.ids_generated
    assert a.ids[0].startswith("000000-") and len(set(a.ids)) == 2


def test_labels_become_strings_with_json_spelling(tmp_path: Path) -> None:
    rows = [{"question": "Is it?", "label": True}, {"question": "Is it not?", "label": 0}]
    ds = load_examples(write_jsonl(tmp_path / "b.jsonl", rows), FieldMap(text="question", label="label"))
    assert ds.labels == ("true", "0")


def bad(tmp_path: Path, content: bytes, name: str = "bad.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"hypothesis": "ok"}\n{"hypothesis": "broken"\n', r"bad.jsonl:2: is not valid JSON"),
        (b'{"hypothesis": "ok"}\n["a list"]\n', r"bad.jsonl:2: holds a JSON array"),
        (
            b'{"hypothesis": "ok"}\n{"premise": "no hypothesis"}\n',
            r"bad.jsonl:2: field 'hypothesis' is missing; the record has 'premise'; choose the field with --text",
        ),
        (b'{"hypothesis": "ok"}\n{"hypothesis": null}\n', r"bad.jsonl:2: field 'hypothesis' is null"),
        (b'{"hypothesis": "ok"}\n{"hypothesis": "   "}\n', r"bad.jsonl:2: field 'hypothesis' is empty"),
        (b'{"hypothesis": "ok"}\n{"hypothesis": 7}\n', r"bad.jsonl:2: field 'hypothesis' is a int, not text"),
        (b'{"hypothesis": "ok"}\n{"hypothesis": "caf\xe9"}\n', r"bad.jsonl:2: is not valid UTF-8"),
        (
            b'{"id": 1, "hypothesis": "a"}\n\n{"id": 1, "hypothesis": "b"}\n',
            r"bad.jsonl:3: field 'id' repeats id '1' first seen at .*bad.jsonl:1",
        ),
        (
            b'{"id": 1, "hypothesis": "a"}\n{"hypothesis": "b"}\n',
            r"bad.jsonl:2: field 'id' is missing here but present in other records",
        ),
        (b"", r"bad.jsonl: holds no records"),
    ],
)
def test_bad_jsonl_names_file_line_field_and_fix(tmp_path: Path, content: bytes, expected: str) -> None:
    with pytest.raises(InputError, match=expected):
        load_examples(bad(tmp_path, content), FieldMap(text="hypothesis"))


def test_bad_csv_is_located(tmp_path: Path) -> None:
    path = bad(tmp_path, b'hypothesis,label\nfine,a\n"has, comma",b,extra\n', "bad.csv")
    with pytest.raises(InputError, match=r"bad.csv:3: has 3 columns but the header has 2"):
        load_examples(path, FieldMap(text="hypothesis"))
    path = bad(tmp_path, b"hypothesis,label\nfine,a\ncaf\xe9,b\n", "enc.csv")
    with pytest.raises(InputError, match=r"enc.csv:3: is not valid UTF-8"):
        load_examples(path, FieldMap(text="hypothesis"))


def test_parquet_errors_name_the_row(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "rows.parquet"
    pq.write_table(pa.Table.from_pylist([{"q": "fine"}, {"q": ""}]), path)
    with pytest.raises(InputError, match=r"rows.parquet: row 2: field 'q' is empty"):
        load_examples(path, FieldMap(text="q"))


def test_unknown_format_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown format"):
        load_examples(bad(tmp_path, b"x", "data.xlsx"), FieldMap(text="q"))
    with pytest.raises(InputError, match="does not exist"):
        load_examples(tmp_path / "nope.jsonl", FieldMap(text="q"))


def test_gzip_jsonl_is_read(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"q": "hello"}\n'))
    assert load_examples(path, FieldMap(text="q")).texts == ("hello",)
