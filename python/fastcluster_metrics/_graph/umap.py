"""UMAP's fuzzy simplicial set of a k-nearest-neighbour graph (McInnes et al. 2018): the
connectivities that scib-metrics' ``NeighborsResults.knn_graph_connectivities`` gets from
``umap.umap_.fuzzy_simplicial_set`` (``local_connectivity=1``, ``set_op_mix_ratio=1``), as
scanpy's ``obsp["connectivities"]``, where scib-metrics' Leiden clustering and per-label kBET
start.

In NumPy, every row at once, in umap's arithmetic as numba compiles it: each row's bandwidth
by umap's 64 bisection steps (float32 bounds; the float32 gaps over the bandwidth, their
``exp`` and their sum, neighbour by neighbour, in float64; tolerance 1e-5), float32
strengths, then the fuzzy union ``A + Aᵀ - A ∘ Aᵀ`` in scipy's float32 sparse arithmetic.
Against umap 0.5 the bandwidths agree to the last bit and all but about 1 weight in 1,000
too, those by one float32 unit in the last place (umap's float32 ``exp`` is not always
correctly rounded; ours is). Importing umap and compiling its code would take longer than the
whole benchmark of a small AnnData.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["fuzzy_connectivities", "smooth_knn_dist"]

_N_ITER = 64
_TOLERANCE = 1e-5
"""umap's ``SMOOTH_K_TOLERANCE``."""
_MIN_K_DIST_SCALE = 1e-3
_FLOAT32_MAX = np.float32(np.finfo(np.float32).max)


def _exp32(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """``exp`` of float32 values, correctly rounded to float32."""
    return np.exp(x.astype(np.float64)).astype(np.float32)


def smooth_knn_dist(
    distances: NDArray[np.float32], k: float
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Each row's bandwidth ``sigma`` and its distance to the nearest other cell ``rho``, as
    umap's ``smooth_knn_dist`` (``local_connectivity=1``, ``bandwidth=1``) finds them: the
    ``sigma`` at which ``sum_j exp(-(d_j - rho) / sigma)`` over the row's neighbours but the
    first is ``log2(k)``, by bisection."""
    n, width = distances.shape
    target = float(np.log2(k))
    positive = distances > 0
    has = positive.any(axis=1)
    # the first positive distance of each row (rows are sorted): umap's rho
    first = np.argmax(positive, axis=1)
    rho = np.where(has, distances[np.arange(n), first], np.float32(0)).astype(np.float32)
    d = distances[:, 1:] - rho[:, None]
    above = d > 0
    lo = np.zeros(n, np.float32)
    hi = np.full(n, _FLOAT32_MAX, np.float32)
    mid = np.ones(n, np.float32)
    active = np.ones(n, bool)
    for _ in range(_N_ITER):
        rows = np.flatnonzero(active)
        if rows.size == 0:
            break
        m = mid[rows]
        # umap's arithmetic: the float32 gap over sigma, its exp and their sum in float64
        ratio = d[rows].astype(np.float64) / m[:, None].astype(np.float64)
        terms = np.where(above[rows], np.exp(-ratio), 1.0)
        wide = np.cumsum(terms, axis=1)[:, -1] if width > 1 else np.zeros(rows.size)
        done = np.abs(wide - target) < _TOLERANCE
        over = ~done & (wide > target)
        under = ~done & ~over
        low = np.where(under, m, lo[rows])
        high = np.where(over, m, hi[rows])
        halved = ((low + high) / np.float32(2)).astype(np.float32)
        doubled = np.where(high >= _FLOAT32_MAX, m * np.float32(2), halved)
        m = np.where(over, halved, np.where(under, doubled, m))
        lo[rows], hi[rows], mid[rows] = low, high, m
        active[rows[done]] = False
    sigma = mid
    row_means = distances.mean(axis=1, dtype=np.float64)
    floor = _MIN_K_DIST_SCALE * np.where(rho > 0, row_means, float(distances.mean()))
    sigma = np.where(sigma < floor, floor, sigma).astype(np.float32)
    return sigma, rho


def fuzzy_connectivities(indices: NDArray[Any], distances: NDArray[Any]) -> Any:
    """The symmetric connectivities (a float32 scipy CSR matrix) of the ``(n, k)`` neighbour
    arrays of a search that holds each cell among its own neighbours, as umap's
    ``fuzzy_simplicial_set`` with ``knn_indices`` and ``knn_dists`` given."""
    import scipy.sparse as sp

    idx = np.asarray(indices)
    dist = np.ascontiguousarray(distances, dtype=np.float32)
    n, k = idx.shape
    sigma, rho = smooth_knn_dist(dist, float(k))
    gap = dist - rho[:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        strengths = _exp32(-(gap / sigma[:, None]))
    ones = (gap <= 0) | (sigma == 0)[:, None]
    vals = np.where(ones, np.float32(1), strengths).astype(np.float32)
    rows = np.repeat(np.arange(n), k).reshape(n, k)
    vals[idx == rows] = 0
    missing = idx < 0  # umap skips a neighbour a search did not find (-1)
    vals[missing] = 0
    cols = np.where(missing, 0, idx)
    rows = np.where(missing, 0, rows)
    a = sp.coo_matrix((vals.ravel(), (rows.ravel(), cols.ravel())), shape=(n, n))
    a.eliminate_zeros()
    t = a.transpose()
    union = a + t - a.multiply(t)
    union = union.tocsr()
    union.eliminate_zeros()
    return union
