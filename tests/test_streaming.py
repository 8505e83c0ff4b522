"""Planning a block at a time while earlier blocks score (``tailsplit.scoring.streaming``):
blocks that keep each prompt's requests together and do not depend on their order, a plan
that covers every request once, a background thread whose errors reach the caller and which
stops when the caller does, and scores and a resumed run equal to planning whole."""

from __future__ import annotations

import random
import threading
import time

import numpy as np
import pytest
from conftest import SAMPLE

from tailsplit.cache import ScoreCache
from tailsplit.core import FieldMap
from tailsplit.errors import ScoringError
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring import streaming
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.driver import build_requests, score_requests
from tailsplit.scoring.streaming import in_background, plan_in_blocks, prompt_blocks


def requests_with_prompts(n_prompts: int, seed: int = 0) -> list[ScoreRequest]:
    rng = random.Random(seed)
    out = [
        ScoreRequest(f"premise {p}:", f" hypothesis {h}") for p in range(n_prompts) for h in range(rng.randint(1, 4))
    ]
    rng.shuffle(out)
    return out


def test_blocks_cover_every_request_once_keep_prompts_together_and_ignore_order() -> None:
    requests = requests_with_prompts(200) + [ScoreRequest("", f"unprompted {i}") for i in range(45)]
    blocks = prompt_blocks(requests, 20)
    every = np.concatenate(blocks)
    assert sorted(every.tolist()) == list(range(len(requests)))
    assert all(len(b) <= 20 for b in blocks)
    block_of = {int(i): k for k, b in enumerate(blocks) for i in b}
    prompts: dict[str, set[int]] = {}
    for i, r in enumerate(requests):
        prompts.setdefault(r.prompt, set()).add(block_of[i])
    assert all(len(ks) == 1 for p, ks in prompts.items() if p), "a prompt's requests were cut apart"
    assert len(prompts[""]) == 3, "45 requests of one prompt fill blocks of their own (20, 20, 5)"

    shuffled = requests[:]
    random.Random(1).shuffle(shuffled)
    as_sets = [{requests[i] for i in b.tolist()} for b in blocks]
    assert [{shuffled[i] for i in b.tolist()} for b in prompt_blocks(shuffled, 20)] == as_sets


def test_a_plan_in_blocks_covers_every_request_once_with_indices_into_the_whole() -> None:
    requests = requests_with_prompts(60)

    def plan(part):  # one batch per request: the payload says which request it was
        from tailsplit.scoring.base import Batch

        return [Batch(indices=np.array([k]), n_tokens=1, payload=part[k]) for k in range(len(part))]

    blocks = list(plan_in_blocks(plan, requests, 10))
    assert len(blocks) > 2
    batches = [b for block in blocks for b in block]
    assert sorted(int(b.indices[0]) for b in batches) == list(range(len(requests)))
    assert all(requests[int(b.indices[0])] == b.payload for b in batches)
    assert len(list(plan_in_blocks(plan, requests, None))) == 1
    assert len(list(plan_in_blocks(plan, requests, (len(requests) + 1) // 2))) == 1, (
        "two blocks or fewer: planned whole"
    )


def test_the_background_thread_hands_on_items_errors_and_stops_with_its_caller() -> None:
    assert list(in_background(iter(range(50)), depth=2)) == list(range(50))

    def failing():
        yield 1
        raise ScoringError("query 'x' produced no tokens of its own")

    with pytest.raises(ScoringError, match="no tokens of its own"):
        list(in_background(failing()))

    made = []

    def endless():
        while True:
            made.append(len(made))
            yield made[-1]

    items = in_background(endless(), depth=2)
    assert [next(items) for _ in range(3)] == [0, 1, 2]
    items.close()
    deadline = time.monotonic() + 5
    while any(t.name == "tailsplit-planning" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(t.name == "tailsplit-planning" for t in threading.enumerate()), "the thread outlived its caller"
    assert len(made) <= 3 + 2 + 1, "the thread ran on past the items it could hand over"


@pytest.mark.slow
def test_scores_planned_in_blocks_equal_the_whole_plan_and_resume_from_the_cache(tiny_llama, tmp_path, monkeypatch) -> None:  # fmt: skip
    hf = pytest.importorskip("tailsplit.scoring.hf")
    dataset = load_examples(SAMPLE, FieldMap(text="hypothesis", context="premise", label="label")).subset(range(90))
    requests = build_requests(dataset, BUILTIN_TEMPLATES["snli"])

    def scorer():
        return hf.HFScorer(str(tiny_llama), cache_dir=tmp_path / "models", device="cpu")

    whole = score_requests(requests, scorer(), None)[0]
    monkeypatch.setattr(hf, "block_size", lambda device: 12)
    cache = ScoreCache(tmp_path / "scores")
    blocks = list(scorer().plan_blocks(requests))
    assert len(blocks) > 2 and streaming.BLOCK_REQUESTS > 12
    part = score_requests(requests[:40], scorer(), cache)[0]  # a run that stopped part way
    resumed, _, _, report = score_requests(requests, scorer(), cache)
    assert report.n_cached == len(set(requests[:40]))
    assert np.max(np.abs(resumed - whole)) < 1e-4 and np.max(np.abs(resumed[:40] - part)) < 1e-4
    again, _, _, report = score_requests(requests, scorer(), cache)
    assert report.n_scored_batches == 0 and np.array_equal(again, resumed)
