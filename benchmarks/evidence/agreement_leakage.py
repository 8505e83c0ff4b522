"""Annotator agreement and leakage of several split folders, side by side (from their analysis).

    for s in ll ll-len reverse random-0; do
        tailsplit analyze snli/$s --agreement-field annotator_labels --no-syntax
    done
    python -m benchmarks.evidence.agreement_leakage snli/ll snli/ll-len snli/reverse snli/random-0

Prints, per folder, the evaluation set's (dev + test) annotator agreement with gold, label
entropy and unanimous share against train and the random splits' null, then the share of
evaluation queries (and pairs) also in train.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import harness


def main() -> None:
    parser = harness.parser(__doc__, results=None)
    parser.add_argument("folders", nargs="+")
    args = parser.parse_args()
    print(
        "| split | annotated (eval / train) | agreement with gold: eval | train | random splits | percentile "
        "| label entropy: eval | random splits | unanimous: eval | train |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    leakage_rows = []
    for folder in args.folders:
        analysis = json.loads((Path(folder) / "analysis.json").read_text(encoding="utf-8"))
        parts = analysis["agreement"]["parts"]
        null = {c["name"]: c for c in analysis["against_null"]}
        n_eval = parts["dev"]["annotated"] + parts["test"]["annotated"]
        unanimous = (
            parts["dev"]["unanimous"] * parts["dev"]["annotated"]
            + parts["test"]["unanimous"] * parts["test"]["annotated"]
        ) / max(n_eval, 1)
        agree, entropy = null["annotator_agreement"], null["label_entropy"]
        print(
            f"| {Path(folder).name} | {n_eval} / {parts['train']['annotated']} | {100 * agree['observed']:.1f}% | "
            f"{100 * parts['train']['agreement']:.1f}% | {100 * agree['null_mean']:.1f} ± {100 * agree['null_std']:.1f}% | "
            f"{agree['percentile']:.1f} | {entropy['observed']:.3f} | {entropy['null_mean']:.3f} ± "
            f"{entropy['null_std']:.3f} | {100 * unanimous:.1f}% | {100 * parts['train']['unanimous']:.1f}% |"
        )
        leakage_rows.append((Path(folder).name, null))
    names = ["query_exact", "query_normalized", "query_near", "pair_exact", "pair_near"]
    print()
    print("| split | " + " | ".join(f"{n.replace('_', ' ')} in train" for n in names) + " |")
    print("|---|" + "---:|" * len(names))
    for name, null in leakage_rows:
        cells = [null[f"{n}_in_train"] for n in names]
        print(
            f"| {name} | "
            + " | ".join(f"{100 * c['observed']:.2f}% (random {100 * c['null_mean']:.2f}%)" for c in cells)
            + " |"
        )


if __name__ == "__main__":
    main()
