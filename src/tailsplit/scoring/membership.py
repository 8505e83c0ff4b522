"""Membership scores: was a text in the model's training data? Each is a function of the
per-token log-probabilities scoring computes (``--token-scores``' values), and, for Min-K%++,
of each position's next-token distribution — its mean log-probability and that log-probability's
variance, computed in the vocabulary head beside the target's (:mod:`.head`).

As the authors' code defines them (Min-K%++'s ``run.py``, which also runs the others), every
score is larger for a text that looks like training data:

* ``loss``: the mean token log-probability (the negated loss);
* ``zlib``: ``loss`` divided by the length in bytes of the zlib-compressed UTF-8 text
  (Carlini et al., 2021);
* ``min_k`` (Min-K% Prob, Shi et al., 2024): the mean of the ``floor(n · k)`` lowest token
  log-probabilities of the text's ``n`` tokens;
* ``min_k_plus_plus`` (Min-K%++, Zhang et al., 2024): the same over each token's
  ``(log p(x_t) − μ_t) / σ_t``, where ``μ_t`` and ``σ_t²`` are the mean and variance of
  ``log p(z)`` for ``z`` drawn from the model's next-token distribution at position ``t``;
* ``reference`` (Carlini et al., 2021; ``run_ref.py``): ``loss`` minus the reference model's
  mean token log-probability of the same text — each model with its own tokenizer, where the
  authors' script tokenises for the reference with the target's (the same where they share
  one, as its Pythia pairs do).

Where ``floor(n · k)`` is 0 (a text of fewer than ``1 / k`` tokens) the authors' code takes the
mean of nothing, NaN; tailsplit takes the single lowest token instead (``min_tokens=1``), and
says so where it reports them (a named departure).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

MEMBERSHIP_SCORES = ("loss", "zlib", "min_k", "min_k_plus_plus")


def lowest_mean(values: np.ndarray, k: float, min_tokens: int = 1) -> float:
    """The mean of the ``floor(len · k)`` lowest values (at least ``min_tokens``; NaN for none).

    >>> lowest_mean(np.array([-1.0, -5.0, -3.0, -2.0]), 0.5)
    -4.0
    >>> lowest_mean(np.array([-1.0, -5.0]), 0.2)  # floor(0.4) = 0 tokens: the lowest one
    -5.0
    """
    count = max(int(len(values) * k), min(min_tokens, len(values)))
    if count == 0:
        return math.nan
    return float(np.mean(np.sort(values)[:count]))


def zlib_bytes(text: str) -> int:
    """The length of the text's UTF-8 bytes compressed by zlib (level 6, as Python's default)."""
    return len(zlib.compress(text.encode("utf-8")))


def membership_scores(
    texts: Sequence[str],
    logprobs: Sequence[np.ndarray],
    k: float,
    moments: Sequence[np.ndarray] | None = None,
    min_tokens: int = 1,
) -> dict[str, np.ndarray]:
    """Each text's membership scores (the module's list; ``min_k_plus_plus`` only with
    ``moments``: each text's ``[2, n]`` array of its tokens' μ and σ²); ``k`` a fraction in (0, 1]."""
    n = len(texts)
    loss = np.array([float(np.mean(v, dtype=np.float64)) if len(v) else math.nan for v in logprobs])
    scores = {
        "loss": loss,
        "zlib": np.array([loss[i] / zlib_bytes(texts[i]) for i in range(n)]),
        "min_k": np.array([lowest_mean(np.asarray(v, dtype=np.float64), k, min_tokens) for v in logprobs]),
    }
    if moments is not None:
        normalised = [
            (np.asarray(v, dtype=np.float64) - np.asarray(m[0], dtype=np.float64))
            / np.sqrt(np.asarray(m[1], dtype=np.float64))
            for v, m in zip(logprobs, moments)
        ]
        scores["min_k_plus_plus"] = np.array([lowest_mean(z, k, min_tokens) for z in normalised])
    return scores


def membership_record(k: float, reference: Any = None, calibration: Any = None) -> dict[str, object]:
    """What a manifest records of the membership scores a score file holds (``reference``: the
    reference model's scorer, whose identity is recorded; ``calibration``: their table on the
    known members and non-members, when given)."""
    names = [*MEMBERSHIP_SCORES, *(["reference"] if reference is not None else [])]
    return {
        "k_percent": k,
        "columns": [f"membership_{name}" for name in names],
        **({} if reference is None else {"reference_model": reference.identity()}),
        "direction": "larger = more like training data",
        "min_tokens": 1,
        "definitions": "Min-K%++'s run.py (loss, zlib, mink, mink++); at least one token where floor(n k) is 0",
        **({} if calibration is None else {"calibration": calibration}),
    }
