"""Score planned batches on a Ray cluster: a Ray Data pipeline of model actors over Parquet shards.

The driver plans the batches exactly as the single-process path does, so every request is
scored in the same batch, with the same padding, as it would be in one process: on the same
kind of device the scores are the same. The batches are cut into shards of about
``shard_tokens`` tokens, each written as a Parquet file of encoded rows under
``work_dir/<plan hash>/``. A Ray Data pipeline over the list of shards runs
:class:`ShardScorer` actors — one model per worker, on a GPU when ``gpus_per_worker > 0`` —
each reading a shard, scoring its batches and writing a score shard (write to a temporary
file, then rename). A shard whose score file exists is not scored again, so a run that was
killed resumes where it stopped; the plan hash covers the scorer's identity and every
request of every batch, so a changed input or model never picks up stale shards.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError
from tailsplit.fingerprint import sha256_text
from tailsplit.ray_cluster import RayCluster
from tailsplit.scoring.base import Batch, BatchScores
from tailsplit.scoring.batching import Encoded
from tailsplit.scoring.hf import HFScorer

SHARD_FORMAT = "tailsplit-score-shard/1"
DEFAULT_SHARD_TOKENS = 2_000_000


@dataclass
class RayScoringEngine:
    """Where and how to score: ``address`` of a running cluster (``None`` starts a local one
    of ``num_cpus``), ``workers`` model actors with ``cpus_per_worker`` / ``gpus_per_worker``
    each, shards of about ``shard_tokens`` tokens kept under ``work_dir``."""

    work_dir: Path
    address: str | None = None
    workers: int = 1
    cpus_per_worker: float = 1.0
    gpus_per_worker: float = 0.0
    shard_tokens: int = DEFAULT_SHARD_TOKENS
    num_cpus: int | None = None
    last_run: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("workers", "shard_tokens"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ConfigError(f"{name}={getattr(self, name)!r} must be a whole number ≥ 1")
        if self.cpus_per_worker <= 0 or self.gpus_per_worker < 0:
            raise ConfigError("cpus_per_worker must be > 0 and gpus_per_worker ≥ 0")

    def score(self, batches: Sequence[Batch], scorer: Any, keys: Sequence[str]) -> Iterator[BatchScores]:
        """Scores of ``batches`` in order; ``keys`` are the requests' cache keys."""
        params = _scorer_params(scorer)
        folder = Path(self.work_dir) / plan_hash(batches, keys, scorer)
        shards = cut_into_shards(batches, self.shard_tokens)
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for n, shard in enumerate(shards):
            path = folder / f"batches-{n:05d}.parquet"
            if not path.exists():
                write_batch_shard(path, shard)
            paths.append((str(path), str(folder / f"scores-{n:05d}.parquet")))
        todo = [p for p in paths if not Path(p[1]).exists()]
        started = time.perf_counter()
        if todo:
            self._run_pipeline(todo, params)
        self.last_run = {
            "engine": "ray",
            "shards": len(paths),
            "shards_scored": len(todo),
            "shards_resumed": len(paths) - len(todo),
            "workers": self.workers,
            "seconds": round(time.perf_counter() - started, 3),
        }
        scores = _read_score_shards([Path(out) for _, out in paths])
        for batch in batches:
            rows = [scores[int(i)] for i in batch.indices]
            yield BatchScores(
                logprob_sum=np.array([r[0] for r in rows]),
                n_tokens=np.array([r[1] for r in rows], dtype=np.int64),
                truncated=np.array([r[2] for r in rows], dtype=bool),
            )

    def _run_pipeline(self, todo: list[tuple[str, str]], params: dict[str, Any]) -> None:

        cluster = RayCluster(self.address, self.num_cpus)
        try:
            import ray.data

            logging.getLogger("ray.data").setLevel(logging.WARNING)
            ray.data.DataContext.get_current().enable_progress_bars = False
            dataset = ray.data.from_items([{"shard": s, "out": o} for s, o in todo], override_num_blocks=len(todo))
            results = dataset.map_batches(
                ShardScorer,
                fn_constructor_kwargs={"params": params, "threads": max(1, int(self.cpus_per_worker))},
                batch_size=1,
                concurrency=min(self.workers, len(todo)),
                num_cpus=self.cpus_per_worker,
                num_gpus=self.gpus_per_worker or None,
            ).take_all()
        finally:
            cluster.close()
        missing = [o for _, o in todo if not Path(o).exists()]
        if missing or len(results) != len(todo):
            raise ConfigError(
                f"the Ray pipeline finished without {len(missing)} score shard(s), e.g. {missing[:1]}; rerun to resume"
            )


class ShardScorer:
    """A Ray Data actor: one model, loaded once, scoring whole shards."""

    def __init__(self, params: dict[str, Any], threads: int) -> None:
        import torch

        if params.get("device", "auto") in ("auto", "cpu") and not torch.cuda.is_available():
            torch.set_num_threads(threads)
        self.scorer = HFScorer(**params)

    def __call__(self, rows: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        seconds = []
        for shard, out in zip(rows["shard"], rows["out"]):
            started = time.perf_counter()
            if not Path(out).exists():
                batches = read_batch_shard(Path(shard))
                scored = list(self.scorer.score_batches(batches))
                write_score_shard(Path(out), batches, scored)
            seconds.append(time.perf_counter() - started)
        return {"shard": rows["shard"], "seconds": np.array(seconds)}


def _scorer_params(scorer: Any) -> dict[str, Any]:
    params = getattr(scorer, "constructor_params", None)
    if params is None or type(scorer).__name__ != "HFScorer":
        raise ConfigError(
            "--engine ray scores with the prompted Hugging Face scorer only "
            "(--method prompted --backend hf); fine-tuned and n-gram scoring run in one process"
        )
    return params()


def plan_hash(batches: Sequence[Batch], keys: Sequence[str], scorer: Any) -> str:
    """Names a plan: the scorer's identity and every batch's requests, in order."""
    identity = json.dumps(scorer.identity(), sort_keys=True)
    return sha256_text(SHARD_FORMAT, identity, *(",".join(keys[int(i)] for i in b.indices) for b in batches))[:24]


def cut_into_shards(batches: Sequence[Batch], shard_tokens: int) -> list[list[Batch]]:
    """Consecutive batches, about ``shard_tokens`` tokens a shard (a batch is never cut)."""
    shards: list[list[Batch]] = [[]]
    tokens = 0
    for batch in batches:
        if shards[-1] and tokens + batch.n_tokens > shard_tokens:
            shards.append([])
            tokens = 0
        shards[-1].append(batch)
        tokens += batch.n_tokens
    return [s for s in shards if s]


def write_batch_shard(path: Path, batches: Sequence[Batch]) -> None:
    """One row per request: its batch, group (−1 when unshared) and prefix, and its tokens."""
    import pyarrow as pa

    columns: dict[str, list[Any]] = {
        k: [] for k in ("batch", "group", "prefix_len", "request", "ids", "first", "truncated", "n_tokens")
    }
    for b, batch in enumerate(batches):
        kind, payload = batch.payload
        groups = [(-1, 0, payload)] if kind == "plain" else [(g, p, m) for g, (p, m) in enumerate(payload)]
        members = iter(batch.indices)
        for g, prefix, rows in groups:
            for e in rows:
                for name, value in (
                    ("batch", b),
                    ("group", g),
                    ("prefix_len", prefix),
                    ("request", int(next(members))),
                    ("ids", e.ids),
                    ("first", e.first),
                    ("truncated", e.truncated),
                    ("n_tokens", batch.n_tokens),
                ):
                    columns[name].append(value)
    table = pa.table(
        {
            "batch": pa.array(columns["batch"], pa.int32()),
            "group": pa.array(columns["group"], pa.int32()),
            "prefix_len": pa.array(columns["prefix_len"], pa.int32()),
            "request": pa.array(columns["request"], pa.int64()),
            "ids": pa.array(columns["ids"], pa.list_(pa.int32())),
            "first": pa.array(columns["first"], pa.int32()),
            "truncated": pa.array(columns["truncated"], pa.bool_()),
            "n_tokens": pa.array(columns["n_tokens"], pa.int64()),
        }
    )
    _write_parquet_atomically(table, path)


def read_batch_shard(path: Path) -> list[Batch]:
    """The batches of a shard, exactly as planned."""
    import pyarrow.parquet as pq

    data = pq.read_table(path).to_pydict()
    batches: list[Batch] = []
    start = 0
    n = len(data["batch"])
    while start < n:
        end = start
        while end < n and data["batch"][end] == data["batch"][start]:
            end += 1
        rows = range(start, end)
        encoded = [Encoded(list(data["ids"][r]), data["first"][r], data["truncated"][r]) for r in rows]
        indices = np.array([data["request"][r] for r in rows], dtype=np.int64)
        if data["group"][start] == -1:
            payload: Any = ("plain", encoded)
        else:
            groups: list[tuple[int, list[Encoded]]] = []
            last = None
            for k, r in enumerate(rows):
                if data["group"][r] != last:
                    groups.append((data["prefix_len"][r], []))
                    last = data["group"][r]
                groups[-1][1].append(encoded[k])
            payload = ("shared", groups)
        batches.append(Batch(indices=indices, n_tokens=data["n_tokens"][start], payload=payload))
        start = end
    return batches


def write_score_shard(path: Path, batches: Sequence[Batch], scores: Sequence[BatchScores]) -> None:
    import pyarrow as pa

    table = pa.table(
        {
            "request": pa.array(np.concatenate([b.indices for b in batches]), pa.int64()),
            "logprob_sum": pa.array(np.concatenate([s.logprob_sum for s in scores]), pa.float64()),
            "n_tokens": pa.array(np.concatenate([s.n_tokens for s in scores]), pa.int64()),
            "truncated": pa.array(np.concatenate([s.truncated for s in scores]), pa.bool_()),
        }
    )
    _write_parquet_atomically(table, path)


def _read_score_shards(paths: Sequence[Path]) -> dict[int, tuple[float, int, bool]]:
    import pyarrow.parquet as pq

    out: dict[int, tuple[float, int, bool]] = {}
    for path in paths:
        data = pq.read_table(path).to_pydict()
        for r, total, n, cut in zip(data["request"], data["logprob_sum"], data["n_tokens"], data["truncated"]):
            out[r] = (total, n, cut)
    return out


def _write_parquet_atomically(table: Any, path: Path) -> None:
    import pyarrow.parquet as pq

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
