"""What makes a split hard: per-part statistics, and every evaluation statistic against the
null distribution of random splits of the same sizes (same label counts when the split
balanced labels).

Inputs are columns (:class:`AnalysisInputs`), made either from a finished run in memory or
from a split folder on disk (:mod:`tailsplit.analysis.split_dir`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tailsplit.analysis.inputs import AnalysisInputs
from tailsplit.analysis.leakage import DuplicateKeys, describe, duplicate_views
from tailsplit.analysis.null import (
    ALPHA,
    CORRECTION,
    NullComparison,
    holm,
    per_split_null,
    random_eval_rows,
    ratio_statistics_null,
)
from tailsplit.analysis.program_metrics import ProgramMetrics, divergence_note, novel_share, program_metrics
from tailsplit.analysis.split_statistics import ratio_statistics, statistic_columns
from tailsplit.analysis.summary import PartStatistics
from tailsplit.analysis.syntax import Parser, dependency_depths, find_parser
from tailsplit.analysis.text_counts import TextCounts, compute_text_counts, example_fk_grades, fk_grade
from tailsplit.config import NULL_SPLITS
from tailsplit.core import SPLIT_PARTS
from tailsplit.programs.divergence import ATOM_ALPHA, COMPOUND_ALPHA, chernoff_divergence
from tailsplit.programs.sets import ProgramFeatures

SYNTAX_UNAVAILABLE = (
    "Syntactic complexity (dependency depth) is not reported: no spaCy English pipeline is "
    "installed (pip install 'tailsplit[syntax]' brings one). The Yngve score needs a "
    "constituency parse, which no pipeline on the package index provides."
)
SYNTAX_OFF = "Syntactic complexity was not computed (--no-syntax)."


@dataclass
class SplitAnalysis:
    name: str
    n: int
    parts: list[PartStatistics]
    null: list[NullComparison]
    n_null_splits: int
    seed: int
    program_metrics: list[ProgramMetrics] = field(default_factory=list)
    hardest: list[dict[str, Any]] = field(default_factory=list)
    easiest: list[dict[str, Any]] = field(default_factory=list)
    word_counts: dict[str, np.ndarray] = field(default_factory=dict)
    scores: dict[str, np.ndarray] = field(default_factory=dict)
    fk_grades: dict[str, np.ndarray] = field(default_factory=dict)  # per-example grades by part
    text_kind: str = "query"
    syntax_note: str = SYNTAX_UNAVAILABLE
    parser: str | None = None  # the dependency parser's name and versions, when syntax was computed
    program_note: str | None = None
    leakage: dict[str, dict[str, float]] = field(default_factory=dict)  # part → "query_exact" … → share
    agreement: dict[str, dict[str, float]] = field(default_factory=dict)  # part → annotated, agreement, entropy
    agreement_field: str | None = None
    kind: str | None = None  # how the split was made (``length``, ``likelihood (prompted)``): for captions
    membership: Mapping[str, np.ndarray] | None = None  # --membership-k's scores per example (NaN: none)

    def comparison(self, name: str) -> NullComparison | None:
        return next((c for c in self.null if c.name == name), None)

    def correction(self) -> str:
        """How the report's verdicts are calibrated (test, correction, family size, level)."""
        family = max((c.family for c in self.null), default=0)
        text = CORRECTION.format(family=family, alpha=ALPHA)
        if family and family / (self.n_null_splits + 1) > ALPHA:  # the smallest p, adjusted, is too large
            needed = int(np.ceil(family / ALPHA)) - 1
            text += (
                f"; with {self.n_null_splits} random splits no statistic can reach that level — "
                f"use --null-splits {needed} or more"
            )
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "examples": self.n,
            "null_splits": self.n_null_splits,
            "seed": self.seed,
            "text": self.text_kind,
            "parts": [p.analysis_dict() for p in self.parts],
            "against_null": [c.as_dict() for c in self.null],
            "correction": self.correction(),
            "programs": [m.as_dict() for m in self.program_metrics],
            "hardest": self.hardest,
            "easiest": self.easiest,
            "syntax": self.syntax_note,
            "leakage": self.leakage,
            **({"agreement": {"field": self.agreement_field, "parts": self.agreement}} if self.agreement else {}),
            **({"programs_counted": self.program_note} if self.program_note else {}),
        }


def _program_null(programs: ProgramFeatures, eval_mask: np.ndarray, null_rows: np.ndarray) -> list[NullComparison]:
    def atom_div(mask: np.ndarray) -> float:
        return chernoff_divergence(programs.atoms.counts(~mask), programs.atoms.counts(mask), ATOM_ALPHA)

    def compound_div(mask: np.ndarray) -> float:
        return chernoff_divergence(programs.compounds.counts(~mask), programs.compounds.counts(mask), COMPOUND_ALPHA)

    def novel(mask: np.ndarray) -> float:
        return novel_share(programs.compounds, ~mask, mask)

    return [
        per_split_null("atom_divergence", "atom divergence from train (α = 0.5)", atom_div, eval_mask, null_rows),
        per_split_null(
            "compound_divergence", "compound divergence from train (α = 0.1)", compound_div, eval_mask, null_rows
        ),
        per_split_null(
            "novel_compound_share", "share of examples with a compound unseen in train", novel, eval_mask, null_rows
        ),
    ]


def analyze_split(
    inputs: AnalysisInputs,
    *,
    null_splits: int = NULL_SPLITS,
    seed: int = 0,
    n_examples: int = 10,
    text: TextCounts | None = None,
    syntax: bool = True,
    duplicates: Sequence[DuplicateKeys] | None = None,
) -> SplitAnalysis:
    """Per-part statistics and evaluation (dev + test) statistics against ``null_splits``
    random splits; dependency depth too when ``syntax`` and a spaCy pipeline is installed.
    ``text`` and ``duplicates`` (the rows' text counts and :func:`duplicate_views`), when given,
    are the dataset's own, computed once for many splits of it."""
    text = compute_text_counts(inputs.texts) if text is None else text
    parser = find_parser() if syntax else None
    depths = None if parser is None else dependency_depths(inputs.texts, parser)
    eval_mask = inputs.eval_mask
    canonical = np.argsort(np.asarray(inputs.ids, dtype=str), kind="stable")  # row order must not matter
    null_rows = _null_rows(inputs, canonical, null_splits, seed)
    columns = statistic_columns(inputs, text, depths)
    null = ratio_statistics_null(
        ratio_statistics(inputs, None if parser is None else parser.name),
        columns,
        eval_mask,
        null_rows,
        order=canonical,
    )
    leakage, leakage_null = _leakage(inputs, eval_mask, null_rows, duplicates)
    null += leakage_null
    if inputs.programs is not None:
        null += _program_null(inputs.programs, eval_mask, null_rows)
    null = holm(null)  # one family: every statistic this report tests
    analysis = SplitAnalysis(
        name=inputs.name,
        n=len(inputs.ids),
        parts=[_part_statistics(inputs, text, p, depths) for p in SPLIT_PARTS],
        null=null,
        n_null_splits=null_splits,
        seed=seed,
        program_metrics=[] if inputs.programs is None else program_metrics(inputs.programs, inputs.split_indices()),
        program_note=None
        if inputs.programs is None
        else divergence_note(inputs.programs.count, inputs.programs.extractor),
        word_counts={p: text.words[inputs.parts == p] for p in SPLIT_PARTS},
        fk_grades={p: example_fk_grades(text)[inputs.parts == p] for p in SPLIT_PARTS},
        text_kind=inputs.text_kind,
        syntax_note=_syntax_note(syntax, parser),
        parser=None if parser is None else parser.name,
        leakage=leakage,
        agreement=_agreement_parts(inputs),
        agreement_field=inputs.agreement_field,
        kind=inputs.kind,
    )
    if inputs.logprob_sum is not None:
        _add_scores(analysis, inputs, inputs.logprob_sum, n_examples)
    return analysis


def _null_rows(inputs: AnalysisInputs, canonical: np.ndarray, null_splits: int, seed: int) -> np.ndarray:
    """The evaluation rows of each random split, drawn in id order (label-balanced when the
    split was), so the null does not depend on row order."""
    strata = None
    if inputs.balance_labels and inputs.labels is not None:
        strata = np.unique(np.asarray(inputs.labels, dtype=str), return_inverse=True)[1]
    mask, by_id = inputs.eval_mask[canonical], None if strata is None else strata[canonical]
    return canonical[random_eval_rows(mask, by_id, null_splits, seed)]


def _add_scores(analysis: SplitAnalysis, inputs: AnalysisInputs, logprob_sum: np.ndarray, n_examples: int) -> None:
    """Each part's scores, and the ``n_examples`` least and most likely examples."""
    analysis.scores = {p: logprob_sum[inputs.parts == p] for p in SPLIT_PARTS}
    ids = np.asarray(inputs.ids, dtype=str)  # ties by id, so row order does not matter
    analysis.hardest = [_example_row(inputs, int(i)) for i in np.lexsort((ids, logprob_sum))[:n_examples]]
    analysis.easiest = [_example_row(inputs, int(i)) for i in np.lexsort((ids, -logprob_sum))[:n_examples]]


def _leakage(
    inputs: AnalysisInputs,
    eval_mask: np.ndarray,
    null_rows: np.ndarray,
    duplicates: Sequence[DuplicateKeys] | None = None,
) -> tuple[dict[str, dict[str, float]], list[NullComparison]]:
    """Per evaluation part, the share of queries (and pairs) also in train; the evaluation set's
    shares against the null distribution."""
    queries = inputs.queries if inputs.queries is not None else (inputs.texts if inputs.text_kind == "query" else None)
    if queries is None:
        return {}, []
    views = duplicate_views(queries, inputs.contexts) if duplicates is None else duplicates
    train = inputs.parts == "train"
    parts: dict[str, dict[str, float]] = {"dev": {}, "test": {}}
    null = []
    for view in views:
        for match in view.matches():
            name = f"{view.view}_{match}"
            for part in parts:
                parts[part][name] = round(view.share(match, train, inputs.parts == part), 6)
            observed = view.share(match, ~eval_mask, eval_mask)
            null_values = view.null_shares(match, null_rows)
            null.append(NullComparison.of(f"{name}_in_train", describe(match, view.view), observed, null_values))
    return parts, null


def _agreement_parts(inputs: AnalysisInputs) -> dict[str, dict[str, float]]:
    if inputs.agreement is None:
        return {}
    out = {}
    for part in SPLIT_PARTS:
        values = inputs.agreement[inputs.parts == part]
        values = values[np.isfinite(values[:, 0])]
        out[part] = {
            "annotated": int(len(values)),
            "agreement": _mean(values[:, 0]),
            "entropy": _mean(values[:, 1]),
            "unanimous": _mean((values[:, 0] == 1.0).astype(np.float64)),
        }
    return out


def annotator_agreement(gold: str, annotations: Sequence[str]) -> tuple[float, float]:
    """(share of annotators agreeing with ``gold``, entropy of their labels in bits).

    >>> annotator_agreement("a", ["a", "a", "b", "a", "a"])
    (0.8, 0.7219280948873623)
    """
    counts = np.asarray(list(Counter(annotations).values()), dtype=np.float64)
    p = counts / counts.sum()
    entropy = float(-(p * np.log2(p)).sum()) + 0.0
    return sum(a == gold for a in annotations) / len(annotations), entropy


def _syntax_note(syntax: bool, parser: Parser | None) -> str:
    if not syntax:
        return SYNTAX_OFF
    if parser is None:
        return SYNTAX_UNAVAILABLE
    return (
        f"Dependency-tree depth per example (its deepest sentence) from {parser.name}. The Yngve score "
        "needs a constituency parse, which no pipeline on the package index provides."
    )


def _part_statistics(
    inputs: AnalysisInputs, text: TextCounts, part: str, depths: np.ndarray | None = None
) -> PartStatistics:
    rows = inputs.parts == part
    labels = Counter(np.asarray(inputs.labels, dtype=object)[rows].tolist()) if inputs.labels is not None else {}
    scores = None if inputs.logprob_sum is None else inputs.logprob_sum[rows]
    grades = example_fk_grades(text)[rows]
    grades = grades[np.isfinite(grades)]
    with np.errstate(divide="ignore", invalid="ignore"):
        return PartStatistics(
            part=part,
            size=int(rows.sum()),
            label_counts=dict(sorted(labels.items())),
            mean_words=_mean(text.words[rows]),
            median_words=float(np.median(text.words[rows])) if rows.any() else float("nan"),
            rare_word_fraction=float(np.divide(text.rare_words[rows].sum(), text.alpha_words[rows].sum())),
            unlisted_word_fraction=float(np.divide(text.unlisted_words[rows].sum(), text.alpha_words[rows].sum())),
            fk_grade=float(
                fk_grade(text.alpha_words[rows].sum(), text.sentences[rows].sum(), text.syllables[rows].sum())
            ),
            fk_grade_example_mean=_mean(grades),
            fk_grade_example_sd=float(np.std(grades)) if len(grades) else float("nan"),
            mean_dependency_depth=None if depths is None else _mean(depths[rows]),
            mean_logprob_sum=None if scores is None else _mean(scores),
            mean_logprob_mean=None
            if scores is None or inputs.n_tokens is None
            else _mean(scores / np.maximum(inputs.n_tokens[rows], 1)),
        )


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def _example_row(inputs: AnalysisInputs, i: int) -> dict[str, Any]:
    assert inputs.logprob_sum is not None  # examples are listed only for scored splits
    row: dict[str, Any] = {
        "id": inputs.ids[i],
        "part": str(inputs.parts[i]),
        "text": inputs.queries[i] if inputs.queries is not None else inputs.texts[i],
        "logprob_sum": round(float(inputs.logprob_sum[i]), 4),
    }
    if inputs.contexts is not None:
        row["context"] = inputs.contexts[i]
    if inputs.labels is not None:
        row["label"] = inputs.labels[i]
    return row
