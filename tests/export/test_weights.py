"""``tailsplit export weights``: the bundled model's float32 weights rebuilt from the packages are
the same bytes in any fresh cache — the digest an lm-eval task's README gives — so a colleague
rebuilds the weights a split was scored with instead of copying a 517 MB folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import tailsplit
from tailsplit.cli import app
from tailsplit.fingerprint import sha256_file
from tailsplit.scoring.models import weights_digest


@pytest.mark.slow
@pytest.mark.model
def test_the_bundled_weights_rebuild_to_the_same_bytes_in_two_fresh_caches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path
) -> None:
    digests = []
    for i in (1, 2):
        monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(tmp_path / f"fresh-cache-{i}"))
        written = tailsplit.export_weights(tmp_path / f"weights-{i}")
        assert sha256_file(tmp_path / f"weights-{i}" / "model.safetensors") == written.content["weights_sha256"]
        digests.append(written.content["weights_sha256"])
        for name in ("config.json", "tokenizer.json"):
            assert (tmp_path / f"weights-{i}" / name).is_file()
    (converted,) = (model_cache / "models").iterdir()  # the copy the test run's scores were made with
    assert digests[0] == digests[1] == weights_digest(converted)


def test_export_weights_refuses_before_converting(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["export", "weights"])
    assert result.exit_code == 2 and "export weights needs --out FOLDER" in result.output
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("x")
    result = CliRunner().invoke(app, ["export", "weights", "--out", str(tmp_path / "full")])
    assert result.exit_code == 2 and "already exists and is not empty" in result.output
