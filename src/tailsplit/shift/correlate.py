"""The shape of the ID–OOD accuracy relation (BOSS, Yuan et al. 2023).

Three shapes of OOD accuracy ``y`` against ID accuracy ``x`` are fitted:

* ``line`` — ``y = a + b·x``;
* ``hinge`` — two joined segments whose slopes have one sign, with a turning point ``c``:
  ``y = a + b1·x + (b2 − b1)·max(0, x − c)``;
* ``vee`` — the same two segments with slopes of opposite signs.

Each is fitted by least squares (the joined segments for every turning point between the
3rd and the 3rd-last point, then refined by golden-section search) and the one with the
lowest BIC, ``n·ln(RSS/n) + k·ln(n)``, is chosen: k = 2 for a line and 5 for two segments —
intercept, two slopes, and the turning point counted twice, because a point found by search
fits noise like more than one free parameter (change-point criteria charge it extra; with
one count, lines are taken for two segments in about 1 seed of 10).

The chosen shape is then named by BOSS's definitions, which are narrower than the shapes:

* **Type I** — a monotonically *increasing* line (slope > 0);
* **Type II** — increasing throughout and *accelerating* after the turning point
  (0 < b1 < b2);
* **Type III** — a V: decreasing, then increasing (b1 < 0 < b2).

Anything else — a falling or flat line, a decelerating or falling hinge, a Λ (rising, then
falling) — is ``"none"`` of the three, with the reason.

A name is given only when the points establish it: at least :data:`MIN_POINTS` points, and
every sign the name rests on (the line's slope; a hinge's two slopes and their change; a V's
two slopes) with a 95% t-interval that excludes zero (ordinary least squares at the fitted
turning point, one degree of freedom charged for it). Otherwise the relation is
``"undecided"``, with the sign that is not established and what would establish it.

BOSS fits the two stages of Types II and III with two separate lines and reports their r²;
the joined fit above shares the turning point. Every two-segment fit also carries BOSS's
separate fits — a line through the points on each side of its turning point — with their
slopes and r², so both can be compared with the paper.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError

TYPES = ("I", "II", "III")
SHAPES = ("line", "hinge", "vee")
NONE = "none"
UNDECIDED = "undecided"
MIN_POINTS = 6  # fewest points a type is named from
_MIN_SEGMENT = 3
# Student's t, two-sided 95%, for 1-30 degrees of freedom; beyond, Cornish-Fisher from 1.96.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)  # fmt: skip


def t975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom.

    >>> t975(4), round(t975(100), 3)
    (2.776, 1.984)
    """
    if df < 1:
        return float("inf")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def type_label(kind: str) -> str:
    """A relation's type in words: ``"Type II"``, ``"none of Types I–III"`` or ``"undecided"``."""
    return {NONE: "none of Types I–III", UNDECIDED: UNDECIDED}.get(kind, f"Type {kind}")


@dataclass(frozen=True)
class SeparateLine:
    """BOSS's fit of one stage: a line through the points on one side of the turning point."""

    intercept: float
    slope: float
    r2: float
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "intercept": round(self.intercept, 6),
            "slope": round(self.slope, 6),
            "r2": round(self.r2, 4),
            "n": self.n,
        }


@dataclass(frozen=True)
class Fit:
    kind: str  # the shape: "line", "hinge" or "vee"
    rss: float
    bic: float
    intercept: float
    slopes: tuple[float, ...]  # one, or before / after the turning point
    turning_point: float | None = None
    r2: tuple[float, ...] = ()  # whole line, or each segment
    # 95% t-intervals of the signs a type rests on: "slope", or "slope_before", "slope_after", "change"
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    separate: tuple[SeparateLine, ...] = ()  # BOSS's two separate lines, for two segments

    def predict(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        y = self.intercept + self.slopes[0] * x
        if self.turning_point is not None:
            y = y + (self.slopes[1] - self.slopes[0]) * np.maximum(0.0, x - self.turning_point)
        return y

    def boss_type(self) -> tuple[str, str]:
        """(``"I"``/``"II"``/``"III"`` or ``"none"``, why) by BOSS's definitions."""
        first, last = self.slopes[0], self.slopes[-1]
        if self.kind == "line":
            return ("I", "increasing line") if first > 0 else (NONE, "the line is not increasing (slope ≤ 0)")
        if self.kind == "hinge":
            if first > 0 and last > first:
                return "II", "increasing, accelerating after the turning point"
            if first > 0:
                return NONE, "increasing but decelerating after the turning point (not Type II)"
            return NONE, "decreasing on both sides of the turning point"
        if first < 0 < last:
            return "III", "V: decreasing, then increasing"
        return NONE, "Λ: increasing, then decreasing (not a V)"

    def decided(self, n: int) -> tuple[str, str]:
        """(BOSS's type or ``"none"``, why) when the points establish it, else
        (``"undecided"``, what is missing and what would settle it)."""
        kind, reason = self.boss_type()
        if n < MIN_POINTS:
            return UNDECIDED, (
                f"{n} points are too few to name a type (the fit says {reason}); at least {MIN_POINTS} are needed: "
                "evaluate more often (--checkpoint-every) or add runs (--train-sizes, --encoder)"
            )
        for name, (low, high) in self.intervals.items():
            if low <= 0 <= high:
                return UNDECIDED, (
                    f"the fit says {reason}, but the {name.replace('_', ' ')}'s 95% interval {low:.3f} to {high:.3f} "
                    "includes 0; more points, or points over a wider range of ID accuracy, would settle it"
                )
        return kind, reason

    def as_dict(self, n: int | None = None) -> dict[str, Any]:
        kind, reason = self.boss_type() if n is None else self.decided(n)
        return {
            "shape": self.kind,
            "type": kind,
            "reason": reason,
            "bic": round(self.bic, 4),
            "rss": float(f"{self.rss:.6g}"),
            "intercept": round(self.intercept, 6),
            "slopes": [round(s, 6) for s in self.slopes],
            "turning_point": None if self.turning_point is None else round(self.turning_point, 6),
            "r2": [round(r, 4) for r in self.r2],
            "intervals": {k: [round(v, 6) for v in ci] for k, ci in self.intervals.items()},
            **({"separate": [line.as_dict() for line in self.separate]} if self.separate else {}),
        }


@dataclass
class Relation:
    chosen: Fit  # the shape with the lowest BIC
    fits: dict[str, Fit] = field(default_factory=dict)  # every feasible shape
    n: int = 0

    @property
    def type(self) -> str:
        """BOSS's type of the chosen shape, ``"none"``, or ``"undecided"`` when the points do
        not establish it (:meth:`Fit.decided`)."""
        return self.chosen.decided(self.n)[0]

    @property
    def reason(self) -> str:
        return self.chosen.decided(self.n)[1]

    def as_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "reason": self.reason,
            "shape": self.chosen.kind,
            "n": self.n,
            "chosen": self.chosen.as_dict(self.n),
            "candidates": {k: f.as_dict(self.n) for k, f in self.fits.items()},
        }


def _bic(rss: float, n: int, k: int) -> float:
    return float(n * np.log(max(rss, 1e-300) / n) + k * np.log(n))


def _r2(x: np.ndarray, y: np.ndarray, fitted: np.ndarray) -> float:
    total = float(((y - y.mean()) ** 2).sum())
    return 1.0 - float(((y - fitted) ** 2).sum()) / total if total > 0 else 1.0


def _hinge_fit(x: np.ndarray, y: np.ndarray, c: float) -> tuple[float, np.ndarray]:
    design = np.column_stack([np.ones_like(x), x, np.maximum(0.0, x - c)])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    return float(((design @ coef - y) ** 2).sum()), coef


def _hinge_grid(xs: np.ndarray, ys: np.ndarray, cuts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(RSS, coefficients) of the hinge fit at every cut at once, for ``xs`` sorted: the normal
    equations of ``[1, x, max(0, x − c)]`` need only sums over all points and over the points
    right of ``c``, which suffix sums give for every cut in O(1) — O(n log n) in all, where a
    least-squares solve per cut was O(n²) (200,000 points: minutes). Centred first, so the
    sums lose no precision; the same fits as :func:`_hinge_fit` to rounding.

    >>> x = np.linspace(0, 1, 9); y = np.where(x < 0.5, x, 0.5 + 3 * (x - 0.5))
    >>> rss, coef = _hinge_grid(x, y, np.array([0.5]))
    >>> bool(rss[0] < 1e-20), np.round(coef[0], 6).tolist()
    (True, [0.0, 1.0, 2.0])
    """
    if len(cuts) == 0:
        return np.zeros(0), np.zeros((0, 3))
    mx, my = xs.mean(), ys.mean()
    u, v, shifts = xs - mx, ys - my, cuts - mx
    # Suffix sums over the points right of each cut (x > c): count, Σu, Σu², Σv, Σuv.
    right = np.searchsorted(u, shifts, side="right")
    sums = [np.concatenate([np.cumsum(a[::-1])[::-1], [0.0]]) for a in (np.ones_like(u), u, u * u, v, u * v)]
    n1, su, suu, sv, suv = (s[right] for s in sums)
    sh = su - shifts * n1  # Σh, h = max(0, u − c)
    shh = suu - 2 * shifts * su + shifts**2 * n1
    suh = suu - shifts * su
    shv = suv - shifts * sv
    n, uu, uv = float(len(u)), float(u @ u), float(u @ v)
    gram = np.empty((len(cuts), 3, 3))
    gram[:, 0] = np.stack([np.full_like(sh, n), np.zeros_like(sh), sh], axis=1)
    gram[:, 1] = np.stack([np.zeros_like(sh), np.full_like(sh, uu), suh], axis=1)
    gram[:, 2] = np.stack([sh, suh, shh], axis=1)
    rhs = np.stack([np.zeros_like(sh), np.full_like(sh, uv), shv], axis=1)
    coef = np.linalg.solve(gram, rhs[..., None])[..., 0]
    rss = np.maximum(float(v @ v) - (coef * rhs).sum(axis=1), 0.0)
    # Back to the uncentred [1, x, h] coefficients: a = my + a' − b'·mx, b = b', d = d'.
    coef[:, 0] = my + coef[:, 0] - coef[:, 1] * mx
    return rss, coef


def _intervals(
    design: np.ndarray, coef: np.ndarray, rss: float, df: int, rows: dict[str, np.ndarray]
) -> dict[str, tuple[float, float]]:
    """The 95% t-intervals of linear combinations ``rows`` of the least-squares coefficients
    ``coef`` of ``design``, with ``df`` residual degrees of freedom."""
    if df < 1:
        return {name: (-np.inf, np.inf) for name in rows}
    covariance = rss / df * np.linalg.pinv(design.T @ design)
    intervals = {}
    for name, row in rows.items():
        half = t975(df) * float(np.sqrt(max(row @ covariance @ row, 0.0)))
        intervals[name] = (float(row @ coef) - half, float(row @ coef) + half)
    return intervals


def _line(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(design, coefficients, fitted values) of the least-squares line through (x, y)."""
    design = np.column_stack([np.ones_like(x), x])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    return design, coef, design @ coef


def fit_line(x: np.ndarray, y: np.ndarray) -> Fit:
    design, coef, fitted = _line(x, y)
    rss = float(((fitted - y) ** 2).sum())
    intervals = _intervals(design, coef, rss, len(x) - 2, {"slope": np.array([0.0, 1.0])})
    return Fit(
        "line", rss, _bic(rss, len(x), 2), float(coef[0]), (float(coef[1]),), None, (_r2(x, y, fitted),), intervals
    )


def separate_line(x: np.ndarray, y: np.ndarray) -> SeparateLine:
    """A line through the points (x, y) alone, with its r² (BOSS's fit of one stage)."""
    _, coef, fitted = _line(x, y)
    return SeparateLine(float(coef[0]), float(coef[1]), _r2(x, y, fitted), len(x))


def fit_segments(x: np.ndarray, y: np.ndarray) -> dict[str, Fit]:
    """The best hinge (slopes of one sign) and vee (opposite signs) fits, where feasible."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    candidates = (
        np.unique((xs[_MIN_SEGMENT - 1 : -_MIN_SEGMENT] + xs[_MIN_SEGMENT : -_MIN_SEGMENT + 1]) / 2)
        if len(xs) >= 2 * _MIN_SEGMENT
        else np.zeros(0)
    )
    best: dict[str, tuple[float, float]] = {}
    for rss, coef, c in zip(*_hinge_grid(xs, y[order], candidates), candidates):
        kind = _shape(coef)
        if kind not in best or rss < best[kind][0]:
            best[kind] = (float(rss), float(c))
    fits = {}
    step = float(np.min(np.diff(candidates))) if len(candidates) > 1 else 0.0
    for kind, (_, c) in best.items():
        c = _refine(x, y, c, step, kind)
        rss, coef = _hinge_fit(x, y, c)
        slopes = (float(coef[1]), float(coef[1] + coef[2]))
        fitted = coef[0] + coef[1] * x + coef[2] * np.maximum(0.0, x - c)
        left = x <= c
        r2 = tuple(_r2(x[m], y[m], fitted[m]) if m.sum() >= 2 else float("nan") for m in (left, ~left))
        design = np.column_stack([np.ones_like(x), x, np.maximum(0.0, x - c)])
        rows = {"slope_before": np.array([0.0, 1.0, 0.0]), "slope_after": np.array([0.0, 1.0, 1.0])}
        if kind == "hinge":
            rows["change"] = np.array([0.0, 0.0, 1.0])
        intervals = _intervals(design, coef, rss, len(x) - 4, rows)  # the turning point costs one
        separate = (
            tuple(separate_line(x[m], y[m]) for m in (left, ~left)) if min(left.sum(), (~left).sum()) >= 2 else ()
        )
        fits[kind] = Fit(kind, rss, _bic(rss, len(x), 5), float(coef[0]), slopes, float(c), r2, intervals, separate)
    return fits


def _shape(coef: np.ndarray) -> str:
    before, after = coef[1], coef[1] + coef[2]
    return "vee" if before * after < 0 else "hinge"


def _refine(x: np.ndarray, y: np.ndarray, c: float, step: float, kind: str) -> float:
    """Golden-section search for the turning point within a grid step of ``c``, keeping the shape."""
    lo, hi = c - step, c + step
    ratio = (np.sqrt(5) - 1) / 2

    def cost(t: float) -> float:
        rss, coef = _hinge_fit(x, y, t)
        return rss if _shape(coef) == kind else np.inf

    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    for _ in range(40):
        if cost(a) < cost(b):
            hi, b = b, a
            a = hi - ratio * (hi - lo)
        else:
            lo, a = a, b
            b = lo + ratio * (hi - lo)
    refined = (lo + hi) / 2
    return refined if cost(refined) <= cost(c) else c


def classify(id_acc: np.ndarray, ood_acc: np.ndarray) -> Relation:
    """Fit the three shapes, choose by BIC, name the BOSS type (see :attr:`Relation.type`)."""
    x, y = np.asarray(id_acc, dtype=np.float64), np.asarray(ood_acc, dtype=np.float64)
    if len(x) != len(y):
        raise ConfigError(f"id_acc has {len(x)} values and ood_acc {len(y)}; give one pair per point")
    if len(x) < 3 or np.ptp(x) == 0:
        raise ConfigError(
            f"{len(x)} points with {len(np.unique(x))} distinct ID accuracies cannot be fitted; "
            "give at least 3 points with different id_acc"
        )
    fits = {"line": fit_line(x, y), **fit_segments(x, y)}
    chosen = min(fits.values(), key=lambda f: (f.bic, SHAPES.index(f.kind)))
    return Relation(chosen, dict(sorted(fits.items(), key=lambda kv: SHAPES.index(kv[0]))), len(x))


SYNTHETIC = {
    "I": lambda x: 0.2 + 0.7 * x,
    "II": lambda x: 0.3 + 0.3 * x + 1.2 * np.maximum(0.0, x - 0.75),
    "III": lambda x: 0.5 - 0.8 * (x - 0.72) + 1.8 * np.maximum(0.0, x - 0.72),
    "falling line": lambda x: 0.9 - 0.6 * x,
    "decelerating": lambda x: 1.52 * x - 1.33 * np.maximum(0.0, x - 0.72) - 0.4,
    "falling hinge": lambda x: 1.0 - 0.29 * x - 1.2 * np.maximum(0.0, x - 0.72),
    "inverted V": lambda x: 0.5 + 0.9 * (x - 0.72) - 1.8 * np.maximum(0.0, x - 0.72),
}


def synthetic_points(kind: str, n: int = 30, noise: float = 0.01, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Points of a known shape (for tests and the benchmark): ID accuracy uniform in
    [0.5, 0.95]; Type I a line of slope 0.7; II slope 0.3 then 1.5 after 0.75; III slope −0.8
    then 1.0 after 0.72; and shapes that are none of the types (see ``SYNTHETIC``);
    Gaussian noise of sd ``noise``."""
    if kind not in SYNTHETIC:
        raise ConfigError(f"kind={kind!r} is not one of {', '.join(SYNTHETIC)}")
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.5, 0.95, size=n)
    return x, SYNTHETIC[kind](x) + rng.normal(0.0, noise, size=n)
