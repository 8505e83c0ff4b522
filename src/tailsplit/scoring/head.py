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

log p(target) is ``logit − logsumexp``: on a CPU with ``torch.logsumexp``, on a GPU with one
fused log-softmax kernel (``cross_entropy``) instead of logsumexp's chain of kernels.
"""

from __future__ import annotations

from typing import Any

# Float32 logits per vocabulary-projection chunk: 2^25 (128 MiB) on a CPU, 2^28 (1 GiB) on a GPU.
PROJECTION_ELEMENTS = {"cpu": 2**25, "gpu": 2**28}


class VocabularyHead:
    """Log-probabilities of target tokens from hidden states; ``head_dtype="float32"`` (the
    default) gives float32 logits in any model, ``"model"`` the model's own precision."""

    def __init__(self, head_dtype: str = "float32") -> None:
        self.head_dtype = head_dtype
        self.float32_copy: Any = None  # (weight, its version, float32 weight, float32 bias)
        self.half_gemm: dict[tuple[str, str], bool] = {}  # (device, dtype) → has the float32-output product

    def target_logprobs(self, model: Any, hidden: Any, targets: Any, device_kind: str) -> Any:
        """log p(target) at each picked position, projecting to the vocabulary in chunks
        (``device_kind``: "cpu" or "gpu", which sets the chunk and the softmax kernel)."""
        import torch

        head = model.get_output_embeddings()
        softcap = getattr(model.config, "final_logit_softcapping", None)
        budget = PROJECTION_ELEMENTS[device_kind]
        chunk = max(1, budget // head.weight.shape[0])
        pieces = []
        for start in range(0, hidden.shape[0], chunk):
            logits = self.project(head, hidden[start : start + chunk])
            if softcap:
                logits = torch.tanh(logits / softcap) * softcap
            chunk_targets = targets[start : start + chunk]
            if device_kind == "gpu":
                pieces.append(-torch.nn.functional.cross_entropy(logits, chunk_targets, reduction="none"))
            else:
                picked = logits.gather(1, chunk_targets[:, None])
                pieces.append((picked - torch.logsumexp(logits, 1, keepdim=True))[:, 0])
        return torch.cat(pieces) if pieces else torch.zeros(0)

    def project(self, head: Any, hidden: Any) -> Any:
        """Float32 logits: from the model's own projection, or (``head_dtype="float32"``, the
        default) float32-accumulated products of the half-precision inputs."""
        import torch

        weight = head.weight
        if self.head_dtype == "model" or weight.dtype == torch.float32:
            return head(hidden).float()
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
        return torch.nn.functional.linear(hidden.float(), cached[2], cached[3])

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
