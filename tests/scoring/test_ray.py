"""What runs on Ray: scoring shards carry the exact batch plan, and on a local Ray cluster the
scores equal the single-process ones and resume by shard; a sharded overlap audit equals the
single-process audit. The cluster tests share one local cluster (starting one is most of
their time), started and stopped by a fixture that checks Ray's signal handlers are given back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from helpers import SAMPLE, write_jsonl
from test_overlap_sharded import corpus_files
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.batching import Encoded, plan_batches
from tailsplit.scoring.distributed import (
    RayScoringEngine,
    ShardScorer,
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


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    import signal

    pytest.importorskip("ray")
    from tailsplit.ray_cluster import RayCluster

    before = signal.getsignal(signal.SIGTERM)
    cluster = RayCluster(num_cpus=2)
    try:
        assert signal.getsignal(signal.SIGTERM) is not before  # Ray's own handler, while it runs
        yield
    finally:
        cluster.close()
    assert signal.getsignal(signal.SIGTERM) is before  # given back: forked processes must not inherit Ray's


@pytest.mark.model
@pytest.mark.filterwarnings("ignore")
def test_ray_scoring_reproduces_single_process_and_resumes_by_shard(
    ray_cluster: None, tiny_llama: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two model actors score the shards as one process scores the requests; a run that finds
    some shards' scores already written scores only the others. (The resuming run hands its
    shards to the actor class in this process: which shards it hands over, and how it reads
    them all back, is the engine's; starting a second set of actors would add 10-15 s.)"""
    _score_on_ray_and_resume(tiny_llama, tmp_path, monkeypatch)


def _score_on_ray_and_resume(tiny_llama: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
    handed: list[str] = []

    def in_this_process(self: RayScoringEngine, todo: list[tuple[str, str]], params: dict) -> None:
        import torch

        handed.extend(out for _, out in todo)
        threads = torch.get_num_threads()
        try:  # the actor sets its thread count; this process keeps its own
            actor = ShardScorer(params, threads=1)
            actor({"shard": np.array([s for s, _ in todo]), "out": np.array([o for _, o in todo])})
        finally:
            torch.set_num_threads(threads)

    monkeypatch.setattr(RayScoringEngine, "_run_pipeline", in_this_process)
    engine = RayScoringEngine(work_dir=tmp_path / "shards", workers=1, shard_tokens=1500, num_cpus=2)
    resumed = score_requests(requests, scorer, None, engine=engine)
    assert handed == [str(score_files[1])] and engine.last_run["shards_scored"] == 1
    assert engine.last_run["shards_resumed"] == engine.last_run["shards"] - 1
    assert pq.read_table(score_files[0]).to_pydict() == kept
    assert np.array_equal(resumed[0], ray_scores[0])


@pytest.mark.long
def test_ray_engine_reproduces_the_single_process_audit(ray_cluster: None, tmp_path: Path) -> None:
    files = corpus_files(tmp_path)
    write_jsonl(
        tmp_path / "test.jsonl",
        [
            {"id": f"t{i}", "text": t, "label": "x"}
            for i, t in enumerate(
                [
                    "The council refused the permit because they feared violence.",
                    "a large trophy in the suitcase",
                    "nothing here",
                    "they feared the council",
                ]
            )
        ],
    )
    common = [
        "overlap",
        "--test",
        str(tmp_path / "test.jsonl"),
        "--label",
        "label",
        "--ngram-orders",
        "3,8",
        "--top-quantile",
        "0.5",
    ] + [a for f in files for a in ("--corpus", str(f))]
    one = CliRunner().invoke(app, common + ["--index-dir", str(tmp_path / "one"), "--out", str(tmp_path / "out-one")])
    assert one.exit_code == 0, one.output
    ray_run = CliRunner().invoke(
        app,
        common
        + [
            "--shards",
            "3",
            "--engine",
            "ray",
            "--index-dir",
            str(tmp_path / "ray"),
            "--out",
            str(tmp_path / "out-ray"),
        ],
    )
    assert ray_run.exit_code == 0, ray_run.output
    for name in ("audit.jsonl", "overlap.jsonl", "clean.jsonl"):
        assert (tmp_path / "out-ray" / name).read_bytes() == (tmp_path / "out-one" / name).read_bytes()
    assert json.loads((tmp_path / "ray" / "shards.json").read_text())["info"]["shards"] == 3
