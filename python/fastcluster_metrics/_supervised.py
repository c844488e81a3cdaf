"""scikit-learn's supervised cluster metrics, each computed from one contingency table.

The table is built by one Rust pass over the labels (``_labels.count``); the
pair-counting scores finish in exact Python integers, the information scores in
Rust. Degenerate cases return what scikit-learn 1.9 returns.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from . import _native
from ._labels import _special, check_missing, count, count_columns, count_one, ordered_cells
from ._params import (
    InvalidParameterError,
    check_array_like,
    check_average_method,
    check_beta,
    check_bool,
    check_eps,
    is_array_like,
)

__all__ = [
    "adjusted_mutual_info_score",
    "adjusted_rand_score",
    "completeness_score",
    "contingency_matrix",
    "entropy",
    "fowlkes_mallows_score",
    "homogeneity_completeness_v_measure",
    "homogeneity_score",
    "mutual_info_score",
    "normalized_mutual_info_score",
    "pair_confusion_matrix",
    "purity_score",
    "rand_score",
    "v_measure_score",
]

_EPS = float(np.finfo(np.float64).eps)
_INT64_MAX = 2**63 - 1


def _table(func: str, labels_true: Any, labels_pred: Any, missing: str) -> _native.Table:
    check_array_like(func, labels_true=labels_true, labels_pred=labels_pred)
    return count(labels_true, labels_pred, missing=check_missing(func, missing), cells=False)


def _scipy_sparse() -> Any:
    try:
        import scipy.sparse
    except ImportError as e:  # pragma: no cover - scipy is installed with the test extras
        raise ImportError(
            "sparse contingency matrices need scipy: pip install 'fastcluster-metrics[sparse]'"
        ) from e
    return scipy.sparse


def _physical_memory() -> int | None:
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None


def _check_dense_fits(shape: tuple[int, int], dtype: np.dtype[Any]) -> None:
    """Refuses, before allocating, a dense table larger than the machine's memory."""
    need = shape[0] * shape[1] * dtype.itemsize
    have = _physical_memory()
    if have is not None and need > have:
        raise MemoryError(
            f"a dense {shape[0]} x {shape[1]} contingency matrix of {dtype} needs"
            f" {need / 2**30:.1f} GiB, more than this machine's {have / 2**30:.1f} GiB of"
            " memory; use sparse=True"
        )


def _csr(
    shape: tuple[int, int],
    rows: NDArray[Any],
    cols: NDArray[Any],
    counts: NDArray[Any],
    dtype: DTypeLike,
) -> Any:
    return _scipy_sparse().csr_matrix((counts.astype(dtype), (rows, cols)), shape=shape)


def contingency_matrix(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    eps: float | None = None,
    sparse: bool = False,
    dtype: DTypeLike = np.int64,
    missing: str = "raise",
) -> Any:
    """Build a contingency matrix describing the relationship between labels.

    Same as :func:`sklearn.metrics.cluster.contingency_matrix`: entry ``[i, j]``
    counts the samples in true class ``i`` and predicted cluster ``j``, classes
    and clusters in sorted label order.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground truth class labels to be used as a reference.
    labels_pred : array-like of shape (n_samples,)
        Cluster labels to evaluate.
    eps : float, default=None
        If a float, that value is added to all values in the contingency
        matrix. This helps to stop NaN propagation. If ``None``, nothing is
        adjusted.
    sparse : bool, default=False
        If `True`, return a sparse CSR continency matrix (needs scipy). If
        `eps` is not `None` and `sparse` is `True` will raise ValueError.
    dtype : numeric type, default=np.int64
        Output dtype. Ignored if `eps` is not `None`.

    Returns
    -------
    contingency : {array-like, sparse}, shape=[n_classes_true, n_classes_pred]

    Notes
    -----
    Unlike scikit-learn, 2-D label arrays are refused (scikit-learn flattens them).

    Examples
    --------
    >>> from fastcluster_metrics import contingency_matrix
    >>> contingency_matrix([1, 1, 2, 2], [1, 2, 2, 2]).tolist()
    [[1, 1], [0, 2]]
    """
    func = "contingency_matrix"
    check_array_like(func, allow_none=True, labels_true=labels_true, labels_pred=labels_pred)
    check_eps(func, eps)
    check_bool(func, "sparse", sparse)
    if eps is not None and sparse:
        raise ValueError("Cannot set 'eps' when sparse=True")
    missing = check_missing(func, missing)
    # scikit-learn's contingency_matrix does not warn about continuous labels.
    table, true, pred = count_columns(labels_true, labels_pred, missing=missing, warn=False)
    rows, cols, counts, _, _ = ordered_cells(table, true, pred)
    if sparse:
        return _csr(table.shape, rows, cols, counts, dtype)
    _check_dense_fits(table.shape, np.dtype(dtype) if eps is None else np.dtype(np.float64))
    out = np.zeros(table.shape, dtype=dtype)
    out[rows, cols] = counts
    if eps is not None:
        out = out + eps
    return out


def _pair_confusion(table: _native.Table) -> tuple[int, int, int, int]:
    """(tn, fp, fn, tp) over ordered pairs of distinct samples, as exact integers."""
    n, cells_sq, rows_sq, cols_sq = table.pair_sums()
    tp = cells_sq - n
    fp = cols_sq - cells_sq
    fn = rows_sq - cells_sq
    tn = n * n - fp - fn - cells_sq
    return tn, fp, fn, tp


def pair_confusion_matrix(
    labels_true: ArrayLike, labels_pred: ArrayLike, *, missing: str = "raise"
) -> NDArray[Any]:
    """Pair confusion matrix arising from two clusterings.

    Same as :func:`sklearn.metrics.cluster.pair_confusion_matrix`: ``C[0, 0]``
    true negatives, ``C[1, 0]`` false negatives, ``C[1, 1]`` true positives and
    ``C[0, 1]`` false positives, counted over ordered pairs of distinct samples.

    The counts are exact: scikit-learn computes ``n_samples**2`` in int64,
    which overflows above about 3.04e9 samples. Here the matrix is int64 while
    its entries fit, and an object array of Python ints beyond that.

    Examples
    --------
    >>> from fastcluster_metrics import pair_confusion_matrix
    >>> pair_confusion_matrix([0, 0, 1, 2], [0, 0, 1, 1]).tolist()
    [[8, 2], [0, 2]]
    """
    return _pair_confusion_matrix(
        _table("pair_confusion_matrix", labels_true, labels_pred, missing)
    )


def _pair_confusion_matrix(table: _native.Table) -> NDArray[Any]:
    """The 2x2 matrix: int64 while its entries fit, an object array of Python ints beyond."""
    tn, fp, fn, tp = _pair_confusion(table)
    dtype = np.int64 if max(tn, fp, fn, tp) <= _INT64_MAX else object
    return np.array([[tn, fp], [fn, tp]], dtype=dtype)


def _rand(table: _native.Table) -> float:
    tn, fp, fn, tp = _pair_confusion(table)
    numerator, denominator = tn + tp, tn + fp + fn + tp
    if numerator == denominator or denominator == 0:
        return 1.0
    return numerator / denominator


def rand_score(labels_true: ArrayLike, labels_pred: ArrayLike, *, missing: str = "raise") -> float:
    """Rand index: the share of sample pairs on which two clusterings agree.

    Same as :func:`sklearn.metrics.rand_score`; 1.0 for fewer than two samples.
    The ratio of exact pair counts is rounded once (scikit-learn rounds both
    counts to float first, which differs in the last bit above ~9.5e7 samples).

    Examples
    --------
    >>> from fastcluster_metrics import rand_score
    >>> rand_score([0, 0, 1, 2], [0, 0, 1, 1])
    0.8333333333333334
    """
    return _rand(_table("rand_score", labels_true, labels_pred, missing))


def _ari(table: _native.Table) -> float:
    tn, fp, fn, tp = _pair_confusion(table)
    if fn == 0 and fp == 0:
        return 1.0
    # One correctly rounded division of exact integers.
    return 2 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def adjusted_rand_score(
    labels_true: ArrayLike, labels_pred: ArrayLike, *, missing: str = "raise"
) -> float:
    """Rand index adjusted for chance (Hubert and Arabie, 1985).

    Same as :func:`sklearn.metrics.adjusted_rand_score`: 1.0 for identical
    partitions (up to label names), close to 0.0 for random ones, bounded below
    by -0.5. Computed from exact integer pair counts with a single rounding, so
    it neither overflows nor loses precision at any n.

    Examples
    --------
    >>> from fastcluster_metrics import adjusted_rand_score
    >>> adjusted_rand_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> adjusted_rand_score([0, 0, 1, 2], [0, 0, 1, 1])
    0.5714285714285714
    """
    return _ari(_table("adjusted_rand_score", labels_true, labels_pred, missing))


def _hcv(table: _native.Table, beta: float) -> tuple[float, float, float]:
    if table.n == 0:
        return 1.0, 1.0, 1.0
    entropy_c = table.entropy_rows()
    entropy_k = table.entropy_cols()
    mi = table.mutual_info()
    homogeneity = mi / entropy_c if entropy_c else 1.0
    completeness = mi / entropy_k if entropy_k else 1.0
    if homogeneity + completeness == 0.0:
        v_measure = 0.0
    elif beta * homogeneity + completeness == 0.0:
        # beta = 0 and completeness = 0: V_0 is homogeneity for every completeness > 0, so its
        # limit (scikit-learn raises ZeroDivisionError here).
        v_measure = homogeneity
    else:
        v_measure = (1 + beta) * homogeneity * completeness / (beta * homogeneity + completeness)
    return float(homogeneity), float(completeness), float(v_measure)


def homogeneity_completeness_v_measure(
    labels_true: ArrayLike, labels_pred: ArrayLike, *, beta: float = 1.0, missing: str = "raise"
) -> tuple[float, float, float]:
    """Homogeneity, completeness and V-measure (Rosenberg and Hirschberg, 2007) at once.

    Same as :func:`sklearn.metrics.homogeneity_completeness_v_measure`.
    V-measure is ``(1 + beta) * h * c / (beta * h + c)``.

    Examples
    --------
    >>> from fastcluster_metrics import homogeneity_completeness_v_measure
    >>> homogeneity_completeness_v_measure([0, 0, 1, 1], [0, 0, 1, 2])
    (0.9999999999999999, 0.6666666666666666, 0.7999999999999999)
    """
    func = "homogeneity_completeness_v_measure"
    beta = check_beta(func, beta)
    return _hcv(_table(func, labels_true, labels_pred, missing), beta)


def homogeneity_score(
    labels_true: ArrayLike, labels_pred: ArrayLike, *, missing: str = "raise"
) -> float:
    """Homogeneity: each cluster contains only members of a single class.

    Same as :func:`sklearn.metrics.homogeneity_score` (1.0 when the classes
    have zero entropy).

    Examples
    --------
    >>> from fastcluster_metrics import homogeneity_score
    >>> homogeneity_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return _hcv(_table("homogeneity_score", labels_true, labels_pred, missing), 1.0)[0]


def completeness_score(
    labels_true: ArrayLike, labels_pred: ArrayLike, *, missing: str = "raise"
) -> float:
    """Completeness: all members of a given class are assigned to the same cluster.

    Same as :func:`sklearn.metrics.completeness_score`.

    Examples
    --------
    >>> from fastcluster_metrics import completeness_score
    >>> completeness_score([0, 0, 1, 1], [0, 0, 0, 0])
    1.0
    """
    return _hcv(_table("completeness_score", labels_true, labels_pred, missing), 1.0)[1]


def v_measure_score(
    labels_true: ArrayLike, labels_pred: ArrayLike, *, beta: float = 1.0, missing: str = "raise"
) -> float:
    """V-measure: the weighted harmonic mean of homogeneity and completeness.

    Same as :func:`sklearn.metrics.v_measure_score`; equal to
    ``normalized_mutual_info_score`` with the arithmetic average when beta = 1.

    Examples
    --------
    >>> from fastcluster_metrics import v_measure_score
    >>> v_measure_score([0, 0, 1, 1], [0, 0, 1, 1])
    1.0
    """
    func = "v_measure_score"
    beta = check_beta(func, beta)
    return _hcv(_table(func, labels_true, labels_pred, missing), beta)[2]


_INT64_LIMIT = 2**63
_SAMPLES_LIMIT = 2**64  # the core counts samples in u64
_SIDE_LIMIT = 2**32 - 2  # the core indexes rows and columns in u32


def _not_2d(arr: NDArray[Any], strict: bool) -> ValueError:
    if strict:
        return ValueError(f"a contingency table is 2-D; got shape {arr.shape}")
    if arr.ndim > 2:
        return ValueError(f"Found array with dim {arr.ndim}, while dim <= 2 is required.")
    return ValueError(
        f"Expected 2D array, got {'scalar' if arr.ndim == 0 else '1D'} array instead:"
        f"\narray={arr}.\n"
        "Reshape your data either using array.reshape(-1, 1) if your data has a single"
        " feature or array.reshape(1, -1) if it contains a single sample."
    )


def _int64_counts(values: NDArray[Any], strict: bool, shown: Any) -> NDArray[np.int64]:
    """A given table's counts as int64, refusing what is not a count.

    ``strict`` (the :class:`Contingency` constructor) takes whole numbers only;
    otherwise (``mutual_info_score(contingency=...)``) the counts are cast to
    integers as scikit-learn's ``check_array(dtype=int)`` casts them."""
    kind = values.dtype.kind
    if kind == "c" and not strict:
        raise ValueError(f"Complex data not supported\n{shown}\n")
    if kind not in "iubf":
        if strict:
            raise TypeError(f"contingency counts must be numbers, not {values.dtype}")
        try:
            values = values.astype(np.int64)
        except OverflowError as e:
            raise ValueError(f"contingency counts must fit in int64: {e}") from e
        except (TypeError, ValueError) as e:
            raise type(e)(f"contingency counts must be integers: {e}") from e
        kind = "i"
    if kind == "f":
        if np.isnan(values).any():
            raise ValueError(
                "contingency counts must be finite; got NaN" if strict else "Input contains NaN."
            )
        if np.isinf(values).any():
            raise ValueError(
                "contingency counts must be finite; got inf"
                if strict
                else "Input contains infinity or a value too large for dtype('int64')."
            )
        if strict and not (values == np.trunc(values)).all():
            raise ValueError("contingency counts must be whole numbers")
    # The largest count as a Python number: comparing a float16 array with 2**63 would overflow.
    top = (float if kind == "f" else int)(values.max()) if values.size and kind in "uf" else 0
    if top >= _INT64_LIMIT:
        raise ValueError(f"a contingency count of {top} does not fit in int64 (2**63 or more)")
    if values.size and kind in "if" and values.min() < 0:
        raise ValueError("a contingency table cannot hold negative counts")
    counts: NDArray[np.int64] = values.astype(np.int64)
    return counts


def _exact_total(counts: NDArray[np.int64]) -> int:
    """The sum of non-negative int64 counts as an exact Python int (no int64 overflow)."""
    high = int((counts >> 32).sum())  # each term < 2**31: the sum fits in int64
    low = int((counts & 0xFFFFFFFF).sum())
    return (high << 32) + low


def _check_table_fits(shape: tuple[int, int]) -> None:
    """Refuses, before the core allocates them, row and column sums the machine cannot hold."""
    if max(shape) > _SIDE_LIMIT:
        raise ValueError(
            f"a {shape[0]} x {shape[1]} contingency table has more than 2**32 - 2 rows or columns"
        )
    need = 16 * (shape[0] + shape[1])  # u64 row and column sums, and their int64 copies
    have = _physical_memory()
    if have is not None and need > have:
        raise MemoryError(
            f"the row and column sums of a {shape[0]} x {shape[1]} contingency table need"
            f" {need / 2**30:.1f} GiB, more than this machine's {have / 2**30:.1f} GiB of memory"
        )


def _given_table(contingency: Any, *, strict: bool) -> _native.Table:
    """A table from a user's contingency matrix (dense array-like or scipy sparse).

    Refuses (ValueError or TypeError, before anything is allocated) what is not
    a table of counts: not 2-D, NaN or infinite, negative, beyond int64, summing
    to 2**64 samples or more; with ``strict``, also non-integral or non-numeric
    counts (otherwise these are cast to integers, as scikit-learn does)."""
    if hasattr(contingency, "tocoo") and hasattr(contingency, "nnz"):
        coo = contingency.tocoo()
        shape = (int(coo.shape[0]), int(coo.shape[1]))
        rows, cols = np.asarray(coo.row), np.asarray(coo.col)
        counts = _int64_counts(np.asarray(coo.data), strict, contingency)
    else:
        arr = np.asarray(contingency)
        if arr.ndim != 2:
            raise _not_2d(arr, strict)
        shape = (int(arr.shape[0]), int(arr.shape[1]))
        dense = _int64_counts(arr, strict, arr)
        rows, cols = np.nonzero(dense)
        counts = dense[rows, cols]
    _check_table_fits(shape)
    total = _exact_total(counts)
    if total >= _SAMPLES_LIMIT:
        raise ValueError(
            f"the contingency counts sum to {total} samples; at most 2**64 - 1 are supported"
        )
    return _native.table_from_cells(
        shape[0],
        shape[1],
        np.ascontiguousarray(rows, dtype=np.int64),
        np.ascontiguousarray(cols, dtype=np.int64),
        np.ascontiguousarray(counts, dtype=np.int64),
    )


def _contingency_table(contingency: Any) -> _native.Table:
    """A table from the ``contingency`` of ``mutual_info_score`` (counts cast to int)."""
    shape = getattr(contingency, "shape", None) or np.shape(contingency)
    if len(shape) == 2 and min(shape) == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={tuple(shape)}) while a minimum of 1 is required."
        )
    return _given_table(contingency, strict=False)


def _mi(table: _native.Table) -> float:
    rows, cols = table.shape
    if rows == 1 or cols == 1:
        return 0.0
    if table.n == 0:
        raise ValueError("mutual information is undefined for an empty contingency table")
    return table.mutual_info()


def mutual_info_score(
    labels_true: ArrayLike | None,
    labels_pred: ArrayLike | None,
    *,
    contingency: Any = None,
    missing: str = "raise",
) -> float:
    """Mutual information between two clusterings, in nats.

    Same as :func:`sklearn.metrics.mutual_info_score`. With ``contingency``
    (a dense array or scipy sparse matrix; counts cast to integers), the labels
    are ignored.

    Unlike scikit-learn, an empty labeling (or an all-zero table) raises a
    ValueError that says so (scikit-learn's is "math domain error"), and a
    negative count raises instead of returning NaN.

    Examples
    --------
    >>> from fastcluster_metrics import mutual_info_score
    >>> round(mutual_info_score([0, 0, 1, 1], [0, 0, 1, 1]), 6)
    0.693147
    """
    func = "mutual_info_score"
    if contingency is None:
        check_array_like(func, allow_none=True, labels_true=labels_true, labels_pred=labels_pred)
        table = count(labels_true, labels_pred, missing=check_missing(func, missing), cells=False)
    else:
        if not (is_array_like(contingency) or hasattr(contingency, "tocoo")):
            raise InvalidParameterError(
                f"The 'contingency' parameter of {func} must be an array-like, a sparse array"
                f" or matrix or None. Got {contingency!r} instead."
            )
        table = _contingency_table(contingency)
    return _mi(table)


def _generalized_average(u: float, v: float, average_method: str) -> float:
    if average_method == "min":
        return min(u, v)
    if average_method == "geometric":
        return math.sqrt(u * v)
    if average_method == "arithmetic":
        return (u + v) / 2
    return max(u, v)


def _nmi(table: _native.Table, average_method: str) -> float:
    classes, clusters = table.shape
    if classes == clusters == 1 or classes == clusters == 0:
        return 1.0
    mi = table.mutual_info()
    if mi == 0:
        return 0.0
    normalizer = _generalized_average(table.entropy_rows(), table.entropy_cols(), average_method)
    return float(mi / normalizer)


def normalized_mutual_info_score(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    average_method: str = "arithmetic",
    missing: str = "raise",
) -> float:
    """Normalized Mutual Information between two clusterings.

    Same as :func:`sklearn.metrics.normalized_mutual_info_score`: MI divided by
    the ``average_method`` ('min', 'geometric', 'arithmetic' or 'max') of the
    two entropies; 1.0 when both labelings are a single cluster (or empty).

    Examples
    --------
    >>> from fastcluster_metrics import normalized_mutual_info_score
    >>> normalized_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    func = "normalized_mutual_info_score"
    average_method = check_average_method(func, average_method)
    return _nmi(_table(func, labels_true, labels_pred, missing), average_method)


def _ami(table: _native.Table, average_method: str) -> float:
    classes, clusters = table.shape
    if classes == clusters == 1 or classes == clusters == 0:
        return 1.0
    if classes == 1 or clusters == 1:
        return 0.0
    mi, emi, h_true, h_pred = table.ami_parts()
    normalizer = _generalized_average(h_true, h_pred, average_method)
    denominator = normalizer - emi
    # As scikit-learn: keep the sign, but never divide by (or return) less than eps in size.
    denominator = min(denominator, -_EPS) if denominator < 0 else max(denominator, _EPS)
    numerator = mi - emi
    numerator = min(numerator, -_EPS) if numerator < 0 else max(numerator, _EPS)
    return float(numerator / denominator)


def adjusted_mutual_info_score(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    average_method: str = "arithmetic",
    missing: str = "raise",
) -> float:
    """Adjusted Mutual Information between two clusterings (Vinh, Epps and Bailey, 2010).

    Same as :func:`sklearn.metrics.adjusted_mutual_info_score`:
    ``(MI - E[MI]) / (avg(H(U), H(V)) - E[MI])``.

    The expected mutual information sums each distinct (class size, cluster
    size) pair once, from the mode of its hypergeometric distribution outward,
    stopping where a tail bound shows the rest is below double precision: the
    same value as scikit-learn's full sum (to ~1e-12), in a small fraction of
    the time.

    Examples
    --------
    >>> from fastcluster_metrics import adjusted_mutual_info_score
    >>> adjusted_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    func = "adjusted_mutual_info_score"
    average_method = check_average_method(func, average_method)
    return _ami(_table(func, labels_true, labels_pred, missing), average_method)


def _fowlkes_mallows(table: _native.Table) -> float:
    n, cells_sq, rows_sq, cols_sq = table.pair_sums()
    tk = cells_sq - n
    pk = cols_sq - n
    qk = rows_sq - n
    return math.sqrt(tk / pk) * math.sqrt(tk / qk) if tk != 0 else 0.0


def fowlkes_mallows_score(
    labels_true: ArrayLike, labels_pred: ArrayLike, *, missing: str = "raise"
) -> float:
    """Fowlkes-Mallows index: the geometric mean of pairwise precision and recall.

    Same as :func:`sklearn.metrics.fowlkes_mallows_score`, from exact pair
    counts (0.0 when no pair shares both a class and a cluster).

    Examples
    --------
    >>> from fastcluster_metrics import fowlkes_mallows_score
    >>> fowlkes_mallows_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return _fowlkes_mallows(_table("fowlkes_mallows_score", labels_true, labels_pred, missing))


def entropy(labels: ArrayLike, *, missing: str = "raise") -> float:
    """Entropy of a labeling, in nats (1.0 for an empty labeling, as scikit-learn).

    Same as scikit-learn's ``entropy`` (deprecated there since 1.8; kept here).

    Examples
    --------
    >>> from fastcluster_metrics import entropy
    >>> round(entropy([0, 0, 1, 1]), 6)
    0.693147
    """
    check_array_like("entropy", labels=labels)
    missing = check_missing("entropy", missing)
    if not _special(labels):
        labels = np.asarray(labels)  # as count_one makes it (no copy of an array)
        if labels.ndim != 1:
            raise ValueError(f"labels must be 1D: shape is {labels.shape!r}")
    return count_one(labels, missing=missing).entropy_rows()


def purity_score(
    labels_true: ArrayLike, labels_pred: ArrayLike, *, missing: str = "raise"
) -> float:
    """Purity: the share of samples that belong to the majority class of their cluster.

    ``(1/n) * sum_j max_i n_ij`` with rows the true classes and columns the
    predicted clusters. Not symmetric: splitting every sample into its own
    cluster gives 1.0. Defined as 1.0 for an empty labeling.

    Examples
    --------
    >>> from fastcluster_metrics import purity_score
    >>> purity_score([0, 0, 1, 1, 1, 2], [0, 0, 0, 1, 1, 1])
    0.6666666666666666
    """
    return _table("purity_score", labels_true, labels_pred, missing).purity()
