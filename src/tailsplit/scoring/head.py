"""The vocabulary projection at the scored positions only, in chunks (never a whole
``[batch, seq, vocab]`` tensor), and in float32 even in a bf16/fp16 model."""

from __future__ import annotations

from typing import Any

# Float32 logits per vocabulary-projection chunk: 2^25 (128 MiB) on a CPU, 2^28 (1 GiB) on a GPU.
PROJECTION_ELEMENTS = {"cpu": 2**25, "gpu": 2**28}


class VocabularyHead:
    """Log-probabilities of target tokens from hidden states; ``head_dtype="float32"`` (the
    default) projects in float32 from one cached float32 copy of the head's weights,
    ``"model"`` in the model's own precision."""

    def __init__(self, head_dtype: str = "float32") -> None:
        self.head_dtype = head_dtype
        self.float32_copy: Any = None  # (weight, its version, float32 weight, float32 bias)

    def target_logprobs(self, model: Any, hidden: Any, targets: Any, device_kind: str) -> Any:
        """log p(target) at each picked position, projecting to the vocabulary in chunks
        (``device_kind``: "cpu" or "gpu", which sets the chunk)."""
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
            chunk_targets = targets[start : start + chunk, None]
            pieces.append((logits.gather(1, chunk_targets) - torch.logsumexp(logits, 1, keepdim=True))[:, 0])
        return torch.cat(pieces) if pieces else torch.zeros(0)

    def project(self, head: Any, hidden: Any) -> Any:
        """Float32 logits: from the model's own projection, or (``head_dtype="float32"``, the
        default) from a float32 projection of the hidden states even in a bf16/fp16 model."""
        import torch

        weight = head.weight
        if self.head_dtype == "model" or weight.dtype == torch.float32:
            return head(hidden).float()
        # One float32 copy of the head per weight tensor and version (a training step bumps the
        # version), not one per chunk of every batch.
        cached = self.float32_copy
        if cached is None or cached[0] is not weight or cached[1] != weight._version:
            bias = None if head.bias is None else head.bias.detach().float()
            cached = self.float32_copy = (weight, weight._version, weight.detach().float(), bias)
        if torch.is_grad_enabled() and weight.requires_grad:  # training through the head: keep the graph
            bias = None if head.bias is None else head.bias.float()
            return torch.nn.functional.linear(hidden.float(), weight.float(), bias)
        return torch.nn.functional.linear(hidden.float(), cached[2], cached[3])
