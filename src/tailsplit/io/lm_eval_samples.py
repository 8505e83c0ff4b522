"""lm-evaluation-harness's per-sample log (``samples_<task>_<time>.jsonl``, written by ``lm_eval
--log_samples``) read as a score file: each document's log-likelihood as lm-eval computed it.

A sample holds the task's document (``doc``: the data's record, so its id field and its text),
and ``resps``: one response per request, each ``[log-likelihood, is_greedy]``. A
``loglikelihood`` task makes one request per document; a multiple-choice task one per choice,
and the score is the gold choice's — the choice ``tailsplit_gold`` names in a task tailsplit
exported, else lm-eval's ``target`` when it is a choice's index. Samples are matched to the data
by the id field; where the document holds the text field, the text must be the data's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tailsplit.core import FieldMap
from tailsplit.fields import field_value, has_field
from tailsplit.io.raw import RawRecord

SAMPLE_KEYS = frozenset({"doc_id", "doc", "resps"})


def is_lm_eval_sample(record: Any) -> bool:
    """Whether ``record`` is a line of lm-eval's ``--log_samples`` output."""
    return isinstance(record, dict) and SAMPLE_KEYS <= record.keys() and isinstance(record["doc"], dict)


def lm_eval_sample_columns(raws: Sequence[RawRecord], fields: FieldMap) -> dict[str, list[Any]]:
    """``id``, ``logprob_sum`` and (where every document holds the text field) ``text`` of each
    sample; a line that is not a sample, or that lacks its id or a readable score, is refused."""
    columns: dict[str, list[Any]] = {"id": [], "logprob_sum": []}
    texts: list[str] = []
    for raw in raws:
        if not is_lm_eval_sample(raw.record):
            raise raw.error(
                "is not an lm-eval sample (doc_id, doc, resps), though the file's first line is",
                fix="give one lm_eval --log_samples file as it was written",
            )
        doc = raw.record["doc"]
        if not has_field(doc, fields.id):
            raise raw.error(
                f"has a document without the id field {fields.id!r}",
                field="doc",
                fix="run lm-eval on a task whose documents carry the data's ids (tailsplit export lm-eval keeps them), "
                "or name the id field with --id",
            )
        columns["id"].append(str(field_value(doc, fields.id)))
        columns["logprob_sum"].append(_loglikelihood(raw, doc))
        if has_field(doc, fields.text):
            texts.append(str(field_value(doc, fields.text)))
    if len(texts) == len(raws):
        columns["text"] = texts
    return columns


def _loglikelihood(raw: RawRecord, doc: dict[str, Any]) -> float:
    resps = raw.record["resps"]
    if not isinstance(resps, list) or not resps:
        raise raw.error("has no responses", field="resps", fix="log the samples of a loglikelihood task")
    choice = 0
    if len(resps) > 1:
        gold = doc["tailsplit_gold"] if "tailsplit_gold" in doc else raw.record.get("target")
        if isinstance(gold, bool) or not isinstance(gold, int) or not 0 <= gold < len(resps):
            raise raw.error(
                f"holds {len(resps)} responses (a multiple-choice task) and no gold choice among them",
                field="resps",
                fix="log the samples of a loglikelihood task, or of a task tailsplit exported (tailsplit_gold)",
            )
        choice = gold
    value: Any = resps[choice]
    while isinstance(value, list) and value:  # [[log-likelihood, is_greedy]] → the log-likelihood
        value = value[0]
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number):
        raise raw.error(
            f"has response {resps[choice]!r}, not [log-likelihood, is_greedy]",
            field="resps",
            fix="give the samples of a loglikelihood or multiple-choice task as lm-eval wrote them",
        )
    return number
