"""Stage, in the checkout, what a GPU session's scripts need and the GPU machine lacks — before
the first call, so that no device time goes to it:

- ``.gpu/tokenizer/``: the bundled model's tokenizer files (from its converted folder in the
  tailsplit cache; converted first if this cache has none), the ``TOKENIZER_DIR`` of
  ``gpu_session.sh``;
- ``.whl/``: the pure-Python wheels of the packages the GPU image lacks (nltk, sqlglot, gguf,
  dill: at the versions installed here, without their dependencies, which the image has),
  installed there by ``gpu_setup.sh``.

Both are ignored by git (as the weights' pieces under ``.gpu/`` are: they travel one per call),
so each call names them in its carry (``.gpu/tokenizer``, ``.whl``: about 6 MiB). Then::

    python -m benchmarks.gpu.stage
    # on the GPU machine (the device tool's command, carrying .gpu/tokenizer and .whl):
    PART=1 TAILSPLIT_COMMIT=<commit> bash benchmarks/gpu/gpu_session.sh .gpu/tokenizer "$OUT"

The bundled weights for the evidence runs travel apart, in pieces (``benchmarks.gpu.weights``).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import shutil
import subprocess
import sys
from pathlib import Path

from benchmarks import harness

MISSING_THERE = ("nltk", "sqlglot", "gguf", "dill")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def stage_tokenizer(target: Path) -> list[Path]:
    from tailsplit.cache import default_cache_dir
    from tailsplit.scoring.models import BUNDLED, local_folder, resolve_model

    folder = local_folder(resolve_model(BUNDLED), default_cache_dir())
    target.mkdir(parents=True, exist_ok=True)
    copied = [shutil.copy(folder / name, target / name) for name in TOKENIZER_FILES if (folder / name).exists()]
    return [Path(p) for p in copied]


def stage_wheels(target: Path) -> list[Path]:
    target.mkdir(parents=True, exist_ok=True)
    pins = [f"{name}=={importlib.metadata.version(name)}" for name in MISSING_THERE]
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
         "--implementation", "py", "--abi", "none", "--platform", "any", "--dest", str(target), *pins],
        check=True,
    )  # fmt: skip
    return sorted(target.glob("*.whl"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokenizer", type=Path, default=harness.ROOT / ".gpu" / "tokenizer")
    parser.add_argument("--wheels", type=Path, default=harness.ROOT / ".whl")
    args = parser.parse_args()
    files = stage_tokenizer(args.tokenizer) + stage_wheels(args.wheels)
    for path in files:
        print(f"{path.relative_to(harness.ROOT)}  {path.stat().st_size / 2**20:.1f} MiB")
    print(f"in all {sum(p.stat().st_size for p in files) / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
