"""The GPU tests' report as a results file: each test's outcome, time and failure message
from pytest's JUnit XML, with the card it ran on (``nvidia-smi``'s CSV line).

    python -m benchmarks.gpu.junit_results OUT/gpu_tests.xml OUT/gpu.csv --json OUT/gpu_h200_tests.json
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from pathlib import Path

from benchmarks.harness import write_results


def cases(report: Path) -> list[dict]:
    out = []
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "").rsplit(".", 1)[-1]
        entry = {"test": f"{module}::{case.get('name')}", "seconds": round(float(case.get("time", 0)), 2)}
        problem = next((case.find(tag) for tag in ("failure", "error", "skipped") if case.find(tag) is not None), None)
        entry["outcome"] = "passed" if problem is None else {"skipped": "skipped"}.get(problem.tag, "failed")
        if problem is not None:
            message = problem.get("message") or ""
            entry["message"] = message.splitlines()[0][:300] if message else ""
        out.append(entry)
    return out


def card(csv: Path) -> dict:
    """``name, memory.total [MiB], driver_version, clocks.max.sm [MHz]`` from nvidia-smi."""
    lines = [line for line in csv.read_text(encoding="utf-8").splitlines() if line.strip()]
    name, memory, driver, clock = (field.strip() for field in lines[-1].split(","))
    return {
        "name": name,
        "memory_mib": int(memory.split()[0]),
        "driver": driver,
        "max_sm_clock_mhz": int(clock.split()[0]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path, help="pytest's --junitxml file")
    parser.add_argument("card", type=Path, help="nvidia-smi --query-gpu=... --format=csv output")
    parser.add_argument("--command", default="python -m pytest -m gpu --device cuda (gpu_session.sh step 0)")
    parser.add_argument("--json", type=Path, required=True)
    args = parser.parse_args()
    tests = cases(args.report)
    result = {
        "card": card(args.card),
        "command": args.command,
        **{k: sum(t["outcome"] == k for t in tests) for k in ("passed", "failed", "skipped")},
        "cases": tests,
    }
    write_results(args.json, result)


if __name__ == "__main__":
    main()
