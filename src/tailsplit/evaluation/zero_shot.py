"""The ``lm-zero-shot`` baseline: the split's own language model as a classifier.

Each test example is scored once per label, the label's verbalisation filled into the
template; the most likely label is predicted. Nothing is trained or selected, so dev is not
scored."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tailsplit.config import DataConfig
from tailsplit.errors import ConfigError
from tailsplit.evaluation.baselines import BaselineResult
from tailsplit.io.examples import label_to_str
from tailsplit.progress import say, showing
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.driver import score_requests

if TYPE_CHECKING:
    from tailsplit.cache import ScoreCache
    from tailsplit.io.readers import RawRecord
    from tailsplit.prompts import PromptTemplate
    from tailsplit.scoring.base import Scorer


def check_zero_shot(data: DataConfig, template: PromptTemplate) -> str:
    """Refuse, before any model loads, a split without labels or a template without ``{label}``;
    the label field."""
    if not data.label or "{label}" not in template.template:
        raise ConfigError(
            f"zero-shot classification needs labels and a template with {{label}}; the split's "
            f"template {template.name!r} has none — give --zero-shot-template (e.g. snli) or a --label-word set"
        )
    return data.label


def zero_shot_classify(
    test: Sequence[RawRecord],
    labels: Sequence[str],
    data: DataConfig,
    template: PromptTemplate,
    scorer: Scorer,
    cache: ScoreCache | None,
) -> BaselineResult:
    """Test accuracy of predicting, for each record, the label whose prompt scores highest."""

    label_field = check_zero_shot(data, template)
    requests = [
        ScoreRequest(
            *template.render(
                r.record,
                text=str(r.value(data.text)),
                context=str(r.value(data.context)) if data.context else None,
                label=label,
            )
        )
        for r in test
        for label in labels
    ]
    say(f"zero-shot: scoring {len(test):,} test examples under {len(labels)} label prompts each")
    logprob_sum = score_requests(requests, scorer, cache, progress=showing()).logprob_sum
    table = np.asarray(logprob_sum, dtype=np.float64).reshape(len(test), len(labels))
    best = table.argmax(axis=1) if len(test) else np.zeros(0, int)
    # the labels' normalised likelihoods of the query: softmax over the label prompts
    weights = np.exp(table - table.max(axis=1, keepdims=True)) if len(test) else table
    probability = weights[np.arange(len(best)), best] / weights.sum(axis=1) if len(test) else np.zeros(0)
    predicted = np.asarray(labels, dtype=object)[best]
    gold = np.asarray([label_to_str(r.value(label_field)) for r in test], dtype=object)
    correct = predicted == gold
    return BaselineResult(
        "lm-zero-shot",
        float("nan"),
        float(np.mean(correct)) if len(test) else float("nan"),
        "accuracy",
        {},
        tuple(bool(c) for c in correct),
        tuple(str(v) for v in predicted),
        tuple(float(v) for v in probability),
    )
