"""How many query texts are scored by a fold model that trained on the same text.

Usage: python -m benchmarks.fidelity.fold_leakage ../shared/data/snli/dev.jsonl.gz --text hypothesis --group premise

Counts, for 3 folds (seed 0), the distinct texts that occur in more than one fold —
exactly equal, and equal after case/punctuation/whitespace normalisation — under three
fold keys: the group alone (tailsplit before it joined texts and groups), texts and groups
joined exactly (the default), and joined after normalisation (``--fold-match normalized``).
"""

from __future__ import annotations

from benchmarks import harness
from tailsplit.core import FieldMap
from tailsplit.io.examples import load_examples
from tailsplit.scoring.crossfit import assign_folds, fold_units
from tailsplit.words import normalized_query


def crossing(texts: list[str], folds: list[int]) -> int:
    seen: dict[str, set[int]] = {}
    for text, fold in zip(texts, folds):
        seen.setdefault(text, set()).add(fold)
    return sum(len(f) > 1 for f in seen.values())


def main() -> None:
    parser = harness.parser(__doc__, results=None)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--text", default="hypothesis")
    parser.add_argument("--group", default="premise")
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    data = load_examples(args.paths, FieldMap(text=args.text, group=args.group))
    texts = list(data.texts)
    normal = [normalized_query(t) for t in texts]
    keys = {
        "texts alone, exact (no --group)": fold_units(texts),
        "texts alone, normalized (no --group)": fold_units(texts, match="normalized"),
        "group alone (before)": list(data.groups),
        "texts + groups, exact (default)": fold_units(texts, data.groups),
        "texts + groups, normalized": fold_units(texts, data.groups, match="normalized"),
    }
    print(f"{len(texts):,} examples, {len(set(data.groups)):,} groups, {args.folds} folds, seed {args.seed}")
    print(f"{'fold key':37} {'units':>7} {'equal texts crossing':>21} {'normalized texts crossing':>26}")
    for name, key in keys.items():
        folds = assign_folds(key, args.folds, args.seed).tolist()
        print(f"{name:37} {len(set(key)):>7,} {crossing(texts, folds):>21} {crossing(normal, folds):>26}")


if __name__ == "__main__":
    main()
