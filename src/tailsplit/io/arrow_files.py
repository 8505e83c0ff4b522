"""Arrow-backed inputs read exactly: Parquet files, and ``save_to_disk`` folders (their
Arrow stream shards, ``ClassLabel`` columns read as label names)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tailsplit.errors import InputError
from tailsplit.io.class_labels import class_label_names, decode_class_labels
from tailsplit.io.raw import RawRecord


def read_parquet_table(path: Path) -> Any:
    """A whole Parquet file as a pyarrow Table; a damaged file is an :class:`InputError`."""
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        raise InputError(
            f"cannot be read as Parquet ({exc})", path=path, fix="check that the file is complete and really Parquet"
        ) from None


def read_parquet(path: Path) -> Iterator[RawRecord]:
    """Every row of a Parquet file."""
    table = read_parquet_table(path)
    for row, record in enumerate(table.to_pylist(), start=1):
        yield RawRecord(record, str(path), row)


def _read_json_file(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(
            f"cannot be read as JSON ({exc})", path=path, fix="save the dataset again with save_to_disk"
        ) from None


def read_hf_folder(path: Path, split: str | None = None) -> Iterator[RawRecord]:
    """A folder from ``Dataset.save_to_disk`` (arrow stream shards listed in state.json).

    A ``DatasetDict`` folder (with ``dataset_dict.json``) yields every split in turn, each
    record remembering its split; ``ClassLabel`` columns (from ``dataset_info.json``) are read
    as their label names.
    """
    if (path / "dataset_dict.json").exists():
        splits = _read_json_file(path / "dataset_dict.json").get("splits", [])
        for name in splits:
            yield from read_hf_folder(path / name, name)
        return
    state_path = path / "state.json"
    if not state_path.exists():
        raise InputError(
            "is a folder without state.json or dataset_dict.json",
            path=path,
            fix="pass a data file, or a folder written by datasets' save_to_disk",
        )
    import pyarrow as pa

    state = _read_json_file(state_path)
    info_path = path / "dataset_info.json"
    features = _read_json_file(info_path).get("features") or {} if info_path.exists() else {}
    names = class_label_names(features)
    row = 0
    for shard in state.get("_data_files", []):
        shard_path = path / shard["filename"]
        try:
            with pa.memory_map(str(shard_path)) as source:
                table = pa.ipc.open_stream(source).read_all()
        except (OSError, pa.ArrowException) as exc:
            raise InputError(
                f"cannot be read as an Arrow stream ({exc})",
                path=shard_path,
                fix="the dataset folder is damaged; save it again with save_to_disk",
            ) from None
        for record in table.to_pylist():
            row += 1
            yield RawRecord(decode_class_labels(record, names), str(path), row, split=split)


def hf_folder_schema(path: Path) -> tuple[Any, dict[str, list[str]]]:
    """(Arrow schema of the first shard, ClassLabel names) of a ``save_to_disk`` folder."""
    import pyarrow as pa

    if (path / "dataset_dict.json").exists():
        splits = _read_json_file(path / "dataset_dict.json").get("splits", [])
        return hf_folder_schema(path / splits[0]) if splits else (None, {})
    info_path = path / "dataset_info.json"
    features = _read_json_file(info_path).get("features") or {} if info_path.exists() else {}
    shards = _read_json_file(path / "state.json").get("_data_files", [])
    if not shards:
        return None, class_label_names(features)
    with pa.memory_map(str(path / shards[0]["filename"])) as source:
        schema = pa.ipc.open_stream(source).schema
    return schema, class_label_names(features)
