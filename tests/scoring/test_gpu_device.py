"""Scores on the device against scores on the CPU, with a small random Llama.

``pytest -m gpu --device cuda`` runs these (with ``test_gpu_levers.py`` and the resume test)
on a GPU; without ``--device`` the checks that would compare the CPU with itself, or need a
real out-of-memory error, are skipped (``test_gpu_levers.py`` covers them on a CPU). What they
hold a GPU to: float32 within 1e-4 nats of the CPU per example, either implementation;
bfloat16 within 0.12 nats (the tolerance the docs state); scores that do not depend on how
requests are batched, padded or ordered; a real out-of-memory batch scored in halves.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from helpers import SAMPLE, score_all

from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.driver import build_requests

pytestmark = [pytest.mark.slow, pytest.mark.gpu]
torch = pytest.importorskip("torch")
HFScorer = pytest.importorskip("tailsplit.scoring.hf").HFScorer
BF16_TOLERANCE = 0.12  # nats per example, the stated bound of bf16 against float32


@pytest.fixture(scope="module")
def requests_300(device: str) -> list[ScoreRequest]:
    """SNLI pairs under the SNLI prompt (three hypotheses per premise: shared prefixes), and a
    fifth of them again without a prompt (plain padded rows): 300 requests on a GPU, 75 on the
    CPU (where test_language_model.py checks the same invariances on the same model too)."""
    pairs = 240 if device != "cpu" else 60
    dataset = load_examples(SAMPLE, FieldMap(text="hypothesis", context="premise", label="label")).subset(range(pairs))
    prompted = build_requests(dataset, BUILTIN_TEMPLATES["snli"])
    return prompted + [ScoreRequest("", r.prompt + r.query) for r in prompted[: pairs // 4]]


def scores(folder: Path, tmp_path: Path, requests: list[ScoreRequest], **options: object) -> np.ndarray:
    return score_all(HFScorer(str(folder), cache_dir=tmp_path / "cache", **options), requests)


@pytest.fixture(scope="module")
def on_cpu(tiny_llama: Path, tmp_path_factory: pytest.TempPathFactory, requests_300) -> np.ndarray:
    return scores(tiny_llama, tmp_path_factory.mktemp("cpu"), requests_300, device="cpu", implementation="transformers")


@pytest.mark.parametrize("implementation", ["native", "transformers"])
def test_float32_on_the_device_equals_float32_on_the_cpu(tiny_llama, tmp_path, requests_300, on_cpu, device, implementation) -> None:  # fmt: skip
    if device == "cpu":
        pytest.skip("the device is the CPU: test_gpu_levers.py holds the two implementations equal there")
    ours = scores(tiny_llama, tmp_path, requests_300, device=device, implementation=implementation)
    assert np.max(np.abs(ours - on_cpu)) < 1e-4


@pytest.mark.parametrize("dtype", ["bfloat16", "mixed-bfloat16"])
def test_bfloat16_on_the_device_is_within_the_stated_tolerance(tiny_llama, tmp_path, requests_300, on_cpu, device, dtype) -> None:  # fmt: skip
    ours = scores(tiny_llama, tmp_path, requests_300, device=device, dtype=dtype)
    error = np.abs(ours - on_cpu)
    assert 1e-4 < np.max(error) < BF16_TOLERANCE  # bf16 arithmetic ran, and stayed within the bound


def test_scores_do_not_depend_on_batching_padding_or_order(tiny_llama, tmp_path, requests_300, device) -> None:
    reference = scores(tiny_llama, tmp_path, requests_300, device=device, batch_tokens=65536)
    order = list(range(len(requests_300)))
    random.Random(0).shuffle(order)
    variants = {
        "small batches": scores(tiny_llama, tmp_path, requests_300, device=device, batch_tokens=256),
        "one row per batch": scores(tiny_llama, tmp_path, requests_300, device=device, max_batch_size=1),
        "left padding": scores(tiny_llama, tmp_path, requests_300, device=device, padding_side="left"),
        "no prefix sharing": scores(tiny_llama, tmp_path, requests_300, device=device, share_prefix="never"),
        "shuffled": scores(tiny_llama, tmp_path, [requests_300[i] for i in order], device=device)[np.argsort(order)],
    }
    for name, variant in variants.items():
        assert np.max(np.abs(variant - reference)) < 1e-4, name


def test_a_batch_that_runs_out_of_device_memory_is_scored_in_halves(tiny_llama, tmp_path, requests_300, device, caplog) -> None:  # fmt: skip
    """On a GPU the memory is really short: the process may reserve only what scoring eight
    requests took (the weights, cuBLAS's workspace, one small batch's activations), and one
    batch of all requests needs far more (its float32 log-probabilities alone are ~0.6 GB); on
    a CPU the shortage is simulated (``test_gpu_levers.py``), so this checks the GPU alone."""
    if device == "cpu":
        pytest.skip("a real out-of-memory error needs a GPU; test_gpu_levers.py simulates one on the CPU")
    whole = scores(tiny_llama, tmp_path, requests_300, device=device, batch_tokens=2048)
    scorer = HFScorer(str(tiny_llama), cache_dir=tmp_path / "cache", device=device, batch_tokens=2**20)
    assert len(scorer.plan(requests_300)) <= 2, "one batch should hold (nearly) every request"
    index = torch.device(device).index or 0
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats(index)
    score_all(scorer, requests_300[:8])  # loads the weights, and measures what a small batch takes
    torch.cuda.synchronize(index)
    allowed = torch.cuda.max_memory_reserved(index) + 8 * 2**20
    torch.cuda.set_per_process_memory_fraction(allowed / torch.cuda.get_device_properties(index).total_memory, index)
    try:
        with caplog.at_level("DEBUG", logger="tailsplit"):
            halved = score_all(scorer, requests_300)
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0, index)
        torch.cuda.empty_cache()
    assert "ran out of memory" in caplog.text, "the batch fit: lower the allowance"
    assert np.max(np.abs(halved - whole)) < 1e-4
