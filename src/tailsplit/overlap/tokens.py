"""Tokens for overlap search: lower-case word characters, so "Violence," and "violence"
match. Stop words come from bm25s's English list (content words are the rest)."""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"\w+", re.UNICODE)


def overlap_tokens(text: str) -> list[str]:
    """Lower-case word tokens.

    >>> overlap_tokens("The city councilmen refused, because they FEARED violence.")
    ['the', 'city', 'councilmen', 'refused', 'because', 'they', 'feared', 'violence']
    """
    return _WORD.findall(text.lower())


# Auxiliaries, contraction stems and degree words that bm25s's list lets through; none of
# them carries the content a predicate or a topic needs.
_EXTRA_STOPWORDS = (
    "t s d m doesn don didn wasn weren isn aren hasn haven hadn couldn wouldn shouldn won ll ve re "
    "can cannot could would should may might must shall will too very so quite really just "
    "had has have was were is are be been being do does did also even still"
).split()


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN) | frozenset(_EXTRA_STOPWORDS)


def content_words(tokens: list[str]) -> list[str]:
    """Tokens that are not stop words, in order, each once."""
    stop = stopwords()
    return list(dict.fromkeys(t for t in tokens if t not in stop))
