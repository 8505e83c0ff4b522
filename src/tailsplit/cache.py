"""A persistent score cache: no example is ever scored twice by the same model and prompt.

Keys hash (scorer identity, prompt, query); batch size, device and input order are not part
of the key because they do not change a score. Rows are committed after every batch, so a
killed run loses at most the batch in flight and a rerun resumes where it stopped.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1


def default_cache_dir() -> Path:
    """``$TAILSPLIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/tailsplit``, else ``~/.cache/tailsplit``."""
    if env := os.environ.get("TAILSPLIT_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tailsplit"


class ScoreCache:
    """SQLite table ``key → (logprob_sum, n_tokens, truncated)``; first writer wins.

    A second table keeps small JSON notes about how cached scores were made (e.g. the
    training curve of a fine-tuned fold), so a run served from the cache can still report them.
    """

    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory) / f"scores-v{SCHEMA_VERSION}.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, logprob_sum REAL NOT NULL, "
            "n_tokens INTEGER NOT NULL, truncated INTEGER NOT NULL) WITHOUT ROWID")
        self._db.execute("CREATE TABLE IF NOT EXISTS notes (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
        self._db.commit()

    def get_many(self, keys: Sequence[str]) -> dict[str, tuple[float, int, bool]]:
        found: dict[str, tuple[float, int, bool]] = {}
        for start in range(0, len(keys), 500):
            chunk = list(keys[start:start + 500])
            marks = ",".join("?" * len(chunk))
            for key, total, count, cut in self._db.execute(
                    f"SELECT key, logprob_sum, n_tokens, truncated FROM scores WHERE key IN ({marks})", chunk):
                found[key] = (total, count, bool(cut))
        return found

    def put_many(self, rows: Iterable[tuple[str, float, int, bool]]) -> None:
        self._db.executemany("INSERT OR IGNORE INTO scores VALUES (?, ?, ?, ?)",
                             [(k, float(s), int(n), int(t)) for k, s, n, t in rows])
        self._db.commit()

    def get_note(self, key: str) -> Any:
        row = self._db.execute("SELECT value FROM notes WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put_note(self, key: str, value: Any) -> None:
        self._db.execute("INSERT OR REPLACE INTO notes VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ScoreCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
