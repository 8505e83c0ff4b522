"""Scoring on Ray: shards carry the exact batch plan; a local Ray cluster with the bundled
model reproduces the single-process scores and resumes by shard."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import SAMPLE
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.batching import Encoded, plan_batches
from tailsplit.scoring.distributed import (
    RayScoringEngine,
    cut_into_shards,
    read_batch_shard,
    write_batch_shard,
)
from tailsplit.scoring.driver import build_requests, score_requests


def _encoded(seed: int, n: int) -> list[Encoded]:
    rng = np.random.default_rng(seed)
    prompts = [list(rng.integers(5, 50, size=rng.integers(6, 12))) for _ in range(n // 3 + 1)]
    out = []
    for i in range(n):
        suffix = list(rng.integers(5, 50, size=rng.integers(1, 8)))
        prompt = prompts[i // 3]
        out.append(Encoded([1, *prompt, *suffix], len(prompt) + 1, bool(i % 11 == 0)))
    return out


@pytest.mark.parametrize("share_prefix", ["always", "never"])
def test_a_shard_round_trips_the_exact_batch_plan(tmp_path: Path, share_prefix: str) -> None:
    encoded = _encoded(0, 120)
    batches = plan_batches(encoded, batch_tokens=200, max_rows=16, share_prefix=share_prefix)
    assert any(b.payload[0] == "shared" for b in batches) == (share_prefix == "always")
    shards = cut_into_shards(batches, shard_tokens=300)
    assert [b for s in shards for b in s] == batches and len(shards) > 2
    back = []
    for n, shard in enumerate(shards):
        write_batch_shard(tmp_path / f"{n}.parquet", shard)
        back.extend(read_batch_shard(tmp_path / f"{n}.parquet"))
    assert len(back) == len(batches)
    for ours, theirs in zip(back, batches):
        assert np.array_equal(ours.indices, theirs.indices) and ours.n_tokens == theirs.n_tokens
        assert ours.payload == theirs.payload
    covered = np.sort(np.concatenate([b.indices for b in back]))
    assert np.array_equal(covered, np.arange(len(encoded)))  # every request once


def test_engine_settings_are_checked(tmp_path: Path) -> None:
    from tailsplit.errors import ConfigError

    with pytest.raises(ConfigError, match="workers=0"):
        RayScoringEngine(work_dir=tmp_path, workers=0)
    result = CliRunner().invoke(
        app,
        [
            "score",
            str(SAMPLE),
            "--text",
            "hypothesis",
            "--method",
            "ngram",
            "--engine",
            "ray",
            "--out",
            str(tmp_path / "s.parquet"),
        ],
    )
    assert result.exit_code != 0 and "--engine ray scores with --method prompted" in result.output


@pytest.mark.model
@pytest.mark.filterwarnings("ignore")
def test_ray_scoring_reproduces_single_process_and_resumes_by_shard(tiny_llama: Path, tmp_path: Path) -> None:
    import signal

    pytest.importorskip("ray")
    from tailsplit.ray_cluster import RayCluster

    # One local cluster for the runs (an engine uses a running cluster and leaves it up;
    # starting one is most of this test's time): the runs differ only in what is on disk.
    before = signal.getsignal(signal.SIGTERM)
    cluster = RayCluster(num_cpus=2)
    try:
        assert signal.getsignal(signal.SIGTERM) is not before  # Ray's own handler, while it runs
        _score_on_ray_and_resume(tiny_llama, tmp_path)
    finally:
        cluster.close()
    assert signal.getsignal(signal.SIGTERM) is before  # given back: forked processes must not inherit Ray's


def _score_on_ray_and_resume(tiny_llama: Path, tmp_path: Path) -> None:
    from tailsplit.scoring.hf import HFScorer

    dataset = load_examples(SAMPLE, FieldMap(text="hypothesis", context="premise", label="label"))
    requests = build_requests(dataset.subset(range(90)), BUILTIN_TEMPLATES["snli"])
    scorer = HFScorer(str(tiny_llama), cache_dir=tmp_path / "cache", device="cpu")
    local = score_requests(requests, scorer, None)

    engine = RayScoringEngine(work_dir=tmp_path / "shards", workers=2, shard_tokens=1500, num_cpus=2)
    ray_scores = score_requests(requests, scorer, None, engine=engine)
    assert engine.last_run["shards"] >= 3 and engine.last_run["shards_scored"] == engine.last_run["shards"]
    # Same batches on the same kind of device; only float summation order may differ with the
    # actors' thread count (1 each here) against this process's.
    np.testing.assert_allclose(ray_scores[0], local[0], rtol=0, atol=1e-4)
    for ours, theirs in zip(ray_scores[1:3], local[1:3]):
        assert np.array_equal(ours, theirs)

    plan_dir = next((tmp_path / "shards").iterdir())
    score_files = sorted(plan_dir.glob("scores-*.parquet"))
    assert len(score_files) == engine.last_run["shards"]
    kept = pq.read_table(score_files[0]).to_pydict()
    score_files[1].unlink()  # as if the run had been killed before this shard finished
    resumed = score_requests(requests, scorer, None, engine=engine)
    assert engine.last_run["shards_scored"] == 1
    assert engine.last_run["shards_resumed"] == engine.last_run["shards"] - 1
    assert pq.read_table(score_files[0]).to_pydict() == kept
    assert np.array_equal(resumed[0], ray_scores[0])
