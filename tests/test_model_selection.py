"""tailsplit's splitters under scikit-learn's own utilities (clone, check_cv, cross_validate, GridSearchCV)."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest
from helpers import SAMPLE

from tailsplit import DataConfig, RunConfig, run
from tailsplit.errors import ConfigError
from tailsplit.model_selection import (
    AfliteSplit,
    LengthSplit,
    LikelihoodSplit,
    RandomSplit,
    TailsplitCV,
    TemplateSplit,
    TmcdSplit,
)
from tailsplit.splits import SPLITTERS

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import GridSearchCV, check_cv, cross_validate  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402


@pytest.fixture(scope="module")
def snli() -> pd.DataFrame:
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for _, line in zip(range(600), handle)]
    df = pd.DataFrame(rows)[["premise", "hypothesis", "label"]]
    df["logprob_sum"] = -df["hypothesis"].str.len().astype(float)  # as the test backend scores
    return df


def test_every_registered_splitter_has_a_class() -> None:
    classes = {
        cls.splitter_name for cls in (LikelihoodSplit, RandomSplit, LengthSplit, TemplateSplit, TmcdSplit, AfliteSplit)
    }
    assert classes == set(SPLITTERS)


def test_protocol_split_with_and_without_y_and_groups(snli: pd.DataFrame) -> None:
    cv = LikelihoodSplit(scores="logprob_sum", dev_size=30, test_size=30, part="eval")  # dev + test
    assert cv.get_n_splits() == 1
    (train, test), *rest = list(cv.split(snli))
    assert not rest and len(test) == 60 and len(train) == 540 and not set(train) & set(test)
    assert set(test) == set(np.argsort(snli["logprob_sum"].to_numpy(), kind="stable")[:60])
    balanced = LikelihoodSplit(
        scores=snli["logprob_sum"].to_numpy(), dev_size=30, test_size=30, balance_labels=True, part="eval"
    )
    _, test_b = next(balanced.split(snli, snli["label"]))
    assert snli["label"].iloc[test_b].value_counts().max() - snli["label"].iloc[test_b].value_counts().min() <= 1
    premises = snli["premise"].to_numpy()
    train_g2, test_g2 = next(RandomSplit(test_size=30, dev_size=30, part="eval").split(snli, groups=premises))
    assert not set(premises[train_g2]) & set(premises[test_g2])


def test_same_split_as_tailsplit_run(snli: pd.DataFrame) -> None:
    cfg = RunConfig()
    cfg.data = DataConfig(table=snli.drop(columns="logprob_sum"), text="hypothesis", label="label")
    cfg.scoring.backend = "fake"
    cfg.split.dev_size, cfg.split.test_size, cfg.split.balance_labels = 30, 30, True
    result = run(cfg)
    cv = LikelihoodSplit(scores=result.scores.logprob_sum, dev_size=30, test_size=30, balance_labels=True)
    indices = cv.split_indices(snli, snli["label"])
    for ours, theirs in zip(indices.parts().values(), result.split.parts().values()):
        assert np.array_equal(ours, theirs)


def test_params_clone_and_set_params(snli: pd.DataFrame) -> None:
    cv = LikelihoodSplit(scores="logprob_sum", test_size=0.2, length_buckets=5, text="hypothesis")
    params = cv.get_params(deep=True)
    assert params["test_size"] == 0.2 and params["length_buckets"] == 5 and params["rank"] == "logprob_sum"
    twin = clone(cv)
    assert twin is not cv and twin.get_params() == params
    assert [t.tolist() for t in next(twin.split(snli))] == [t.tolist() for t in next(cv.split(snli))]
    assert cv.set_params(seed=3).seed == 3
    with pytest.raises(ValueError, match="no parameter 'sed'"):
        cv.set_params(sed=3)
    assert repr(LikelihoodSplit(test_size=0.2)) == "LikelihoodSplit(test_size=0.2)"
    assert check_cv(cv) is cv


def test_cross_validate_and_grid_search(snli: pd.DataFrame) -> None:
    cv = LikelihoodSplit(scores="logprob_sum", dev_size=0.1, test_size=0.1)
    model = make_pipeline(TfidfVectorizer(), LogisticRegression(max_iter=200))
    scores = cross_validate(model, snli["hypothesis"], snli["label"], cv=cv_on(snli, cv))
    assert len(scores["test_score"]) == 1 and 0.0 <= scores["test_score"][0] <= 1.0
    search = GridSearchCV(model, {"logisticregression__C": [0.1, 1.0]}, cv=cv_on(snli, cv))
    search.fit(snli["hypothesis"], snli["label"])
    assert set(search.cv_results_["param_logisticregression__C"]) == {0.1, 1.0}
    parts = cv_on(snli, cv).split_indices(snli)
    assert len(next(cv_on(snli, cv).split(snli))[1]) == len(parts.dev_idx)  # the default: dev, for every helper
    assert len(next(cv_on(snli, cv).set_params(part="eval").split(snli))[1]) == len(parts.eval_idx)
    assert np.array_equal(next(cv_on(snli, cv).set_params(part="test").split(snli))[1], parts.test_idx)


def test_a_series_binds_by_index_and_numbers_are_checked_before_any_cast(snli: pd.DataFrame) -> None:
    shuffled = snli.sample(frac=1.0, random_state=3)  # X's rows in another order than the Series'
    by_name = LikelihoodSplit(scores="logprob_sum", dev_size=20, test_size=20).split_indices(shuffled)
    by_series = LikelihoodSplit(scores=snli["logprob_sum"], dev_size=20, test_size=20).split_indices(shuffled)
    assert set(by_series.eval_idx) == set(by_name.eval_idx)  # was 5 of 40 shared: bound by position
    y = snli["label"]
    balanced = LikelihoodSplit(scores="logprob_sum", dev_size=20, test_size=20, balance_labels=True)
    assert np.array_equal(
        balanced.split_indices(shuffled, y).test_idx, balanced.split_indices(shuffled, shuffled["label"]).test_idx
    )
    with pytest.raises(ConfigError, match="scores is a Series whose index is not X's rows"):
        LikelihoodSplit(scores=snli["logprob_sum"].iloc[:10]).split_indices(shuffled)
    with pytest.raises(ConfigError, match="scores is a Series with its own index, but X has none"):
        LikelihoodSplit(scores=shuffled["logprob_sum"]).split_indices(shuffled["hypothesis"].to_numpy())
    with pytest.raises(ConfigError, match=r"lengths is 1\.5 at row 0; give whole counts of 0 or more"):
        LengthSplit(lengths=np.full(len(snli), 1.5)).split_indices(snli)
    with pytest.raises(ConfigError, match=r"n_tokens is 2\.5 at row 0"):
        LikelihoodSplit(scores="logprob_sum", n_tokens=np.full(len(snli), 2.5), rank="logprob_mean").split_indices(snli)
    with pytest.raises(ConfigError, match=r"scores is 3\.0 at row 0, above 0, which no log-probability is"):
        LikelihoodSplit(scores=np.full(len(snli), 3.0)).split_indices(snli)


def test_a_search_validates_on_dev_only(snli: pd.DataFrame) -> None:
    seen: list[int] = []

    class Spy(LogisticRegression):
        def score(self, X, y, sample_weight=None):  # noqa: N803 - scikit-learn's name
            seen.append(X.shape[0])
            return super().score(X, y, sample_weight)

    cv = LikelihoodSplit(scores=snli["logprob_sum"].to_numpy(), dev_size=40, test_size=60)
    features = TfidfVectorizer().fit_transform(snli["hypothesis"])
    GridSearchCV(Spy(max_iter=200), {"C": [0.1, 1.0]}, cv=cv).fit(features, snli["label"])
    assert seen == [40, 40]  # each candidate validated on the 40 dev rows, never on the 60 of test


def test_errors_speak_scikit_learns_words_and_params_stay_readable(snli: pd.DataFrame) -> None:
    cv = LikelihoodSplit(scores=snli["logprob_sum"].to_numpy(), balance_labels=True)
    with pytest.raises(ConfigError, match=r"balance_labels=True\) balances the labels: pass y to split\(X, y\)"):
        next(cv.split(snli))
    shown = repr(cv.get_params())
    assert f"array of {len(snli)} values in [" in shown and len(shown) < 600
    assert clone(cv).get_params()["scores"].tolist() == snli["logprob_sum"].tolist()  # clone keeps the column


def cv_on(df: pd.DataFrame, cv: TailsplitCV) -> TailsplitCV:
    """A column name needs the DataFrame; scikit-learn passes only the text column, so bind the array."""
    return clone(cv).set_params(scores=df["logprob_sum"].to_numpy())


def test_predefined_split_matches(snli: pd.DataFrame) -> None:
    cv = RandomSplit(dev_size=30, test_size=30, seed=4, part="eval")
    predefined = cv.predefined_split(snli)
    (train, test) = next(predefined.split())
    ours = next(cv.split(snli))
    assert np.array_equal(np.sort(train), ours[0]) and np.array_equal(np.sort(test), ours[1])
    with pytest.raises(ConfigError, match="PredefinedSplit cannot express"):
        RandomSplit(dev_size=30, test_size=30, part="test").predefined_split(snli)
    with pytest.raises(ConfigError, match=r"use cv.train_dev_split\(X, y\)"):  # the default: dev alone
        RandomSplit(dev_size=30, test_size=30).predefined_split(snli)


def test_model_selection_on_dev_never_sees_the_test_part(snli: pd.DataFrame) -> None:
    cv = LikelihoodSplit(scores=snli["logprob_sum"].to_numpy(), dev_size=60, test_size=60, balance_labels=True)
    parts = cv.split_indices(snli, snli["label"])
    rows, dev_fold = cv.train_dev_split(snli, snli["label"])
    assert np.array_equal(rows, np.sort(np.concatenate([parts.train_idx, parts.dev_idx])))
    assert not np.isin(parts.test_idx, rows).any()
    ((train, dev),) = dev_fold.split()
    assert np.array_equal(rows[train], np.sort(parts.train_idx)) and np.array_equal(rows[dev], np.sort(parts.dev_idx))
    seen = []

    class Spy(LogisticRegression):
        def fit(self, X, y, sample_weight=None):  # noqa: N803 - scikit-learn's name
            seen.append(X.shape[0])
            return super().fit(X, y, sample_weight)

    X, y = snli["hypothesis"], snli["label"]
    search = GridSearchCV(make_pipeline(TfidfVectorizer(), Spy(max_iter=200)), {"spy__C": [0.1, 1.0]}, cv=dev_fold)
    search.fit(X.iloc[rows], y.iloc[rows])
    assert seen == [len(parts.train_idx)] * 2 + [len(rows)]  # two candidates on train, the refit on train + dev
    assert 0.0 <= search.score(X.iloc[parts.test_idx], y.iloc[parts.test_idx]) <= 1.0


def test_logprob_sum_needs_no_token_counts_but_mean_does(snli: pd.DataFrame) -> None:
    next(LikelihoodSplit(scores="logprob_sum", test_size=30, dev_size=30).split(snli))
    with pytest.raises(ConfigError, match="rank='logprob_mean' divides by token counts"):
        next(LikelihoodSplit(scores="logprob_sum", rank="logprob_mean").split(snli))
    with pytest.raises(ConfigError, match="needs scores"):
        next(LikelihoodSplit().split(snli))
    with pytest.raises(ConfigError, match="scores='nope' names a column"):
        next(LikelihoodSplit(scores="nope").split(snli))
    with pytest.raises(ConfigError, match="needs word lengths"):
        next(LengthSplit().split(snli))
    _, test = next(LengthSplit(text="hypothesis", test_size=30, dev_size=30).split(snli))
    lengths = snli["hypothesis"].str.split().str.len().to_numpy()
    assert lengths[test].mean() > lengths.mean()


def test_program_splitters_read_a_program_column() -> None:
    shapes = [
        "SELECT a FROM {t}", "SELECT count(*) FROM {t}", "SELECT a FROM {t} WHERE b > 1", "SELECT a FROM {t} ORDER BY b",
        "SELECT a, b FROM {t}", "SELECT max(a) FROM {t}", "SELECT a FROM {t} WHERE b = 'x' AND c < 2",
        "SELECT a FROM {t} GROUP BY a", "SELECT a FROM {t} LIMIT 1", "SELECT min(a) FROM {t} WHERE c > 3",
        "SELECT DISTINCT a FROM {t}", "SELECT avg(a) FROM {t} GROUP BY b",
    ]  # fmt: skip
    sql = [shapes[i % len(shapes)].format(t=f"t{i % 7}") for i in range(120)]
    X = pd.DataFrame({"question": [f"q{i}" for i in range(120)], "query": sql})
    train, test = next(TemplateSplit(programs="query", dev_size=0.1, test_size=0.1, part="eval").split(X))
    assert len(train) + len(test) == 120
    train, test = next(TmcdSplit(programs="query", dev_size=0.1, test_size=0.1, max_iterations=50).split(X))
    assert len(test) > 0


def test_aflite_split_takes_x_as_features_and_holds_out_what_classifiers_cannot_predict() -> None:
    rng = np.random.default_rng(3)
    y = np.array(["a", "b"] * 100)
    signal = np.where(y == "a", 1.0, -1.0) * (np.arange(200) < 150)  # the last 50 rows carry no signal
    X = np.c_[signal, rng.normal(size=(200, 4))]
    cv = AfliteSplit(dev_size=20, test_size=20, partitions=16, balance_labels=True, part="eval")
    ((train, held_out),) = cv.split(X, y)
    assert len(held_out) == 40 and np.mean(held_out >= 150) > 0.6  # mostly the unpredictable rows
    assert clone(cv).get_params()["partitions"] == 16
    with pytest.raises(ConfigError, match="needs y"):
        next(cv.split(X))
    with pytest.raises(ConfigError, match="numeric feature matrix"):
        next(cv.split(np.array([["x"]] * 200), y))


def test_every_helper_that_picks_a_model_validates_on_dev_alone() -> None:
    """The searches, validation_curve and learning_curve (and cross_validate) score on dev by
    default — the same split however they are called, no call stack read — so model selection
    never sees the test part; each helper's score equals the model's score on dev."""
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, cross_validate, learning_curve, validation_curve

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), rng.integers(0, 2, size=200)
    cv = LikelihoodSplit(scores=-rng.random(200), dev_size=30, test_size=30)
    parts = cv.split_indices(X, y)
    model = LogisticRegression(C=0.5)
    fitted = clone(model).fit(X[parts.train_idx], y[parts.train_idx])
    expected = fitted.score(X[parts.dev_idx], y[parts.dev_idx])
    assert cross_validate(model, X, y, cv=cv)["test_score"][0] == pytest.approx(expected)
    search = GridSearchCV(model, {"C": [0.5]}, cv=cv).fit(X, y)
    assert search.cv_results_["split0_test_score"][0] == pytest.approx(expected)
    _, valid = validation_curve(model, X, y, param_name="C", param_range=[0.5], cv=cv)
    assert valid[0, 0] == pytest.approx(expected)
    sizes, _, scores = learning_curve(model, X, y, train_sizes=[1.0], cv=cv)
    assert sizes[0] == len(parts.train_idx) and scores[0, 0] == pytest.approx(expected)
    on_test = cross_validate(model, X, y, cv=clone(cv).set_params(part="test"))["test_score"][0]  # the final score
    assert on_test == pytest.approx(fitted.score(X[parts.test_idx], y[parts.test_idx]))
