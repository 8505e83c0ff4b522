"""Files named by an option, read so that no input can hang or exhaust tailsplit.

- Only regular files (or, where a command takes one, folders) are read: a FIFO would block
  for ever, ``/dev/zero`` never ends, a socket or device is no data file.
- A small file given by an option (a recipe, a BibTeX citation) is read up to
  :data:`MAX_OPTION_FILE_BYTES`; a larger one is refused before it is read whole.
- One line of a text data file (JSON Lines, CSV, TSV, a corpus) is at most
  :data:`MAX_RECORD_BYTES`, and a TOML recipe nests at most :data:`MAX_NESTING` levels: both
  limits are on the Safety page. (Parquet and in-memory tables hold their values already;
  JSON records nested past Python's recursion limit are refused where they are parsed.)

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as root:
...     path = pathlib.Path(root) / "ref.bib"
...     _ = path.write_text("@misc{a}", encoding="utf-8")
...     read_option_text(path, "--citation-file", "a BibTeX file")
'@misc{a}'
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tailsplit.errors import ConfigError

MAX_OPTION_FILE_BYTES = 1 << 20  # 1 MiB: recipes and citations are a few KiB
MAX_RECORD_BYTES = 64 << 20  # 64 MiB: one line of a text data file
MAX_NESTING = 100  # levels of arrays and tables in a recipe


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words (``a FIFO``, ``a character device``)."""
    for test, name in (
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def special_file_problem(path: str | Path, *, folders: bool = False) -> str | None:
    """Why ``path`` must not be read (``None`` when it is a regular file, or a folder where
    ``folders`` are allowed); a missing path is left to the caller's own message."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if stat.S_ISREG(mode) or (folders and stat.S_ISDIR(mode)):
        return None
    return f"is {file_kind(mode)}, which tailsplit does not read"


def file_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be read as a data file: it does not exist, is a folder, a FIFO, a
    device...; ``None`` for a regular file.

    >>> file_problem("/dev/null")
    'is a character device, which tailsplit does not read'
    """
    if not os.path.lexists(path) or (os.path.islink(path) and not os.path.exists(path)):
        return "does not exist"
    return special_file_problem(path)


def read_option_text(path: str | Path, option: str, what: str, limit: int = MAX_OPTION_FILE_BYTES) -> str:
    """The UTF-8 text of the small file an option names (a byte-order mark dropped), refused
    when it is missing, not a regular file, larger than ``limit`` bytes, or not UTF-8."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ConfigError(f"{option}={str(path)!r} does not exist; give {what}") from None
    except OSError as exc:
        raise ConfigError(f"{option}={str(path)!r} cannot be read ({exc.strerror or exc}); give {what}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{option}={str(path)!r} is {file_kind(info.st_mode)}; give {what}")
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise ConfigError(f"{option}={str(path)!r} cannot be read ({exc.strerror or exc}); give {what}") from None
    if len(data) > limit:
        raise ConfigError(f"{option}={str(path)!r} is larger than {limit >> 10} KiB, the limit for {what}; give {what}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{option}={str(path)!r} is not UTF-8 text; save {what} as UTF-8") from None


def nesting_depth(text: str, limit: int = MAX_NESTING) -> int:
    """The deepest nesting of brackets and braces in a recipe or JSON text (strings skipped),
    counted without recursion and stopped past ``limit``: what a parser would recurse into.

    >>> nesting_depth('a = [[1, "]]]"], {b = {c = 1}}]  # [[[[')
    3
    """
    depth = deepest = 0
    quote = ""
    escaped = comment = False
    for ch in text:
        if comment:
            comment = ch != "\n"
        elif quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            comment = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif ch in "]}":
            depth -= 1
        elif ch == "\n":
            quote = ""
    return deepest
