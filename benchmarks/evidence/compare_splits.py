"""How much two splits of the same data agree: score correlation and shared evaluation examples.

Reads the ``scores.parquet`` of two split folders (made from the same data) and prints the
Pearson and Spearman correlation of their ``logprob_sum`` columns and the share of each
one's evaluation set (dev + test) that the other also puts in evaluation. Run:

    python -m benchmarks.evidence.compare_splits spider-prompted spider-kfold
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from benchmarks import harness


def load(folder: Path) -> tuple[dict[str, float], set[str]]:
    table = pq.read_table(folder / "scores.parquet", columns=["id", "logprob_sum", "part"]).to_pydict()
    scores = dict(zip(table["id"], table["logprob_sum"]))
    evaluation = {i for i, part in zip(table["id"], table["part"]) if part != "train"}
    return scores, evaluation


def ranks(values: np.ndarray) -> np.ndarray:
    out = np.empty(len(values))
    out[np.argsort(values, kind="stable")] = np.arange(len(values))
    return out


def main() -> None:
    parser = harness.parser(__doc__, results=None)
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    args = parser.parse_args()
    (a, eval_a), (b, eval_b) = load(args.first), load(args.second)
    if set(a) != set(b):
        raise SystemExit("the two splits are not of the same examples (their ids differ)")
    ids = sorted(a)
    x, y = np.array([a[i] for i in ids]), np.array([b[i] for i in ids])
    print(
        json.dumps(
            {
                "examples": len(ids),
                "pearson_r": round(float(np.corrcoef(x, y)[0, 1]), 4),
                "spearman_rho": round(float(np.corrcoef(ranks(x), ranks(y))[0, 1]), 4),
                "eval_sizes": [len(eval_a), len(eval_b)],
                "eval_shared": len(eval_a & eval_b),
                "eval_shared_share": round(len(eval_a & eval_b) / max(len(eval_a), 1), 4),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
