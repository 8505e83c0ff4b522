"""Library calls leave the process as they found it: torch's random state, transformers' logging."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.model
torch = pytest.importorskip("torch")


def test_forked_rng_restores_the_callers_random_state() -> None:
    from tailsplit.torch_state import forked_torch_rng

    torch.manual_seed(123)
    expected = torch.rand(4)
    torch.manual_seed(123)
    with forked_torch_rng(5):
        inside = torch.rand(2)
    assert torch.equal(torch.rand(4), expected)
    with forked_torch_rng(5):
        assert torch.equal(torch.rand(2), inside)  # seeded inside: reproducible


def test_quiet_transformers_restores_logging() -> None:
    from transformers.utils import logging as hf_logging

    from tailsplit.torch_state import quiet_transformers

    hf_logging.set_verbosity_info()
    hf_logging.enable_progress_bar()
    with quiet_transformers():
        assert hf_logging.get_verbosity() == hf_logging.ERROR and not hf_logging.is_progress_bar_enabled()
    assert hf_logging.get_verbosity() == hf_logging.INFO and hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_warning()


def test_training_the_encoder_baseline_leaves_torch_random_state_alone() -> None:
    from tailsplit.evaluation.encoder import EncoderRecipe, default_encoder_location, finetune_encoder

    columns = [["a dog runs in the park", "two men are cooking", "a child sleeps", "the sun is out"]] * 2
    labels = ["yes", "no", "yes", "no"]
    torch.manual_seed(7)
    expected = torch.rand(3)
    torch.manual_seed(7)
    finetune_encoder(
        columns,
        labels,
        columns,
        labels,
        columns,
        labels,
        location=default_encoder_location(),
        recipe=EncoderRecipe(max_steps=1, batch_size=2, seed=3),
    )
    assert torch.equal(torch.rand(3), expected)
