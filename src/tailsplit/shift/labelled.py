"""Labelled datasets for the task model of ``ood-rank`` and ``curve``: the text fields and the
gold label of every example, the ID dataset divided into train / dev / test, and the label map
that names a candidate's labels in the ID dataset's terms.

The ID dataset is a file — divided by a seeded random split (``test_size``, then
``dev_size`` of the rest) — or a split folder written by ``tailsplit split``/``run``, whose
train, dev and test parts are used as they are.

A label map ``FROM=TO`` renames a label before gold labels and predictions are compared on a
candidate: ``0=entailment`` reads a numeric label as ID's name, ``neutral=not_entailment`` and
``contradiction=not_entailment`` fold a three-way model's predictions onto a two-way test set,
and ``-=`` (an empty name) drops the examples with that gold label (counted in the output).
A candidate label that is neither an ID label nor mapped onto one is refused, with the list.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.core import SPLIT_PARTS
from tailsplit.errors import ConfigError, InputError
from tailsplit.fingerprint import sha256_text
from tailsplit.io.examples import label_to_str
from tailsplit.io.readers import read_records
from tailsplit.rng import DEV_TEST_DIVISION, SPLIT_ORDER, seeded_rng
from tailsplit.shift.datasets import DatasetSpec, sample_indices, text_field


@dataclass(frozen=True)
class LabelledSet:
    """The examples of one dataset (or part): a column per text field, and the gold labels."""

    name: str
    path: str
    columns: tuple[tuple[str, ...], ...]
    labels: tuple[Any, ...]  # a label; NER: a sentence's tags; QA: a question's (answer, start) pairs
    dropped: int = 0  # examples whose gold label the label map drops
    words: tuple[tuple[str, ...], ...] = ()  # NER: each sentence's tokens (its column joins them)

    def __len__(self) -> int:
        return len(self.labels)

    def texts(self) -> list[str]:
        """The fields of each example joined by a space (what the sentence encoder embeds)."""
        return [" ".join(parts) for parts in zip(*self.columns)]

    def take(self, keep: np.ndarray, name: str | None = None) -> LabelledSet:
        rows = keep.tolist()
        return LabelledSet(
            name or self.name,
            self.path,
            tuple(tuple(c[i] for i in rows) for c in self.columns),
            tuple(self.labels[i] for i in rows),
            self.dropped,
            tuple(self.words[i] for i in rows) if self.words else (),
        )

    def sample(self, max_examples: int | None, seed: int) -> LabelledSet:
        """A seeded sample of at most ``max_examples`` (file order kept), as the shift commands
        sample a dataset's texts."""
        keep = sample_indices(len(self), max_examples, seed)
        return self if keep is None else self.take(keep)

    def fingerprint(self) -> str:
        """sha256 of the texts and labels (what a task model's cache key holds)."""
        return sha256_text(json.dumps([self.columns, self.labels, *([self.words] if self.words else [])]))


def parse_label_map(items: Sequence[str]) -> dict[str, str]:
    """``["0=entailment", "-="]`` → ``{"0": "entailment", "-": ""}``.

    >>> parse_label_map(["neutral=not_entailment", "-="])
    {'neutral': 'not_entailment', '-': ''}
    """
    mapping: dict[str, str] = {}
    for item in items:
        source, sep, target = item.partition("=")
        if not sep or not source or "=" in target:
            raise ConfigError(
                f"--label-map={item!r} is not FROM=TO with one '='; e.g. --label-map 0=entailment (TO empty drops)"
            )
        if source in mapping and mapping[source] != target:
            raise ConfigError(f"--label-map maps {source!r} twice ({mapping[source]!r} and {target!r}); give it once")
        mapping[source] = target
    return mapping


def read_labelled(
    spec: DatasetSpec, label_field: str, path: str | Path | None = None, *, allow_empty: bool = False
) -> LabelledSet:
    """Every record's text fields and label, exactly (a missing field names file and line)."""
    location = Path(path or spec.path)
    if not location.exists():
        raise InputError("does not exist", path=location, fix="check the dataset path")
    columns: list[list[str]] = [[] for _ in spec.fields]
    labels: list[str] = []
    for raw in read_records(location):
        for column, field in zip(columns, spec.fields):
            column.append(text_field(raw, spec, field))
        value = raw.value(label_field) if raw.has(label_field) else None
        if value is None or isinstance(value, (dict, list)) or (isinstance(value, str) and not value.strip()):
            raise raw.error(
                "is missing, empty or not a label",
                field=label_field,
                fix="name the gold label field with --label-field",
            )
        labels.append(label_to_str(value))
    if not labels and not allow_empty:
        raise InputError("holds no records", path=location, fix="check that it is the right file")
    return LabelledSet(spec.name, str(location), tuple(tuple(c) for c in columns), tuple(labels))


@dataclass(frozen=True)
class IdParts:
    """The ID dataset's train, dev and test parts, and how they were made."""

    train: LabelledSet
    dev: LabelledSet
    test: LabelledSet
    origin: str  # "split folder" or "random split (seed S)"

    def describe(self) -> dict[str, object]:
        return {"origin": self.origin, **{p: len(getattr(self, p)) for p in SPLIT_PARTS}}

    def whole(self) -> LabelledSet:
        """Train, dev and test together (the ID data the sentence encoder embeds)."""
        parts = (self.train, self.dev, self.test)
        columns = tuple(sum(field, ()) for field in zip(*(p.columns for p in parts)))
        words = sum((p.words for p in parts), ())
        return replace(self.train, columns=columns, labels=sum((p.labels for p in parts), ()), words=words)


def id_parts(
    whole: LabelledSet, *, test_size: float, dev_size: float, seed: int, groups: Sequence[str] | None = None
) -> IdParts:
    """The ID file divided by a seeded random split: ``test_size`` of it to test, then
    ``dev_size`` of the rest to dev (shares below 1, counts from 1). With ``groups`` (a key
    per example: a passage, an article, a hypothesis) whole groups are drawn until each part
    has its share, so no group is in two parts.

    >>> whole = LabelledSet("q", "q.jsonl", (tuple("abcdefgh"),), tuple("yyyyyyyy"))
    >>> parts = id_parts(whole, test_size=0.25, dev_size=0, seed=0, groups=list("aabbccdd"))
    >>> sorted(set(parts.test.columns[0])) in (["a", "b"], ["c", "d"], ["a", "c"], ["b", "d"], ["a", "d"], ["b", "c"])
    True
    """
    n = len(whole)
    n_test = _count(test_size, n, "--id-test-size")
    codes = np.arange(n) if groups is None else np.unique(np.asarray(groups, dtype=str), return_inverse=True)[1]
    sizes = np.bincount(codes)
    order = seeded_rng(seed, SPLIT_ORDER).permutation(len(sizes))
    k = _groups_for(sizes[order], n_test)
    test_groups, rest = order[:k], order[k:]
    n_dev = _count(dev_size, int(sizes[rest].sum()), "--id-dev-size")
    rest = rest[seeded_rng(seed, DEV_TEST_DIVISION).permutation(len(rest))]
    k_dev = _groups_for(sizes[rest], n_dev)
    test, dev = np.flatnonzero(np.isin(codes, test_groups)), np.flatnonzero(np.isin(codes, rest[:k_dev]))
    train = np.flatnonzero(np.isin(codes, rest[k_dev:]))
    if len(train) < 2 or len(test) < 1:
        raise ConfigError(
            f"the ID dataset {whole.path!r} has {n} examples: too few for a train part and a test part of "
            f"{n_test}{'' if groups is None else ' in whole groups'}; give more examples or a smaller --id-test-size"
        )
    return IdParts(
        whole.take(train, f"{whole.name}:train"),
        whole.take(dev, f"{whole.name}:dev"),
        whole.take(test, f"{whole.name}:test"),
        f"random split (seed {seed})" if groups is None else f"random split of whole groups (seed {seed})",
    )


def _groups_for(sizes: np.ndarray, count: int) -> int:
    """How many of the groups (sizes in drawing order) a part of ``count`` examples takes:
    groups are drawn until the part holds at least ``count``."""
    if count <= 0:
        return 0
    return int(np.searchsorted(np.cumsum(sizes), count)) + 1


def group_keys(location: str | Path, field: str, columns_format: str | None = None) -> tuple[str, ...]:
    """Each record's value of ``field`` (the ID data's ``--id-group``), in file order."""
    keys = []
    for raw in read_records(Path(location), columns_format):
        value = raw.value(field) if raw.has(field) else None
        if value is None or isinstance(value, (dict, list)):
            raise raw.error(
                "is missing or not a plain value", field=field, fix="name a field every example has with --id-group"
            )
        keys.append(label_to_str(value))
    return tuple(keys)


def shared_passages(parts: IdParts) -> int:
    """QA: the ID test questions whose context paragraph is also a context of ID train."""
    if len(parts.train.columns) < 2:
        return 0
    seen = set(parts.train.columns[1])
    return sum(context in seen for context in parts.test.columns[1])


def _count(size: float, n: int, flag: str) -> int:
    count = int(size) if size >= 1 else int(round(size * n))
    if count >= n:
        raise ConfigError(f"{flag}={size:g} takes all {n} examples; give a share below 1 or a smaller count")
    return count


def mapped(candidate: LabelledSet, id_labels: Sequence[str], label_map: Mapping[str, str]) -> LabelledSet:
    """The candidate with its gold labels in ID's terms (the map applied; dropped examples
    removed and counted); refused, listing them, when a label is neither an ID label nor mapped
    onto one."""
    targets = {label_map.get(label, label) for label in id_labels}
    gold = [label_map.get(label, label) for label in candidate.labels]
    unmapped = sorted({source for source, target in zip(candidate.labels, gold) if target and target not in targets})
    if unmapped:
        shown = ", ".join(repr(u) for u in unmapped[:10]) + (" …" if len(unmapped) > 10 else "")
        raise ConfigError(
            f"candidate {candidate.name!r} ({candidate.path}) has labels the ID data does not: {shown}; "
            f"the ID labels are {sorted(set(id_labels))}; map each with --label-map FROM=TO "
            "(TO empty drops those examples)"
        )
    keep = np.array([i for i, label in enumerate(gold) if label], dtype=np.int64)
    labels = tuple(gold[i] for i in keep.tolist())
    return replace(candidate.take(keep), labels=labels, dropped=len(candidate) - len(keep))


def correct(predicted: Sequence[str], gold: Sequence[str], label_map: Mapping[str, str]) -> np.ndarray:
    """Whether each prediction, named by the map, equals the (already mapped) gold label."""
    return np.array([label_map.get(p, p) == g for p, g in zip(predicted, gold)], dtype=bool)
