"""Hostile data where it is read: every record validated where it is read (NaN and infinities, lone surrogates, mixed column types, tabs in TSV, values JSON cannot hold, damaged gzip named as damage), score files and recipes read strictly, blank lines read as fast as records, and what a format accepts written back in it."""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from helpers import split_args, write_jsonl
from hostile import (
    LINK,
    hostile_dataset,
    ok,
    pairs,
    random_split,
    refused,
)
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def score_csv(tmp_path: Path, column: str, values: list[str], name: str = "s.csv") -> Path:
    path = tmp_path / name
    lines = [f"id,logprob_sum,{column}"] + [f"p{i},-{i + 1}.5,{v}" for i, v in enumerate(values)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


_KEYS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6)


_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), _KEYS, st.sampled_from([LINK, "a\tb", "x\ny"])
)


_VALUES = st.recursive(_LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(_KEYS, inner, max_size=3)), max_leaves=6)  # fmt: skip


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_lines_with_nan_or_infinity_are_refused_at_read_time(tmp_path: Path, constant: str) -> None:
    rows = pairs()
    lines = [json.dumps(r) for r in rows]
    lines[3] = lines[3][:-1] + f', "extra": {{"x": [1, {constant}]}}}}'
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused(split_args(data, tmp_path / "o"), "d.jsonl:4:", "'extra.x[1]'", constant, "write null or a number")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "tsv", "parquet"])
def test_a_lone_surrogate_is_refused_at_read_time_for_every_format(tmp_path: Path, fmt: str) -> None:
    rows = pairs()
    rows[4]["hypothesis"] = "abc \ud800 def"
    data = write_jsonl(tmp_path / "d.jsonl", rows)  # json.dumps escapes it as \ud800
    refused([*split_args(data, tmp_path / "o"), "--format", fmt], "d.jsonl:5:", "'hypothesis'", "lone surrogate")
    assert not (tmp_path / "o").exists()
    rows[4]["hypothesis"] = "fine"
    rows[6]["note\udc80"] = "x"  # in a field name
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    refused(split_args(data, tmp_path / "o"), "d.jsonl:7:", "lone surrogate")


def test_a_lone_surrogate_in_memory_is_refused() -> None:
    from tailsplit.core import FieldMap
    from tailsplit.errors import InputError
    from tailsplit.io.examples import load_examples

    rows = pairs()
    rows[2]["premise"] = "x \udfff"
    with pytest.raises(InputError, match=r"row 3: field 'premise' holds a lone surrogate"):
        load_examples(rows, FieldMap(text="hypothesis"))
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError, match=r"row 3: field 'premise' holds a lone surrogate"):
        load_examples(pd.DataFrame(rows, dtype=object), FieldMap(text="hypothesis"))


@pytest.mark.parametrize("fmt", ["parquet", "hf"])
def test_a_column_of_mixed_types_is_refused_before_work_for_typed_formats(tmp_path: Path, fmt: str) -> None:
    rows = pairs()
    rows[5]["extra"] = 1
    rows[9]["extra"] = "one"
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    refused([*split_args(data, tmp_path / "o"), "--format", fmt], "'extra'", "is a str here but a number")
    assert not (tmp_path / "o").exists()
    ok([*split_args(data, tmp_path / "o"), "--format", "jsonl"])  # JSON holds it as it is


def test_a_dataframe_column_of_mixed_types_is_a_located_error() -> None:
    pd = pytest.importorskip("pandas")
    from tailsplit.core import FieldMap
    from tailsplit.errors import InputError
    from tailsplit.io.examples import load_examples

    frame = pd.DataFrame(pairs())
    frame["label"] = ["a", 1] * 15
    with pytest.raises(InputError, match=r"row 2: field 'label' is a number here but a str in pandas.DataFrame row 1"):
        load_examples(frame, FieldMap(text="hypothesis", label="label"))


def test_a_tab_in_a_field_is_refused_before_work_for_tsv(tmp_path: Path) -> None:
    rows = pairs()
    rows[7]["premise"] = "tab\there"
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    refused([*split_args(data, tmp_path / "o"), "--format", "tsv"], "row 8", "'premise'", "TSV cannot hold")


def test_typed_values_json_cannot_hold_are_refused_before_work(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = pairs()
    table = pa.Table.from_pylist(rows).append_column("weight", pa.array([1.0] * 29 + [math.nan]))
    pq.write_table(table, tmp_path / "d.parquet")
    ok(split_args(tmp_path / "d.parquet", tmp_path / "o"))  # Parquet holds NaN
    refused([*split_args(tmp_path / "d.parquet", tmp_path / "o2"), "--format", "jsonl"], "row 30", "'weight'", "nan")


def test_score_file_flags_are_parsed_strictly(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    ok([*split_args(data, tmp_path / "o"), "--splitter", "likelihood", "--scores",
        str(score_csv(tmp_path, "truncated", ["False"] * 29 + ["TRUE"]))])  # fmt: skip
    parts = [json.loads(line) for p in ("train", "dev", "test") for line in open(tmp_path / "o" / f"{p}.jsonl")]
    assert sum(r["truncated"] for r in parts) == 1
    bad = score_csv(tmp_path, "truncated", ["false"] * 10 + ["yes"] * 20, "bad.csv")
    refused([*split_args(data, tmp_path / "o2"), "--splitter", "likelihood", "--scores", str(bad)],
            "bad.csv: row 11", "'truncated'", "'yes'")  # fmt: skip


def test_positive_scores_and_negative_token_counts_are_refused(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    positive = tmp_path / "pos.csv"
    positive.write_text("id,logprob_sum\n" + "".join(f"p{i},{i + 1}.5\n" for i in range(30)), encoding="utf-8")
    refused([*split_args(data, tmp_path / "o"), "--splitter", "likelihood", "--scores", str(positive)],
            "'logprob_sum'", "above 0", "negate them")  # fmt: skip
    counts = score_csv(tmp_path, "n_tokens", ["3"] * 3 + ["-1"] + ["3"] * 26, "n.csv")
    refused([*split_args(data, tmp_path / "o"), "--splitter", "likelihood", "--scores", str(counts)],
            "row 4", "'n_tokens'", "-1.0")  # fmt: skip
    rows = pairs()
    for i, r in enumerate(rows):
        r["score"] = 2.0 + i
    data = write_jsonl(tmp_path / "s.jsonl", rows)
    refused([*split_args(data, tmp_path / "o"), "--splitter", "likelihood", "--score-column", "score"], "above 0")


def test_a_gzip_crc_error_is_named_as_damage_not_as_another_format(tmp_path: Path) -> None:
    blob = bytearray(gzip.compress("".join(json.dumps(r) + "\n" for r in pairs()).encode()))
    blob[-8] ^= 0xFF  # the CRC-32 in the trailer
    path = tmp_path / "d.jsonl.gz"
    path.write_bytes(bytes(blob))
    message = refused(split_args(path, tmp_path / "o"), "d.jsonl.gz")
    assert "not a gzip file" not in message and "checksum" in message


def test_a_recipe_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", pairs())
    recipe = tmp_path / "r.toml"
    recipe.write_bytes(
        b"\xef\xbb\xbf"
        + f'[data]\npaths = ["{data.name}"]\ntext = "hypothesis"\n[split]\nsplitter = "random"\n'.encode()
        + b'[output]\nout = "o"\nanalyze = false\n'
    )
    ok(["split", "--config", str(recipe)])
    assert (tmp_path / "o" / "manifest.json").exists()


def test_blank_lines_read_as_fast_as_records(tmp_path: Path) -> None:
    """Many blank lines must not fall back to a per-line path: count the fallback calls."""
    from tailsplit.io import readers

    path = tmp_path / "blank.jsonl"
    path.write_text("\n" * 200_000 + json.dumps({"text": "a"}) + "\n" + " \n" * 1000, encoding="utf-8")
    calls = []
    original = readers._read_line
    readers._read_line = lambda *a: calls.append(1) or original(*a)  # type: ignore[assignment]
    try:
        assert [r.record for r in readers.read_records(path)] == [{"text": "a"}]
    finally:
        readers._read_line = original  # type: ignore[assignment]
    assert len(calls) <= 1000  # whitespace-only lines may still be read one by one; empty lines are not


@settings(max_examples=int(os.environ.get("TAILSPLIT_HOSTILE_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(records=st.lists(st.dictionaries(_KEYS, _VALUES, max_size=4), min_size=1, max_size=6))
def test_records_accepted_for_a_format_are_written_in_it(tmp_path: Path, records: list[dict]) -> None:
    """The property behind "no crash after scoring": whatever check_writable lets through (it
    runs before any model loads), the writer writes; JSON Lines reads back equal."""
    from tailsplit.errors import InputError
    from tailsplit.io.arrow import arrow_table
    from tailsplit.io.readers import read_records
    from tailsplit.io.values import check_writable
    from tailsplit.io.writers import OUTPUT_FORMATS, OUTPUT_SUFFIX, write_records

    for fmt in OUTPUT_FORMATS:
        path = tmp_path / f"out-{fmt}{OUTPUT_SUFFIX[fmt]}"
        try:
            check_writable(records, fmt, lambda i: ("mem", i + 1), json_safe=False, arrow=arrow_table)
        except InputError:
            continue
        write_records(path, records, fmt)
        if fmt == "jsonl":
            assert [r.record for r in read_records(path)] == records


@settings(max_examples=int(os.environ.get("TAILSPLIT_HOSTILE_EXAMPLES", "30")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    case=hostile_dataset(),
    roles=st.fixed_dictionaries({"text": st.sampled_from(["text", 0, "nosuch", ""]),
                                 "label": st.sampled_from(["label", None, 1.5])}),
)  # fmt: skip
def test_the_python_api_keeps_the_contract_on_hostile_tables(
    tmp_path: Path, case: tuple[list[dict], list[str]], roles: dict[str, Any]
) -> None:
    """In memory (a list of dicts, as Python holds it: surrogates, NaN, numpy-free), with any
    role name (text or not, present or not), ``run`` returns a result covering every row or
    raises a TailsplitError — never another exception."""
    import copy

    import tailsplit
    from tailsplit.errors import TailsplitError

    rows, _ = case
    given_rows = copy.deepcopy(rows)
    config = tailsplit.RunConfig()
    config.split.splitter = "random"
    config.output.analyze = False
    try:
        config.data = tailsplit.DataConfig(table=rows, **roles)  # a role that is no text is refused here
        result = tailsplit.run(config)
    except TailsplitError:
        pass
    else:
        assert sum(len(p) for p in result.split.parts().values()) == len(rows)
    assert repr(rows) == repr(given_rows)  # the caller's table is left as it was


def test_a_file_the_manifest_does_not_list_is_not_read(tmp_path: Path) -> None:
    folder = random_split(tmp_path)
    (folder / "scores.parquet").write_bytes(b"not parquet at all")
    output = ok(["analyze", str(folder), "--null-splits", "5", "--no-syntax"])
    assert "Traceback" not in output
    analysis = json.loads((folder / "analysis.json").read_text(encoding="utf-8"))
    assert "logprob" not in json.dumps(analysis.get("against_null", []))


def test_a_citation_file_that_never_ends_or_blocks_is_refused(tmp_path: Path) -> None:
    folder = random_split(tmp_path)
    export = ["export", "hf", str(folder), "--out", str(tmp_path / "hf")]
    refused([*export, "--citation-file", "/dev/zero"], "--citation-file=", "character device")
    fifo = tmp_path / "cite.fifo"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "tailsplit.cli", *export, "--citation-file", str(fifo)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "FIFO" in done.stderr, done.stderr
    big = tmp_path / "big.bib"
    big.write_bytes(b"@misc{a, note={" + b"x" * (1 << 20) + b"}}")
    refused([*export, "--citation-file", str(big)], "larger than 1024 KiB")
    assert not (tmp_path / "hf").exists()


def test_a_data_file_that_is_a_fifo_or_device_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "d.jsonl"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "tailsplit.cli", *split_args(fifo, tmp_path / "o")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "FIFO" in done.stderr, done.stderr


def test_a_deeply_nested_recipe_is_refused_in_one_line(tmp_path: Path) -> None:
    recipe = tmp_path / "r.toml"
    recipe.write_text("[data]\ntext = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    refused(["run", "--config", str(recipe)], "more than 100 levels deep")
    dotted = tmp_path / "d.toml"
    dotted.write_text("[data]\n" + ".".join(["k"] * 5000) + " = 1\n", encoding="utf-8")
    refused(["run", "--config", str(dotted)], "config=")


def test_a_record_beyond_the_size_limit_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    from tailsplit.io import lines

    rows = pairs()
    rows[3]["hypothesis"] = "long " * 400
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    with mock.patch.object(lines, "MAX_RECORD_BYTES", 1000), mock.patch.object(lines, "_BLOCK_BYTES", 256):
        refused(split_args(data, tmp_path / "o"), "d.jsonl:4:", "longer than", "limit for one record")
    assert not (tmp_path / "o").exists()


def test_gzip_with_trailing_junk_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl.gz"
    path.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in pairs()).encode()) + b"junk after")
    message = refused(split_args(path, tmp_path / "o"), "trailing junk")
    assert "not a gzip file" not in message


@pytest.mark.parametrize("value", [["a", "b"], {"x": 1}])
@pytest.mark.parametrize("role", ["label", "id"])
def test_list_and_dict_labels_and_ids_are_refused(tmp_path: Path, value: object, role: str) -> None:
    rows = pairs()
    rows[4][role] = value
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    args = [*split_args(data, tmp_path / "o"), *(["--label", "label"] if role == "label" else [])]
    refused(args, "d.jsonl:5:", f"'{role}'", "not one value")


def test_non_text_role_names_are_refused_in_python() -> None:
    import pandas as pd

    import tailsplit
    from tailsplit.errors import ConfigError

    table = pd.DataFrame({0: ["a b c"] * 20, 1: ["x", "y"] * 10})
    with pytest.raises(ConfigError, match="text=0 is not text, so not a field name"):
        tailsplit.run(tailsplit.RunConfig(data=tailsplit.DataConfig(table=table, text=0)))  # type: ignore[arg-type]


def test_a_bad_value_in_a_dataframe_is_reported_at_its_own_row() -> None:
    import pandas as pd

    from tailsplit.core import FieldMap
    from tailsplit.errors import InputError
    from tailsplit.io.examples import load_examples

    base = {"text": [f"a b {i}" for i in range(20)], "label": ["x", "y"] * 10}
    null_text = pd.DataFrame(base)
    null_text.loc[4, "text"] = None
    list_label = pd.DataFrame(base).astype({"label": object})
    list_label.at[4, "label"] = ["x", "y"]
    for table, field in ((null_text, "text"), (list_label, "label")):
        with pytest.raises(InputError, match=f"row 5: field '{field}'"):
            load_examples(table, FieldMap(text="text", label="label"))


def test_accuracies_outside_zero_to_one_are_refused(tmp_path: Path) -> None:
    points = tmp_path / "p.csv"
    points.write_text("id_acc,ood_acc\n0.5,0.4\n0.6,1.4\n0.7,0.5\n", encoding="utf-8")
    refused(["correlate", str(points)], "p.csv:3:", "'ood_acc'", "not an accuracy between 0 and 1", "0.83, not 83")
