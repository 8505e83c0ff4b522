"""The statistics a split's evaluation set is compared on against random splits, each a ratio
of per-example column sums (:class:`~tailsplit.analysis.null.RatioStatistic`), and those
columns: the text's, the dependency depth, the scores and membership scores, annotator
agreement and program hardness where the split has them."""

from __future__ import annotations

import numpy as np

from tailsplit.analysis.inputs import AnalysisInputs
from tailsplit.analysis.null import RatioStatistic
from tailsplit.analysis.text_counts import TextCounts, example_fk_grades, fk_grade


def text_statistics(what: str) -> list[RatioStatistic]:
    """Length, rare and unlisted words and reading grade of the ``what`` (query, or pair)."""
    return [
        RatioStatistic("mean_words", f"mean {what} length (word tokens)", ("words", "one"), np.divide),
        RatioStatistic(
            "rare_word_fraction",
            "share of words that are rare (in wordfreq's list, ≤ 1 per million)",
            ("rare_words", "alpha_words"),
            np.divide,
        ),
        RatioStatistic(
            "unlisted_word_fraction",
            "share of words not in wordfreq's list (typos, names)",
            ("unlisted_words", "alpha_words"),
            np.divide,
        ),
        RatioStatistic(
            "fk_grade", "Flesch–Kincaid grade (pooled)", ("alpha_words", "sentences", "syllables"), fk_grade
        ),
        RatioStatistic(
            "fk_grade_example_mean",
            "Flesch–Kincaid grade per example, mean",
            ("fk_example_micro", "has_words"),
            micro_mean,
        ),
    ]


def ratio_statistics(inputs: AnalysisInputs, parser_name: str | None = None) -> list[RatioStatistic]:
    """The statistics compared against random splits: the text's, then the dependency depth,
    the scores, annotator agreement and program hardness where the split has them."""
    stats = text_statistics("query" if inputs.text_kind == "query" else "text (context + query)")
    if parser_name is not None:
        stats.append(
            RatioStatistic(
                "mean_dependency_depth",
                f"mean dependency-tree depth ({parser_name})",
                ("dependency_depth", "one"),
                np.divide,
            )
        )
    if inputs.logprob_sum is not None:
        stats.append(RatioStatistic("mean_logprob_sum", "mean total log-likelihood", ("logprob_sum", "one"), np.divide))
    if inputs.logprob_sum is not None and inputs.n_tokens is not None:  # scores from elsewhere may lack counts
        stats.append(
            RatioStatistic("mean_logprob_mean", "mean per-token log-likelihood", ("logprob_mean", "one"), np.divide)
        )
    if inputs.agreement is not None:
        stats += [
            RatioStatistic(
                "annotator_agreement",
                f"share of annotators ({inputs.agreement_field}) agreeing with the gold label, per annotated example",
                ("agreement_micro", "annotated"),
                micro_mean,
            ),
            RatioStatistic(
                "label_entropy",
                f"entropy of the annotators' labels ({inputs.agreement_field}, bits), per annotated example",
                ("entropy_micro", "annotated"),
                micro_mean,
            ),
        ]
    stats += [
        RatioStatistic(
            f"mean_membership_{name}",
            f"mean membership score {name} (larger = more like training data), per scored example",
            (f"membership_{name}_micro", f"has_membership_{name}"),
            micro_mean,
        )
        for name in inputs.membership or {}
    ]
    if inputs.corpus is not None:
        stats += corpus_statistics()
    if inputs.programs is not None and inputs.programs.hardness is not None:
        stats += [
            RatioStatistic(f"hardness_{level}", f"share of '{level}' programs", (f"hardness_{level}", "one"), np.divide)
            for level in inputs.programs.hardness_levels
        ]
    return stats


def statistic_columns(inputs: AnalysisInputs, text: TextCounts, depths: np.ndarray | None) -> dict[str, np.ndarray]:
    grades = example_fk_grades(text)
    columns = {
        "one": np.ones(len(inputs.ids)),
        "words": text.words,
        "alpha_words": text.alpha_words,
        "rare_words": text.rare_words,
        "unlisted_words": text.unlisted_words,
        "sentences": text.sentences,
        "syllables": text.syllables,
        "fk_example_micro": np.rint(np.nan_to_num(grades, nan=0.0) * 1e6),
        "has_words": np.isfinite(grades).astype(np.float64),
    }
    if depths is not None:
        columns["dependency_depth"] = depths
    if inputs.logprob_sum is not None:
        columns["logprob_sum"] = inputs.logprob_sum
    if inputs.logprob_sum is not None and inputs.n_tokens is not None:
        columns["logprob_mean"] = inputs.logprob_sum / np.maximum(inputs.n_tokens, 1)
    if inputs.agreement is not None:
        annotated = np.isfinite(inputs.agreement[:, 0])
        columns["annotated"] = annotated.astype(np.float64)
        columns["agreement_micro"] = np.rint(np.where(annotated, inputs.agreement[:, 0], 0.0) * 1e6)
        columns["entropy_micro"] = np.rint(np.where(annotated, inputs.agreement[:, 1], 0.0) * 1e6)
    for name, values in (inputs.membership or {}).items():
        known = np.isfinite(values)
        columns[f"has_membership_{name}"] = known.astype(np.float64)
        columns[f"membership_{name}_micro"] = np.rint(np.where(known, values, 0.0) * 1e6)
    if inputs.corpus is not None:
        columns.update(inputs.corpus)
    if inputs.programs is not None and inputs.programs.hardness is not None:
        hardness = np.asarray(inputs.programs.hardness)
        for level in inputs.programs.hardness_levels:
            columns[f"hardness_{level}"] = (hardness == level).astype(np.float64)
    return columns


def micro_mean(total_micro: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Mean of values stored in millionths: integers, so sums are exact in any row order (the
    reports must not depend on it)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return total_micro / count / 1e6


CORPUS_ORDER = 8  # the coverage's n-gram order: the overlap audit's shorter default


def corpus_statistics() -> list[RatioStatistic]:
    """How much of the evaluation set a corpus index holds (``analyze --infini-gram``)."""
    return [
        RatioStatistic(
            "corpus_whole_share", "share of queries the corpus holds whole", ("corpus_whole", "one"), np.divide
        ),
        RatioStatistic(
            f"corpus_{CORPUS_ORDER}gram_share",
            f"mean share of a query's tokens inside a {CORPUS_ORDER}-gram the corpus holds",
            ("corpus_coverage_micro", "one"),
            micro_mean,
        ),
        RatioStatistic(
            "corpus_longest_match",
            "mean longest n-gram of a query the corpus holds (tokens)",
            ("corpus_longest", "one"),
            np.divide,
        ),  # fmt: skip
    ]


def corpus_columns(profiles: list) -> dict[str, np.ndarray]:  # list[MatchProfile]
    """The per-example columns of :func:`corpus_statistics` (coverage in millionths: exact sums)."""
    return {
        "corpus_whole": np.array([p.verbatim for p in profiles], dtype=np.float64),
        "corpus_coverage_micro": np.rint(np.array([p.coverage[CORPUS_ORDER] for p in profiles]) * 1e6),
        "corpus_longest": np.array([p.longest for p in profiles], dtype=np.float64),
    }
