"""The silhouette of one or many labelings of an embedding: scikit-learn's
``silhouette_samples`` and ``silhouette_score``, on the core's kernels.

The metrics ``"euclidean"``, ``"sqeuclidean"``, ``"cosine"``, ``"manhattan"`` (and
scikit-learn's aliases ``"l2"``, ``"l1"``, ``"cityblock"``) and ``"precomputed"`` go to the
core (``_native.silhouette_samples``, ``_native.silhouette_precomputed``), which never builds
the ``n x n`` matrix. Any other metric, a callable, or extra keywords for the distance
function go through scikit-learn's own ``silhouette_samples`` (imported when first needed):
the same values, not accelerated.

Several labelings of the same samples (a 2-D array, a row each, or a list of labelings) are
scored in one call: each block of distances is computed once and added into every labeling's
sums, and each row of the result equals the call on that labeling alone, to the last bit.
"""

from __future__ import annotations

from contextlib import nullcontext
from numbers import Integral
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _native
from .._labels.codes import check_missing
from .._utils.params import InvalidParameterError, check_array_like, is_array_like
from .validation import (
    Labelings,
    check_features,
    check_finite,
    check_labelings,
    check_number_of_labels,
    check_precomputed,
    check_random_state,
    finite_first,
    finite_in_core,
    is_sparse,
)

__all__ = ["FAST_METRICS", "silhouette_samples", "silhouette_score"]

FAST_METRICS = {
    "euclidean": "euclidean",
    "l2": "euclidean",
    "sqeuclidean": "sqeuclidean",
    "cosine": "cosine",
    "manhattan": "manhattan",
    "l1": "manhattan",
    "cityblock": "manhattan",
    "precomputed": "precomputed",
}
"""The metrics the core computes, by every name scikit-learn gives them."""

_SUMMED = frozenset({"sqeuclidean", "cosine"})
"""The metrics whose silhouettes the core computes from each cluster's sums, in O(n·k·d)."""

_FLOAT32_RESULTS = frozenset({"euclidean", "cosine", "precomputed"})
"""The metrics whose silhouettes scikit-learn returns in float32 for float32 data (its own
distances); under the others (SciPy's) they are float64."""


def _sklearn_samples() -> Any:
    try:
        from sklearn.metrics import silhouette_samples as samples
    except ImportError as e:  # pragma: no cover - scikit-learn is installed with the tests
        raise ImportError(
            "metrics other than euclidean, sqeuclidean, cosine, manhattan and precomputed"
            " are computed by scikit-learn: pip install scikit-learn"
        ) from e
    return samples


def _check_params(func: str, x: object, labels: object) -> None:
    """scikit-learn's ``validate_params`` of ``X`` and ``labels``."""
    if not (is_array_like(x) or is_sparse(x)):
        raise InvalidParameterError(
            f"The 'X' parameter of {func} must be an array-like or a sparse array or matrix."
            f" Got {x!r} instead."
        )
    check_array_like(func, labels=labels)


def _native_metric(metric: object, kwds: dict[str, Any]) -> str | None:
    """The core's name of the metric, or None when scikit-learn computes it."""
    if kwds or not isinstance(metric, str):
        return None
    return FAST_METRICS.get(metric)


def _valid_for_sklearn(metric: object) -> bool:
    """Whether scikit-learn's parameter check would take the metric (a callable, or one of
    its names): any other is handed to scikit-learn at once, to raise its own error."""
    if callable(metric):
        return True
    if not isinstance(metric, str):
        return False
    from sklearn.metrics.pairwise import _VALID_METRICS

    return metric in _VALID_METRICS


class _Prepared:
    """An embedding and its labelings checked once: the matrix (dense and C-contiguous for
    the core; as the caller gave it, possibly sparse, for scikit-learn's own path), the
    labelings' codes, the core's metric name."""

    def __init__(
        self,
        func: str,
        x: Any,
        labels: Any,
        metric: Any,
        missing: object,
        kwds: dict[str, Any],
        sampled: bool = False,
    ) -> None:
        policy = check_missing(func, missing)
        self.precomputed = isinstance(metric, str) and metric == "precomputed"
        self.metric = _native_metric(metric, kwds)
        # The O(n·k·d) silhouettes read X in about the time its NaN check would: their
        # core finds the NaN in its first pass (finite_in_core) where it reads every sample.
        self.in_core = self.metric in _SUMMED and not sampled and not is_sparse(x)
        self.data = check_features(
            x, sparse="densify" if self.metric else "keep", finite=not self.in_core
        )
        with finite_first(self.data) if self.in_core else nullcontext():
            self.labelings: Labelings = check_labelings(labels, int(self.data.shape[0]), policy)
        keep = self.labelings.keep
        if keep is not None:
            if self.in_core:
                check_finite(self.data)  # the dropped samples too
            self.data = self.data[keep]
            if self.precomputed:
                self.data = self.data[:, keep]
            if not is_sparse(self.data):
                self.data = np.ascontiguousarray(self.data)

    def sample(self, indices: NDArray[Any]) -> None:
        """Keeps the samples at ``indices``, in that order (re-coding the labels)."""
        data = self.data[indices]
        if self.precomputed:
            data = data[:, indices]
        self.data = data if is_sparse(data) else np.ascontiguousarray(data)
        codes = np.ascontiguousarray(self.labelings.codes[:, indices])
        n_labels = []
        for j in range(codes.shape[0]):
            present = np.zeros(self.labelings.n_labels[j], dtype=bool)
            present[codes[j]] = True
            if not present.all():
                rank = np.cumsum(present) - 1
                codes[j] = rank[codes[j]]
            n_labels.append(int(present.sum()))
        self.labelings = Labelings(codes, n_labels, self.labelings.many, None)

    def silhouettes(self, metric: Any, kwds: dict[str, Any]) -> NDArray[np.floating[Any]]:
        """The (m, n) silhouettes of the kept samples, in scikit-learn's dtype (float32 for
        float32 data under the metrics of :data:`_FLOAT32_RESULTS`, else float64)."""
        if self.precomputed:
            dense = self.data.toarray() if is_sparse(self.data) else self.data
            check_precomputed(np.asarray(dense))
        n = int(self.data.shape[0])
        with finite_first(self.data) if self.in_core else nullcontext():
            for k in self.labelings.n_labels:
                check_number_of_labels(k, n)
        codes, n_labels = self.labelings.codes, self.labelings.n_labels
        if self.metric is None:
            sklearn_samples = _sklearn_samples()
            rows = [sklearn_samples(self.data, row, metric=metric, **kwds) for row in codes]
            found: NDArray[np.floating[Any]] = np.asarray(rows).reshape(codes.shape)
            return found
        # One pass of the core for all labelings: it adds each distance into every
        # labeling's sums in one order whatever the others, so each row equals the call on
        # its labeling alone, bit for bit.
        if self.metric == "precomputed":
            values = _native.silhouette_precomputed(self.data, codes, n_labels)
        else:
            data, name = self.data, self.metric
            values = finite_in_core(
                lambda: _native.silhouette_samples(data, codes, n_labels, name), data
            )
        single = self.data.dtype == np.float32 and self.metric in _FLOAT32_RESULTS
        dtype = np.float32 if single else np.float64
        out: NDArray[np.floating[Any]] = values.astype(dtype, copy=False)
        return out


def _refuse_unknown_metric(func: str, metric: object, x: Any, labels: Any) -> None:
    """scikit-learn checks the metric before anything else: a metric neither the core's nor
    scikit-learn's goes to scikit-learn's function now, which raises its own error."""
    if isinstance(metric, str) and metric in FAST_METRICS:
        return
    if not _valid_for_sklearn(metric):
        from sklearn import metrics

        getattr(metrics, func)(x, labels, metric=metric)


def silhouette_samples(
    X: Any,
    labels: ArrayLike,
    *,
    metric: Any = "euclidean",
    missing: str = "raise",
    **kwds: Any,
) -> NDArray[np.floating[Any]]:
    """Compute the Silhouette Coefficient for each sample.

    Same as :func:`sklearn.metrics.silhouette_samples`: with ``a`` a sample's mean distance to
    the other members of its cluster and ``b`` its smallest mean distance to another
    cluster, its coefficient is ``(b - a) / max(a, b)``; 0 for a sample alone in its cluster.
    Defined for 2 to ``n_samples - 1`` labels.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features), or (n_samples, n_samples)
        The embedding: dense float32 or float64 (C or F order), any numeric array-like, a
        pandas or polars frame, or a scipy sparse matrix (densified whole, ``n x d``); or the
        distances between samples (``metric="precomputed"``), zero on the diagonal.
    labels : array-like of shape (n_samples,), or of shape (m, n_samples), or a list of m labelings
        Any label type the metrics take. Several labelings are scored in one call: the
        result has one row each, each equal to the call on that labeling alone.
    metric : str or callable, default="euclidean"
        ``"euclidean"`` (``"l2"``), ``"sqeuclidean"``, ``"cosine"``, ``"manhattan"``
        (``"l1"``, ``"cityblock"``) and ``"precomputed"`` are computed by the core, without
        the ``n x n`` matrix. Any other of scikit-learn's metrics, or a callable, goes
        through scikit-learn's own function (not accelerated), as do extra ``**kwds``.
    missing : {"raise", "drop", "cluster"}, default="raise"
        As for every metric; ``"drop"`` leaves out the samples missing in any labeling, and
        their coefficient is NaN, so that the result lines up with the input.
    **kwds
        Passed to scikit-learn's distance function (scikit-learn then computes the result).

    Returns
    -------
    silhouette : ndarray of shape (n_samples,), or (m, n_samples) for several labelings
        In scikit-learn's dtype: float32 for float32 data under the Euclidean, cosine and
        precomputed metrics, else float64.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> fcm.silhouette_samples([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1]).round(4).tolist()
    [0.8182, 0.7778, 0.7778, 0.8182]
    """
    func = "silhouette_samples"
    _check_params(func, X, labels)
    _refuse_unknown_metric(func, metric, X, labels)
    prepared = _Prepared(func, X, labels, metric, missing, kwds)
    values = prepared.silhouettes(metric, kwds)
    keep = prepared.labelings.keep
    if keep is not None:
        out = np.full((values.shape[0], keep.shape[0]), np.nan, dtype=values.dtype)
        out[:, keep] = values
        values = out
    return values if prepared.labelings.many else values[0]


def _check_sample_size(sample_size: object) -> None:
    ok = sample_size is None or (isinstance(sample_size, Integral) and int(sample_size) >= 1)
    if not ok:
        raise InvalidParameterError(
            "The 'sample_size' parameter of silhouette_score must be an int in the range"
            f" [1, inf) or None. Got {sample_size!r} instead."
        )


def _check_seed(random_state: object) -> None:
    ok = (
        random_state is None
        or isinstance(random_state, np.random.RandomState)
        or (isinstance(random_state, Integral) and 0 <= int(random_state) <= 2**32 - 1)
    )
    if not ok:
        raise InvalidParameterError(
            "The 'random_state' parameter of silhouette_score must be an int in the range"
            " [0, 4294967295], an instance of 'numpy.random.mtrand.RandomState' or None."
            f" Got {random_state!r} instead."
        )


def silhouette_score(
    X: Any,
    labels: ArrayLike,
    *,
    metric: Any = "euclidean",
    sample_size: int | None = None,
    random_state: Any = None,
    missing: str = "raise",
    **kwds: Any,
) -> Any:
    """Compute the mean Silhouette Coefficient of all samples.

    Same as :func:`sklearn.metrics.silhouette_score`: the mean of
    :func:`silhouette_samples`. With ``sample_size``, the mean over that many samples drawn
    without replacement as scikit-learn draws them
    (``check_random_state(random_state).permutation(n_samples)[:sample_size]``), so the
    same ``random_state`` picks the same samples.

    Parameters
    ----------
    X, labels, metric, missing, **kwds
        As for :func:`silhouette_samples` (``missing="drop"``: the samples are drawn among
        those kept). Several labelings give one score each (all of them on the same drawn
        samples).
    sample_size : int, default=None
        The number of samples to draw; None: all of them.
    random_state : int, RandomState instance or None, default=None
        Draws the samples (NumPy's global RandomState when None).

    Returns
    -------
    silhouette : float, or ndarray of shape (m,) for several labelings

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> round(fcm.silhouette_score([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1]), 4)
    0.798
    """
    func = "silhouette_score"
    _check_params(func, X, labels)
    _refuse_unknown_metric(func, metric, X, labels)
    _check_sample_size(sample_size)
    _check_seed(random_state)
    prepared = _Prepared(func, X, labels, metric, missing, kwds, sampled=sample_size is not None)
    if sample_size is not None:
        rng = check_random_state(random_state)
        prepared.sample(rng.permutation(int(prepared.data.shape[0]))[:sample_size])
    values = prepared.silhouettes(metric, kwds)
    scores = [float(np.mean(row)) for row in values]
    return np.asarray(scores) if prepared.labelings.many else scores[0]
