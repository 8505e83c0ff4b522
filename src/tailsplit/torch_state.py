"""Process-wide state of torch and transformers — random generators, logging, progress bars —
changed only inside a block and given back after it, so that library calls leave the caller's
state as they found it (imports of torch and transformers happen inside, when used)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator


@contextlib.contextmanager
def forked_torch_rng(seed: int) -> Iterator[None]:
    """torch's global generators (CPU and every CUDA device) seeded with ``seed`` inside the
    block and restored after it, so training never changes the caller's random state."""
    import torch

    devices = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        yield


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """transformers' progress bars and warnings off while tailsplit loads a model (they would
    drown tailsplit's progress bar); the caller's own settings come back afterwards. Importing
    transformers imports tqdm's notebook bars, which warn in a notebook without ipywidgets:
    not while tailsplit imports it."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="IProgress not found")
        from transformers.utils import logging as hf_logging

    verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


@contextlib.contextmanager
def quiet_gguf_conversion() -> Iterator[None]:
    """transformers' GGUF conversion without its own progress bar (a tqdm bar it shows
    whatever its logging settings, and in a notebook without ipywidgets a warning about
    them too); tailsplit logs the conversion instead. Given back after the block."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="IProgress not found")
        from transformers import modeling_gguf_pytorch_utils as gguf_utils

        bar = getattr(gguf_utils, "tqdm", None)
        if bar is not None:
            gguf_utils.tqdm = functools.partial(bar, disable=True)
        try:
            yield
        finally:
            if bar is not None:
                gguf_utils.tqdm = bar
