"""Drive a scorer over a dataset: render prompts, skip what is cached, restore input order.

Identical requests are scored once. Batches whose every request is cached are skipped;
every other batch is scored whole (so its numbers are bit-identical to an uninterrupted
run) and committed to the cache before the next one starts.
"""

from __future__ import annotations

import collections
import json
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from tailsplit.cache import ScoreCache
from tailsplit.core import Dataset, ScoreTable
from tailsplit.errors import ScoringError, keyword_spelling
from tailsplit.fingerprint import sha256_text
from tailsplit.log import logger
from tailsplit.progress import ProgressBar, announce
from tailsplit.prompts import PromptTemplate
from tailsplit.scoring.base import Batch, BatchScores, Scorer, ScoreRequest
from tailsplit.scoring.membership import membership_scores
from tailsplit.scoring.tokens import token_pieces


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


@keyword_spelling  # public (tailsplit.score_examples): its errors in Python's words
def score_examples(
    dataset: Dataset,
    template: PromptTemplate,
    scorer: Scorer,
    cache: ScoreCache | None = None,
    *,
    progress: bool = False,
    engine: Any = None,
    tokens: bool = False,
    membership_k: float | None = None,
    reference: Scorer | None = None,
) -> tuple[ScoreTable, ScoringReport]:
    """Score every example's query under ``template``; returns scores in dataset order (with
    ``tokens``, each query's tokens and their log-probabilities as well; with
    ``membership_k``, a percent, its membership scores: :mod:`.membership`, the reference
    model's ratio too when a ``reference`` scorer is given)."""
    requests = build_requests(dataset, template)
    moments = membership_k is not None
    if moments and not getattr(scorer, "head_moments", False):
        raise ScoringError("membership scores need a scorer whose head gives next-token moments (head_moments=True)")
    scored = score_requests(requests, scorer, cache, progress=progress, engine=engine, tokens=tokens, moments=moments)
    pieces = None
    if tokens and scored.token_logprobs is not None:
        pieces = token_pieces(scorer, requests, scored.token_logprobs)
    membership = None
    if membership_k is not None and scored.token_logprobs is not None:
        queries = [r.query for r in requests]
        membership = membership_scores(queries, scored.token_logprobs, membership_k / 100, scored.token_moments)
        if reference is not None:
            other = score_requests(requests, reference, cache, progress=progress)
            membership["reference"] = membership["loss"] - other.logprob_sum / np.maximum(other.n_tokens, 1)
    table = ScoreTable(
        ids=dataset.ids,
        logprob_sum=scored.logprob_sum,
        n_tokens=scored.n_tokens,
        truncated=scored.truncated,
        token_pieces=pieces,
        token_logprobs=scored.token_logprobs if tokens else None,
        membership=membership,
    )
    return table, scored.report


class RequestScores(NamedTuple):
    """Scores aligned with the requests, the report of the work, and (when asked for) each
    request's scored tokens' log-probabilities in order (float32, as the model gave them)."""

    logprob_sum: np.ndarray
    n_tokens: np.ndarray
    truncated: np.ndarray
    report: ScoringReport
    token_logprobs: list[np.ndarray] | None = None
    token_moments: list[np.ndarray] | None = None  # each request's [2, tokens]: μ and σ² (Min-K%++)


def score_requests(
    requests: Sequence[ScoreRequest],
    scorer: Scorer,
    cache: ScoreCache | None,
    *,
    progress: bool = False,
    engine: Any = None,
    tokens: bool = False,
    moments: bool = False,
) -> RequestScores:
    """Scores aligned with ``requests``; with ``tokens``, every scored token's log-probability
    too, from the same forward passes (a batch is scored again only when a request in it has
    its sum cached but not its tokens); with ``moments`` (the scorer's head computing them),
    each position's next-token μ and σ² as well.

    ``engine`` (e.g. :class:`tailsplit.scoring.distributed.RayScoringEngine`) scores the
    planned batches elsewhere; by default they are scored here, one ahead in flight."""
    started = time.perf_counter()
    unique: dict[ScoreRequest, int] = {}
    position = np.array([unique.setdefault(r, len(unique)) for r in requests], dtype=np.int64)
    unique_requests = list(unique)
    keys = _cache_keys(scorer, unique_requests) if cache is not None or engine is not None else []
    sums_cached = cache.get_many(keys) if cache is not None else {}
    cached, columns = _from_cache(sums_cached, cache, keys, len(unique_requests), tokens or moments, moments)
    total, counts, cut, per_token = columns

    streamed = getattr(scorer, "planner_kind", "inline") == "process" and engine is None
    planned = scorer.planned(unique_requests) if streamed else scorer.plan(unique_requests)  # type: ignore[attr-defined]
    todo: Any = (b for b in planned if not cached or not all(keys[i] in cached for i in b.indices))
    if streamed:
        pairs = _paired(scorer, todo)
    else:
        todo = list(todo)
        logger.debug(
            "%d requests, %d unique, %d cached; %d batches to score (%d tokens)",
            len(requests), len(unique_requests), len(cached), len(todo), sum(b.n_tokens for b in todo),
        )  # fmt: skip
        scored = engine.score(todo, scorer, keys) if engine is not None and todo else _scores_in_order(scorer, todo)
        pairs = zip(todo, scored)
    known = None if streamed else sum(b.n_tokens for b in todo)
    if streamed or todo:  # a run whose scores are all cached loads no model, and says none
        announce(progress, _loading_text(len(cached), len(unique_requests), known, None if streamed else len(todo)))
        if engine is None and hasattr(scorer, "load"):
            scorer.load()  # before the bar: it moves from the first batch on, not after the load
    scored_tokens, n_batches = _run_batches(pairs, known, cache, keys, columns, progress)
    for i, key in enumerate(keys):
        if key in sums_cached:  # first writer wins: a batch scored again for its tokens keeps these sums
            total[i] = sums_cached[key][0]
    _refuse_non_finite(total, unique_requests)
    report = ScoringReport(
        n_requests=len(requests),
        n_unique=len(unique_requests),
        n_cached=len(cached),
        n_scored_batches=n_batches,
        n_tokens_scored=scored_tokens,
        seconds=round(time.perf_counter() - started, 3),
    )
    in_order = None if per_token is None else [per_token[i][0] for i in position]
    kept_moments = None if per_token is None or not moments else [per_token[i][1] for i in position]
    return RequestScores(total[position], counts[position], cut[position], report, in_order, kept_moments)


def _cache_keys(scorer: Scorer, requests: Sequence[ScoreRequest]) -> list[str]:
    """Each request's cache key: the scorer's identity, the prompt and the query (hashed only
    for a run that caches or hands its batches to an engine)."""
    namespace = scorer_key(scorer)
    return [sha256_text(namespace, r.prompt, r.query) for r in requests]


# Each request's tokens: their log-probabilities and (or None) their next-token moments.
TokenRow = tuple[np.ndarray, "np.ndarray | None"]
Columns = tuple[np.ndarray, np.ndarray, np.ndarray, "list[TokenRow] | None"]


def _from_cache(
    sums: dict[str, tuple[float, int, bool]],
    cache: ScoreCache | None,
    keys: list[str],
    n: int,
    tokens: bool,
    moments: bool,
) -> tuple[dict[str, tuple[float, int, bool]], Columns]:
    """(the cached requests a batch need not score, the columns filled from the cache): with
    ``tokens``, a request is cached only with its tokens (with ``moments``, and theirs)."""
    cached, per_token = sums, None
    if tokens:
        kept = cache.get_tokens(keys) if cache is not None else {}
        kept = {key: row for key, row in kept.items() if row[1] is not None or not moments}
        cached = {key: value for key, value in sums.items() if key in kept}
        none: TokenRow = (np.zeros(0, dtype=np.float32), None)
        per_token = [kept.get(key, none) for key in keys] if keys else [none] * n
    total, counts, cut = np.full(n, np.nan), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
    for i, key in enumerate(keys):
        if key in cached:
            total[i], counts[i], cut[i] = cached[key]
    return cached, (total, counts, cut, per_token)


def _refuse_non_finite(total: np.ndarray, requests: Sequence[ScoreRequest]) -> None:
    bad = np.flatnonzero(~np.isfinite(total))
    if len(bad):
        first = requests[int(bad[0])]
        raise ScoringError(
            f"the model gave a non-finite score for {len(bad)} request(s), e.g. query "
            f"{first.query[:80]!r}; check the model files or use --dtype float32"
        )


def _loading_text(cached: int, unique: int, tokens: int | None, batches: int | None) -> str:
    """What scoring says before the model loads.

    >>> _loading_text(3, 10, 1860, 4)
    '3 of 10 queries cached; loading the model to score 1,860 tokens in 4 batches'
    """
    cached_note = f"{cached:,} of {unique:,} queries cached; " if cached else ""
    to_score = "the rest" if tokens is None or batches is None else f"{tokens:,} tokens in {batches:,} batches"
    return f"{cached_note}loading the model to score {to_score}"


def _run_batches(
    pairs: Iterable[tuple[Batch, BatchScores]],
    known: int | None,
    cache: ScoreCache | None,
    keys: list[str],
    columns: Columns,
    progress: bool,
) -> tuple[int, int]:
    """Each batch's scores into ``columns`` (and the cache) as they come: (tokens, batches).
    ``known``: the tokens to score, or ``None`` when the plan streams from a planning process
    (the progress then counts without a total)."""
    total, counts, cut, per_token = columns
    n_tokens, n_batches = 0, 0
    with ProgressBar(progress, known, "scoring", "tokens") as advance:
        for batch, scores in pairs:
            total[batch.indices] = scores.logprob_sum
            counts[batch.indices] = scores.n_tokens
            cut[batch.indices] = scores.truncated
            if cache is not None:
                cache.put_many(
                    zip((keys[i] for i in batch.indices), scores.logprob_sum, scores.n_tokens, scores.truncated)
                )
            if per_token is not None:
                _keep_tokens(batch, scores, per_token, cache, keys)
            advance(batch.n_tokens)
            n_tokens, n_batches = n_tokens + batch.n_tokens, n_batches + 1
    return n_tokens, n_batches


def _keep_tokens(
    batch: Batch, scores: BatchScores, per_token: list[TokenRow], cache: ScoreCache | None, keys: list[str]
) -> None:
    """A batch's token log-probabilities (and moments), request by request in token order,
    into ``per_token`` (and the cache)."""
    if scores.token_values is None or scores.token_rows is None:
        raise ScoringError("this scorer gives no token log-probabilities; --token-scores needs --backend hf")
    order = np.argsort(scores.token_rows, kind="stable")
    bounds = np.cumsum(np.bincount(scores.token_rows, minlength=len(batch.indices)))[:-1]
    values = np.split(scores.token_values[order].astype(np.float32), bounds)
    moments: list[Any] = [None] * len(values)
    if scores.token_moments is not None:
        moments = np.split(scores.token_moments[:, order], bounds, axis=1)
    rows = list(zip(values, moments))
    for i, row in zip(batch.indices, rows):
        per_token[int(i)] = row
    if cache is not None:
        cache.put_tokens((keys[int(i)], *row) for i, row in zip(batch.indices, rows))


def _paired(scorer: Scorer, batches: Iterator[Batch]) -> Iterator[tuple[Batch, BatchScores]]:
    """(batch, its scores) of a stream of batches: the scorer pulls each batch (one ahead in
    flight), and each is remembered until its scores come back."""
    pending: collections.deque[Batch] = collections.deque()

    def pulled() -> Iterator[Batch]:
        for batch in batches:
            pending.append(batch)
            yield batch

    for scores in _scores_in_order(scorer, pulled()):
        yield pending.popleft(), scores


def _scores_in_order(scorer: Scorer, batches: Iterable[Batch]) -> Iterator[BatchScores]:
    """The scorer's own pipelined ``score_batches`` when it has one, else batch by batch."""
    pipelined = getattr(scorer, "score_batches", None)
    if pipelined is not None:
        yield from pipelined(batches)
    else:
        yield from (scorer.score_batch(batch) for batch in batches)
