"""The evaluation table of the docs (Evaluation and fairness) from an ``evaluation.json`` written by ``tailsplit evaluate``.

    python -m benchmarks.evidence.evaluation_table snli-encoder/evaluation.json --label "pooled SNLI"

One row per baseline: the random splits' mean ± std, then for each other split its test score
and, in brackets, the difference to the random mean with its paired bootstrap 95% interval and
the relative error increase.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import harness


def cell(row: dict) -> str:
    if row["test_std"] is not None:
        return f"{100 * row['test']:.1f} ± {100 * row['test_std']:.1f}"
    text = f"{100 * row['test']:.1f}"
    if row["difference"] is None:
        return text
    low, high = row["difference_ci"] or (None, None)
    interval = "" if low is None else f" [{100 * low:+.1f}, {100 * high:+.1f}]"
    increase = row["relative_error_increase"]
    return f"{text} ({100 * row['difference']:+.1f}{interval}, {100 * increase:+.0f}%)"


def main() -> None:
    parser = harness.parser(__doc__, results=None)
    parser.add_argument("evaluation", type=Path)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    table = json.loads(args.evaluation.read_text(encoding="utf-8"))["table"]
    splits = list(dict.fromkeys(r["split"] for r in table))
    print("| baseline | " + " | ".join(splits) + " |")
    print("|---|" + "---:|" * len(splits))
    for baseline in dict.fromkeys(r["baseline"] for r in table):
        rows = {r["split"]: r for r in table if r["baseline"] == baseline}
        prefix = f"{args.label}, " if args.label else ""
        print(f"| {prefix}`{baseline}` | " + " | ".join(cell(rows[s]) if s in rows else "" for s in splits) + " |")


if __name__ == "__main__":
    main()
