"""Scores of a clustering's dispersion: scikit-learn's ``calinski_harabasz_score`` and
``davies_bouldin_score``, each from one pass of the core over ``X`` (per-cluster sums and
sums of squares, accumulated in float64)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _native
from .._labels.codes import check_missing
from .._utils.params import InvalidParameterError, check_array_like
from .validation import (
    Labelings,
    check_features,
    check_finite,
    check_labelings,
    check_number_of_labels,
    finite_first,
    finite_in_core,
    is_sparse,
)

__all__ = ["calinski_harabasz_score", "davies_bouldin_score"]


def _prepare(func: str, x: Any, labels: Any, missing: object) -> tuple[Any, Labelings]:
    """``X`` (dense: scikit-learn refuses sparse data here) and one labeling, checked."""
    if is_sparse(x):
        raise InvalidParameterError(
            f"The 'X' parameter of {func} must be an array-like. Got {x!r} instead."
        )
    check_array_like(func, X=x, labels=labels)
    policy = check_missing(func, missing)
    if func == "calinski_harabasz_score" and isinstance(x, np.ndarray) and x.dtype.kind in "USVOc":
        # scikit-learn casts a NumPy array to float64 first (its errors and warnings)
        x = x.astype(np.float64)
    # X's NaN are found by the core's first pass (finite_in_core), not by one more here
    data = check_features(x, sparse="refuse", finite=False)
    with finite_first(data):
        labelings = check_labelings([labels], int(data.shape[0]), policy)
        if labelings.keep is not None:
            check_finite(data)  # the dropped samples too, which the core does not read
            data = data[labelings.keep]
        check_number_of_labels(labelings.n_labels[0], int(data.shape[0]))
    return data, labelings


def calinski_harabasz_score(X: ArrayLike, labels: ArrayLike, *, missing: str = "raise") -> float:
    """Compute the Calinski and Harabasz score (the Variance Ratio Criterion).

    Same as :func:`sklearn.metrics.calinski_harabasz_score`: with ``c`` the mean of all
    samples, ``c_k`` that of cluster ``k`` (``n_k`` samples),
    ``extra = sum_k n_k |c_k - c|^2`` and ``intra = sum_i |x_i - c_k(i)|^2``, the score is
    ``extra (n - k) / (intra (k - 1))``, and 1.0 when ``intra`` is 0.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Dense float32 or float64 (C or F order), any numeric array-like, or a pandas or
        polars frame.
    labels : array-like of shape (n_samples,)
        Any label type the metrics take.
    missing : {"raise", "drop", "cluster"}, default="raise"
        As for every metric.

    Returns
    -------
    score : float

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> fcm.calinski_harabasz_score([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1])
    50.0
    """
    func = "calinski_harabasz_score"
    data, labelings = _prepare(func, X, labels, missing)
    codes, k = labelings.codes[0], labelings.n_labels[0]
    return float(finite_in_core(lambda: _native.calinski_harabasz(data, codes, k), data))


def davies_bouldin_score(X: ArrayLike, labels: ArrayLike, *, missing: str = "raise") -> float:
    """Compute the Davies-Bouldin score.

    Same as :func:`sklearn.metrics.davies_bouldin_score`: with ``s_k`` the mean Euclidean
    distance of cluster ``k``'s samples to its centroid and ``d_kl`` the distance between
    centroids, the mean over clusters of ``max_{l != k} (s_k + s_l) / d_kl``; 0.0 when every
    ``s_k`` or every ``d_kl`` is about 0. Lower is better.

    The spreads are direct distances to the centroids: a cluster of one sample spreads by
    exactly 0. scikit-learn takes them from ``|x|² + |c|² - 2 x·c``, whose rounding leaves
    some 1e-8 of ``|x|`` there, so the two agree to about 1e-7 when a cluster has one sample
    and to 1e-12 otherwise.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        As for :func:`calinski_harabasz_score`.
    labels : array-like of shape (n_samples,)
        Any label type the metrics take.
    missing : {"raise", "drop", "cluster"}, default="raise"
        As for every metric.

    Returns
    -------
    score : float

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> fcm.davies_bouldin_score([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1])
    0.2
    """
    func = "davies_bouldin_score"
    data, labelings = _prepare(func, X, labels, missing)
    codes, k = labelings.codes[0], labelings.n_labels[0]
    return float(finite_in_core(lambda: _native.davies_bouldin(data, codes, k), data))
