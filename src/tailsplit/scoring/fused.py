"""The native model's element-wise work, one region per step of a layer, on flat
``[tokens, width]`` tensors: what ``--fused`` compiles into one kernel each.

In eager mode each step is several kernels that each read and write the whole activation —
on an H200 at the bundled shape they took 62% of kernel time (``mul`` 27.5%, ``copy_`` 9.3%,
``silu`` 7.7%, ``add`` 7.6%, ``cat`` 5.8%, ``pow`` 4.1%), against 20% for the matrix products.
The regions:

- :func:`add_rms` — the residual add and the next RMSNorm (float32 inside, cast back before
  the weight, as transformers computes it); ``delta=None`` is the first layer's norm alone;
- :func:`rotary_qkv` — the query/key/value projection's output split by heads, rotary
  embeddings applied to queries and keys;
- :func:`silu_mul` — SiLU of the gate times the up projection, from the fused gate/up output;
- :func:`target_logprobs` — on a GPU, the vocabulary head's log p(target) from a chunk's
  logits in one pass (log-sum-exp and the target's logit), in place of ``cross_entropy``,
  which writes the chunk's whole log-softmax first.

Each is a plain torch function (the eager reference, and what runs without ``--fused``);
:class:`Regions` holds them as they run — eager, or each through ``torch.compile`` with the
token count as its one dynamic dimension, so batches of any size reuse one compiled kernel
(on a CPU the same compile runs through inductor's C++ backend, which the tests use to hold
fused = eager and count zero recompilations). Whole-model compilation was slower on the H200
(74.8 s for 570,000 pairs, 52 s of it compiling: a new graph per batch shape); these regions
have one shape each but the token count.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F


def add_rms(
    x: torch.Tensor, delta: torch.Tensor | None, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(x + delta, RMSNorm(x + delta))`` over ``[tokens, width]``; without ``delta``, ``x``
    and its norm. The norm is float32 inside and cast to ``x``'s type before the weight."""
    if delta is not None:
        x = x + delta
    dtype = x.dtype
    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return x, weight * h.to(dtype)


def rotary_qkv(
    qkv: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, heads: int, kv_heads: int, dim: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Queries ``[tokens, heads, dim]``, keys and values ``[tokens, kv_heads, dim]`` from the
    fused projection's ``[tokens, (heads + 2 kv_heads) dim]``, queries and keys rotated by
    each token's ``cos``/``sin`` (``[tokens, dim]``, in the activations' type)."""
    tokens = qkv.shape[0]
    q, k, v = qkv.split([heads * dim, kv_heads * dim, kv_heads * dim], -1)
    c, s = cos[:, None, :], sin[:, None, :]

    def rotate(t: torch.Tensor) -> torch.Tensor:
        first, second = t[..., : dim // 2], t[..., dim // 2 :]
        return t * c + torch.cat([-second, first], -1) * s

    q = rotate(q.reshape(tokens, heads, dim))
    k = rotate(k.reshape(tokens, kv_heads, dim))
    return q, k, v.reshape(tokens, kv_heads, dim)


def silu_mul(gate_up: torch.Tensor, intermediate: int) -> torch.Tensor:
    """``silu(gate) * up`` from the fused gate/up projection's ``[tokens, 2 intermediate]``."""
    gate, up = gate_up.split(intermediate, -1)
    return F.silu(gate) * up


def target_logprobs(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """log p(target) of each row of float32 ``logits`` ``[tokens, vocabulary]``: the target's
    logit less the row's log-sum-exp, read in one pass (no log-softmax of the whole chunk is
    written, as ``cross_entropy`` writes it)."""
    return logits.gather(1, targets[:, None])[:, 0] - torch.logsumexp(logits, 1)


REGIONS: dict[str, Callable[..., Any]] = {
    "add_rms": add_rms,
    "rotary_qkv": rotary_qkv,
    "silu_mul": silu_mul,
    "target_logprobs": target_logprobs,
}


class Regions:
    """The element-wise regions as a layer runs them: eager (``fused=False``, the reference)
    or each compiled once with the token count dynamic (``fused=True``).

    >>> regions = Regions(fused=False)
    >>> x, h = regions.add_rms(torch.ones(3, 4), None, torch.full((4,), 2.0), 1e-6)
    >>> h.tolist()[0]
    [2.0, 2.0, 2.0, 2.0]
    """

    def __init__(self, fused: bool) -> None:
        self.fused = fused
        for name, function in REGIONS.items():
            setattr(self, name, _compiled(function) if fused else function)

    add_rms: Callable[..., tuple[torch.Tensor, torch.Tensor]]
    rotary_qkv: Callable[..., tuple[torch.Tensor, torch.Tensor, torch.Tensor]]
    silu_mul: Callable[..., torch.Tensor]
    target_logprobs: Callable[..., torch.Tensor]


def _compiled(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` compiled with the token dimension dynamic — the first of every 2-D
    argument (activations) and of every 1-D integer one (per-token targets), not of a 1-D
    weight — and every other shape static: one kernel for every batch size."""
    compiled = torch.compile(function, dynamic=False, fullgraph=True)

    def run(*args: Any) -> Any:
        for arg in args:
            if isinstance(arg, torch.Tensor) and (arg.dim() >= 2 or not arg.is_floating_point()):
                torch._dynamo.mark_dynamic(arg, 0)
        return compiled(*args)

    run.__name__ = run.__qualname__ = f"fused_{function.__name__}"
    return run
