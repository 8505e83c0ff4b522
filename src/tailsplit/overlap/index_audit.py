"""``overlap --infini-gram DIR``: which index the folder holds (one tailsplit built, one to
build there from ``--corpus``, or one it did not build, used read-only), everything about it
checked before a tokenizer or the engine loads; then every test example's match profile."""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tailsplit.cache import default_cache_dir
from tailsplit.errors import ConfigError
from tailsplit.fingerprint import sha256_file, sha256_text
from tailsplit.io.outputs import check_cache_folder, staged_cache_folder
from tailsplit.overlap.audit import ExampleAudit
from tailsplit.overlap.corpus import iter_corpus
from tailsplit.overlap.index_tokens import TOKEN_WIDTH, WORDS, IndexTokens, ModelTokens, WordTokens, model_tokens
from tailsplit.overlap.infinigram import (
    MARKER,
    InfiniGramIndex,
    build,
    engine_module,
    index_sizes,
    layout_problem,
    peak_memory_mib,
    read_marker,
    round_trip_share,
    shard_ids,
)
from tailsplit.overlap.matches import MatchProfile, match_profile
from tailsplit.progress import ProgressBar, announce

_OPTION = "--infini-gram"
_PROFILE_CHUNK = 1024  # texts between progress updates


@dataclass(frozen=True)
class IndexPlan:
    """What ``--infini-gram`` names: ``kind`` is ``built`` (tailsplit's, ``record`` its
    marker), ``new`` (to build from ``--corpus``) or ``foreign`` (read-only); ``tokenizer``
    the tokenizer to load; ``key`` the corpus's fingerprint when a corpus is given."""

    folder: Path
    kind: str
    tokenizer: str
    key: str | None
    record: dict[str, Any]


@dataclass(frozen=True)
class IndexRequest:
    """What names an index: its folder, the tokenizer asked for (``None``: the recorded one, or
    words for a new index), and the corpus to build it from (none: it must exist)."""

    folder: Path
    tokenizer: str | None = None
    corpus: tuple[str, ...] = ()
    corpus_field: str = "text"


def corpus_key(config: IndexRequest, tokenizer: str) -> str:
    """Hash of what an index is built from: the corpus files' bytes, the field, the tokenizer."""
    return sha256_text("infini-gram", config.corpus_field, tokenizer, *(sha256_file(p) for p in config.corpus))[:24]


def plan_index(config: IndexRequest, inputs: Sequence[str]) -> IndexPlan:
    """The folder's kind and its tokenizer, refused in one line when they cannot work."""
    engine_module()  # the extra is checked before anything else
    folder = config.folder.expanduser()
    if (folder / MARKER).is_file():
        return _built_plan(config, folder)
    if shard_ids(folder):
        return _foreign_plan(config, folder)
    check_cache_folder(folder, markers=(MARKER,), inputs=inputs, option=_OPTION)
    if not config.corpus:
        raise ConfigError(
            f"{_OPTION}={str(folder)!r} holds no index yet; build one there with tailsplit overlap --corpus FILE"
        )
    tokenizer = config.tokenizer or WORDS
    return IndexPlan(folder, "new", tokenizer, corpus_key(config, tokenizer), {})


def _built_plan(config: IndexRequest, folder: Path) -> IndexPlan:
    record = read_marker(folder)
    recorded = str(record.get("tokenizer"))
    if config.tokenizer is not None and config.tokenizer != recorded:
        raise ConfigError(
            f"--index-tokenizer={config.tokenizer!r}: {_OPTION}={str(folder)!r} was built with the "
            f"tokenizer {recorded!r}; drop --index-tokenizer or build a new index"
        )
    key = corpus_key(config, recorded) if config.corpus else None
    if key is not None and key != record.get("key"):
        raise ConfigError(
            f"{_OPTION}={str(folder)!r} holds an index of another corpus (or field); give a new folder or "
            "delete it, or drop --corpus to audit against it"
        )
    if record.get("token_dtype") not in TOKEN_WIDTH:
        raise ConfigError(f"{_OPTION}={str(folder)!r}: its {MARKER} names no token width; build it again")
    if problem := layout_problem(folder, str(record.get("token_dtype"))):
        raise ConfigError(f"{_OPTION}={str(folder)!r} {problem}; build it again")
    for name, size in (record.get("files") or {}).items():
        if not (folder / name).is_file() or (folder / name).stat().st_size != size:
            raise ConfigError(f"{_OPTION}={str(folder)!r}: {name} is not the file built there; build it again")
    return IndexPlan(folder, "built", recorded, key, record)


def _foreign_plan(config: IndexRequest, folder: Path) -> IndexPlan:
    where = f"{_OPTION}={str(folder)!r} is an index tailsplit did not build (used read-only)"
    if config.corpus:
        raise ConfigError(f"{where}; drop --corpus, or name a new folder to build one")
    if config.tokenizer in (None, WORDS):
        raise ConfigError(
            f"{where}; name the tokenizer it was built with, e.g. --index-tokenizer meta-llama/Llama-2-7b-hf"
        )
    problems = [layout_problem(folder, dtype) for dtype in ("u16", "u32")]  # the tokenizer says which
    if all(problems):
        raise ConfigError(f"{_OPTION}={str(folder)!r} {problems[0]}; check the copy")
    return IndexPlan(folder, "foreign", str(config.tokenizer), None, {})


def open_index(plan: IndexPlan, config: IndexRequest, progress: bool = False) -> InfiniGramIndex:
    """The planned index opened (built first when new), its tokenizer checked against it."""
    tokens = _tokens(plan)
    if plan.kind == "new":
        with staged_cache_folder(plan.folder, markers=(MARKER,)) as staging:
            record = {"key": plan.key, "corpus": [str(p) for p in config.corpus], "corpus_field": config.corpus_field}
            record = build(
                lambda: iter_corpus(config.corpus, config.corpus_field),
                staging,
                tokens,
                record=record,
                progress=progress,
            )
        plan = IndexPlan(plan.folder, "built", plan.tokenizer, plan.key, record)
    elif plan.kind == "built" and plan.record.get("tokenizer_sha256") != tokens.fingerprint():
        raise ConfigError(
            f"{_OPTION}={str(plan.folder)!r} was built with another version of the tokenizer {plan.tokenizer!r}; "
            "build it again"
        )
    if plan.kind == "foreign":
        assert isinstance(tokens, ModelTokens)  # words are refused for foreign indexes
        if problem := layout_problem(plan.folder, tokens.dtype):
            raise ConfigError(f"{_OPTION}={str(plan.folder)!r} {problem}; check the copy, or --index-tokenizer")
        same, read = round_trip_share(plan.folder, tokens, tokens.dtype)
        if read and same * 2 < read:
            raise ConfigError(
                f"--index-tokenizer={plan.tokenizer!r}: {_OPTION}={str(plan.folder)!r} was not tokenised with it "
                f"({read - same} of {read} documents read back as other tokens); name the index's own tokenizer"
            )
    info = {"kind": "infini-gram", "built_by": "other" if plan.kind == "foreign" else "tailsplit",
            "tokenizer": plan.tokenizer, "token_dtype": tokens.dtype, **index_sizes(plan.folder, tokens.dtype)}  # fmt: skip
    announce(progress, f"opening the infini-gram index ({info['tokens']:,} tokens, memory-mapped)")
    return InfiniGramIndex.open(plan.folder, tokens, info)


def _tokens(plan: IndexPlan) -> IndexTokens:
    if plan.tokenizer == WORDS:
        return WordTokens() if plan.kind == "new" else WordTokens.load(plan.folder)
    return model_tokens(plan.tokenizer, default_cache_dir())


def profiles(
    index: InfiniGramIndex,
    texts: Sequence[str],
    orders: Sequence[int],
    progress: bool = False,
    *,
    workers: int | None = None,
) -> list[MatchProfile]:
    """Each text's profile against ``index`` (held whole counts the text as a document's start
    or, for a model's tokens, after a space), in order. The engine's counts run outside
    Python's lock, so texts are profiled on ``workers`` threads (one per core unless told;
    measured 1.9× on 2 cores, the same profiles)."""

    def one(text: str) -> MatchProfile:
        profile = match_profile(index.tokens.encode(text), index.count, orders)
        if not profile.verbatim and any(index.count(v) > 0 for v in index.tokens.variants(text) if v):
            profile = dataclasses.replace(profile, verbatim=True)
        return profile

    found: list[MatchProfile] = []
    with (
        ProgressBar(progress, len(texts), "counting n-grams in the index", "examples") as advance,
        ThreadPoolExecutor(workers or os.cpu_count() or 1) as pool,
    ):
        for start in range(0, len(texts), _PROFILE_CHUNK):
            chunk = texts[start : start + _PROFILE_CHUNK]
            found += pool.map(one, chunk)
            advance(len(chunk))
    return found


def audit_with_index(
    index: InfiniGramIndex, ids: Sequence[str], texts: Sequence[str], orders: Sequence[int], progress: bool = False
) -> tuple[list[ExampleAudit], dict[str, Any]]:
    """Each example's :func:`profiles` as an audit (its n-gram hits and verbatim copy defined as
    the text audit's, over the index's tokens), and the index's description with the audit's
    time and this process's peak memory."""
    started = time.perf_counter()
    audits = [
        ExampleAudit(i, 0.0, ngram_hits=p.hits, ngram_total=p.windows, verbatim=p.verbatim, profile=p)
        for i, p in zip(ids, profiles(index, texts, orders, progress))
    ]
    info = {**index.info, "audit_seconds": round(time.perf_counter() - started, 3), "peak_rss_mib": peak_memory_mib()}
    return audits, info
