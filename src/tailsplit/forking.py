"""Work on every usable core through forked processes that inherit this process' memory.

A task is set here before the fork, so the workers find it (and the data it reads) in their
copy of the parent's memory: only chunk bounds or items go to a worker and only results
come back. Where processes cannot fork (Windows), everything runs in this process.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

_TASK: Callable[..., Any] | None = None
# The most processes one piece of work is spread over: each holds its own chunk's arrays, so
# memory grows with them (16: the most cores a run of the benchmarks has, the GPU machine's).
MAX_WORKERS = 16


def usable_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def workers_for(size: int, minimum: int) -> int:
    """Processes for ``size`` units of work: the usable cores (at most :data:`MAX_WORKERS`) when
    ``size`` reaches ``minimum``, below which a second process costs more than it saves; else 1.

    >>> workers_for(10, 100)
    1
    """
    return min(usable_cores(), MAX_WORKERS) if size >= minimum else 1


def can_fork() -> bool:
    """Whether work may go to forked processes: where the platform forks, and not from a
    daemonic process (a worker of a caller's own pool), which may not have children."""
    return "fork" in multiprocessing.get_all_start_methods() and not multiprocessing.current_process().daemon


def _run(*args: Any) -> Any:
    assert _TASK is not None
    return _TASK(*args)


def _run_bounds(bounds: tuple[int, int]) -> Any:
    return _run(*bounds)


@contextlib.contextmanager
def _pool(processes: int) -> Iterator[Any]:
    """A pool of forked processes that is closed and joined when its work is done, and
    terminated only when the work failed. (``with Pool()`` terminates it either way: SIGTERM to
    a worker still starting runs the Python handler it inherited — Ray's exits, the command
    line's raises — before multiprocessing can catch it, and the worker ran on into its
    parent's code, which then waited on it for good.)"""
    pool = multiprocessing.get_context("fork").Pool(processes)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        raise
    else:
        pool.close()
    finally:
        pool.join()


def on_cores(task: Callable[[int, int], T], size: int, *, workers: int) -> list[T]:
    """``task(start, stop)`` for ``workers`` contiguous chunks of ``range(size)``: the first
    chunk in this process while forked processes do the others; the results in chunk order.

    >>> on_cores(lambda start, stop: list(range(start, stop)), 5, workers=2)
    [[0, 1, 2], [3, 4]]
    """
    global _TASK
    chunk = -(-size // max(workers, 1)) if size else 1
    bounds = [(start, min(start + chunk, size)) for start in range(0, size, chunk)] or [(0, 0)]
    if len(bounds) == 1 or not can_fork():
        return [task(a, b) for a, b in bounds]
    _TASK = task
    try:
        with _pool(len(bounds) - 1) as pool:
            others = pool.map_async(_run_bounds, bounds[1:])
            first = task(*bounds[0])
            return [first, *others.get()]
    finally:
        _TASK = None


def map_forked(task: Callable[[Any], T], items: Sequence[Any], *, workers: int) -> list[T]:
    """``[task(item) for item in items]`` on ``workers`` forked processes, each taking the
    next item when it is free (for items of uneven cost)."""
    global _TASK
    if workers < 2 or len(items) < 2 or not can_fork():
        return [task(item) for item in items]
    _TASK = task
    try:
        with _pool(workers) as pool:
            return pool.map(_run, items)
    finally:
        _TASK = None
