"""Hostile caches: a converted model rewritten with its old size and time is hashed again, a damaged embedding cache row is encoded again, a truncated or changed overlap index is rebuilt."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hostile import (
    ok,
    overlap_args,
)


@pytest.mark.model
def test_a_converted_model_rewritten_with_its_old_size_and_time_is_hashed_again(
    model_cache: Path, tmp_path: Path
) -> None:
    import shutil

    from tailsplit.scoring.models import verify_converted

    (converted,) = [p for p in (model_cache / "models").iterdir() if not p.name.startswith(".")]
    copy = tmp_path / "copy"
    shutil.copytree(converted, copy)
    assert verify_converted(copy) is None  # times differ from the record: hashed, same bytes, record refreshed
    weights = copy / "model.safetensors"
    stat = weights.stat()
    with open(weights, "r+b") as handle:
        handle.seek(stat.st_size - 1000)
        handle.write(bytes(10))
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # old size, old modification time
    assert weights.stat().st_mtime_ns == stat.st_mtime_ns and weights.stat().st_size == stat.st_size
    assert "other contents" in (verify_converted(copy) or "")


def test_a_damaged_embedding_cache_row_is_encoded_again(tmp_path: Path) -> None:
    import sqlite3

    from tailsplit.errors import CacheError
    from tailsplit.shift.encoder import EmbeddingCache

    cache = EmbeddingCache(tmp_path)
    cache.put_many([("k1", np.ones(4)), ("k2", np.full(4, 2.0))])
    cache.close()
    db = sqlite3.connect(tmp_path / "embeddings-v2.sqlite")
    db.execute("UPDATE vectors SET vector = ? WHERE key = 'k1'", (np.full(4, 9.0, dtype="<f4").tobytes(),))
    db.commit()
    db.close()
    cache = EmbeddingCache(tmp_path)
    found = cache.get_many(["k1", "k2"])
    assert list(found) == ["k2"]  # the changed row is a miss
    cache.put_many([("k1", np.ones(4))])
    assert np.array_equal(cache.get_many(["k1"])["k1"], np.ones(4))
    cache.close()
    (tmp_path / "embeddings-v2.sqlite").write_bytes(b"not a database at all" * 100)
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"embeddings-v2.sqlite{suffix}").unlink(missing_ok=True)
    with pytest.raises(CacheError, match="damaged.*safe to delete"):
        EmbeddingCache(tmp_path).get_many(["k1"])


def test_a_truncated_or_changed_overlap_index_is_rebuilt(tmp_path: Path) -> None:
    args = overlap_args(tmp_path, "--index-dir", str(tmp_path / "index"))
    first = ok([*args, "--out", str(tmp_path / "o1")])
    tokens = tmp_path / "index" / "tokens.npy"
    tokens.write_bytes(tokens.read_bytes()[:-8])  # truncated
    ok([*args, "--out", str(tmp_path / "o2")])
    audit = [(tmp_path / o / "audit.jsonl").read_bytes() for o in ("o1", "o2")]
    assert audit[0] == audit[1] and first
    blob = tmp_path / "index" / "texts.bin"
    data = bytearray(blob.read_bytes())
    data[0] ^= 1  # same size, other bytes
    blob.write_bytes(bytes(data))
    ok([*args, "--out", str(tmp_path / "o3")])
    assert (tmp_path / "o3" / "audit.jsonl").read_bytes() == audit[0]
