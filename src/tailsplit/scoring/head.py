"""The vocabulary projection at the scored positions only, in chunks (never a whole
``[batch, seq, vocab]`` tensor), with float32 logits even in a bf16/fp16 model.

Float32 logits from half-precision hidden states and weights (``head_dtype="float32"``, the
default): the products of two bf16 or fp16 numbers are exact in float32, so what decides the
logits is the accumulation, which is float32 either way. On a GPU the projection is one
half-precision matrix product on the tensor cores with float32 accumulation and float32
output (``torch.mm(..., out_dtype=torch.float32)``); on a CPU, or where that product is not
available, the inputs are widened to float32 (one cached float32 copy of the head) and
multiplied there — the same arithmetic up to the order of the sums. ``head_dtype="model"``
projects in the model's own precision (bf16 logits).

log p(target) is ``logit − logsumexp``: on a CPU with the operations of ``torch.logsumexp``
in its order (so the numbers are the same to the bit), its shifted exponentials written over
the logits, which go into a buffer the head keeps: a chunk's float32 logits are up to 128 MiB,
and before, each chunk allocated them and logsumexp a second tensor of their size; on a GPU
with one fused log-softmax kernel (``cross_entropy``) instead of logsumexp's chain of kernels,
or — with ``--fused`` — one compiled pass of log-sum-exp and gather that writes no log-softmax
(:func:`tailsplit.scoring.fused.target_logprobs`).
A head that is being trained (gradients on) allocates as before. Where the model runs its
products through oneDNN (``matmul == "onednn"``, :mod:`.llama`), so does the projection: on
the CPU that was measured, oneDNN's product into a new tensor beat MKL's into the kept buffer.
"""

from __future__ import annotations

from typing import Any

# Float32 logits per vocabulary-projection chunk: 2^25 (128 MiB) on a CPU, 2^28 (1 GiB) on a GPU.
PROJECTION_ELEMENTS = {"cpu": 2**25, "gpu": 2**28}


class VocabularyHead:
    """Log-probabilities of target tokens from hidden states; ``head_dtype="float32"`` (the
    default) gives float32 logits in any model, ``"model"`` the model's own precision."""

    def __init__(self, head_dtype: str = "float32", *, moments: bool = False) -> None:
        self.head_dtype = head_dtype
        # Also each position's next-token mean log-probability and its variance (Min-K%++):
        # target_logprobs then gives a [3, n] tensor, the log-probabilities its first row.
        self.moments = moments
        self.float32_copy: Any = None  # (weight, its version, float32 weight, float32 bias)
        self.half_gemm: dict[tuple[str, str], bool] = {}  # (device, dtype) → has the float32-output product
        self.buffer: Any = None  # float32 logits of one CPU chunk, reused chunk after chunk

    def target_logprobs(self, model: Any, hidden: Any, targets: Any, device_kind: str) -> Any:
        """log p(target) at each picked position, projecting to the vocabulary in chunks
        (``device_kind``: "cpu" or "gpu", which sets the chunk and the softmax kernel)."""
        import torch

        head = model.get_output_embeddings()
        softcap = getattr(model.config, "final_logit_softcapping", None)
        budget = PROJECTION_ELEMENTS[device_kind]
        chunk = max(1, budget // head.weight.shape[0])
        in_place = device_kind == "cpu" and not torch.is_grad_enabled()
        regions = getattr(getattr(model, "body", None), "regions", None)  # the native model's (--fused)
        onednn = in_place and getattr(model, "matmul", None) == "onednn" and head.weight.dtype == torch.float32
        if onednn:  # the model's own products' kernel, into a new tensor per chunk
            from tailsplit.scoring.llama import onednn_linear
        pieces = []
        for start in range(0, hidden.shape[0], chunk):
            if onednn:
                logits = onednn_linear(hidden[start : start + chunk], head.weight, head.bias)
            else:
                out = self.chunk_buffer(head, min(chunk, hidden.shape[0] - start)) if in_place else None
                logits = self.project(head, hidden[start : start + chunk], out)
            if softcap:
                logits = (
                    logits.div_(softcap).tanh_().mul_(softcap) if in_place else torch.tanh(logits / softcap) * softcap
                )
            chunk_targets = targets[start : start + chunk]
            if self.moments:
                pieces.append(_with_moments(logits, chunk_targets))
            elif device_kind == "gpu" and regions is not None and regions.fused:
                pieces.append(regions.target_logprobs(logits, chunk_targets))  # one pass (:mod:`.fused`)
            elif device_kind == "gpu":
                pieces.append(-torch.nn.functional.cross_entropy(logits, chunk_targets, reduction="none"))
            else:
                picked = logits.gather(1, chunk_targets[:, None])[:, 0]
                pieces.append(picked - (_logsumexp_over(logits) if in_place else torch.logsumexp(logits, 1)))
        if self.moments:
            return torch.cat(pieces, 1) if pieces else torch.zeros(3, 0)
        return torch.cat(pieces) if pieces else torch.zeros(0)

    def chunk_buffer(self, head: Any, rows: int) -> Any:
        """The first ``rows`` rows of the kept float32 buffer for one chunk's logits (grown
        when a chunk needs more rows; its shifted exponentials are written over it)."""
        import torch

        vocabulary = head.weight.shape[0]
        if self.buffer is None or self.buffer.shape[0] < rows or self.buffer.shape[1] != vocabulary:
            self.buffer = torch.empty(rows, vocabulary, dtype=torch.float32, device=head.weight.device)
        return self.buffer[:rows]

    def project(self, head: Any, hidden: Any, out: Any = None) -> Any:
        """Float32 logits: from the model's own projection, or (``head_dtype="float32"``, the
        default) float32-accumulated products of the half-precision inputs; written into
        ``out`` when given (a CPU chunk's kept buffer)."""
        import torch

        weight = head.weight
        if weight.dtype == torch.float32 and out is not None:
            return _linear(hidden, weight, head.bias, out)
        if self.head_dtype == "model" or weight.dtype == torch.float32:
            return head(hidden).float()  # a new tensor (float32 weights with a buffer return above)
        if torch.is_grad_enabled() and weight.requires_grad:  # training through the head: keep the graph
            bias = None if head.bias is None else head.bias.float()
            return torch.nn.functional.linear(hidden.float(), weight.float(), bias)
        if hidden.is_cuda and head.bias is None and self.has_half_gemm(hidden):
            return torch.mm(hidden, weight.t(), out_dtype=torch.float32)
        # One float32 copy of the head per weight tensor and version (a training step bumps the
        # version), not one per chunk of every batch.
        cached = self.float32_copy
        if cached is None or cached[0] is not weight or cached[1] != weight._version:
            bias = None if head.bias is None else head.bias.detach().float()
            cached = self.float32_copy = (weight, weight._version, weight.detach().float(), bias)
        return _linear(hidden.float(), cached[2], cached[3], out)

    def has_half_gemm(self, hidden: Any) -> bool:
        """Whether this torch and device multiply ``hidden``'s half-precision type into float32
        output (``torch.mm(..., out_dtype=)``), found once per device and type with a 1×1
        product, so an error in a real batch (running out of memory) is never taken for a
        missing product (on a CPU there is none: the inputs are widened instead)."""
        import torch

        key = (str(hidden.device), str(hidden.dtype))
        if key not in self.half_gemm:
            probe = torch.zeros(1, 1, dtype=hidden.dtype, device=hidden.device)
            try:
                torch.mm(probe, probe, out_dtype=torch.float32)
                self.half_gemm[key] = True
            except (RuntimeError, TypeError):  # no kernel for this device and type, or a torch without out_dtype
                self.half_gemm[key] = False
        return self.half_gemm[key]


def _linear(hidden: Any, weight: Any, bias: Any, out: Any) -> Any:
    """``torch.nn.functional.linear`` (the same product: ``mm``, or ``addmm`` with a bias),
    written into ``out`` when given."""
    import torch

    if out is None:
        return torch.nn.functional.linear(hidden, weight, bias)
    if bias is None:
        return torch.mm(hidden, weight.t(), out=out)
    return torch.addmm(bias, hidden, weight.t(), out=out)


def _logsumexp_over(logits: Any) -> Any:
    """``torch.logsumexp(logits, 1)``, the same operations in the same order, with the shifted
    exponentials written over ``logits`` instead of into a new tensor of its size."""
    maxes = logits.amax(1)
    maxes.masked_fill_(maxes.abs() == float("inf"), 0)
    return logits.sub_(maxes[:, None]).exp_().sum(1).log_().add_(maxes)


def _with_moments(logits: Any, targets: Any) -> Any:
    """``[log p(target), μ, σ²]`` of each row: μ = Σ p log p and σ² = Σ p (log p − μ)² over
    the vocabulary, the mean and variance of the next token's log-probability (Min-K%++). One
    chunk's log-softmax at a time (in float64), never the whole batch's, with at most two
    chunk-sized float64 arrays alive (products in place, sums as row dot products); the targets'
    log-probabilities are those of the CPU path without moments, bit for bit (``logit −
    logsumexp`` in float32)."""
    import torch

    lse = torch.logsumexp(logits, 1)
    logp = torch.log_softmax(logits.double(), 1)  # float64: float32 leaves 3e-6 in x − μ (measured)
    p = logp.exp()
    mu = torch.einsum("ij,ij->i", p, logp)  # row dot products: no third chunk-sized array
    centred = logp.sub_(mu[:, None])  # centred: E[x²] − μ² cancels
    var = torch.einsum("ij,ij->i", p.mul_(centred), centred)  # in place: two float64 arrays at most
    return torch.stack([(logits.gather(1, targets[:, None])[:, 0] - lse).double(), mu, var])
