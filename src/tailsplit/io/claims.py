"""Claims on outputs: one tailsplit process writes a given output at a time.

A run claims its output (``--out``, a score file) when it first checks it and keeps the claim
until the output is published; a second process that claims the same output meanwhile is
refused, naming the process that holds it. The claim is an exclusive ``flock`` on a small
file in tailsplit's cache (keyed by the output's absolute path), so nothing is created beside
the output, and the kernel drops it when the process ends, however it ends.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from tailsplit.cache import default_cache_dir
from tailsplit.errors import ConfigError
from tailsplit.fingerprint import sha256_text

P = ParamSpec("P")
R = TypeVar("R")

# Outputs this process is writing: resolved path -> the open file holding its lock. A second
# process (another tailsplit run) that claims the same output is refused until this one has
# published it or exited; the kernel drops the lock when a process ends, however it ends.
_CLAIMS: dict[Path, Any] = {}


def _lock_path(resolved: Path) -> Path:

    return default_cache_dir() / "locks" / f"{sha256_text(str(resolved))[:32]}.lock"


def claim_output(out: str | Path, option: str = "--out") -> None:
    """Hold an exclusive lock on the output ``out`` for this process (kept until
    :func:`release_output`, or until the process ends). Refuses an output another running
    tailsplit process holds: two runs started on the same ``--out`` never replace each other.
    The lock file lives in tailsplit's cache, so nothing is created beside the output."""
    import fcntl

    resolved = Path(os.path.realpath(os.path.expanduser(str(out))))
    if resolved in _CLAIMS:
        return
    lock = _lock_path(resolved)
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        handle = open(lock, "a+", encoding="utf-8")
    except OSError:
        return  # a cache that cannot be written: writing the output itself will say so
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().split(" ", 1)[0] or "unknown"
        handle.close()
        raise ConfigError(
            f"{option}={str(out)!r} is being written by another tailsplit run (process {holder}); "
            "wait for it to finish, or choose another folder"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()} {resolved}\n")
    handle.flush()
    _CLAIMS[resolved] = handle


def release_output(out: str | Path) -> None:
    """Give up this process's claim on ``out`` (after publishing it, or giving up)."""
    handle = _CLAIMS.pop(Path(os.path.realpath(os.path.expanduser(str(out)))), None)
    if handle is not None:
        handle.close()


def released_on_error(func: Callable[P, R]) -> Callable[P, R]:
    """Run ``func``; if it raises, give up the claims it made (a run refused after its early
    checks must not keep other processes off that output for the rest of this process)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        before = set(_CLAIMS)
        try:
            return func(*args, **kwargs)
        except BaseException:
            for path in set(_CLAIMS) - before:
                release_output(path)
            raise

    return wrapper
