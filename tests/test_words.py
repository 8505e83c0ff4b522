"""Word tokens equal NLTK's Treebank tokenizer (``NLTKWordTokenizer`` after tailsplit's
sentence cut) on every text of the shared data and on generated strings."""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import SAMPLE
from hypothesis import given, settings
from hypothesis import strategies as st

from tailsplit.analysis.text_counts import compute_text_counts
from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.words import split_sentences, word_lengths, word_tokens

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


@functools.cache
def nltk_tokenizer() -> Any:
    """NLTK's tokenizer, imported by the first test that needs it (importing nltk takes about
    5 s: a test worker that runs none of these tests does not pay it while collecting)."""
    return pytest.importorskip("nltk.tokenize").NLTKWordTokenizer()


def nltk_tokens(text: str) -> list[str]:
    tokenizer = nltk_tokenizer()
    return [tok for sentence in split_sentences(text) for tok in tokenizer.tokenize(sentence)]


def strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def shared_texts() -> list[str]:
    texts: set[str] = set()
    for path in sorted(SHARED.glob("*/*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                texts.update(strings(json.loads(line)))
    return sorted(texts)


NLTK_RECORD = Path(__file__).parent / "fixtures" / "nltk_tokens_of_the_shared_data.json"


def _digest(items: list) -> str:
    return hashlib.sha256(json.dumps(items, ensure_ascii=False).encode("utf-8")).hexdigest()


@pytest.mark.long
@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared data is not beside the checkout")
def test_tokens_equal_nltk_on_every_text_of_the_shared_data() -> None:
    """Every text's tokens equal NLTK's. NLTK is the slow side (a minute), so its tokens of
    these texts are recorded as one sha256 (with the texts' sha256 and NLTK's version): ours
    are checked against that record exactly; when the texts or NLTK's version differ from the
    record, or ours do not match it, NLTK runs on every text and the texts that differ are
    named. TAILSPLIT_UPDATE_SNAPSHOTS=1 rewrites the record from NLTK's own output."""
    import nltk

    texts = shared_texts()
    assert len(texts) > 50_000  # SNLI, MNLI, ANLI, BoolQ, Spider (+ tables), SemEval, WSC
    ours = [word_tokens(t) for t in texts]
    record = json.loads(NLTK_RECORD.read_text(encoding="utf-8")) if NLTK_RECORD.exists() else {}
    same_inputs = record.get("nltk") == nltk.__version__ and record.get("texts_sha256") == _digest(texts)
    if not same_inputs or _digest(ours) != record.get("tokens_sha256") or os.environ.get("TAILSPLIT_UPDATE_SNAPSHOTS"):
        expected = [nltk_tokens(t) for t in texts]  # the slow side
        assert [t for t, mine, theirs in zip(texts, ours, expected) if mine != theirs] == []
        if os.environ.get("TAILSPLIT_UPDATE_SNAPSHOTS"):
            record = {"nltk": nltk.__version__, "texts": len(texts), "texts_sha256": _digest(texts),
                      "tokens_sha256": _digest(expected)}  # fmt: skip
            NLTK_RECORD.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    # The parallel counter over every eighth text (all ~19,000 of them spread over the sources):
    # it tokenises with the same function, so a sample checks its own work (order, distinct
    # texts, the processes) as well as every text would, in a sixth of the time.
    assert word_lengths(texts[::8], processes=2).tolist() == [len(tokens) for tokens in ours[::8]]


TRICKY = list("abcAB019 .,;:!?'\"`-()[]{}<>*@#$%&«»“”‘’„\u2013\u2014\t\n") + [
    "can", "not", "gon", "na", "wan", "'t", "is", "n't", "'s", "'ll", "more", "'n", "d", "'ye", "...", "--", "''",
    "é", "\u0301", "\u00a0", "\x1c", "ß", "٣",
]  # fmt: skip


@pytest.mark.long
@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(TRICKY), max_size=30).map("".join) | st.text(max_size=40))
def test_tokens_equal_nltk_on_generated_strings(text: str) -> None:
    assert word_tokens(text) == nltk_tokens(text)


def test_lengths_count_each_distinct_text_once_in_input_order() -> None:
    texts = ["A man sleeps.", "Two dogs, one cat!", "A man sleeps.", "", "He can't; she cannot."]
    expected = [len(nltk_tokens(t)) for t in texts]
    assert word_lengths(texts).tolist() == expected == [4, 6, 4, 0, 8]
    assert word_lengths(texts, processes=2).tolist() == expected
    assert word_lengths(texts, processes=8).tolist() == expected  # more processes than distinct texts
    assert word_lengths(["A man sleeps."] * 3, processes=2).tolist() == [4, 4, 4]  # one chunk: no fork
    assert word_lengths([]).dtype == np.int64 and len(word_lengths([])) == 0


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(st.text(max_size=12) | st.sampled_from(TRICKY), max_size=6)
    | st.lists(st.text(st.characters(max_codepoint=127), max_size=12), max_size=6)  # ASCII: one joined string
)
def test_normalized_queries_equal_the_character_by_character_definition(texts: list[str]) -> None:
    """Leakage and normalised folds drop punctuation through a cached translate table (ASCII
    texts as one NUL-joined string; a NUL in a text falls back); it equals the definition:
    lower case, each Unicode punctuation character a space, spaces collapsed."""
    import unicodedata

    from tailsplit.words import normalized_queries

    def definition(text: str) -> str:
        kept = "".join(" " if unicodedata.category(c).startswith("P") else c for c in text.lower())
        return " ".join(kept.split())

    assert normalized_queries(texts + texts) == [definition(t) for t in texts + texts]


def test_text_counts_and_word_lengths_agree() -> None:
    """A run takes its word lengths from the analysis' text counts when an analysis follows
    (the queries are tokenised once), else from word_lengths: the two must be the same."""
    texts = list(load_examples(str(SAMPLE), FieldMap(text="hypothesis")).texts[:400])
    texts += ["", "   ", "Don't stop—it's 3.5 km.", "“Quoted” … text", "e.g. U.S.A. costs $5."]
    assert np.array_equal(compute_text_counts(texts).words, word_lengths(texts))
