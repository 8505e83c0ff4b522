"""Write records in the input's format, and publish outputs atomically.

A run writes into a hidden staging folder beside the destination and renames it into
place only when every file is complete, so a crash or an error leaves no partial split.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tailsplit.errors import ConfigError

OUTPUT_SUFFIX = {"jsonl": ".jsonl", "csv": ".csv", "tsv": ".tsv", "parquet": ".parquet"}


def output_format_for(input_format: str) -> str:
    """Outputs keep the input's format; a ``datasets`` folder is written as JSON Lines."""
    return "jsonl" if input_format == "hf" else input_format


def write_records(path: Path, records: Sequence[Mapping[str, Any]], fmt: str) -> None:
    """Write ``records`` to ``path`` (not atomic by itself: call inside :func:`staged_dir`)."""
    if fmt == "jsonl":
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False, allow_nan=False))
                handle.write("\n")
    elif fmt in ("csv", "tsv"):
        _write_delimited(path, records, "," if fmt == "csv" else "\t")
    elif fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(list(records)), path)
    else:
        raise ConfigError(f"format={fmt!r} is not a writable format; use one of {sorted(OUTPUT_SUFFIX)}")


def _write_delimited(path: Path, records: Sequence[Mapping[str, Any]], delimiter: str) -> None:
    columns: dict[str, None] = {}
    for record in records:
        columns.update(dict.fromkeys(record))
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), delimiter=delimiter,
                                lineterminator="\n")
        writer.writeheader()
        for record in records:
            writer.writerow({k: _cell(v) for k, v in record.items()})


def _cell(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else value


@contextmanager
def staged_dir(out_dir: Path, *, overwrite: bool) -> Iterator[Path]:
    """Yield an empty staging folder; on success it replaces ``out_dir`` in one rename.

    If the body raises, the staging folder is removed and ``out_dir`` is left as it was.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and any(out_dir.iterdir()) and not overwrite:
        raise ConfigError(f"out={str(out_dir)!r} already exists and is not empty; "
                          "choose another folder or pass --overwrite")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.tmp-", dir=out_dir.parent))
    try:
        yield staging
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    old = None
    if out_dir.exists():
        old = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}")
        os.replace(out_dir, old)
    os.replace(staging, out_dir)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write a whole file so that readers see either the old or the new content."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
