"""Reading a split folder back: the scores matched to its rows by Arrow's hashing give what
the matching by id in Python gives, and a missing score is named."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tailsplit.analysis import split_dir
from tailsplit.errors import InputError


def _both(table: pa.Table, ids: list[str]) -> tuple[tuple, tuple]:
    matched = split_dir._matched_rows(table, ids)
    assert matched is not None
    counts = matched.column("n_tokens")
    fast = (
        matched.column("logprob_sum").to_numpy().astype(np.float64),
        None if counts.null_count else counts.to_numpy().astype(np.int64),
    )
    return fast, split_dir._scores_by_id(table.to_pydict(), ids, Path("scores.parquet"))


@pytest.mark.parametrize("with_counts", [True, False])
def test_scores_matched_by_arrow_equal_the_match_by_id(with_counts: bool) -> None:
    rng = np.random.default_rng(0)
    ids = [f"r{i}" for i in rng.permutation(500)]
    counts = pa.array(rng.integers(1, 40, 500)) if with_counts else pa.array([None] * 500, pa.int64())
    table = pa.table({"id": [f"r{i}" for i in range(500)], "logprob_sum": rng.normal(-30, 5, 500), "n_tokens": counts})
    (fast_scores, fast_counts), (slow_scores, slow_counts) = _both(table, ids)
    assert fast_scores.tobytes() == slow_scores.tobytes()
    assert (fast_counts is None) == (slow_counts is None) == (not with_counts)
    if with_counts:
        assert fast_counts.tolist() == slow_counts.tolist()


def test_scores_the_arrow_match_cannot_account_for_go_the_python_way() -> None:
    table = pa.table({"id": ["a", "b", "a"], "logprob_sum": [-1.0, -2.0, -3.0], "n_tokens": [1, 2, 3]})
    assert split_dir._matched_rows(table, ["a", "b"]) is None  # a repeated id: the last one counts
    assert split_dir._scores_by_id(table.to_pydict(), ["a", "b"], Path("s"))[0].tolist() == [-3.0, -2.0]
    missing = pa.table({"id": ["a"], "logprob_sum": [-1.0], "n_tokens": [1]})
    assert split_dir._matched_rows(missing, ["a", "z"]) is None
    with pytest.raises(InputError, match="has no score for id 'z'"):
        split_dir._scores_by_id(missing.to_pydict(), ["a", "z"], Path("s"))
    text_scores = pa.table({"id": ["a"], "logprob_sum": ["-1"], "n_tokens": [1]})
    assert split_dir._matched_rows(text_scores, ["a"]) is None


def test_an_analysis_is_not_written_into_a_folder_that_changed_since(tmp_path: Path) -> None:
    import tailsplit
    from tailsplit.errors import ConfigError

    rows = [{"id": str(i), "premise": f"p {i}", "hypothesis": f"h {i} x", "label": "abc"[i % 3]} for i in range(30)]
    data = tmp_path / "s.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    options = {"text": "hypothesis", "context": "premise", "label": "label", "analyze": False}
    tailsplit.split(data, "random", seed=0, out=tmp_path / "F", **options)
    analysis = tailsplit.analyze(tmp_path / "F", null_splits=20, syntax=False)
    tailsplit.split(data, "random", seed=1, out=tmp_path / "F", overwrite=True, **options)  # the notebook re-splits
    before = {p.name: p.read_bytes() for p in (tmp_path / "F").iterdir() if p.is_file()}
    with pytest.raises(ConfigError, match=r"no longer holds the split this analysis describes .*seed 0 then, 1 now"):
        analysis.write()
    assert {p.name: p.read_bytes() for p in (tmp_path / "F").iterdir() if p.is_file()} == before  # untouched
    fresh = tailsplit.analyze(tmp_path / "F", null_splits=20, syntax=False)
    fresh.write()
    fresh.write()  # over its own reports: still the same split
    assert json.loads((tmp_path / "F" / "analysis.json").read_text())["examples"] == 30
