"""Per-example features computed once and reused: word tokens and word lengths.

Word tokens follow NLTK's ``word_tokenize`` (Treebank conventions) without its ``punkt``
download: sentences are cut at ``. ! ?`` followed by white space, then each sentence is
tokenised by the rules of NLTK's ``NLTKWordTokenizer`` (nltk 3.9–3.10), applied here in its
order with its engines — the ``regex`` module for the rules NLTK compiles with it, the
standard library's ``re`` for the contractions — but without NLTK's per-call timeout wrapper,
which made tokenising most of the time of a large split (the patterns are linear-time; the
possessive quantifier of the final-period rule is NLTK's own). The tests hold the tokens
equal to NLTK's on every text of the shared data and on generated strings.

Two fast paths give the same answers sooner: a sentence of ASCII letters, digits, single
hyphens, spaces and ", " with at most one closing ``. ! ?`` (most texts of NLI data) needs
none of the rules but the comma and final-punctuation ones; and ``word_lengths`` counts each
distinct text once, across the usable cores for large inputs.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

import numpy as np
import regex

from tailsplit.forking import MAX_WORKERS, on_cores, usable_cores

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLOSERS = "»”’"

# NLTKWordTokenizer's rules, in the order it applies them (STARTING_QUOTES, PUNCTUATION,
# PARENS_BRACKETS, DOUBLE_DASHES; then, on " " + text + " ", ENDING_QUOTES and contractions).
_BEFORE_PADDING = [
    (regex.compile("([«“‘„]|[`]+)"), r" \1 "),
    (regex.compile(r"^\""), r"``"),
    (regex.compile(r"(``)"), r" \1 "),
    (regex.compile(r"([ \(\[{<])(\"|\'{2})"), r"\1 `` "),
    (regex.compile(r"(?i)(?<!\w)(\')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)"), r"\1 "),
    (regex.compile(r"([^\.])(\.)([\]\)}>\"\'" + _CLOSERS + r" ]*+)\s*$"), r"\1 \2 \3 "),
    (regex.compile(r"([:,])([^\d])"), r" \1 \2"),
    (regex.compile(r"([:,])$"), r" \1 "),
    (regex.compile(r"\.{2,}"), r" \g<0> "),
    (regex.compile(r"[;@#$%&]"), r" \g<0> "),
    (regex.compile("[\u2012-\u2015]"), r" \g<0> "),
    (regex.compile(r"([^\.])(\.)([\]\)}>\"\']*)\s*$"), r"\1 \2\3 "),
    (regex.compile(r"[?!]"), r" \g<0> "),
    (regex.compile(r"([^'])' "), r"\1 ' "),
    (regex.compile(r"[*]"), r" \g<0> "),
    (regex.compile(r"[\]\[\(\)\{\}\<\>]"), r" \g<0> "),
    (regex.compile(r"--"), r" -- "),
]
_AFTER_PADDING = [
    (regex.compile("([" + _CLOSERS + "])"), r" \1 "),
    (regex.compile(r"''"), " '' "),
    (regex.compile(r'"'), " '' "),
    (regex.compile(r"\s+"), " "),
    (regex.compile(r"([^' ])('[sS]|'[mM]|'[dD]|') "), r"\1 \2 "),
    (regex.compile(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
    *(
        (re.compile(pattern), r" \1 \2 ")
        for pattern in (
            r"(?i)\b(can)(?#X)(not)\b",
            r"(?i)\b(d)(?#X)('ye)\b",
            r"(?i)\b(gim)(?#X)(me)\b",
            r"(?i)\b(gon)(?#X)(na)\b",
            r"(?i)\b(got)(?#X)(ta)\b",
            r"(?i)\b(lem)(?#X)(me)\b",
            r"(?i)\b(more)(?#X)('n)\b",
            r"(?i)\b(wan)(?#X)(na)(?=\s)",
            r"(?i) ('t)(?#X)(is)\b",
            r"(?i) ('t)(?#X)(was)\b",
        )
    ),
]

# A sentence no rule but "split ', '" and "split the closing . ! ?" can touch: ASCII words
# joined by single spaces, single hyphens or ", ", no word a contraction the rules split.
_PLAIN = re.compile(r"[A-Za-z0-9]+(?:(?:, | |-)[A-Za-z0-9]+)*[.!?]?")
_SPLIT_WORDS = re.compile(r"(?i)cannot|gimme|gonna|gotta|lemme|wanna")


def _sentence_tokens(sentence: str) -> list[str]:
    if _PLAIN.fullmatch(sentence) and not _SPLIT_WORDS.search(sentence):
        tokens = sentence.replace(", ", " , ").split()
        last = tokens[-1]
        if last[-1] in ".!?":
            tokens[-1:] = [last[:-1], last[-1]] if len(last) > 1 else [last]
        return tokens
    for pattern, replacement in _BEFORE_PADDING:
        sentence = pattern.sub(replacement, sentence)
    sentence = " " + sentence + " "
    for pattern, replacement in _AFTER_PADDING:
        sentence = pattern.sub(replacement, sentence)
    return sentence.split()


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
    return [tok for sentence in split_sentences(text) for tok in _sentence_tokens(sentence)]


def _count(texts: Sequence[str]) -> np.ndarray:
    return np.fromiter((len(word_tokens(t)) for t in texts), dtype=np.int64, count=len(texts))


# Below this many distinct texts a second process costs more than it saves.
_PARALLEL_MIN = 50_000


def per_distinct_text(
    texts: Sequence[str], compute: Callable[[Sequence[str]], np.ndarray], *, processes: int | None = None
) -> np.ndarray:
    """``compute`` (texts → an array with one row per text) applied
    to each distinct text once, on ``processes`` processes (default: the usable cores, for
    50,000 distinct texts or more), its rows given back in the order of ``texts``.

    >>> per_distinct_text(["a b", "c", "a b"], _count).tolist()
    [2, 1, 2]
    """
    codes: dict[str, int] = {}
    index = np.fromiter((codes.setdefault(t, len(codes)) for t in texts), dtype=np.int64, count=len(texts))
    distinct = list(codes)
    workers = max(1, min(processes or usable_cores(), MAX_WORKERS))
    if workers == 1 or (processes is None and len(distinct) < _PARALLEL_MIN):
        rows = compute(distinct)
    else:
        rows = np.concatenate(
            on_cores(lambda start, stop: compute(distinct[start:stop]), len(distinct), workers=workers)
        )
    return rows[index]


def word_lengths(texts: Sequence[str], *, processes: int | None = None) -> np.ndarray:
    """Number of word tokens per text, as int64: each distinct text tokenised once, on
    ``processes`` processes (default: the usable cores, for 50,000 distinct texts or more)."""
    if not len(texts):
        return np.zeros(0, dtype=np.int64)
    return per_distinct_text(texts, _count, processes=processes)


def normalized_query(text: str) -> str:
    """Lower case, punctuation dropped, whitespace collapsed.

    >>> normalized_query("A man,  sleeping.") == normalized_query("a man sleeping")
    True
    """
    return " ".join(text.lower().translate(_PUNCTUATION_TO_SPACE).split())


def normalized_queries(texts: Sequence[str]) -> list[str]:
    """:func:`normalized_query` of each text, each distinct text normalised once — or, when
    every text is ASCII, all of them lowered and translated as one string (joined by NUL,
    which no text holds then) and cut apart again: the same texts, three times faster."""
    joined = "\x00".join(texts)
    if joined.isascii() and joined.count("\x00") == len(texts) - 1:
        return [" ".join(t.split()) for t in joined.lower().translate(_PUNCTUATION_TO_SPACE).split("\x00")]
    memo: dict[str, str] = {}
    return [memo[t] if t in memo else memo.setdefault(t, normalized_query(t)) for t in texts]


class _PunctuationToSpace(dict[int, str]):
    """``str.translate`` table: every Unicode punctuation character (category P*) to a space,
    every other character to itself; filled lazily, one ``unicodedata`` lookup per character."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        self[code] = value = " " if unicodedata.category(char).startswith("P") else char
        return value


_PUNCTUATION_TO_SPACE = _PunctuationToSpace()
