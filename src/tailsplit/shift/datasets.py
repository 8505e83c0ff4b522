"""Named text collections for shift measures: a file, the fields that make an example's text.

A dataset is written ``[NAME=]PATH[@FIELD[+FIELD...]]``: ``snli=snli/test.jsonl.gz@premise+hypothesis``
embeds premise and hypothesis joined by a space; without ``@`` the field is ``text``, without
``NAME=`` the name is the file name up to its first dot.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError, InputError
from tailsplit.io.readers import read_records
from tailsplit.rng import SHIFT_SUBSAMPLE, seeded_rng


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    path: str
    fields: tuple[str, ...] = ("text",)

    @staticmethod
    def parse(spec: str) -> DatasetSpec:
        """
        >>> DatasetSpec.parse("snli=data/test.jsonl.gz@premise+hypothesis")
        DatasetSpec(name='snli', path='data/test.jsonl.gz', fields=('premise', 'hypothesis'))
        >>> DatasetSpec.parse("data/semeval.jsonl.gz").name
        'semeval'
        """
        name, _, rest = spec.partition("=") if "=" in spec.split("@")[0] and not Path(spec).exists() else ("", "", spec)
        path, _, fields = rest.partition("@")
        if not path:
            raise ConfigError(f"dataset {spec!r} names no file; write [NAME=]PATH[@FIELD[+FIELD...]]")
        names = tuple(f for f in fields.split("+") if f) if fields else ("text",)
        return DatasetSpec(name or Path(path).name.split(".")[0], path, names)

    def describe(self) -> dict[str, Any]:
        """The dataset as results record it: its name, path and fields."""
        return {"name": self.name, "path": self.path, "fields": list(self.fields)}


def sample_indices(n: int, max_examples: int | None, seed: int) -> np.ndarray | None:
    """The sorted indices of a seeded sample of ``max_examples`` of ``n`` (``--max-examples``
    in the shift commands); None when all are kept."""
    if max_examples is None or n <= max_examples:
        return None
    return np.sort(seeded_rng(seed, SHIFT_SUBSAMPLE).choice(n, size=max_examples, replace=False))


def text_field(raw: Any, spec: DatasetSpec, field: str) -> str:
    """A record's text field, stripped (a list of words, as NER data gives a sentence, joined by
    spaces); a located error when it is missing or not text."""
    value = raw.value(field) if raw.has(field) else None
    if isinstance(value, list) and value and all(isinstance(w, str) for w in value):
        value = " ".join(value)  # a NER sentence's tokens: embedded as the sentence
    if not isinstance(value, str):
        raise raw.error(
            "is missing or not text",
            field=field,
            fix=f"name the text fields after @ (e.g. {spec.name}={spec.path}@premise+hypothesis)",
        )
    return value.strip()


def load_texts(spec: DatasetSpec, max_examples: int | None = None, seed: int = 0) -> list[str]:
    """The dataset's texts, in file order; a seeded sample of ``max_examples`` (file order
    kept) when it holds more."""
    if not Path(spec.path).exists():
        raise InputError("does not exist", path=spec.path, fix="check the dataset path")
    texts = []
    for raw in read_records(spec.path):
        texts.append(" ".join(text_field(raw, spec, field) for field in spec.fields))
    if not texts:
        raise InputError("holds no records", path=spec.path, fix="check that it is the right file")
    keep = sample_indices(len(texts), max_examples, seed)
    return texts if keep is None else [texts[i] for i in keep.tolist()]
