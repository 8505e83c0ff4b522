"""Index and audit a corpus in shards, in this process or on a Ray cluster.

Map-reduce with results equal to one index over the whole corpus:

1. *collect* (one task per shard): a shard — consecutive corpus parts, cut at file or line
   boundaries — is tokenised into its own folder: tokens, n-gram hash sets, texts; the task
   returns its document frequencies keyed by word hash, its entry and token counts;
2. *reduce* (driver): corpus-wide document frequencies (a sum per word hash), entry count and
   average length — what BM25's IDF and length norm need;
3. *finish* (one task per shard): the shard's BM25 matrix weighed with the corpus-wide
   statistics, so scores from different shards compare;
4. *answer* (one task per shard): every test query's top k in the shard (rows numbered
   corpus-wide) and which of its n-grams the shard holds;
5. *merge* (driver): the best k over shards, ties by corpus row; an n-gram hit when any
   shard has it.

Shard folders live under one folder that every worker can read and write (a shared file
system on a cluster; any folder on one machine). The finished set is reused while the corpus
and settings are unchanged, like a single index.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from tailsplit.choices import ENGINES
from tailsplit.errors import ConfigError
from tailsplit.io.outputs import staged_cache_folder
from tailsplit.log import logger
from tailsplit.overlap.audit import ExampleAudit, PartAnswer, answer_queries, merge_answers
from tailsplit.overlap.bm25 import CorpusStats
from tailsplit.overlap.corpus import CorpusPart, iter_part, split_into_parts
from tailsplit.overlap.index import (
    INDEX_MARKERS,
    INDEX_VERSION,
    OverlapIndex,
    collect,
    finish,
    index_folder,
    index_key,
    index_problem,
)
from tailsplit.overlap.query import StructuredQuery
from tailsplit.ray_cluster import RayCluster

if TYPE_CHECKING:
    from tailsplit.config import OverlapConfig


class Executor(Protocol):
    def map(self, task: Callable[..., Any], calls: Sequence[tuple[Any, ...]]) -> list[Any]:
        """``[task(*args) for args in calls]``, possibly in parallel; results in call order."""


class LocalExecutor:
    """Runs the tasks one after another in this process."""

    def map(self, task: Callable[..., Any], calls: Sequence[tuple[Any, ...]]) -> list[Any]:
        return [task(*args) for args in calls]


class RayExecutor:
    """Runs each task as a Ray task: on the cluster at ``address``, or on a local one
    started for the run (and stopped after it) when no cluster is running."""

    def __init__(self, address: str | None = None, num_cpus: int | None = None) -> None:
        self._cluster = RayCluster(address, num_cpus)
        self._ray = self._cluster.ray

    def map(self, task: Callable[..., Any], calls: Sequence[tuple[Any, ...]]) -> list[Any]:
        remote = self._ray.remote(task)
        return self._ray.get([remote.remote(*args) for args in calls])

    def close(self) -> None:
        self._cluster.close()


def make_executor(engine: str, address: str | None = None, num_cpus: int | None = None) -> Any:
    if engine == "local":
        return LocalExecutor()
    if engine == "ray":
        return RayExecutor(address, num_cpus)
    raise ConfigError(f"--engine={engine!r} is unknown; use one of {list(ENGINES)}")


def plan_shards(paths: Sequence[str | Path], shards: int) -> list[list[CorpusPart]]:
    """``shards`` groups of consecutive corpus parts of about equal bytes (fewer when the
    files cannot be cut that finely)."""
    if shards < 1:
        raise ConfigError(f"--shards={shards!r} must be at least 1")
    total = sum(Path(p).stat().st_size for p in paths if Path(p).exists())
    parts = split_into_parts(paths, max(-(-total // shards), 1))
    groups: list[list[CorpusPart]] = [[] for _ in range(shards)]
    before = 0
    for part in parts:
        groups[min(shards - 1, before * shards // max(total, 1))].append(part)
        before += part.size()
    return [g for g in groups if g]


@dataclass
class ShardedIndex:
    folder: Path
    shards: list[dict[str, Any]]  # folder name, entries, first corpus row, parts
    info: dict[str, Any]

    @property
    def ngram_orders(self) -> tuple[int, ...]:
        return tuple(self.info["ngram_orders"])

    @staticmethod
    def load(folder: Path) -> ShardedIndex:
        record = json.loads((folder / "shards.json").read_text(encoding="utf-8"))
        return ShardedIndex(folder, record["shards"], record["info"])


def sharded_problem(folder: Path) -> str | None:
    """Why a sharded index cannot be used as it is (:func:`index_problem` of each shard)."""
    try:
        record = json.loads((folder / "shards.json").read_text(encoding="utf-8"))
        names = [shard["folder"] for shard in record["shards"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"its shards.json cannot be read ({exc})"
    for name in names:
        problem = index_problem(folder / name)
        if problem is not None:
            return f"shard {name}: {problem}"
    return None


def open_or_build_sharded(config: OverlapConfig, executor: Any) -> ShardedIndex:
    """The sharded index of ``config.corpus`` in ``config.index_dir`` (or the cache), reused
    when its key matches, else built there through ``executor`` (staged)."""

    key = f"{index_key(config)}-shards{config.shards}"
    folder = index_folder(config, key)
    problem = sharded_problem(folder) if (folder / "shards.json").exists() else None
    if problem is not None:
        logger.warning(f"the sharded overlap index in {folder} is rebuilt: {problem}")
    elif (folder / "shards.json").exists():
        index = ShardedIndex.load(folder)
        if index.info.get("key") == key:
            return index
        if config.index_dir:
            raise ConfigError(
                f"--index-dir={str(folder)!r} holds an index of another corpus or other settings; "
                "give a new folder or delete it"
            )
    with staged_cache_folder(folder, markers=INDEX_MARKERS) as staging:
        _build(config, executor, staging, key)
    return ShardedIndex.load(folder)


def _build(config: OverlapConfig, executor: Any, folder: Path, key: str) -> None:
    started = time.perf_counter()
    plan = plan_shards(config.corpus, config.shards)
    names = [f"shard-{i:04d}" for i in range(len(plan))]
    orders = tuple(config.ngram_orders)
    counts = executor.map(
        collect_shard, [(parts, config.corpus_field, str(folder / name), orders) for parts, name in zip(plan, names)]
    )
    documents = sum(c[0] for c in counts)
    if not documents:
        raise ConfigError("corpus holds no text; check the corpus files and --corpus-field")
    stats = CorpusStats(documents, sum(c[1] for c in counts))
    words, doc_freq = corpus_doc_freq([c[2] for c in counts], [c[3] for c in counts])
    executor.map(finish_shard, [(str(folder / name), words, doc_freq, stats, config.k1, config.b) for name in names])
    offsets = np.concatenate([[0], np.cumsum([c[0] for c in counts])])
    shards = [
        {"folder": name, "entries": int(c[0]), "first_row": int(first), "parts": [p.__dict__ for p in parts]}
        for name, c, first, parts in zip(names, counts, offsets, plan)
    ]
    info = {
        "version": INDEX_VERSION,
        "key": key,
        "entries": stats.documents,
        "tokens": stats.tokens,
        "vocabulary": len(words),
        "ngram_orders": list(orders),
        "k1": config.k1,
        "b": config.b,
        "sources": [str(p) for p in config.corpus],
        "shards": len(shards),
        "build_seconds": round(time.perf_counter() - started, 3),
    }
    (folder / "shards.json").write_text(json.dumps({"info": info, "shards": shards}, indent=2) + "\n", encoding="utf-8")


def corpus_doc_freq(
    word_hashes: Sequence[np.ndarray], doc_freqs: Sequence[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct word hashes, corpus-wide document frequency of each): the shards'
    frequencies summed per word (a word is in a shard's entries at most once per entry)."""
    words, inverse = np.unique(np.concatenate(word_hashes), return_inverse=True)
    return words, np.bincount(inverse, weights=np.concatenate(doc_freqs), minlength=len(words)).astype(np.int64)


def collect_shard(
    parts: Sequence[CorpusPart], field: str, folder: str, orders: tuple[int, ...]
) -> tuple[int, int, np.ndarray, np.ndarray]:
    """Task: collect one shard; (entries, tokens, word hash and document frequency per word)."""
    entries = (entry for part in parts for entry in iter_part(part, field))
    counts = collect(entries, folder, ngram_orders=orders)
    return counts.documents, counts.tokens, counts.word_hashes, counts.doc_freq


def finish_shard(folder: str, words: np.ndarray, doc_freq: np.ndarray, stats: CorpusStats, k1: float, b: float) -> None:
    """Task: weigh one shard's BM25 matrix with the corpus-wide statistics."""
    local = np.load(Path(folder) / "word-hashes.npy")
    finish(folder, doc_freq[np.searchsorted(words, local)], stats, k1=k1, b=b, info={"shard": Path(folder).name})


def answer_shard(
    folder: str, texts: Sequence[str], queries: Sequence[StructuredQuery], k: int, first_row: int, snippet_chars: int
) -> list[PartAnswer]:
    """Task: every query's answer from one shard."""
    return answer_queries(
        OverlapIndex.load(folder), texts, queries, k, row_offset=first_row, snippet_chars=snippet_chars
    )


def audit_sharded(
    index: ShardedIndex,
    executor: Any,
    ids: Sequence[str],
    texts: Sequence[str],
    queries: Sequence[StructuredQuery],
    k: int = 5,
    snippet_chars: int = 200,
) -> list[ExampleAudit]:
    """Every example's audit against all shards — equal to ``audit_all`` on one index."""
    answers = executor.map(
        answer_shard,
        [
            (str(index.folder / s["folder"]), list(texts), list(queries), k, s["first_row"], snippet_chars)
            for s in index.shards
        ],
    )
    return [merge_answers(example_id, [shard[i] for shard in answers], k) for i, example_id in enumerate(ids)]
