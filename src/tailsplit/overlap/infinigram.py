"""Exact n-gram counts against an infini-gram index (Liu et al., 2024): suffix arrays over a
corpus's token ids, memory-mapped, counting any n-gram in O(n log N). The engine and its
indexer come from the ``infini-gram`` wheel (the ``index`` extra: CPython 3.11+ on Linux
x86-64 only; elsewhere the option is refused, naming the extra).

An index is a folder of shards ``tokenized.S`` (each document as a separator id then its
tokens), ``offset.S`` (each document's byte offset, u64) and ``table.S`` (the suffix array,
``ceil(log2(bytes) / 8)`` bytes a pointer). tailsplit builds one from a corpus by writing the
first two itself — with the index's tokenizer, one document per corpus entry — and letting
the engine's own indexer (``python -m infini_gram.indexing``) build the suffix array; it adds
``tailsplit-index.json`` (what was built, from what) and, for word ids, ``words.json``. An
index it did not build (a published one) is used as it is, read-only.
"""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError, MissingDependencyError
from tailsplit.overlap.corpus import CorpusEntry
from tailsplit.overlap.index_tokens import TOKEN_WIDTH, IndexTokens, ModelTokens, WordTokens, separator
from tailsplit.progress import ProgressBar, announce

MARKER = "tailsplit-index.json"
FORMAT = 1
ENGINE_PACKAGE = "infini-gram"
_INDEXER_PART_BYTES = 200_000  # the indexer's jobs each need ≥ its 100,000-byte overlap (see _indexer_cpus)
_U32_INDEXER_BYTES = 2**35  # the indexer's table of 2**32 counts
_CHECKED_WINDOWS = 256  # windows of the built corpus that must be found again
_ROUND_TRIP_DOCUMENTS = 16  # documents of an index read back through its tokenizer


def engine_module() -> Any:
    try:
        from infini_gram import engine
    except ImportError:
        raise MissingDependencyError(ENGINE_PACKAGE, "index", "an infini-gram index") from None
    return engine


def shard_ids(folder: Path) -> list[int]:
    """The shards of the index in ``folder`` (``tokenized.S`` files), in order."""
    found = [p.name.split(".", 1)[1] for p in folder.glob("tokenized.*")]
    return sorted(int(s) for s in found if s.isdigit())


def layout_problem(folder: Path, dtype: str) -> str | None:
    """Why ``folder`` is not a whole infini-gram index of ``dtype`` ids — no shard, a file
    missing, or sizes that do not fit (a truncated copy) — or ``None``."""
    shards = shard_ids(folder)
    if not shards:
        return "holds no tokenized.0 (not an infini-gram index)"
    width = TOKEN_WIDTH[dtype]
    for s in shards:
        files = {name: folder / f"{name}.{s}" for name in ("tokenized", "table", "offset")}
        missing = [p.name for p in files.values() if not p.is_file()]
        if missing:
            return f"has no {missing[0]}"
        data, table, offsets = (files[n].stat().st_size for n in ("tokenized", "table", "offset"))
        if data == 0 or data % width or offsets == 0 or offsets % 8:
            return f"has tokenized.{s} of {data} bytes and offset.{s} of {offsets} (not {dtype} tokens; truncated?)"
        expected = (data // width) * math.ceil(math.log2(data) / 8)
        if table != expected:
            return f"has table.{s} of {table} bytes where tokenized.{s} needs {expected} (truncated or another dtype)"
    return None


def index_sizes(folder: Path, dtype: str) -> dict[str, int]:
    """Documents, tokens and bytes on disk of the index in ``folder``."""
    shards = shard_ids(folder)
    documents = sum((folder / f"offset.{s}").stat().st_size // 8 for s in shards)
    data = sum((folder / f"tokenized.{s}").stat().st_size for s in shards)
    files = [p for p in folder.iterdir() if p.is_file()]
    return {
        "shards": len(shards),
        "documents": documents,
        "tokens": data // TOKEN_WIDTH[dtype] - documents,
        "bytes": sum(p.stat().st_size for p in files),
    }


def write_tokens(
    entries: Iterable[CorpusEntry], folder: Path, tokens: IndexTokens, progress: bool = False
) -> dict[str, int]:
    """``tokenized.0`` and ``offset.0`` of ``entries`` (one document each, streamed)."""
    dtype = np.dtype(f"<u{TOKEN_WIDTH[tokens.dtype]}")
    head = np.array([separator(tokens.dtype)], dtype=dtype).tobytes()
    documents = position = 0
    with (
        open(folder / "tokenized.0", "wb") as data,
        open(folder / "offset.0", "wb") as offsets,
        ProgressBar(progress, None, "tokenising the corpus", "entries") as advance,
    ):
        for entry in entries:
            ids = tokens.encode(entry.text)
            if ids and max(ids) >= separator(tokens.dtype):
                raise ConfigError(
                    f"the tokenizer {tokens.name!r} gives ids beyond {tokens.dtype}; it cannot be indexed"
                )
            content = head + np.asarray(ids, dtype=dtype).tobytes()
            offsets.write(np.array([position], dtype="<u8").tobytes())
            data.write(content)
            position += len(content)
            documents += 1
            advance(1)
    if not documents:
        raise ConfigError("corpus holds no text; check the corpus files and --corpus-field")
    return {"documents": documents, "bytes": position}


def _indexer_cpus(data_bytes: int) -> int:
    """Cores for the indexer: each of its jobs must span more than its 100,000-byte overlap
    (``HACK``), or the suffix array it writes is wrong without an error (measured: 20,000
    tokens on 2 jobs gave wrong counts and exit status 0)."""
    return max(1, min(os.cpu_count() or 1, data_bytes // _INDEXER_PART_BYTES))


def check_indexer_memory(tokens: IndexTokens) -> None:
    """Refuse ``u32`` ids where the indexer cannot run: it counts over all 2**32 ids in one
    table of 32 GiB (measured: ``memory allocation of 34359738368 bytes failed``)."""
    if tokens.dtype != "u32":
        return
    memory = physical_memory()
    if memory < _U32_INDEXER_BYTES * 1.1:
        vocabulary = len(tokens.vocab) if isinstance(tokens, WordTokens) else tokens.vocab_size
        raise ConfigError(
            f"--index-tokenizer={tokens.name!r} has {vocabulary:,} ids, more than 16 bits hold; infini-gram's "
            f"indexer needs 32 GiB of memory for 32-bit ids and this machine has {memory / 2**30:.0f} GiB; "
            "build the index on a larger machine, or use a tokenizer of fewer ids"
        )


def run_indexer(folder: Path, dtype: str, data_bytes: int) -> None:
    """The engine's indexer over ``tokenized.0`` in ``folder`` (its tokenising step skipped,
    the files being there): ``table.0``, checked after."""
    engine_module()
    folder = folder.resolve()  # the indexer changes its working folder: every path absolute
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    memory_gib = max(1, physical_memory() // 2**31)  # half of it, in GiB
    with tempfile.TemporaryDirectory(dir=folder) as empty:
        command = [
            sys.executable, "-m", "infini_gram.indexing", "--data_dir", empty, "--save_dir", str(folder),
            "--temp_dir", str(Path(empty) / "work"), "--token_dtype", dtype, "--mem", str(memory_gib),
            "--cpus", str(_indexer_cpus(data_bytes)), "--ulimit", str(soft),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not (folder / "table.0").is_file():
        last = (done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or ["no output"])[-1]
        raise ConfigError(
            f"infini-gram's indexer failed (exit status {done.returncode}: {last[:200]}); nothing was kept"
        )


@dataclass
class InfiniGramIndex:
    """An infini-gram index opened for counting, with its tokenizer and description."""

    folder: Path
    tokens: IndexTokens
    engine: Any
    info: dict[str, Any]

    @staticmethod
    def open(folder: Path, tokens: IndexTokens, info: dict[str, Any]) -> InfiniGramIndex:
        """The engine over ``folder``; read-ahead off where the index fits four times in memory
        (its pages stay cached; measured 48 against 149 µs a count on a 150,000-token index),
        the engine's own read-ahead for larger ones, read from disk."""
        size = sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
        cached = size * 4 < physical_memory()
        depths = {"ds_prefetch_depth": 0, "sa_prefetch_depth": 0, "od_prefetch_depth": 0} if cached else {}
        engine = engine_module().InfiniGramEngine(
            index_dir=[str(folder)], eos_token_id=0, vocab_size=separator(tokens.dtype), token_dtype=tokens.dtype,
            **depths,
        )  # fmt: skip
        return InfiniGramIndex(folder, tokens, engine.engine, info)

    def count(self, ids: list[int]) -> int:
        """Occurrences of ``ids`` in the corpus (ids checked by the caller: the index's tokenizer)."""
        return int(self.engine.count(input_ids=ids).count)


def missing_windows(index: InfiniGramIndex, shard: int = 0, length: int = 8) -> int:
    """How many of up to ``_CHECKED_WINDOWS`` n-grams read from the index's own data the index
    cannot find (0 for a sound suffix array): evenly spaced windows inside one document."""
    dtype = np.dtype(f"<u{TOKEN_WIDTH[index.tokens.dtype]}")
    data = np.memmap(index.folder / f"tokenized.{shard}", dtype=dtype, mode="r")
    sep = separator(index.tokens.dtype)
    missing = 0
    for start in np.linspace(0, max(0, len(data) - 1), num=min(_CHECKED_WINDOWS, len(data)), dtype=np.int64):
        window = np.asarray(data[start : start + length])
        cut = np.flatnonzero(window == sep)
        window = window[: cut[0]] if len(cut) else window
        missing += bool(len(window)) and index.count([int(t) for t in window]) == 0
    return int(missing)


def round_trip_share(folder: Path, tokens: ModelTokens, dtype: str) -> tuple[int, int]:
    """(documents read back unchanged, documents read) of the first ``_ROUND_TRIP_DOCUMENTS``
    of shard 0: decoded with ``tokens`` and encoded again. An index of another tokenizer reads
    back as other ids (or ids beyond the vocabulary); its own almost always as the same."""
    width = np.dtype(f"<u{TOKEN_WIDTH[dtype]}")
    offsets = np.memmap(folder / "offset.0", dtype="<u8", mode="r")
    data = np.memmap(folder / "tokenized.0", dtype=width, mode="r")
    same = read = 0
    for i in range(min(_ROUND_TRIP_DOCUMENTS, len(offsets))):
        start = int(offsets[i]) // width.itemsize + 1
        end = int(offsets[i + 1]) // width.itemsize if i + 1 < len(offsets) else len(data)
        ids = [int(t) for t in data[start : min(end, start + 512)]]
        if not ids or end > start + 512:
            continue  # long documents are cut mid-token: only whole short ones are read back
        read += 1
        same += max(ids) < tokens.vocab_size and tokens.encode(tokens.decode(ids)) == ids
    return same, read


def physical_memory() -> int:
    """This machine's memory in bytes."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def peak_memory_mib() -> float:
    """This process's peak resident memory so far."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def write_marker(folder: Path, record: dict[str, Any]) -> None:
    (folder / MARKER).write_text(json.dumps({"format": FORMAT, **record}, indent=2) + "\n", encoding="utf-8")


def read_marker(folder: Path) -> dict[str, Any]:
    try:
        record = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"--infini-gram={str(folder)!r}: its {MARKER} cannot be read ({exc}); build it again"
        ) from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ConfigError(f"--infini-gram={str(folder)!r} was built by another tailsplit version; build it again")
    return record


def build(
    entries: Callable[[], Iterable[CorpusEntry]],
    folder: Path,
    tokens: IndexTokens,
    *,
    record: dict[str, Any],
    progress: bool,
) -> dict[str, Any]:
    """A new index of the corpus ``entries()`` reads in ``folder`` (the caller stages it),
    checked: every sampled window of its own data found again, and recorded with each file's
    size. Returns what ``tailsplit-index.json`` records. Word ids read the corpus twice (the vocabulary first,
    so its size decides the id width)."""
    started = time.perf_counter()
    if isinstance(tokens, WordTokens):
        tokens.learn(entry.text for entry in entries())
    check_indexer_memory(tokens)
    written = write_tokens(entries(), folder, tokens, progress)
    announce(progress, f"building the suffix array of {written['documents']:,} entries (infini-gram's indexer)")
    run_indexer(folder, tokens.dtype, written["bytes"])
    if problem := layout_problem(folder, tokens.dtype):
        raise ConfigError(f"infini-gram's indexer wrote an index that {problem}; nothing was kept")
    if isinstance(tokens, WordTokens):
        tokens.save(folder)
    index = InfiniGramIndex.open(folder, tokens, {})
    if missing := missing_windows(index):
        raise ConfigError(f"infini-gram's indexer wrote a suffix array that misses {missing} of its own n-grams")
    full = {
        **record,
        "tokenizer": tokens.name,
        "tokenizer_sha256": tokens.fingerprint(),
        "token_dtype": tokens.dtype,
        "build_seconds": round(time.perf_counter() - started, 3),
        # each file's size: a truncated or replaced copy is refused
        "files": {p.name: p.stat().st_size for p in sorted(folder.iterdir()) if p.is_file() and p.name != MARKER},
    }
    write_marker(folder, full)
    return full
