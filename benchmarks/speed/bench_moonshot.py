"""A whole Likelihood Split on a GPU machine: score, split and analyse 570,000 pairs, timed
command by command as a user runs them (each a fresh process: imports, model load and
writing the outputs included).

No weights can be downloaded on a GPU machine without network, so the scoring LM is
:mod:`benchmarks.speed.bench_gpu`'s Llama with seeded random weights at ``--shape`` (the
bundled model's layout by default) and the bundled tokenizer (``--tokenizer``). The data are
SNLI-shaped: the bundled SNLI sample copied to ``--rows`` rows, every copy after the first with
its premise's words reshuffled (seeded: about a third as many distinct premises as rows, as in
SNLI's training set) and its copy number appended to the hypothesis (so every pair is
distinct and the near-duplicate join meets many close pairs, as in ``bench_scale``).

The commands (``python -m tailsplit.cli``):

1. ``score DATA --template snli --model FOLDER --device DEVICE --dtype bfloat16
   --fused --attention varlen --planner process --no-cache`` (``--score-options`` replaces
   the last four);
2. ``split DATA --scores S --length-buckets 10 --balance-labels --dev-size 10000
   --test-size 10000 --no-syntax``: the split and its analysis (500 null splits) in one process,
   as a user runs it (the analysis reuses the split's records and word counts: faster than
   ``split --no-analyze`` then ``analyze``, as ``bench_scale --analyze`` measures);

then, with ``--compare-cores N``, step 2 again on N of the usable cores (the ratio of the host's
work on every core against N of them, same code, same run). The split's parts and analysis are
checked identical between the two. Run on the GPU machine (``gpu_session.sh`` does):

    python -m benchmarks.speed.bench_moonshot --tokenizer TOKENIZER_DIR --json out.json [--compare-cores 2]
    python -m benchmarks.speed.bench_moonshot --tokenizer TOKENIZER_DIR --smoke   # any CPU: checks the script
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import write_results
from benchmarks.speed.bench_gpu import DEFAULT_DATA, build_model_folder

FAST = ["--fused", "--attention", "varlen", "--planner", "process"]
FIELDS = ["--text", "hypothesis", "--context", "premise", "--label", "label", "--id", "id"]


def build_data(path: Path, rows: int, seed: int) -> int:
    """``rows`` SNLI-shaped pairs written as JSON Lines; returns the distinct premises."""
    with gzip.open(DEFAULT_DATA, "rt", encoding="utf-8") as handle:
        base = [json.loads(line) for line in handle]
    premises = set()
    with open(path, "w", encoding="utf-8") as out:
        for i in range(rows):
            copy, record = divmod(i, len(base))[0], base[i % len(base)]
            premise, hypothesis = record["premise"], record["hypothesis"]
            if copy:
                words = premise.split()
                random.Random(f"{seed}:{copy}:{premise}").shuffle(words)
                premise, hypothesis = " ".join(words), f"{hypothesis} {copy}"
            premises.add(premise)
            row = {"id": f"p{i}", "premise": premise, "hypothesis": hypothesis, "label": record["label"]}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(premises)


def command(args: list[str], cores: int | None = None) -> float:
    """Seconds of ``python -m tailsplit.cli ARGS`` (on the first ``cores`` usable cores)."""
    env = {**os.environ, "TQDM_DISABLE": "1"}
    usable = sorted(os.sched_getaffinity(0))
    pin = (lambda: os.sched_setaffinity(0, usable[:cores])) if cores else None
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tailsplit.cli", *args], capture_output=True, text=True, env=env,
                          preexec_fn=pin)  # fmt: skip
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"tailsplit {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    print(f"tailsplit {args[0]}: {seconds:.1f} s", flush=True)
    return round(seconds, 2)


def parts_digest(folder: Path) -> str:
    """The parts' bytes and the analysis' (its folder name aside)."""
    digest = hashlib.sha256()
    for name in ("train.jsonl", "dev.jsonl", "test.jsonl"):
        digest.update((folder / name).read_bytes())
    analysis = json.loads((folder / "analysis.json").read_text(encoding="utf-8"))
    digest.update(json.dumps({k: v for k, v in analysis.items() if k != "name"}, sort_keys=True).encode())
    return digest.hexdigest()[:16]


def host_work(work: Path, data: Path, scores: Path, name: str, cores: int | None = None) -> dict:
    """Split and analyse in one command (dev and test 10,000 rows each at 570,000 rows, in
    proportion to fewer): its seconds, and the digest of its parts and analysis."""
    split, rows = work / name, sum(1 for _ in open(data, encoding="utf-8"))
    size = str(max(1, round(rows * 10_000 / 570_000)))
    options = ["--length-buckets", "10", "--balance-labels", "--dev-size", size, "--test-size", size, "--no-syntax"]
    seconds = command(["split", str(data), *FIELDS, "--scores", str(scores), *options, "--out", str(split)], cores)
    return {"seconds": seconds, "digest": parts_digest(split)}


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--tokenizer", type=Path, required=True, help="folder with tokenizer.json")
    parser.add_argument("--rows", type=int, default=570_000)
    parser.add_argument("--shape", default="bundled")
    parser.add_argument("--score-options", nargs="*", default=FAST, help="scoring options [default: every lever]")
    parser.add_argument("--compare-cores", type=int, default=0, help="also split and analyse on this many cores")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="on the CPU, tiny shape and 3,000 rows: checks the script")
    args = parser.parse_args()
    device = "cpu" if args.smoke else "cuda"
    rows, shape = (3000, "tiny") if args.smoke else (args.rows, args.shape)
    work = Path(tempfile.mkdtemp(prefix="tailsplit-moonshot-"))
    data, scores = work / "pairs.jsonl", work / "scores.parquet"
    result: dict = {
        "rows": rows,
        "premises": build_data(data, rows, args.seed),
        "usable_cores": len(os.sched_getaffinity(0)),
    }
    result["model"] = build_model_folder(args.tokenizer, work / "model", args.seed, shape)
    result["score_options"] = args.score_options

    def save() -> None:
        if args.json:
            write_results(args.json, result)

    score = ["score", str(data), *FIELDS, "--template", "snli", "--model", str(work / "model"), "--device", device,
             "--dtype", "float32" if args.smoke else "bfloat16", *args.score_options, "--no-cache", "--out", str(scores)]  # fmt: skip
    result["seconds"] = {"score": command(score)}
    save()
    host = host_work(work, data, scores, "split")
    result["seconds"]["split_and_analysis"] = host["seconds"]
    result["seconds"]["total"] = round(result["seconds"]["score"] + host["seconds"], 2)
    result["split_digest"] = host["digest"]
    save()
    if args.compare_cores:
        pinned = host_work(work, data, scores, "split-pinned", args.compare_cores)
        result[f"on_{args.compare_cores}_cores"] = {
            "split_and_analysis": pinned["seconds"],
            "identical": pinned["digest"] == host["digest"],
            "ratio_to_every_core": round(pinned["seconds"] / host["seconds"], 2),
        }
        save()
    print(json.dumps(result, indent=2))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
