"""The metrics of BOSS's NER and extractive-QA tasks, per example so that a bootstrap can
resample examples: entity-level micro F1 (exact span and type) and SQuAD's exact match and
token F1.

Entities are read from IOB2 tags as seqeval's default (CoNLL ``conlleval``) chunking reads
them, so a prediction's invalid transition (``I-PER`` after ``O``) starts an entity there, as
it does for seqeval. An example contributes (entities right, entities predicted, gold
entities); micro F1 is ``2·right / (predicted + gold)`` over any set of examples.

SQuAD's answers are compared after its normalisation (lower case, punctuation and the articles
a/an/the removed, whitespace collapsed); an example's exact match and F1 are the maxima over
its gold answers, and a set's are their means.

>>> entity_spans(["B-PER", "I-PER", "O", "I-LOC"])
[('PER', 0, 1), ('LOC', 3, 3)]
>>> round(answer_f1("the Eiffel tower", "Eiffel Tower in Paris"), 4)
0.6667
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

import numpy as np


def _split(tag: str) -> tuple[str, str]:
    """(prefix, type) of a tag, as seqeval reads a prefixed tag (``O`` has type ``_``)."""
    return tag[0], tag[1:].split("-", maxsplit=1)[-1] or "_"


def _ends(prev_tag: str, tag: str, prev_type: str, type_: str) -> bool:
    if prev_tag in ("E", "S"):
        return True
    if prev_tag in ("B", "I") and tag in ("B", "S", "O"):
        return True
    return prev_tag not in ("O", ".") and prev_type != type_


def _starts(prev_tag: str, tag: str, prev_type: str, type_: str) -> bool:
    if tag in ("B", "S"):
        return True
    if prev_tag in ("E", "S", "O") and tag in ("E", "I"):
        return True
    return tag not in ("O", ".") and prev_type != type_


def entity_spans(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """Each entity of ``tags`` as (type, first token, last token)."""
    spans, begin = [], 0
    prev_tag, prev_type = "O", ""
    for i, chunk in enumerate([*tags, "O"]):
        tag, type_ = _split(chunk)
        if _ends(prev_tag, tag, prev_type, type_):
            spans.append((prev_type, begin, i - 1))
        if _starts(prev_tag, tag, prev_type, type_):
            begin = i
        prev_tag, prev_type = tag, type_
    return spans


# The type of a gold entity whose type the label map removed (``--label-map MISC=``): it is no
# gold entity, and a prediction on any of its tokens is neither right nor wrong — the model
# was never asked about that type (BOSS maps every set onto one inventory instead).
UNSCORED = "\x00unscored"


def entity_counts(predicted: Sequence[str], gold: Sequence[str]) -> tuple[int, int, int]:
    """(entities right — same span and type —, entities predicted, gold entities) of one
    sentence; gold entities of type :data:`UNSCORED` and predictions that touch them are left out.

    >>> entity_counts(["B-product", "I-product", "O", "B-person"], [f"B-{UNSCORED}", f"I-{UNSCORED}", "O", "B-person"])
    (1, 1, 1)
    """
    p, g = set(entity_spans(predicted)), set(entity_spans(gold))
    unscored = [(first, last) for type_, first, last in g if type_ == UNSCORED]
    if unscored:
        g = {span for span in g if span[0] != UNSCORED}
        p = {span for span in p if not any(span[1] <= last and first <= span[2] for first, last in unscored)}
    return len(p & g), len(p), len(g)


def unscored_counts(predicted: Sequence[str], gold: Sequence[str]) -> tuple[int, int]:
    """(gold entities of a removed type, predicted entities that touch one) of one sentence:
    what :func:`entity_counts` leaves out, so the effect of leaving it out can be stated."""
    spans = [(first, last) for type_, first, last in entity_spans(gold) if type_ == UNSCORED]
    if not spans:
        return 0, 0
    touching = [p for p in entity_spans(predicted) if any(p[1] <= last and first <= p[2] for first, last in spans)]
    return len(spans), len(touching)


def entity_f1(sums: np.ndarray) -> np.ndarray:
    """Micro F1 from summed (right, predicted, gold) counts, over the last axis (0 when there
    is neither a prediction nor a gold entity)."""
    sums = np.asarray(sums, dtype=np.float64)
    denominator = sums[..., 1] + sums[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, 2 * sums[..., 0] / np.where(denominator > 0, denominator, 1), 0.0)


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD's normalisation: lower case, no punctuation, no articles, single spaces.

    >>> normalize_answer("The  Eiffel-Tower!")
    'eiffeltower'
    """
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def answer_f1(prediction: str, gold: str) -> float:
    """Token F1 between two normalised answers."""
    predicted, expected = normalize_answer(prediction).split(), normalize_answer(gold).split()
    same = sum((Counter(predicted) & Counter(expected)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(expected)
    return 2 * precision * recall / (precision + recall)


def answer_scores(prediction: str, golds: Sequence[str]) -> tuple[float, float]:
    """(exact match, F1) of one prediction: the best over the gold answers."""
    exact = max(float(normalize_answer(prediction) == normalize_answer(g)) for g in golds)
    return exact, max(answer_f1(prediction, g) for g in golds)
