"""A rich progress bar with rate and ETA on a terminal or in a notebook; without one (a cluster job's log), a
one-line status every :data:`STATUS_EVERY_S` seconds through tailsplit's logger; a no-op when
disabled (tests, quiet runs)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from tailsplit.log import logger

STATUS_EVERY_S = 30.0
CARRIAGE_EVERY_S = 0.5


class ProgressBar:
    """``with ProgressBar(True, total, "scoring", "tokens") as advance: advance(n)``."""

    def __init__(self, enabled: bool, total: int | None, label: str, unit: str) -> None:
        """``total=None``: a count without an end (entries of a corpus being read)."""
        self.enabled = enabled and (total is None or total > 0)
        self.total, self.label, self.unit = total, label, unit
        self._progress: Any = None

    def __enter__(self) -> Callable[[int], None]:
        if not self.enabled:
            return lambda n: None
        if not sys.stderr.isatty() and not in_notebook():
            return self._status_lines()
        if not sys.stderr.isatty() and not _has_widgets():
            return self._carriage_line()  # rich draws a notebook bar as a widget: ipywidgets
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.text import Text

        unit = self.unit

        class Rate(ProgressColumn):
            def render(self, task: Any) -> Text:
                return Text(f"{task.speed or 0:,.1f} {unit}/s")

        self._progress = Progress(
            TextColumn(self.label),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(unit),
            Rate(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        self._progress.start()
        task = self._progress.add_task(self.label, total=self.total)
        return lambda n: self._progress.advance(task, n)

    def _status_lines(self) -> Callable[[int], None]:

        started = last = time.perf_counter()
        done = 0

        def advance(n: int) -> None:
            nonlocal done, last
            done += n
            now = time.perf_counter()
            if self.total is None:
                if now - last >= STATUS_EVERY_S:
                    last = now
                    logger.info(
                        f"{self.label}: {done:,} {self.unit}, {done / max(now - started, 1e-9):,.1f} {self.unit}/s"
                    )
                return
            if now - last >= STATUS_EVERY_S or done >= self.total:
                last = now
                rate = done / max(now - started, 1e-9)
                eta = (self.total - done) / rate if rate > 0 else float("inf")
                logger.info(
                    f"{self.label}: {done:,}/{self.total:,} {self.unit} ({100 * done / self.total:.0f}%), "
                    f"{rate:,.1f} {self.unit}/s, ETA {_clock(eta)}"
                )

        return advance

    def _carriage_line(self) -> Callable[[int], None]:
        """One status line on stderr, rewritten in place (a notebook shows the last)."""
        started = last = time.perf_counter()
        done = 0

        def advance(n: int) -> None:
            nonlocal done, last
            done += n
            now = time.perf_counter()
            if now - last >= CARRIAGE_EVERY_S or (self.total is not None and done >= self.total):
                last = now
                rate = done / max(now - started, 1e-9)
                of = "" if self.total is None else f"/{self.total:,}"
                share = "" if self.total is None else f" ({100 * done / self.total:.0f}%)"
                sys.stderr.write(f"\r{self.label}: {done:,}{of} {self.unit}{share}, {rate:,.1f} {self.unit}/s")
                sys.stderr.flush()
                self._ended_line = True

        return advance

    def __exit__(self, *exc: object) -> None:
        if getattr(self, "_ended_line", False):
            sys.stderr.write("\n")
        if self._progress is not None:
            self._progress.stop()


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (rich draws its bar there as a widget)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return type(shell).__name__ == "ZMQInteractiveShell"


def _has_widgets() -> bool:
    import importlib.util

    return importlib.util.find_spec("ipywidgets") is not None


def watched() -> bool:
    """Whether a person is likely watching: a terminal on stderr, or a notebook."""
    return sys.stderr.isatty() or in_notebook()


def _clock(seconds: float) -> str:
    """``h:mm:ss``.

    >>> _clock(3725.4)
    '1:02:05'
    """
    if seconds == float("inf"):
        return "?"
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
