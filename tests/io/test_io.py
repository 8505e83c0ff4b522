"""Loading every supported format, and clear errors for bad input."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from helpers import FIXTURES, write_jsonl
from hypothesis import given, settings
from hypothesis import strategies as st

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
            b'{"hypothesis": "ok"}\n{"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
            r"bad.jsonl:2: nests arrays or objects too deeply to read; flatten that record",
        ),
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


def _not_json(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _reference_jsonl(data: bytes) -> tuple[list[tuple[dict, int]], int | None]:
    """JSON Lines read the plain way — each line decoded and ``json.loads``-ed on its own,
    NaN and infinities refused (they are not JSON) — as (records with their line numbers, the
    line of the first error or ``None``)."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    records = []
    for number, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            if not text.strip():
                continue
            value = json.loads(text, parse_constant=_not_json)
        except ValueError:
            return records, number
        if not isinstance(value, dict):
            return records, number
        records.append((value, number))
    return records, None


_LINES = st.sampled_from(
    [
        b'{"q": "plain", "n": 1}',
        b'{"q": "caf\xc3\xa9 \xf0\x9f\x98\x80", "x": [1.5, null, true]}',
        b'  {"q": "leading space"}',
        b'{"q": "trailing"}   \t',
        b'{"q": "crlf"}\r',
        b"",
        b"   ",
        b"\t\r",
        b'{"q": "nested", "o": {"a": {"b": [[]]}}}',
        b'{"q": NaN, "big": 123456789012345678901234567890}',
        b'{"q": "escaped \\u00e9 \\n \\"quote\\""}',
        b'{"q": "two"} {"q": "values"}',
        b'{"q": "unclosed"',
        b'["an array"]',
        b"42",
        b"null",
        b'{"q": "bad byte \xe9"}',
        b"}",
    ]
)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(_LINES, max_size=12), bom=st.booleans(), final_newline=st.booleans(), block=st.integers(1, 64))
def test_jsonl_reader_equals_reading_line_by_line(
    lines: list[bytes], bom: bool, final_newline: bool, block: int
) -> None:
    """The block reader (json's scanner run in place over decoded blocks) yields the records
    and line numbers a line-by-line ``json.loads`` gives, and stops at the same line on an
    error — for every block size, so lines crossing block boundaries are covered."""
    import tempfile
    from unittest import mock

    from tailsplit.io import lines as line_reading
    from tailsplit.io import readers

    data = (b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    expected, error_line = _reference_jsonl(data)
    with tempfile.TemporaryDirectory() as folder, mock.patch.object(line_reading, "_BLOCK_BYTES", block):
        path = Path(folder) / "d.jsonl"
        path.write_bytes(data)
        got = []
        try:
            for raw in readers.read_records(path):
                got.append((raw.record, raw.line))
        except InputError as exc:
            assert exc.line == error_line, (exc, error_line)
        else:
            assert error_line is None
    assert json.dumps(got) == json.dumps(expected)  # NaN compared by spelling


def test_damaged_gzip_is_one_located_error(tmp_path: Path) -> None:
    whole = gzip.compress(b"".join(b'{"q": "line %d"}\n' % i for i in range(5000)))
    path = bad(tmp_path, whole[: len(whole) // 2], "cut.jsonl.gz")
    with pytest.raises(InputError, match=r"cut.jsonl.gz: cannot be read after line \d+ \(the gzip stream ends early"):
        load_examples(path, FieldMap(text="q"))


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8"), max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=200, deadline=None)
@given(
    records=st.lists(st.dictionaries(st.sampled_from(["q", "é", 'a"b', "n"]), _JSON_VALUES, max_size=3), max_size=9),
    kinds=st.lists(st.sampled_from(["float", "int", "bool", "str", "none", "mixed"]), max_size=4),
    block=st.integers(1, 5),
    data=st.data(),
)
def test_jsonl_with_added_columns_is_json_dumps_of_the_merged_rows(
    records: list[dict], kinds: list[str], block: int, data: st.DataObject
) -> None:
    """Appended columns are spliced into each record's encoding; the file is byte for byte
    json.dumps of {**record, **added} (the spelling every earlier split folder has)."""
    import tempfile
    from unittest import mock

    import numpy as np

    from tailsplit.io import writers

    n = len(records)
    strategies = {
        "float": st.floats(allow_nan=False, allow_infinity=False),
        "int": st.integers(-(2**62), 2**62),
        "bool": st.booleans(),
        "str": st.text(st.characters(codec="utf-8"), max_size=5),
        "none": st.none(),
        "mixed": _JSON_VALUES,
    }
    added: dict[str, object] = {}
    for number, kind in enumerate(kinds):
        values = data.draw(st.lists(strategies[kind], min_size=n, max_size=n))
        as_array = kind in ("float", "int", "bool") and data.draw(st.booleans())
        added[f"added {number} \u00e9\n"] = np.asarray(values) if as_array and values else values
    merged = [
        {**record, **{name: (v.tolist() if hasattr(v, "tolist") else v)[i] for name, v in added.items()}}
        for i, record in enumerate(records)
    ]
    expected = "".join(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n" for row in merged)
    with tempfile.TemporaryDirectory() as folder, mock.patch.object(writers, "_BLOCK_ROWS", block):
        path = Path(folder) / "out.jsonl"
        writers.write_records(path, records, "jsonl", added=added)  # type: ignore[arg-type]
        assert path.read_text(encoding="utf-8") == expected
        writers.write_records(path, merged, "jsonl")
        assert path.read_text(encoding="utf-8") == expected


def test_reading_restores_the_garbage_collector_even_after_an_error(tmp_path: Path) -> None:
    import gc

    path = bad(tmp_path, b'{"q": "fine"}\n{"q": \n')
    for enabled in (True, False):
        gc.enable() if enabled else gc.disable()
        try:
            with pytest.raises(InputError, match="bad.jsonl:2"):
                load_examples(path, FieldMap(text="q"))
            assert load_examples(FIXTURES / "pairs.jsonl", PAIRS).texts
            assert gc.isenabled() is enabled
        finally:
            gc.enable()


def test_the_collector_pause_restores_the_previous_state_even_on_error() -> None:
    import gc

    from tailsplit.collector import paused_gc

    with pytest.raises(ValueError), paused_gc():
        assert not gc.isenabled()
        raise ValueError
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # a caller's own pause is not lifted
    finally:
        gc.enable()
