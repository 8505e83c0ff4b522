"""The ``tailsplit`` command: ``score``, ``split``, ``run``, ``analyze`` (:mod:`.run`), ``overlap``,
``similarity``, ``ood-rank``, ``correlate``, ``curve`` (:mod:`.shift`), ``evaluate``, ``explore`` and ``export``.

Every error the library raises on purpose is printed as its message (no traceback) and the
command exits with status 2 (:mod:`.app`).
"""

from __future__ import annotations

# Each module registers its commands, in the order --help lists them.
# isort: off
from tailsplit.cli import run  # noqa: F401
from tailsplit.cli import overlap  # noqa: F401
from tailsplit.cli import shift  # noqa: F401
from tailsplit.cli import evaluate  # noqa: F401
from tailsplit.cli import explore  # noqa: F401
from tailsplit.cli import export  # noqa: F401
from tailsplit.cli.app import app, usable_columns
from tailsplit.cli.threads import set_wait_policy
# isort: on

__all__ = ["app", "main"]


def main() -> None:
    set_wait_policy()  # read by OpenMP when torch loads, later in the command
    usable_columns()  # before the root's own --help is drawn
    app()
