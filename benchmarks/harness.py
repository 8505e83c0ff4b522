"""What every benchmark shares: its command-line preamble, timing in rounds, and the results
file with its provenance — the command that wrote it, the date, the tailsplit version and the
commit of the code (the documentation shows them beside every table it fills from the file).

Benchmarks run as modules from the repository root, grouped by what they measure::

    python -m benchmarks.speed.bench_scoring --n 600 --repeats 3      # speed/: against a baseline
    python -m benchmarks.fidelity.fidelity_tokens ../shared/data     # fidelity/: exactness
    python -m benchmarks.evidence.snli_splits --data-dir ../shared/data  # evidence/: the findings
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
SNLI_SAMPLE = ROOT / "examples" / "data" / "snli_dev_3000.jsonl.gz"  # the bundled 3,000 SNLI dev pairs


def sample_rows(limit: int | None = None) -> list[dict[str, Any]]:
    """The bundled SNLI sample's records, the first ``limit`` of them when given."""
    with gzip.open(SNLI_SAMPLE, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in itertools.islice(lines, limit)]


T = TypeVar("T")


def parser(
    doc: str | None, results: str | None = "write the measurements to this results file"
) -> argparse.ArgumentParser:
    """The argument parser every benchmark starts from: its docstring as the help (usage
    included, as written), and ``--json FILE`` for its results file (``results``: the option's
    help; ``None`` for a script that writes no results file)."""
    made = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    if results is not None:
        made.add_argument("--json", type=Path, help=results)
    return made


def alternating(round_: int, items: Sequence[T]) -> Sequence[T]:
    """``items`` in order in even rounds and reversed in odd ones, so that neither end of a
    round (a warmer or a busier machine) favours one contender."""
    return items if round_ % 2 == 0 else items[::-1]


def in_rounds(contenders: dict[str, Callable[[], T]], rounds: int) -> tuple[dict[str, list[float]], dict[str, T]]:
    """Every contender timed once per round, the order turned each round (:func:`alternating`).
    Returns the seconds of each contender per round and its last result."""
    seconds: dict[str, list[float]] = {name: [] for name in contenders}
    results: dict[str, T] = {}
    for round_ in range(rounds):
        for name in alternating(round_, list(contenders)):
            started = time.perf_counter()
            results[name] = contenders[name]()
            seconds[name].append(time.perf_counter() - started)
    return seconds, results


def command_line() -> str:
    """The command that is running, as typed from the repository root: ``python -m MODULE``
    for a benchmark run as a module, paths relative to the working folder (no machine paths)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name:
        program = ["python", "-m", spec.name]
    else:
        program = ["python", os.path.relpath(Path(sys.argv[0]).resolve(), ROOT)]
    return " ".join([*program, *map(_relative, sys.argv[1:])])


def with_provenance(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with a ``provenance`` entry: command, UTC date, tailsplit version, commit (the
    ``TAILSPLIT_COMMIT`` environment variable where set: a copy on a GPU machine may carry a
    stale or no .git; else from git; else null)."""
    from tailsplit import __version__

    commit = os.environ.get("TAILSPLIT_COMMIT")
    if not commit:
        try:
            commit = subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            commit = None
    date = datetime.datetime.now(datetime.UTC).date().isoformat()
    return {
        **result,
        "provenance": {"command": command_line(), "date": date, "tailsplit": __version__, "commit": commit},
    }


def machine() -> str:
    """The CPU a timing ran on, in words: architecture, model, torch threads, whether it has
    bfloat16 instructions (AVX-512 BF16 or AMX; without them bfloat16 is emulated), torch's
    version. Machines of one type differ from run to run; a ratio is compared only within one."""
    import platform

    import torch

    model = next(
        (line.split(":", 1)[1].strip() for line in _cpuinfo().splitlines() if line.startswith("model name")), "?"
    )
    checks = [getattr(torch.cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")]
    bf16 = any(check() for check in checks if callable(check))
    return (
        f"{platform.machine()} {model}, {torch.get_num_threads()} torch threads, "
        f"bfloat16 instructions: {'yes' if bf16 else 'no'}, torch {torch.__version__}"
    )


def _cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return ""


def _relative(argument: str) -> str:
    """An absolute path argument as the path from the working folder (no machine paths)."""
    return os.path.relpath(argument) if os.path.isabs(argument) else argument


def write_results(path: Path, result: dict[str, Any]) -> None:
    """The results file, with its provenance, as indented JSON."""
    Path(path).write_text(json.dumps(with_provenance(result), indent=2) + "\n", encoding="utf-8")
