"""Drive a scorer over a dataset: render prompts, skip what is cached, restore input order.

Identical requests are scored once. Batches whose every request is cached are skipped;
every other batch is scored whole (so its numbers are bit-identical to an uninterrupted
run) and committed to the cache before the next one starts.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.cache import ScoreCache
from tailsplit.core import Dataset, ScoreTable
from tailsplit.errors import ScoringError
from tailsplit.fingerprint import sha256_text
from tailsplit.log import logger
from tailsplit.progress import ProgressBar
from tailsplit.prompts import PromptTemplate
from tailsplit.scoring.base import Batch, BatchScores, Scorer, ScoreRequest
from tailsplit.scoring.streaming import in_background


@dataclass(frozen=True)
class ScoringReport:
    """What a scoring pass did, for the manifest and the summary."""

    n_requests: int
    n_unique: int
    n_cached: int
    n_scored_batches: int
    n_tokens_scored: int
    seconds: float

    def as_dict(self) -> dict[str, float | int]:
        return dict(self.__dict__)


def build_requests(dataset: Dataset, template: PromptTemplate) -> list[ScoreRequest]:
    """One request per example, in dataset order."""
    contexts = dataset.contexts or (None,) * len(dataset)
    labels = dataset.labels or (None,) * len(dataset)
    requests = []
    for record, text, context, label in zip(dataset.records, dataset.texts, contexts, labels):
        prompt, query = template.render(record, text=text, context=context, label=label)
        requests.append(ScoreRequest(prompt, query))
    return requests


def scorer_key(scorer: Scorer) -> str:
    """Hash of the scorer's identity: the cache namespace of its scores."""
    return sha256_text(json.dumps(scorer.identity(), sort_keys=True))


def score_examples(
    dataset: Dataset,
    template: PromptTemplate,
    scorer: Scorer,
    cache: ScoreCache | None = None,
    *,
    progress: bool = False,
    engine: Any = None,
) -> tuple[ScoreTable, ScoringReport]:
    """Score every example's query under ``template``; returns scores in dataset order."""
    requests = build_requests(dataset, template)
    logprob_sum, n_tokens, truncated, report = score_requests(requests, scorer, cache, progress=progress, engine=engine)
    table = ScoreTable(ids=dataset.ids, logprob_sum=logprob_sum, n_tokens=n_tokens, truncated=truncated)
    return table, report


def score_requests(
    requests: Sequence[ScoreRequest],
    scorer: Scorer,
    cache: ScoreCache | None,
    *,
    progress: bool = False,
    engine: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, ScoringReport]:
    """Scores aligned with ``requests``: (logprob_sum, n_tokens, truncated, report).

    ``engine`` (e.g. :class:`tailsplit.scoring.distributed.RayScoringEngine`) scores the
    planned batches elsewhere; by default they are scored here, one ahead in flight."""
    started = time.perf_counter()
    namespace = scorer_key(scorer)
    unique: dict[ScoreRequest, int] = {}
    position = np.array([unique.setdefault(r, len(unique)) for r in requests], dtype=np.int64)
    unique_requests = list(unique)
    keys = [sha256_text(namespace, r.prompt, r.query) for r in unique_requests]
    cached = cache.get_many(keys) if cache is not None else {}

    total, counts, cut = _columns(keys, cached)

    def to_score(batch: Batch) -> bool:
        return not all(keys[i] in cached for i in batch.indices.tolist())

    blocks = _planned_blocks(scorer, unique_requests)
    if engine is not None:  # the engine takes the whole plan (it names its work by it)
        todo = [b for block in blocks for b in block if to_score(b)]
        pairs: Iterator[tuple[Batch, BatchScores]] = zip(todo, engine.score(todo, scorer, keys) if todo else ())
    else:  # planned in a background thread while the batches before it score (.streaming)
        pairs = _scored_pairs(scorer, (b for block in in_background(blocks) for b in block if to_score(b)))
    n_batches, scored_tokens = _run_batches(
        pairs,
        cache,
        keys,
        (total, counts, cut),
        cached,
        ProgressBar(progress, len(keys) - len(cached), "scoring", "requests"),
    )
    logger.debug(
        "%d requests, %d unique, %d cached; %d batches scored (%d tokens)",
        len(requests), len(unique_requests), len(cached), n_batches, scored_tokens,
    )  # fmt: skip
    bad = np.flatnonzero(~np.isfinite(total))
    if len(bad):
        first = unique_requests[int(bad[0])]
        raise ScoringError(
            f"the model gave a non-finite score for {len(bad)} request(s), e.g. query "
            f"{first.query[:80]!r}; check the model files or use --dtype float32"
        )
    report = ScoringReport(
        n_requests=len(requests),
        n_unique=len(unique_requests),
        n_cached=len(cached),
        n_scored_batches=n_batches,
        n_tokens_scored=scored_tokens,
        seconds=round(time.perf_counter() - started, 3),
    )
    return total[position], counts[position], cut[position], report


def _columns(keys: list[str], cached: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(logprob_sum, n_tokens, truncated) per request, filled where cached (NaN elsewhere)."""
    total = np.full(len(keys), np.nan)
    counts = np.zeros(len(keys), dtype=np.int64)
    cut = np.zeros(len(keys), dtype=bool)
    for i, key in enumerate(keys):
        if key in cached:
            total[i], counts[i], cut[i] = cached[key]
    return total, counts, cut


def _planned_blocks(scorer: Scorer, requests: list[ScoreRequest]) -> Iterable[list[Batch]]:
    """The scorer's plan, block by block where it plans so (:meth:`HFScorer.plan_blocks`)."""
    blocks = getattr(scorer, "plan_blocks", None)
    return blocks(requests) if blocks is not None else [scorer.plan(requests)]


def _run_batches(
    pairs: Iterator[tuple[Batch, BatchScores]],
    cache: ScoreCache | None,
    keys: list[str],
    columns: tuple[np.ndarray, np.ndarray, np.ndarray],
    cached: dict[str, Any],
    bar: ProgressBar,
) -> tuple[int, int]:
    """Each batch's scores into ``columns`` and the cache; (batches, tokens) scored. The bar
    counts the requests not cached before (each lies in exactly one scored batch)."""
    total, counts, cut = columns
    n_batches = n_tokens = 0
    with bar as advance:
        for batch, scores in pairs:
            total[batch.indices] = scores.logprob_sum
            counts[batch.indices] = scores.n_tokens
            cut[batch.indices] = scores.truncated
            if cache is not None:
                cache.put_many(
                    zip((keys[i] for i in batch.indices), scores.logprob_sum, scores.n_tokens, scores.truncated)
                )
            n_batches += 1
            n_tokens += batch.n_tokens
            advance(sum(keys[i] not in cached for i in batch.indices.tolist()))
    return n_batches, n_tokens


def _scored_pairs(scorer: Scorer, batches: Iterator[Batch]) -> Iterator[tuple[Batch, BatchScores]]:
    """Each batch with its scores, in order: through the scorer's pipelined ``score_batches``
    (which takes the next batch before it yields this one's scores) when it has one."""
    pipelined = getattr(scorer, "score_batches", None)
    if pipelined is None:
        yield from ((batch, scorer.score_batch(batch)) for batch in batches)
        return
    taken: deque[Batch] = deque()

    def take() -> Iterator[Batch]:
        for batch in batches:
            taken.append(batch)
            yield batch

    for scores in pipelined(take()):
        yield taken.popleft(), scores
