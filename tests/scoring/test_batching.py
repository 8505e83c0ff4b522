"""Batch planning: every request scored exactly once; prefixes shared only where they pay."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tailsplit.scoring import batching
from tailsplit.scoring.batching import (
    Encoded,
    FlatTokens,
    group_prefixes,
    neighbour_prefixes,
    packed_length,
    plan_batches,
    sorted_by_ids,
    split_long_groups,
)


def enc(ids: list[int], first: int) -> Encoded:
    return Encoded(ids=ids, first=first, truncated=False)


def test_hypotheses_of_one_premise_share_its_prefix() -> None:
    premise = [1, 10, 11, 12, 13, 14, 15, 16]
    encoded = [
        enc(premise + [20, 30, 31], 9),
        enc(premise + [21, 32], 9),
        enc(premise + [22, 33, 34, 35], 9),
        enc([1, 10, 11, 50, 51, 52, 53, 54, 60, 61], 8),
    ]
    groups = group_prefixes(FlatTokens.of(encoded))
    shared = [g for g in groups if len(g.members) > 1]
    assert len(shared) == 1 and sorted(shared[0].members) == [0, 1, 2]
    assert shared[0].prefix_len == 8  # the whole premise; never past the token before the query


def test_prefix_stops_before_the_token_that_predicts_the_query() -> None:
    encoded = [enc([1, 2, 3, 4, 5, 6, 7, 8, 9], 5), enc([1, 2, 3, 4, 5, 6, 7, 8, 10], 5)]
    (group,) = group_prefixes(FlatTokens.of(encoded))
    assert group.prefix_len == 4


def test_prompts_sharing_only_the_template_start_are_not_grouped() -> None:
    # 50 different premises after one 4-token template start ("<s> Prem ise :"). Joining on
    # "tokens saved do not drop" alone let a group shrink to the 4-token floor and then take
    # in every later prompt: one group of all 50, saving 4 tokens each at quadratic cost.
    template = [1, 7, 8, 9]
    encoded = [enc([*template, 100 + p, 200 + p, 300 + p, 400 + p, 500 + p, 600 + p, 70, 71], 11) for p in range(50)]
    groups = group_prefixes(FlatTokens.of(encoded))
    assert all(len(g.members) == 1 for g in groups)


def test_long_groups_are_cut_into_bounded_rows() -> None:
    encoded = [enc([1, 2, 3, 4, 5, 100 + i, 200 + i, 300 + i], 5) for i in range(100)]
    flat = FlatTokens.of(encoded)
    groups = split_long_groups(group_prefixes(flat), flat.lengths, row_tokens=64)
    assert all(packed_length(g, encoded) <= 64 for g in groups)
    assert sorted(i for g in groups for i in g.members) == list(range(100))


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 6), st.lists(st.integers(0, 3), min_size=1, max_size=12), st.integers(1, 4)),
        min_size=1,
        max_size=60,
    ),
    st.sampled_from(["auto", "always", "never"]),
    st.integers(8, 200),
    st.integers(1, 16),
)
def test_property_every_request_is_planned_exactly_once(specs, share, budget, max_rows) -> None:
    encoded = []
    for prompt_id, query, prompt_len in specs:
        prompt = [1] + [50 + prompt_id] * prompt_len
        encoded.append(enc(prompt + [10 + q for q in query], len(prompt)))
    batches = plan_batches(encoded, batch_tokens=budget, max_rows=max_rows, share_prefix=share)
    planned = np.concatenate([b.indices for b in batches])
    assert sorted(planned.tolist()) == list(range(len(encoded)))
    for batch in batches:
        kind, payload = batch.payload
        members = payload if kind == "plain" else [e for p, group in payload for e in group]
        assert [encoded[i] for i in batch.indices] == members
        if kind == "shared":
            for prefix_len, group in payload:
                assert all(e.ids[:prefix_len] == group[0].ids[:prefix_len] and prefix_len <= e.first - 1 for e in group)
    if share == "never":
        assert all(b.payload[0] == "plain" for b in batches)


def test_plans_depend_only_on_the_requests() -> None:
    encoded = [enc([1, 5, 6, 7, 8] + [9 + i % 4] * (1 + i % 5), 5) for i in range(40)]
    a = plan_batches(encoded, batch_tokens=64, max_rows=8, share_prefix="auto")
    b = plan_batches(list(encoded), batch_tokens=64, max_rows=8, share_prefix="auto")
    assert [x.indices.tolist() for x in a] == [x.indices.tolist() for x in b]


def reference_plan_groups(encoded: list[Encoded]) -> list[tuple[int, list[int]]]:
    """The grouping rule as written: id lists sorted, each compared with its group's first
    member from the first id on."""
    order = sorted((i for i, e in enumerate(encoded) if not e.truncated), key=lambda i: encoded[i].ids)
    groups: list[tuple[int, list[int]]] = []
    for i in order:
        ids = encoded[i].ids
        if groups:
            prefix, members = groups[-1]
            head = encoded[members[0]].ids
            common = next((k for k, (x, y) in enumerate(zip(head, ids)) if x != y), min(len(head), len(ids)))
            shared = min(prefix, common, encoded[i].first - 1)
            n, initial = len(members), encoded[members[0]].first - 1
            if shared >= 4 and 2 * shared >= initial and n * shared >= (n - 1) * prefix:
                groups[-1] = (shared, members + [i])
                continue
        groups.append((encoded[i].first - 1, [i]))
    return groups


token_lists = st.lists(st.integers(0, 3), min_size=1, max_size=40).map(lambda ids: [1, 7, 7, 7] + ids)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(token_lists, st.integers(1, 44), st.booleans()), min_size=1, max_size=50),
    st.sampled_from([0, 2**33]),
)
def test_property_groups_equal_the_rule_compared_from_the_first_id(specs, big) -> None:
    # Long shared runs (past one 16-column block), prompts of every length, truncated rows,
    # and ids past 2**32 (eight-byte sort keys).
    encoded = [
        Encoded([t + big for t in ids], min(first, len(ids) - 1) or 1, cut and k % 3 == 0)
        for k, (ids, first, cut) in enumerate(specs)
    ]
    got = [(g.prefix_len, g.members) for g in group_prefixes(FlatTokens.of(encoded))]
    assert got == reference_plan_groups(encoded)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2), max_size=40), min_size=2, max_size=40), st.integers(0, 40))
def test_neighbour_prefixes_in_small_passes_equal_a_direct_count(lists, cap) -> None:
    flat = FlatTokens.of([Encoded(ids, 0, False) for ids in lists])
    order = sorted_by_ids(flat, np.arange(len(lists)))
    assert order.tolist() == sorted(range(len(lists)), key=lists.__getitem__)
    expected = []
    for a, b in zip(order[:-1], order[1:]):
        pairs = list(zip(lists[a], lists[b]))[:cap]
        expected.append(next((k for k, (x, y) in enumerate(pairs) if x != y), len(pairs)))
    caps = np.full(len(lists) - 1, cap)
    assert neighbour_prefixes(flat, order, caps).tolist() == expected
    batching._PAIRS_PER_PASS, saved = 3, batching._PAIRS_PER_PASS
    try:
        assert neighbour_prefixes(flat, order, caps).tolist() == expected
    finally:
        batching._PAIRS_PER_PASS = saved
