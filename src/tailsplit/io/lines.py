"""Lines of a data file as bytes or as UTF-8 text, gzip read by its suffix: the one place a
file's bytes are read and decoded, so a line that is not UTF-8, longer than a record may be,
or past the end of a damaged gzip stream is refused the same way by every reader, naming it."""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from pathlib import Path

from tailsplit.errors import InputError
from tailsplit.io.files import MAX_RECORD_BYTES, special_file_problem


def open_bytes(path: Path) -> io.BufferedIOBase:
    return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else open(path, "rb")


def numbered_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, raw bytes) of every line; a damaged gzip stream, or a line longer than
    :data:`~tailsplit.io.files.MAX_RECORD_BYTES`, is an :class:`InputError`."""
    if problem := special_file_problem(path):
        raise InputError(problem, path=path, fix="give a regular file")
    line_no = 0
    try:
        with open_bytes(path) as handle:
            while raw := handle.readline(MAX_RECORD_BYTES + 1):
                line_no += 1
                if len(raw) > MAX_RECORD_BYTES:
                    raise too_long(path, line_no)
                yield line_no, raw
    except (OSError, EOFError, zlib.error) as exc:
        raise damaged(path, line_no, exc) from None


def too_long(path: Path, line_no: int) -> InputError:
    return InputError(
        f"is longer than {MAX_RECORD_BYTES >> 20} MiB, the limit for one record",
        path=path,
        line=line_no,
        fix="split or shorten that record (the Safety page states the limits)",
    )


def damaged(path: Path, lines_read: int, exc: BaseException) -> InputError:
    trailing = _is_trailing(exc, path)
    return InputError(
        f"cannot be read after line {lines_read} ({_gzip_reason(exc, trailing)})",
        path=path,
        fix="cut the bytes after the gzip data (e.g. gzip -dc FILE | gzip > NEW), or copy the file again"
        if trailing
        else "the file is damaged or incomplete; download or copy it again",
    )


def _is_trailing(exc: BaseException, path: Path | None = None) -> bool:
    """Whether ``exc`` is gzip's complaint about bytes after the data ends in a file that does
    start as gzip (``path`` given) — trailing junk, not another format."""
    if not (isinstance(exc, gzip.BadGzipFile) and str(exc).startswith("Not a gzipped file")):
        return False
    if path is None:
        return True
    try:
        with open(path, "rb") as handle:
            return handle.read(2) == b"\x1f\x8b"
    except OSError:
        return False


def _gzip_reason(exc: BaseException, trailing: bool = False) -> str:
    if isinstance(exc, gzip.BadGzipFile) and str(exc).startswith(("CRC check failed", "Incorrect length")):
        return f"the gzip checksum does not match ({exc}): the data is damaged"
    if trailing:
        return "the gzip data is complete, but bytes that are not gzip data follow it (trailing junk)"
    if isinstance(exc, gzip.BadGzipFile):
        return "not a gzip file, although the name ends in .gz"
    if isinstance(exc, EOFError):
        return "the gzip stream ends early: the file is truncated"
    if isinstance(exc, zlib.error):
        return f"corrupt gzip data: {exc}"
    return str(getattr(exc, "strerror", None) or exc)


_BLOCK_BYTES = 1 << 23


def decoded_blocks(path: Path) -> Iterator[tuple[int, str]]:
    """(number of the first line, text) of consecutive blocks of whole lines, decoded as
    UTF-8 (a byte-order mark at the start dropped); a line that is not UTF-8 is an
    :class:`InputError` naming it, as is a damaged gzip stream."""
    line_no = 1
    pending = b""
    try:
        with open_bytes(path) as handle:
            while True:
                chunk = handle.read(_BLOCK_BYTES)
                data = pending + chunk
                cut = len(data) if not chunk else data.rfind(b"\n") + 1
                if chunk and cut == 0:  # no line ends yet: read on
                    if len(data) > MAX_RECORD_BYTES:
                        raise too_long(path, line_no)
                    pending = data
                    continue
                # Only the block's first line can be longer than a block: it began in ``pending``.
                if cut > MAX_RECORD_BYTES and data.find(b"\n", 0, MAX_RECORD_BYTES) < 0:
                    raise too_long(path, line_no)
                block, pending = data[:cut], data[cut:]
                if line_no == 1 and block.startswith(b"\xef\xbb\xbf"):
                    block = block[3:]
                yield from _decode_block(path, line_no, block)
                line_no += block.count(b"\n")
                if not chunk:
                    return
    except (OSError, EOFError, zlib.error) as exc:
        raise damaged(path, line_no - 1, exc) from None


def _decode_block(path: Path, first_line: int, block: bytes) -> Iterator[tuple[int, str]]:
    """The block decoded; at a byte that is not UTF-8, the lines before its line, then the error."""
    try:
        yield first_line, block.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = block.rfind(b"\n", 0, exc.start) + 1
        yield first_line, block[:line_start].decode("utf-8")
        raise InputError(
            f"is not valid UTF-8 (byte {exc.start - line_start} of the line)",
            path=path,
            line=first_line + block.count(b"\n", 0, exc.start),
            fix="re-encode the file as UTF-8",
        ) from None


def text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line, decoded as UTF-8."""
    for first, text in decoded_blocks(path):
        pieces = text.split("\n")
        for offset, line in enumerate(pieces[:-1] if text.endswith("\n") else pieces):
            yield first + offset, line.rstrip("\r")


def decode_whole(path: Path) -> str:
    return "".join(text for _, text in decoded_blocks(path))
