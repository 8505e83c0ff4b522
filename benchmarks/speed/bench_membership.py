"""What ``--membership-k`` costs: the bundled model scoring hypotheses of the bundled SNLI sample
(the text alone, no cache) with and without the membership scores (Min-K%++'s next-token moments
summed in float64 in the head beside every target), in alternating rounds.

    python -m benchmarks.speed.bench_membership --rows 600 --rounds 2 --json benchmarks/results/membership_cpu.json
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from benchmarks.harness import in_rounds, parser, sample_rows, write_results


def main() -> None:
    import tailsplit

    made = parser(__doc__)
    made.add_argument("--rows", type=int, default=600, help="hypotheses scored")
    made.add_argument("--rounds", type=int, default=2, help="alternating rounds")
    args = made.parse_args()
    rows = sample_rows(args.rows)
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch) / "hypotheses.jsonl"
        data.write_text(
            "".join(json.dumps({"id": f"s{i}", "text": r["hypothesis"]}) + "\n" for i, r in enumerate(rows))
        )

        def scored(k: float | None) -> object:
            return tailsplit.score(data, text="text", use_cache=False, membership_k=k, progress=False)

        scored(None)  # loads and converts the model
        seconds, _ = in_rounds({"plain": lambda: scored(None), "membership": lambda: scored(20)}, args.rounds)
    best = {name: min(values) for name, values in seconds.items()}
    result = {
        "rows": args.rows,
        "seconds": {name: [round(s, 2) for s in values] for name, values in seconds.items()},
        "time_ratio": round(best["membership"] / best["plain"], 3),
    }
    print(f"--membership-k: {result['time_ratio']}x the time of plain scoring")
    if args.json:
        write_results(args.json, result)


if __name__ == "__main__":
    main()
