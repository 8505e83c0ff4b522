"""tailsplit's logger. The library only logs (``logging.getLogger("tailsplit")``); the CLI
decides where messages go and how many (``-v``/``-q``), so an application that imports
tailsplit keeps control of its own logging."""

from __future__ import annotations

import logging
import re
import sys
from typing import Any

logger = logging.getLogger("tailsplit")
logger.addHandler(logging.NullHandler())

# C0 and C1 control characters except tab and newline, and DEL: what terminals act on.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def inert(text: Any) -> str:
    """``text`` with control characters shown as escapes (``\\x1b``), so a label, id or path
    written to a terminal cannot move the cursor, retitle or clear it.

    >>> inert("red \\x1b[31m label")
    'red \\\\x1b[31m label'
    """
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))


_PREFIX = {logging.DEBUG: "debug", logging.INFO: "note", logging.WARNING: "warning", logging.ERROR: "error"}


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a message comes (a test runner swaps it)."""

    @property  # type: ignore[override]
    def stream(self):  # noqa: ANN201
        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:
        pass


class _Prefixed(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"{_PREFIX.get(record.levelno, record.levelname.lower())}: {inert(record.getMessage())}"


def configure(level: int = logging.INFO) -> None:
    """Send tailsplit's messages at ``level`` and above to stderr, one line each (replacing
    any handler an earlier call installed)."""
    for handler in [h for h in logger.handlers if getattr(h, "_tailsplit", False)]:
        logger.removeHandler(handler)
    handler = _Stderr()
    handler.setFormatter(_Prefixed())
    handler._tailsplit = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
