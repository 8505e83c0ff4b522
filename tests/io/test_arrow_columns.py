"""Arrow columns built from buffers: the arrays ``pyarrow.array`` builds from the same values,
the same Parquet bytes in a score file, and no pandas imported to write one."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

from tailsplit.core import ScoreTable  # noqa: E402
from tailsplit.io.arrow_columns import bool_column, number_column, string_column  # noqa: E402
from tailsplit.io.scores import score_file_bytes  # noqa: E402


def test_columns_equal_pyarrows_own() -> None:
    texts = ["", "a", "é", "日本語", "\x00 nul", "emoji 🙂", "x" * 1000]
    missing = np.array([False, True, False, False, True, False, False])
    numbers = np.array([1.5, np.nan, -0.0, np.inf, 2.0, 1e-300, -3.25])
    built = {
        "strings": (string_column(texts), pa.array(texts, pa.string())),
        "empty": (string_column([]), pa.array([], pa.string())),
        "floats": (number_column(numbers, "float64"), pa.array(numbers, pa.float64())),
        "masked floats": (number_column(numbers, "float64", missing), pa.array(numbers, pa.float64(), mask=missing)),
        "masked ints": (number_column(np.arange(7), "int64", missing), pa.array(np.arange(7), pa.int64(), mask=missing)),
        "all missing": (number_column(np.zeros(3), "int64", np.ones(3, bool)), pa.array(np.zeros(3, np.int64), mask=np.ones(3, bool))),
        "none missing": (number_column(np.arange(3), "int64", np.zeros(3, bool)), pa.array(np.arange(3), pa.int64())),
        "booleans": (bool_column(missing), pa.array(missing, pa.bool_())),
        "nine booleans": (bool_column(np.arange(9) % 3 == 0), pa.array(np.arange(9) % 3 == 0, pa.bool_())),
    }  # fmt: skip
    for name, (ours, theirs) in built.items():
        ours.validate(full=True)
        assert ours.type == theirs.type and ours.null_count == theirs.null_count, name
        assert _parquet(ours) == _parquet(theirs), name  # NaN included, which Array.equals never matches
    with pytest.raises(UnicodeEncodeError):  # as pyarrow.array refuses it
        string_column(["lone \ud800 surrogate"])


def _parquet(column) -> bytes:
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({"column": column}), sink)
    return sink.getvalue().to_pybytes()


def test_a_score_file_is_the_same_bytes_as_pyarrows_and_imports_no_pandas(tmp_path) -> None:
    import pyarrow.parquet as pq

    from tailsplit.core import Dataset, FieldMap

    dataset = Dataset(
        records=({}, {}, {}), fields=FieldMap(text="t"), ids=("a", "b", "ç"), texts=("one", "two", "trois"),
        contexts=None, labels=None, groups=None, sources=("f",) * 3,
    )  # fmt: skip
    scores = ScoreTable(
        ids=dataset.ids, logprob_sum=np.array([-1.5, -2.0, -9.25]), n_tokens=np.array([3, 0, 7]),
        truncated=np.array([False, True, False]),
    )  # fmt: skip
    ours = score_file_bytes(dataset, scores, {"k": "v"}, part=np.array(["train", "dev", "test"]))
    table = pq.read_table(pa.BufferReader(ours))
    columns = {name: pa.array(table[name].to_pylist(), table.schema.field(name).type) for name in table.column_names}
    theirs = pa.BufferOutputStream()
    pq.write_table(pa.table(columns).replace_schema_metadata(table.schema.metadata), theirs)
    assert ours == theirs.getvalue().to_pybytes()
    code = (
        "import sys, numpy as np\n"
        "from tailsplit.core import Dataset, FieldMap, ScoreTable\n"
        "from tailsplit.io.scores import score_file_bytes\n"
        "d = Dataset(({},), FieldMap(text='t'), ('a',), ('t',), None, None, None, ('f',))\n"
        "s = ScoreTable(ids=('a',), logprob_sum=np.array([-1.0]), n_tokens=np.array([1]), truncated=np.array([False]))\n"
        "score_file_bytes(d, s, {}, part=np.array(['test']))\n"
        "print('pandas' in sys.modules)\n"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"
