"""Where an output may go: the path checks every output and cache folder passes before
anything is written (not a system folder, not through a dangling link, apart from tailsplit's
cache, not an input nor holding one, writable)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tailsplit.cache import HELD_SPLITS, default_cache_dir
from tailsplit.errors import ConfigError

_SYSTEM_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))
# Ordinary writable file systems under /dev: shared memory (a tmpfs) is a folder like any other.
_WRITABLE_UNDER_DEV = (Path("/dev/shm"),)


def absolute(path: str | Path) -> Path:
    return Path(os.path.realpath(os.path.expanduser(str(path))))


def check_not_system(out: Path, option: str) -> None:
    resolved = absolute(out)
    if any(root in resolved.parents for root in _WRITABLE_UNDER_DEV):
        return
    if resolved == Path("/") or any(resolved == root or root in resolved.parents for root in _SYSTEM_ROOTS):
        raise ConfigError(f"{option}={str(out)!r} is a system folder; choose a folder of your own")


def check_not_input(out: Path, inputs: Sequence[str | Path], option: str) -> None:
    resolved = absolute(out)
    for item in inputs:
        path = absolute(item)
        if path == resolved:
            raise ConfigError(f"{option}={str(out)!r} is also an input of this run; write the output elsewhere")
        if resolved in path.parents:
            raise ConfigError(
                f"{option}={str(out)!r} holds {str(item)!r}, an input of this run; choose a new folder for the output"
            )
        if path in resolved.parents and path.is_file():
            raise ConfigError(f"{option}={str(out)!r} lies inside the input file {str(item)!r}; choose another path")
        if path in resolved.parents and path.is_dir():
            raise ConfigError(
                f"{option}={str(out)!r} lies inside {str(item)!r}, an input of this run; write the output elsewhere"
            )


def check_links(out: Path, option: str) -> None:
    """Refuse a path through a link that leads nowhere: writing there would create the link's
    target (folders anywhere on the disk) or replace the link itself."""
    path = Path(os.path.abspath(os.path.expanduser(str(out))))
    for item in [path, *path.parents]:
        if os.path.islink(item) and not os.path.exists(item):
            raise ConfigError(
                f"{option}={str(out)!r} goes through {str(item)!r}, a link to {os.readlink(item)!r}, which does "
                "not exist; create the link's target first, or give another path"
            )


def check_apart_from_caches(out: Path, caches: Sequence[str | Path], option: str, *, held: bool = False) -> None:
    """An output never lies inside tailsplit's cache (``--overwrite`` there would replace
    cached scores or models, or a run held in memory) nor holds it (replacing the output would
    delete the cache). Only tailsplit itself writes there: ``held`` is the split folder of a run
    held in memory, directly in the cache's :data:`~tailsplit.cache.HELD_SPLITS` folder."""
    resolved = absolute(out)
    for cache in [default_cache_dir(), *caches]:
        folder = absolute(cache)
        if held and resolved.parent == folder / HELD_SPLITS:
            continue
        if resolved == folder or folder in resolved.parents:
            raise ConfigError(
                f"{option}={str(out)!r} lies inside tailsplit's cache {str(cache)!r}, where it could "
                "replace cached scores or models; write the output elsewhere"
            )
        if resolved in folder.parents:
            raise ConfigError(
                f"{option}={str(out)!r} holds tailsplit's cache {str(cache)!r}; write the output "
                "elsewhere, or move the cache (--cache-dir, TAILSPLIT_CACHE_DIR)"
            )


def nearest_existing(path: Path) -> Path:
    current = absolute(path)
    while not current.exists():
        current = current.parent
    return current


def check_writable(parent: Path, option: str, out: Path) -> None:
    """Create and remove a probe folder where the output will be staged."""
    existing = nearest_existing(parent)
    if not existing.is_dir():
        raise ConfigError(f"{option}={str(out)!r} lies under {str(existing)!r}, which is a file; choose another path")
    try:
        probe = tempfile.mkdtemp(prefix=".tailsplit-probe-", dir=existing)
    except OSError as exc:
        raise ConfigError(
            f"{option}={str(out)!r} cannot be written ({exc.strerror or exc}); choose a folder you can write to"
        ) from None
    os.rmdir(probe)
