"""TMCD search speed and quality: tailsplit's incremental best-swap ascent against the
published greedy (first-improvement scan that recomputes the divergence per candidate).

Both start from the same split of pooled Spider (random 5,966 / 2,068 with the atom
constraint) and make the same number of swaps; the reference is re-implemented here from its
published description (Shaw et al. 2021, after Keysers et al. 2020):

    each iteration: recount training atoms; walk training examples (from where the last swap
    left off) and take the first whose move to evaluation keeps every atom in training and
    raises the compound divergence (computed afresh from all counts); then walk evaluation
    examples the same way for one whose move back raises it; swap; stop when none is found.

Run (about a minute at the default 40 iterations):

    python -m benchmarks.speed.bench_tmcd --data ../shared/data/spider --iterations 40 [--json FILE]
"""

from __future__ import annotations

import gzip
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.harness import write_results
from tailsplit.constraints import enforce_atom_constraint
from tailsplit.programs import COMPOUND_ALPHA, ProgramFeatures, extract_program_features
from tailsplit.programs.sql import SqlExtractor
from tailsplit.splits.tmcd import CompoundDivergenceSearch


def load_features(folder: Path) -> ProgramFeatures:
    queries = []
    for name in ("train.jsonl.gz", "dev.jsonl.gz"):
        with gzip.open(folder / name, "rt", encoding="utf-8") as f:
            queries += [json.loads(line)["query"] for line in f]
    features, failures = extract_program_features(queries, SqlExtractor())
    if failures:
        raise SystemExit(f"{len(failures)} queries failed to parse, e.g. row {failures[0].row}: {failures[0].reason}")
    return features


def start_split(features: ProgramFeatures, n_eval: int, seed: int) -> np.ndarray:
    n = len(features)
    rng = np.random.default_rng(seed)
    eval_mask = np.zeros(n, dtype=bool)
    eval_mask[rng.choice(n, n_eval, replace=False)] = True
    repaired, _ = enforce_atom_constraint(eval_mask, features.atoms, rng.random(n))
    return repaired


def reference_divergence(train: Counter, evaluation: Counter, alpha: float = COMPOUND_ALPHA) -> float:
    total_train, total_eval = sum(train.values()), sum(evaluation.values())
    numerator = sum(
        count**alpha * evaluation[key] ** (1 - alpha)
        for key, count in train.items()
        if count > 0 and evaluation.get(key, 0) > 0
    )
    return 1.0 - numerator / (total_train**alpha * total_eval ** (1 - alpha))


def reference_greedy(features: ProgramFeatures, eval_mask: np.ndarray, iterations: int) -> tuple[float, int]:
    compounds = [features.compounds.row(i).tolist() for i in range(len(features))]
    atoms = [features.atoms.row(i).tolist() for i in range(len(features))]
    train = [int(i) for i in np.flatnonzero(~eval_mask)]
    evaluation = [int(i) for i in np.flatnonzero(eval_mask)]
    train_counts = Counter(c for i in train for c in compounds[i])
    eval_counts = Counter(c for i in evaluation for c in compounds[i])
    start_train = start_eval = 0
    done = 0
    for _ in range(iterations):
        atom_counts = Counter(a for i in train for a in atoms[i])
        current = reference_divergence(train_counts, eval_counts)
        out_pos = None
        for offset in range(len(train)):
            pos = (start_train + offset) % len(train)
            row = train[pos]
            if any(atom_counts[a] <= 1 for a in atoms[row]):
                continue
            trial_train, trial_eval = train_counts.copy(), eval_counts.copy()
            trial_train.subtract(compounds[row])
            trial_eval.update(compounds[row])
            if reference_divergence(trial_train, trial_eval) > current:
                out_pos = pos
                break
        if out_pos is None:
            break
        moved_out = train[out_pos]
        train_counts.subtract(compounds[moved_out])
        eval_counts.update(compounds[moved_out])
        in_pos = None
        for offset in range(len(evaluation)):
            pos = (start_eval + offset) % len(evaluation)
            row = evaluation[pos]
            trial_train, trial_eval = train_counts.copy(), eval_counts.copy()
            trial_train.update(compounds[row])
            trial_eval.subtract(compounds[row])
            if reference_divergence(trial_train, trial_eval) > current:
                in_pos = pos
                break
        if in_pos is None:
            train_counts.update(compounds[moved_out])
            eval_counts.subtract(compounds[moved_out])
            break
        moved_in = evaluation[in_pos]
        eval_counts.subtract(compounds[moved_in])
        train_counts.update(compounds[moved_in])
        train[out_pos], evaluation[in_pos] = moved_in, moved_out
        start_train, start_eval = (out_pos + 1) % len(train), (in_pos + 1) % len(evaluation)
        done += 1
    return reference_divergence(train_counts, eval_counts), done


def main() -> None:
    parser = harness.parser(__doc__, "write the measurements to this results file")
    parser.add_argument("--data", type=Path, default=Path("../shared/data/spider"))
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--eval-size", type=int, default=2068)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    features = load_features(args.data)
    start = start_split(features, args.eval_size, args.seed)
    search = CompoundDivergenceSearch(features.compounds, features.atoms, start)
    start_divergence = search.divergence()
    print(
        f"{len(features)} programs, {features.compounds.n_items} distinct compounds; "
        f"start divergence {start_divergence:.4f}"
    )

    clock = time.perf_counter()
    ours_done = search.run(args.iterations)
    ours_s = time.perf_counter() - clock
    ours_div = search.divergence()

    clock = time.perf_counter()
    ref_div, ref_done = reference_greedy(features, start, args.iterations)
    ref_s = time.perf_counter() - clock

    clock = time.perf_counter()
    full = CompoundDivergenceSearch(features.compounds, features.atoms, start)
    full_done = full.run(None)
    full_s = time.perf_counter() - clock

    print(
        f"reference greedy : {ref_done} swaps in {ref_s:7.2f} s ({ref_s / max(ref_done, 1) * 1000:8.1f} ms/swap), "
        f"compound divergence {ref_div:.4f}"
    )
    print(
        f"tailsplit        : {ours_done} swaps in {ours_s:7.2f} s ({ours_s / max(ours_done, 1) * 1000:8.1f} ms/swap), "
        f"compound divergence {ours_div:.4f}"
    )
    print(
        f"speed-up per swap: {(ref_s / max(ref_done, 1)) / (ours_s / max(ours_done, 1)):.0f}x; "
        f"divergence at equal swaps: {ours_div:.4f} vs {ref_div:.4f}"
    )
    print(f"tailsplit to convergence: {full_done} swaps in {full_s:.2f} s, compound divergence {full.divergence():.4f}")
    if args.json:
        write_results(
            args.json,
            {
                "programs": len(features),
                "eval_size": args.eval_size,
                "iterations": args.iterations,
                "start_divergence": round(float(start_divergence), 4),
                "reference": {"swaps": ref_done, "seconds": round(ref_s, 3),
                              "ms_per_swap": round(ref_s / max(ref_done, 1) * 1000, 2),
                              "compound_divergence": round(float(ref_div), 4)},
                "tailsplit": {"swaps": ours_done, "seconds": round(ours_s, 3),
                              "ms_per_swap": round(ours_s / max(ours_done, 1) * 1000, 2),
                              "compound_divergence": round(float(ours_div), 4)},
                "speedup_per_swap": round((ref_s / max(ref_done, 1)) / (ours_s / max(ours_done, 1)), 2),
                "to_convergence": {"swaps": full_done, "seconds": round(full_s, 2),
                                   "compound_divergence": round(float(full.divergence()), 4)},
            },
        )  # fmt: skip


if __name__ == "__main__":
    main()
