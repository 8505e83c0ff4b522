"""The tokenizers of a suffix-array (infini-gram) index: ``words`` — the overlap audit's own
lower-case word tokens, numbered in the order the corpus first uses them, so an index of them
answers exactly what the text audit's n-gram hashes answer — or a model's tokenizer (the
bundled LM's, a tokenizer folder, a hub id), the way published indexes are made."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tailsplit.errors import ConfigError, MissingDependencyError
from tailsplit.fingerprint import sha256_text
from tailsplit.overlap.tokens import overlap_tokens
from tailsplit.scoring.models import BUNDLED, fast_tokenizer, local_folder, resolve_model

WORDS = "words"
WORDS_FILE = "words.json"
TOKEN_WIDTH = {"u8": 1, "u16": 2, "u32": 4}


def separator(dtype: str) -> int:
    """The id infini-gram puts before every document (all bits set): never a token."""
    return (1 << (8 * TOKEN_WIDTH[dtype])) - 1


@dataclass
class WordTokens:
    """The audit's word tokens as ids (``u16`` while the vocabulary leaves two ids free, else
    ``u32``); a word the corpus never uses gets an id no document holds (``unknown``), so no
    n-gram through it is found. ``learn`` reads the corpus's words first."""

    vocab: dict[str, int] = field(default_factory=dict)
    name: str = WORDS

    @property
    def dtype(self) -> str:
        return "u16" if len(self.vocab) < separator("u16") - 1 else "u32"

    @property
    def unknown(self) -> int:
        return separator(self.dtype) - 1

    def learn(self, texts: Iterable[str]) -> None:
        for text in texts:
            for word in overlap_tokens(text):
                self.vocab.setdefault(word, len(self.vocab))

    def encode(self, text: str) -> list[int]:
        return [self.vocab.get(w, self.unknown) for w in overlap_tokens(text)]

    def variants(self, text: str) -> list[list[int]]:
        """Other tokenisations of ``text`` as it may stand in a document: none (words ignore spaces)."""
        return []

    def fingerprint(self) -> str:
        return sha256_text(WORDS, *self.vocab)

    def save(self, folder: Path) -> None:
        (folder / WORDS_FILE).write_text(json.dumps(list(self.vocab), ensure_ascii=False), encoding="utf-8")

    @staticmethod
    def load(folder: Path) -> WordTokens:
        words = json.loads((folder / WORDS_FILE).read_text(encoding="utf-8"))
        return WordTokens({w: i for i, w in enumerate(words)})


@dataclass
class ModelTokens:
    """A model's tokenizer (its Rust ``tokenizers`` backend), no special tokens added — as
    infini-gram's indexer encodes (``add_bos_token=False``); ``u16`` ids when the vocabulary
    leaves the separator free, else ``u32``."""

    name: str
    backend: Any

    @property
    def vocab_size(self) -> int:
        return int(self.backend.get_vocab_size(with_added_tokens=True))

    @property
    def dtype(self) -> str:
        return "u16" if self.vocab_size < separator("u16") else "u32"

    def encode(self, text: str) -> list[int]:
        return list(self.backend.encode(text, add_special_tokens=False).ids)

    def variants(self, text: str) -> list[list[int]]:
        """``text`` as it stands inside a document, after a space: its first token often differs
        from the one it has at a document's start (``ĠThe`` against ``The``)."""
        return [self.encode(" " + text)]

    def decode(self, ids: list[int]) -> str:
        return str(self.backend.decode(ids, skip_special_tokens=False))

    def fingerprint(self) -> str:
        return sha256_text(self.backend.to_str())


IndexTokens = WordTokens | ModelTokens


def model_tokens(spec: str, cache_dir: Path) -> ModelTokens:
    """The tokenizer named by ``--index-tokenizer``: ``smollm2`` (the bundled LM's), a folder
    holding a tokenizer, or a hub id (fetched by transformers when the user has network)."""
    if spec == BUNDLED:
        folder = local_folder(resolve_model(BUNDLED), cache_dir)
        light = fast_tokenizer(folder)
        if light is not None:
            return ModelTokens(spec, light.backend_tokenizer)
        spec_or_folder: str = str(folder)
    else:
        path = Path(spec).expanduser()
        if path.is_dir() and (light := fast_tokenizer(path)) is not None:
            return ModelTokens(spec, light.backend_tokenizer)
        spec_or_folder = spec
    return ModelTokens(spec, _transformers_backend(spec_or_folder, spec))


def _transformers_backend(where: str, spec: str) -> Any:
    try:
        from transformers import AutoTokenizer
    except ImportError:
        raise MissingDependencyError("transformers", "lm", "an index of a model's tokens") from None
    try:
        tokenizer = AutoTokenizer.from_pretrained(where)
    except Exception as exc:  # transformers raises many types for unusable folders and ids
        raise ConfigError(
            f"--index-tokenizer={spec!r} could not be loaded ({type(exc).__name__}); give words, smollm2, "
            "a folder holding tokenizer.json, or a hub id"
        ) from None
    if not getattr(tokenizer, "is_fast", False):
        raise ConfigError(f"--index-tokenizer={spec!r} has no fast tokenizer (tokenizer.json); save one with it")
    return tokenizer.backend_tokenizer
