"""Claims on outputs: one tailsplit process writes a given output at a time.

A run claims its output (``--out``, a score file) when it first checks it and keeps the claim
until the output is published; a second process that claims the same output meanwhile is
refused, naming the process that holds it. The claim is an exclusive ``flock`` on a hidden
file *beside* the output (``.NAME.tailsplit-lock``, in the output's own folder, so on the same
file system): every process that writes that output sees it, whatever its cache, user or
container. The kernel drops the lock when the process ends, however it ends; the file is
removed when the claim is given up (a killed run leaves it behind, and the next run on that
output takes it over). A claim that cannot be taken — a folder that cannot be written, a full
disk, a lock path that is not a plain file — refuses the run: no run proceeds unlocked.
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ParamSpec, TypeVar

from tailsplit.errors import ConfigError, write_fix

P = ParamSpec("P")
R = TypeVar("R")

LOCK_SUFFIX = ".tailsplit-lock"


@dataclass
class _Claim:
    fd: int
    lock: Path
    created: list[Path] = field(default_factory=list)  # folders made for the claim, deepest last


# Outputs this process is writing: resolved path -> its claim.
_CLAIMS: dict[Path, _Claim] = {}


def lock_path(resolved: Path) -> Path:
    """Where the claim on the output ``resolved`` lives: a hidden file beside it.

    >>> lock_path(Path("/data/splits/snli")).as_posix()
    '/data/splits/.snli.tailsplit-lock'
    """
    return resolved.parent / f".{resolved.name}{LOCK_SUFFIX}"


def _resolved(out: str | Path) -> Path:
    return Path(os.path.realpath(os.path.expanduser(str(out))))


def _refusal(option: str, out: str | Path, exc: OSError, what: str) -> ConfigError:
    reason = exc.strerror or str(exc)
    return ConfigError(f"{option}={str(out)!r}: {what} ({reason}); nothing was written; {write_fix(exc)}")


def _make_parents(folder: Path, option: str, out: str | Path) -> list[Path]:
    """Create ``folder`` and its missing parents; the ones created, outermost first."""
    missing: list[Path] = []
    current = folder
    while not os.path.lexists(current):
        missing.append(current)
        current = current.parent
    created: list[Path] = []
    for path in reversed(missing):
        try:
            path.mkdir()
        except FileExistsError:
            continue
        except OSError as exc:
            _remove_empty(created)
            raise _refusal(option, out, exc, "its folder cannot be created") from None
        created.append(path)
    return created


def _remove_empty(created: list[Path]) -> None:
    for path in reversed(created):
        try:
            path.rmdir()
        except OSError:
            return  # not empty (something else wrote there): keep it and its parents


def _open_lock(lock: Path, option: str, out: str | Path) -> int:
    try:
        info = os.lstat(lock)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise ConfigError(
            f"{option}={str(out)!r} cannot be claimed: {str(lock)!r} is not tailsplit's lock file "
            "(a folder, link or other special file); move it away and run again"
        )
    try:
        return os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        raise _refusal(option, out, exc, f"its lock {str(lock)!r} cannot be created") from None


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 64, 0).decode("utf-8", "replace")
    except OSError:
        return "unknown"
    return text.split(" ", 1)[0].strip() or "unknown"


def claim_output(out: str | Path, option: str = "--out") -> None:
    """Hold an exclusive lock on the output ``out`` for this process (kept until
    :func:`release_output`, or until the process ends). Refuses an output another running
    tailsplit process holds — two runs started on the same ``--out`` never replace each other,
    whatever their caches — and refuses when the lock cannot be taken at all."""
    import fcntl

    resolved = _resolved(out)
    if resolved in _CLAIMS:
        return
    lock = lock_path(resolved)
    created = _make_parents(lock.parent, option, out)
    try:
        for _ in range(8):  # a lock file removed between our open and flock: take the new one
            fd = _open_lock(lock, option, out)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _holder(fd)
                os.close(fd)
                raise ConfigError(
                    f"{option}={str(out)!r} is being written by another tailsplit run (process {holder}); "
                    "wait for it to finish, or choose another folder"
                ) from None
            try:
                same = os.fstat(fd).st_ino == os.lstat(lock).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        else:
            raise ConfigError(f"{option}={str(out)!r} cannot be claimed: its lock keeps changing; run again")
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {resolved}\n".encode(), 0)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(lock)  # held by us: no other process can be using it
            os.close(fd)
            raise _refusal(option, out, exc, f"its lock {str(lock)!r} cannot be written") from None
    except BaseException:
        _remove_empty(created)
        raise
    _CLAIMS[resolved] = _Claim(fd, lock, created)


def release_output(out: str | Path) -> None:
    """Give up this process's claim on ``out`` (after publishing it, or giving up): the lock
    file goes while still held, so no other process can hold a lock on a file that is gone;
    folders made for the claim go too while they are empty (nothing was published there)."""
    claim = _CLAIMS.pop(_resolved(out), None)
    if claim is None:
        return
    try:
        if os.fstat(claim.fd).st_ino == os.lstat(claim.lock).st_ino:
            os.unlink(claim.lock)
    except OSError:
        pass
    os.close(claim.fd)
    _remove_empty(claim.created)


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
