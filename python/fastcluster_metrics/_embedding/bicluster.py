"""The similarity of two sets of biclusters: scikit-learn's ``consensus_score``.

Each bicluster is a pair of indicator vectors (its rows, its columns). With the Jaccard
similarity every pair of biclusters is scored at once from two products
(``A_rows B_rows^T`` and ``A_cols B_cols^T``); a callable similarity is called on each pair
as scikit-learn calls it. The best one-to-one matching is scipy's ``linear_sum_assignment``
(imported when first needed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._utils.params import InvalidParameterError, scipy_module
from .validation import check_features

__all__ = ["consensus_score"]


def _indicators(side: Any) -> NDArray[Any]:
    """One side (rows or columns) of a set of biclusters, as scikit-learn's ``check_array``
    takes it (2-D, numeric, finite), in its own dtype."""
    arr = np.asarray(side)
    if arr.dtype.kind in "biu":
        if arr.ndim != 2:
            check_features(arr)  # scikit-learn's errors for a shape that is not 2-D
        if arr.shape[0] < 1 or arr.shape[1] < 1:
            check_features(arr)
        return arr
    checked: NDArray[Any] = check_features(side, sparse="refuse", name="array")
    return checked


def _jaccard_matrix(
    a_rows: NDArray[Any], a_cols: NDArray[Any], b_rows: NDArray[Any], b_cols: NDArray[Any]
) -> NDArray[np.float64]:
    """Every pair's Jaccard index: the bicluster of ``a`` and of ``b`` as sets of cells."""
    exact = all(x.dtype.kind in "biu" for x in (a_rows, a_cols, b_rows, b_cols))
    kind: Any = np.int64 if exact else np.float64
    ar, ac, br, bc = (x.astype(kind, copy=False) for x in (a_rows, a_cols, b_rows, b_cols))
    intersection = (ar @ br.T) * (ac @ bc.T)
    a_size = ar.sum(axis=1) * ac.sum(axis=1)
    b_size = br.sum(axis=1) * bc.sum(axis=1)
    union = a_size[:, None] + b_size[None, :] - intersection
    with np.errstate(divide="ignore", invalid="ignore"):
        out: NDArray[np.float64] = intersection / union
    return out


def consensus_score(a: Any, b: Any, *, similarity: str | Callable[..., Any] = "jaccard") -> float:
    """The similarity of two sets of biclusters.

    Same as :func:`sklearn.metrics.consensus_score`: the similarity of every pair of
    biclusters (Jaccard by default), the best one-to-one matching of the two sets (the
    Hungarian algorithm), and the sum of the matched similarities divided by the size of
    the larger set. 1 for two identical sets, 0 for disjoint ones.

    Parameters
    ----------
    a : tuple (rows, columns)
        Row and column indicators of the first set of biclusters, each of shape
        (n_biclusters, n_rows or n_columns).
    b : tuple (rows, columns)
        The same for the second set.
    similarity : "jaccard" or callable, default="jaccard"
        A callable is called with four vectors (the rows and columns of one bicluster of
        ``a``, then of ``b``) and returns a number.

    Returns
    -------
    consensus_score : float

    Examples
    --------
    >>> import numpy as np, fastcluster_metrics as fcm
    >>> rows = np.array([[True, True, False], [False, False, True]])
    >>> cols = np.array([[True, False], [False, True]])
    >>> fcm.consensus_score((rows, cols), (rows[::-1], cols[::-1]))
    1.0
    """
    func = "consensus_score"
    for name, value in (("a", a), ("b", b)):
        if not isinstance(value, tuple):
            raise InvalidParameterError(
                f"The {name!r} parameter of {func} must be an instance of 'tuple'."
                f" Got {value!r} instead."
            )
    if not (callable(similarity) or (isinstance(similarity, str) and similarity == "jaccard")):
        raise InvalidParameterError(
            f"The 'similarity' parameter of {func} must be a callable or a str among"
            f" {{'jaccard'}}. Got {similarity!r} instead."
        )
    a_rows, a_cols = (_indicators(side) for side in a)
    b_rows, b_cols = (_indicators(side) for side in b)
    if callable(similarity):
        matrix = np.array(
            [
                [
                    similarity(a_rows[i], a_cols[i], b_rows[j], b_cols[j])
                    for j in range(b_rows.shape[0])
                ]
                for i in range(a_rows.shape[0])
            ]
        )
    else:
        matrix = _jaccard_matrix(a_rows, a_cols, b_rows, b_cols)
    optimize = scipy_module("optimize", "consensus_score's matching")
    row_indices, col_indices = optimize.linear_sum_assignment(1.0 - matrix)
    n_a, n_b = len(a[0]), len(b[0])
    return float(matrix[row_indices, col_indices].sum() / max(n_a, n_b))
