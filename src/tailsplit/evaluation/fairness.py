"""The paper's fairness check (§4.3): does a split penalise the model that built it?

A Likelihood Split is made by a scoring LM; AFLite by classifiers on sentence embeddings. A
split is *adversarial to* its in-the-loop model when that model loses more accuracy on it, against
random splits, than another task model does. With accuracies ``a`` on a split and ``r`` (the mean
over the random splits), the **penalty** of the in-the-loop model ``M`` against another model
``O`` is

    penalty = (a_O − a_M) − (r_O − r_M)

in accuracy points: the change of the gap between the two models. Its 95% interval comes from
the same paired bootstrap as the evaluation table (every model's and split's test examples drawn
together, 2,000 replicates). The outcome, with ``margin`` the largest penalty that does not matter
(``--fairness-margin``, 2 points by default):

* **not adversarial** — the whole interval lies below the margin;
* **adversarial** — the whole interval lies above 0 and reaches the margin;
* **inconclusive** — otherwise (the interval includes 0 and reaches the margin: more test
  examples, or better-trained task models, narrow it), and whenever either model is within the
  margin of chance on the random splits: a model that has not learned the task has no accuracy
  to lose, so its "penalty" would read as fairness.

In-the-loop models: for a likelihood split (any variant, reverse included) the scoring LM's own
task models — ``lm`` (fine-tuned with a classification head) or ``lm-zero-shot``; for an AFLite
split the models on its sentence encoder — ``embed`` (the same features and model family as
AFLite's classifiers) or ``encoder`` (the encoder fine-tuned), when the evaluation's encoder is
the one AFLite used. Other splits have none.

Annotator agreement (``--agreement-field``: each example's annotators' labels) is compared the
same way: its mean over a split's annotated test examples against the random splits' mean, with
the bootstrap interval; the paper reports it drops far more under adversarial filtering (88% →
78%) than under Likelihood Splits (at most 5.1 points).
"""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tailsplit.evaluation.conclusions import INCONCLUSIVE, Conclusion
from tailsplit.evaluation.samples import REFERENCES
from tailsplit.evaluation.table import SplitScore, replicate_means, score_samples
from tailsplit.render import markdown_text

NOT_ADVERSARIAL, ADVERSARIAL = "not adversarial", "adversarial"
FAIRNESS_MARGIN = 0.02
LM_MODELS = ("lm", "lm-zero-shot")  # the scoring LM's task models, in order of preference
ENCODER_MODELS = ("embed", "encoder")  # task models on AFLite's sentence encoder


@dataclass(frozen=True)
class SplitAgreement:
    """Annotator agreement with gold of each test example of one split (NaN: not annotated)."""

    folder: str
    kind: str
    ids: tuple[str, ...]
    agreement: tuple[float, ...]

    @property
    def annotated(self) -> int:
        return int(np.isfinite(np.asarray(self.agreement, dtype=np.float64)).sum())


@dataclass
class Fairness:
    """The fairness table and its conclusions (``rows``: one per split, random splits pooled)."""

    models: list[str]
    scoring_model: str  # the scoring LM's task model the gaps are taken against
    margin: float
    rows: list[dict[str, Any]] = field(default_factory=list)
    conclusions: list[Conclusion] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fairness:
        """The inverse of :meth:`as_dict`."""
        conclusions = [Conclusion(**c) for c in data["conclusions"]]
        return cls(data["models"], data["scoring_model"], data["margin"], list(data["rows"]), conclusions)

    def as_dict(self) -> dict[str, Any]:
        return {
            "models": self.models,
            "scoring_model": self.scoring_model,
            "margin": self.margin,
            "rows": self.rows,
            "conclusions": [c.as_dict() for c in self.conclusions],
        }


def fairness_console(data: dict[str, Any]) -> str:
    """The fairness table and conclusions for a terminal (``data``: :meth:`Fairness.as_dict`; text
    printed as it is, never interpreted as markup)."""
    result = Fairness(
        data["models"],
        data["scoring_model"],
        data["margin"],
        data["rows"],
        [Conclusion(**c) for c in data["conclusions"]],
    )
    lines = ["fairness:", " | ".join(fairness_header(result))]
    lines += [" | ".join(fairness_cells(result, row)) for row in result.rows]
    lines += [f"fairness: {c.sentence()}" for c in result.conclusions]
    return "\n".join(lines)


def in_the_loop(kind: str, models: Sequence[str], *, aflite_encoder_matches: bool) -> str | None:
    """The task model that built a split of this ``kind`` (describe_split's name), if evaluated."""
    if kind.startswith("likelihood"):
        candidates = LM_MODELS
    elif kind.startswith("aflite") and aflite_encoder_matches:
        candidates = ENCODER_MODELS
    else:
        return None
    return next((m for m in candidates if m in models), None)


def fairness(
    scores: Sequence[SplitScore],
    agreement: Sequence[SplitAgreement],
    test_sizes: dict[str, int],
    *,
    margin: float = FAIRNESS_MARGIN,
    aflite_encoder_matches: bool = True,
) -> Fairness | None:
    """The fairness table, or None when the evaluation cannot make one: it needs the scoring
    LM's task model, another task model with per-example accuracy, random splits and another
    split."""
    usable = [s for s in scores if s.metric == "accuracy" and s.correct and s.baseline not in REFERENCES]
    models = list(dict.fromkeys(s.baseline for s in usable))
    scoring_model = next((m for m in LM_MODELS if m in models), None)
    folders = list(dict.fromkeys(s.folder for s in usable))
    kinds = {s.folder: s.kind for s in usable}
    complete = [f for f in folders if all(any(s.folder == f and s.baseline == m for s in usable) for m in models)]
    randoms = [f for f in complete if kinds[f].startswith("random")]
    others = [f for f in complete if not kinds[f].startswith("random")]
    if scoring_model is None or len(models) < 2 or not randoms or not others:
        return None
    samples: list[tuple[Sequence[str], Sequence[float]]] = list(
        score_samples([s for s in usable if s.folder in complete])
    )
    index = {(s.folder, s.baseline): row for row, s in enumerate(s for s in usable if s.folder in complete)}
    annotated = {a.folder: a for a in agreement if a.folder in complete and a.annotated}
    for folder, a in annotated.items():
        index[(folder, "annotators")] = len(samples)
        samples.append((a.ids, a.agreement))
    draws = replicate_means(samples)
    observed = _observed(usable, annotated)
    chance = [s.test for s in scores if s.baseline == "chance" and s.folder in randoms]
    result = Fairness(models, scoring_model, margin)
    result.rows.append(_random_row(randoms, models, scoring_model, observed))
    for folder in others:
        loop = in_the_loop(kinds[folder], models, aflite_encoder_matches=aflite_encoder_matches)
        row = _split_row(folder, kinds[folder], models, scoring_model, randoms, observed, draws, index)
        result.rows.append({**row, "in_the_loop": loop})
        if loop is None:
            continue
        for other in (m for m in models if m != loop):
            found = _conclude(folder, kinds[folder], loop, other, randoms, observed, draws, index, margin, test_sizes)
            untrained = _near_chance(
                (loop, other), randoms, observed, float(np.mean(chance)) if chance else None, margin
            )
            result.conclusions.append(
                found if untrained is None else dataclasses.replace(found, outcome=INCONCLUSIVE, evidence=untrained)
            )
    return result


def _near_chance(
    models: Sequence[str],
    randoms: Sequence[str],
    observed: dict[tuple[str, str], float],
    chance: float | None,
    margin: float,
) -> str | None:
    """Why the pair cannot be compared when one model is within the margin of chance on the
    random splits (a model that has not learned the task has no accuracy to lose); else None."""
    if chance is None:
        return None
    for model in models:
        accuracy = float(np.mean([observed[(f, model)] for f in randoms]))
        if accuracy <= chance + margin:
            return (
                f"{model} scores {100 * accuracy:.1f}% on the random splits, within {100 * margin:.1f} points of "
                f"chance ({100 * chance:.1f}%): a model that has not learned the task cannot be penalised"
            )
    return None


def _observed(usable: Sequence[SplitScore], annotated: dict[str, SplitAgreement]) -> dict[tuple[str, str], float]:
    out = {(s.folder, s.baseline): float(np.mean(s.correct)) for s in usable}
    for folder, a in annotated.items():
        out[(folder, "annotators")] = float(np.nanmean(np.asarray(a.agreement, dtype=np.float64)))
    return out


def _difference(
    draws: np.ndarray, index: dict[tuple[str, str], int], folder: str, randoms: Sequence[str], of: Any
) -> np.ndarray:
    """Replicates of ``of(row of (folder, model))`` on ``folder`` minus its mean over ``randoms``."""
    reference = np.mean([of(lambda model, f=f: draws[index[(f, model)]]) for f in randoms], axis=0)
    return of(lambda model: draws[index[(folder, model)]]) - reference


def _interval(values: np.ndarray) -> tuple[float, float]:
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def _random_row(
    randoms: Sequence[str],
    models: Sequence[str],
    scoring_model: str,
    observed: dict[tuple[str, str], float],
) -> dict[str, Any]:
    def mean(key: str) -> float | None:
        values = [observed[(f, key)] for f in randoms if (f, key) in observed]
        return float(np.mean(values)) if values else None

    return {
        "split": f"random ({len(randoms)} seed{'s' * (len(randoms) != 1)})",
        "folder": ", ".join(randoms),
        "in_the_loop": None,
        "accuracy": {m: mean(m) for m in models},
        "gap": {
            m: float(np.mean([observed[(f, m)] - observed[(f, scoring_model)] for f in randoms]))
            for m in models
            if m != scoring_model
        },
        "gap_change": {},
        "gap_change_ci": {},
        "agreement": mean("annotators"),
        "agreement_change": None,
        "agreement_change_ci": None,
    }


def _split_row(
    folder: str,
    kind: str,
    models: Sequence[str],
    scoring_model: str,
    randoms: Sequence[str],
    observed: dict[tuple[str, str], float],
    draws: np.ndarray,
    index: dict[tuple[str, str], int],
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "split": kind,
        "folder": folder,
        "accuracy": {m: observed[(folder, m)] for m in models},
        "gap": {},
        "gap_change": {},
        "gap_change_ci": {},
        "agreement": observed.get((folder, "annotators")),
        "agreement_change": None,
        "agreement_change_ci": None,
    }
    for m in models:
        if m == scoring_model:
            continue
        row["gap"][m] = observed[(folder, m)] - observed[(folder, scoring_model)]
        reference = np.mean([observed[(f, m)] - observed[(f, scoring_model)] for f in randoms])
        row["gap_change"][m] = row["gap"][m] - float(reference)
        row["gap_change_ci"][m] = _interval(
            _difference(draws, index, folder, randoms, lambda at, m=m: at(m) - at(scoring_model))
        )
    references = [f for f in randoms if (f, "annotators") in index]
    if (folder, "annotators") in index and references:
        row["agreement_change"] = observed[(folder, "annotators")] - float(
            np.mean([observed[(f, "annotators")] for f in references])
        )
        row["agreement_change_ci"] = _interval(
            _difference(draws, index, folder, references, lambda at: at("annotators"))
        )
    return row


def _conclude(
    folder: str,
    kind: str,
    loop: str,
    other: str,
    randoms: Sequence[str],
    observed: dict[tuple[str, str], float],
    draws: np.ndarray,
    index: dict[tuple[str, str], int],
    margin: float,
    test_sizes: dict[str, int],
) -> Conclusion:
    penalty = (observed[(folder, other)] - observed[(folder, loop)]) - float(
        np.mean([observed[(f, other)] - observed[(f, loop)] for f in randoms])
    )
    low, high = _interval(_difference(draws, index, folder, randoms, lambda at: at(other) - at(loop)))
    if high < margin:
        outcome = NOT_ADVERSARIAL
    elif low > 0:
        outcome = ADVERSARIAL
    else:
        outcome = INCONCLUSIVE
    n = test_sizes.get(folder)
    evidence = (
        f"against the random splits, {loop} loses {100 * penalty:+.1f} points more than {other}, "
        f"95% interval [{100 * low:+.1f}, {100 * high:+.1f}], margin {100 * margin:.1f} points"
        + (f", n = {n} test examples" if n else "")
    )
    if outcome == INCONCLUSIVE:
        evidence += "; the interval includes 0 and reaches the margin"
    question = f"{kind} ({folder}) and its in-the-loop model {loop}, compared with {other}"
    return Conclusion(loop, question, outcome, evidence)


def _pct(value: float | None, signed: bool = False) -> str:
    if value is None:
        return ""
    return f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}"


def _with_interval(value: float | None, bounds: Sequence[float] | None) -> str:
    if value is None:
        return ""
    return _pct(value, True) + ("" if bounds is None else f" [{_pct(bounds[0], True)}, {_pct(bounds[1], True)}]")


def fairness_header(result: Fairness) -> list[str]:
    others = [m for m in result.models if m != result.scoring_model]
    return [
        "split",
        "folder",
        *[f"{m} accuracy" for m in result.models],
        *[f"gap {m} − {result.scoring_model}" for m in others],
        *[f"gap change vs random [95% CI] ({m})" for m in others],
        "annotator agreement",
        "agreement change vs random [95% CI]",
    ]


def fairness_cells(result: Fairness, row: dict[str, Any]) -> list[str]:
    others = [m for m in result.models if m != result.scoring_model]
    return [
        str(row["split"]),
        str(row["folder"]),
        *[_pct(row["accuracy"].get(m)) for m in result.models],
        *[_pct(row["gap"].get(m), True) for m in others],
        *[_with_interval(row["gap_change"].get(m), row["gap_change_ci"].get(m)) for m in others],
        _pct(row["agreement"]),
        _with_interval(row["agreement_change"], row["agreement_change_ci"]),
    ]


def fairness_markdown(result: Fairness | None) -> str:
    """The fairness section: table, conclusions and how to read them."""
    if result is None:
        return ""
    header = fairness_header(result)
    lines = [
        "## Fairness: is a split adversarial to the model that built it?",
        "",
        "| " + " | ".join(markdown_text(h) for h in header) + " |",
        "|" + "---|" * 2 + "---:|" * (len(header) - 2),
    ]
    for row in result.rows:
        lines.append("| " + " | ".join(markdown_text(c) for c in fairness_cells(result, row)) + " |")
    lines += [
        "",
        f"Accuracies in %; gap: each model's accuracy minus {result.scoring_model}'s (the scoring LM's task "
        "model); gap change: the split's gap minus the random splits' mean gap, with a paired-bootstrap 95% "
        "interval (2,000 replicates over the test examples, every model and split drawn together). Annotator "
        "agreement: the share of annotators agreeing with the gold label, over the annotated test examples.",
        "",
    ]
    if result.conclusions:
        lines += [f"- {markdown_text(c.sentence())}" for c in result.conclusions]
        lines += [
            "",
            "A split is adversarial to its in-the-loop model (the scoring LM's task model for likelihood splits, "
            "the sentence-encoder models for AFLite) when that model loses more accuracy against random splits "
            "than the other model does: *not adversarial* when the 95% interval of that penalty lies below the "
            f"margin ({100 * result.margin:.1f} points), *adversarial* when it lies above 0 and reaches the "
            "margin, else *inconclusive*.",
            "",
        ]
    return "\n".join(lines) + "\n"


def fairness_csv(result: Fairness) -> str:
    """``fairness.csv``: accuracies and agreement in percent, gaps and their changes in
    percentage points (as every tailsplit CSV gives a share; the unit in the header)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    others = [m for m in result.models if m != result.scoring_model]
    gap_columns = (
        "gap_{} (pp)",
        "gap_change_{} (pp)",
        "gap_change_{}, 95% CI low (pp)",
        "gap_change_{}, 95% CI high (pp)",
    )
    writer.writerow(
        [
            "split",
            "folder",
            *[f"accuracy_{m} (%)" for m in result.models],
            *[column.format(m) for m in others for column in gap_columns],
            "agreement (%)",
            "agreement_change (pp)",
            "agreement_change, 95% CI low (pp)",
            "agreement_change, 95% CI high (pp)",
        ]
    )
    for row in result.rows:
        gaps = []
        for m in others:
            low, high = row["gap_change_ci"].get(m) or (None, None)
            gaps += [row["gap"].get(m), row["gap_change"].get(m), low, high]
        low, high = row["agreement_change_ci"] or (None, None)
        cells = [row["split"], row["folder"], *[row["accuracy"].get(m) for m in result.models], *gaps]
        writer.writerow([_cell(v) for v in [*cells, row["agreement"], row["agreement_change"], low, high]])
    return out.getvalue()


def _cell(value: Any) -> Any:
    """A share as percent (or percentage points); empty where missing."""
    if value is None:
        return ""
    return f"{100 * value:.4f}" if isinstance(value, float) else value
