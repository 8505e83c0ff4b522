"""What an evaluation shows, in sentences a paper can quote: one conclusion per task model
and question, read from the table's paired-bootstrap 95% intervals of the difference to the
random splits' mean.

Questions, where the table has the splits to answer them:

* *harder than random* — every split that is not random (likelihood, length-controlled,
  length, template, TMCD, AFLite, ...): **demonstrated** when the whole interval of the
  difference lies below 0; **not demonstrated** when it lies at or above 0 (the split is at
  least as easy); otherwise **inconclusive** (the interval includes 0; more test examples
  narrow it).
* *the reverse control holds* — a reverse split (the most likely examples held out) is not
  harder than random, as in the paper: **demonstrated** when its interval reaches 0 or above;
  **not demonstrated** when the whole interval lies below 0 (then likelihood alone does not
  explain the difficulty).
* *the random reference is not leakage-inflated* — stated whenever random splits are present:
  **not demonstrated** when a random split's test queries occur in its train part beyond the
  leakage threshold (the warning says by how much), else **demonstrated**.

Every conclusion names its evidence (the difference, its interval and the test size).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from tailsplit.evaluation.samples import REFERENCES
from tailsplit.render import markdown_text

DEMONSTRATED, NOT_DEMONSTRATED, INCONCLUSIVE = "demonstrated", "not demonstrated", "inconclusive"


@dataclass(frozen=True)
class Conclusion:
    baseline: str
    question: str
    outcome: str
    evidence: str

    def sentence(self) -> str:
        return f"{self.baseline}: {self.question} — {self.outcome} ({self.evidence})."

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def conclusions(
    rows: Sequence[dict[str, Any]],
    test_sizes: dict[str, int],
    leakage_warnings: Sequence[str],
    leakage_threshold: float,
) -> list[Conclusion]:
    """The conclusions the table supports, per task model (``test_sizes``: folder → test examples)."""
    out = []
    for baseline in dict.fromkeys(r["baseline"] for r in rows if r["baseline"] not in REFERENCES):
        mine = [r for r in rows if r["baseline"] == baseline]
        if not any(str(r["split"]).startswith("random") for r in mine):
            continue  # nothing to compare against
        for row in mine:
            if not str(row["split"]).startswith("random"):
                out.append(_conclude(baseline, row, test_sizes.get(str(row["folder"]))))
        out.append(_leakage_conclusion(baseline, leakage_warnings, leakage_threshold))
    return out


def _leakage_conclusion(baseline: str, warnings: Sequence[str], threshold: float) -> Conclusion:
    question = "the random reference is not leakage-inflated"
    if warnings:
        return Conclusion(
            baseline,
            question,
            NOT_DEMONSTRATED,
            f"{len(warnings)} random split(s) hold test queries that also occur in train beyond the threshold "
            f"({100 * threshold:g}% of test queries); see the warnings",
        )
    return Conclusion(
        baseline,
        question,
        DEMONSTRATED,
        f"no random split's test queries occur in its train part beyond the threshold ({100 * threshold:g}%)",
    )


def _conclude(baseline: str, row: dict[str, Any], n: int | None) -> Conclusion:
    split, interval = str(row["split"]), row.get("difference_ci")
    reverse = "reverse" in split
    question = (
        f"the reverse control holds: {split} ({row['folder']}) is not harder than random"
        if reverse
        else f"{split} ({row['folder']}) is harder than random"
    )
    if interval is None or row.get("difference") is None:
        return Conclusion(baseline, question, INCONCLUSIVE, "no interval: the split has no per-example results")
    low, high = interval
    evidence = (
        f"difference {100 * row['difference']:+.1f} points, 95% interval [{100 * low:+.1f}, {100 * high:+.1f}]"
        + (f", n = {n} test examples" if n else "")
    )
    if reverse:
        outcome = NOT_DEMONSTRATED if high < 0 else DEMONSTRATED
    elif high < 0:
        outcome = DEMONSTRATED
    elif low >= 0:
        outcome = NOT_DEMONSTRATED
    else:  # say which way the point estimate goes, in plain words, before the interval that leaves it open
        outcome = INCONCLUSIVE
        lean = "not harder here" if row["difference"] >= 0 else "harder here, but not beyond chance variation"
        evidence = f"{lean}: {evidence}; the interval includes 0"
    return Conclusion(baseline, question, outcome, evidence)


def conclusions_markdown(found: Sequence[Conclusion]) -> str:
    if not found:
        return ""
    lines = ["## Conclusions", "", *[f"- {markdown_text(c.sentence())}" for c in found], ""]
    lines.append(
        "Each difference is a split's test score minus the random splits' mean, with a paired-bootstrap 95% "
        "interval (2,000 replicates over the test examples)."
    )
    return "\n".join(lines) + "\n"
