"""The exact silhouette of a Dask array (``fastcluster_metrics.dask.silhouette_samples`` and
``silhouette_score``): each row block of ``X`` scored on a worker, against all samples.

Every worker's task reads the whole embedding (one task gathers it, once, and checks it as
the in-memory function does) and the labelings' codes (small: one integer a sample), and
computes the silhouettes of its rows alone with the core's kernel restricted to those rows
(``_native.silhouette_samples(..., rows=...)``). The kernel visits a row block's pairs of
blocks in the order and orientation the whole computation gives them, so each value equals
the single-machine one to the last bit; the work is that of the rows against all samples
(about twice the single machine's total, which computes each unordered pair once, spread
over the workers). Dask is imported when a function is first called.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .._labels.codes import check_missing
from .silhouette import _FLOAT32_RESULTS, FAST_METRICS
from .validation import check_features, check_labelings, check_number_of_labels

__all__ = ["silhouette_samples", "silhouette_score"]

_METRICS = ("euclidean", "sqeuclidean", "cosine", "manhattan")


def _dask() -> tuple[Any, Any]:
    """``dask`` and ``dask.array``, imported now (untyped: Any)."""
    import dask
    import dask.array as da

    return dask, da


def _in_memory(labels: Any) -> Any:
    """The labels as values: a Dask collection (or a list of them) computed."""
    dask, _ = _dask()
    if isinstance(labels, (list, tuple)) and any(dask.is_dask_collection(v) for v in labels):
        return list(dask.compute(*labels))
    if dask.is_dask_collection(labels):
        return labels.compute()
    return labels


def _whole(x: Any, keep: NDArray[np.bool_] | None) -> NDArray[np.floating[Any]]:
    """The whole embedding as the core reads it, checked (runs on a worker)."""
    data = check_features(x, sparse="densify")
    if keep is not None:
        data = np.ascontiguousarray(data[keep])
    return np.asarray(data)


def _rows(
    x: NDArray[np.floating[Any]],
    codes: NDArray[np.int64],
    n_labels: list[int],
    metric: str,
    kept: tuple[int, int],
    place: NDArray[np.bool_] | None,
    dtype: Any,
) -> NDArray[np.floating[Any]]:
    """The silhouettes of the kept samples ``kept`` (a row block), NaN where ``place`` marks
    a dropped sample (runs on a worker)."""
    # Arrays that arrive from another process can sit in a misaligned buffer.
    x, codes = (np.require(a, requirements=["C", "A"]) for a in (x, codes))
    values = _native.silhouette_samples(x, codes, n_labels, metric, rows=kept)
    values = values.astype(dtype, copy=False)
    if place is None:
        return values
    out = np.full((values.shape[0], place.shape[0]), np.nan, dtype=dtype)
    out[:, place] = values
    return out


class _Plan:
    """A Dask embedding and its labelings checked once, and the tasks of its row blocks."""

    def __init__(self, func: str, X: Any, labels: Any, metric: Any, missing: object) -> None:
        _, da = _dask()
        policy = check_missing(func, missing)
        name = FAST_METRICS.get(metric) if isinstance(metric, str) else None
        if name is None or name == "precomputed":
            raise ValueError(
                f"{func} of a Dask array computes the metrics {_METRICS} (and scikit-learn's"
                f" names 'l2', 'l1', 'cityblock' for them), not {metric!r}; for another,"
                " call fastcluster_metrics.silhouette_samples on the array in memory"
            )
        x = X if isinstance(X, da.Array) else da.asarray(X)
        if x.ndim != 2:
            raise ValueError(
                f"Expected 2D array, got {x.ndim}D array instead: X of shape {x.shape}"
            )
        if any(np.isnan(c) for c in x.chunks[0]):
            x = x.compute_chunk_sizes()
        self.metric = name
        self.x = x
        n = int(x.shape[0])
        self.labelings = check_labelings(_in_memory(labels), n, policy)
        keep = self.labelings.keep
        n_kept = n if keep is None else int(keep.sum())
        for k in self.labelings.n_labels:
            check_number_of_labels(k, n_kept)
        single = np.dtype(x.dtype) == np.float32 and name in _FLOAT32_RESULTS
        self.dtype = np.dtype(np.float32 if single else np.float64)

    def samples(self, *, padded: bool) -> Any:
        """The silhouettes as an ``(m, n)`` Dask array chunked as ``X``'s rows (``padded``:
        NaN for the dropped samples; else the kept samples alone)."""
        dask, da = _dask()
        lab = self.labelings
        keep = lab.keep
        whole = dask.delayed(_whole)(self.x, keep)
        codes = dask.delayed(lab.codes)
        ranks = None if keep is None else np.concatenate(([0], np.cumsum(keep)))
        m = lab.codes.shape[0]
        parts = []
        start = 0
        for size in self.x.chunks[0]:
            stop = start + int(size)
            kept = (start, stop) if ranks is None else (int(ranks[start]), int(ranks[stop]))
            place = keep[start:stop] if keep is not None and padded else None
            width = stop - start if keep is None or padded else kept[1] - kept[0]
            task = dask.delayed(_rows)(
                whole, codes, lab.n_labels, self.metric, kept, place, self.dtype
            )
            parts.append(da.from_delayed(task, shape=(m, width), dtype=self.dtype))
            start = stop
        return da.concatenate(parts, axis=1)


def silhouette_samples(
    X: Any, labels: Any, *, metric: str = "euclidean", missing: str = "raise"
) -> Any:
    """The Silhouette Coefficient of each sample of a Dask array, exactly as in memory.

    :func:`fastcluster_metrics.silhouette_samples` of ``X``'s row blocks, each on a worker
    against all samples: every value equals the in-memory function's, to the last bit.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        The embedding, chunked by rows (any chunking of the columns is gathered); any array
        ``dask.array.asarray`` takes.
    labels : array-like of shape (n_samples,), (m, n_samples), or a list of m labelings
        Any label type the metrics take, or a Dask array or Series (computed: one integer
        a sample is kept in memory and sent to every task).
    metric : {"euclidean", "sqeuclidean", "cosine", "manhattan"}, default="euclidean"
        Or scikit-learn's ``"l2"``, ``"l1"``, ``"cityblock"``.
    missing : {"raise", "drop", "cluster"}, default="raise"
        As for every metric; a dropped sample's coefficient is NaN.

    Returns
    -------
    silhouette : dask.array.Array of shape (n_samples,), or (m, n_samples)
        Chunked as ``X``'s rows, in scikit-learn's dtype (float32 for float32 data under the
        Euclidean and cosine metrics, else float64).

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> import fastcluster_metrics as fcm
    >>> import fastcluster_metrics.dask as fcm_dask
    >>> x = np.array([[0.0], [1.0], [5.0], [6.0], [0.5], [5.5]])
    >>> labels = [0, 0, 1, 1, 0, 1]
    >>> values = fcm_dask.silhouette_samples(da.from_array(x, chunks=(2, 1)), labels)
    >>> bool((values.compute() == fcm.silhouette_samples(x, labels)).all())
    True
    """
    plan = _Plan("silhouette_samples", X, labels, metric, missing)
    values = plan.samples(padded=True)
    return values if plan.labelings.many else values[0]


def silhouette_score(
    X: Any, labels: Any, *, metric: str = "euclidean", missing: str = "raise"
) -> Any:
    """The mean Silhouette Coefficient of a Dask array's samples, exactly as in memory.

    The mean of :func:`silhouette_samples` (computed now), as
    :func:`fastcluster_metrics.silhouette_score` takes it: the same value to the last bit.
    Drawing ``sample_size`` samples is the in-memory function's: a sample of a few thousand
    rows fits in memory.

    Parameters
    ----------
    X, labels, metric, missing
        As for :func:`silhouette_samples`.

    Returns
    -------
    silhouette : float, or ndarray of shape (m,) for several labelings

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> import fastcluster_metrics.dask as fcm_dask
    >>> x = da.from_array(np.array([[0.0], [1.0], [5.0], [6.0]]), chunks=(2, 1))
    >>> round(fcm_dask.silhouette_score(x, [0, 0, 1, 1]), 4)
    0.798
    """
    plan = _Plan("silhouette_score", X, labels, metric, missing)
    values = np.asarray(plan.samples(padded=False).compute())
    scores = [float(np.mean(row)) for row in values]
    return np.asarray(scores) if plan.labelings.many else scores[0]
