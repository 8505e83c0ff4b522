"""Structured queries: required phrases (a hard filter) and optional content words (scored).

A corpus entry passes when the required phrases occur in the given order, each starting at
most ``window`` tokens after the previous one ends (the overlap method's two Winograd predicates
within 10 tokens). Only passing entries are scored, with BM25 over all query words.

Extractors turn a test record into a query; register a task-specific one with
``tailsplit.overlap.query.QUERY_EXTRACTORS.register("name", "module:Class")``. Built in:

- ``generic``: optional = content words of the text; required = the values of
  ``required_fields`` (each a phrase, in that order), if any;
- ``winograd``: for records with ``text``, ``options`` (the two candidates) and ``pronoun`` /
  ``pronoun_char_offset`` (WSC273's fields): required = the context predicate (first content
  word after the earliest candidate mention — whichever candidate comes first) then the query
  predicate (first content word after the pronoun); optional = every content word. A mention
  is the candidate's text, case-insensitively, else its head noun (last word) as a whole
  word — 22 of WSC273's schemas name a candidate differently from the text ("the
  councilmen" for "The city councilmen"); a record with neither keeps only the query
  predicate and says so in ``note``. A rule, not a parser: it finds "refused … feared" in
  "The city councilmen refused the demonstrators a permit because they feared violence."
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tailsplit.errors import InputError
from tailsplit.overlap.tokens import content_words, overlap_tokens, stopwords
from tailsplit.registry import Registry


@dataclass(frozen=True)
class StructuredQuery:
    required: tuple[tuple[str, ...], ...] = ()
    optional: tuple[str, ...] = ()
    window: int = 10
    note: str | None = None  # how the extractor fell short, when it did

    def terms(self) -> list[str]:
        """Every distinct query word, required first."""
        return list(dict.fromkeys([t for phrase in self.required for t in phrase] + list(self.optional)))


class QueryExtractor(Protocol):
    def query(self, record: Mapping[str, Any], text: str) -> StructuredQuery: ...


class GenericQueryExtractor:
    def __init__(self, required_fields: Sequence[str] = (), window: int = 10) -> None:
        self.required_fields, self.window = tuple(required_fields), window

    def query(self, record: Mapping[str, Any], text: str) -> StructuredQuery:
        required = []
        for name in self.required_fields:
            value = record.get(name)
            if not isinstance(value, str) or not overlap_tokens(value):
                raise InputError(
                    "is missing or empty",
                    field=name,
                    fix="give every test record that field, or drop it from --required-field",
                )
            required.append(tuple(overlap_tokens(value)))
        return StructuredQuery(tuple(required), tuple(content_words(overlap_tokens(text))), self.window)


class WinogradQueryExtractor:
    def __init__(self, window: int = 10, **_: Any) -> None:
        self.window = window

    def query(self, record: Mapping[str, Any], text: str) -> StructuredQuery:
        options, offset = record.get("options"), record.get("pronoun_char_offset")
        if not isinstance(options, list) or len(options) < 2 or not isinstance(offset, int):
            raise InputError(
                "lacks WSC fields",
                field="options/pronoun_char_offset",
                fix="use --query-kind generic for records without them",
            )
        mention = first_mention(text, [str(o) for o in options])
        # The context predicate follows the first candidate, before the pronoun when the pronoun
        # comes later ("Patting her back, the woman smiled ..." has it after both).
        end = offset if mention is not None and offset > mention[1] else len(text)
        context = None if mention is None else _first_content_word(text[mention[1] : end])
        after_pronoun = text[offset + len(str(record.get("pronoun", ""))) :]
        query_predicate = _first_content_word(after_pronoun)
        required = tuple((w,) for w in (context, query_predicate) if w)
        note = None
        if mention is None:
            note = "no candidate is mentioned in the text; only the query predicate is required"
        elif context is None:
            note = "no content word between the first candidate and the pronoun; only the query predicate is required"
        return StructuredQuery(required, tuple(content_words(overlap_tokens(text))), self.window, note)


def first_mention(text: str, candidates: Sequence[str]) -> tuple[int, int] | None:
    """(start, end) of the earliest mention of any candidate in ``text``; a candidate is
    mentioned by itself (case-insensitive), else by its head noun (last word) as a whole
    word; ``None`` if no candidate is.

    >>> text = "Joan made sure to thank Susan for all the help she had given."
    >>> first_mention(text, ["Susan", "Joan"])
    (0, 4)
    >>> first_mention("The city councilmen refused.", ["the councilmen", "the demonstrators"])
    (9, 19)
    >>> first_mention("Sam pulled up a chair to the piano.", ["The chair", "The piano"])
    (16, 21)
    """
    lower = text.lower()
    spans = []
    for candidate in candidates:
        start = lower.find(candidate.lower()) if candidate else -1
        if start >= 0:
            spans.append((start, start + len(candidate)))
        elif words := candidate.split():
            found = re.search(rf"\b{re.escape(words[-1].lower())}\b", lower)
            if found:
                spans.append((found.start(), found.end()))
    return min(spans) if spans else None


def _first_content_word(text: str) -> str | None:
    stop = stopwords()
    return next((t for t in overlap_tokens(text) if t not in stop and not t.isdigit()), None)


QUERY_EXTRACTORS = Registry("query_kind", {"generic": GenericQueryExtractor, "winograd": WinogradQueryExtractor})


def phrases_in_order(tokens: np.ndarray, phrases: Sequence[np.ndarray], window: int) -> bool:
    """Do ``phrases`` (token id arrays) occur in order in ``tokens``, each starting at most
    ``window`` tokens after the previous one ends?

    >>> phrases_in_order(np.array([1, 2, 9, 9, 3]), [np.array([1, 2]), np.array([3])], 2)
    True
    >>> phrases_in_order(np.array([3, 1, 2]), [np.array([1, 2]), np.array([3])], 5)
    False
    """
    ends = None  # possible end positions (exclusive) of the chain so far
    for phrase in phrases:
        starts = _occurrences(tokens, phrase)
        if ends is not None:
            starts = [s for s in starts if any(e <= s <= e + window for e in ends)]
        if not starts:
            return False
        ends = [s + len(phrase) for s in starts]
    return True


def _occurrences(tokens: np.ndarray, phrase: np.ndarray) -> list[int]:
    n = len(phrase)
    if n == 0 or n > len(tokens):
        return []
    hits = np.flatnonzero(tokens[: len(tokens) - n + 1] == phrase[0])
    return [int(i) for i in hits if np.array_equal(tokens[i : i + n], phrase)]
