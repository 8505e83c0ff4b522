"""``make install`` picks the torch build for the machine (``scripts/install_torch.sh``): the CPU
build from PyTorch's CPU index where no NVIDIA GPU answers, PyPI's build where that index
cannot be reached, PyPI's CUDA build on a GPU machine. Driven here with a stand-in python that
records each pip call (and fails the CPU index's when told to), and a stand-in nvidia-smi."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import ROOT_DIR

SCRIPT = ROOT_DIR / "scripts" / "install_torch.sh"


def calls(tmp_path: Path, *, gpu: bool, index_reachable: bool) -> tuple[list[str], str]:
    """The pip calls the script makes, and what it said."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    python = bin_dir / "python"
    python.write_text(
        f'#!/bin/sh\necho "$*" >> "{log}"\ncase "$*" in *+cpu*) exit {0 if index_reachable else 1};; esac\nexit 0\n',
        encoding="utf-8",
    )
    python.chmod(0o755)
    if gpu:
        smi = bin_dir / "nvidia-smi"
        smi.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        smi.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "TORCH_CPU_INDEX": "https://cpu.example/whl"}
    done = subprocess.run(
        ["sh", str(SCRIPT), str(python), "2.13.0"], capture_output=True, text=True, env=env, timeout=60, check=True
    )
    return log.read_text(encoding="utf-8").splitlines(), done.stdout


@pytest.mark.skipif(os.name != "posix", reason="a POSIX shell script")
def test_a_machine_without_a_gpu_gets_the_cpu_build(tmp_path: Path) -> None:
    made, said = calls(tmp_path, gpu=False, index_reachable=True)
    assert made == ["-m pip install --quiet --timeout 20 --retries 1 --extra-index-url https://cpu.example/whl "
                    "torch==2.13.0+cpu"]  # fmt: skip
    assert "no NVIDIA GPU" in said


@pytest.mark.skipif(os.name != "posix", reason="a POSIX shell script")
def test_where_only_pypi_answers_the_cpu_machine_takes_pypis_torch(tmp_path: Path) -> None:
    made, said = calls(tmp_path, gpu=False, index_reachable=False)
    assert (
        len(made) == 2 and made[0].endswith("torch==2.13.0+cpu") and made[1] == "-m pip install --quiet torch==2.13.0"
    )
    assert "cannot be reached" in said


@pytest.mark.skipif(os.name != "posix", reason="a POSIX shell script")
def test_a_gpu_machine_gets_pypis_cuda_build(tmp_path: Path) -> None:
    made, said = calls(tmp_path, gpu=True, index_reachable=True)
    assert made == ["-m pip install --quiet torch==2.13.0"] and "an NVIDIA GPU" in said


def test_the_makefile_installs_torch_through_the_script() -> None:
    makefile = (ROOT_DIR / "Makefile").read_text(encoding="utf-8")
    assert "sh scripts/install_torch.sh $(PY) $(TORCH_VERSION)" in makefile and '"torch==' not in makefile
