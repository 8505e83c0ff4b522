"""The vocabulary head on a CPU: ``logit − logsumexp`` to the bit, chunk after chunk in one
kept buffer, with or without a bias and logit soft-capping, and differentiable when trained."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")
head_module = pytest.importorskip("tailsplit.scoring.head")


class _Model:
    """What the head reads of a model: its output layer and ``final_logit_softcapping``."""

    def __init__(self, layer: torch.nn.Linear, softcap: float | None) -> None:
        self.layer = layer
        self.config = SimpleNamespace(final_logit_softcapping=softcap)

    def get_output_embeddings(self) -> torch.nn.Linear:
        return self.layer


def _reference(model: _Model, hidden: torch.Tensor, targets: torch.Tensor, rows: int) -> torch.Tensor:
    """The textbook computation, out of place, ``rows`` at a time: logits, soft-capping,
    logit − logsumexp."""
    pieces = []
    for start in range(0, len(hidden), rows):
        logits = model.layer(hidden[start : start + rows])
        softcap = model.config.final_logit_softcapping
        if softcap:
            logits = torch.tanh(logits / softcap) * softcap
        picked = logits.gather(1, targets[start : start + rows, None])[:, 0]
        pieces.append(picked - torch.logsumexp(logits, 1))
    return torch.cat(pieces)


@pytest.mark.parametrize(("bias", "softcap"), [(False, None), (True, None), (False, 30.0)])
def test_cpu_head_equals_logsumexp_to_the_bit_in_one_kept_buffer(monkeypatch, bias, softcap) -> None:
    monkeypatch.setitem(head_module.PROJECTION_ELEMENTS, "cpu", 40 * 1000)  # chunks of 40 rows
    generator = torch.Generator().manual_seed(3)
    layer = torch.nn.Linear(16, 1000, bias=bias)
    torch.nn.init.normal_(layer.weight, std=2.0, generator=generator)  # logits spread over tens of nats
    model = _Model(layer, softcap)
    hidden = torch.randn(130, 16, generator=generator)  # three whole chunks and a part
    targets = torch.randint(0, 1000, (130,), generator=generator)
    head = head_module.VocabularyHead()
    with torch.inference_mode():
        expected = _reference(model, hidden, targets, 40)
        first = head.target_logprobs(model, hidden, targets, "cpu")
        buffer = head.buffer
        again = head.target_logprobs(model, hidden[:50], targets[:50], "cpu")
        expected_again = _reference(model, hidden[:50], targets[:50], 40)
    assert torch.equal(first, expected) and torch.equal(again, expected_again)
    assert head.buffer is buffer and tuple(buffer.shape) == (40, 1000)  # one buffer for every chunk and call


def test_a_trained_head_keeps_its_graph() -> None:
    generator = torch.Generator().manual_seed(4)
    model = _Model(torch.nn.Linear(8, 50, bias=False), None)
    hidden = torch.randn(7, 8, generator=generator)
    targets = torch.randint(0, 50, (7,), generator=generator)
    head = head_module.VocabularyHead()
    logprobs = head.target_logprobs(model, hidden, targets, "cpu")
    assert torch.equal(logprobs, _reference(model, hidden, targets, 7)) and head.buffer is None
    logprobs.sum().backward()
    assert model.layer.weight.grad is not None and torch.isfinite(model.layer.weight.grad).all()
