"""The score file (``scores.parquet``): one row per example, keyed by id.

Columns tailsplit writes: ``id``, ``logprob_sum``, ``n_tokens``, ``logprob_mean``, ``truncated``,
``text_sha256`` (of the scored query, to detect a score file that belongs to other data),
in a split folder ``part``, and with ``--token-scores`` ``token_pieces`` and ``token_logprobs``
(each query's scored tokens and their log-probabilities, in order; the explorer shades them). The file's metadata holds the model identity and template.

Scores made elsewhere (vLLM, lm-eval, an API) need only ``id`` and ``logprob_sum`` (the total
natural-log probability of the query; lower = rarer), in Parquet, CSV or JSON Lines (lm-eval's
``--log_samples`` file is read as it is: :mod:`tailsplit.io.lm_eval_samples`);
``n_tokens`` (for per-token ranking), ``truncated`` and ``text_sha256`` (first 16 hex digits of
the sha256 of the UTF-8 query, checked when present) are optional. Or the scores can sit in
the data itself (``--score-column``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.core import Dataset, FieldMap, ScoreTable
from tailsplit.errors import InputError
from tailsplit.fields import field_value
from tailsplit.io.arrow_columns import bool_column, number_column, string_column
from tailsplit.io.arrow_files import read_parquet_table
from tailsplit.io.examples import label_to_str
from tailsplit.io.lm_eval_samples import is_lm_eval_sample, lm_eval_sample_columns
from tailsplit.io.manifest import Manifest
from tailsplit.io.readers import detect_format, read_all

SCORE_COLUMNS = ("logprob_sum", "n_tokens", "logprob_mean", "truncated")
MEMBERSHIP_PREFIX = "membership_"  # --membership-k's columns: membership_loss, ...
_META_KEY = b"tailsplit"


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def score_file_bytes(
    dataset: Dataset, scores: ScoreTable, meta: dict[str, Any], part: np.ndarray | None = None
) -> bytes:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    unknown = None if scores.has_token_counts else np.ones(len(scores), dtype=bool)  # scored elsewhere, uncounted
    columns: dict[str, Any] = {
        "id": string_column(dataset.ids),
        "logprob_sum": number_column(scores.logprob_sum, "float64"),
        "n_tokens": number_column(scores.n_tokens, "int64", missing=unknown),
        "logprob_mean": number_column(scores.logprob_mean, "float64", missing=unknown),
        "truncated": bool_column(scores.truncated),
        "text_sha256": string_column([text_digest(t) for t in dataset.texts]),
    }
    if part is not None:
        columns["part"] = string_column([str(p) for p in part])
    if scores.token_pieces is not None and scores.token_logprobs is not None:
        columns["token_pieces"] = pa.array([list(p) for p in scores.token_pieces], type=pa.list_(pa.string()))
        columns["token_logprobs"] = pa.array(
            [np.asarray(v, dtype=np.float32) for v in scores.token_logprobs], type=pa.list_(pa.float32())
        )
    for name, values in (scores.membership or {}).items():
        columns[f"{MEMBERSHIP_PREFIX}{name}"] = number_column(np.asarray(values, dtype=np.float64), "float64")
    table = pa.table(columns).replace_schema_metadata({_META_KEY: json.dumps(meta, sort_keys=True)})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def read_score_file(
    path: str | Path, dataset: Dataset, *, model_name: str | None = None
) -> tuple[ScoreTable, dict[str, Any]]:
    """Scores aligned with ``dataset``: a file tailsplit wrote, or one made elsewhere with at
    least ``id`` and ``logprob_sum`` (see the module docstring); refuses a file whose ids — or
    texts, when it has ``text_sha256`` — do not match the data. ``model_name`` names the model
    in the manifest (a file tailsplit wrote knows its own)."""
    path = Path(path)
    if not path.exists():
        raise InputError("does not exist", path=path, fix="run tailsplit score first, or check the path")
    table, meta = _read_table(path, dataset.fields)
    missing = [c for c in ("id", "logprob_sum") if c not in table]
    if missing:
        raise InputError(
            f"lacks columns {missing} (it has {sorted(table)[:10]})",
            path=path,
            fix="a score file needs id and logprob_sum (total log-probability of the query); n_tokens, "
            "truncated and text_sha256 are optional",
        )
    order = _row_order(path, table, dataset, meta)
    if "text_sha256" in table:
        digests = np.asarray(table["text_sha256"], dtype=object)[order]
        for i, text in enumerate(dataset.texts):
            if digests[i] != text_digest(text):
                raise InputError(
                    f"scores a different text for id {dataset.ids[i]!r}",
                    path=path,
                    row=int(order[i]) + 1,
                    field="text_sha256",
                    fix="score this dataset, or pass the data it was made from",
                )
    logprob_sum = _numbers(path, table, "logprob_sum", order)
    _check_log_probabilities(logprob_sum, dataset, lambda i: (path, int(order[i]) + 1), "logprob_sum")
    n_tokens = np.zeros(len(dataset), dtype=np.int64)
    if "n_tokens" in table and table.no_nulls("n_tokens"):
        counts = _numbers(path, table, "n_tokens", order)
        bad = np.flatnonzero((counts < 0) | (counts != np.floor(counts)))
        if len(bad):
            raise InputError(
                f"has {float(counts[bad[0]])!r} for id {dataset.ids[bad[0]]!r}, not a count of tokens",
                path=path,
                row=int(order[bad[0]]) + 1,
                field="n_tokens",
                fix="write the number of scored tokens, a whole number ≥ 0",
            )
        n_tokens = counts.astype(np.int64)
    truncated = table.flags("truncated", path)[order] if "truncated" in table else np.zeros(len(dataset), dtype=bool)
    pieces, values = _token_columns(path, table, order, n_tokens, dataset.ids)
    names = [n for n in table if n.startswith(MEMBERSHIP_PREFIX)]  # carried as they are (NaN: a text without a token)
    membership = {n.removeprefix(MEMBERSHIP_PREFIX): _numbers(path, table, n, order, missing=True) for n in names}
    table.release()
    scores = ScoreTable(dataset.ids, logprob_sum, n_tokens, truncated, pieces, values, membership=membership or None)
    return scores, _model_of(path, meta, model_name)


def _token_columns(path: Path, table: Any, order: np.ndarray, n_tokens: np.ndarray, ids: Any) -> tuple[Any, Any]:
    """``token_pieces`` and ``token_logprobs`` in the data's order, when the file has both
    (``--token-scores``): one piece per log-probability, as many as ``n_tokens``."""
    if "token_pieces" not in table or "token_logprobs" not in table:
        return None, None
    pieces = [tuple(table["token_pieces"][row] or ()) for row in order]
    values = [np.asarray(table["token_logprobs"][row] or (), dtype=np.float32) for row in order]
    for i, (p, v) in enumerate(zip(pieces, values)):
        if len(p) != len(v) or (n_tokens[i] and len(v) != n_tokens[i]):
            raise InputError(
                f"has {len(p)} token pieces and {len(v)} token log-probabilities for id {ids[i]!r} "
                f"({int(n_tokens[i])} tokens scored)",
                path=path, row=int(order[i]) + 1, field="token_logprobs",
                fix="score again with --token-scores, or drop the token columns",
            )  # fmt: skip
    return pieces, values


def _row_order(path: Path, table: Any, dataset: Dataset, meta: dict[str, Any]) -> np.ndarray:
    """The score file's row of each example of ``dataset``."""
    order = table.order(dataset)
    if order is not None:
        return order
    ids = [label_to_str(v) for v in table["id"]]  # ids that are not all text, or a problem to name
    row_of = {value: row for row, value in enumerate(ids)}
    if len(row_of) != len(ids):
        seen: set[str] = set()
        repeated = next(i for i in ids if i in seen or seen.add(i))  # type: ignore[func-returns-value]
        raise InputError(f"repeats id {repeated!r}", path=path, field="id", fix="give each example one score")
    return _align(path, ids, row_of, dataset, meta)


def _model_of(path: Path, meta: dict[str, Any], model_name: str | None) -> dict[str, Any]:
    """The score file's metadata with the model that made the scores: its own record (a file
    tailsplit wrote), ``model_name``, or a note that it is unknown."""
    if model_name and "model" in meta:
        recorded = meta["model"].get("name") if isinstance(meta["model"], dict) else meta["model"]
        raise InputError(
            f"was written by tailsplit and records its model ({recorded!r}); --model-name={model_name!r} "
            "names the model of scores made elsewhere",
            path=path,
            fix="drop --model-name (the recorded identity is kept)",
        )
    if model_name:
        meta = {**meta, "model": {"name": model_name}}
    if "model" not in meta:
        meta = {**meta, "model": {"name": "unknown (scores made elsewhere; name it with --model-name)"}}
    return meta


def scores_from_column(dataset: Dataset, field: str, *, model_name: str | None = None) -> tuple[ScoreTable, dict]:
    """Scores already in the data (``--score-column``): a finite number per record."""

    values = np.empty(len(dataset), dtype=np.float64)
    for i, record in enumerate(dataset.records):
        value = field_value(record, field, None)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
            path, number = dataset.location(i)
            problem = "is missing" if value is None else f"is {value!r}, not a finite number"
            raise InputError(
                problem,
                path=path,
                row=number,
                field=field,
                fix="give every record its total log-probability there, or score with tailsplit score",
            )
        values[i] = float(value)
    _check_log_probabilities(values, dataset, dataset.location, field)
    scores = ScoreTable(
        ids=dataset.ids,
        logprob_sum=values,
        n_tokens=np.zeros(len(dataset), dtype=np.int64),
        truncated=np.zeros(len(dataset), dtype=bool),
    )
    meta = {"method": "external", "score_column": field, "model": {"name": model_name or "unknown"}}
    return scores, meta


def _check_log_probabilities(
    values: np.ndarray, dataset: Dataset, locate: Callable[[int], tuple[Any, int]], field: str
) -> None:
    """Refuse a positive score: a total log-probability is at most 0, and positive numbers are
    almost always negative log-likelihoods (losses), which would silently give a reverse split."""
    positive = np.flatnonzero(values > 0)
    if len(positive):
        where, row = locate(int(positive[0]))
        raise InputError(
            f"is {float(values[positive[0]])!r} for id {dataset.ids[positive[0]]!r}, above 0, which no log-probability "
            f"is ({len(positive)} of {len(values)} scores are positive)",
            path=where,
            row=row,
            field=field,
            fix="if these are negative log-likelihoods (losses), negate them",
        )


def _read_table(path: Path, fields: FieldMap) -> tuple[_Columns, dict[str, Any]]:
    """Columns of a score file (Parquet; CSV or JSON Lines for scores made elsewhere, lm-eval's
    ``--log_samples`` output among them) and tailsplit's metadata, if it wrote the file."""

    fmt = detect_format(path)
    if fmt != "parquet":
        if fmt not in ("jsonl", "csv", "tsv"):
            raise InputError("is not a score file", path=path, fix="give a Parquet, CSV or JSON Lines score file")
        raws = read_all(path)
        if raws and is_lm_eval_sample(raws[0].record):
            samples = lm_eval_sample_columns(raws, fields)
            if "text" in samples:  # checked against the data's texts as a score file's digests are
                samples["text_sha256"] = [text_digest(text) for text in samples.pop("text")]
            return _Columns(samples), {"scored_by": "lm-eval --log_samples"}
        names = list(dict.fromkeys(k for r in raws for k in r.record))
        columns: dict[str, list[Any]] = {name: [] for name in names}
        for raw in raws:
            for name in names:
                if not raw.has(name):
                    raise raw.error("is missing", field=name, fix="give every row every column")
                value = raw.value(name)
                if name in ("logprob_sum", "n_tokens") and isinstance(value, str):
                    value = _parse_number(raw, name, value)
                columns[name].append(value)
        return _Columns(columns), {}

    table = read_parquet_table(path)
    meta_raw = (table.schema.metadata or {}).get(_META_KEY)
    return _ArrowColumns(table), json.loads(meta_raw) if meta_raw else {}


class _Columns(Mapping[str, list[Any]]):
    """A score file's columns as Python lists, and what is read from them: the row of each
    example, number and flag arrays (:class:`_ArrowColumns` takes faster paths)."""

    def __init__(self, lists: dict[str, list[Any]]) -> None:
        self._lists = lists

    def __getitem__(self, name: str) -> list[Any]:
        return self._lists[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._lists)

    def __len__(self) -> int:
        return len(self._lists)

    def order(self, dataset: Dataset) -> np.ndarray | None:
        """Row of each example, when found without Python values (else ``None``)."""
        return None

    def numbers(self, name: str) -> np.ndarray | None:
        """The column as float64 when it holds only numbers (``None``: something else to name)."""
        values = self[name]
        return np.asarray(values, dtype=np.float64) if set(map(type, values)) <= {float, int} else None

    def no_nulls(self, name: str) -> bool:
        return all(v is not None for v in self[name])

    def flags(self, name: str, path: Path | None = None) -> np.ndarray:
        """Each value as a flag, strictly: a boolean, 0 or 1, the text true / false / 1 / 0 (any
        case), or null / empty (false); anything else (``yes``, ``no``, 2) is a located error."""
        flags = np.empty(len(self[name]), dtype=bool)
        for row, value in enumerate(self[name]):
            flag = _FLAGS.get(value.strip().lower() if isinstance(value, str) else value)
            if flag is None or (isinstance(value, float) and not isinstance(value, bool)):
                raise InputError(
                    f"has {value!r}, not true or false",
                    path=path,
                    row=row + 1,
                    field=name,
                    fix="write true or false (or 1 or 0)",
                )
            flags[row] = flag
        return flags

    def release(self) -> None:
        """Drop what reading held."""
        self._lists = {}


class _ArrowColumns(_Columns):
    """A Parquet table's columns: Python lists only when asked for, arrays taken from Arrow."""

    def __init__(self, table: Any) -> None:
        super().__init__({})
        self._table = table

    def __getitem__(self, name: str) -> list[Any]:
        if name not in self._lists:
            if name not in self:
                raise KeyError(name)
            self._lists[name] = self._table.column(name).to_pylist()
        return self._lists[name]

    def __contains__(self, name: object) -> bool:  # without converting the column
        return name in self._table.column_names

    def __iter__(self) -> Iterator[str]:
        return iter(self._table.column_names)

    def __len__(self) -> int:
        return len(self._table.column_names)

    def order(self, dataset: Dataset) -> np.ndarray | None:
        """Matched by Arrow's hashing when the ids are text without nulls and match the data
        one to one (else ``None``: the Python path matches them, or names what is wrong)."""
        ids = self._table.column("id")
        # Every one of the data's distinct ids found among as many score ids: they are those
        # ids, each once (so no repeat to look for).
        return arrow_order(ids, dataset.ids) if len(ids) == len(dataset) else None

    def numbers(self, name: str) -> np.ndarray | None:
        import pyarrow as pa

        column = self._table.column(name)
        if (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)) and not column.null_count:
            return column.to_numpy().astype(np.float64)
        return super().numbers(name)

    def no_nulls(self, name: str) -> bool:
        return not self._table.column(name).null_count

    def flags(self, name: str, path: Path | None = None) -> np.ndarray:
        import pyarrow as pa

        column = self._table.column(name)
        if pa.types.is_boolean(column.type) and not column.null_count:
            return column.to_numpy(zero_copy_only=False).astype(bool)
        return super().flags(name, path)

    def release(self) -> None:
        """Drop the table and give back the Arrow pool's freed memory (it would keep it)."""
        import pyarrow as pa

        super().release()
        self._table = pa.table({})
        pa.default_memory_pool().release_unused()


# What a flag may be written as (True == 1 and False == 0 as dict keys, so 1 and 0 are in too);
# null (and an empty CSV cell) is "not known to be truncated".
_FLAGS: dict[Any, bool] = {
    True: True, False: False, "true": True, "false": False, "1": True, "0": False, None: False, "": False,
}  # fmt: skip


def arrow_order(column: Any, ids: list[str] | tuple[str, ...]) -> np.ndarray | None:
    """The row of ``column`` (Arrow text ids) holding each of ``ids``, by Arrow's hashing (a
    repeated id: its first row); ``None`` when the column is not text without nulls or an id is
    not in it (the caller's Python path then matches them, or names what is missing)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_string(column.type) or column.null_count:
        return None
    order = pc.index_in(pa.array(ids, pa.string()), value_set=column.combine_chunks())
    return None if order.null_count else order.to_numpy().astype(np.int64)


def _parse_number(raw: Any, name: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise raw.error(f"is {value!r}, not a number", field=name, fix="write a number") from None


def _numbers(path: Path, table: _Columns, name: str, order: np.ndarray, *, missing: bool = False) -> np.ndarray:
    """The column's finite numbers in ``order`` (``missing``: a null or NaN too, as NaN)."""
    numbers = table.numbers(name)
    if numbers is not None and (missing or np.isfinite(numbers).all()):
        return numbers[order]
    values = table[name]
    for row, value in enumerate(values):
        if missing and (value is None or value != value):  # a null, or NaN
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
            ids = [label_to_str(v) for v in table["id"]]
            raise InputError(
                f"has {value!r} for id {ids[row]!r}, not a finite number",
                path=path,
                row=row + 1,
                field=name,
                fix="rescore those examples or remove them from the data",
            )
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)[order]


def _align(path: Path, ids: list[str], row_of: dict[str, int], dataset: Dataset, meta: dict[str, Any]) -> np.ndarray:
    extra = len(ids) - len(dataset)
    absent = next((i for i in dataset.ids if i not in row_of), None)
    if absent is not None:
        other = _other_fields(meta, dataset)
        raise InputError(
            f"has no score for id {absent!r} ({len(ids)} scores for {len(dataset)} examples)"
            + (f"; it was scored with {other[0]}, and this run reads {other[1]}" if other else ""),
            path=path,
            fix="split with the fields it was scored with, or rescore with these"
            if other
            else "rescore this dataset, or pass the data it was made from",
        )
    if extra:
        raise InputError(
            f"has {extra} scores for ids that are not in the data",
            path=path,
            fix="pass the same data files that were scored",
        )
    return np.array([row_of[i] for i in dataset.ids], dtype=np.int64)


def _other_fields(meta: dict[str, Any], dataset: Dataset) -> tuple[str, str] | None:
    """(the roles a tailsplit score file was made with, this run's), where they differ: a
    query or context field changes the generated ids, so no score matches."""
    made = Manifest.of(meta).config.roles(("text", "context", "id"))  # recorded as a manifest records it
    fields = dataset.fields.as_dict()
    differ = [role for role in made if made[role] != fields.get(role)]
    if not differ:
        return None
    return (
        " ".join(f"--{role}={made[role]!r}" for role in differ),
        " ".join(f"--{role}={fields.get(role)!r}" for role in differ),
    )
