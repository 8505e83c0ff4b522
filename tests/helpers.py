"""Shared test helpers, imported by name (``from helpers import ...``): a fake scorer (score =
−length) so split logic runs without torch, the invariant checker every splitter must pass,
small data, the bundled sample and tokenizer, external tools (Chromium), and the docs' code
blocks. Fixtures are in ``conftest.py``."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tailsplit.core import SplitIndices
from tailsplit.programs import ProgramFeatures, SparseSets
from tailsplit.scoring.base import Batch, BatchScores, ScoreRequest
from tailsplit.splits import SplitInputs

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


def link_converted_models(shared_cache: Path, cache: Path) -> None:
    """``cache``'s converted models as symbolic links to those of ``shared_cache``. Symbolic,
    not hard links: a hard link changes the file's change time, and a converted model whose
    file times differ from its record is hashed again (a second per use of the 540 MB copy)."""
    import shutil

    shutil.copytree(shared_cache / "models", cache / "models", copy_function=os.symlink)


TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def bundled_tokenizer(request: pytest.FixtureRequest) -> Path:
    """The bundled model's tokenizer: from the converted model, or from the folder that
    ``TAILSPLIT_TEST_TOKENIZER`` names (a GPU machine without the bundled model's package)."""
    if folder := os.environ.get("TAILSPLIT_TEST_TOKENIZER"):
        return Path(folder)
    from tailsplit.scoring.hf import HFScorer

    return HFScorer(cache_dir=request.getfixturevalue("model_cache")).folder


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


EXPLORE_HOSTILE = '</script><img src=x onerror="window.pwned=1"> & <b>bold</b>'
EXPLORE_LABELS = ("entailment", "neutral", "contradiction")


def explore_examples(n: int = 60) -> list[dict]:
    rows = [
        {"id": f"e{i}", "premise": f"A person number {i // 3} stands outside.", "hypothesis": f"Someone {i} waits for a bus.",
         "label": EXPLORE_LABELS[i % 3]}
        for i in range(n)
    ]  # fmt: skip
    rows[7]["hypothesis"] = EXPLORE_HOSTILE
    return rows


def explore_token_scores(rows: list[dict], seed: int = 0) -> tuple[list[list[str]], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    pieces = [[w if j == 0 else " " + w for j, w in enumerate(r["hypothesis"].split(" "))] for r in rows]
    return pieces, [(-rng.gamma(2.0, 2.0, len(p))).astype(np.float32) for p in pieces]


def invoke(args: list[Any]) -> Any:
    """The command line run in this process, every argument as text."""
    from typer.testing import CliRunner

    from tailsplit.cli import app

    return CliRunner().invoke(app, [str(a) for a in args])


def explore_folders(root: Path) -> dict[str, Path]:
    """A likelihood split (of :func:`explore_examples`) whose score file kept its tokens, and a
    random split of the same data, in ``root``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = explore_examples()
    data = write_jsonl(root / "data.jsonl", rows)
    pieces, values = explore_token_scores(rows)
    table = {
        "id": [r["id"] for r in rows],
        "logprob_sum": [float(np.sum(v, dtype=np.float64)) for v in values],
        "n_tokens": [len(p) for p in pieces],
        "token_pieces": pieces,
        "token_logprobs": [v.tolist() for v in values],
        "membership_min_k": [float(np.sort(v)[0]) for v in values],  # as --membership-k writes its columns
    }
    pq.write_table(pa.table(table), root / "scores.parquet")
    common = [data, "--text", "hypothesis", "--context", "premise", "--label", "label", "--no-analyze"]
    assert invoke(["split", *common, "--scores", root / "scores.parquet", "--out", root / "ll"]).exit_code == 0
    assert invoke(["split", *common, "--splitter", "random", "--out", root / "rnd"]).exit_code == 0
    return {"root": root, "ll": root / "ll", "rnd": root / "rnd", "data": data}
