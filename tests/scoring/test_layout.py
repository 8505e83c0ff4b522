"""Batch layouts: the vectorised arrays equal a row-by-row construction in plain Python."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tailsplit.scoring.batching import Encoded
from tailsplit.scoring.layout import packed_attention_mask, packed_layout, padded_layout, ranges


def padded_by_rows(rows: list[Encoded], side: str) -> dict[str, list]:
    width = max(len(e.ids) for e in rows)
    out: dict[str, list] = {"ids": [], "attention": [], "positions": [], "scored": []}
    for r, e in enumerate(rows):
        pad = width - len(e.ids)
        left = pad if side == "left" else 0
        out["ids"].append([0] * left + e.ids + [0] * (pad - left))
        out["attention"].append([0] * left + [1] * len(e.ids) + [0] * (pad - left))
        out["positions"].append([0] * left + list(range(len(e.ids))) + [len(e.ids) - 1] * (pad - left))
        out["scored"] += [(r, left + k - 1, e.ids[k], r) for k in range(e.first, len(e.ids))]
    return out


def packed_by_rows(groups: list[tuple[int, list[Encoded]]]) -> dict[str, list]:
    rows: list[tuple[list[int], list[int], list[int]]] = []
    scored = []
    request = 0
    for g, (prefix_len, members) in enumerate(groups):
        ids, positions, owner = list(members[0].ids[:prefix_len]), list(range(prefix_len)), [-1] * prefix_len
        for j, e in enumerate(members):
            column = len(ids)
            for k in range(prefix_len, len(e.ids)):
                ids.append(e.ids[k])
                positions.append(k)
                owner.append(j)
            scored += [(g, column + (k - 1 - prefix_len), e.ids[k], request) for k in range(e.first, len(e.ids))]
            request += 1
        rows.append((ids, positions, owner))
    width = max(len(ids) for ids, _, _ in rows)
    return {
        "ids": [ids + [0] * (width - len(ids)) for ids, _, _ in rows],
        "positions": [p + [0] * (width - len(p)) for _, p, _ in rows],
        "owner": [o + [-2] * (width - len(o)) for _, _, o in rows],
        "scored": scored,
    }


def scored_tuples(layout) -> list[tuple[int, int, int, int]]:
    return list(
        zip(layout.row_idx.tolist(), layout.pos_idx.tolist(), layout.targets.tolist(), layout.example_idx.tolist())
    )


encoded_rows = st.lists(
    st.lists(st.integers(1, 50), min_size=2, max_size=12).flatmap(
        lambda ids: st.builds(Encoded, st.just(ids), st.integers(1, len(ids) - 1), st.booleans())
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(encoded_rows, st.sampled_from(["right", "left"]))
def test_padded_layout_matches_row_by_row(rows: list[Encoded], side: str) -> None:
    layout = padded_layout(rows, side)
    expected = padded_by_rows(rows, side)
    assert layout.input_ids.tolist() == expected["ids"]
    assert layout.attention.tolist() == expected["attention"]
    assert (
        layout.position_ids[layout.attention == 1].tolist()
        == np.asarray(expected["positions"])[np.asarray(expected["attention"]) == 1].tolist()
    )
    assert scored_tuples(layout) == expected["scored"]
    assert layout.n_tokens.tolist() == [len(e.ids) - e.first for e in rows]
    assert layout.truncated.tolist() == [e.truncated for e in rows]


@st.composite
def prefix_groups(draw) -> list[tuple[int, list[Encoded]]]:
    groups = []
    for _ in range(draw(st.integers(1, 5))):
        prefix = draw(st.lists(st.integers(1, 50), min_size=1, max_size=6))
        members = []
        for _ in range(draw(st.integers(1, 4))):
            suffix = draw(st.lists(st.integers(1, 50), min_size=1, max_size=6))
            # the prefix ends before the token that predicts the first scored token
            first = draw(st.integers(len(prefix) + 1, len(prefix) + len(suffix)))
            members.append(Encoded(prefix + suffix, first, False))
        groups.append((len(prefix), members))
    return groups


@settings(max_examples=200, deadline=None)
@given(prefix_groups())
def test_packed_layout_matches_row_by_row(groups: list[tuple[int, list[Encoded]]]) -> None:
    layout = packed_layout(groups)
    expected = packed_by_rows(groups)
    assert layout.packed
    assert layout.input_ids.tolist() == expected["ids"]
    assert layout.position_ids.tolist() == expected["positions"]
    assert layout.attention.tolist() == expected["owner"]
    assert scored_tuples(layout) == expected["scored"]


@pytest.mark.model
def test_packed_mask_hides_siblings_and_padding() -> None:
    torch = pytest.importorskip("torch")
    # prefix of 2, member 0 has 2 suffix tokens, member 1 has 1, one column of padding
    owner = torch.tensor([[-1, -1, 0, 0, 1, -2]], dtype=torch.int32)
    mask = packed_attention_mask(owner)[0, 0].int().tolist()
    assert mask == [
        [1, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
        [1, 1, 1, 0, 0, 0],
        [1, 1, 1, 1, 0, 0],
        [1, 1, 0, 0, 1, 0],
        [1, 1, 0, 0, 0, 1],  # padding: output unused, never attended to
    ]


def test_ranges_concatenates_aranges() -> None:
    assert ranges(np.array([3, 0, 7]), np.array([2, 0, 3])).tolist() == [3, 4, 7, 8, 9]
    assert ranges(np.array([], dtype=np.int64), np.array([], dtype=np.int64)).tolist() == []
