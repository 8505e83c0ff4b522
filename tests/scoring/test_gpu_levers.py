"""The GPU scoring levers, held to equal scores with a small random Llama, on a CPU by default
and on a GPU with ``pytest -m gpu --device cuda``.

What a GPU session measures for speed is tested here for numbers: the native model in
bfloat16 against transformers' model in bfloat16, the compiled forward against the eager
one, a batch halved after running out of memory against the whole batch, the GPU softmax
kernel and the float32-output projection against the CPU ones. ``test_gpu_device.py`` holds
the checks that compare a device with the CPU.
"""

from __future__ import annotations

import weakref
from pathlib import Path

import numpy as np
import pytest
from helpers import score_all, snli_requests

from tailsplit.errors import ConfigError, ScoringError
from tailsplit.scoring import memory
from tailsplit.scoring.base import Batch, ScoreRequest
from tailsplit.scoring.batching import Encoded

pytestmark = [pytest.mark.slow, pytest.mark.gpu]
torch = pytest.importorskip("torch")
HFScorer = pytest.importorskip("tailsplit.scoring.hf").HFScorer


@pytest.fixture(scope="module")
def requests_60() -> list[ScoreRequest]:
    return snli_requests(45, 15)  # packed and padded batches


def scorer_of(folder: Path, tmp_path: Path, **kwargs: object) -> HFScorer:
    kwargs.setdefault("device", "cpu")
    return HFScorer(str(folder), cache_dir=tmp_path / "cache", **kwargs)


@pytest.mark.parametrize("padding_side", ["left", "right"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "mixed-bfloat16"])
def test_native_model_equals_transformers(tiny_llama, requests_60, tmp_path, device, dtype, padding_side) -> None:
    """Packed prefix groups and padded batches, either side, in float32, bfloat16 weights and
    under autocast (bfloat16 products over float32 weights)."""
    at = {"device": device, "dtype": dtype, "padding_side": padding_side}
    native = scorer_of(tiny_llama, tmp_path, implementation="native", **at)
    reference = scorer_of(tiny_llama, tmp_path, implementation="transformers", **at)
    assert native.resolved_implementation() == "native"
    assert next(native.model.parameters()).dtype == (torch.bfloat16 if dtype == "bfloat16" else torch.float32)
    kinds = {kind for kind, _ in (b.payload for b in native.plan(requests_60))}
    assert kinds == {"plain", "shared"}
    ours, theirs = score_all(native, requests_60), score_all(reference, requests_60)
    assert np.max(np.abs(ours - theirs)) < (1e-4 if dtype == "float32" else 1e-3)  # bf16 would differ by ~0.05
    if dtype != "float32":  # bf16 arithmetic really ran: far from float32 on these weights
        full = score_all(scorer_of(tiny_llama, tmp_path, implementation="native", device=device), requests_60)
        assert np.max(np.abs(ours - full)) > 10 * np.max(np.abs(ours - theirs))


def test_auto_keeps_the_measured_choice_and_compile_asks_for_the_native_model(tiny_llama, tmp_path) -> None:
    """Measured faster: native on a CPU in float32 and on a CUDA GPU in half precision (H200,
    bf16: 35.4 s against 38.7 s for 570,000 pairs); transformers elsewhere."""
    assert scorer_of(tiny_llama, tmp_path).resolved_implementation() == "native"
    assert scorer_of(tiny_llama, tmp_path, dtype="bfloat16").resolved_implementation() == "transformers"
    for dtype, chosen in [("bfloat16", "native"), ("float16", "native"), ("float32", "transformers")]:
        on_gpu = scorer_of(tiny_llama, tmp_path, dtype=dtype)
        on_gpu.resolved_device = lambda: "cuda:0"  # type: ignore[method-assign]
        assert on_gpu.resolved_implementation() == chosen, dtype
    compiled = scorer_of(tiny_llama, tmp_path, dtype="bfloat16", torch_compile=True)
    assert compiled.resolved_implementation() == "native"
    assert (
        compiled.identity()["torch_compile"] is True
        and "torch_compile" not in scorer_of(tiny_llama, tmp_path).identity()
    )
    with pytest.raises(ConfigError, match="torch_compile compiles tailsplit's native model"):
        scorer_of(tiny_llama, tmp_path, torch_compile=True, implementation="transformers")


def test_compiled_forward_equals_the_eager_one(tiny_llama, requests_60, tmp_path, device) -> None:
    eager = score_all(scorer_of(tiny_llama, tmp_path, implementation="native", device=device), requests_60)
    compiled = scorer_of(tiny_llama, tmp_path, torch_compile=True, device=device)
    assert np.max(np.abs(score_all(compiled, requests_60) - eager)) < 1e-4


def test_compiled_bfloat16_is_as_close_to_float32_as_eager_bfloat16(tiny_llama, requests_60, tmp_path, device) -> None:
    """Compiled bf16 fuses operations and keeps their intermediates in float32 where eager
    rounds each to bf16, so the two differ by bf16 rounding (0.02 nats on these sums of up to
    400 nats), not by 1e-4; each stays as close to float32 as the other. A GPU check: on a CPU
    the float32 test above covers the compiled path (a second compile there costs 25 s)."""
    if device == "cpu":
        pytest.skip("a check for pytest -m gpu --device cuda; the float32 compile test covers a CPU")
    float32 = score_all(scorer_of(tiny_llama, tmp_path, implementation="native", device=device), requests_60)
    eager = score_all(
        scorer_of(tiny_llama, tmp_path, implementation="native", device=device, dtype="bfloat16"), requests_60
    )
    compiled = score_all(
        scorer_of(tiny_llama, tmp_path, torch_compile=True, device=device, dtype="bfloat16"), requests_60
    )
    eager_error, compiled_error = np.max(np.abs(eager - float32)), np.max(np.abs(compiled - float32))
    assert compiled_error < 0.12 and compiled_error < 2 * eager_error


def test_a_batch_out_of_memory_is_scored_in_halves_with_the_same_scores(
    tiny_llama, requests_60, tmp_path, device
) -> None:
    whole = scorer_of(tiny_llama, tmp_path, batch_tokens=4096, device=device)
    expected = score_all(whole, requests_60)
    halved = scorer_of(tiny_llama, tmp_path, batch_tokens=4096, device=device)
    forward = halved.layout_logprobs
    seen: list[int] = []
    failed: list[weakref.ref] = []

    def small_card(layout, model, mixed=False, segments=None):
        # a failed pass's tensors (held by its exception's frames) are freed before the halves run
        assert all(ref() is None for ref in failed), "the halves ran while the failed pass's memory was held"
        seen.append(len(layout.n_tokens))
        if len(layout.n_tokens) > 4:
            activations = torch.empty(1024)
            failed.append(weakref.ref(activations))
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        return forward(layout, model, mixed, segments)

    halved.layout_logprobs = small_card
    assert np.max(np.abs(score_all(halved, requests_60) - expected)) < 1e-4
    assert max(seen) > 4 and any(n <= 4 for n in seen)
    halved.layout_logprobs = lambda *a, **k: (_ for _ in ()).throw(torch.OutOfMemoryError("simulated"))
    (single,) = halved.plan(requests_60[:1])
    with pytest.raises(ScoringError, match=f"does not fit in the memory of {device}; lower --max-tokens"):
        halved.score_batch(single)


def test_halves_cover_a_batch_in_order() -> None:
    rows = [Encoded([1, 2, 3, i], 2, False) for i in range(5)]
    plain = Batch(np.arange(10, 15), 20, ("plain", rows))
    first, second = memory.halves(plain)
    assert first.indices.tolist() == [10, 11] and second.payload[1] == rows[2:] and second.n_tokens == 12
    groups = Batch(np.arange(5), 20, ("shared", [(3, rows[:2]), (3, rows[2:])]))
    first, second = memory.halves(groups)
    assert first.indices.tolist() == [0, 1] and second.indices.tolist() == [2, 3, 4]
    one_group = Batch(np.arange(5), 20, ("shared", [(3, rows)]))
    first, second = memory.halves(one_group)
    assert first.payload == ("shared", [(3, rows[:2])]) and second.payload == ("shared", [(3, rows[2:])])
    assert memory.halves(Batch(np.arange(1), 4, ("plain", rows[:1]))) is None
    assert memory.halves(Batch(np.arange(1), 4, ("shared", [(3, rows[:1])]))) is None


def test_the_memory_budget_is_a_bounded_power_of_two() -> None:
    config = {"hidden_size": 576, "intermediate_size": 1536, "num_attention_heads": 9, "num_key_value_heads": 3}
    per_token = memory.activation_bytes_per_token(config, 2)
    budget = memory.budget_from_memory(60 * 2**30, per_token, 3 * 2**30)
    assert budget & (budget - 1) == 0 and 2**17 <= budget <= memory.HIGHEST_BUDGET
    assert memory.budget_from_memory(2**20, per_token, 2**30) == memory.LOWEST_BUDGET
    assert memory.budget_from_memory(2**50, per_token, 0) == memory.HIGHEST_BUDGET


def test_the_gpu_softmax_and_float32_output_projection_equal_the_cpu_ones(tiny_llama, tmp_path, device) -> None:
    """On a GPU the half-precision product with float32 output runs (cuBLAS), on a CPU the
    widened product; both against the widened product and log-softmax in float32."""
    half = scorer_of(tiny_llama, tmp_path, dtype="bfloat16", implementation="native", device=device)
    model = half.model
    generator = torch.Generator().manual_seed(1)
    hidden = torch.randn(300, 64, generator=generator).bfloat16().to(device)
    targets = torch.randint(0, 49152, (300,), generator=generator).to(device)
    with torch.inference_mode():
        cpu = half.head.target_logprobs(model, hidden, targets, "cpu")
        gpu_kernels = half.head.target_logprobs(model, hidden, targets, "gpu")
        widened = torch.nn.functional.linear(hidden.float(), model.get_output_embeddings().weight.float())
        reference = widened.gather(1, targets[:, None])[:, 0] - torch.logsumexp(widened, 1)
    assert cpu.dtype == gpu_kernels.dtype == torch.float32
    assert torch.allclose(cpu, gpu_kernels, atol=1e-5)
    assert torch.allclose(cpu, reference, atol=1e-4) if device != "cpu" else torch.equal(cpu, reference)


def test_the_float32_output_product_is_probed_once_per_device_and_type(monkeypatch) -> None:
    from tailsplit.scoring.head import VocabularyHead

    head = VocabularyHead()
    calls: list[int] = []
    real_mm = torch.mm

    def counted(*args, **kwargs):
        calls.append(1)
        return real_mm(*args, **kwargs)

    monkeypatch.setattr(torch, "mm", counted)
    hidden = torch.zeros(3, 4, dtype=torch.bfloat16)
    assert head.has_half_gemm(hidden) is False and head.has_half_gemm(hidden) is False  # none on a CPU
    assert len(calls) == 1 and head.half_gemm == {("cpu", "torch.bfloat16"): False}
    head.has_half_gemm(hidden.half())
    assert len(calls) == 2
