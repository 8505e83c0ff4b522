"""BOSS's separate line fits against tailsplit's joined fit, on points of known shape.

Usage: python -m benchmarks.fidelity.boss_fits --json benchmarks/results/boss_fits.json

BOSS fits the two stages of a Type II or III relation with two separate lines and reports their
r²; ``correlate`` and ``curve`` choose a joined two-segment fit by BIC and name the type from its
slopes, and report BOSS's separate lines (a line through the points on each side of the joined
fit's turning point) beside it. On synthetic points of each type (30 points, noise 0.01, seeds
0-99, ``tailsplit.shift.correlate.synthetic_points``): the mean r² of each stage both ways, and
how often the separate lines' slope signs name the same type as the joined fit (Type II: both
rising, the second steeper; Type III: falling, then rising).
"""

from __future__ import annotations

import numpy as np

from benchmarks import harness
from tailsplit.shift.correlate import classify, synthetic_points


def _separate_type(slopes: tuple[float, float]) -> str:
    before, after = slopes
    if before < 0 < after:
        return "III"
    if 0 < before < after:
        return "II"
    return "none"


def main() -> None:
    parser = harness.parser(__doc__)
    parser.add_argument("--seeds", type=int, default=100)
    args = parser.parse_args()
    result: dict = {"points": 30, "noise": 0.01, "seeds": args.seeds, "types": {}}
    for kind in ("II", "III"):
        joined_r2, separate_r2, named, same = [], [], 0, 0
        for seed in range(args.seeds):
            relation = classify(*synthetic_points(kind, n=30, seed=seed))
            fit = relation.chosen
            if fit.turning_point is None or len(fit.separate) != 2:
                continue
            named += 1
            joined_r2.append(fit.r2)
            separate_r2.append(tuple(line.r2 for line in fit.separate))
            same += _separate_type((fit.separate[0].slope, fit.separate[1].slope)) == fit.boss_type()[0]
        joined, apart = np.array(joined_r2), np.array(separate_r2)
        result["types"][kind] = {
            "two_segment_fits": named,
            "joined_r2_mean": [round(float(v), 4) for v in joined.mean(axis=0)],
            "separate_r2_mean": [round(float(v), 4) for v in apart.mean(axis=0)],
            "same_type_share": round(same / max(named, 1), 4),
        }
        print(kind, result["types"][kind])
    if args.json:
        harness.write_results(args.json, result)


if __name__ == "__main__":
    main()
