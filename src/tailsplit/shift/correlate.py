"""The shape of the ID–OOD accuracy relation (BOSS, SPEC §2).

Three candidate models of OOD accuracy ``y`` against ID accuracy ``x``:

* **Type I** — one line ``y = a + b·x``;
* **Type II** — two joined segments, monotone (both slopes of one sign) with a turning point
  ``c`` after which the slope changes: ``y = a + b1·x + (b2 − b1)·max(0, x − c)``;
* **Type III** — the same two segments with slopes of opposite signs (a V).

Each is fitted by least squares (the joined segments for every turning point between the
3rd and the 3rd-last point, then refined by golden-section search) and the one with the
lowest BIC, ``n·ln(RSS/n) + k·ln(n)``, is chosen: k = 2 for a line and 5 for two segments —
intercept, two slopes, and the turning point counted twice, because a point found by search
fits noise like more than one free parameter (change-point criteria charge it extra; with
one count, lines are taken for two segments in about 1 seed of 10).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tailsplit.errors import ConfigError

TYPES = ("I", "II", "III")
_MIN_SEGMENT = 3


@dataclass(frozen=True)
class Fit:
    kind: str                               # "I", "II" or "III"
    rss: float
    bic: float
    intercept: float
    slopes: tuple[float, ...]               # one, or before / after the turning point
    turning_point: float | None = None
    r2: tuple[float, ...] = ()              # whole line, or each segment

    def predict(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        y = self.intercept + self.slopes[0] * x
        if self.turning_point is not None:
            y = y + (self.slopes[1] - self.slopes[0]) * np.maximum(0.0, x - self.turning_point)
        return y

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "bic": round(self.bic, 4), "rss": float(f"{self.rss:.6g}"),
                "intercept": round(self.intercept, 6), "slopes": [round(s, 6) for s in self.slopes],
                "turning_point": None if self.turning_point is None else round(self.turning_point, 6),
                "r2": [round(r, 4) for r in self.r2]}


@dataclass
class Relation:
    chosen: Fit
    fits: dict[str, Fit] = field(default_factory=dict)   # every feasible type
    n: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.chosen.kind, "n": self.n, "chosen": self.chosen.as_dict(),
                "candidates": {k: f.as_dict() for k, f in self.fits.items()}}


def _bic(rss: float, n: int, k: int) -> float:
    return float(n * np.log(max(rss, 1e-300) / n) + k * np.log(n))


def _r2(x: np.ndarray, y: np.ndarray, fitted: np.ndarray) -> float:
    total = float(((y - y.mean()) ** 2).sum())
    return 1.0 - float(((y - fitted) ** 2).sum()) / total if total > 0 else 1.0


def _hinge_fit(x: np.ndarray, y: np.ndarray, c: float) -> tuple[float, np.ndarray]:
    design = np.column_stack([np.ones_like(x), x, np.maximum(0.0, x - c)])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    return float(((design @ coef - y) ** 2).sum()), coef


def fit_line(x: np.ndarray, y: np.ndarray) -> Fit:
    design = np.column_stack([np.ones_like(x), x])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    fitted = design @ coef
    rss = float(((fitted - y) ** 2).sum())
    return Fit("I", rss, _bic(rss, len(x), 2), float(coef[0]), (float(coef[1]),), None, (_r2(x, y, fitted),))


def fit_segments(x: np.ndarray, y: np.ndarray) -> dict[str, Fit]:
    """The best monotone (II) and V-shaped (III) two-segment fits, where feasible."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    candidates = np.unique((xs[_MIN_SEGMENT - 1:-_MIN_SEGMENT] + xs[_MIN_SEGMENT:-_MIN_SEGMENT + 1]) / 2) \
        if len(xs) >= 2 * _MIN_SEGMENT else np.zeros(0)
    best: dict[str, tuple[float, float]] = {}
    for c in candidates:
        rss, coef = _hinge_fit(x, y, c)
        kind = _shape(coef)
        if kind not in best or rss < best[kind][0]:
            best[kind] = (rss, c)
    fits = {}
    step = float(np.min(np.diff(candidates))) if len(candidates) > 1 else 0.0
    for kind, (_, c) in best.items():
        c = _refine(x, y, c, step, kind)
        rss, coef = _hinge_fit(x, y, c)
        slopes = (float(coef[1]), float(coef[1] + coef[2]))
        fitted = coef[0] + coef[1] * x + coef[2] * np.maximum(0.0, x - c)
        left = x <= c
        r2 = tuple(_r2(x[m], y[m], fitted[m]) if m.sum() >= 2 else float("nan") for m in (left, ~left))
        fits[kind] = Fit(kind, rss, _bic(rss, len(x), 5), float(coef[0]), slopes, float(c), r2)
    return fits


def _shape(coef: np.ndarray) -> str:
    before, after = coef[1], coef[1] + coef[2]
    return "III" if before * after < 0 else "II"


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
    """Fit the three types and choose by BIC."""
    x, y = np.asarray(id_acc, dtype=np.float64), np.asarray(ood_acc, dtype=np.float64)
    if len(x) != len(y):
        raise ConfigError(f"id_acc has {len(x)} values and ood_acc {len(y)}; give one pair per point")
    if len(x) < 3 or np.ptp(x) == 0:
        raise ConfigError(f"{len(x)} points with {len(np.unique(x))} distinct ID accuracies cannot be fitted; "
                          "give at least 3 points with different id_acc")
    fits = {"I": fit_line(x, y), **fit_segments(x, y)}
    chosen = min(fits.values(), key=lambda f: (f.bic, TYPES.index(f.kind)))
    return Relation(chosen, dict(sorted(fits.items(), key=lambda kv: TYPES.index(kv[0]))), len(x))


def synthetic_points(kind: str, n: int = 30, noise: float = 0.01, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Points of a known type (for tests and the benchmark): ID accuracy uniform in
    [0.5, 0.95]; Type I a line of slope 0.7; II slope 0.3 then 1.5 after 0.75; III slope −0.8
    then 1.0 after 0.72; Gaussian noise of sd ``noise``."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.5, 0.95, size=n)
    if kind == "I":
        y = 0.2 + 0.7 * x
    elif kind == "II":
        y = 0.3 + 0.3 * x + 1.2 * np.maximum(0.0, x - 0.75)
    elif kind == "III":
        y = 0.5 - 0.8 * (x - 0.72) + 1.8 * np.maximum(0.0, x - 0.72)
    else:
        raise ConfigError(f"kind={kind!r} is not one of {', '.join(TYPES)}")
    return x, y + rng.normal(0.0, noise, size=n)
