"""Tokenising and planning in a separate process, handed to the scorer chunk by chunk
(``--planner process``): the host work that came before the first GPU batch (7.7 s of 31.7 s
for 570,000 pairs on an H200) runs beside the scoring instead. A planning *thread* was tried and
held the GIL (43 s); a process has its own.

The plan is made in chunks of requests, each planned on its own as the whole list is in one
process: requests ordered by prompt (so the siblings of a shared prefix stay together, and a
chunk ends only where the prompt changes), cut into chunks of about ``chunk`` requests, each
tokenised and planned (length-sorted, shared prefixes) and sent as soon as it is planned. The
chunks depend on the requests alone — never on timing — so a streamed plan is the same on every
run (resumed runs skip the same fully cached batches), and the tests hold its scores equal to
the one-shot plan's.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.errors import ScoringError
from tailsplit.scoring.base import Batch, ScoreRequest
from tailsplit.scoring.batching import Encoded, plan_batches
from tailsplit.scoring.encoding import TokenRules, encode_requests

# Requests per planned chunk: large enough that batches stay well sorted by length, small
# enough that the first chunk is planned in a fraction of a second.
CHUNK_REQUESTS = 50_000
_DONE = "done"


@dataclass(frozen=True)
class Planner:
    """What tokenising and planning need, and nothing of the model: picklable, so a child
    process plans exactly as the scorer would (the tokenizer travels as its own JSON)."""

    backend: Any  # the ``tokenizers.Tokenizer`` of the model
    rules: TokenRules
    batch_tokens: int
    max_rows: int
    share_prefix: str

    def encode(self, requests: Sequence[ScoreRequest]) -> list[Encoded]:
        """Token ids (start token included) and the index of the first scored token of every
        request (:mod:`tailsplit.scoring.encoding`)."""
        return encode_requests(self.backend, requests, self.rules)

    def plan(self, requests: Sequence[ScoreRequest]) -> list[Batch]:
        """Tokenise every request, then plan length-sorted (and shared-prefix) batches."""
        return plan_batches(
            self.encode(requests), batch_tokens=self.batch_tokens, max_rows=self.max_rows,
            share_prefix=self.share_prefix,
        )  # fmt: skip


def chunk_bounds(requests: Sequence[ScoreRequest], order: np.ndarray, chunk: int) -> list[tuple[int, int]]:
    """``[start, end)`` of each chunk of ``order`` (requests sorted by prompt): about ``chunk``
    requests each, cut only where the prompt changes.

    >>> reqs = [ScoreRequest(p, "q") for p in "aabbbc"]
    >>> chunk_bounds(reqs, np.arange(6), 2)
    [(0, 2), (2, 5), (5, 6)]
    """
    bounds, start, n = [], 0, len(order)
    while start < n:
        end = min(start + chunk, n)
        while end < n and requests[order[end]].prompt == requests[order[end - 1]].prompt:
            end += 1
        bounds.append((start, end))
        start = end
    return bounds


def prompt_order(requests: Sequence[ScoreRequest]) -> np.ndarray:
    """Request positions ordered by prompt, then position (stable): siblings next to each other."""
    return np.array(sorted(range(len(requests)), key=lambda i: requests[i].prompt), dtype=np.int64)


def chunk_plans(
    plan: Callable[[Sequence[ScoreRequest]], list[Batch]], requests: Sequence[ScoreRequest], chunk: int
) -> Iterator[list[Batch]]:
    """Each chunk's batches, chunk after chunk, their indices referring to ``requests``."""
    order = prompt_order(requests)
    for start, end in chunk_bounds(requests, order, chunk):
        members = order[start:end]
        yield [
            Batch(indices=members[b.indices], n_tokens=b.n_tokens, payload=b.payload)
            for b in plan([requests[i] for i in members])
        ]


def planned_in_chunks(
    plan: Callable[[Sequence[ScoreRequest]], list[Batch]], requests: Sequence[ScoreRequest], chunk: int
) -> Iterator[Batch]:
    """The chunked plan made in this process (what the child makes, for the tests)."""
    for batches in chunk_plans(plan, requests, chunk):
        yield from batches


def _plan_in_process(planner: Planner, requests: list[ScoreRequest], chunk: int, queue: Any) -> None:
    """The child: put each chunk's batches on ``queue`` as it is planned; an error goes there too."""
    try:
        for batches in chunk_plans(planner.plan, requests, chunk):
            queue.put(batches)
        queue.put(_DONE)
    except BaseException as exc:  # noqa: BLE001 - whatever stopped the child is the parent's error
        queue.put(f"{type(exc).__name__}: {exc}")


def planned_in_process(planner: Planner, requests: Sequence[ScoreRequest], chunk: int | None = None) -> Iterator[Batch]:
    """:func:`planned_in_chunks` made in a child process (``planner.plan`` runs there; the
    planner is pickled, its tokenizer with it): batches as each chunk is planned. The child
    is started on first use and stopped however the iteration ends."""
    context = multiprocessing.get_context("spawn")  # no fork of a process holding a GPU context
    queue = context.Queue(maxsize=4)
    size = chunk or CHUNK_REQUESTS
    child = context.Process(target=_plan_in_process, args=(planner, list(requests), size, queue), daemon=True)
    child.start()
    try:
        while True:
            item = queue.get()
            if item == _DONE:
                break
            if isinstance(item, str):
                raise ScoringError(f"the planning process failed ({item}); run again with --planner inline")
            yield from item
        child.join()
    finally:
        if child.is_alive():
            child.terminate()
            child.join()
