"""Generated NER and QA files are read exactly as written or refused in one line naming file,
line and field — never read differently: every Unicode space and line-break class inside a
token, empty tokens, byte-order marks, one-line and pretty-printed SQuAD, offsets before,
inside and past the context, and bytes that are not UTF-8."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tailsplit.errors import InputError
from tailsplit.shift.datasets import DatasetSpec
from tailsplit.shift.task_kinds import read_examples

# Spaces and breaks of every class that may sit inside a token (the CoNLL separators — tab and
# ASCII space — and the line feed itself excepted in column files).
ODD = ["\u00a0", "\u2002", "\u200b", "\u3000", "\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\r", "\u180e"]
LETTERS = st.text(alphabet=st.characters(categories=("L", "N")), min_size=1, max_size=4)
TOKEN = st.builds(lambda a, sep, b: a + sep + b, LETTERS, st.sampled_from(["", *ODD]), LETTERS)
LOCATED = re.compile(r":\d+: field '[a-z_]+' ")


def _tags(n: int, draw: st.DrawFn) -> list[str]:
    tags, previous = [], "O"
    for _ in range(n):
        tag = draw(st.sampled_from(["O", "B-PER", "I-PER" if previous.endswith("PER") else "B-LOC"]))
        tags.append(tag)
        previous = tag
    return tags


@st.composite
def ner_sentences(draw: st.DrawFn) -> list[dict]:
    sentences = []
    for _ in range(draw(st.integers(1, 4))):
        tokens = draw(st.lists(st.one_of(TOKEN, st.sampled_from(["", " ", "\u3000"])), min_size=1, max_size=5))
        sentences.append({"tokens": tokens, "ner_tags": _tags(len(tokens), draw)})
    return sentences


@settings(max_examples=60, deadline=None)
@given(sentences=ner_sentences(), bom=st.booleans())
def test_ner_json_lines_are_read_as_written_or_refused_in_one_line(sentences: list[dict], bom: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ner.jsonl"
        text = "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in sentences)
        path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
        empty = [i for i, s in enumerate(sentences) if any(not t.strip() for t in s["tokens"])]
        try:
            read = read_examples("ner", DatasetSpec("n", str(path), ("tokens",)), "ner_tags")
        except InputError as error:
            assert empty and f"ner.jsonl:{empty[0] + 1}: field 'tokens' " in str(error), str(error)
            return
        assert not empty
        assert read.words == tuple(tuple(s["tokens"]) for s in sentences)
        assert read.labels == tuple(tuple(s["ner_tags"]) for s in sentences)


@settings(max_examples=60, deadline=None)
@given(sentences=ner_sentences())
def test_ner_column_files_keep_every_other_space_inside_the_token(sentences: list[dict]) -> None:
    kept = [s for s in sentences if all(t.strip(" \t") and not set(t) & {" ", "\t", "\n"} for t in s["tokens"])]
    if not kept:
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ner.conll"
        path.write_text(
            "\n".join("\n".join(f"{t}\t{g}" for t, g in zip(s["tokens"], s["ner_tags"])) + "\n" for s in kept),
            encoding="utf-8",
        )
        try:
            read = read_examples("ner", DatasetSpec("n", str(path), ("tokens",)), "ner_tags")
        except InputError as error:
            # a token that is only spaces of other classes is no word; a \r ends a line's text
            assert re.search(r"ner\.conll:\d+:", str(error)), str(error)
            return
        assert read.words == tuple(tuple(s["tokens"]) for s in kept)


@st.composite
def squad_questions(draw: st.DrawFn) -> tuple[str, list[tuple[str, int]]]:
    letters = st.sampled_from(["a", "b", "é", " ", "\u3000", "\u2028", "東"])
    context = "a" + draw(st.text(alphabet=letters, min_size=2, max_size=20))  # a blank context is refused apart
    answers = []
    for _ in range(draw(st.integers(1, 2))):
        start = draw(st.integers(-len(context) - 2, len(context) + 2))
        length = draw(st.integers(1, 3))
        text = context[max(start, 0) : max(start, 0) + length] or "x"
        answers.append((text, start))
    return context, answers


@settings(max_examples=80, deadline=None)
@given(question=squad_questions(), layout=st.sampled_from(["one-line", "pretty", "jsonl"]), bom=st.booleans())
def test_squad_answers_are_read_at_their_offset_or_refused(
    question: tuple[str, list[tuple[str, int]]], layout: str, bom: bool
) -> None:
    context, answers = question
    qa = {"id": "q", "question": "Which?", "answers": [{"text": t, "answer_start": s} for t, s in answers]}
    document = {"version": "1.1", "data": [{"title": "T", "paragraphs": [{"context": context, "qas": [qa]}]}]}
    with tempfile.TemporaryDirectory() as folder:
        if layout == "jsonl":
            path = Path(folder) / "qa.jsonl"
            record = {"question": "Which?", "context": context,
                      "answers": {"text": [t for t, _ in answers], "answer_start": [s for _, s in answers]}}  # fmt: skip
            text = json.dumps(record, ensure_ascii=False) + "\n"
        else:
            path = Path(folder) / "qa.json"
            text = json.dumps(document, ensure_ascii=False, indent=1 if layout == "pretty" else None)
        path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
        right = all(0 <= s <= len(context) - len(t) and context[s : s + len(t)] == t for t, s in answers)
        try:
            read = read_examples("qa", DatasetSpec("q", str(path), ("question", "context")), "answers")
        except InputError as error:
            assert not right and "field 'answers' " in str(error), str(error)
            return
        assert right and read.columns[1] == (context,) and read.labels == (tuple(answers),)


@settings(max_examples=30, deadline=None)
@given(position=st.integers(0, 60), layout=st.sampled_from(["one-line", "pretty"]))
def test_a_byte_that_is_not_utf8_is_refused_naming_its_line(position: int, layout: str) -> None:
    document = {"data": [{"title": "T", "paragraphs": [{"context": "Paris is in France.", "qas": [
        {"id": "q", "question": "Where?", "answers": [{"text": "France", "answer_start": 12}]}]}]}]}  # fmt: skip
    text = json.dumps(document, indent=1 if layout == "pretty" else None).encode("utf-8")
    at = min(position, len(text) - 1)
    broken = text[:at] + b"\xe9" + text[at:]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "qa.json"
        path.write_bytes(broken)
        try:
            read_examples("qa", DatasetSpec("q", str(path), ("question", "context")), "answers")
        except InputError as error:
            line = broken[:at].count(b"\n") + 1
            assert f"qa.json:{line}: is not valid UTF-8" in str(error), str(error)
        else:
            raise AssertionError("a byte that is not UTF-8 was read")
