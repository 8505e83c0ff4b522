#!/bin/sh
# Install torch into the environment of the python given ($1), version $2:
#  - a machine without an NVIDIA GPU gets the CPU build, from PyTorch's CPU index (PyPI's torch
#    is the multi-GB CUDA build), or from PyPI where that index cannot be reached;
#  - a machine with one (nvidia-smi answers) gets PyPI's CUDA build.
# TORCH_CPU_INDEX names another CPU index (a mirror).
set -eu
python=$1
version=$2
index=${TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then
  echo "install_torch: an NVIDIA GPU: torch==$version (PyPI's CUDA build)"
  exec "$python" -m pip install --quiet "torch==$version"
fi
echo "install_torch: no NVIDIA GPU: torch==$version+cpu (the CPU build)"
if "$python" -m pip install --quiet --timeout 20 --retries 1 --extra-index-url "$index" "torch==$version+cpu"; then
  exit 0
fi
echo "install_torch: the CPU index cannot be reached: torch==$version from PyPI (a larger download)"
exec "$python" -m pip install --quiet "torch==$version"
