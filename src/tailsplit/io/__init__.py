"""Readers, writers and dataset loading."""

from tailsplit.io.examples import load_examples
from tailsplit.io.readers import detect_format, read_records

__all__ = ["detect_format", "load_examples", "read_records"]
