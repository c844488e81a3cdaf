"""scIB's silhouette scores of an integrated embedding, with scib-metrics' names, arguments
and definitions (its 0.5 line): ``silhouette_label``, ``silhouette_batch``, ``bras`` and
``isolated_labels``.

Each runs on the core's silhouette kernel (:mod:`.silhouette`'s), in float64 sums where
scib-metrics computes in float32 on JAX; the batch scores score each cell type's cells on
their own, gathered one type at a time (one copy of the largest type's rows above ``X``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .._utils.params import InvalidParameterError
from .validation import check_features, check_labelings

__all__ = ["bras", "isolated_labels", "silhouette_batch", "silhouette_label"]

_METRICS = ("euclidean", "sqeuclidean", "cosine", "manhattan")
_BETWEEN = ("nearest", "mean_other", "furthest")


def _check_choices(func: str, metric: object, between: object = "nearest") -> None:
    if metric not in _METRICS:
        raise InvalidParameterError(
            f"The 'metric' parameter of {func} must be one of {list(_METRICS)}. Got {metric!r}"
            " instead."
        )
    if between not in _BETWEEN:
        # scib-metrics' message.
        raise ValueError(
            "Parameter 'between_cluster_distances' must be one of ['nearest', 'mean_other',"
            " 'furthest']."
        )


def _embedding(x: Any) -> NDArray[np.floating[Any]]:
    """``X`` checked (finite, 2-D, float32 or float64) and C-contiguous for the core."""
    return np.ascontiguousarray(check_features(x, sparse="densify"))


def _codes(labels: Any, n: int) -> tuple[NDArray[np.int64], int]:
    """One labeling of ``n`` cells as codes ``0..k-1`` (any label type), and ``k``."""
    found = check_labelings(labels, n, "raise")
    if found.many:
        raise ValueError("one labeling of the cells is expected, not several")
    return np.ascontiguousarray(found.codes[0]), int(found.n_labels[0])


def _silhouettes(
    x: NDArray[np.floating[Any]], codes: NDArray[np.int64], k: int, metric: str, between: str
) -> NDArray[np.float64]:
    one = np.ascontiguousarray(codes[np.newaxis])
    values: NDArray[np.float64] = _native.silhouette_samples(x, one, [k], metric, between)[0]
    return values


def silhouette_label(
    X: Any,
    labels: Any,
    rescale: bool = True,
    chunk_size: int = 256,
    metric: str = "euclidean",
) -> float:
    """Average silhouette width (ASW) of the cell-type labels (Luecken et al. 2022).

    As scib-metrics' ``silhouette_label``: the mean of :func:`silhouette_samples` of
    ``labels``, rescaled to ``(ASW + 1) / 2`` in [0, 1]. A single label scores 0 before
    rescaling (as scib-metrics', where scikit-learn raises).

    Parameters
    ----------
    X
        Array of shape (n_cells, n_features): the embedding (float32 or float64).
    labels
        Array of shape (n_cells,): any label type of the package.
    rescale
        Scale the ASW into [0, 1].
    chunk_size
        Accepted for scib-metrics' signature; the core picks its own blocks.
    metric
        ``"euclidean"`` (scIB's), ``"cosine"``, and also ``"sqeuclidean"``, ``"manhattan"``.

    Returns
    -------
    float
        Computed with float64 sums: scib-metrics (float32 on JAX) agrees to about 1e-7
        relative on float32 data.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> round(fcm.silhouette_label([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1]), 4)
    0.899
    """
    _check_choices("silhouette_label", metric)
    x = _embedding(X)
    codes, k = _codes(labels, x.shape[0])
    asw = float(np.mean(_silhouettes(x, codes, k, metric, "nearest")))
    return (asw + 1) / 2 if rescale else asw


def silhouette_batch(
    X: Any,
    labels: Any,
    batch: Any,
    rescale: bool = True,
    chunk_size: int = 256,
    metric: str = "euclidean",
    between_cluster_distances: str = "nearest",
) -> float:
    """Average silhouette width of the batches within each cell type (Luecken et al. 2022).

    As scib-metrics' ``silhouette_batch``: for each label whose cells come from more than one
    batch and from fewer batches than cells, the silhouettes of its cells with their batches
    as clusters (computed on that label's cells alone), as ``1 - |s|`` when ``rescale``
    (else ``|s|``); their mean per label, and the mean over those labels. With
    ``rescale``, 1 is a perfect mix of batches.

    Parameters
    ----------
    X
        Array of shape (n_cells, n_features): the embedding.
    labels, batch
        Arrays of shape (n_cells,): cell types and batches, any label type of the package.
    rescale
        Score ``1 - |s|`` (higher is better) rather than ``|s|``.
    chunk_size
        Accepted for scib-metrics' signature; the core picks its own blocks.
    metric
        ``"euclidean"`` (scIB's), ``"cosine"``, ``"sqeuclidean"`` or ``"manhattan"``.
    between_cluster_distances
        How a cell's distance to the other batches is taken: ``"nearest"`` (the
        silhouette's), ``"mean_other"`` (the mean distance to every cell of another batch) or
        ``"furthest"`` (the greatest mean distance to another batch), as scib-metrics'.

    Raises
    ------
    ValueError
        When no label qualifies (scib-metrics fails there in ``pandas.concat``).

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> x = [[0.0], [0.1], [1.0], [1.1], [5.0], [5.1]]
    >>> round(fcm.silhouette_batch(x, [0, 0, 0, 0, 1, 1], [0, 1, 0, 1, 0, 1]), 4)
    0.55
    """
    func = "silhouette_batch"
    _check_choices(func, metric, between_cluster_distances)
    x = _embedding(X)
    n = x.shape[0]
    label_codes, k = _codes(labels, n)
    batch_codes, n_batches = _codes(batch, n)
    # The cells of each label, label by label: one stable sort, no mask per label.
    order = np.argsort(label_codes, kind="stable")
    ends = np.cumsum(np.bincount(label_codes, minlength=k))
    means = []
    for start, end in zip(ends - np.bincount(label_codes, minlength=k), ends, strict=True):
        rows = order[start:end]
        present = np.bincount(batch_codes[rows], minlength=n_batches) > 0
        kept = int(present.sum())
        if kept == 1 or kept == rows.size:
            continue
        codes = (np.cumsum(present) - 1)[batch_codes[rows]]
        sub = np.ascontiguousarray(x[rows])
        s = np.abs(_silhouettes(sub, codes, kept, metric, between_cluster_distances))
        means.append(float(np.mean(1 - s if rescale else s)))
    if not means:
        raise ValueError(
            f"{func}: no label has cells of more than one batch and fewer batches than"
            " cells, so no batch silhouette is defined"
        )
    return float(np.mean(means))


def bras(
    X: Any,
    labels: Any,
    batch: Any,
    chunk_size: int = 256,
    metric: str = "cosine",
    between_cluster_distances: str = "mean_other",
) -> float:
    """Batch removal adapted silhouette, BRAS (Rautenstrauch and Ohler 2025).

    As scib-metrics' ``bras``: :func:`silhouette_batch`, rescaled, under the cosine distance
    and with each cell's distance to the other batches taken as its mean distance to every
    cell of another batch (``"mean_other"``), or to the furthest batch (``"furthest"``).
    Higher is a better mix of batches. The cosine distance runs in O(n·k·d) (from each
    batch's sum of unit vectors), not over every pair.

    Parameters
    ----------
    X, labels, batch, chunk_size, metric, between_cluster_distances
        As for :func:`silhouette_batch`.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> x = [[1.0, 0.0], [0.9, 0.1], [1.0, 0.1], [0.9, 0.0], [0.0, 1.0], [0.1, 1.0]]
    >>> round(fcm.bras(x, [0, 0, 0, 0, 1, 1], [0, 1, 0, 1, 0, 1]), 4)
    0.5082
    """
    return silhouette_batch(X, labels, batch, True, chunk_size, metric, between_cluster_distances)


def _isolated(
    label_codes: NDArray[np.int64],
    k: int,
    batch_codes: NDArray[np.int64],
    n_batches: int,
    iso_threshold: int | None,
) -> NDArray[np.int64]:
    """The labels found in at most ``iso_threshold`` batches (by default, in as few batches
    as any label is)."""
    pairs = np.unique(label_codes * n_batches + batch_codes)
    batches_per_label = np.bincount(pairs // n_batches, minlength=k)
    threshold = int(batches_per_label.min()) if iso_threshold is None else iso_threshold
    return np.flatnonzero(batches_per_label <= threshold)


def isolated_labels(
    X: Any,
    labels: Any,
    batch: Any,
    rescale: bool = True,
    iso_threshold: int | None = None,
) -> float:
    """Isolated label score, by the silhouette (Luecken et al. 2022).

    As scib-metrics' ``isolated_labels``: the labels present in the fewest batches (at most
    ``iso_threshold`` batches when given) are the isolated ones; each scores the mean
    silhouette of its cells in the silhouette of all cells by label (rescaled to
    ``(s + 1) / 2``), and the score is the mean over the isolated labels. NaN when no label
    is isolated (a threshold below every label's number of batches), as scib-metrics'.

    Parameters
    ----------
    X
        Array of shape (n_cells, n_features): the embedding (Euclidean distances).
    labels, batch
        Arrays of shape (n_cells,): cell types and batches, any label type of the package.
    rescale
        Scale the silhouettes into [0, 1].
    iso_threshold
        The most batches an isolated label is found in; None: the fewest of any label.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> x = [[0.0], [0.1], [1.0], [1.1], [5.0], [5.1]]
    >>> round(fcm.isolated_labels(x, [0, 0, 0, 0, 1, 1], [0, 1, 0, 1, 0, 0]), 4)
    0.9889
    """
    x = _embedding(X)
    n = x.shape[0]
    label_codes, k = _codes(labels, n)
    batch_codes, n_batches = _codes(batch, n)
    isolated = _isolated(label_codes, k, batch_codes, n_batches, iso_threshold)
    if isolated.size == 0:
        return float("nan")
    s = _silhouettes(x, label_codes, k, "euclidean", "nearest")
    if rescale:
        s = (s + 1) / 2
    sums = np.bincount(label_codes, weights=s, minlength=k)
    sizes = np.bincount(label_codes, minlength=k)
    return float(np.mean(sums[isolated] / sizes[isolated]))
