"""A corpus index for overlap audits, built in one streaming pass and memory-mapped for use.

Folder layout (every array an ``.npy`` file that loads memory-mapped):

- ``bm25/``            the bm25s index (k1, b as given) over the corpus's word tokens;
- ``tokens.npy``       every entry's token ids, concatenated (int32); ``offsets.npy`` bounds;
- ``word-hashes.npy``  each token id's word hash (see ``ngrams``);
- ``ngrams-<n>.npy``   sorted distinct 64-bit hashes of the corpus's word n-grams;
- ``texts.bin``, ``ids.bin`` entry texts and ids as UTF-8, with ``*-offsets.npy`` bounds
  (for snippets: any entry is one slice of a memory-mapped file);
- ``index.json``       vocabulary size, counts, parameters, build time.

Built in two steps so a corpus can be indexed in shards (``overlap.sharded``): ``collect``
streams entries into everything but BM25 and returns the part's document frequencies keyed
by word hash; ``finish`` weighs the part's BM25 matrix with the whole corpus's statistics.
A one-part index is ``collect`` then ``finish`` with its own. Entries are streamed; the only
whole-part structures are the int32 token array and the per-order hash arrays.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.cache import default_cache_dir
from tailsplit.config import OverlapConfig
from tailsplit.errors import ConfigError
from tailsplit.fingerprint import sha256_file, sha256_text
from tailsplit.io.claims import remove_stale_locks
from tailsplit.io.outputs import remove_stale_staging, staged_cache_folder
from tailsplit.log import logger
from tailsplit.overlap.bm25 import CorpusStats, bm25_weights, bm25s_module, document_frequencies, save_retriever
from tailsplit.overlap.corpus import CorpusEntry, iter_corpus
from tailsplit.overlap.ngrams import ngram_hashes, word_hashes
from tailsplit.overlap.tokens import overlap_tokens
from tailsplit.progress import ProgressBar

INDEX_VERSION = 4  # 4: index.json records each file's size and sha256
_BATCH = 50_000


@dataclass
class OverlapIndex:
    folder: Path
    vocab: dict[str, int]
    tokens: np.ndarray
    offsets: np.ndarray
    ngram_orders: tuple[int, ...]
    ngrams: dict[int, np.ndarray]
    retriever: Any
    info: dict[str, Any]
    _entries: Any = None

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def entry_tokens(self, row: int) -> np.ndarray:
        return self.tokens[self.offsets[row] : self.offsets[row + 1]]

    def token_ids(self, tokens: list[str]) -> np.ndarray:
        """Ids of ``tokens``; −1 for words the corpus never has."""
        return np.array([self.vocab.get(t, -1) for t in tokens], dtype=np.int64)

    def entries(self, rows: Iterable[int]) -> list[tuple[str, str]]:
        """(entry id, text) of the given rows."""
        if self._entries is None:
            self._entries = {
                name: (
                    np.load(self.folder / f"{name}.bin", mmap_mode="r")
                    if (self.folder / f"{name}.bin").stat().st_size
                    else np.zeros(0, np.uint8),
                    np.load(self.folder / f"{name}-offsets.npy", mmap_mode="r"),
                )
                for name in ("ids", "texts")
            }

        def text(name: str, row: int) -> str:
            blob, offsets = self._entries[name]
            return bytes(blob[offsets[row] : offsets[row + 1]]).decode("utf-8")

        return [(text("ids", int(r)), text("texts", int(r))) for r in rows]

    @staticmethod
    def load(folder: str | Path) -> OverlapIndex:
        folder = Path(folder)
        info_path = folder / "index.json"
        if not info_path.exists():
            raise ConfigError(
                f"index={str(folder)!r} is not an overlap index (no index.json); build one with "
                "tailsplit overlap --corpus ... --index-dir FOLDER"
            )
        info = json.loads(info_path.read_text(encoding="utf-8"))
        if info.get("version") != INDEX_VERSION:
            raise ConfigError(f"index={str(folder)!r} was built by another tailsplit version; rebuild it")
        retriever = bm25s_module().BM25.load(folder / "bm25", mmap=True, load_vocab=True, show_progress=False)
        orders = tuple(info["ngram_orders"])
        return OverlapIndex(
            folder=folder,
            vocab=retriever.vocab_dict,
            tokens=np.load(folder / "tokens.npy", mmap_mode="r"),
            offsets=np.load(folder / "offsets.npy", mmap_mode="r"),
            ngram_orders=orders,
            ngrams={n: np.load(folder / f"ngrams-{n}.npy", mmap_mode="r") for n in orders},
            retriever=retriever,
            info=info,
        )


@dataclass(frozen=True)
class PartCounts:
    """What one collected part contributes to the corpus statistics."""

    documents: int
    tokens: int
    word_hashes: np.ndarray  # per token id
    doc_freq: np.ndarray  # per token id


def build_index(
    entries: Iterable[CorpusEntry],
    folder: str | Path,
    *,
    ngram_orders: tuple[int, ...] = OverlapConfig.ngram_orders,
    k1: float = OverlapConfig.k1,
    b: float = OverlapConfig.b,
    sources: list[str] | None = None,
    key: str = "",
    progress: bool = False,
) -> OverlapIndex:
    """Stream ``entries`` into a new index in ``folder`` (written in place; the caller stages
    it); ``progress`` shows the entries read (a bar on a terminal, status lines in a log)."""
    started = time.perf_counter()
    with ProgressBar(progress, None, "indexing the corpus", "entries") as advance:
        counts = collect(_counted(entries, advance), folder, ngram_orders=ngram_orders)
    if progress:
        logger.info(f"weighting {counts.documents:,} corpus entries for BM25")
    if not counts.documents:
        raise ConfigError("corpus holds no text; check the corpus files and --corpus-field")
    finish(
        folder,
        counts.doc_freq,
        CorpusStats(counts.documents, counts.tokens),
        k1=k1,
        b=b,
        info={"sources": sources or [], "key": key},
        started=started,
    )
    return OverlapIndex.load(folder)


def _counted(entries: Iterable[CorpusEntry], advance: Callable[[int], None]) -> Iterator[CorpusEntry]:
    for count, entry in enumerate(entries, start=1):
        if count % 4096 == 0:
            advance(4096)
        yield entry


def collect(entries: Iterable[CorpusEntry], folder: str | Path, *, ngram_orders: tuple[int, ...]) -> PartCounts:
    """Tokens, n-gram sets and texts of ``entries`` into ``folder``; BM25 is left to ``finish``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    vocab: dict[str, int] = {}
    hashes_of_ids: list[np.ndarray] = []
    token_chunks: list[np.ndarray] = []
    lengths: list[int] = []
    hashes: dict[int, list[np.ndarray]] = {n: [] for n in ngram_orders}
    blobs = {name: _BlobWriter(folder, name) for name in ("ids", "texts")}
    batch: list[CorpusEntry] = []
    for entry in entries:
        batch.append(entry)
        if len(batch) == _BATCH:
            _add_batch(batch, vocab, hashes_of_ids, token_chunks, lengths, hashes, blobs)
            batch = []
    if batch:
        _add_batch(batch, vocab, hashes_of_ids, token_chunks, lengths, hashes, blobs)
    for blob in blobs.values():
        blob.close()
    tokens = (np.concatenate(token_chunks) if token_chunks else np.zeros(0, np.int64)).astype(np.int32)
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64)
    word_hash = np.concatenate(hashes_of_ids) if hashes_of_ids else np.zeros(0, np.uint64)
    np.save(folder / "tokens.npy", tokens)
    np.save(folder / "offsets.npy", offsets)
    np.save(folder / "word-hashes.npy", word_hash)
    for n in ngram_orders:
        np.save(
            folder / f"ngrams-{n}.npy", np.unique(np.concatenate(hashes[n])) if hashes[n] else np.zeros(0, np.uint64)
        )
    (folder / "vocab.json").write_text(json.dumps(list(vocab), ensure_ascii=False), encoding="utf-8")
    (folder / "collected.json").write_text(json.dumps({"ngram_orders": list(ngram_orders)}), encoding="utf-8")
    return PartCounts(len(lengths), int(len(tokens)), word_hash, document_frequencies(tokens, offsets, len(vocab)))


def finish(
    folder: str | Path,
    doc_freq: np.ndarray,
    stats: CorpusStats,
    *,
    k1: float,
    b: float,
    info: dict[str, Any],
    started: float | None = None,
) -> None:
    """Weigh a collected part's BM25 matrix with corpus-wide ``doc_freq`` (per this part's
    token ids) and ``stats``; write ``bm25/`` and ``index.json``."""
    folder = Path(folder)
    started = time.perf_counter() if started is None else started
    words = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    collected = json.loads((folder / "collected.json").read_text(encoding="utf-8"))
    tokens, offsets = np.load(folder / "tokens.npy"), np.load(folder / "offsets.npy")
    save_retriever(
        folder / "bm25",
        bm25_weights(tokens, offsets, doc_freq, stats, k1, b),
        {w: i for i, w in enumerate(words)},
        k1,
        b,
    )
    record = {
        "version": INDEX_VERSION,
        "entries": len(offsets) - 1,
        "tokens": int(len(tokens)),
        "vocabulary": len(words),
        "ngram_orders": collected["ngram_orders"],
        "k1": k1,
        "b": b,
        "corpus_documents": stats.documents,
        "corpus_tokens": stats.tokens,
        **info,
        "build_seconds": round(time.perf_counter() - started, 3),
    }
    (folder / "vocab.json").unlink()
    (folder / "collected.json").unlink()
    record["files"] = index_files(folder)
    (folder / "index.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def index_files(folder: Path) -> dict[str, dict[str, Any]]:
    """Size and sha256 of every file of an index folder but ``index.json``."""

    return {
        p.relative_to(folder).as_posix(): {"size": p.stat().st_size, "sha256": sha256_file(p)}
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "index.json"
    }


def index_problem(folder: Path) -> str | None:
    """Why the index in ``folder`` cannot be used as it is — built by another version, or a
    file missing, truncated or changed since it was built — or ``None`` when it verifies."""
    try:
        info = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return f"its index.json cannot be read ({exc})"
    if not isinstance(info, dict) or info.get("version") != INDEX_VERSION:
        return "it was built by another tailsplit version"
    for name, expected in (info.get("files") or {}).items():
        path = folder / name
        if not path.is_file():
            return f"{name} is missing"
        if path.stat().st_size != expected.get("size"):
            return f"{name} has {path.stat().st_size} bytes instead of {expected.get('size')}"
    current = index_files(folder)
    changed = next((n for n, e in (info.get("files") or {}).items() if current[n]["sha256"] != e.get("sha256")), None)
    if changed is not None or not info.get("files"):
        return f"{changed or 'its file list'} does not match what was built"
    return None


class _BlobWriter:
    """Appends UTF-8 strings to ``<name>.bin`` (a raw .npy of bytes) and records offsets."""

    def __init__(self, folder: Path, name: str) -> None:
        self.folder, self.name = folder, name
        self._raw = open(folder / f"{name}.raw", "wb")
        self._offsets = [0]

    def add(self, texts: list[str]) -> None:
        for text in texts:
            data = text.encode("utf-8")
            self._raw.write(data)
            self._offsets.append(self._offsets[-1] + len(data))

    def close(self) -> None:
        """``<name>.bin``: an .npy header (so it loads memory-mapped), then the bytes copied over
        in chunks — the same file ``np.save`` writes, never held in memory whole."""
        import shutil

        self._raw.close()
        raw = self.folder / f"{self.name}.raw"
        header = {"descr": "|u1", "fortran_order": False, "shape": (self._offsets[-1],)}
        with open(self.folder / f"{self.name}.bin", "wb") as out, open(raw, "rb") as source:
            np.lib.format.write_array_header_1_0(out, header)
            shutil.copyfileobj(source, out, length=1 << 22)
        raw.unlink()
        np.save(self.folder / f"{self.name}-offsets.npy", np.asarray(self._offsets, dtype=np.int64))


def _add_batch(
    batch: list[CorpusEntry],
    vocab: dict[str, int],
    hashes_of_ids: list[np.ndarray],
    token_chunks: list[np.ndarray],
    lengths: list[int],
    hashes: dict[int, list[np.ndarray]],
    blobs: dict[str, _BlobWriter],
) -> None:
    known = len(vocab)
    ids = [
        np.fromiter((vocab.setdefault(t, len(vocab)) for t in overlap_tokens(e.text)), dtype=np.int64) for e in batch
    ]
    hashes_of_ids.append(word_hashes(list(vocab)[known:]))
    word_hash = np.concatenate(hashes_of_ids)
    if len(hashes_of_ids) > 1:
        hashes_of_ids[:] = [word_hash]
    flat = np.concatenate(ids) if ids else np.zeros(0, np.int64)
    row_lengths = np.array([len(row) for row in ids], dtype=np.int64)
    row_end = np.repeat(np.cumsum(row_lengths), row_lengths)  # end of each token's row
    values = word_hash[flat]
    for n, found in hashes.items():
        windows = ngram_hashes(values, n)  # every window of the batch ...
        inside = (np.arange(len(windows)) + n) <= row_end[: len(windows)]  # ... kept if within one row
        found.append(np.unique(windows[inside]))
        if len(found) > 8:  # keep the per-order lists short: merge as we go
            hashes[n] = [np.unique(np.concatenate(found))]
    token_chunks.append(flat)
    lengths.extend(row_lengths.tolist())
    blobs["ids"].add([e.id for e in batch])
    blobs["texts"].add([e.text for e in batch])


def index_key(config: OverlapConfig) -> str:
    """Hash of everything that changes an index: corpus files' contents, field, parameters."""

    parts = [
        f"v{INDEX_VERSION}",
        config.corpus_field,
        repr(float(config.k1)),
        repr(float(config.b)),
        ",".join(map(str, config.ngram_orders)),
    ]
    parts += [sha256_file(p) for p in config.corpus]
    return sha256_text(*parts)[:24]


def index_folder(config: OverlapConfig, key: str) -> Path:
    """Where the index of ``key`` lives: ``--index-dir``, else the cache's ``overlap`` folder,
    cleared first of what killed runs left there (staging and locks, whatever their settings)."""
    if config.index_dir:
        return Path(config.index_dir)
    folder = default_cache_dir() / "overlap" / key
    remove_stale_staging(folder, any_name=True)
    remove_stale_locks(folder.parent)
    return folder


def open_or_build_index(config: OverlapConfig, progress: bool = False) -> OverlapIndex:
    """The index of ``config.corpus``: reused from ``config.index_dir`` (or the cache) when
    its key matches, else built there (staged, so a failed build leaves nothing)."""

    key = index_key(config)
    folder = index_folder(config, key)
    problem = index_problem(folder) if (folder / "index.json").exists() else None
    if problem is not None:
        logger.warning(f"the overlap index in {folder} is rebuilt: {problem}")
    elif (folder / "index.json").exists():
        index = OverlapIndex.load(folder)
        if index.info.get("key") == key:
            return index
        if config.index_dir:
            raise ConfigError(
                f"--index-dir={str(folder)!r} holds an index of another corpus or other settings; "
                "give a new folder or delete it"
            )
    with staged_cache_folder(folder, markers=INDEX_MARKERS) as staging:
        build_index(
            iter_corpus(config.corpus, config.corpus_field),
            staging,
            ngram_orders=tuple(config.ngram_orders),
            k1=config.k1,
            b=config.b,
            sources=[str(p) for p in config.corpus],
            key=key,
            progress=progress,
        )
    return OverlapIndex.load(folder)


# Files that mark a folder as a tailsplit index (one index, or a sharded one).
INDEX_MARKERS = ("index.json", "shards.json")
