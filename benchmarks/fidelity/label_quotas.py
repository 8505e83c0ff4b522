"""Label quotas against the authors' gen_ll_split.py: how much of its evaluation set tailsplit selects.

Usage: python -m benchmarks.fidelity.label_quotas ../shared/data --json benchmarks/results/label_quotas.json

Pooled BoolQ (questions) and pooled SNLI (hypotheses), each scored by tailsplit's cross-fitted
Kneser-Ney n-gram LM (any scores serve: the rules under test only read their order), dev and
test of 20 % together. For each setting, the share of the authors' evaluation set that
tailsplit's selects too:

- no length buckets: ``--label-quota equal`` (the authors' rule: 100 % by construction) and
  ``proportional`` (the paper's text, tailsplit's default);
- length buckets (4 quantile buckets, and one per length): the authors bucket within each
  label (``pd.qcut``), round each bucket's quota at random (a binomial draw on its fraction,
  seeds 42-46) and move the total back into line; tailsplit buckets over all the data and
  rounds by largest remainder. The authors' rule is written again here from its source.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks import harness
from tailsplit.splits import LikelihoodSplitter
from tailsplit.splits.base import SplitInputs
from tailsplit.words import word_lengths

DATASETS = {
    "boolq": (("dev.jsonl.gz", "train_questions_only.jsonl.gz"), "question"),
    "snli": (("dev.jsonl.gz", "test.jsonl.gz"), "hypothesis"),
}
AUTHOR_SEEDS = (42, 43, 44, 45, 46)


def authors_evaluation(frame: pd.DataFrame, n_dev: int, n_test: int, buckets: int | str | None, seed: int) -> set:
    """gen_ll_split.py's evaluation rows (``frame``: ll, label, length), its bucket path
    included (``buckets``: a count of quantile buckets, "exact", or None)."""
    rng = np.random.default_rng(seed)
    frame = frame.sort_values("ll", ascending=False, kind="mergesort")
    classes = frame["label"].unique().tolist()
    chosen: set = set()
    for i, label in enumerate(classes):
        in_class = frame[frame["label"] == label].copy()
        test = n_test // len(classes) + (n_test % len(classes) if i == 0 else 0)
        dev = n_dev // len(classes) + (n_dev % len(classes) if i == 0 else 0)
        target = test + dev
        if buckets is None:
            evaluation = in_class[-target:]
        else:
            if buckets == "exact":
                in_class["bucket"] = np.unique(in_class["length"], return_inverse=True)[1]
            else:
                in_class["bucket"] = pd.qcut(
                    in_class["length"], [q / buckets for q in range(buckets + 1)], labels=False
                )
            counts = in_class["bucket"].value_counts()
            trains, evals = [], []
            for q in range(len(counts)):
                size = (target * counts[q]) // counts.sum()
                size += rng.binomial(1, ((target * counts[q]) / counts.sum()) % 1.0)
                trains.append(in_class[in_class["bucket"] == q][:-size])
                evals.append(in_class[in_class["bucket"] == q][-size:])
            train = pd.concat(trains).sort_values("ll", ascending=True, kind="mergesort")
            evaluation = pd.concat(evals).sort_values("ll", ascending=False, kind="mergesort")
            if len(evaluation) < target:
                evaluation = pd.concat([train[: target - len(evaluation)], evaluation])
            elif len(evaluation) > target:
                evaluation = evaluation[len(evaluation) - target :]
        evaluation.sample(frac=1, random_state=rng.bit_generator)  # the script's shuffle draws from the same stream
        chosen.update(evaluation.index.tolist())
    return chosen


def measure(name: str, data_dir: Path) -> dict:
    import tailsplit

    files, text = DATASETS[name]
    rows = []
    for f in files:
        with gzip.open(data_dir / name / f, "rt", encoding="utf-8") as handle:
            rows.extend(json.loads(line) for line in handle)
    texts = [r[text] for r in rows]
    labels = np.array([str(r["label"]) for r in rows], dtype=object)
    scores = tailsplit.score([{"id": str(i), "text": t} for i, t in enumerate(texts)], method="ngram")
    ll = scores.to_pandas()["logprob_sum"].to_numpy()
    lengths = word_lengths(texts)
    n = len(rows)
    size = int(round(0.1 * n))
    frame = pd.DataFrame({"ll": ll, "label": labels, "length": lengths})
    inputs = SplitInputs(
        n=n, word_lengths=lengths, logprob_sum=ll, n_tokens=np.ones(n, int), labels=labels
    )  # fmt: skip
    out: dict = {"examples": n, "dev": size, "test": size, "label_share": _shares(labels), "settings": []}
    for buckets in (None, 4, "exact"):
        for rule in ("equal", "proportional"):
            ours = LikelihoodSplitter(
                dev_size=size, test_size=size, balance_labels=True, label_quota=rule, length_buckets=buckets
            ).split(inputs)
            mine = set(ours.eval_idx.tolist())
            shared, refused = [], None
            for seed in AUTHOR_SEEDS if buckets is not None else AUTHOR_SEEDS[:1]:
                try:
                    theirs = authors_evaluation(frame, size, size, buckets, seed)
                except ValueError as exc:  # pd.qcut refuses equal bin edges
                    refused = str(exc).split(":")[0]
                    break
                shared.append(len(mine & theirs) / len(theirs))
            out["settings"].append(
                {
                    "length_buckets": buckets,
                    "label_quota": rule,
                    "evaluation_label_share": _shares(labels[ours.eval_idx]),
                    "shared_with_authors": None if refused else {"mean": float(np.mean(shared)), "min": min(shared),
                                                                 "max": max(shared), "seeds": len(shared)},
                    "authors_script_stops": refused,
                }
            )  # fmt: skip
            print(name, buckets, rule, out["settings"][-1]["shared_with_authors"], refused or "")
    return out


def _shares(labels: np.ndarray) -> dict[str, float]:
    values, counts = np.unique(labels, return_counts=True)
    return {str(v): round(float(c) / len(labels), 4) for v, c in zip(values, counts)}


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("data_dir", type=Path)
    args = parser.parse_args()
    result = {name: measure(name, args.data_dir) for name in DATASETS}
    if args.json:
        harness.write_results(args.json, result)


if __name__ == "__main__":
    main()
