"""Near-duplicate leakage: the exact set-similarity join against brute force, and the null
shares counted over evaluation rows against the general definition."""

from __future__ import annotations

import gzip
import itertools
import json

import numpy as np
import pytest
from helpers import ROOT_DIR
from hypothesis import given, settings
from hypothesis import strategies as st

from tailsplit import forking
from tailsplit.analysis import leakage, near_duplicates
from tailsplit.analysis.leakage import MATCHES, DuplicateKeys, duplicate_views
from tailsplit.analysis.near_duplicates import bigram_sets, combined_sets, similar_pairs
from tailsplit.words import normalized_queries

SNLI_DEV = ROOT_DIR.parent / "shared" / "data" / "snli" / "dev.jsonl.gz"


def shingles(normalized: str) -> set[str]:
    """The definition the join numbers: word bigrams (a one-word text: the word itself)."""
    words = normalized.split()
    return set(words) if len(words) < 2 else {f"{a} {b}" for a, b in zip(words, words[1:])}


def _close(a: set[str], b: set[str], threshold: float) -> bool:
    return bool(a | b) and len(a & b) >= threshold * len(a | b)


def brute_force(texts: list[str], threshold: float, also: list[str] | None = None) -> list[list[int]]:
    sets = [shingles(t) for t in texts]
    others = None if also is None else [shingles(t) for t in also]
    return [
        [i, j]
        for i, j in itertools.combinations(range(len(texts)), 2)
        if _close(sets[i], sets[j], threshold) and (others is None or _close(others[i], others[j], threshold))
    ]


def join(texts: list[str], threshold: float, also: list[str] | None = None) -> list[list[int]]:
    sets = bigram_sets(texts)
    if also is None:
        return similar_pairs(sets, threshold).tolist()
    others = bigram_sets(also)
    return similar_pairs(combined_sets(sets, others), threshold, confirm=[sets, others]).tolist()


words = st.sampled_from(["a", "b", "c", "d", "e", "f", "g"])
texts = st.lists(st.lists(words, min_size=0, max_size=9).map(" ".join), min_size=0, max_size=40)


@settings(max_examples=300, deadline=None)
@given(texts, st.sampled_from([0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 1.0]))
def test_join_finds_exactly_the_pairs_at_or_above_the_threshold(sample: list[str], threshold: float) -> None:
    assert join(sample, threshold) == brute_force(sample, threshold)


@settings(max_examples=200, deadline=None)
@given(texts.flatmap(lambda q: st.tuples(st.just(q), st.lists(words, min_size=len(q), max_size=len(q)))))
def test_pairs_are_near_when_both_parts_are(sample: tuple[list[str], list[str]]) -> None:
    queries, context_words = sample
    contexts = [" ".join([w, "x", w]) if i % 2 else w for i, w in enumerate(context_words)]
    assert join(queries, 0.7, contexts) == brute_force(queries, 0.7, contexts)


def test_a_jaccard_of_exactly_the_threshold_counts() -> None:
    # 10 bigrams each, 7 shared: Jaccard 7/13; then 7 of 8 bigrams shared: exactly 0.875
    base = "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10"
    same_but_tail = "w0 w1 w2 w3 w4 w5 w6 w7 x8 x9 x10"  # bigrams 0..6 shared: 7 of 13
    assert join([base, same_but_tail], 0.7) == []
    assert join([base, same_but_tail], 7 / 13) == [[0, 1]]
    assert join(["p q r s t u v w", "p q r s t u v w z"], 0.875) == [[0, 1]]  # 7 of 8


@pytest.mark.long
@pytest.mark.skipif(not SNLI_DEV.exists(), reason="needs the shared SNLI data")
def test_snli_hypotheses_blocks_and_both_processes_agree_with_brute_force(monkeypatch: pytest.MonkeyPatch) -> None:
    with gzip.open(SNLI_DEV, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    queries = list(dict.fromkeys(normalized_queries([r["hypothesis"] for r in rows])))[:2500]
    expected = brute_force(queries, 0.7)
    assert len(expected) > 10
    assert join(queries, 0.7) == expected
    monkeypatch.setattr(near_duplicates, "_BLOCK_ROWS", 97)
    monkeypatch.setattr(near_duplicates, "_PARALLEL_MIN", 1)
    assert join(queries, 0.7) == expected


def _views(seed: int) -> list[DuplicateKeys]:
    rng = np.random.default_rng(seed)
    stems = ["a man sleeps on the red couch", "two dogs run in a field", "a woman reads", "kids play"]
    queries, contexts = [], []
    for _ in range(300):
        stem = stems[rng.integers(len(stems))]
        tail = rng.choice(["", " today", " now", "!", " quietly outside"])
        queries.append((stem + tail).capitalize() if rng.random() < 0.5 else stem + tail)
        contexts.append(f"scene {rng.integers(6)} of a long story told here")
    queries += [f"unique sentence number {i} here" for i in range(100)]
    contexts += ["scene 0 of a long story told here"] * 100
    return duplicate_views(queries, contexts)


@pytest.mark.parametrize("seed", [0, 1])
def test_null_shares_equal_the_share_with_every_other_row_as_train(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for view in _views(seed):
        assert view.near is not None and len(view.near)
        eval_rows = np.stack([rng.choice(400, size=60, replace=False) for _ in range(25)])
        for match in MATCHES:
            masks = [np.isin(np.arange(400), rows) for rows in eval_rows]
            expected = [view.share(match, ~mask, mask) for mask in masks]
            assert view.null_shares(match, eval_rows).tolist() == pytest.approx(expected, abs=0)


def test_null_shares_counted_in_chunks_on_forked_processes_equal_one_count(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(2)
    eval_rows = np.stack([rng.choice(400, size=60, replace=False) for _ in range(25)])
    views = _views(2)
    alone = {(v.view, m): v.null_shares(m, eval_rows).tolist() for v in views for m in MATCHES}
    monkeypatch.setattr(leakage, "_PARALLEL_ROWS", 1)
    monkeypatch.setattr(forking, "usable_cores", lambda: 3)  # 25 splits in chunks of 9, 9 and 7
    forked = []
    monkeypatch.setattr(forking, "_pool", _counting(forking._pool, forked))
    views = _views(2)  # the near lists built afresh, so the parent builds them before forking
    chunked = {(v.view, m): v.null_shares(m, eval_rows).tolist() for v in views for m in MATCHES}
    assert chunked == alone
    assert len(forked) == len(alone) and set(forked) == {2}  # two forked processes per count


def _counting(pool, calls: list[int]):  # type: ignore[no-untyped-def]
    def counted(processes: int):  # type: ignore[no-untyped-def]
        calls.append(processes)
        return pool(processes)

    return counted


def test_views_built_together_equal_views_built_alone() -> None:
    queries = ["A man sleeps.", "a man sleeps", "A man sleeps now", "Dogs run"]
    contexts = ["In a room.", "in a room", "In a big room.", "Outside."]
    together = duplicate_views(queries, contexts)
    alone = [DuplicateKeys.build(queries), DuplicateKeys.build(queries, contexts)]
    for a, b in zip(together, alone, strict=True):
        assert a.view == b.view
        assert a.exact.tolist() == b.exact.tolist() and a.normalized.tolist() == b.normalized.tolist()
        assert a.near is not None and b.near is not None and a.near.tolist() == b.near.tolist()


def test_keys_and_near_duplicates_take_a_lone_surrogate() -> None:
    from tailsplit.analysis.leakage import _keys

    assert _keys(["b", "a", "b", ""])[0].tolist() == [0, 1, 0, 2]
    codes, distinct = _keys(["\ud800", "a", "\ud800"])  # JSON may escape one; UTF-8 cannot hold it
    assert codes.tolist() == [0, 1, 0] and list(distinct) == ["\ud800", "a"]
    view = DuplicateKeys.build(["\ud800 x", "a b", "\ud800 x"], ["c", "c", "c"])
    assert view.leaked("exact", np.array([True, False, False])).tolist() == [False, False, True]
    assert join(["\ud800 x y z", "\ud800 x y z", "\\ud800 x y z"], 0.7) == [[0, 1]]
