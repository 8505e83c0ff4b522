"""tailsplit's logger. The library only logs (``logging.getLogger("tailsplit")``); the CLI
decides where messages go and how many (``-v``/``-q``), so an application that imports
tailsplit keeps control of its own logging."""

from __future__ import annotations

import logging
import sys

logger = logging.getLogger("tailsplit")
logger.addHandler(logging.NullHandler())

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
        return f"{_PREFIX.get(record.levelno, record.levelname.lower())}: {record.getMessage()}"


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
