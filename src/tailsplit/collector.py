"""The cyclic garbage collector paused around bulk building.

Building hundreds of thousands of records, id lists or groups triggers collection after
collection, each walking every object built so far; none of them holds a reference cycle,
so nothing is lost by collecting once afterwards. Measured: a third of the time to read
570,000 JSON Lines records; tokenising and planning 570,000 SNLI pairs is timed with and
without the pause by ``benchmarks/speed/bench_planning.py``.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The collector paused inside the block, its previous state restored after.

    >>> with paused_gc():
    ...     rows = [[i] for i in range(3)]
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
