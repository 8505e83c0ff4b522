"""The Kneser–Ney n-gram LM and cross-fitted scoring."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from helpers import SAMPLE

from tailsplit import pipeline
from tailsplit.config import DataConfig, RunConfig
from tailsplit.errors import ConfigError
from tailsplit.scoring.base import ScoreRequest
from tailsplit.scoring.crossfit import assign_folds, cross_score, fold_units
from tailsplit.scoring.ngram import KneserNeyLM, NgramFoldScorer, modified_discounts


def test_bigram_probability_matches_hand_computation() -> None:
    # corpus: "<s> a b </s>", "<s> a c </s>"
    # bigram counts: <s>→a ×2, a→b, a→c, b→</s>, c→</s>: n1 = 4, n2 = 1, Y = 4/6, D1 = 1 − 2·Y·1/4 = 2/3
    # unigram continuation counts: a 1, b 1, c 1, </s> 2 (sum 5): n1 = 3, n2 = 1, Y = 0.6, D1 = 0.6, D2 = 1
    #   γ() = (0.6·3 + 1·1)/5 = 0.56;  P1(b) = (1 − 0.6)/5 + 0.56 · 1/5 = 0.192   (|V| = 4 words + <unk>)
    # P(b | a) = (1 − 2/3)/2 + γ(a)·P1(b), γ(a) = (2/3 · 2)/2 = 2/3  →  1/6 + 0.128
    lm = KneserNeyLM(order=2).fit([["a", "b"], ["a", "c"]])
    assert lm.prob("b", ["a"]) == pytest.approx(1 / 6 + 0.128, abs=1e-12)
    assert lm.prob("zebra", ["a"]) == lm.prob("<unk>", ["a"]) > 0


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_probabilities_sum_to_one_for_any_history(order: int) -> None:
    corpus = [
        s.split()
        for s in ("the cat sat on the mat", "the dog sat on the log", "a cat ran", "the cat ran home", "a dog sat")
    ]
    lm = KneserNeyLM(order).fit(corpus)
    words = sorted(lm.vocab) + ["<unk>"]
    for history in ([], ["the"], ["the", "cat"], ["on", "the"], ["never", "seen"], ["a", "dog", "sat"]):
        assert sum(lm.prob(w, history) for w in words) == pytest.approx(1.0, abs=1e-9)


def test_sentence_logprob_is_the_sum_of_its_words() -> None:
    lm = KneserNeyLM(3).fit([["a", "b", "c"], ["a", "b", "d"]])
    expected = sum(
        math.log(lm.prob(w, h))
        for w, h in (("a", ["<s>", "<s>"]), ("b", ["<s>", "a"]), ("c", ["a", "b"]), ("</s>", ["b", "c"]))
    )
    assert lm.logprob(["a", "b", "c"]) == pytest.approx(expected)


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_sentence_logprob_equals_the_word_by_word_definition_exactly(order: int) -> None:
    """logprob runs precomputed per-history steps; its floats are those of summing
    log(prob(word, history)) word by word — unknown words and unseen histories included."""
    from tailsplit.core import FieldMap
    from tailsplit.io import load_examples
    from tailsplit.words import word_tokens

    dataset = load_examples(SAMPLE, FieldMap(text="hypothesis"))
    sentences = [[w.lower() for w in word_tokens(t)] for t in dataset.texts[:1500]]
    lm = KneserNeyLM(order).fit(sentences[:1000])
    for sentence in sentences[1000:] + [["never", "seen", "words"], []]:
        padded = ["<s>"] * (order - 1) + sentence + ["</s>"]
        expected = sum(math.log(lm.prob(padded[i], padded[:i])) for i in range(order - 1, len(padded)))
        assert lm.logprob(sentence) == expected


def test_discounts_follow_counts_of_counts() -> None:
    d1, d2, d3 = modified_discounts({1: 100, 2: 40, 3: 20, 4: 10})
    y = 100 / 180
    assert (d1, d2, d3) == pytest.approx((1 - 2 * y * 40 / 100, 2 - 3 * y * 20 / 40, 3 - 4 * y * 10 / 20))


def test_folds_keep_equal_keys_together_and_are_balanced() -> None:
    keys = [f"k{i % 50}" for i in range(200)]
    folds = assign_folds(keys, 3, seed=0)
    for key in set(keys):
        assert len({folds[i] for i in range(200) if keys[i] == key}) == 1
    units_per_fold = np.bincount([folds[keys.index(k)] for k in set(keys)])
    assert units_per_fold.max() - units_per_fold.min() <= 1
    assert not np.array_equal(folds, assign_folds(keys, 3, seed=1))
    with pytest.raises(ConfigError, match="folds=1"):
        assign_folds(keys, 1, seed=0)


class RecordingScorer:
    """Remembers what each fold trained on and scored."""

    def __init__(self) -> None:
        self.seen: list[tuple[set[str], set[str]]] = []

    def identity(self) -> dict:
        return {"name": "recording"}

    def fit_and_score(self, train, heldout, fold, train_sha256):  # noqa: ANN001
        self.seen.append(({r.query for r in train}, {r.query for r in heldout}))
        return np.full(len(heldout), -1.0), np.ones(len(heldout), dtype=int), {}


def test_no_fold_scores_an_example_it_was_trained_on() -> None:
    queries = [f"question {i % 120}" for i in range(300)]  # duplicates must not straddle folds
    requests = [ScoreRequest("p: ", q) for q in queries]
    scorer = RecordingScorer()
    total, _, folds, reports = cross_score(requests, queries, scorer, k=3, seed=7)
    assert np.isfinite(total).all() and len(reports) == 3
    for trained, scored in scorer.seen:
        assert not trained & scored
    assert set().union(*(s for _, s in scorer.seen)) == set(queries)


def test_with_groups_no_fold_scores_a_text_it_was_trained_on() -> None:
    """Equal texts in different groups used to cross folds (the group alone was the key)."""
    rng = np.random.default_rng(0)
    queries = [f"hypothesis {i}" if rng.random() < 0.9 else f"common {rng.integers(5)}" for i in range(300)]
    groups = [f"premise {i // 3}" for i in range(300)]
    requests = [ScoreRequest("p: ", q) for q in queries]
    for match in ("exact", "normalized"):
        scorer = RecordingScorer()
        _, _, folds, _ = cross_score(requests, fold_units(queries, groups, match=match), scorer, k=3, seed=1)
        for trained, scored in scorer.seen:
            assert not trained & scored
        for g in set(groups):
            assert len({folds[i] for i in range(300) if groups[i] == g}) == 1


def test_normalized_matching_joins_near_duplicates() -> None:
    queries = ["A dog runs.", "a dog runs", "A  DOG, runs!", "a cat sleeps"] * 10 + [f"other {i}" for i in range(30)]
    exact = fold_units(queries)
    normalized = fold_units(queries, match="normalized")
    assert len(set(exact)) == 34 and len(set(normalized)) == 32
    folds = assign_folds(normalized, 3, seed=0)
    assert len({folds[i] for i, q in enumerate(queries) if q.lower().startswith(("a dog", "a  dog"))}) == 1


def test_fold_units_keep_the_folds_of_plain_text_keys() -> None:
    """Without groups, exact units number as the distinct texts did: earlier folds are unchanged."""
    queries = [f"q{(i * 7) % 61}" for i in range(400)]
    assert np.array_equal(assign_folds(fold_units(queries), 3, seed=4), assign_folds(queries, 3, seed=4))


@pytest.mark.long
def test_ngram_method_runs_through_the_pipeline(tmp_path: Path) -> None:
    config = RunConfig()
    config.data = DataConfig(paths=[str(SAMPLE)], text="hypothesis", context="premise", label="label")
    config.scoring.method = "ngram"
    config.split.balance_labels = True
    config.output.out, config.output.syntax = str(tmp_path / "out"), False  # the scores are the point here
    result = pipeline.run(config)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["method"] == "ngram" and len(manifest["folds"]["reports"]) == 3
    assert sum(manifest["folds"]["sizes"]) == 3000
    means = {s.part: s.mean_logprob_sum for s in result.summaries}
    assert means["test"] < means["train"]
    again = pipeline.run(config.__class__(data=config.data, scoring=config.scoring, split=config.split))
    assert np.array_equal(again.scores.logprob_sum, result.scores.logprob_sum)


def test_ngram_fold_scorer_counts_words_and_end_marker() -> None:
    scorer = NgramFoldScorer(order=2)
    train = [ScoreRequest("", "A man sleeps."), ScoreRequest("", "A woman sleeps.")]
    scores, counts, details = scorer.fit_and_score(train, [ScoreRequest("", "A dog sleeps.")], 0, "x")
    assert counts.tolist() == [5] and scores[0] < 0 and details["vocabulary"] == 6
