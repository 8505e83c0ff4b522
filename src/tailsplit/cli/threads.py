"""How a command's OpenMP threads wait between parallel regions, chosen before torch loads.

Measured with ``python -m benchmarks.speed.bench_whole_process --wait-policies PASSIVE ACTIVE``
(600 SNLI pairs, 2 cores): on an idle machine, threads that spin (``ACTIVE``) scored 7–19%
faster than threads that sleep (``PASSIVE``); with one other busy process (``--busy 1``),
spinning was 27–28% slower — the spinning threads took the other job's core. So a command
spins only when nothing else is running; ``OMP_WAIT_POLICY`` set by the user always wins.
"""

from __future__ import annotations

import os
from pathlib import Path

LOADAVG = Path("/proc/loadavg")


def wait_policy(loadavg: str, cores: int, threads: int) -> str:
    """``ACTIVE`` when the processes running besides this one (``/proc/loadavg``'s fourth
    field, running/total, counts this one) leave a core for every thread; else ``PASSIVE``
    (also when the count cannot be read)."""
    try:
        running = int(loadavg.split()[3].split("/")[0])
    except (IndexError, ValueError):
        return "PASSIVE"
    return "ACTIVE" if (running - 1) + threads <= cores else "PASSIVE"


def set_wait_policy() -> None:
    """``OMP_WAIT_POLICY`` for this process, unless the user set it (read when torch loads)."""
    if "OMP_WAIT_POLICY" in os.environ:
        return
    cores = os.cpu_count() or 1
    try:
        threads = int(os.environ.get("OMP_NUM_THREADS", cores))
        loadavg = LOADAVG.read_text(encoding="ascii")
    except (OSError, ValueError):
        loadavg, threads = "", cores
    os.environ["OMP_WAIT_POLICY"] = wait_policy(loadavg, cores, threads)
