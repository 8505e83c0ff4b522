"""A rich progress bar with rate and ETA on a terminal (or in a notebook with ipywidgets); in a
notebook without them, one status line rewritten in place; elsewhere (a cluster job's log), a
status line every :data:`STATUS_EVERY_S` seconds through tailsplit's logger; a no-op when
disabled (tests, quiet runs).

A command that trains, fits or embeds turns progress on for everything it calls
(:func:`shown`); the long steps deep inside — an encoder's training steps, a task model's
checkpoints, each baseline — report through :func:`steps` and :func:`say`, so no command is
silent for more than a few seconds without each layer passing a flag down."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from tailsplit.log import inert, logger

STATUS_EVERY_S = 10.0
CARRIAGE_EVERY_S = 0.5


# When progress last said something (a status line or an announcement): a bar's first status
# line comes that long after it, not a whole interval after the bar starts.
_LAST_LINE = [0.0]


class ProgressBar:
    """``with ProgressBar(True, total, "scoring", "tokens") as advance: advance(n)``. In a log
    a bar inside another writes its own status lines (a dev check's predictions inside a
    training bar); where the bar is drawn live, one opened while another is drawn stays quiet,
    the outer one speaking for both (a rich before nested live displays refuses a second)."""

    live_bars = 0  # bars drawn live now, in this process

    def __init__(self, enabled: bool, total: int | None, label: str, unit: str) -> None:
        """``total=None``: a count without an end (entries of a corpus being read)."""
        self.enabled = enabled and (total is None or total > 0)
        self.total, self.label, self.unit = total, label, unit
        self._progress: Any = None
        self._line_open = False  # a status line written in place, to end with a newline

    def __enter__(self) -> Callable[[int], None]:
        if not self.enabled:
            return lambda n: None
        if not sys.stderr.isatty():
            if not in_notebook():
                return self._status_lines()
            if not _has_widgets():  # rich draws its notebook bar as an ipywidgets widget
                return self._carriage_line()
        if ProgressBar.live_bars:
            self.enabled = False
            return lambda n: None
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.text import Text

        unit = self.unit

        class Rate(ProgressColumn):
            """The mean rate since the start: there from the first finished batch on (rich's own
            speed needs two updates within its window, and reads 0.0 until then)."""

            def render(self, task: Any) -> Text:
                return Text(rate_text(task.completed, task.elapsed, unit))

        class Remaining(ProgressColumn):
            def render(self, task: Any) -> Text:
                return Text(eta_text(task.total, task.completed, task.elapsed))

        self._progress = Progress(
            TextColumn(self.label),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(unit),
            Rate(),
            TimeElapsedColumn(),
            Remaining(),
        )
        self._progress.start()
        ProgressBar.live_bars += 1
        task = self._progress.add_task(self.label, total=self.total)
        return lambda n: self._progress.advance(task, n)

    def _every(self, seconds: float, emit: Callable[[str], None]) -> Callable[[int], None]:
        """An ``advance`` that emits the status (count, share, rate, ETA) every ``seconds``
        and when the total is reached."""
        started = time.perf_counter()
        last = min(started, _LAST_LINE[0])  # counted from the last line said (a model's load before the bar)
        done = 0

        def advance(n: int) -> None:
            nonlocal done, last
            done += n
            now = time.perf_counter()
            if now - last >= seconds or (self.total is not None and done >= self.total):
                last = _LAST_LINE[0] = now
                emit(self._status(done, done / max(now - started, 1e-9)))

        return advance

    def _status(self, done: int, rate: float) -> str:
        """``scoring: 1,420/1,647 tokens (86%), 334.9 tokens/s, ETA 0:00:01``."""
        if self.total is None:
            return f"{self.label}: {done:,} {self.unit}, {rate:,.1f} {self.unit}/s"
        eta = (self.total - done) / rate if rate > 0 else float("inf")
        return (
            f"{self.label}: {done:,}/{self.total:,} {self.unit} ({100 * done / self.total:.0f}%), "
            f"{rate:,.1f} {self.unit}/s, ETA {_clock(eta)}"
        )

    def _status_lines(self) -> Callable[[int], None]:
        """A status line in tailsplit's log every :data:`STATUS_EVERY_S` seconds."""
        return self._every(STATUS_EVERY_S, logger.info)

    def _carriage_line(self) -> Callable[[int], None]:
        """One status line on stderr, rewritten in place (a notebook shows the last)."""

        def rewrite(status: str) -> None:
            sys.stderr.write(f"\r{status}")
            sys.stderr.flush()
            self._line_open = True

        return self._every(CARRIAGE_EVERY_S, rewrite)

    def __exit__(self, *exc: object) -> None:
        if self._line_open:
            sys.stderr.write("\n")
        if self._progress is not None:
            self._progress.stop()
            ProgressBar.live_bars -= 1


def average_rate(done: float, elapsed: float | None) -> float | None:
    """Units per second since the start, once anything is done.

    >>> average_rate(0, 3.0), average_rate(120, 2.0), average_rate(5, None)
    (None, 60.0, None)
    """
    return done / elapsed if done and elapsed else None


def rate_text(done: float, elapsed: float | None, unit: str) -> str:
    """The bar's rate, from the first finished batch on.

    >>> rate_text(0, 1.5, "tokens"), rate_text(1200, 2.0, "tokens")
    ('–', '600.0 tokens/s')
    """
    rate = average_rate(done, elapsed)
    return "–" if rate is None else f"{rate:,.1f} {unit}/s"


def eta_text(total: float | None, done: float, elapsed: float | None) -> str:
    """The bar's time left, from the first finished batch on.

    >>> eta_text(1000, 0, 0.4), eta_text(1000, 250, 10.0), eta_text(None, 5, 1.0)
    ('ETA –', 'ETA 0:00:30', 'ETA –')
    """
    rate = average_rate(done, elapsed)
    if rate is None or total is None:
        return "ETA –"
    return f"ETA {_clock((total - done) / rate)}"


def announce(enabled: bool, text: str) -> None:
    """Say at once what a long step is about to do (what it loads, what it will work on): on
    stderr where a person watches (a terminal, a notebook), in tailsplit's log elsewhere."""
    if not enabled:
        return
    _LAST_LINE[0] = time.perf_counter()
    if watched():
        sys.stderr.write(inert(text) + "\n")
        sys.stderr.flush()
    else:
        logger.info(text)


_SHOWN: ContextVar[bool] = ContextVar("tailsplit_progress_shown", default=False)


@contextmanager
def shown(enabled: bool) -> Iterator[None]:
    """Progress of the long steps the body runs (:func:`steps`, :func:`say`) shown or not."""
    token = _SHOWN.set(enabled)
    try:
        yield
    finally:
        _SHOWN.reset(token)


def steps(total: int | None, label: str, unit: str) -> ProgressBar:
    """A progress bar of a long step, shown when the command running it shows progress.

    >>> with steps(3, "training", "steps") as advance:  # nothing shown outside a command
    ...     advance(1)
    """
    return ProgressBar(_SHOWN.get(), total, label, unit)


def showing() -> bool:
    """Whether the command running now shows progress."""
    return _SHOWN.get()


def say(text: str) -> None:
    """Say what a long step is about to do, when the command running it shows progress."""
    announce(_SHOWN.get(), text)


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
