"""Membership scores (loss, zlib, Min-K%, Min-K%++) from the scoring passes themselves, each
equal to a reference written here from the authors' definitions — a plain forward pass of the
model over the text alone, ``log_softmax`` of the full logits, the scores as Min-K%++'s
``run.py`` computes them — to 1e-6; and the next-token moments the head computes beside the
targets, equal to those of the full distribution."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from tailsplit.errors import ConfigError
from tailsplit.scoring.membership import lowest_mean, membership_scores

TEXTS = [
    "A man plays a guitar on the street.",
    "Zebras calculate tax returns in the moonlight while singing.",
    "The cat sat.",
    "Two dogs run through a field of tall grass near an old barn.",
]


def reference_scores(model, tokenizer, text: str, k: float) -> dict[str, float]:
    """The authors' run.py, for one text: the model over the text's tokens (a start token
    first, as tailsplit scores a text alone), the scores larger for training data."""
    import torch

    ids = [tokenizer.bos_token_id, *tokenizer(text, add_special_tokens=False)["input_ids"]]
    input_ids = torch.tensor([ids])
    with torch.no_grad():
        logits = model(input_ids).logits[0, :-1].double()
    targets = input_ids[0, 1:]
    probs = torch.softmax(logits, -1)
    log_probs = torch.log_softmax(logits, -1)
    token_log_probs = log_probs.gather(-1, targets[:, None])[:, 0]
    mu = (probs * log_probs).sum(-1)
    sigma = (probs * torch.square(log_probs)).sum(-1) - torch.square(mu)
    ll = token_log_probs.mean().item()
    count = int(len(token_log_probs) * k)
    mink = np.sort(token_log_probs.numpy())[:count]
    plus = np.sort(((token_log_probs - mu) / sigma.sqrt()).numpy())[:count]
    return {
        "loss": ll,
        "zlib": ll / len(zlib.compress(bytes(text, "utf-8"))),
        "min_k": float(np.mean(mink)) if count else math.nan,
        "min_k_plus_plus": float(np.mean(plus)) if count else math.nan,
    }


def test_lowest_mean_takes_the_floor_of_n_k_tokens_and_at_least_one() -> None:
    values = np.array([-1.0, -4.0, -2.0, -8.0, -3.0])
    assert lowest_mean(values, 0.4) == -6.0  # floor(2.0) = 2: -8, -4
    assert lowest_mean(values, 1.0) == values.mean()
    assert lowest_mean(values, 0.1) == -8.0  # floor(0.5) = 0: the single lowest (a named departure)
    assert math.isnan(lowest_mean(values, 0.1, min_tokens=0))  # the authors' code: the mean of nothing
    assert math.isnan(lowest_mean(np.zeros(0), 0.5))


@pytest.mark.model
def test_every_score_equals_the_authors_definition(tiny_llama, tmp_path) -> None:
    torch = pytest.importorskip("torch")
    from transformers import AutoTokenizer, LlamaForCausalLM

    from tailsplit.scoring.base import ScoreRequest
    from tailsplit.scoring.driver import score_requests
    from tailsplit.scoring.hf import HFScorer

    scorer = HFScorer(str(tiny_llama), device="cpu", cache_dir=tmp_path, max_batch_size=2, head_moments=True)
    scored = score_requests([ScoreRequest("", t) for t in TEXTS], scorer, None, moments=True)
    assert scored.token_moments is not None and scored.report.n_scored_batches > 1
    ours = membership_scores(TEXTS, scored.token_logprobs, 0.2, scored.token_moments, min_tokens=0)
    model = LlamaForCausalLM.from_pretrained(tiny_llama, torch_dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_llama)
    for i, text in enumerate(TEXTS):
        expected = reference_scores(model, tokenizer, text, 0.2)
        for name, value in expected.items():
            if math.isnan(value):
                assert math.isnan(ours[name][i]), (text, name)
            else:
                assert abs(ours[name][i] - value) <= 1e-6 * max(1.0, abs(value)), (text, name, ours[name][i], value)


@pytest.mark.model
def test_the_head_gives_each_positions_moments_beside_the_same_targets(tiny_llama, tmp_path) -> None:
    torch = pytest.importorskip("torch")
    from tailsplit.scoring.head import VocabularyHead

    model = pytest.importorskip("transformers").LlamaForCausalLM.from_pretrained(tiny_llama).eval()
    hidden = torch.randn(37, model.config.hidden_size)
    targets = torch.randint(0, model.config.vocab_size, (37,))
    plain, with_moments = VocabularyHead(), VocabularyHead(moments=True)
    with torch.inference_mode():
        values = plain.target_logprobs(model, hidden, targets, "cpu")
        rows = with_moments.target_logprobs(model, hidden, targets, "cpu")
        logits = model.get_output_embeddings()(hidden).double()
    assert torch.equal(rows[0].float(), values)  # the targets' log-probabilities bit for bit
    log_probs = torch.log_softmax(logits, -1)
    mu = (log_probs.exp() * log_probs).sum(-1)
    var = (log_probs.exp() * log_probs.square()).sum(-1) - mu.square()
    np.testing.assert_allclose(rows[1].double().numpy(), mu.numpy(), rtol=0, atol=1e-4)
    np.testing.assert_allclose(rows[2].double().numpy(), var.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("k", [0, -5, 100.5, float("nan")])
def test_k_outside_0_to_100_is_refused(k) -> None:
    from tailsplit.config import check_values
    from tailsplit.config.run import ScoringConfig

    with pytest.raises(ConfigError, match="membership_k"):
        check_values(ScoringConfig(membership_k=k))


@pytest.mark.model
def test_the_score_file_holds_them_and_the_manifest_says_how(tiny_llama, tmp_path) -> None:
    import json

    import pyarrow.parquet as pq
    from typer.testing import CliRunner

    from tailsplit.cli import app

    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"id": f"t{i}", "text": t}) + "\n" for i, t in enumerate(TEXTS)))
    args = ["score", str(rows), "--model", str(tiny_llama), "--device", "cpu", "--cache-dir", str(tmp_path / "c")]
    result = CliRunner().invoke(app, [*args, "--membership-k", "20", "--out", str(tmp_path / "s.parquet")])
    assert result.exit_code == 0, result.output
    assert "no verdict is drawn" in result.output
    table = pq.read_table(tmp_path / "s.parquet")
    names = ["membership_loss", "membership_zlib", "membership_min_k", "membership_min_k_plus_plus"]
    assert [n for n in table.column_names if n.startswith("membership_")] == names
    assert "token_logprobs" not in table.column_names  # tokens kept for the scores, not written unless asked
    loss = table.column("membership_loss").to_numpy()
    np.testing.assert_allclose(loss, table.column("logprob_mean").to_numpy(), rtol=0, atol=1e-9)
    meta = json.loads(table.schema.metadata[b"tailsplit"])
    assert meta["membership"]["k_percent"] == 20 and meta["membership"]["columns"] == names
    again = CliRunner().invoke(app, [*args, "--membership-k", "20", "--out", str(tmp_path / "t.parquet")])
    assert again.exit_code == 0 and "loading the model" not in again.output  # every token and moment cached
    assert (
        pq.read_table(tmp_path / "t.parquet")
        .column("membership_min_k_plus_plus")
        .equals(table.column("membership_min_k_plus_plus"))
    )


def test_a_bad_k_is_one_line_before_any_model_loads(tmp_path) -> None:
    from typer.testing import CliRunner

    from tailsplit.cli import app

    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": "a", "text": "A man plays a guitar."}\n')
    for k, says in [("0", "above 0 and at most 100"), ("150", "above 0 and at most 100")]:
        result = CliRunner().invoke(
            app, ["score", str(rows), "--membership-k", k, "--out", str(tmp_path / "s.parquet")]
        )
        assert result.exit_code == 2 and says in result.output and len(result.output.strip().splitlines()) == 1
    ngram = CliRunner().invoke(
        app, ["score", str(rows), "--method", "ngram", "--membership-k", "20", "--out", str(tmp_path / "s.parquet")]
    )
    assert ngram.exit_code == 2 and "--membership-k=20.0 has an effect only with --method prompted" in ngram.output
    assert not (tmp_path / "s.parquet").exists()


@pytest.mark.model
def test_the_reference_ratio_is_the_mean_log_probability_less_the_reference_models(tiny_llama, tmp_path) -> None:
    """``membership_reference``: loss under the model minus loss under a second model (a tiny
    Llama of other weights), each the plain forward pass's mean; the model against itself is 0."""
    import json

    import pyarrow.parquet as pq
    from typer.testing import CliRunner

    torch = pytest.importorskip("torch")
    from transformers import AutoTokenizer, LlamaForCausalLM

    from tailsplit.cli import app

    other = tmp_path / "other-llama"
    model = LlamaForCausalLM.from_pretrained(tiny_llama)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.mul_(0.5)  # other weights, the same layout and tokenizer
    model.save_pretrained(other)
    AutoTokenizer.from_pretrained(tiny_llama).save_pretrained(other)

    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"id": f"t{i}", "text": t}) + "\n" for i, t in enumerate(TEXTS)))
    args = ["score", str(rows), "--model", str(tiny_llama), "--device", "cpu", "--cache-dir", str(tmp_path / "c"),
            "--membership-k", "20"]  # fmt: skip
    for reference, out in ((other, "a.parquet"), (tiny_llama, "b.parquet")):
        result = CliRunner().invoke(
            app, [*args, "--membership-reference", str(reference), "--out", str(tmp_path / out)]
        )
        assert result.exit_code == 0, result.output
    against_other = pq.read_table(tmp_path / "a.parquet").column("membership_reference").to_numpy()
    against_itself = pq.read_table(tmp_path / "b.parquet").column("membership_reference").to_numpy()
    assert np.max(np.abs(against_itself)) < 1e-6
    tokenizer = AutoTokenizer.from_pretrained(tiny_llama)
    target = LlamaForCausalLM.from_pretrained(tiny_llama).eval()
    for i, text in enumerate(TEXTS):
        expected = (
            reference_scores(target, tokenizer, text, 0.2)["loss"]
            - reference_scores(model.eval(), tokenizer, text, 0.2)["loss"]
        )
        assert abs(against_other[i] - expected) <= 1e-6 * max(1.0, abs(expected)), (text, against_other[i], expected)
    meta = json.loads(pq.read_table(tmp_path / "a.parquet").schema.metadata[b"tailsplit"])
    assert meta["membership"]["columns"][-1] == "membership_reference" and meta["membership"]["reference_model"]
    alone = CliRunner().invoke(
        app, ["score", str(rows), "--membership-reference", str(other), "--out", str(tmp_path / "x")]
    )
    assert alone.exit_code == 2 and "has an effect only with --membership-k" in alone.output


@pytest.mark.model
def test_membership_needs_a_head_that_gives_the_moments(tmp_path) -> None:
    """Asked of a scorer built without them, membership scores are refused before any model loads."""
    from tailsplit.core import FieldMap
    from tailsplit.errors import ScoringError
    from tailsplit.io import load_examples
    from tailsplit.prompts import BUILTIN_TEMPLATES
    from tailsplit.scoring.driver import score_examples
    from tailsplit.scoring.hf import HFScorer

    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": "a", "text": "A man plays a guitar."}\n')
    dataset = load_examples(rows, FieldMap(text="text"))
    scorer = HFScorer(device="cpu", cache_dir=tmp_path)
    with pytest.raises(ScoringError, match="head_moments=True"):
        score_examples(dataset, BUILTIN_TEMPLATES["plain"], scorer, None, membership_k=20)
    assert scorer._model is None
