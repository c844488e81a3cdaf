"""scikit-learn's two matrices of a pair of labelings: the contingency matrix and the pair
confusion matrix, each from one contingency table (``_table/count.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from .._labels.weights import with_weights_doc
from .._table import given
from .._table.count import count_labels, ordered_cells
from .._utils.params import check_bool, check_eps
from . import scores as sc
from .supervised import ClassWeight

__all__ = ["contingency_matrix", "pair_confusion_matrix"]


def contingency_matrix(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    eps: float | None = None,
    sparse: bool = False,
    dtype: DTypeLike = np.int64,
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
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
    check_eps(func, eps)
    check_bool(func, "sparse", sparse)
    if eps is not None and sparse:
        raise ValueError("Cannot set 'eps' when sparse=True")
    # scikit-learn's contingency_matrix does not warn about continuous labels.
    table, true, pred = count_labels(
        func,
        labels_true,
        labels_pred,
        missing,
        warn=False,
        allow_none=True,
        sample_weight=sample_weight,
        class_weight=class_weight,
    )
    rows, cols, counts, _, _ = ordered_cells(table, true, pred)
    if counts.dtype.kind == "f" and np.dtype(dtype).kind in "iub":
        # Real cells (weights that are not whole): an integer dtype would truncate them.
        dtype = np.float64
    if sparse:
        return given.csr(table.shape, rows, cols, counts, dtype)
    given.check_dense_fits(table.shape, np.dtype(dtype) if eps is None else np.dtype(np.float64))
    out = np.zeros(table.shape, dtype=dtype)
    out[rows, cols] = counts
    if eps is not None:
        out = out + eps
    return out


def pair_confusion_matrix(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
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
    # The margins and sums of squares are all it reads: a wide table's cells are not kept.
    table = count_labels(
        "pair_confusion_matrix",
        labels_true,
        labels_pred,
        missing,
        cells=False,
        margins=True,
        sample_weight=sample_weight,
        class_weight=class_weight,
    )[0]
    return sc.pair_confusion_matrix(table)


for _name in __all__:
    with_weights_doc(globals()[_name])
del _name
