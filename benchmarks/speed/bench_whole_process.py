"""What a user waits for: ``tailsplit score`` as a whole process against the reference recipe.

Each round times, back to back on the same machine:

1. ``tailsplit score`` on ``--n`` prompted SNLI pairs as a subprocess (score cache off, model
   cache warm): Python start-up, imports, loading, tokenising, planning, scoring, writing;
2. the reference recipe (batches of 8 in input order, padded, full-vocabulary log-softmax;
   ``bench_scoring.reference_scores``) on the same pairs in this process, timed *after* its
   model load — the most favourable reading for the reference;
3. ``tailsplit score`` on 3 pairs: the fixed cost of a command — with the default (native)
   model and with ``--implementation transformers`` (transformers' model, imported at start-up).

With ``--wait-policies``, step 1 runs once per OpenMP wait policy named (``default`` is the
CLI's own; the order turns each round); with ``--busy N``, N processes spin on other work for
the whole measurement (a loaded machine). It prints the whole-process ratio of every round and
their range. Run:

    python -m benchmarks.speed.bench_whole_process --n 600 --rounds 3
"""

from __future__ import annotations

import gzip
import multiprocessing
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


def command_seconds(data: Path, out: Path, *extra: str, wait_policy: str = "default") -> float:
    """Seconds of one ``tailsplit score`` process; ``wait_policy`` sets ``OMP_WAIT_POLICY``
    (``default``: leaves it to the CLI)."""
    args = [str(TAILSPLIT), "score", str(data), "--text", "hypothesis", "--context", "premise", "--label", "label",
            "--template", "snli", "--no-cache", "--quiet", "--overwrite", "--out", str(out), *extra]  # fmt: skip
    env = {key: value for key, value in os.environ.items() if key != "OMP_WAIT_POLICY"} | {"TQDM_DISABLE": "1"}
    if wait_policy != "default":
        env["OMP_WAIT_POLICY"] = wait_policy
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def spin() -> None:
    """Work for a core until killed: the load of another job on the machine."""
    x = 0
    while True:
        x = (x * 1103515245 + 12345) % 2147483648


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--n", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dtype", default="float32", help="tailsplit's --dtype (the reference stays float32)")
    parser.add_argument("--wait-policies", nargs="+", default=["default"], help="default, PASSIVE and/or ACTIVE")
    parser.add_argument("--busy", type=int, default=0, help="processes spinning on other work meanwhile")
    args = parser.parse_args()
    busy = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for process in busy:
        process.start()
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
        whole = {}
        for policy in harness.alternating(k, args.wait_policies):
            whole[policy] = command_seconds(data, folder / "scores.parquet", "--dtype", args.dtype, wait_policy=policy)
        start = time.perf_counter()
        reference_scores(scorer, encoded)
        reference = time.perf_counter() - start
        fixed = command_seconds(small, folder / "three.parquet")
        fixed_tf = command_seconds(small, folder / "three.parquet", "--implementation", "transformers")
        first = whole[args.wait_policies[0]]
        rounds.append({"tailsplit_score_s": round(first, 2), "reference_s": round(reference, 2),
                       "ratio": round(reference / first, 2), "three_pairs_s": round(fixed, 2),
                       "three_pairs_transformers_s": round(fixed_tf, 2)})  # fmt: skip
        if len(whole) > 1:
            rounds[-1]["by_wait_policy"] = {
                policy: {"tailsplit_score_s": round(seconds, 2), "ratio": round(reference / seconds, 2)}
                for policy, seconds in whole.items()
            }
        policies = ", ".join(f"{policy} {seconds:.1f} s" for policy, seconds in whole.items())
        print(f"round {k + 1}: tailsplit score --dtype {args.dtype} {first:.1f} s (whole process; {policies}) vs reference "
              f"{reference:.1f} s (after its model load) → {reference / first:.2f}×; tailsplit score on 3 pairs {fixed:.2f} s "
              f"({fixed_tf:.2f} s with --implementation transformers)")  # fmt: skip
    for process in busy:
        process.kill()
    ratios = [r["ratio"] for r in rounds]
    print(
        f"{args.n} pairs, {sum(len(e.ids) for e in encoded):,} tokens: whole-process ratio {min(ratios):.2f}–{max(ratios):.2f}×"
    )
    if args.json:
        write_results(
            args.json,
            {
                "n": args.n,
                "machine": harness.machine(),
                "dtype": args.dtype,
                "wait_policies": args.wait_policies,
                "busy": args.busy,
                "rounds": rounds,
            },
        )


if __name__ == "__main__":
    main()
