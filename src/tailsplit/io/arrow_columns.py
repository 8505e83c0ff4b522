"""Arrow columns built from their buffers: numbers from numpy arrays, booleans as bitmaps,
strings as UTF-8 bytes and offsets.

Why not ``pyarrow.array``: before it looks at its input it asks whether pandas could have
made it, and that question imports pandas — about 0.2 s of every command that writes a
score file, where nothing else needs pandas. The arrays here are the ones ``pyarrow.array``
builds from the same values (the Parquet bytes written from them are identical; tested).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

_INT32_OFFSETS = 2**31 - 1  # Arrow's ``string`` type: int32 offsets into its bytes


def number_column(values: np.ndarray, dtype: str, missing: np.ndarray | None = None) -> Any:
    """A column of ``dtype`` (``"float64"`` or ``"int64"``), null where ``missing`` is true."""
    import pyarrow as pa

    data = np.ascontiguousarray(values, dtype=dtype)
    validity, nulls = None, 0
    if missing is not None and missing.any():
        validity, nulls = pa.py_buffer(np.packbits(~missing.astype(bool), bitorder="little")), int(missing.sum())
    return pa.Array.from_buffers(pa.from_numpy_dtype(data.dtype), len(data), [validity, pa.py_buffer(data)], nulls)


def bool_column(values: np.ndarray) -> Any:
    """A boolean column (Arrow's bit-packed booleans)."""
    import pyarrow as pa

    bits = np.packbits(np.asarray(values, dtype=bool), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])


def string_column(values: Sequence[str]) -> Any:
    """A ``string`` column of ``values`` (UTF-8); past 2 GiB of text, ``pyarrow.array``'s own."""
    import pyarrow as pa

    encoded = [value.encode("utf-8") for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(value) for value in encoded], out=offsets[1:])
    if offsets[-1] > _INT32_OFFSETS:
        return pa.array(list(values), pa.string())
    buffers = [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(encoded), buffers)
