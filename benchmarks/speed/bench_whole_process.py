"""What a user waits for: ``tailsplit score`` as a whole process against the reference recipe.

Each round times, back to back on the same machine:

1. ``tailsplit score`` on ``--n`` prompted SNLI pairs as a subprocess (score cache off, model
   cache warm): Python start-up, imports, loading, tokenising, planning, scoring, writing;
2. the reference recipe (batches of 8 in input order, padded, full-vocabulary log-softmax;
   ``bench_scoring.reference_scores``) on the same pairs in this process, timed *after* its
   model load — the most favourable reading for the reference;
3. ``tailsplit score`` on 3 pairs: the fixed cost of a command — with the default (native)
   model and with ``--implementation transformers`` (transformers' model, imported at start-up).

It prints the whole-process ratio of every round and their range. Run:

    python -m benchmarks.speed.bench_whole_process --n 600 --rounds 3
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import write_results
from benchmarks.speed.bench_scoring import DEFAULT_DATA, reference_scores
from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.driver import build_requests
from tailsplit.scoring.hf import HFScorer

TAILSPLIT = Path(sys.executable).with_name("tailsplit")


def command_seconds(data: Path, out: Path, *extra: str) -> float:
    args = [str(TAILSPLIT), "score", str(data), "--text", "hypothesis", "--context", "premise", "--label", "label",
            "--template", "snli", "--no-cache", "--quiet", "--overwrite", "--out", str(out), *extra]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, env={**os.environ, "TQDM_DISABLE": "1"})
    return time.perf_counter() - start


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--n", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dtype", default="float32", help="tailsplit's --dtype (the reference stays float32)")
    args = parser.parse_args()
    with gzip.open(DEFAULT_DATA, "rt", encoding="utf-8") as handle:
        lines = handle.readlines()
    folder = Path(tempfile.mkdtemp(prefix="tailsplit-bench-"))
    data, small = folder / "pairs.jsonl", folder / "three.jsonl"
    data.write_text("".join(lines[: args.n]), encoding="utf-8")
    small.write_text("".join(lines[:3]), encoding="utf-8")
    dataset = load_examples(data, FieldMap(text="hypothesis", context="premise", label="label"))
    scorer = HFScorer(implementation="transformers")  # the reference recipe runs transformers' model
    encoded = scorer.encode(build_requests(dataset, BUILTIN_TEMPLATES["snli"]))
    scorer.model  # noqa: B018 - loaded before the reference is timed
    command_seconds(small, folder / "warm.parquet")  # the model cache and the OS file cache are warm
    rounds = []
    for k in range(args.rounds):
        whole = command_seconds(data, folder / "scores.parquet", "--dtype", args.dtype)
        start = time.perf_counter()
        reference_scores(scorer, encoded)
        reference = time.perf_counter() - start
        fixed = command_seconds(small, folder / "three.parquet")
        fixed_tf = command_seconds(small, folder / "three.parquet", "--implementation", "transformers")
        rounds.append({"tailsplit_score_s": round(whole, 2), "reference_s": round(reference, 2),
                       "ratio": round(reference / whole, 2), "three_pairs_s": round(fixed, 2),
                       "three_pairs_transformers_s": round(fixed_tf, 2)})  # fmt: skip
        print(f"round {k + 1}: tailsplit score --dtype {args.dtype} {whole:.1f} s (whole process) vs reference {reference:.1f} s "
              f"(after its model load) → {reference / whole:.2f}×; tailsplit score on 3 pairs {fixed:.2f} s "
              f"({fixed_tf:.2f} s with --implementation transformers)")  # fmt: skip
    ratios = [r["ratio"] for r in rounds]
    print(
        f"{args.n} pairs, {sum(len(e.ids) for e in encoded):,} tokens: whole-process ratio {min(ratios):.2f}–{max(ratios):.2f}×"
    )
    if args.json:
        write_results(args.json, {"n": args.n, "dtype": args.dtype, "rounds": rounds})


if __name__ == "__main__":
    main()
