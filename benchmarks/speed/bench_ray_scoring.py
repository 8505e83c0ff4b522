"""Ray scoring against the single-process path: same pairs, same model, one run.

Scores ``--n`` SNLI pairs (bundled sample, ``snli`` prompt) in this process, then with
``--engine ray`` on a local Ray cluster of ``--workers`` model actors; prints both wall
times (Ray's includes starting the cluster and loading one model per actor), the ratio and
the largest score difference (0 expected: the shards carry the single-process batch plan).
Run:

    python -m benchmarks.speed.bench_ray_scoring --n 600 --workers 2
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.harness import write_results
from tailsplit.core import FieldMap
from tailsplit.io import load_examples
from tailsplit.prompts import BUILTIN_TEMPLATES
from tailsplit.scoring.distributed import RayScoringEngine
from tailsplit.scoring.driver import build_requests, score_requests
from tailsplit.scoring.hf import HFScorer

DATA = harness.ROOT / "examples" / "data" / "snli_dev_3000.jsonl.gz"


def main() -> None:
    parser = harness.parser(__doc__, "write the measurements to this results file")
    parser.add_argument("--n", type=int, default=600)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--shard-tokens", type=int, default=4000)
    args = parser.parse_args()
    dataset = load_examples(DATA, FieldMap(text="hypothesis", context="premise", label="label"))
    requests = build_requests(dataset.subset(range(min(args.n, len(dataset)))), BUILTIN_TEMPLATES["snli"])
    scorer = HFScorer()
    _ = scorer.model  # load before timing, as the actors' model load is in Ray's time below
    started = time.perf_counter()
    local = score_requests(requests, scorer, None)[0]
    local_s = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as work:
        engine = RayScoringEngine(
            work_dir=Path(work), workers=args.workers, shard_tokens=args.shard_tokens, num_cpus=args.workers
        )
        started = time.perf_counter()
        ray_scores = score_requests(requests, scorer, None, engine=engine)[0]
        ray_s = time.perf_counter() - started
    result = {
        "pairs": len(requests),
        "cpus": os.cpu_count(),
        "workers": args.workers,
        "shards": engine.last_run["shards"],
        "single_process_s": round(local_s, 1),
        "ray_s": round(ray_s, 1),
        "ray_vs_single_process": round(local_s / ray_s, 2),
        "max_abs_diff_nats": float(np.max(np.abs(ray_scores - local))),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        write_results(args.json, result)


if __name__ == "__main__":
    main()
