"""Scoring an external model's predictions on each split, by bucket, with the projected
accuracy of the Likelihood Splits paper: the random splits' accuracy per bucket (e.g. Spider hardness), re-weighted
by a split's own bucket shares — what the split would score if only its bucket mix differed.
Actual below projected means the split is hard for more reasons than its mix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.config.recorded import recorded_run
from tailsplit.errors import ConfigError
from tailsplit.evaluation.table import SplitScore
from tailsplit.fields import field_value
from tailsplit.io.examples import label_to_str
from tailsplit.io.manifest import Manifest
from tailsplit.io.readers import read_records
from tailsplit.programs.base import ProgramError
from tailsplit.registry import EXTRACTORS
from tailsplit.render import markdown_text


@dataclass(frozen=True)
class ScoredPredictions:
    folder: str
    kind: str
    correct: np.ndarray  # per test example
    buckets: tuple[str, ...]  # per test example
    metric: str = "accuracy"  # or "exact match" (programs)
    ids: tuple[str, ...] = ()  # per test example (pairs the bootstrap draws across splits)

    @property
    def is_random(self) -> bool:
        return self.kind.startswith("random")

    def by_bucket(self) -> dict[str, tuple[int, float]]:
        """bucket → (examples, accuracy), buckets sorted."""
        keys = np.asarray(self.buckets, dtype=object)
        return {b: (int((keys == b).sum()), float(self.correct[keys == b].mean())) for b in sorted(set(self.buckets))}


def random_bucket_accuracy(scored: Sequence[ScoredPredictions]) -> dict[str, float]:
    """Accuracy per bucket over the random splits' test examples pooled."""
    correct: dict[str, list[float]] = {}
    for s in scored:
        if s.is_random:
            for flag, bucket in zip(s.correct, s.buckets):
                correct.setdefault(bucket, []).append(float(flag))
    return {b: float(np.mean(v)) for b, v in sorted(correct.items())}


def projected_accuracy(split: ScoredPredictions, reference: Mapping[str, float]) -> float | None:
    """Σ_b share_b(split) · accuracy_b(random), over the buckets random splits have (shares
    renormalised over those); None without random splits.

    >>> s = ScoredPredictions("x", "tmcd", np.array([1, 0, 0, 0]), ("easy", "hard", "hard", "hard"))
    >>> projected_accuracy(s, {"easy": 0.9, "hard": 0.5})
    0.6
    """
    known = [b for b in split.buckets if b in reference]
    if not known:
        return None
    return round(float(np.mean([reference[b] for b in known])), 4)


def predictions_markdown(rows: Sequence[dict[str, Any]], bucket_name: str) -> str:
    buckets = sorted({b for r in rows for b in r["buckets"]})
    lines = [
        "| split | folder | test | projected | actual − projected | "
        + " | ".join(f"{markdown_text(bucket_name)} {markdown_text(b)} (share, acc.)" for b in buckets)
        + " |",
        "|---|---|---:|---:|---:|" + "---:|" * len(buckets),
    ]
    for r in rows:
        projected = "" if r["projected"] is None else f"{100 * r['projected']:.1f}"
        gap = "" if r["projected"] is None else f"{100 * (r['test'] - r['projected']):+.1f}"
        cells = []
        for b in buckets:
            if b in r["buckets"]:
                cells.append(f"{100 * r['buckets'][b]['share']:.0f}%, {100 * r['buckets'][b]['accuracy']:.1f}")
            else:
                cells.append("")
        lines.append(
            f"| {markdown_text(r['split'])} | {markdown_text(r['folder'])} | {100 * r['test']:.1f} | {projected} "
            f"| {gap} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"


def score_predictions(
    folder: str, kind: str, manifest: Manifest, test_records: list[Any], path: str, bucket: str | None
) -> ScoredPredictions:
    """Correctness and bucket of every test example of the split in ``folder`` (a split of
    ``kind``) under the predictions in ``path``: exact match of canonical programs, else of labels."""
    data = recorded_run(manifest).data
    id_field, gold_field = data.id, data.program or data.label
    if gold_field is None:
        raise ConfigError(f"split_dir={folder!r} has neither labels nor programs to score predictions against")
    predicted = {}
    for raw in read_records(path):
        for name in (id_field, "prediction"):
            if not raw.has(name):
                raise raw.error("is missing", field=name, fix="give every prediction the example's id and a prediction")
        predicted[label_to_str(raw.value(id_field))] = raw.value("prediction")
    extractor = EXTRACTORS.create(data.program_kind) if data.program else None
    correct, buckets, ids = [], [], []
    for raw in test_records:
        key = label_to_str(raw.value(id_field))
        ids.append(key)
        if key not in predicted:
            raise ConfigError(
                f"predictions {path!r} have no prediction for test id {key!r} of {folder!r}; "
                "predict every test example of the split"
            )
        gold = raw.value(gold_field)
        if extractor is not None:
            correct.append(_program_match(extractor, str(predicted[key]), extractor.canonical(str(gold))))
            buckets.append(
                extractor.parse(str(gold)).hardness
                if bucket in (None, "hardness")
                else label_to_str(field_value(raw.record, bucket, None))
            )
        else:
            correct.append(label_to_str(predicted[key]) == label_to_str(gold))
            buckets.append(label_to_str(field_value(raw.record, bucket or gold_field, None)))
    return ScoredPredictions(
        Path(folder).name,
        kind,
        np.asarray(correct, dtype=float),
        tuple(buckets),
        "exact match" if extractor is not None else "accuracy",
        tuple(ids),
    )


def _program_match(extractor: Any, predicted: str, gold_canonical: str) -> bool:
    try:
        return extractor.canonical(predicted) == gold_canonical
    except ProgramError:
        return False  # a prediction that does not parse is wrong, not an input error


def given_prediction_rows(
    scored: list[ScoredPredictions], bucket: str | None
) -> tuple[list[SplitScore], list[dict[str, Any]], dict[str, str | bytes]]:
    """The table rows of scored predictions, each split's details (with the accuracy its bucket
    mix projects from the random splits'), and ``predictions.md``."""
    reference = random_bucket_accuracy(scored)
    scores, details = [], []
    for s in scored:
        test = float(s.correct.mean()) if len(s.correct) else float("nan")
        correct = tuple(bool(c) for c in s.correct)  # the same paired-bootstrap intervals as baseline rows
        scores.append(SplitScore(s.folder, s.kind, "predictions", s.metric, float("nan"), test, s.ids, correct))
        details.append(
            {
                "folder": s.folder,
                "split": s.kind,
                "baseline": "predictions",
                "test": round(test, 4),
                "projected": None if s.is_random else projected_accuracy(s, reference),
                "buckets": {
                    b: {"n": n, "share": round(n / len(s.correct), 4), "accuracy": round(acc, 4)}
                    for b, (n, acc) in s.by_bucket().items()
                },
            }
        )
    return scores, details, {"predictions.md": predictions_markdown(details, bucket or "bucket")}
