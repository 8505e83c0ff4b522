"""What an evaluation shows beyond its table: per-example predictions (as lm-eval's
``--log_samples``) and the warnings a reader needs — a model scoring below chance.

``predictions.jsonl`` holds one row per split, baseline and test example: the folder and
split, the baseline, the example's id, the gold label (or program), the prediction, the model's
probability of it where the model gives one, and whether it is correct. ``chance`` has no
per-example predictions (it is an expectation); ``majority`` predicts its one label.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tailsplit.analysis.null import holm_adjusted
from tailsplit.evaluation.baselines import BaselineResult

REFERENCES = ("chance", "majority")
ZERO_SHOT = ("lm-zero-shot",)  # models that are not trained on the split


def prediction_rows(
    folder: str, split: str, result: BaselineResult, ids: Sequence[str], gold: Sequence[str]
) -> list[dict[str, Any]]:
    """One row per test example of ``result`` (none when it has no per-example predictions)."""
    if not result.test_predicted:
        return []
    probability = result.test_probability or (None,) * len(result.test_predicted)
    return [
        {
            "folder": folder,
            "split": split,
            "baseline": result.baseline,
            "id": example,
            "gold": truth,
            "predicted": predicted,
            "probability": None if p is None else round(float(p), 6),
            "correct": bool(correct),
        }
        for example, truth, predicted, p, correct in zip(
            ids, gold, result.test_predicted, probability, result.test_correct, strict=True
        )
    ]


# A model row is flagged below chance when a one-sided exact binomial test of its correct test
# answers against chance rejects at this level, Holm-adjusted over every model row tested.
BELOW_CHANCE_ALPHA = 0.05


def below_chance_warnings(rows: Sequence[dict[str, Any]], test_sizes: dict[str, int]) -> list[str]:
    """A warning for every model row whose test accuracy is below chance for its split by a
    stated test — one-sided exact binomial, its correct answers among its test examples
    (``test_sizes``: folder → test examples; pooled random splits pooled) against chance,
    Holm-adjusted over every model row tested, at 5% — with the likely cause and the fix."""
    from scipy.stats import binom

    chance = {r["folder"]: r["test"] for r in rows if r["baseline"] == "chance"}
    tested = []
    for row in rows:
        if row["baseline"] in REFERENCES or row["metric"] != "accuracy":
            continue
        level, score = _chance_of(row, chance), row["test"]
        n = sum(test_sizes.get(f.strip(), 0) for f in str(row["folder"]).split(","))
        if level is None or score is None or not math.isfinite(score) or not n:
            continue
        correct = round(score * n)
        tested.append((row, level, correct, n, float(binom.cdf(correct, n, level))))
    adjusted = holm_adjusted([p for *_, p in tested])
    return [
        _below_chance(row, level, correct, n, (p, p_holm, len(tested)))
        for (row, level, correct, n, p), p_holm in zip(tested, adjusted)
        if p_holm < BELOW_CHANCE_ALPHA
    ]


def _below_chance(row: dict[str, Any], level: float, correct: int, n: int, test: tuple[float, float, int]) -> str:
    p, p_holm, family = test
    spread = f" ± {100 * row['test_std']:.1f}" if row.get("test_std") else ""
    said = (
        f"warning: {row['baseline']} scores {100 * row['test']:.1f}%{spread} on {row['split']} ({row['folder']}), "
        f"below chance ({100 * level:.1f}%; one-sided exact binomial test, {correct} of {n} test answers correct, "
        f"p = {p:.2g}, Holm-adjusted over {family} model rows p = {p_holm:.2g}): "
    )
    if row["baseline"] in ZERO_SHOT:  # learns nothing from train: no train-to-test association to blame
        return said + (
            "this zero-shot model does not do the task on this split; its labels' verbalisations are scored, "
            "and the most likely one is the gold label less often than a guess would be. Read it as a failure "
            "of the prompt, not as a property of the split's train part."
        )
    said += "what it learns in train predicts the wrong label in test. "
    if str(row["split"]).startswith("aflite"):
        return said + (
            "The split was chosen to be so: AFLite held out what linear classifiers on sentence embeddings "
            "predict wrongly, which makes it adversarial to such models."
        )
    return said + (
        "The usual cause is a field shared across parts whose association with the label is reversed "
        "there (SNLI premises recur with each of the three labels); keep such examples in one part with "
        "--group FIELD (e.g. --group premise) and split again."
    )


def _chance_of(row: dict[str, Any], chance: dict[str, float]) -> float | None:
    """Chance for a row: its folder's, or for pooled random splits the mean over their folders."""
    folders = [f.strip() for f in str(row["folder"]).split(",")]
    levels = [chance[f] for f in folders if f in chance]
    return sum(levels) / len(levels) if levels else None
