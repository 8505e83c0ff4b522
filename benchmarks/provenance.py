"""What every benchmark's results file records about how it was made: the command that wrote
it, the date, the tailsplit version and the commit of the code (the documentation's
Performance page shows them beside the file)."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


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
    command = " ".join(["python", str(Path(sys.argv[0]).resolve().relative_to(ROOT)), *map(_relative, sys.argv[1:])])
    date = datetime.datetime.now(datetime.UTC).date().isoformat()
    return {**result, "provenance": {"command": command, "date": date, "tailsplit": __version__, "commit": commit}}


def _relative(argument: str) -> str:
    """An absolute path argument as the path from the working folder (no machine paths)."""
    return os.path.relpath(argument) if os.path.isabs(argument) else argument


def write_results(path: Path, result: dict[str, Any]) -> None:
    """The results file, with its provenance, as indented JSON."""
    Path(path).write_text(json.dumps(with_provenance(result), indent=2) + "\n", encoding="utf-8")
