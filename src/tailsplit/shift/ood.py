"""Choosing OOD test sets for an ID dataset by BOSS's criteria (Yuan et al. 2023), with reasons.

A candidate is kept when it is (1) not too similar to the ID data (centroid similarity below
``max_similarity``, when given), (2) challenging (ID accuracy minus its accuracy at least
``min_drop``, when accuracies are given), and (3) the best of its text source — at most one
dataset per source: the one with the larger drop, else the lower similarity. Kept candidates
are ranked by drop (largest first) when accuracies are given, else by similarity (lowest
first). A drop from an ID model that has not learnt its task says nothing of shift: then no
candidate is kept or rejected, each is ``undecided`` with the reason (see
:func:`id_model_unlearnt`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tailsplit.errors import ConfigError


@dataclass(frozen=True)
class Candidate:
    name: str
    source: str
    similarity: float  # centroid cosine with the ID dataset, ×100
    accuracy: float | None = None  # the ID-trained model's accuracy on it
    accuracy_ci: tuple[float, float] | None = None  # 95% bootstrap interval, when measured
    drop_ci: tuple[float, float] | None = None  # of ID accuracy minus its accuracy
    examples: int | None = None  # the examples its accuracy was measured on


@dataclass
class Decision:
    candidate: Candidate
    kept: bool = True
    rank: int | None = None
    drop: float | None = None
    reasons: list[str] = field(default_factory=list)
    undecided: bool = False

    def as_dict(self) -> dict[str, Any]:
        c = self.candidate
        return {
            "name": c.name,
            "source": c.source,
            "similarity": round(c.similarity, 2),
            "accuracy": None if c.accuracy is None else round(c.accuracy, 4),
            "accuracy_ci": None if c.accuracy_ci is None else [round(v, 4) for v in c.accuracy_ci],
            "examples": c.examples,
            "drop": None if self.drop is None else round(self.drop, 4),
            "drop_ci": None if c.drop_ci is None else [round(v, 4) for v in c.drop_ci],
            "kept": self.kept,
            "rank": self.rank,
            "reasons": self.reasons,
            **({"undecided": True} if self.undecided else {}),
        }


def rank_candidates(
    candidates: Sequence[Candidate],
    *,
    id_accuracy: float | None = None,
    max_similarity: float | None = None,
    min_drop: float = 0.0,
    undecided: str | None = None,
) -> list[Decision]:
    """A decision per candidate, kept ones ranked; in the candidates' order.

    >>> d = rank_candidates([Candidate("a", "web", 80.0, 0.7), Candidate("b", "web", 60.0, 0.6),
    ...                      Candidate("c", "news", 50.0, 0.85)], id_accuracy=0.9, min_drop=0.1)
    >>> [(x.candidate.name, x.kept, x.rank) for x in d]
    [('a', False, None), ('b', True, 1), ('c', False, None)]
    """
    with_accuracy = [c.accuracy is not None for c in candidates]
    if any(with_accuracy) and not all(with_accuracy):
        raise ConfigError("some candidates have an accuracy and some not; give every candidate one, or none")
    use_drop = all(with_accuracy) and bool(candidates)
    if use_drop and id_accuracy is None:
        raise ConfigError("candidate accuracies need --id-accuracy (the model's accuracy on the ID test set)")
    decisions = [Decision(c, drop=(id_accuracy - c.accuracy) if use_drop else None) for c in candidates]  # type: ignore[operator]
    if undecided is not None:
        for d in decisions:
            d.kept, d.undecided = False, True
            d.reasons.append(f"undecided: {undecided}")
        return decisions
    for d in decisions:
        _check_thresholds(d, max_similarity, min_drop if use_drop else None)
    _one_per_source(decisions, use_drop)
    kept = sorted(
        (d for d in decisions if d.kept),
        key=lambda d: (
            ((-(d.drop or 0.0), d.candidate.similarity) if use_drop else (d.candidate.similarity,))
            + (d.candidate.name,)
        ),
    )
    for rank, d in enumerate(kept, start=1):
        d.rank = rank
        how = (
            f"drop {_drop(d)}, similarity {d.candidate.similarity:.1f}"
            if use_drop
            else f"similarity {d.candidate.similarity:.1f}"
        )
        d.reasons.append(f"kept: rank {rank} by {'largest drop' if use_drop else 'lowest similarity'} ({how})")
    return decisions


def id_model_unlearnt(value: float, low: float, trivial: float, floor: float, metric: str) -> str | None:
    """Why the ID model has not learnt its task, or ``None`` when it has: its ID ``metric``
    must be at least ``floor`` and its 95% interval's lower end above ``trivial``, the score of
    a predictor that learnt nothing (the majority label; no entity or answer: 0).

    >>> id_model_unlearnt(0.022, 0.015, 0.0, 0.1, "entity F1")[:58]
    'the ID model has not learnt its task: ID entity F1 0.022, '
    >>> id_model_unlearnt(0.83, 0.80, 0.36, 0.1, "accuracy") is None
    True
    """
    if value >= floor and low > trivial:
        return None
    return (
        f"the ID model has not learnt its task: ID {metric} {value:.3f}, its 95% interval from {low:.3f}, against "
        f"{trivial:.3f} for a predictor that learnt nothing and a floor of {floor:g} (--min-id-metric); a drop from "
        "it measures no shift. Train longer (--max-steps) or on more data, or lower --min-id-metric"
    )


def _check_thresholds(d: Decision, max_similarity: float | None, min_drop: float | None) -> None:
    c = d.candidate
    if max_similarity is not None and c.similarity >= max_similarity:
        d.kept = False
        d.reasons.append(f"too close to the ID data: similarity {c.similarity:.1f} ≥ {max_similarity:g}")
    if min_drop is not None and d.drop is not None and d.drop < min_drop:
        d.kept = False
        d.reasons.append(f"not challenging: drop {_drop(d)} < {min_drop:g}")


def _drop(d: Decision) -> str:
    ci = d.candidate.drop_ci
    return f"{d.drop:.3f}" + ("" if ci is None else f" (95% CI {ci[0]:.3f} to {ci[1]:.3f})")


def _one_per_source(decisions: list[Decision], use_drop: bool) -> None:
    by_source: dict[str, list[Decision]] = {}
    for d in decisions:
        if d.kept:
            by_source.setdefault(d.candidate.source, []).append(d)
    for source, group in by_source.items():
        if len(group) < 2:
            continue
        best = min(
            group, key=lambda d: ((-(d.drop or 0.0),) if use_drop else ()) + (d.candidate.similarity, d.candidate.name)
        )
        for d in group:
            if d is not best:
                d.kept = False
                why = "larger drop" if use_drop else "lower similarity"
                d.reasons.append(f"source {source!r} already has {best.candidate.name!r} ({why})")
