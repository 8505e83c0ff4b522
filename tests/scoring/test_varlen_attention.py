"""Variable-length attention (``--attention varlen``): a batch laid out without padding, its
attention as segments, held to today's dense masked attention — the layout's tokens and scored
positions against the packed and padded layouts', the per-segment reference against the dense
mask on random activations, the whole model's scores against dense scoring — and (``-m gpu
--device cuda``) torch's flash kernel against the reference."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import score_all, snli_requests

from tailsplit.errors import ConfigError
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.batching import Encoded
from tailsplit.scoring.layout import PADDING_OWNER, PREFIX_OWNER, packed_layout, padded_layout
from tailsplit.scoring.segments import flat_layout

GROUPS = [
    (3, [Encoded([1, 4, 5, 6, 7], 3, False), Encoded([1, 4, 5, 8], 2, False), Encoded([1, 4, 5, 9, 9, 9], 3, False)]),
    (2, [Encoded([1, 2, 3], 2, False)]),
    (4, [Encoded([1, 7, 7, 7, 5, 6], 4, True), Encoded([1, 7, 7, 7, 2], 4, False)]),
]
ROWS = [Encoded([1, 5, 6, 7], 1, False), Encoded([1, 2], 1, False), Encoded([1, 9, 9, 9, 9, 9, 3], 2, False)]


def scored_tokens(layout) -> list[tuple[int, int]]:
    return sorted(zip(layout.example_idx.tolist(), layout.targets.tolist()))


@pytest.mark.parametrize(("kind", "payload"), [("shared", GROUPS), ("plain", ROWS)])
def test_the_unpadded_layout_scores_the_same_tokens_from_the_same_contexts(kind: str, payload: list) -> None:
    layout, segments = flat_layout(kind, payload)
    dense = packed_layout(payload) if kind == "shared" else padded_layout(payload)
    assert scored_tokens(layout) == scored_tokens(dense)
    assert layout.n_tokens.tolist() == dense.n_tokens.tolist() and layout.truncated.tolist() == dense.truncated.tolist()
    real = (
        dense.input_ids[dense.attention != PADDING_OWNER] if kind == "shared" else dense.input_ids[dense.attention == 1]
    )
    assert sorted(layout.input_ids[0].tolist()) == sorted(real.tolist())  # every token once, no padding
    assert segments.cu_q[-1] == layout.input_ids.shape[1]
    # each scored token is predicted by a position holding the token before it, at the position before its own
    ids, positions = layout.input_ids[0], layout.position_ids[0]
    for request, target, at in zip(layout.example_idx, layout.targets, layout.pos_idx):
        tokens = (payload[request] if kind == "plain" else [e for _, m in payload for e in m][request]).ids
        step = positions[at] + 1
        assert tokens[step] == target and tokens[step - 1] == ids[at]


torch = pytest.importorskip("torch")


def dense_reference(payload: list, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """The packed layout's dense masked attention on the same per-token activations (its real
    positions, row by row, hold each prefix and then its suffixes: the unpadded stream's order)."""
    from tailsplit.scoring.layout import packed_attention_mask

    layout = packed_layout(payload)
    rows, width = layout.input_ids.shape
    real = torch.from_numpy(np.flatnonzero((layout.attention != PADDING_OWNER).ravel()))
    heads, kv_heads, dim = q.shape[1], k.shape[1], q.shape[2]

    def dense(t: torch.Tensor, n: int) -> torch.Tensor:
        out = torch.zeros(rows * width, n, dim, dtype=t.dtype)
        out[real] = t
        return out.view(rows, width, n, dim).transpose(1, 2)

    mask = packed_attention_mask(torch.from_numpy(layout.attention))
    attended = torch.nn.functional.scaled_dot_product_attention(
        dense(q, heads), dense(k, kv_heads), dense(v, kv_heads), attn_mask=mask, enable_gqa=heads != kv_heads
    )
    return attended.transpose(1, 2).reshape(rows * width, heads, dim)[real]


def test_the_segment_reference_equals_the_dense_masked_attention() -> None:
    from tailsplit.scoring.varlen import DeviceSegments, segment_attention_reference

    layout, segments = flat_layout("shared", GROUPS)
    tokens = layout.input_ids.shape[1]
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(tokens, h, 8, generator=generator) for h in (4, 2, 2))
    ours = segment_attention_reference(q, k, v, DeviceSegments.of(segments, "cpu"))
    assert PREFIX_OWNER in packed_layout(GROUPS).attention  # prefixes shared: the case the segments serve
    assert torch.allclose(ours, dense_reference(GROUPS, q, k, v), atol=1e-6)


@pytest.fixture(scope="module")
def requests_40() -> list[ScoreRequest]:
    return snli_requests(30, 10)  # packed and padded batches


@pytest.mark.slow
@pytest.mark.gpu
def test_varlen_scoring_equals_dense_scoring(tiny_llama, requests_40, tmp_path, device) -> None:
    from tailsplit.scoring.hf import HFScorer

    at = {"device": device, "implementation": "native", "cache_dir": tmp_path / "cache"}
    dense, varlen = HFScorer(str(tiny_llama), **at), HFScorer(str(tiny_llama), attention="varlen", **at)
    assert {kind for kind, _ in (b.payload for b in varlen.plan(requests_40))} == {"plain", "shared"}
    assert np.max(np.abs(score_all(varlen, requests_40) - score_all(dense, requests_40))) < 1e-5
    assert varlen.identity()["attention"] == "varlen" and "attention" not in dense.identity()


@pytest.mark.slow
@pytest.mark.gpu
def test_the_flash_kernel_equals_the_segment_reference(device) -> None:
    from tailsplit.scoring.varlen import DeviceSegments, kernel_runs, segment_attention, segment_attention_reference

    if not kernel_runs(torch.device(device)):
        pytest.skip("variable-length flash attention runs on a CUDA GPU (pytest -m gpu --device cuda)")
    layout, segments = flat_layout("shared", GROUPS)
    tokens = layout.input_ids.shape[1]
    generator = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(tokens, h, 64, generator=generator).to(device, torch.bfloat16) for h in (8, 2, 2))
    on_device = DeviceSegments.of(segments, device)
    ours, reference = segment_attention(q, k, v, on_device), segment_attention_reference(q, k, v, on_device)
    assert float((ours.float() - reference.float()).abs().max()) < 2e-2


def test_varlen_runs_in_the_native_model_only(tiny_llama, tmp_path) -> None:
    from tailsplit.scoring.hf import HFScorer

    with pytest.raises(ConfigError, match="--attention='varlen' runs in tailsplit's native model"):
        HFScorer(str(tiny_llama), attention="varlen", implementation="transformers", cache_dir=tmp_path)
    with pytest.raises(ConfigError, match="attention='sparse' is unknown"):
        HFScorer(str(tiny_llama), attention="sparse", cache_dir=tmp_path)
