"""The native model's float32 products through oneDNN on a CPU: close to ``F.linear``'s,
named in the scorer's identity (so its scores are cached apart), used only where it was
measured (a CPU, float32 weights, eager), and never under mixed precision's autocast."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import SAMPLE, score_all

from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.driver import build_requests

pytestmark = pytest.mark.slow
torch = pytest.importorskip("torch")
llama = pytest.importorskip("tailsplit.scoring.llama")
HFScorer = pytest.importorskip("tailsplit.scoring.hf").HFScorer

needs_onednn = pytest.mark.skipif(not llama.onednn_linear_runs(), reason="this torch has no oneDNN linear kernel")


@pytest.fixture(scope="module")
def requests_30():
    dataset = load_examples(SAMPLE, FieldMap(text="hypothesis", context="premise", label="label")).subset(range(30))
    return build_requests(dataset, BUILTIN_TEMPLATES["snli"])


@needs_onednn
def test_onednn_products_score_like_torchs_and_are_named(
    monkeypatch, tiny_llama: Path, tmp_path: Path, requests_30
) -> None:
    calls: list[str] = []
    kernel = llama.onednn_linear

    def counted(x, weight, bias=None):
        calls.append("head" if weight.shape[0] == 49152 else "layer")  # the vocabulary, or a layer's product
        return kernel(x, weight, bias)

    monkeypatch.setattr(llama, "onednn_linear", counted)
    onednn = HFScorer(str(tiny_llama), cache_dir=tmp_path, device="cpu")
    assert onednn.cpu_matmul() == "onednn" and onednn.identity()["matmul"] == "onednn"
    assert onednn.model.body.onednn
    plain = HFScorer(str(tiny_llama), cache_dir=tmp_path, device="cpu")
    plain._model = llama.NativeLlama(tiny_llama).eval()  # the same weights, F.linear's products
    assert not plain.model.body.onednn
    ours = score_all(onednn, requests_30)
    batches = len(onednn.plan(requests_30))
    assert calls.count("layer") == 4 * 2 * batches  # four products a layer, two layers, every batch
    assert calls.count("head") >= batches and onednn.model.matmul == "onednn"  # and the vocabulary projection
    made = len(calls)
    theirs = score_all(plain, requests_30)
    assert len(calls) == made and plain.model.matmul is None  # none through oneDNN
    assert np.max(np.abs(ours - theirs)) <= 1e-4  # the same scores to 1e-4 nats, whatever the summation order
    assert np.array_equal(ours, score_all(onednn, requests_30))  # and the same numbers run after run


@needs_onednn
def test_onednn_only_where_measured(tiny_llama: Path, tmp_path: Path) -> None:
    for kwargs in [{"dtype": "mixed-bfloat16"}, {"dtype": "bfloat16"}, {"implementation": "transformers"}]:
        scorer = HFScorer(str(tiny_llama), cache_dir=tmp_path, device="cpu", **kwargs)
        assert scorer.cpu_matmul() is None and "matmul" not in scorer.identity(), kwargs
    assert llama.cpu_matmul("cpu", "float32", compiled=True) is None
    assert llama.cpu_matmul("cuda:0", "float32", compiled=False) is None


@needs_onednn
def test_autocast_keeps_torchs_half_precision_products(tiny_llama: Path) -> None:
    """A model built with oneDNN products still runs bf16 products under autocast."""
    ids = torch.tensor([[1, 5, 9, 14, 3, 7]])
    positions = torch.arange(6)[None]
    outputs = {}
    for onednn in (True, False):
        model = llama.NativeLlama(tiny_llama, onednn=onednn).eval()
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
            outputs[onednn] = model.base_model(input_ids=ids, attention_mask=None, position_ids=positions)
    assert torch.equal(outputs[True].last_hidden_state, outputs[False].last_hidden_state)


def test_without_the_kernel_the_products_are_torchs(monkeypatch, tiny_llama: Path, tmp_path: Path) -> None:
    monkeypatch.setattr(llama, "onednn_linear_runs", lambda: False)
    scorer = HFScorer(str(tiny_llama), cache_dir=tmp_path, device="cpu")
    assert scorer.cpu_matmul() is None and "matmul" not in scorer.identity()
    assert not scorer.model.body.onednn
