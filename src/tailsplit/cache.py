"""A persistent score cache: no example is ever scored twice by the same model and prompt.

Keys hash (scorer identity, prompt, query); batch size, device and input order are not part
of the key because they do not change a score. Rows are committed after every batch, so a
killed run loses at most the batch in flight and a rerun resumes where it stopped.
"""

from __future__ import annotations

import json
import os
import sqlite3
import struct
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.errors import CacheError
from tailsplit.log import logger

SCHEMA_VERSION = 1
_SQLITE_FULL = 13
_SQLITE_DAMAGED = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB

# The cache's folder of split folders that tailsplit writes for runs held in memory (a command
# that reads split folders reads them there); no cached score or model lives under it.
HELD_SPLITS = "held-splits"


# The folders tailsplit keeps in its cache (converted models, corpus indexes, held runs).
CACHE_FOLDERS = ("models", "overlap", HELD_SPLITS)


def check_cache_layout(cache: Path) -> None:
    """Refuse, before any model loads, a cache whose own folders are files or links to nowhere
    (the run would fail when it first writes there, after the model was loaded)."""
    for name in CACHE_FOLDERS:
        path = cache / name
        if os.path.lexists(path) and not path.is_dir():
            raise CacheError(
                f"tailsplit's cache {str(cache)!r} has a file {name!r} where its {name} folder goes; "
                "move that file away, or pass --cache-dir"
            )


def default_cache_dir() -> Path:
    """``$TAILSPLIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/tailsplit``, else ``~/.cache/tailsplit``."""
    if env := os.environ.get("TAILSPLIT_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tailsplit"


def row_checksum(key: str, logprob_sum: float, n_tokens: int, truncated: bool) -> int:
    """CRC-32 of a row's key and exact values (the float's 8 bytes), so a damaged row is seen.

    >>> row_checksum("k", -1.5, 3, False) == row_checksum("k", -1.5, 3, False)
    True
    """
    payload = key.encode("utf-8") + struct.pack("<dq?", float(logprob_sum), int(n_tokens), bool(truncated))
    return zlib.crc32(payload)


def cache_failure(what: str, path: Path, exc: Exception) -> CacheError:
    """One line for a cache database error: only a damaged file (SQLite's CORRUPT / NOTADB)
    is called safe to delete; a full disk or an I/O error says what to fix instead, since the
    cache itself is then sound."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    if primary == _SQLITE_FULL or "full" in str(exc).lower():
        return CacheError(
            f"the {what} {str(path)!r} cannot grow ({exc}); free some space "
            "or pass --cache-dir on another disk; what it cached so far is kept"
        )
    if primary in _SQLITE_DAMAGED or (primary is None and ("malformed" in str(exc) or "not a database" in str(exc))):
        return CacheError(
            f"the {what} {str(path)!r} is damaged ({exc}); it holds only cached values, so it is "
            "safe to delete it (the next run computes them again), or pass --cache-dir"
        )
    return CacheError(
        f"the {what} {str(path)!r} cannot be used ({exc}); check the disk and the folder's "
        "permissions, or pass --cache-dir to use another folder"
    )


def _add_checksum_column(db: sqlite3.Connection) -> None:
    """Caches made before checksums get the column (their rows keep NULL: no checksum)."""
    try:
        db.execute("ALTER TABLE scores ADD COLUMN checksum INTEGER")
    except sqlite3.OperationalError as exc:
        if "duplicate column" not in str(exc):  # another process added it first
            raise


class ScoreCache:
    """SQLite table ``key → (logprob_sum, n_tokens, truncated, checksum)``; first writer wins.

    A row whose checksum does not match its key and values is treated as a miss (and scored
    again); rows written before checksums existed have none and are used as they are. A
    second table keeps small JSON notes about how cached scores were made (e.g. the training
    curve of a fine-tuned fold), so a run served from the cache can still report them. A
    third keeps each query's token log-probabilities for the runs that ask for them
    (``--token-scores``).
    """

    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory) / f"scores-v{SCHEMA_VERSION}.sqlite"
        self._damaged_keys: set[str] = set()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=60)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, logprob_sum REAL NOT NULL, "
                "n_tokens INTEGER NOT NULL, truncated INTEGER NOT NULL, checksum INTEGER) WITHOUT ROWID"
            )
            columns = [row[1] for row in self._db.execute("PRAGMA table_info(scores)")]
            if "checksum" not in columns:
                _add_checksum_column(self._db)
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS notes (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID"
            )
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS tokens (key TEXT PRIMARY KEY, logprobs BLOB NOT NULL, "
                "moments BLOB, checksum INTEGER NOT NULL) WITHOUT ROWID"
            )
            if "moments" not in [row[1] for row in self._db.execute("PRAGMA table_info(tokens)")]:
                self._db.execute("ALTER TABLE tokens ADD COLUMN moments BLOB")  # a table made before moments were kept
            self._db.commit()
        except sqlite3.DatabaseError as exc:
            raise self.failure(exc) from None
        except OSError as exc:
            raise CacheError(
                f"the score cache folder {str(self.path.parent)!r} cannot be written "
                f"({exc.strerror or exc}); pass --cache-dir, or --no-cache"
            ) from None

    def get_many(self, keys: Sequence[str]) -> dict[str, tuple[float, int, bool]]:
        found: dict[str, tuple[float, int, bool]] = {}
        damaged = 0
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._execute(
                f"SELECT key, logprob_sum, n_tokens, truncated, checksum FROM scores WHERE key IN ({marks})", chunk
            )
            for key, total, count, cut, checksum in rows:
                if checksum is not None and checksum != row_checksum(key, total, count, bool(cut)):
                    damaged += 1
                    self._damaged_keys.add(key)
                    continue
                found[key] = (total, count, bool(cut))
        if damaged:
            logger.warning(f"{damaged} damaged rows in the score cache {self.path} are ignored and scored again")
        return found

    def put_many(self, rows: Iterable[tuple[str, float, int, bool]]) -> None:
        """Store rows; a sound row already there is kept (first writer wins), a damaged one replaced."""
        values = [
            (k, float(s), int(n), int(bool(t)), row_checksum(k, float(s), int(n), bool(t))) for k, s, n, t in rows
        ]
        replace = [v for v in values if v[0] in self._damaged_keys]
        try:
            self._db.executemany("INSERT OR IGNORE INTO scores VALUES (?, ?, ?, ?, ?)", values)
            self._db.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?, ?)", replace)
            self._db.commit()
        except sqlite3.DatabaseError as exc:
            raise self.failure(exc) from None
        self._damaged_keys.difference_update(v[0] for v in replace)

    def get_tokens(self, keys: Sequence[str]) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
        """Each key's token log-probabilities (float32, as scored) and, where kept, each
        position's next-token moments (``[2, n]``: μ, σ²); a damaged row is a miss."""
        found: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for key, blob, moments, checksum in self._execute(
                f"SELECT key, logprobs, moments, checksum FROM tokens WHERE key IN ({marks})", chunk
            ):
                if checksum == zlib.crc32(key.encode() + blob + (moments or b"")):
                    kept = None if moments is None else np.frombuffer(moments, dtype="<f8").reshape(2, -1)
                    found[key] = (np.frombuffer(blob, dtype="<f4"), kept)
        return found

    def put_tokens(self, rows: Iterable[tuple[str, np.ndarray, np.ndarray | None]]) -> None:
        """Store each key's token log-probabilities (float32: the model's values) and moments
        (float64, as the head sums them)."""
        values = []
        for key, logprobs, moments in rows:
            blob = np.asarray(logprobs, dtype="<f4").tobytes()
            extra = None if moments is None else np.asarray(moments, dtype="<f8").tobytes()
            values.append((key, blob, extra, zlib.crc32(key.encode() + blob + (extra or b""))))
        try:
            self._db.executemany(
                "INSERT OR REPLACE INTO tokens (key, logprobs, moments, checksum) VALUES (?, ?, ?, ?)", values
            )
            self._db.commit()
        except sqlite3.DatabaseError as exc:
            raise self.failure(exc) from None

    def _execute(self, sql: str, params: Sequence[Any]) -> list[Any]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self.failure(exc) from None

    def failure(self, exc: Exception) -> CacheError:
        """One line for a database error (:func:`cache_failure`)."""
        return cache_failure("score cache", self.path, exc)

    def get_note(self, key: str) -> Any:
        rows = self._execute("SELECT value FROM notes WHERE key = ?", (key,))
        return None if not rows else json.loads(rows[0][0])

    def put_note(self, key: str, value: Any) -> None:
        try:
            self._db.execute("INSERT OR REPLACE INTO notes VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))
            self._db.commit()
        except sqlite3.DatabaseError as exc:
            raise self.failure(exc) from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ScoreCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
