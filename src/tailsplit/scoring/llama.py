"""A Llama-family causal LM for inference, in plain torch: what CPU scoring runs by default,
and what the GPU levers (bf16 weights, ``torch.compile``) are built on.

Why not transformers' ``LlamaForCausalLM``: importing it costs about 2 s of every scoring
command on a CPU (torch's compiler and distributed packages come with it), which is most of
the fixed cost of a short run; this module imports torch alone and reads the safetensors file
directly (``benchmarks/speed/bench_whole_process.py`` measures both). It also fuses the query, key
and value projections into one matrix product, and the MLP's gate and up projections into
another. The arithmetic is transformers' own in every precision — RMSNorm in float32 and
cast back before its weight, rotary embeddings from float32 frequencies cast to the
activations' type, grouped-query attention through ``scaled_dot_product_attention``, the
residual stream in the weights' type — and the tests hold its scores equal to transformers'
on the bundled model (float32, under autocast) and on a small random Llama (bfloat16).

On a CPU with float32 weights the layers' matrix products (and the vocabulary projection:
:mod:`.head`) run through oneDNN
(``torch.ops.mkldnn._linear_pointwise``, the kernel torch's own CPU compiler emits for a
linear layer) where this torch has it (:func:`cpu_matmul`): on an AMD EPYC it ran the
layers' products 16% faster than ``F.linear`` (MKL's) and a whole scoring pass 17% faster,
its sums in a different order (scores within 2e-4 nats of MKL's); the scorer's
identity names it (``"matmul": "onednn"``), so its scores are cached apart from MKL's
(``benchmarks/speed/bench_matmul.py``).

``compiled=True`` runs the decoder layers through ``torch.compile`` (dynamic shapes, so batch
widths do not recompile): the compiler fuses the norms, rotary embeddings, SiLU and casts
that run as separate kernels in eager mode. The mask is decided outside the compiled part.
``fused=True`` compiles only those element-wise regions, one kernel each on flat token tensors
(:mod:`.fused`), and leaves the matrix products and attention to their own kernels.

Only plain Llama checkpoints are taken (``unsupported``): SiLU MLP without biases, default
rotary embeddings (no scaling), one ``model.safetensors`` file. Anything else — and
fine-tuning — uses transformers' model.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch
import torch.nn.functional as F

from tailsplit.scoring.fused import Regions
from tailsplit.scoring.varlen import DeviceSegments, segment_attention

WEIGHTS = "model.safetensors"


def _config(folder: Path) -> dict[str, Any]:
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return config if isinstance(config, dict) else {}


def _rope_theta(config: dict[str, Any]) -> float | None:
    """The rotary base of a default (unscaled) rotary embedding, else ``None``."""
    parameters = config.get("rope_parameters")
    if isinstance(parameters, dict):
        if parameters.get("rope_type", "default") != "default":
            return None
        return float(parameters.get("rope_theta", 10000.0))
    if config.get("rope_scaling"):
        return None
    return float(config.get("rope_theta", 10000.0))


def unsupported(folder: Path) -> str | None:
    """``None`` if this module computes the checkpoint in ``folder`` exactly, else why not."""
    config = _config(folder)
    checks = {
        "model_type is not llama": config.get("model_type") != "llama",
        "activation is not silu": config.get("hidden_act", "silu") != "silu",
        "attention or MLP biases": bool(config.get("attention_bias") or config.get("mlp_bias")),
        "tensor-parallel pretraining": config.get("pretraining_tp", 1) != 1,
        "scaled rotary embeddings": _rope_theta(config) is None,
        f"weights not in one {WEIGHTS}": not (folder / WEIGHTS).is_file(),
        "logit soft-capping": bool(config.get("final_logit_softcapping")),
    }
    reason = next((reason for reason, failed in checks.items() if failed), None)
    if reason is None and not config.get("tie_word_embeddings", False):
        from safetensors import safe_open

        with safe_open(str(folder / WEIGHTS), framework="pt") as handle:
            if "lm_head.weight" not in handle.keys():  # noqa: SIM118 - safe_open has keys(), not __contains__
                reason = "untied output layer missing from the weights"
    return reason


@functools.cache
def onednn_linear_runs() -> bool:
    """Whether this torch runs oneDNN's float32 linear kernel and it agrees with ``F.linear``
    (tried once, on small tensors)."""
    kernel = getattr(getattr(torch.ops, "mkldnn", None), "_linear_pointwise", None)
    if kernel is None or not torch.backends.mkldnn.is_available():
        return False
    generator = torch.Generator().manual_seed(0)
    x, weight = torch.randn(3, 5, 16, generator=generator), torch.randn(8, 16, generator=generator)
    try:
        with torch.inference_mode():
            return bool(torch.allclose(onednn_linear(x, weight), F.linear(x, weight), atol=1e-5))
    # A torch build without the kernel raises a RuntimeError (or its subclass for a missing
    # implementation), one with another signature a TypeError: either way the plain path is used.
    except (RuntimeError, TypeError):
        return False


def onednn_linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """``F.linear`` through oneDNN (float32, no autograd)."""
    return torch.ops.mkldnn._linear_pointwise(x, weight, bias, "none", [], "")


def cpu_matmul(device: str, dtype: str, compiled: bool) -> str | None:
    """``"onednn"`` where the native model's matrix products run through oneDNN — a CPU,
    float32 weights (``dtype="float32"``: not under mixed precision's autocast), not compiled,
    and a torch with the kernel — else ``None`` (``F.linear``)."""
    if device == "cpu" and dtype == "float32" and not compiled and onednn_linear_runs():
        return "onednn"
    return None


def _fixed(tensor: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.nn.Parameter:
    return torch.nn.Parameter(tensor.to(dtype).contiguous(), requires_grad=False)


class _Layer(torch.nn.Module):
    def __init__(self, weights: dict[str, torch.Tensor], prefix: str, dtype: torch.dtype) -> None:
        super().__init__()
        attn, mlp = prefix + "self_attn.", prefix + "mlp."
        self.input_norm = _fixed(weights[prefix + "input_layernorm.weight"], dtype)
        self.qkv = _fixed(torch.cat([weights[attn + f"{p}_proj.weight"] for p in "qkv"]), dtype)
        self.out = _fixed(weights[attn + "o_proj.weight"], dtype)
        self.post_norm = _fixed(weights[prefix + "post_attention_layernorm.weight"], dtype)
        self.gate_up = _fixed(torch.cat([weights[mlp + "gate_proj.weight"], weights[mlp + "up_proj.weight"]]), dtype)
        self.down = _fixed(weights[mlp + "down_proj.weight"], dtype)


class _Body(torch.nn.Module):
    """The decoder stack: embeddings to final-norm hidden states (transformers' ``base_model``)."""

    def __init__(
        self,
        config: dict[str, Any],
        weights: dict[str, torch.Tensor],
        dtype: torch.dtype,
        onednn: bool = False,
        fused: bool = False,
    ) -> None:
        super().__init__()
        self.onednn = onednn
        self.regions = Regions(fused)
        self.heads = int(config["num_attention_heads"])
        self.kv_heads = int(config.get("num_key_value_heads") or self.heads)
        self.head_dim = int(config.get("head_dim") or config["hidden_size"] // self.heads)
        self.intermediate = int(config["intermediate_size"])
        self.eps = float(config["rms_norm_eps"])
        theta = _rope_theta(config)
        assert theta is not None  # checked by unsupported()
        exponents = torch.arange(0, self.head_dim, 2, dtype=torch.int64).float() / self.head_dim
        self.register_buffer("inv_freq", 1.0 / (theta**exponents), persistent=False)
        self.embed = _fixed(weights["model.embed_tokens.weight"], dtype)
        layers = range(int(config["num_hidden_layers"]))
        self.layers = torch.nn.ModuleList(_Layer(weights, f"model.layers.{i}.", dtype) for i in layers)
        self.norm = _fixed(weights["model.norm.weight"], dtype)
        self.stack: Any = self._stack  # replaced by its compiled form (compile())

    def compile_stack(self) -> None:
        """Run the decoder layers through ``torch.compile`` with dynamic shapes."""
        self.stack = torch.compile(self._stack, dynamic=True)

    @staticmethod
    def _mask(attention_mask: torch.Tensor | None) -> tuple[torch.Tensor | None, bool]:
        """SDPA's ``(attn_mask, is_causal)``: none (or none given) is causal; a 4-D boolean
        mask is used as given; a 2-D padding mask becomes causal ∧ key-present, each position
        also seeing itself (a padding query's row is never empty; its output is never read).
        Decided without reading the mask's values, so a GPU batch never waits on the host."""
        if attention_mask is None:
            return None, True
        if attention_mask.dim() == 4:
            return attention_mask, False
        width = attention_mask.shape[1]
        causal = torch.ones(width, width, dtype=torch.bool, device=attention_mask.device).tril_()
        itself = torch.eye(width, dtype=torch.bool, device=attention_mask.device)
        return ((causal & attention_mask.bool()[:, None, :]) | itself)[:, None], False

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None,
        position_ids: torch.Tensor,
        segments: DeviceSegments | None = None,
        **_: Any,
    ) -> SimpleNamespace:
        """Hidden states of a padded or packed batch (``attention_mask``), or of one unpadded
        row whose attention is ``segments`` (:mod:`.segments`)."""
        mask, is_causal = self._mask(attention_mask) if segments is None else (None, False)
        linear = onednn_linear if self.onednn and not torch.is_autocast_enabled(input_ids.device.type) else F.linear
        return SimpleNamespace(last_hidden_state=self.stack(input_ids, position_ids, mask, is_causal, linear, segments))

    def _stack(
        self,
        input_ids: torch.Tensor,
        position_ids: torch.Tensor,
        mask: torch.Tensor | None,
        is_causal: bool,
        linear: Callable[..., torch.Tensor] = F.linear,
        segments: DeviceSegments | None = None,
    ) -> torch.Tensor:
        """The layers on flat ``[tokens, width]`` activations; only attention sees the batch's
        ``[rows, heads, positions, dim]`` (views of the same memory). The element-wise steps are
        :mod:`.fused`'s regions: eager, or one compiled kernel each (``fused``)."""
        rows, width = input_ids.shape
        tokens = rows * width
        heads, kv_heads, dim, regions = self.heads, self.kv_heads, self.head_dim, self.regions
        x = F.embedding(input_ids.reshape(tokens), self.embed)
        freqs = position_ids.reshape(tokens, 1).float() * self.inv_freq[None, :]
        angles = torch.cat([freqs, freqs], -1)
        cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)

        def batched(t: torch.Tensor, n: int) -> torch.Tensor:  # [tokens, n, dim] -> [rows, n, width, dim]
            return t.view(rows, width, n, dim).transpose(1, 2)

        delta = None
        for layer in self.layers:
            x, h = regions.add_rms(x, delta, layer.input_norm, self.eps)
            q, k, v = regions.rotary_qkv(linear(h, layer.qkv), cos, sin, heads, kv_heads, dim)
            if segments is not None:
                attended = segment_attention(q, k, v, segments).reshape(tokens, heads * dim)
            else:
                attended = F.scaled_dot_product_attention(
                    batched(q, heads), batched(k, kv_heads), batched(v, kv_heads),
                    attn_mask=mask, is_causal=is_causal, enable_gqa=kv_heads != heads,
                ).transpose(1, 2).reshape(tokens, heads * dim)  # fmt: skip
            delta = linear(attended, layer.out)
            x, h = regions.add_rms(x, delta, layer.post_norm, self.eps)
            delta = linear(regions.silu_mul(linear(h, layer.gate_up), self.intermediate), layer.down)
        return regions.add_rms(x, delta, self.norm, self.eps)[1].view(rows, width, -1)


class NativeLlama(torch.nn.Module):
    """The model as scoring uses it: ``base_model(...)``, ``get_output_embeddings()`` and
    ``config.final_logit_softcapping`` — the parts of transformers' interface it calls —
    with weights in ``dtype`` on ``device``; ``onednn``: float32 products through oneDNN
    (:func:`cpu_matmul` says where); ``fused``: the element-wise regions compiled (:mod:`.fused`)."""

    def __init__(
        self,
        folder: Path,
        *,
        dtype: torch.dtype = torch.float32,
        device: str = "cpu",
        compiled: bool = False,
        onednn: bool = False,
        fused: bool = False,
    ) -> None:
        super().__init__()
        from safetensors.torch import load_file

        config = _config(folder)
        weights = load_file(str(folder / WEIGHTS))
        self.body = _Body(config, weights, dtype, onednn, fused)
        head = torch.nn.Linear(int(config["hidden_size"]), int(config["vocab_size"]), bias=False)
        tied = config.get("tie_word_embeddings", False)
        head.weight = self.body.embed if tied else _fixed(weights["lm_head.weight"], dtype)
        self.head = head
        self.config = SimpleNamespace(final_logit_softcapping=None)
        self.to(device)
        if compiled:
            self.body.compile_stack()

    @property
    def matmul(self) -> str | None:
        """``"onednn"`` where the products (the vocabulary projection's too) run through oneDNN."""
        return "onednn" if self.body.onednn else None

    @property
    def base_model(self) -> _Body:
        return self.body

    def get_output_embeddings(self) -> torch.nn.Linear:
        return self.head
