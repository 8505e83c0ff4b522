"""A rich progress bar with rate and ETA, or a no-op when disabled (tests, quiet runs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class ProgressBar:
    """``with ProgressBar(True, total, "scoring", "tokens") as advance: advance(n)``."""

    def __init__(self, enabled: bool, total: int, label: str, unit: str) -> None:
        self.enabled = enabled and total > 0
        self.total, self.label, self.unit = total, label, unit
        self._progress: Any = None

    def __enter__(self) -> Callable[[int], None]:
        if not self.enabled:
            return lambda n: None
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

        self._progress = Progress(TextColumn(self.label), BarColumn(), MofNCompleteColumn(), TextColumn(unit),
                                  Rate(), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
        self._progress.start()
        task = self._progress.add_task(self.label, total=self.total)
        return lambda n: self._progress.advance(task, n)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
