"""SQuAD's nested JSON as it is published (``{"data": [{"title", "paragraphs": [{"context",
"qas": [{"id", "question", "answers": [{"text", "answer_start"}]}]}]}]}``), flattened into one
record per question in the Hugging Face layout: ``id``, ``title``, ``context``, ``question``,
``answers`` = ``{"text": [...], "answer_start": [...]}``. A record is located by its place in
the file (``data[0].paragraphs[2].qas[1]``), named in any error about it.

>>> doc = {"data": [{"title": "T", "paragraphs": [{"context": "Paris is in France.",
...        "qas": [{"id": "q1", "question": "Where is Paris?", "answers": [{"text": "France", "answer_start": 12}]}]}]}]}
>>> [r.record["answers"] for r in squad_records("dev.json", doc)]
[{'text': ['France'], 'answer_start': [12]}]
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeGuard

from tailsplit.errors import InputError
from tailsplit.io.raw import RawRecord


def is_squad(document: Any) -> TypeGuard[dict[str, Any]]:
    """Whether a parsed JSON document is SQuAD's nested layout (``{"data": []}`` is: one that
    holds no question).

    >>> is_squad({"data": []}), is_squad({"data": [{"paragraphs": []}]}), is_squad({"question": "q"})
    (True, True, False)
    """
    data = document.get("data") if isinstance(document, dict) else None
    return isinstance(data, list) and all(isinstance(a, dict) and "paragraphs" in a for a in data)


def _list(value: Any, where: str, path: str | Path) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(
            f"{where} is not a list", path=path, fix="give SQuAD's layout: data → paragraphs → qas → answers"
        )
    return value


def squad_records(path: str | Path, document: dict[str, Any]) -> Iterator[RawRecord]:
    """One record per question, in file order (see the module's docstring)."""
    row = 0
    for a, article in enumerate(document["data"]):
        for p, paragraph in enumerate(_list(article.get("paragraphs"), f"data[{a}].paragraphs", path)):
            where = f"data[{a}].paragraphs[{p}]"
            if not isinstance(paragraph, dict) or not isinstance(paragraph.get("context"), str):
                raise InputError(f"{where} has no context text", path=path, fix="give each paragraph its context")
            for q, qa in enumerate(_list(paragraph.get("qas"), f"{where}.qas", path)):
                answers = _list(qa.get("answers") if isinstance(qa, dict) else None, f"{where}.qas[{q}].answers", path)
                if not all(isinstance(x, dict) for x in answers):
                    raise InputError(
                        f"{where}.qas[{q}].answers holds an answer that is not an object",
                        path=path,
                        fix='give each answer as {"text": ..., "answer_start": ...}',
                    )
                row += 1
                record = {
                    "id": qa.get("id", f"{a}-{p}-{q}"),
                    "title": article.get("title", ""),
                    "context": paragraph["context"],
                    "question": qa.get("question"),
                    "answers": {
                        "text": [x.get("text") for x in answers],
                        "answer_start": [x.get("answer_start") for x in answers],
                    },
                }
                yield RawRecord(record, f"{path} ({where}.qas[{q}])", row)
