"""Reading a GGUF file once while transformers converts it (it reads it three times)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def gguf_read_once() -> Iterator[None]:
    """While a GGUF model converts: one parse of its file, one tensor-name map per architecture,
    each header value decoded once.

    transformers parses the file's header anew for the tokenizer, the config and the weights
    (each parse walks the 49k-entry vocabulary in Python) and rebuilds gguf's tensor-name map
    for each of the model's 397 modules: 24.5 s and 12.1 s of a 60 s conversion (profiled, 2
    cores); then it decodes every header value (each vocabulary entry byte by byte) for each of
    the three, 4 s more. A reader is a read-only memory map, the map a pure function of its
    arguments, and a decoded value (a number or a string) immutable, so sharing them within one
    conversion leaves every converted byte as it was (tested against recorded digests)."""
    try:
        import gguf as gguf_module
    except ImportError:  # transformers says what is missing
        yield
        return
    gguf: Any = gguf_module
    reader_class, name_map = gguf.GGUFReader, gguf.get_tensor_name_map
    readers: dict[tuple[str, str], Any] = {}

    def reader(path: Any, mode: str = "r") -> Any:
        key = (str(path), mode)
        if key not in readers:
            readers[key] = reader_class(path, mode)
        return readers[key]

    gguf.GGUFReader, gguf.get_tensor_name_map = reader, functools.lru_cache(maxsize=None)(name_map)
    try:
        with _header_values_decoded_once():
            yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = reader_class, name_map


@contextmanager
def _header_values_decoded_once() -> Iterator[None]:
    """transformers' decoding of a GGUF header value, kept per value array of the shared
    reader (the array is kept with it, so its ``id`` is not reused while the context lasts)."""
    try:
        from transformers import modeling_gguf_pytorch_utils as loader_module
    except ImportError:
        yield
        return
    loader: Any = loader_module
    decode = getattr(loader, "_gguf_parse_value", None)
    if decode is None:  # another transformers: nothing to share
        yield
        return
    decoded: dict[tuple[int, Any], tuple[Any, Any]] = {}

    def decode_once(value: Any, data_type: Any) -> Any:
        key = (id(value), tuple(data_type) if isinstance(data_type, list) else data_type)
        if key not in decoded:
            decoded[key] = (value, decode(value, data_type))
        return decoded[key][1]

    loader._gguf_parse_value = decode_once
    try:
        yield
    finally:
        loader._gguf_parse_value = decode
