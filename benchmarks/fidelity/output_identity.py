"""Every command once, on small bundled data: a SHA-256 of every file it writes.

Run it before and after a refactor, with the same ``--out`` (paths are recorded in manifests
and reports), and compare the two listings; they must be equal. JSON
files are hashed without the fields that differ between any two runs (wall-clock seconds,
the command line, throughput), and so are the reports that print the seconds; every other
byte counts.

    git worktree add /tmp/before HEAD
    python -m benchmarks.fidelity.output_identity --src /tmp/before/src --out /tmp/identity > before.txt
    python -m benchmarks.fidelity.output_identity --src src --out /tmp/identity > after.txt
    diff before.txt after.txt

``--src`` copies that source tree beside ``--out`` and runs it from there, so both runs
record the same command line. Scores come from the cache, so a run takes about two minutes
on 2 cores.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks import harness

ROOT = harness.ROOT
SNLI = ROOT / "examples" / "data" / "snli_dev_3000.jsonl.gz"
SPIDER = ROOT / "examples" / "data" / "spider_dev.jsonl.gz"
PAIRS = ROOT / "tests" / "fixtures" / "pairs.jsonl"
SHA = re.compile(r"\b[0-9a-f]{64}\b")
VOLATILE = re.compile(r"(seconds|_s|texts_per_second|pairs_per_second|tokens_per_second|command|elapsed)$")


def commands(out: Path) -> list[list[str]]:
    """(arguments) per command; every folder lies under ``out``."""
    snli = ["--text", "hypothesis", "--context", "premise", "--label", "label"]
    spider = ["--text", "question", "--program", "query", "--dev-size", "100", "--test-size", "100"]
    return [
        ["run", "--config", str(ROOT / "examples" / "snli.toml"), "--out", f"{out}/ll", "--null-splits", "50"],
        [
            "run",
            str(SNLI),
            *snli,
            "--template",
            "snli",
            "--length-buckets",
            "5",
            "--balance-labels",
            "--no-analyze",
            "--out",
            f"{out}/ll-len",
        ],  # fmt: skip
        ["run", str(SNLI), *snli, "--template", "snli", "--reverse", "--no-analyze", "--out", f"{out}/ll-rev"],
        ["score", str(PAIRS), "--text", "hypothesis", "--context", "premise", "--out", f"{out}/pairs-scores.parquet"],
        [
            "split",
            str(PAIRS),
            "--text",
            "hypothesis",
            "--scores",
            f"{out}/pairs-scores.parquet",
            "--dev-size",
            "2",
            "--test-size",
            "2",
            "--no-analyze",
            "--out",
            f"{out}/pairs-split",
        ],  # fmt: skip
        *(
            [
                "split",
                str(SNLI),
                *snli,
                "--splitter",
                "random",
                "--seed",
                str(seed),
                "--balance-labels",
                "--no-analyze",
                "--out",
                f"{out}/random-{seed}",
            ]  # fmt: skip
            for seed in range(3)
        ),
        [
            "split",
            str(SNLI),
            *snli,
            "--splitter",
            "length",
            "--format",
            "parquet",
            "--null-splits",
            "20",
            "--out",
            f"{out}/length",
        ],  # fmt: skip
        [
            "split",
            str(SPIDER),
            *spider,
            "--splitter",
            "tmcd",
            "--max-iterations",
            "50",
            "--no-analyze",
            "--out",
            f"{out}/tmcd",
        ],  # fmt: skip
        ["split", str(SPIDER), *spider, "--splitter", "template", "--null-splits", "20", "--out", f"{out}/template"],
        ["analyze", f"{out}/ll-len", "--null-splits", "30", "--compare", f"{out}/random-0"],
        [
            "evaluate",
            f"{out}/ll",
            f"{out}/ll-len",
            f"{out}/random-0",
            f"{out}/random-1",
            f"{out}/random-2",
            "--out",
            f"{out}/eval",
        ],  # fmt: skip
        [
            "overlap",
            "--test",
            f"{out}/ll/test.jsonl",
            "--text",
            "hypothesis",
            "--label",
            "label",
            "--corpus",
            f"{out}/ll/train.jsonl",
            "--corpus-field",
            "premise",
            "--top-quantile",
            "0.25",
            "--out",
            f"{out}/overlap",
        ],  # fmt: skip
        [
            "similarity",
            f"a={out}/ll/train.jsonl@hypothesis",
            f"b={out}/ll/test.jsonl@hypothesis",
            "--max-examples",
            "200",
            "--permutations",
            "20",
            "--mmd-sample",
            "100",
            "--out",
            f"{out}/similarity",
        ],  # fmt: skip
        [
            "ood-rank",
            "--id",
            f"id={out}/ll/train.jsonl@hypothesis",
            "--candidates",
            f"{out}/candidates.csv",
            "--id-accuracy",
            "0.8",
            "--max-examples",
            "200",
            "--out",
            f"{out}/ood",
        ],  # fmt: skip
        ["correlate", f"{out}/points.csv", "--out", f"{out}/correlate"],
        ["export", "lm-eval", f"{out}/ll", "--out", f"{out}/lm-eval"],
        ["export", "hf", f"{out}/ll", "--out", f"{out}/hf", "--license", "cc-by-sa-4.0"],
    ]


def write_inputs(out: Path) -> None:
    (out / "candidates.csv").write_text(
        f"name,path,fields,source,accuracy\ndev,{out}/ll/dev.jsonl,hypothesis,snli-dev,0.7\n"
        f"test,{out}/ll/test.jsonl,premise,snli-test,0.6\n",
        encoding="utf-8",
    )
    points = ["id_acc,ood_acc"] + [f"{0.5 + i / 40:.4f},{0.3 + (i / 40) ** 1.5:.4f}" for i in range(16)]
    (out / "points.csv").write_text("\n".join(points) + "\n", encoding="utf-8")


def stable(value: Any) -> Any:
    """A manifest without what differs between two runs of the same code: wall-clock seconds,
    how many scores came from the cache, and the hashes of other files (a split folder's
    manifest holds its timings, so a manifest that hashes it differs too; every file is hashed
    on its own here)."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if not VOLATILE.search(k) and k != "n_cached"}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return SHA.sub("<sha>", value) if isinstance(value, str) else value


def digest(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".json":
        data = json.dumps(stable(json.loads(data)), sort_keys=True).encode()
    elif path.suffix in (".md", ".html", ".txt", ".yaml"):
        data = re.sub(rb"\d+(\.\d+)? ?s\b", b"<s>", data)  # seconds printed in reports
        data = SHA.sub("<sha>", data.decode()).encode()
    elif path.suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items() if k != b"pandas"}
        meta = {k: stable(json.loads(v)) if v.startswith("{") else v for k, v in meta.items()}
        rows = table.replace_schema_metadata(None).to_pylist()
        data = json.dumps([rows, meta], sort_keys=True, default=str).encode()
    return hashlib.sha256(data).hexdigest()


def main() -> None:
    parser = harness.parser(__doc__, results=None)
    parser.add_argument("--out", type=Path, required=True, help="Working folder (replaced).")
    parser.add_argument("--src", type=Path, required=True, help="The src folder of the code to run.")
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    code = args.out.with_name(args.out.name + ".src")
    shutil.rmtree(code, ignore_errors=True)
    shutil.copytree(args.src / "tailsplit", code / "tailsplit", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "PYTHONPATH": str(code)}
    for i, argv in enumerate(commands(args.out)):
        if argv[0] == "ood-rank":
            write_inputs(args.out)
        done = subprocess.run(
            [sys.executable, "-m", "tailsplit.cli", *argv],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            check=False,
        )
        console = re.sub(r"\d+(\.\d+)? ?s\b", "<s>", done.stdout)
        console = re.sub(r"[\d,.]+ texts/s", "<rate>", console).replace(str(args.out), "OUT")
        print(f"## {i} {argv[0]} rc={done.returncode} stdout={hashlib.sha256(console.encode()).hexdigest()[:16]}")
        if done.returncode:
            print(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "(no stderr)")
    for path in sorted(p for p in args.out.rglob("*") if p.is_file()):
        print(f"{digest(path)[:16]}  {path.relative_to(args.out)}")


if __name__ == "__main__":
    main()
