"""How far apart datasets are: centroid cosine (BOSS) and a kernel two-sample distance.

* **Centroid similarity** (BOSS): cosine of the mean embeddings, ×100. It sees only means:
  two datasets with the same centre but different spread score 100.
* **MMD** (maximum mean discrepancy, Gretton et al. 2012) with a Gaussian kernel: the
  unbiased MMD² between two samples, with one bandwidth for the whole matrix (the median
  pairwise distance of the pooled samples), and a permutation p-value — equal means with
  different spread or shape give MMD² well above 0 and a small p.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from tailsplit.rng import BANDWIDTH_SAMPLE, MMD_PERMUTATIONS, MMD_SAMPLE, seeded_rng


def centroid_similarity(embeddings: Mapping[str, np.ndarray]) -> np.ndarray:
    """Cosine ×100 between every pair of dataset centroids.

    >>> centroid_similarity({"a": np.array([[1.0, 0.0], [1.0, 0.4]]), "b": np.array([[0.0, 1.0]])}).round(1)
    array([[100. ,  19.6],
           [ 19.6, 100. ]])
    """
    centroids = np.stack([np.asarray(e, dtype=np.float64).mean(axis=0) for e in embeddings.values()])
    unit = centroids / np.linalg.norm(centroids, axis=1, keepdims=True)
    return np.clip(unit @ unit.T, -1.0, 1.0) * 100


@dataclass
class MmdResult:
    mmd2: np.ndarray  # unbiased MMD², datasets × datasets
    p_value: np.ndarray  # permutation p-value (1 on the diagonal)
    bandwidth: float
    sample: int
    permutations: int
    sizes: dict[str, int] = field(default_factory=dict)


def _squared_distances(x: np.ndarray) -> np.ndarray:
    norms = (x * x).sum(axis=1)
    return np.maximum(norms[:, None] + norms[None, :] - 2 * x @ x.T, 0.0)


def median_bandwidth(samples: list[np.ndarray], seed: int = 0, limit: int = 2000) -> float:
    """Median pairwise Euclidean distance of (at most ``limit`` rows of) the pooled samples."""
    pooled = np.concatenate(samples)
    if len(pooled) > limit:
        pooled = pooled[seeded_rng(seed, BANDWIDTH_SAMPLE).choice(len(pooled), size=limit, replace=False)]
    d2 = _squared_distances(pooled)[np.triu_indices(len(pooled), k=1)]
    return float(np.sqrt(np.median(d2))) or 1.0


def mmd2_unbiased(kernel: np.ndarray, in_x: np.ndarray) -> np.ndarray:
    """Unbiased MMD² from the kernel matrix of the pooled samples (unit diagonal), for each
    column of the boolean membership matrix ``in_x`` (pooled rows × assignments) — all
    assignments in one matrix product."""
    a = in_x.astype(np.float64)
    b = 1.0 - a
    n_x, n_y = a.sum(axis=0), b.sum(axis=0)
    ka = kernel @ a
    kb = kernel.sum(axis=1, keepdims=True) - ka
    xx, xy, yy = (a * ka).sum(axis=0), (a * kb).sum(axis=0), (b * kb).sum(axis=0)
    return (xx - n_x) / (n_x * (n_x - 1)) + (yy - n_y) / (n_y * (n_y - 1)) - 2 * xy / (n_x * n_y)


_PERMUTATION_CHUNK = 1000  # permutations whose assignments are held at once


def mmd_test(
    x: np.ndarray, y: np.ndarray, bandwidth: float, permutations: int = 200, seed: int = 0
) -> tuple[float, float]:
    """(MMD², permutation p-value) of samples ``x`` and ``y`` under a Gaussian kernel."""
    stacked = np.concatenate([x, y]).astype(np.float64)
    kernel = np.exp(-_squared_distances(stacked) / (2 * bandwidth**2))
    observed = np.zeros((len(stacked), 1), dtype=bool)
    observed[: len(x)] = True
    rng = seeded_rng(seed, MMD_PERMUTATIONS)
    value = float(mmd2_unbiased(kernel, observed)[0])
    above = 0
    for start in range(0, permutations, _PERMUTATION_CHUNK):  # memory bounded however many are asked
        count = min(_PERMUTATION_CHUNK, permutations - start)
        shuffled = np.stack([rng.permutation(observed[:, 0]) for _ in range(count)], axis=1)
        above += int(np.sum(mmd2_unbiased(kernel, shuffled) >= value))
    return value, float((above + 1) / (permutations + 1))


def mmd_matrix(
    embeddings: Mapping[str, np.ndarray], sample: int = 1000, permutations: int = 200, seed: int = 0
) -> MmdResult:
    """MMD² and p-value of every pair, each dataset a seeded sample of at most ``sample`` rows."""
    rng = seeded_rng(seed, MMD_SAMPLE)
    samples = []
    for e in embeddings.values():
        e = np.asarray(e, dtype=np.float64)
        samples.append(e[np.sort(rng.choice(len(e), size=sample, replace=False))] if len(e) > sample else e)
    bandwidth = median_bandwidth(samples, seed)
    n = len(samples)
    mmd2, p_value = np.zeros((n, n)), np.ones((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            mmd2[i, j], p_value[i, j] = mmd_test(samples[i], samples[j], bandwidth, permutations, seed + i * n + j)
            mmd2[j, i], p_value[j, i] = mmd2[i, j], p_value[i, j]
    return MmdResult(mmd2, p_value, bandwidth, sample, permutations, {k: len(s) for k, s in zip(embeddings, samples)})
