"""The ``tailsplit`` command: ``score``, ``split``, ``run``, ``analyze`` (:mod:`.run`), ``overlap``,
``similarity``, ``ood-rank``, ``correlate``, ``curve`` (:mod:`.shift`), ``evaluate`` and ``export``.

Every error the library raises on purpose is printed as its message (no traceback) and the
command exits with status 2 (:mod:`.app`).
"""

from __future__ import annotations

import os

# Each module registers its commands, in the order --help lists them.
# isort: off
from tailsplit.cli import run  # noqa: F401
from tailsplit.cli import overlap  # noqa: F401
from tailsplit.cli import shift  # noqa: F401
from tailsplit.cli import evaluate  # noqa: F401
from tailsplit.cli import export  # noqa: F401
from tailsplit.cli.app import app
# isort: on

__all__ = ["app", "main"]


def main() -> None:
    # OpenMP reads this when torch loads (lazily, later in the command): idle threads sleep
    # instead of spinning, which keeps a 2-core machine responsive during tokenising.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    app()
