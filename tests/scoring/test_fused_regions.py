"""The fused element-wise regions (``--fused``) held to their eager reference: each region
compiled (inductor's C++ backend on a CPU, Triton on a GPU with ``-m gpu --device cuda``) equals
the plain torch function at every token count with no recompilation, and the native model with
its regions fused scores within 1e-5 nats of the eager model in float32, and in bfloat16 no
further from float32 than the eager model is."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import score_all, snli_requests

from tailsplit.errors import ConfigError
from tailsplit.scoring.base import ScoreRequest

pytestmark = [pytest.mark.slow, pytest.mark.gpu]
torch = pytest.importorskip("torch")
fused = pytest.importorskip("tailsplit.scoring.fused")
HFScorer = pytest.importorskip("tailsplit.scoring.hf").HFScorer

WIDTH, HEADS, KV_HEADS, DIM, INTERMEDIATE, VOCABULARY = 64, 4, 2, 16, 96, 1000
TOKEN_COUNTS = (37, 256, 5, 1031)  # the first compiles; the others must reuse it


def region_inputs(tokens: int, dtype: torch.dtype, device: str) -> dict[str, tuple]:
    generator = torch.Generator().manual_seed(tokens)

    def draw(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=generator).to(device=device, dtype=dtype)

    angles = torch.rand(tokens, DIM // 2, generator=generator) * 50
    angles = torch.cat([angles, angles], -1)
    cos, sin = angles.cos().to(device=device, dtype=dtype), angles.sin().to(device=device, dtype=dtype)
    return {
        "add_rms": (draw(tokens, WIDTH), draw(tokens, WIDTH), draw(WIDTH), 1e-5),
        "norm_only": (draw(tokens, WIDTH), None, draw(WIDTH), 1e-5),
        "rotary_qkv": (draw(tokens, (HEADS + 2 * KV_HEADS) * DIM), cos, sin, HEADS, KV_HEADS, DIM),
        "silu_mul": (draw(tokens, 2 * INTERMEDIATE), INTERMEDIATE),
        "target_logprobs": (  # the head's logits are float32 in every model
            (torch.randn(tokens, VOCABULARY, generator=generator) * 8).to(device),
            torch.randint(0, VOCABULARY, (tokens,), generator=generator).to(device),
        ),
    }


def as_tuple(value: object) -> tuple[torch.Tensor, ...]:
    return value if isinstance(value, tuple) else (value,)  # type: ignore[return-value]


@pytest.mark.parametrize(("dtype", "tolerance"), [("float32", 2e-6), ("bfloat16", 0.02)])
def test_each_region_compiled_equals_its_eager_reference_at_every_token_count(
    device: str, dtype: str, tolerance: float
) -> None:
    regions = fused.Regions(fused=True)
    torch_dtype = getattr(torch, dtype)
    for count, tokens in enumerate(TOKEN_COUNTS):
        if count == 1:  # every region has compiled once: any further compilation is an error
            torch.compiler.set_stance("fail_on_recompile")
        try:
            for name, args in region_inputs(tokens, torch_dtype, device).items():
                function = "add_rms" if name == "norm_only" else name
                ours = as_tuple(getattr(regions, function)(*args))
                reference = as_tuple(fused.REGIONS[function](*args))
                for a, b in zip(ours, reference, strict=True):
                    assert a.shape == b.shape and a.dtype == b.dtype, name
                    scale = max(1.0, float(b.float().abs().max()))
                    assert float((a.float() - b.float()).abs().max()) <= tolerance * scale, (name, tokens)
        finally:
            torch.compiler.set_stance("default")


def test_the_one_pass_head_equals_cross_entropy(device: str) -> None:
    logits, targets = region_inputs(300, torch.float32, device)["target_logprobs"]
    expected = -torch.nn.functional.cross_entropy(logits, targets, reduction="none")
    assert torch.allclose(fused.Regions(fused=True).target_logprobs(logits, targets), expected, atol=1e-5)


def test_the_eager_regions_are_the_reference_functions() -> None:
    regions = fused.Regions(fused=False)
    assert all(getattr(regions, name) is function for name, function in fused.REGIONS.items())


@pytest.fixture(scope="module")
def requests_40() -> list[ScoreRequest]:
    return snli_requests(30, 10)  # packed and padded batches


def test_the_fused_model_scores_as_the_eager_one_in_float32(tiny_llama, requests_40, tmp_path, device) -> None:
    at = {"device": device, "implementation": "native", "cache_dir": tmp_path / "cache"}
    eager, fused_scorer = HFScorer(str(tiny_llama), **at), HFScorer(str(tiny_llama), fused=True, **at)
    assert fused_scorer.model.body.regions.fused and not eager.model.body.regions.fused
    assert np.max(np.abs(score_all(fused_scorer, requests_40) - score_all(eager, requests_40))) < 1e-5


def test_fused_bfloat16_is_as_close_to_float32_as_eager_bfloat16(tiny_llama, requests_40, tmp_path, device) -> None:
    """A compiled region keeps its intermediates in float32 where eager bf16 rounds each to
    bf16, so the two differ by bf16 rounding — about 1e-4 of each sum (0.04 nats on these sums
    of up to 640 nats) — and the fused one is no further from float32 than the eager one."""
    at = {"device": device, "implementation": "native", "cache_dir": tmp_path / "cache"}
    float32 = score_all(HFScorer(str(tiny_llama), **at), requests_40)
    eager = score_all(HFScorer(str(tiny_llama), dtype="bfloat16", **at), requests_40)
    fused_bf16 = score_all(HFScorer(str(tiny_llama), dtype="bfloat16", fused=True, **at), requests_40)
    assert np.max(np.abs(fused_bf16 - eager) / np.abs(eager)) < 3e-4
    assert np.mean(np.abs(fused_bf16 - float32)) <= 1.1 * np.mean(np.abs(eager - float32))


def test_fused_scores_are_cached_apart_and_its_conflicts_refused(tiny_llama, tmp_path) -> None:
    at = {"device": "cpu", "cache_dir": tmp_path / "cache"}
    assert HFScorer(str(tiny_llama), fused=True, **at).identity()["kernels"] == "fused-regions"
    assert "kernels" not in HFScorer(str(tiny_llama), **at).identity()
    with pytest.raises(ConfigError, match="--fused and --compile"):
        HFScorer(str(tiny_llama), fused=True, torch_compile=True, **at)
    with pytest.raises(ConfigError, match="--fused compiles regions of tailsplit's native model"):
        HFScorer(str(tiny_llama), fused=True, implementation="transformers", **at)
    with pytest.raises(ConfigError, match="--fused='yes' must be true or false"):
        HFScorer(str(tiny_llama), fused="yes", **at)  # type: ignore[arg-type]
