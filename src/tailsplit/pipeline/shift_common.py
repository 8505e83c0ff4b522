"""What the dataset-shift commands share: the sentence encoder, embedding texts with the
cost recorded, and the output-folder check."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from tailsplit.io.outputs import check_output_folder
from tailsplit.progress import say
from tailsplit.shift.encoder import SentenceEncoder


def shift_encoder(config: Any) -> Any:
    """The sentence encoder ``config`` names (its progress shown as the command shows it)."""
    return SentenceEncoder(config.encoder, batch_size=config.batch_size)


def embed_texts(encoder: Any, texts: dict[str, list[str]]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Embeddings per dataset, and what it took (texts, how many encoded, seconds, texts/s)."""
    say(f"embedding {sum(len(t) for t in texts.values()):,} texts of {len(texts)} datasets (cached ones read back)")
    started, before = time.perf_counter(), encoder.encoded
    vectors = {}
    for name, part in texts.items():
        say(f"embedding {name}: {len(part):,} texts")
        vectors[name] = encoder.encode(part)
    seconds = time.perf_counter() - started
    encoded = encoder.encoded - before
    total = sum(len(t) for t in texts.values())
    return vectors, {
        "texts": total,
        "encoded": encoded,
        "cached": total - encoded,
        "seconds": round(seconds, 3),
        "texts_per_second": round(encoded / seconds, 1) if encoded and seconds > 0 else None,
    }


def check_out(config: Any, inputs: list[str]) -> None:
    """Refuse ``config.out`` before any work when it cannot be written (or is one of ``inputs``)."""
    if config.out is not None:
        check_output_folder(config.out, overwrite=config.overwrite, inputs=inputs)
