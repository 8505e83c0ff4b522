"""Tokenising and planning in a child process (``--planner process``): the chunks never part a
prompt's siblings, the child plans exactly what the same chunked plan makes in this process,
its batches stream to the scorer, and the scores — fresh, and resumed from a cache — equal the
one-shot plan's. A failing child is one error naming the fix."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import snli_requests

from tailsplit.errors import ScoringError
from tailsplit.scoring import planner as planning
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.driver import score_requests

pytestmark = [pytest.mark.slow]
torch = pytest.importorskip("torch")
HFScorer = pytest.importorskip("tailsplit.scoring.hf").HFScorer


@pytest.fixture(scope="module")
def requests_90() -> list[ScoreRequest]:
    return snli_requests(75, 15)  # packed and padded batches


def test_chunks_cover_every_request_once_and_never_part_siblings(requests_90) -> None:
    order = planning.prompt_order(requests_90)
    bounds = planning.chunk_bounds(requests_90, order, 10)
    assert bounds[0][0] == 0 and bounds[-1][1] == len(requests_90) and len(bounds) > 3
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))
    for start, _end in bounds[1:]:
        assert requests_90[order[start]].prompt != requests_90[order[start - 1]].prompt


def test_the_child_plans_what_this_process_plans(tiny_llama, requests_90, tmp_path) -> None:
    scorer = HFScorer(str(tiny_llama), device="cpu", cache_dir=tmp_path)
    here = list(planning.planned_in_chunks(scorer.planner().plan, requests_90, 20))
    there = list(planning.planned_in_process(scorer.planner(), requests_90, 20))
    assert len(here) == len(there) > 2
    for a, b in zip(here, there):
        assert np.array_equal(a.indices, b.indices) and a.n_tokens == b.n_tokens and a.payload == b.payload
    assert sorted(np.concatenate([b.indices for b in there]).tolist()) == list(range(len(requests_90)))


def test_streamed_scores_equal_one_shot_scores_fresh_and_resumed(
    tiny_llama, requests_90, tmp_path, monkeypatch
) -> None:
    from tailsplit.cache import ScoreCache

    monkeypatch.setattr(planning, "CHUNK_REQUESTS", 25)
    at = {"device": "cpu", "implementation": "native", "cache_dir": tmp_path / "models"}
    one_shot = score_requests(requests_90, HFScorer(str(tiny_llama), **at), None)
    streamed = score_requests(requests_90, HFScorer(str(tiny_llama), planner="process", **at), None)
    assert np.max(np.abs(one_shot[0] - streamed[0])) < 1e-5
    assert np.array_equal(one_shot[1], streamed[1]) and np.array_equal(one_shot[2], streamed[2])
    assert streamed[3].n_scored_batches > 2
    cache = ScoreCache(tmp_path / "scores.sqlite")
    try:
        partly = score_requests(requests_90[:40], HFScorer(str(tiny_llama), planner="process", **at), cache)
        resumed = score_requests(requests_90, HFScorer(str(tiny_llama), planner="process", **at), cache)
    finally:
        cache.close()
    assert resumed[3].n_cached == partly[3].n_unique
    assert np.max(np.abs(resumed[0] - one_shot[0])) < 1e-5


def test_a_failing_child_is_one_error_naming_the_fix(tiny_llama, tmp_path) -> None:
    from tailsplit.scoring.encoding import TokenRules

    planner = HFScorer(str(tiny_llama), device="cpu", cache_dir=tmp_path).planner()
    too_short = TokenRules(planner.rules.start_id, None, 2, "error")  # every query is longer: planning fails
    broken = planning.Planner(planner.backend, too_short, batch_tokens=64, max_rows=8, share_prefix="never")
    with pytest.raises(ScoringError, match="the planning process failed .*; run again with --planner inline"):
        list(planning.planned_in_process(broken, [ScoreRequest("", "one long query")] * 3, 2))
