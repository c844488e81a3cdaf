"""An approximate silhouette in O(n·k·d), for when the exact one is still too slow: bluster's
``approxSilhouette`` (Lun), with each mean distance to a cluster replaced by the
root-mean-square distance, ``sqrt(|x - c|^2 + v)``, from the cluster's centroid ``c`` and
its spread ``v`` (the mean squared distance of its members to ``c``).

Two passes over ``X`` in chunks of rows, in float64: the clusters' centroids and spreads
(each chunk's per-cluster means and sums of squared deviations, merged by Chan, Golub and
LeVeque's update, so that a tight cluster far from the origin keeps its digits), then each
sample's squared distances to every centroid (one matrix product a chunk, centred on the
mean of all samples). Never used by :func:`silhouette_samples`: it is a different number.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._labels.codes import check_missing
from .._utils.params import check_array_like
from .validation import check_features, check_labelings, check_number_of_labels

__all__ = ["approximate_silhouette_samples", "approximate_silhouette_score"]

_CHUNK = 1 << 14
"""Rows a chunk: its float64 copy and its distances to the centroids stay in the caches'
reach (16,384 x 50 floats is 6.6 MB)."""


def _spreads(
    x: NDArray[np.floating[Any]], codes: NDArray[np.int64], k: int, mean: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each cluster's centroid (centred on ``mean``) and spread, from one pass."""
    d = x.shape[1]
    count = np.zeros(k)
    centre = np.zeros((k, d))
    m2 = np.zeros(k)
    for start in range(0, x.shape[0], _CHUNK):
        rows = np.asarray(x[start : start + _CHUNK], dtype=np.float64) - mean
        c = codes[start : start + _CHUNK]
        order = np.argsort(c, kind="stable")
        sizes = np.bincount(c, minlength=k)
        present = np.flatnonzero(sizes)
        starts = np.concatenate(([0], np.cumsum(sizes[present])[:-1]))
        grouped = rows[order]
        n_b = sizes[present].astype(np.float64)
        mean_b = np.add.reduceat(grouped, starts, axis=0) / n_b[:, None]
        dev = grouped - np.repeat(mean_b, sizes[present], axis=0)
        m2_b = np.add.reduceat(np.einsum("ij,ij->i", dev, dev), starts)
        # Chan, Golub and LeVeque: two groups' means and sums of squares merged
        n_a = count[present]
        total = n_a + n_b
        delta = mean_b - centre[present]
        m2[present] += m2_b + np.einsum("ij,ij->i", delta, delta) * (n_a * n_b / total)
        centre[present] += delta * (n_b / total)[:, None]
        count[present] = total
    return centre, m2 / count


def _widths(x: NDArray[np.floating[Any]], codes: NDArray[np.int64], k: int) -> NDArray[np.float64]:
    mean: NDArray[np.float64] = np.asarray(np.mean(x, axis=0, dtype=np.float64))
    centre, spread = _spreads(x, codes, k, mean)
    norms = np.einsum("ij,ij->i", centre, centre)
    out = np.empty(x.shape[0])
    for start in range(0, x.shape[0], _CHUNK):
        rows = np.asarray(x[start : start + _CHUNK], dtype=np.float64) - mean
        c = codes[start : start + _CHUNK]
        sq = np.einsum("ij,ij->i", rows, rows)[:, None] - 2 * (rows @ centre.T) + norms
        dist = np.sqrt(np.maximum(sq, 0) + spread)
        own = dist[np.arange(c.size), c]
        dist[np.arange(c.size), c] = np.inf
        other = dist.min(axis=1)
        most = np.maximum(own, other)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[start : start + c.size] = np.where(most > 0, (other - own) / most, 0.0)
    return out


def approximate_silhouette_samples(
    X: ArrayLike, labels: ArrayLike, *, missing: str = "raise"
) -> NDArray[np.float64]:
    """An approximate silhouette of each sample, in O(n·k·d): bluster's ``approxSilhouette``.

    Each mean Euclidean distance of the silhouette is replaced by the root-mean-square
    distance ``D(x, C) = sqrt(mean_{y in C} |x - y|^2) = sqrt(|x - c_C|^2 + v_C)``, with
    ``c_C`` cluster ``C``'s centroid and ``v_C`` the mean squared distance of its members to
    it; the width is ``(b - a) / max(a, b)`` with ``a = D(x, own cluster)`` (the sample
    itself included, as bluster's) and ``b`` the least ``D`` to another cluster; 0 where
    both are 0. Not the silhouette: the root-mean-square is at least the mean, more so
    within a cluster, so the widths run lower. Measured against the exact silhouette:
    on scikit-learn's digits (1,797 images of 64 pixels, their 10 classes) the mean width
    is 0.152 against 0.163, each sample's off by 0.012 on average (0.061 at most); on its
    iris (150 x 4, 3 species) 0.486 against 0.504 (0.020 on average); on 2e4 points of 20
    Gaussian blobs in 50 dimensions, 0.486 against 0.487 (0.001). For the exact value at
    any size, see :func:`silhouette_samples`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Dense float32 or float64, or a pandas or polars frame (Euclidean distances).
    labels : array-like of shape (n_samples,), or several labelings
        Any label type the metrics take; 2 to ``n_samples - 1`` labels.
    missing : {"raise", "drop", "cluster"}, default="raise"
        As for :func:`silhouette_samples`.

    Returns
    -------
    ndarray of shape (n_samples,), or (m, n_samples) for several labelings

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> x = [[0.0], [1.0], [5.0], [6.0]]
    >>> fcm.approximate_silhouette_samples(x, [0, 0, 1, 1]).round(4).tolist()
    [0.872, 0.8438, 0.8438, 0.872]
    """
    func = "approximate_silhouette_samples"
    check_array_like(func, X=X, labels=labels)
    policy = check_missing(func, missing)
    data = check_features(X, sparse="refuse")
    labelings = check_labelings(labels, int(data.shape[0]), policy)
    keep = labelings.keep
    if keep is not None:
        data = data[keep]
    rows = []
    for codes, k in zip(labelings.codes, labelings.n_labels, strict=True):
        check_number_of_labels(k, int(data.shape[0]))
        rows.append(_widths(data, codes, k))
    values = np.stack(rows)
    if keep is not None:
        out = np.full((values.shape[0], keep.shape[0]), np.nan)
        out[:, keep] = values
        values = out
    return values if labelings.many else values[0]


def approximate_silhouette_score(X: ArrayLike, labels: ArrayLike, *, missing: str = "raise") -> Any:
    """The mean of :func:`approximate_silhouette_samples` (bluster's ``approxSilhouette``):
    an approximation of :func:`silhouette_score` in O(n·k·d), never the same number.

    Parameters
    ----------
    X, labels, missing
        As for :func:`approximate_silhouette_samples` (the samples left out by
        ``missing="drop"`` are not in the mean).

    Returns
    -------
    float, or ndarray of shape (m,) for several labelings

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> round(fcm.approximate_silhouette_score([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1]), 4)
    0.8579
    """
    values = approximate_silhouette_samples(X, labels, missing=missing)
    scores = np.nanmean(np.atleast_2d(values), axis=1)
    return scores if values.ndim == 2 else float(scores[0])
