"""BOSS's tasks as ``ood-rank`` and ``curve`` read them: classification, named-entity recognition
and extractive question answering — each dataset's examples read and checked, a candidate's
labels put in the ID dataset's terms, and the metric each example contributes to.

- ``classification``: text fields and a label (:mod:`~tailsplit.shift.labelled`); accuracy.
- ``ner``: a tokens field (a list of words) and a tags field (IOB2: ``B-X`` begins an entity,
  ``I-X`` continues one of type ``X``, ``O`` is outside); entity-level micro F1. A label map
  renames entity types (``group=organization``; ``location-*=location`` renames every type
  that begins ``location-``; an empty target removes those entities); a candidate type that
  is neither an ID type nor mapped onto one is refused, named.
- ``qa``: a question and a context field, and an answers field (``{"text": [...],
  "answer_start": [...]}`` or a list of ``{"text", "answer_start"}``), every answer found at
  its offset in the context; SQuAD's F1 (exact match beside it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError, InputError
from tailsplit.io.readers import read_records
from tailsplit.shift.datasets import DatasetSpec
from tailsplit.shift.labelled import LabelledSet
from tailsplit.shift.task_metrics import UNSCORED, entity_counts, entity_f1, unscored_counts


def _words(raw: Any, field: str) -> tuple[str, ...]:
    value = raw.value(field) if raw.has(field) else None
    if not isinstance(value, list) or not value or not all(isinstance(w, str) for w in value):
        raise raw.error("is missing or not a list of words", field=field, fix="give each sentence's tokens as a list")
    empty = next((i for i, w in enumerate(value) if not w.strip()), None)
    if empty is not None:
        raise raw.error(
            f"holds token {empty + 1} as {value[empty]!r}, which is no word", field=field,
            fix="drop empty tokens (and their tags) or give each token its text",
        )  # fmt: skip
    return tuple(value)


def check_iob2(raw: Any, field: str, tags: Any, n_words: int) -> tuple[str, ...]:
    """The tags of one sentence, checked: one per word, each ``O``, ``B-X`` or ``I-X`` after
    ``B-X``/``I-X`` of the same type."""
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise raw.error("is missing or not a list of tags", field=field, fix="give each sentence's IOB2 tags as a list")
    if len(tags) != n_words:
        raise raw.error(f"has {len(tags)} tags for {n_words} tokens", field=field, fix="give one tag per token")
    previous = "O"
    for i, tag in enumerate(tags):
        if tag != "O" and (tag[:2] not in ("B-", "I-") or len(tag) < 3):
            raise raw.error(
                f"tag {tag!r} (token {i + 1}) is not O, B-TYPE or I-TYPE", field=field, fix="give IOB2 tags"
            )
        if tag.startswith("I-") and previous[2:] != tag[2:]:
            raise raw.error(
                f"tag {tag!r} (token {i + 1}) follows {previous!r}: an entity begins with B-",
                field=field,
                fix="give IOB2 tags (convert IOB1 or IO tags: an entity's first tag is B-TYPE)",
            )
        previous = tag
    return tuple(tags)


def _answers(raw: Any, field: str, context: str) -> tuple[tuple[str, int], ...]:
    """The gold answers of one question, each checked at its offset in the context."""
    value = raw.value(field) if raw.has(field) else None
    if isinstance(value, Mapping):
        texts, starts = value.get("text"), value.get("answer_start")
        pairs = (
            list(zip(texts, starts))
            if isinstance(texts, list) and isinstance(starts, list) and len(texts) == len(starts)
            else None
        )
    elif isinstance(value, list) and all(isinstance(a, Mapping) for a in value):
        pairs = [(a.get("text"), a.get("answer_start")) for a in value]
    else:
        pairs = None
    if not pairs:
        raise raw.error(
            "is missing or not a list of answers",
            field=field,
            fix='give {"text": [...], "answer_start": [...]} with one start per answer (SQuAD v1.1: answerable questions)',
        )
    for text, start in pairs:
        if not isinstance(text, str) or not text or isinstance(start, bool) or not isinstance(start, int):
            raise raw.error(f"holds answer {text!r} at {start!r}: not a text and a character offset", field=field)
        if not 0 <= start <= len(context) - len(text):
            raise raw.error(
                f"holds answer {text!r} at offset {start}, outside the context's {len(context)} characters",
                field=field,
                fix="give each answer's start as its character offset in the context, from 0",
            )
        if context[start : start + len(text)] != text:
            raise raw.error(
                f"answer {text!r} is not at offset {start} of the context (it reads {context[start : start + len(text)]!r})",
                field=field,
                fix="give each answer's start as its character offset in the context",
            )
    return tuple((t, s) for t, s in pairs)


def read_ner(spec: DatasetSpec, label_field: str, location: Path, *, allow_empty: bool = False) -> LabelledSet:
    """Every sentence of a NER dataset: its tokens and IOB2 tags, checked (a ``.txt`` file is
    read as columns)."""
    columns, labels, words = [], [], []
    columns_file = location.name.lower().removesuffix(".gz").endswith(".txt")
    for raw in read_records(_existing(location), "conll" if columns_file else None):
        tokens = _words(raw, spec.fields[0])
        value = raw.value(label_field) if raw.has(label_field) else None
        labels.append(check_iob2(raw, label_field, value, len(tokens)))
        words.append(tokens)
        columns.append(" ".join(tokens))
    _refuse_empty(location, labels, allow_empty)
    return LabelledSet(spec.name, str(location), (tuple(columns),), tuple(labels), words=tuple(words))


def read_qa(spec: DatasetSpec, label_field: str, location: Path, *, allow_empty: bool = False) -> LabelledSet:
    """Every question of an extractive-QA dataset: question, context and its answers, each
    checked at its offset."""
    questions: list[str] = []
    contexts: list[str] = []
    labels: list[Any] = []
    for raw in read_records(_existing(location)):
        question, context = (raw.value(f) if raw.has(f) else None for f in spec.fields)
        for f, v in zip(spec.fields, (question, context)):
            if not isinstance(v, str) or not v.strip():
                raise raw.error("is missing or not text", field=f, fix="name the question and context fields after @")
        labels.append(_answers(raw, label_field, context))  # type: ignore[arg-type]
        questions.append(question)  # type: ignore[arg-type]
        contexts.append(context)  # type: ignore[arg-type]
    _refuse_empty(location, labels, allow_empty)
    return LabelledSet(spec.name, str(location), (tuple(questions), tuple(contexts)), tuple(labels))


def _existing(location: Path) -> Path:
    if not location.exists():
        raise InputError("does not exist", path=location, fix="check the dataset path")
    return location


def _refuse_empty(location: Path, labels: list[Any], allow_empty: bool) -> None:
    if not labels and not allow_empty:
        raise InputError("holds no records", path=location, fix="check that it is the right file")


def entity_types(tags_of: Sequence[Sequence[str]]) -> set[str]:
    return {tag[2:] for tags in tags_of for tag in tags if tag != "O"}


def map_type(name: str, label_map: Mapping[str, str]) -> str:
    """An entity type in ID's terms: its own entry, else the longest ``PREFIX*`` entry it matches.

    >>> map_type("location-GPE", {"location-*": "location"}), map_type("person", {})
    ('location', 'person')
    """
    if name in label_map:
        return label_map[name]
    prefixes = [k for k in label_map if k.endswith("*") and name.startswith(k[:-1])]
    return label_map[max(prefixes, key=len)] if prefixes else name


def map_tags(tags: Sequence[str], label_map: Mapping[str, str], *, unscored: bool = False) -> tuple[str, ...]:
    """Tags with their types mapped; an entity mapped to nothing becomes ``O``, or with
    ``unscored`` keeps its span as type :data:`UNSCORED` (a gold entity nobody is scored on).

    >>> map_tags(["B-MISC", "I-MISC", "O", "B-PER"], {"MISC": "", "PER": "person"})
    ('O', 'O', 'O', 'B-person')
    >>> map_tags(["B-MISC", "O"], {"MISC": ""}, unscored=True) == (f"B-{UNSCORED}", "O")
    True
    """
    out = []
    for tag in tags:
        target = "" if tag == "O" else map_type(tag[2:], label_map)
        out.append(f"{tag[:2]}{target}" if target else f"{tag[:2]}{UNSCORED}" if unscored and tag != "O" else "O")
    return tuple(out)


def ner_candidate(candidate: LabelledSet, id_set: LabelledSet, label_map: Mapping[str, str]) -> LabelledSet:
    """A NER candidate's gold tags in ID's terms (see the module's docstring): a type mapped to
    nothing left unscored, a type neither ID's nor mapped refused, a set without gold entities
    refused (its F1 is undefined)."""
    known = {map_type(t, label_map) for t in entity_types(id_set.labels)}
    gold = [map_tags(tags, label_map, unscored=True) for tags in candidate.labels]
    unmapped = sorted(
        t for t in entity_types(candidate.labels) if map_type(t, label_map) and map_type(t, label_map) not in known
    )
    if unmapped:
        raise ConfigError(
            f"candidate {candidate.name!r} ({candidate.path}) has entity types the ID data does not: "
            f"{', '.join(map(repr, unmapped))}; the ID types are {sorted(known)}; map each with --label-map "
            "FROM=TO (FROM may end in *; TO empty removes those entities)"
        )
    if not any(tag != "O" and not tag.endswith(UNSCORED) for tags in gold for tag in tags):
        raise ConfigError(
            f"candidate {candidate.name!r} ({candidate.path}) has no gold entity left after the label map, so its "
            "entity F1 is undefined; map at least one of its types onto an ID type, or leave the set out"
        )
    return replace(candidate, labels=tuple(gold))


def unscored_effect(
    predicted: Sequence[Sequence[str]], gold: Sequence[Sequence[str]], label_map: Mapping[str, str]
) -> dict[str, Any] | None:
    """What leaving removed types unscored changes on one NER set (``None`` when the label map
    removed none of its entities): the gold entities left out, the predictions on them left
    out, and the entity F1 had those predictions counted as wrong (as before they were not);
    predictions are mapped by ``label_map`` first, as :func:`example_stats` maps them.

    >>> unscored_effect([("B-x", "I-x", "O", "B-person")], [(f"B-{UNSCORED}", f"I-{UNSCORED}", "O", "B-person")], {})
    {'gold_entities_unscored': 1, 'predictions_unscored': 1, 'entity_f1': 1.0, 'entity_f1_counting_them_wrong': 0.6667}
    """
    mapped = [map_tags(p, label_map) for p in predicted]
    counts = np.array([unscored_counts(p, g) for p, g in zip(mapped, gold)], dtype=np.int64).reshape(-1, 2)
    if not counts[:, 0].sum():
        return None
    sums = np.array([entity_counts(p, g) for p, g in zip(mapped, gold)], dtype=np.float64).reshape(-1, 3).sum(0)
    wrong = sums + np.array([0.0, counts[:, 1].sum(), 0.0])
    return {
        "gold_entities_unscored": int(counts[:, 0].sum()),
        "predictions_unscored": int(counts[:, 1].sum()),
        "entity_f1": round(float(entity_f1(sums)), 4),
        "entity_f1_counting_them_wrong": round(float(entity_f1(wrong)), 4),
    }
