"""Attention over the segments of an unpadded batch (:mod:`.segments`): torch's variable-length
flash attention on a CUDA GPU, and its reference — each segment through
``scaled_dot_product_attention`` with the bottom-right causal mask — everywhere else (a CPU,
or a GPU whose torch lacks the kernel). The tests hold the reference equal to today's dense
masked attention, and (``-m gpu``) the kernel equal to the reference.

The kernel runs with ``num_splits=1``: a segment's result then does not depend on what else
is in the batch (split-KV would choose its reduction order by the batch's longest segment),
the rule that keeps scores independent of batching.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from tailsplit.scoring.segments import Segments


@dataclass(frozen=True)
class DeviceSegments:
    """:class:`~tailsplit.scoring.segments.Segments` on the scoring device."""

    key_index: torch.Tensor
    cu_q: torch.Tensor
    cu_k: torch.Tensor
    max_q: int
    max_k: int
    host: Segments  # the host arrays (the reference walks the segments there)

    @staticmethod
    def of(segments: Segments, device: torch.device | str) -> DeviceSegments:
        arrays = [torch.from_numpy(np.ascontiguousarray(a)) for a in (segments.key_index, segments.cu_q, segments.cu_k)]
        key_index, cu_q, cu_k = (a.to(device, non_blocking=True) for a in arrays)
        return DeviceSegments(key_index, cu_q, cu_k, segments.max_q, segments.max_k, segments)


def kernel_runs(device: torch.device) -> bool:
    """Whether torch's variable-length flash attention can run on ``device``."""
    if device.type != "cuda":
        return False
    try:
        from torch.nn.attention.varlen import varlen_attn  # noqa: F401
    except ImportError:
        return False
    return True


def segment_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, segments: DeviceSegments) -> torch.Tensor:
    """``[tokens, heads, dim]`` attention outputs of the stream's queries ``q``
    (``[tokens, heads, dim]``) over ``k``/``v`` (``[tokens, kv_heads, dim]``), segment by
    segment: the kernel where it runs, else :func:`segment_attention_reference`."""
    if kernel_runs(q.device) and q.dtype in (torch.float16, torch.bfloat16):
        from torch.nn.attention.varlen import varlen_attn

        keys, values = k.index_select(0, segments.key_index), v.index_select(0, segments.key_index)
        return varlen_attn(
            q, keys, values, segments.cu_q, segments.cu_k, segments.max_q, segments.max_k,
            window_size=(-1, 0), enable_gqa=k.shape[1] != q.shape[1], num_splits=1,
        )  # fmt: skip
    return segment_attention_reference(q, k, v, segments)


def segment_attention_reference(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, segments: DeviceSegments
) -> torch.Tensor:
    """Each segment on its own through ``scaled_dot_product_attention``: its queries against
    its gathered keys with the bottom-right causal mask (query *i* of *n* sees keys up to
    ``keys - n + i``)."""
    out = torch.empty_like(q)
    gqa = k.shape[1] != q.shape[1]
    q_cuts, k_cuts = segments.host.cu_q.tolist(), segments.host.cu_k.tolist()
    for q_start, q_end, k_start, k_end in zip(q_cuts, q_cuts[1:], k_cuts, k_cuts[1:]):
        n_q, n_k = q_end - q_start, k_end - k_start
        index = segments.key_index[k_start:k_end]
        mask = torch.ones(n_q, n_k, dtype=torch.bool, device=q.device).tril_(n_k - n_q)
        attended = F.scaled_dot_product_attention(
            q[q_start:q_end].transpose(0, 1)[None],
            k.index_select(0, index).transpose(0, 1)[None],
            v.index_select(0, index).transpose(0, 1)[None],
            attn_mask=mask,
            enable_gqa=gqa,
        )
        out[q_start:q_end] = attended[0].transpose(0, 1)
    return out
