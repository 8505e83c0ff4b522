"""The score file (``scores.parquet``): one row per example, keyed by id.

Columns: ``id``, ``logprob_sum``, ``n_tokens``, ``logprob_mean``, ``truncated``,
``text_sha256`` (of the scored query, to detect a score file that belongs to other data) and,
in a split folder, ``part``. The file's metadata holds the model identity and template.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.core import Dataset, ScoreTable
from tailsplit.errors import InputError

SCORE_COLUMNS = ("logprob_sum", "n_tokens", "logprob_mean", "truncated")
_META_KEY = b"tailsplit"


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def score_file_bytes(
    dataset: Dataset, scores: ScoreTable, meta: dict[str, Any], part: np.ndarray | None = None
) -> bytes:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: dict[str, Any] = {
        "id": pa.array(list(dataset.ids), pa.string()),
        "logprob_sum": pa.array(scores.logprob_sum, pa.float64()),
        "n_tokens": pa.array(scores.n_tokens, pa.int64()),
        "logprob_mean": pa.array(scores.logprob_mean, pa.float64()),
        "truncated": pa.array(scores.truncated, pa.bool_()),
        "text_sha256": pa.array([text_digest(t) for t in dataset.texts], pa.string()),
    }
    if part is not None:
        columns["part"] = pa.array([str(p) for p in part], pa.string())
    table = pa.table(columns).replace_schema_metadata({_META_KEY: json.dumps(meta, sort_keys=True)})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def read_score_file(path: str | Path, dataset: Dataset) -> tuple[ScoreTable, dict[str, Any]]:
    """Scores aligned with ``dataset``; refuses a file whose ids or texts do not match it."""
    import pyarrow.parquet as pq

    path = Path(path)
    if not path.exists():
        raise InputError("does not exist", path=path, fix="run tailsplit score first, or check the path")
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise InputError(
            f"is not a readable Parquet score file ({exc})", path=path, fix="rescore with tailsplit score"
        ) from None
    missing = [c for c in ("id", "logprob_sum", "n_tokens", "truncated", "text_sha256") if c not in table.column_names]
    if missing:
        raise InputError(f"lacks columns {missing}", path=path, fix="rescore with tailsplit score")
    ids = table.column("id").to_pylist()
    row_of = {value: row for row, value in enumerate(ids)}
    if len(row_of) != len(ids):
        raise InputError("repeats ids", path=path, fix="rescore with tailsplit score")
    order = _align(path, ids, row_of, dataset)
    digests = np.asarray(table.column("text_sha256").to_pylist(), dtype=object)[order]
    for i, text in enumerate(dataset.texts):
        if digests[i] != text_digest(text):
            raise InputError(
                f"scores a different text for id {dataset.ids[i]!r}",
                path=path,
                row=int(order[i]) + 1,
                field="text_sha256",
                fix="rescore this dataset, or pass the data it was made from",
            )
    logprob_sum = table.column("logprob_sum").to_numpy()[order].astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(logprob_sum))
    if len(bad):
        raise InputError(
            f"has a non-finite score for id {dataset.ids[int(bad[0])]!r}",
            path=path,
            row=int(order[bad[0]]) + 1,
            field="logprob_sum",
            fix="rescore those examples or remove them from the data",
        )
    meta_raw = (table.schema.metadata or {}).get(_META_KEY)
    scores = ScoreTable(
        ids=dataset.ids,
        logprob_sum=logprob_sum,
        n_tokens=table.column("n_tokens").to_numpy()[order].astype(np.int64),
        truncated=table.column("truncated").to_numpy(zero_copy_only=False)[order].astype(bool),
    )
    return scores, json.loads(meta_raw) if meta_raw else {}


def _align(path: Path, ids: list[str], row_of: dict[str, int], dataset: Dataset) -> np.ndarray:
    extra = len(ids) - len(dataset)
    absent = next((i for i in dataset.ids if i not in row_of), None)
    if absent is not None:
        raise InputError(
            f"has no score for id {absent!r} ({len(ids)} scores for {len(dataset)} examples)",
            path=path,
            fix="rescore this dataset, or pass the data it was made from",
        )
    if extra:
        raise InputError(
            f"has {extra} scores for ids that are not in the data",
            path=path,
            fix="pass the same data files that were scored",
        )
    return np.array([row_of[i] for i in dataset.ids], dtype=np.int64)
