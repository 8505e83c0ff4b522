"""The fairness check (paper §4.3): the gap between the scoring LM's task model and another
model on each split against random splits, its paired-bootstrap interval and the conclusion."""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pytest

from tailsplit.evaluation.fairness import (
    ADVERSARIAL,
    NOT_ADVERSARIAL,
    SplitAgreement,
    fairness,
    fairness_console,
    fairness_csv,
    fairness_markdown,
    in_the_loop,
)
from tailsplit.evaluation.table import SplitScore


def _correct(n: int, accuracy: float, seed: int) -> tuple[bool, ...]:
    """``n`` outcomes with exactly round(accuracy · n) correct, in a seeded order."""
    hits = np.zeros(n, dtype=bool)
    hits[: round(accuracy * n)] = True
    return tuple(bool(h) for h in np.random.default_rng(seed).permutation(hits))


def _scores(folder: str, kind: str, n: int, accuracies: dict[str, float], start: int) -> list[SplitScore]:
    ids = tuple(f"x{start + i}" for i in range(n))
    return [
        SplitScore(folder, kind, model, "accuracy", float("nan"), float(np.mean(c)), ids, c)
        for model, accuracy in accuracies.items()
        for c in [_correct(n, accuracy, start)]  # one order: the weaker model errs where the stronger does
    ]


def _table(n: int = 2000) -> list[SplitScore]:
    scores = []
    for seed in range(3):
        scores += _scores(f"random-{seed}", "random", n, {"encoder": 0.80, "lm": 0.70}, start=seed * n)
    scores += _scores("ll", "likelihood (prompted)", n, {"encoder": 0.72, "lm": 0.62}, start=10 * n)
    scores += _scores("ll-bad", "likelihood (prompted)", n, {"encoder": 0.78, "lm": 0.50}, start=20 * n)
    scores += _scores("af", "aflite", n, {"encoder": 0.55, "lm": 0.68}, start=30 * n)
    scores += _scores("ll-small", "likelihood (prompted, reverse)", 60, {"encoder": 0.75, "lm": 0.62}, start=40 * n)
    scores += _scores("len", "length", n, {"encoder": 0.70, "lm": 0.60}, start=50 * n)
    scores += [SplitScore(f, "random" if "random" in f else "x", "chance", "accuracy", 0, 1 / 3) for f in ("ll",)]
    return scores


@pytest.mark.long
def test_the_conclusion_follows_the_penalty_interval() -> None:
    result = fairness(_table(), [], {"ll": 2000, "ll-bad": 2000, "af": 2000, "ll-small": 60})
    assert result is not None and result.models == ["encoder", "lm"] and result.scoring_model == "lm"
    outcome = {re.search(r"\(([^()]+)\) and its", c.question).group(1): c for c in result.conclusions}  # type: ignore[union-attr]
    # equal drops for both models: the gap does not change
    assert outcome["ll"].outcome == NOT_ADVERSARIAL and outcome["ll"].baseline == "lm"
    # the scoring LM loses 18 points more than the encoder
    assert outcome["ll-bad"].outcome == ADVERSARIAL and "+18.0 points more than encoder" in outcome["ll-bad"].evidence
    # AFLite is built on the sentence encoder: adversarial to encoder, compared with lm
    assert outcome["af"].outcome == ADVERSARIAL and outcome["af"].baseline == "encoder"
    assert "encoder loses +23.0 points more than lm" in outcome["af"].evidence
    # 60 test examples cannot tell
    assert outcome["ll-small"].outcome == "inconclusive" and "n = 60" in outcome["ll-small"].evidence
    # a length split has no in-the-loop model: a row, no conclusion
    assert "len" not in outcome and [r["folder"] for r in result.rows][-1] == "len"


@pytest.mark.long
def test_rows_hold_accuracies_gaps_and_intervals_around_the_estimate() -> None:
    result = fairness(_table(), [], {})
    assert result is not None
    random, ll = result.rows[0], result.rows[1]
    assert random["split"] == "random (3 seeds)" and random["accuracy"] == pytest.approx({"encoder": 0.8, "lm": 0.7})
    assert random["gap"]["encoder"] == pytest.approx(0.10)
    assert ll["gap"]["encoder"] == pytest.approx(0.10) and ll["gap_change"]["encoder"] == pytest.approx(0.0)
    low, high = ll["gap_change_ci"]["encoder"]
    assert low < 0 < high and high - low < 0.035  # 2,000 paired examples, correlated errors: narrow
    bad_low, bad_high = result.rows[2]["gap_change_ci"]["encoder"]
    assert bad_low < 0.18 < bad_high
    assert ll["in_the_loop"] == "lm" and result.rows[3]["in_the_loop"] == "encoder"


def test_pairing_narrows_the_interval_when_both_models_err_on_the_same_examples() -> None:
    """Both models right and wrong on the same test examples: their gap hardly varies across
    replicates, so the interval is far narrower than for independent errors."""
    n = 400
    scores = []
    for seed, (folder, kind) in enumerate((("random-0", "random"), ("ll", "likelihood (prompted)"))):
        ids = tuple(f"{folder}{i}" for i in range(n))
        shared = _correct(n, 0.7 if seed == 0 else 0.6, seed)
        scores += [
            SplitScore(folder, kind, m, "accuracy", 0.0, float(np.mean(shared)), ids, shared) for m in ("encoder", "lm")
        ]
    result = fairness(scores, [], {})
    assert result is not None
    low, high = result.rows[1]["gap_change_ci"]["encoder"]
    assert low == high == 0.0


@pytest.mark.long
def test_a_model_at_chance_on_random_splits_makes_the_comparison_inconclusive() -> None:
    """A model that has not learned the task cannot lose accuracy: its "penalty" would read as
    fairness. The comparison says so instead of concluding."""
    scores = _table()
    scores = [s for s in scores if s.baseline != "chance"]
    scores += [SplitScore(f"random-{seed}", "random", "chance", "accuracy", 0.0, 0.69) for seed in range(3)]
    result = fairness(scores, [], {})
    assert result is not None
    assert {c.outcome for c in result.conclusions} == {"inconclusive"}
    assert all(
        "lm scores 70.0% on the random splits, within 2.0 points of chance" in c.evidence
        for c in result.conclusions
        if c.baseline == "lm"
    )


def test_agreement_per_split_against_random() -> None:
    scores = _table(300)
    agreement = []
    for folder, kind, start, share in (("random-0", "random", 0, 0.9), ("random-1", "random", 300, 0.9),
                                       ("random-2", "random", 600, 0.9), ("ll", "likelihood (prompted)", 3000, 0.8),
                                       ("af", "aflite", 9000, 0.7)):  # fmt: skip
        values = tuple(share if i % 2 else float("nan") for i in range(300))  # every other example annotated
        agreement.append(SplitAgreement(folder, kind, tuple(f"x{start + i}" for i in range(300)), values))
    result = fairness(scores, agreement, {})
    assert result is not None
    rows = {r["folder"]: r for r in result.rows}
    assert rows["random-0, random-1, random-2"]["agreement"] == pytest.approx(0.9)
    assert rows["ll"]["agreement_change"] == pytest.approx(-0.1)
    assert rows["af"]["agreement_change"] == pytest.approx(-0.2)
    low, high = rows["ll"]["agreement_change_ci"]
    assert low == pytest.approx(-0.1) and high == pytest.approx(-0.1)  # constant values: no spread
    assert rows["ll-bad"]["agreement"] is None and rows["ll-bad"]["agreement_change"] is None
    assert agreement[0].annotated == 150


@pytest.mark.parametrize(
    "drop",
    [
        lambda s: s.baseline != "lm",  # no scoring-LM model
        lambda s: not s.is_random,  # no random splits
        lambda s: s.is_random,  # nothing to compare with random splits
        lambda s: s.baseline == "lm",  # one model
    ],
)
def test_no_table_without_what_it_compares(drop: object) -> None:
    kept = [s for s in _table(50) if drop(s)]  # type: ignore[operator]
    assert fairness(kept, [], {}) is None


def test_in_the_loop_models() -> None:
    assert (
        in_the_loop("likelihood (prompted, length-controlled)", ["encoder", "lm"], aflite_encoder_matches=True) == "lm"
    )
    assert (
        in_the_loop("likelihood (prompted)", ["encoder", "lm-zero-shot"], aflite_encoder_matches=True) == "lm-zero-shot"
    )
    assert in_the_loop("aflite", ["encoder", "embed", "lm"], aflite_encoder_matches=True) == "embed"
    assert in_the_loop("aflite", ["encoder", "lm"], aflite_encoder_matches=False) is None
    assert in_the_loop("random", ["encoder", "lm"], aflite_encoder_matches=True) is None


def test_outputs_keep_folder_names_inert() -> None:
    hostile = "<img src=x onerror=alert(1)>|*x*"
    scores = [
        SplitScore(
            hostile if s.folder == "ll" else s.folder, s.kind, s.baseline, s.metric, s.dev, s.test, s.ids, s.correct
        )
        for s in _table(100)
    ]
    result = fairness(scores, [], {})
    markdown = fairness_markdown(result)
    assert "<img" not in markdown and "&lt;img" in markdown
    table_lines = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert len({line.count(" | ") for line in table_lines}) == 1  # no cell broke the table
    assert result is not None
    rows = list(csv.DictReader(io.StringIO(fairness_csv(result))))
    assert rows[1]["folder"] == hostile and float(rows[1]["gap_encoder (pp)"]) == pytest.approx(10)
    console = fairness_console(result.as_dict())
    assert hostile in console and "fairness: lm: likelihood (prompted)" in console


def test_aflite_counts_as_built_by_the_evaluated_encoder_only_when_its_hash_matches() -> None:
    from tailsplit.config import EvaluateConfig
    from tailsplit.io.manifest import Manifest
    from tailsplit.pipeline.evaluate_checks import same_encoder

    def manifest(details: dict[str, str], encoder: str | None = None) -> Manifest:
        return Manifest({"splitter": {"name": "aflite", "details": details}, "config": {"split": {"encoder": encoder}}})

    config = EvaluateConfig(split_dirs=["a"])
    random = Manifest({"splitter": {"name": "random", "details": {}}})
    assert same_encoder(config, "h1", [random, manifest({"encoder_sha256": "h1"})])
    assert not same_encoder(config, "h1", [random, manifest({"encoder_sha256": "h2"})])
    # folders written before the hash was recorded: the option's value decides
    assert same_encoder(config, "h1", [manifest({})])
    assert not same_encoder(config, "h1", [manifest({}, encoder="other/encoder")])
