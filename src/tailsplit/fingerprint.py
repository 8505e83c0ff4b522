"""Content hashes: of files (inputs, outputs, model weights) and of scoring requests.

Derived artifacts are keyed by what changes their value (model identity, prompt, text),
never by how they were computed (batch size, device), in the manner of ``datasets``
fingerprints.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_CHUNK = 1 << 20


def sha256_file(path: str | Path) -> str:
    """Hex sha256 of a file's bytes, or of a folder's files (sorted relative paths and bytes)."""
    path = Path(path)
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        if path.is_dir():
            digest.update(str(file.relative_to(path)).encode() + b"\0")
        with open(file, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    return digest.hexdigest()


def sha256_text(*parts: str) -> str:
    """Hex sha256 of text parts joined unambiguously (a unit separator between parts)."""
    return hashlib.sha256("".join(part + "\x1f" for part in parts).encode("utf-8")).hexdigest()
