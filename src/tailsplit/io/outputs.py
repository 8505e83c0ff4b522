"""Output folders and files: the one place that decides where tailsplit may write.

The rules every command follows (the documentation's Safety page):

- an output is written into a hidden staging folder beside ``--out`` and renamed into place
  only when every file is complete, so an error or a kill leaves no partial output;
- an existing non-empty ``--out`` is refused unless ``--overwrite``, and even then it is
  replaced only if tailsplit wrote it (it holds tailsplit's ``manifest.json``) and it holds
  no input of this run: tailsplit never deletes what it did not write;
- an output never is, or contains, one of the run's inputs;
- all of this is checked by :func:`check_output_folder` / :func:`check_output_file` before
  any model loads, so a refusal costs nothing;
- the manifest lists the sha256 of every file in the folder (:meth:`OutputFolder.write_manifest`);
- folders and files get the permissions the umask allows, like any file the user creates;
- staging folders left by a killed run of the same output are removed on the next run.

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as root:
...     with staged_output(pathlib.Path(root) / "out", overwrite=False) as folder:
...         _ = folder.write_text("a.txt", "hello")
...         manifest = folder.write_manifest({"tailsplit_version": "x"})
...     sorted(p.name for p in (pathlib.Path(root) / "out").iterdir()), sorted(manifest["outputs"])
(['a.txt', 'manifest.json'], ['a.txt'])
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from tailsplit.errors import ConfigError, OutputError, TailsplitError, write_fix
from tailsplit.fingerprint import sha256_file
from tailsplit.io.claims import claim_output, release_output
from tailsplit.io.manifest import MANIFEST, manifest_text, read_manifest_file
from tailsplit.io.paths import (
    absolute,
    check_apart_from_caches,
    check_links,
    check_not_input,
    check_not_system,
    check_writable,
)

# Files that `tailsplit analyze` adds to a folder after it was written.
REPORT_FILES = ("report.html", "report.md", "analysis.json")
_STAGING = re.compile(r"^\.(?P<name>.+)\.(?:tmp|old)-(?P<pid>\d+)-[A-Za-z0-9_]+$")


def _umask() -> int:
    # os.umask can only be read by setting it; reading it from /proc avoids that race.
    try:
        for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def folder_mode() -> int:
    """The mode ``mkdir`` would give a new folder under the current umask."""
    return 0o777 & ~_umask()


def file_mode() -> int:
    return 0o666 & ~_umask()


def is_tailsplit_folder(folder: Path) -> bool:
    """Whether ``folder`` holds a manifest that tailsplit wrote."""
    try:
        return read_manifest_file(folder / MANIFEST).tailsplit_version is not None
    except (OSError, TailsplitError):
        return False


def check_output_folder(
    out: str | Path,
    *,
    overwrite: bool,
    inputs: Sequence[str | Path] = (),
    option: str = "--out",
    caches: Sequence[str | Path] = (),
    held: bool = False,
) -> Path:
    """Refuse an output folder that cannot or must not be written; returns it as a Path,
    claimed for this process (:func:`~tailsplit.io.claims.claim_output`). ``held``: the
    folder tailsplit keeps a run held in memory in, in its cache (never a user's output).

    Checked: not a system folder, not the current folder or one above it, not a file, not
    an input nor holding one, not inside tailsplit's cache (or ``caches``) nor holding it,
    writable; when it exists and is not empty, ``overwrite`` is given and it is a folder
    tailsplit wrote.
    """
    out = Path(out)
    check_not_system(out, option)
    check_links(out, option)
    check_apart_from_caches(out, caches, option, held=held)
    resolved = absolute(out)
    cwd = absolute(Path.cwd())
    if resolved == cwd or resolved in cwd.parents:
        raise ConfigError(
            f"{option}={str(out)!r} is the current folder or one above it; "
            "name a new folder for the output, e.g. --out split-out"
        )
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{option}={str(out)!r} is an existing file; name a folder")
    check_not_input(out, inputs, option)
    if out.is_dir() and any(out.iterdir()):
        if not overwrite:
            raise ConfigError(
                f"{option}={str(out)!r} already exists and is not empty; choose another folder or pass --overwrite"
            )
        if not is_tailsplit_folder(out):
            raise ConfigError(
                f"{option}={str(out)!r} was not written by tailsplit (it has no tailsplit "
                f"{MANIFEST}); --overwrite replaces only tailsplit's own output folders, "
                "so choose another folder"
            )
        _check_only_listed_files(out, option)
    check_writable(resolved.parent, option, out)
    claim_output(out, option)
    return out


def _check_only_listed_files(folder: Path, option: str) -> None:
    """Refuse to replace a folder holding a file its manifest does not list (a file the user
    added): ``--overwrite`` replaces what tailsplit wrote, nothing else."""
    listed = set(read_manifest_file(folder / MANIFEST).outputs) | {MANIFEST}
    for path in sorted(folder.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            continue
        name = path.relative_to(folder).as_posix()
        if name not in listed:
            raise ConfigError(
                f"{option}={str(folder)!r} holds {name!r}, which tailsplit did not write (its {MANIFEST} "
                "does not list it); --overwrite would delete it, so move that file out or choose another folder"
            )


def check_output_file(
    out: str | Path,
    *,
    overwrite: bool,
    inputs: Sequence[str | Path] = (),
    option: str = "--out",
    caches: Sequence[str | Path] = (),
) -> Path:
    """Refuse an output file that exists (without ``overwrite``), is a folder, is an input or
    lies in tailsplit's cache; returns it as a Path, claimed for this process."""
    out = Path(out)
    check_not_system(out, option)
    check_links(out, option)
    check_apart_from_caches(out, caches, option)
    if out.is_dir():
        raise ConfigError(f"{option}={str(out)!r} is a folder; name a file, e.g. {str(out / 'scores.parquet')!r}")
    check_not_input(out, inputs, option)
    if out.exists() and not overwrite:
        raise ConfigError(f"{option}={str(out)!r} already exists; choose another file name or pass --overwrite")
    if out.is_symlink() or (out.exists() and not out.is_file()):
        raise ConfigError(f"{option}={str(out)!r} is not a plain file; name a new file")
    check_writable(absolute(out).parent, option, out)
    claim_output(out, option)
    return out


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        pass
    return True


def remove_stale_staging(target: Path, *, any_name: bool = False) -> list[Path]:
    """Remove staging folders of ``target`` left by tailsplit processes that no longer run;
    with ``any_name``, those of every output beside it (for a folder of tailsplit's cache,
    where a killed run's staging may be named for other settings than the next run's)."""
    removed: list[Path] = []
    parent = target.parent
    if not parent.is_dir():
        return removed
    for entry in parent.iterdir():
        match = _STAGING.match(entry.name)
        if match and (any_name or match["name"] == target.name) and not _pid_alive(int(match["pid"])):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


def _staging_name(target: Path, kind: str) -> str:
    return f".{target.name}.{kind}-{os.getpid()}-"


def write_failure(exc: OSError, what: Path) -> OutputError:
    """An OS error while writing, as one line naming the path and what to do (a file where a
    folder on the way must be is named as such, not as "File exists")."""
    blocking = _file_on_the_way(what) if exc.errno in (errno.EEXIST, errno.ENOTDIR) else None
    if blocking is not None:
        return OutputError(
            f"could not write {str(what)!r}: {str(blocking)!r} is a file, where a folder must be; nothing was "
            "written there; move that file away, or write elsewhere"
        )
    reason = exc.strerror or str(exc)
    return OutputError(f"could not write {str(what)!r} ({reason}); nothing was written there; {write_fix(exc)}")


def _file_on_the_way(path: Path) -> Path | None:
    """The nearest folder above ``path`` (or ``path``'s parent itself) that exists as a file."""
    for parent in Path(path).parents:
        if os.path.lexists(parent):
            return None if parent.is_dir() else parent
    return None


class OutputFolder:
    """A staging folder being filled; files are named relative to it."""

    def __init__(self, staging: Path) -> None:
        self.path = staging

    def __truediv__(self, name: str) -> Path:
        return self.path / name

    def write_text(self, name: str, text: str) -> Path:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        return path

    def write_bytes(self, name: str, data: bytes) -> Path:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def write_files(self, files: Mapping[str, str | bytes]) -> None:
        """Each file by its relative name: text as UTF-8 with ``\\n`` line ends, bytes as they are."""
        for name, content in files.items():
            if isinstance(content, bytes):
                self.write_bytes(name, content)
            else:
                self.write_text(name, content)

    def file_hashes(self) -> dict[str, str]:
        """sha256 of every file written so far except the manifest, by relative path."""
        return {
            p.relative_to(self.path).as_posix(): sha256_file(p)
            for p in sorted(self.path.rglob("*"))
            if p.is_file() and p.name != MANIFEST
        }

    def write_manifest(self, manifest: dict[str, Any]) -> dict[str, Any]:
        """Write ``manifest.json`` with ``outputs`` = the hash of every other file; call it last."""
        manifest = {**manifest, "outputs": self.file_hashes()}
        self.write_text(MANIFEST, manifest_text(manifest))
        return manifest


@contextmanager
def _staged(target: Path) -> Iterator[Path]:
    """A staging folder beside ``target``, published over it in one rename when the body ends
    without error, removed otherwise; modes follow the umask; OS errors become OutputError."""
    remove_stale_staging(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=_staging_name(target, "tmp"), dir=target.parent))
    except OSError as exc:
        raise write_failure(exc, target) from None
    try:
        yield staging
        for path in [staging, *staging.rglob("*")]:  # mkdtemp makes 0700; some writers 0600
            os.chmod(path, folder_mode() if path.is_dir() else file_mode())
        _publish(staging, target)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):
            raise write_failure(exc, target) from None
        raise


@contextmanager
def staged_output(
    out: str | Path, *, overwrite: bool, inputs: Sequence[str | Path] = (), held: bool = False
) -> Iterator[OutputFolder]:
    """Yield an empty staging folder; on success it replaces ``out`` in one rename.

    The rules of :func:`check_output_folder` are checked again here (they were checked
    before any work, but the disk may have changed since). If the body raises, the staging
    folder is removed and ``out`` is left as it was; an OS error becomes an
    :class:`OutputError` naming the path.
    """
    out = check_output_folder(out, overwrite=overwrite, inputs=inputs, held=held)
    try:
        with _staged(out) as staging:
            yield OutputFolder(staging)
    finally:
        release_output(out)


def check_cache_folder(
    folder: str | Path,
    *,
    markers: Sequence[str] | None,
    inputs: Sequence[str | Path] = (),
    option: str = "--cache-dir",
) -> Path:
    """Refuse a folder that tailsplit would build a cache in (a corpus index, a converted
    model) when it is a system folder, an existing file, an input of the run (or holds or
    lies inside one), or — when ``markers`` are given, for a folder tailsplit replaces whole —
    a non-empty folder without one of tailsplit's ``markers`` files: a cache folder obeys the
    rules of ``--out``. (``--cache-dir`` itself has no markers: tailsplit only adds its own
    files and folders there, and replaces only those.)"""
    folder = Path(folder)
    check_not_system(folder, option)
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise ConfigError(f"{option}={str(folder)!r} is an existing file; name a new or empty folder")
    check_not_input(folder, inputs, option)
    if (
        markers is not None
        and folder.is_dir()
        and any(folder.iterdir())
        and not any((folder / m).exists() for m in markers)
    ):
        raise ConfigError(
            f"{option}={str(folder)!r} holds files that tailsplit did not write; give a new or empty folder"
        )
    return folder


def staged_cache_folder(target: str | Path, *, markers: Sequence[str]) -> AbstractContextManager[Path]:
    """Build a cache folder (converted model, corpus index) in staging and publish it in one
    rename, replacing a previous copy that tailsplit made (it holds one of ``markers``); same
    staging, cleanup and permission rules as :func:`staged_output`, and the rules of
    :func:`check_cache_folder` are checked again first."""
    return _staged(check_cache_folder(target, markers=markers))


def _publish(staging: Path, out: Path) -> None:
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=_staging_name(out, "old"), dir=out.parent))
        os.replace(out, old / "previous")
    os.replace(staging, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_output_file(out: str | Path, data: bytes, *, overwrite: bool, inputs: Sequence[str | Path] = ()) -> Path:
    """Write one whole file atomically under the rules of :func:`check_output_file`."""
    out = check_output_file(out, overwrite=overwrite, inputs=inputs)
    remove_stale_staging(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        replace_file_bytes(out, data)
    except OSError as exc:
        raise write_failure(exc, out) from None
    finally:
        release_output(out)
    return out


def replace_file_bytes(path: Path, data: bytes) -> None:
    """Write a whole file so that readers see either the old or the new content."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=_staging_name(path, "tmp"), dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def update_reports(
    folder: str | Path,
    files: dict[str, str | bytes],
    *,
    inputs: Sequence[str | Path] = (),
    extra: dict[str, Any] | None = None,
) -> None:
    """Replace report files inside a folder tailsplit wrote and refresh its manifest's hashes.

    Used by ``tailsplit analyze``, which adds its reports to the split folder it reads.
    """
    folder = Path(folder)
    if not is_tailsplit_folder(folder):
        raise ConfigError(
            f"split_dir={str(folder)!r} has no tailsplit {MANIFEST}; analyze writes its reports "
            "only into folders tailsplit wrote"
        )
    manifest_path = folder / MANIFEST
    try:
        manifest = read_manifest_file(manifest_path)
        for name, content in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            replace_file_bytes(folder / name, content if isinstance(content, bytes) else content.encode("utf-8"))
        outputs = {**manifest.outputs, **{name: sha256_file(folder / name) for name in files}}
        record = {**manifest.record, "outputs": outputs, **(extra or {})}
        replace_file_bytes(manifest_path, manifest_text(record).encode("utf-8"))
    except OSError as exc:
        raise write_failure(exc, folder) from None
