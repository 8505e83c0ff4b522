"""NER column files as they are published (CoNLL-2003, WNUT-17, Few-NERD; ``.conll``, or
``.txt`` where the task is NER): one token per line,
the token first and its tag last (columns between them — part of speech, chunk — are read
past), a blank line between sentences, ``-DOCSTART-`` lines skipped. Each sentence becomes a
record ``{"tokens": [...], "ner_tags": [...]}`` located at its first line.

Tags come in two schemes: prefixed (``B-PER``, ``I-PER``, ``O``: CoNLL, WNUT) or bare types
(``person-actor``, ``O``: Few-NERD's IO tags, where consecutive tokens of one type are one
entity); a file of bare types is read into IOB2. A file that mixes the two is refused.

>>> lines = [(1, "EU B-ORG"), (2, "rejects O"), (3, ""), (4, "Peter B-PER"), (5, "Blackburn I-PER")]
>>> [(r.line, r.record["ner_tags"]) for r in conll_records("f.conll", lines)]
[(1, ['B-ORG', 'O']), (4, ['B-PER', 'I-PER'])]
>>> [r.record["ner_tags"] for r in conll_records("f.txt", [(1, "Paris location-GPE"), (2, "Texas location-GPE")])]
[['B-location-GPE', 'I-location-GPE']]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from tailsplit.errors import InputError
from tailsplit.io.raw import RawRecord

TOKENS, TAGS = "tokens", "ner_tags"
# The format's own separators: a tab or an ASCII space. Other spaces (U+00A0, U+3000, ...)
# belong to the token: "New\u00a0York" is one token, as written.
_COLUMNS = re.compile(r"[ \t]+")
_PREFIXES = ("B-", "I-", "E-", "S-")


def _sentences(path: str | Path, lines: Iterable[tuple[int, str]]) -> list[tuple[int, list[str], list[str]]]:
    """(first line, tokens, tags) of every sentence."""
    sentences: list[tuple[int, list[str], list[str]]] = []
    first, tokens, tags = 0, list[str](), list[str]()
    for line_no, text in lines:
        columns = [c for c in _COLUMNS.split(text.rstrip("\r\n")) if c]
        if not columns or columns[0] == "-DOCSTART-":
            if tokens:
                sentences.append((first, tokens, tags))
            first, tokens, tags = 0, list[str](), list[str]()
            continue
        if len(columns) < 2:
            raise InputError(
                f"has one column ({columns[0]!r}); a column file gives the token first and its tag last",
                path=path,
                line=line_no,
                fix="give NER data as token and tag columns, a blank line between sentences",
            )
        first = first or line_no
        tokens.append(columns[0])
        tags.append(columns[-1])
    if tokens:
        sentences.append((first, tokens, tags))
    return sentences


def _as_iob2(tags: list[str]) -> list[str]:
    """Bare types (IO tags) as IOB2: a token of another type than the one before begins an entity."""
    out, previous = [], "O"
    for tag in tags:
        out.append("O" if tag == "O" else (f"I-{tag}" if tag == previous else f"B-{tag}"))
        previous = tag
    return out


def conll_records(path: str | Path, lines: Iterable[tuple[int, str]]) -> Iterator[RawRecord]:
    """The sentences of a column file as records (see the module's docstring)."""
    sentences = _sentences(path, lines)
    tags_seen = {tag for _, _, tags in sentences for tag in tags if tag != "O"}
    prefixed = {tag for tag in tags_seen if tag.startswith(_PREFIXES)}
    if prefixed and prefixed != tags_seen:
        bare = sorted(tags_seen - prefixed)[0]
        line = next(first + tags.index(bare) for first, _, tags in sentences if bare in tags)
        raise InputError(
            f"mixes prefixed tags ({sorted(prefixed)[0]!r}) with a bare type ({bare!r})",
            path=path,
            line=line,
            fix="give every entity tag a B-/I- prefix (IOB2), or none (IO tags, as Few-NERD's)",
        )
    for row, (first, tokens, tags) in enumerate(sentences, start=1):
        yield RawRecord({TOKENS: tokens, TAGS: tags if prefixed else _as_iob2(tags)}, str(path), row, first)
