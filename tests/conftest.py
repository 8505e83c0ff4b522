"""Shared test helpers: a fake scorer (score = −length) so split logic runs without torch,
and the invariant checker every splitter must pass."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tailsplit.core import SplitIndices
from tailsplit.registry import SCORERS
from tailsplit.scoring.base import Batch, BatchScores, ScoreRequest

FIXTURES = Path(__file__).parent / "fixtures"
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
    """A cache folder holding the converted bundled model, made once per test session."""
    from tailsplit.scoring.hf import HFScorer

    folder = tmp_path_factory.mktemp("model-cache")
    assert HFScorer(cache_dir=folder).folder.is_dir()  # converted once, here
    return folder


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
