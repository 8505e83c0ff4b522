"""The encoder baseline's results cached as JSON under the cache folder, keyed by the split's
part files, the encoder's identity, the input fields and the recipe, so a rerun costs nothing."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from tailsplit.evaluation.encoder import EncoderRecipe, EncoderRun
from tailsplit.fingerprint import sha256_text
from tailsplit.io.outputs import replace_file_bytes


def cache_key(part_hashes: Sequence[str], identity: str, fields: Sequence[str], recipe: EncoderRecipe) -> str:

    return sha256_text(
        "encoder-baseline-v2", *part_hashes, identity, *fields, json.dumps(recipe.as_dict(), sort_keys=True)
    )


def cached_run(cache_dir: Path, key: str) -> EncoderRun | None:
    path = cache_dir / "evaluations" / f"{key}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return EncoderRun(
            **{
                **data,
                "test_correct": tuple(bool(c) for c in data["test_correct"]),
                "test_predicted": tuple(data["test_predicted"]),
                "test_probability": tuple(data["test_probability"]),
            }
        )
    except (OSError, ValueError, TypeError, KeyError):
        return None  # absent or damaged: train again


def store_run(cache_dir: Path, key: str, run: EncoderRun) -> None:

    folder = cache_dir / "evaluations"
    folder.mkdir(parents=True, exist_ok=True)
    replace_file_bytes(folder / f"{key}.json", json.dumps(run.as_dict()).encode("utf-8"))
