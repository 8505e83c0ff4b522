"""Per-example features computed once and reused: word tokens and word lengths.

Word tokens follow NLTK's ``word_tokenize`` (Treebank conventions) without its ``punkt``
download: sentences are cut at ``. ! ?`` followed by white space, then each sentence goes
through ``NLTKWordTokenizer``, which needs no data files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@lru_cache(maxsize=1)
def _word_tokenizer():  # noqa: ANN202 - the nltk type is internal
    from nltk.tokenize import NLTKWordTokenizer

    return NLTKWordTokenizer()


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, cut at ``. ! ?`` followed by white space.

    >>> split_sentences("Two men are. Why? ")
    ['Two men are.', 'Why?']
    """
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def word_tokens(text: str) -> list[str]:
    """Words and punctuation of ``text``.

    >>> word_tokens("The dogs aren't here. Two men are.")
    ['The', 'dogs', 'are', "n't", 'here', '.', 'Two', 'men', 'are', '.']
    """
    tokenizer = _word_tokenizer()
    return [tok for sentence in split_sentences(text) for tok in tokenizer.tokenize(sentence)]


def word_lengths(texts: Sequence[str]) -> np.ndarray:
    """Number of word tokens per text, as int64."""
    return np.fromiter((len(word_tokens(t)) for t in texts), dtype=np.int64, count=len(texts))
