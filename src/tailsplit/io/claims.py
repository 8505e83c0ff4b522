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

The claim never writes to a file tailsplit did not create: the lock is created exclusively
(``O_EXCL``); a lock file already there (left by a killed run) is taken over only when, checked
on the open file itself, it is a regular file with one link, owned by this user, holding
nothing or a claim on this very output — a hard link to a data file, a file of another user or
any other content is refused, untouched.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ParamSpec, TypeVar

from tailsplit.errors import ConfigError, write_fix

P = ParamSpec("P")
R = TypeVar("R")

LOCK_SUFFIX = ".tailsplit-lock"
# The most a claim holds: a process id and a path (PATH_MAX is 4,096 bytes on Linux).
_MAX_CLAIM_BYTES = 8192


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


def _not_a_lock(option: str, out: str | Path, lock: Path, what: str) -> ConfigError:
    return ConfigError(
        f"{option}={str(out)!r} cannot be claimed: {str(lock)!r} is not tailsplit's lock file ({what}); "
        "move it away and run again"
    )


def _open_lock(lock: Path, option: str, out: str | Path) -> tuple[int, bool]:
    """The lock file opened for reading and writing, and whether this call created it: made
    exclusively when absent; an existing one is opened without following a link."""
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        info = os.lstat(lock)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise _not_a_lock(option, out, lock, "a folder, link or other special file")
    try:
        if info is None:
            try:
                return os.open(lock, flags | os.O_CREAT | os.O_EXCL, 0o666), True
            except FileExistsError:
                pass  # another process made it meanwhile: open that one, checked as any existing lock
        return os.open(lock, flags), False
    except OSError as exc:
        raise _refusal(option, out, exc, f"its lock {str(lock)!r} cannot be created") from None


def _claim_text(resolved: Path, pid: int | None = None) -> bytes:
    """What a lock file holds: the holder's process id and the output it claims."""
    return b"%d %s\n" % (os.getpid() if pid is None else pid, os.fsencode(str(resolved)))


def _lock_problem(fd: int, resolved: Path) -> str | None:
    """Why the open lock file ``fd`` is not one tailsplit may take over (``None`` when it is):
    checked on the file itself, after opening, so a file swapped in before the open is seen."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        return "a folder, link or other special file"
    if info.st_nlink != 1:
        return f"a file with {info.st_nlink} links: another name of the same data"
    if info.st_uid != os.geteuid():
        return "a file owned by another user"
    if info.st_size > _MAX_CLAIM_BYTES:
        return "a file larger than a claim"
    text = os.pread(fd, _MAX_CLAIM_BYTES, 0)
    if text and not re.fullmatch(rb"[0-9]+" + re.escape(_claim_text(resolved, 0)[1:]), text):
        return "a file holding something other than a claim on this output"
    return None


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
            fd, made = _open_lock(lock, option, out)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _holder(fd)
                os.close(fd)
                raise ConfigError(
                    f"{option}={str(out)!r} is being written by another tailsplit run (process {holder}); "
                    "wait for it to finish, or choose another folder"
                ) from None
            problem = None if made else _lock_problem(fd, resolved)
            if problem is not None:
                os.close(fd)
                raise _not_a_lock(option, out, lock, problem)
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
            os.pwrite(fd, _claim_text(resolved), 0)
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


def remove_stale_locks(folder: Path) -> list[Path]:
    """Remove the lock files in ``folder`` (a folder of tailsplit's cache) that no process
    holds — left by killed runs — each only when it is one tailsplit wrote (a regular file, one
    link, this user's, holding a claim) and only while this process holds it, as
    :func:`release_output` does."""
    import fcntl

    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    for entry in sorted(folder.iterdir()):
        name = entry.name
        if not (name.startswith(".") and name.endswith(LOCK_SUFFIX)):
            continue
        output = folder / name[1 : -len(LOCK_SUFFIX)]
        try:
            fd = os.open(entry, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if _lock_problem(fd, _resolved(output)) is None and os.fstat(fd).st_ino == os.lstat(entry).st_ino:
                os.unlink(entry)
                removed.append(entry)
        except OSError:
            pass  # held by a running process, or gone meanwhile
        finally:
            os.close(fd)
    return removed
