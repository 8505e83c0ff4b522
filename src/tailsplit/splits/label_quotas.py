"""How many examples of each label dev and test take when labels are balanced.

Two rules, each a paper's:

- ``proportional`` (the paper's text, and the default): every label keeps its share of the
  data in dev and in test (largest remainders), so a part's label mix is the data's and its
  accuracy reads like a random split's.
- ``equal`` (the authors' released ``classification/gen_ll_split.py``): every label gets
  ``size // n_labels`` of dev and of test, the remainders of both to the first label met in
  descending likelihood (here: the label of the most train-like example). Pooled BoolQ
  (62.3 % true) then gets a 50/50 evaluation set.

With groups kept whole a part can only approach its quotas; :func:`label_report` measures by
how much, per label and part, and refuses a miss larger than both ``label_tolerance`` (a
share of the part) and one typical group, so a drifted label mix is never written without a
word.

>>> codes, names = np.array([0, 0, 0, 1, 1, 1, 1, 1, 1, 1]), np.array(["a", "b"])
>>> LabelQuotas(codes, names, "equal", 0.02, first=1).evaluation_quota(2, 2).tolist()
[2, 2]
>>> LabelQuotas(codes, names, "proportional", 0.02, first=1).evaluation_quota(2, 2).tolist()
[1, 3]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError


def apportion(total: int, weights: np.ndarray) -> np.ndarray:
    """Split ``total`` into integer parts proportional to ``weights`` (largest remainder).

    Parts sum to ``total``; no part exceeds its weight when ``total <= weights.sum()``; ties
    go to the earlier index, so the result is deterministic.

    >>> apportion(10, np.array([5, 3, 2])).tolist(), apportion(3, np.array([1, 1, 1, 1])).tolist()
    ([5, 3, 2], [1, 1, 1, 0])
    """
    weights = np.asarray(weights, dtype=np.int64)
    whole = int(weights.sum())
    if whole == 0:
        return np.zeros_like(weights)
    ideal = total * weights / whole
    parts = np.floor(ideal).astype(np.int64)
    short = total - int(parts.sum())
    order = np.lexsort((np.arange(len(weights)), -(ideal - parts)))
    parts[order[:short]] += 1
    return parts


def equal_shares(total: int, n_labels: int, first: int) -> np.ndarray:
    """``total // n_labels`` for every label, the remainder to ``first`` (gen_ll_split.py's rule).

    >>> equal_shares(2540, 2, 1).tolist(), equal_shares(10000, 3, 0).tolist()
    ([1270, 1270], [3334, 3333, 3333])
    """
    shares = np.full(n_labels, total // n_labels, dtype=np.int64)
    shares[first] += total % n_labels
    return shares


@dataclass(frozen=True)
class LabelQuotas:
    """The labels (a code per row, their names) and the rule that sets each part's quotas."""

    codes: np.ndarray
    names: np.ndarray
    rule: str
    tolerance: float
    first: int  # the label that takes the remainders under the equal rule

    @property
    def counts(self) -> np.ndarray:
        return np.bincount(self.codes, minlength=len(self.names))

    def evaluation_quota(self, n_dev: int, n_test: int) -> np.ndarray:
        """Each label's quota of dev and test together: in proportion to the data, or (equal)
        the sum of its dev and test shares, each rounded alone as gen_ll_split.py does."""
        if self.rule == "equal":
            return equal_shares(n_dev, len(self.names), self.first) + equal_shares(n_test, len(self.names), self.first)
        return apportion(n_dev + n_test, self.counts)

    def test_quota(self, evaluation: np.ndarray, size: int) -> np.ndarray:
        """Each label's quota of a test part of ``size`` drawn from evaluation quotas
        ``evaluation``: in proportion to them, or (equal) ``size // n_labels`` each."""
        if self.rule == "equal":
            return equal_shares(size, len(self.names), self.first)
        return apportion(size, evaluation)

    def check_feasible(self, n_dev: int, n_test: int) -> None:
        """Refuse quotas that would put every example of some label in evaluation."""
        for name, count, want in zip(self.names.tolist(), self.counts, self.evaluation_quota(n_dev, n_test)):
            if count > 0 and want >= count:
                raise ConfigError(
                    f"--balance-labels: label {name!r} has only {count} example(s), and its "
                    f"{self.rule} share of the {n_dev + n_test} evaluation examples is {want}, leaving none "
                    "for training; remove that label, ask for smaller dev/test sizes, or turn off label balance"
                    + ("" if self.rule == "proportional" else ", or use --label-quota='proportional'")
                )


def label_report(
    quotas: LabelQuotas, dev_mask: np.ndarray, test_mask: np.ndarray, n_dev: int, n_test: int, group_size: int = 1
) -> dict:
    """Each label's quota and count in dev and test, and the largest miss: a label's count
    against its quota scaled to the part's actual size (whole groups may leave a part a
    little short), in examples and as a share of the part. A miss larger than both
    ``quotas.tolerance`` of the part and one typical group (``group_size``, the median) is
    refused: whole groups can only approach quotas, and without groups every quota is met.
    Recorded in the manifest as the splitter's ``label_quotas``."""
    evaluation = quotas.evaluation_quota(n_dev, n_test)
    test = quotas.test_quota(evaluation, n_test)
    names = quotas.names.tolist()
    parts: dict[str, Any] = {}
    worst: tuple[float, float, str, str] = (0.0, 0.0, "", "")  # (share, examples, part, label)
    refused = None
    for part, mask, want in (("dev", dev_mask, evaluation - test), ("test", test_mask, test)):
        size = int(want.sum())
        if size == 0:
            continue
        got = np.bincount(quotas.codes[mask], minlength=len(names))
        taken = int(got.sum())
        parts[part] = {name: {"quota": int(w), "taken": int(g)} for name, w, g in zip(names, want, got)}
        for name, w, g in zip(names, want, got):
            examples = abs(g - w * taken / size)
            share = examples / max(taken, 1)
            if share > worst[0]:
                worst = (share, examples, part, name)
            if refused is None and share > quotas.tolerance + 1e-12 and examples > group_size:
                refused = (share, examples, part, name)
    report = {
        "rule": quotas.rule,
        "tolerance": quotas.tolerance,
        "largest_miss": round(worst[0], 6),
        "largest_miss_examples": round(worst[1], 3),
        "typical_group": group_size,
        "parts": parts,
    }
    if refused is not None:
        share, examples, part, name = refused
        counts = parts[part]
        raise ConfigError(
            f"--balance-labels with whole groups: {part} holds {counts[name]['taken']} {name!r} examples of its "
            f"{sum(c['taken'] for c in counts.values())} against a quota of {counts[name]['quota']} of "
            f"{sum(c['quota'] for c in counts.values())}: {examples:.0f} examples ({100 * share:.1f} points) off, "
            f"more than --label-tolerance={quotas.tolerance} of the part and more than a typical group "
            f"({group_size} examples); the groups mix labels too unevenly for these quotas: use a finer group "
            f"field, or accept the miss with --label-tolerance={math.ceil(100 * share) / 100:g}"
        )
    return report


def shortfall_lines(report: dict | None) -> list[str]:
    """One line per part whose labels missed their quotas: ``test: 'a' 98 of 103 (-5), ...``
    (none without a report)."""
    lines: list[str] = []
    if report is None:
        return lines
    for part, counts in report["parts"].items():
        missed = [
            f"{name!r} {c['taken']} of {c['quota']} ({c['taken'] - c['quota']:+d})"
            for name, c in counts.items()
            if c["taken"] != c["quota"]
        ]
        if missed:
            lines.append(f"{part}: " + ", ".join(missed))
    return lines
