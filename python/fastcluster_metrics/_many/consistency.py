"""Each sample's agreement across many labelings: with a reference (:func:`element_agreement`)
and among themselves (:func:`element_consistency`), ClustAssess's cluster-stability measures.

Both average the per-sample element-centric similarity (``_measures/per_sample.py``) over
pairs of labelings. Each labeling is encoded once; labelings that are the same partition
(whatever their label values) are found and merged, their weights added, so that a hundred
seeds that agree cost one. Each remaining pair then costs one counting pass and one gathering
pass in the core.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _native
from .._labels.codes import Column, encode, missing_advice, prepare
from .._measures.catalogue import MEASURES
from .._measures.per_sample import cell_values
from .._utils.public import public

__all__ = ["element_agreement", "element_consistency", "labeling_list"]

_ECS = MEASURES["element_centric_similarity"]


def labeling_list(func: str, labelings: Any, what: str = "labelings") -> list[Any]:
    """The labelings as a list: a list or tuple of labelings, the values of a mapping, the
    columns of a 2-D array or of a DataFrame."""
    if isinstance(labelings, Mapping):
        found = list(labelings.values())
    elif hasattr(labelings, "columns") and hasattr(labelings, "__getitem__"):
        found = [labelings[c] for c in labelings.columns]
    elif isinstance(labelings, np.ndarray):
        if labelings.ndim != 2:
            raise ValueError(
                f"{func}: {what} as an array must be 2-D, one labeling per column; got shape"
                f" {labelings.shape}"
            )
        found = [labelings[:, j] for j in range(labelings.shape[1])]
    elif isinstance(labelings, (list, tuple)):
        found = list(labelings)
    else:
        raise TypeError(
            f"{func}: {what} must be a list of labelings, a mapping of names to labelings, a"
            f" 2-D array (one labeling per column) or a DataFrame; got {type(labelings).__name__}"
        )
    if not found:
        raise ValueError(f"{func}: {what} is empty; give at least one labeling")
    return found


def _encoded(
    func: str, labels: Any, name: str, n: int | None, first: str = "the first labeling"
) -> Column:
    prepared = prepare(labels)
    shape = prepared.shape
    if len(shape) != 1:
        raise ValueError(f"{func}: {name} must be 1D: shape is {shape!r}")
    if n is not None and shape[0] != n:
        raise ValueError(
            f"{func}: {name} has {shape[0]} samples where {first} has {n}"
            " (every labeling labels the same samples)"
        )
    col = encode(prepared)
    if col.missing is not None:
        k = int(col.missing.sum())
        raise ValueError(f"{func}: {name} has missing labels: {missing_advice(k, len(col))}")
    return col


def _weights(func: str, weights: ArrayLike | None, k: int) -> NDArray[np.float64]:
    if weights is None:
        return np.ones(k)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (k,):
        raise ValueError(
            f"{func}: weights must hold one number per labeling ({k}); got shape {w.shape}"
        )
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(f"{func}: weights must be finite and non-negative")
    return w


def _merged(
    columns: list[Column], weights: NDArray[np.float64]
) -> tuple[list[Column], NDArray[np.float64]]:
    """The distinct partitions among the columns, each with the sum of its copies' weights.

    Two labelings are the same partition when their table has as many cells as either has
    labels; only labelings with the same sorted class sizes are counted against each other."""
    groups: dict[bytes, list[int]] = {}
    kept: list[int] = []
    total: list[float] = []
    for i, col in enumerate(columns):
        sizes = np.sort(_native.count_one(col.codes).row_sums())
        same = groups.setdefault(sizes.tobytes(), [])
        for k in same:
            table = _native.count(columns[kept[k]].codes, col.codes, False)
            if table.nnz == sizes.size:
                total[k] += float(weights[i])
                break
        else:
            same.append(len(kept))
            kept.append(i)
            total.append(float(weights[i]))
    return [columns[i] for i in kept], np.array(total)


def _ecs(a: Column, b: Column) -> NDArray[np.float64]:
    """Each sample's element-centric similarity between two encoded labelings."""
    table = _native.count(a.codes, b.codes)
    return table.gather(a.codes, b.codes, cell_values(table, _ECS))


def _columns(func: str, labelings: Any, n: int | None = None) -> list[Column]:
    """The labelings encoded, each checked to be 1-D, of ``n`` samples (the reference's when
    given, else the first labeling's) and without missing labels."""
    first = "the first labeling" if n is None else "the reference"
    found = labeling_list(func, labelings)
    names = (
        [f"labelings[{k!r}]" for k in labelings]
        if isinstance(labelings, Mapping)
        else [f"labelings[{j}]" for j in range(len(found))]
    )
    columns: list[Column] = []
    for labels, name in zip(found, names, strict=True):
        columns.append(_encoded(func, labels, name, n, first))
        n = len(columns[-1])
    return columns


def _prepared(
    func: str,
    labelings: Any,
    weights: ArrayLike | None,
    n: int | None = None,
    *,
    pairs: bool = False,
) -> tuple[list[Column], NDArray[np.float64], float]:
    """The labelings encoded (:func:`_columns`, of ``n`` samples when given) and their
    weights checked, then merged (:func:`_merged`); also the weights' sum before merging.
    ``pairs``: the labelings are compared among themselves, so at least two are needed and
    the weights must sum to more than 1 (else to more than 0)."""
    columns = _columns(func, labelings, n)
    if pairs and len(columns) < 2:
        raise ValueError(f"{func}: give at least two labelings; got {len(columns)}")
    w = _weights(func, weights, len(columns))
    total = float(w.sum())
    if pairs and total <= 1:
        raise ValueError(
            f"{func}: weights sum to {total:g}; they must sum to more than 1 (a pair of"
            " labelings at least)"
        )
    if total <= 0:
        raise ValueError(f"{func}: weights sum to 0")
    columns, w = _merged(columns, w)
    return columns, w, total


@public
def element_agreement(
    reference: ArrayLike, labelings: Any, *, weights: ArrayLike | None = None
) -> NDArray[np.float64]:
    """Each sample's mean element-centric similarity with a reference over many labelings.

    ClustAssess's ``element_agreement``: for sample ``x``,
    ``sum_k w_k ECS_x(reference, L_k) / sum_k w_k``, where ``ECS_x`` is the sample's
    element-centric similarity (:func:`per_sample_score` with ``measure="ECS"``).

    Parameters
    ----------
    reference : array-like of shape (n_samples,)
        The reference labeling (cell types, an annotation); any label type the metrics take.
    labelings : list, mapping, 2-D array or DataFrame
        The labelings (clusterings) to compare with it: a list of labelings, a mapping of
        names to labelings, a 2-D array with one labeling per column, or a DataFrame.
    weights : array-like of shape (n_labelings,), default=None
        A non-negative weight per labeling (all 1 by default).

    Returns
    -------
    agreement : ndarray of shape (n_samples,), float64, in [0, 1]

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> fcm.element_agreement([0, 0, 1, 1], [[0, 0, 1, 1], [0, 0, 0, 1]]).tolist()
    [0.8333333333333333, 0.8333333333333333, 0.6666666666666666, 0.75]
    """
    func = "element_agreement"
    ref = _encoded(func, reference, "reference", None)
    columns, w, _ = _prepared(func, labelings, weights, len(ref))
    out = np.zeros(len(ref))
    for col, wk in zip(columns, w, strict=True):
        if wk:
            out += wk * _ecs(ref, col)
    out /= w.sum()
    return out


@public
def element_consistency(labelings: Any, *, weights: ArrayLike | None = None) -> NDArray[np.float64]:
    """Each sample's mean element-centric similarity over all pairs of many labelings.

    ClustAssess's ``element_consistency`` (ECC; with weights, its
    ``weighted_element_consistency``): for sample ``x`` and labelings of weights ``w_k``
    summing to ``W``,
    ``(sum_{k<l} w_k w_l ECS_x(L_k, L_l) + sum_k w_k (w_k - 1) / 2) / (W (W - 1) / 2)``,
    the mean over the pairs of labelings where a weight ``w`` counts as ``w`` copies (whose
    pairs agree fully). Labelings that are the same partition are merged into one of the
    summed weight first, which leaves the value unchanged: the cost grows with the number of
    distinct partitions. ClustAssess calls cells of ECC at least 0.9 stable.

    Parameters
    ----------
    labelings : list, mapping, 2-D array or DataFrame
        At least two labelings of the same samples (several runs, seeds or resolutions): a
        list of labelings, a mapping of names to labelings, a 2-D array with one labeling per
        column, or a DataFrame; any label type the metrics take.
    weights : array-like of shape (n_labelings,), default=None
        A non-negative weight per labeling (all 1 by default), summing to more than 1.

    Returns
    -------
    consistency : ndarray of shape (n_samples,), float64, in [0, 1]

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> fcm.element_consistency([[0, 0, 1, 1], [5, 5, 7, 7], [0, 0, 0, 1]]).tolist()
    [0.7777777777777777, 0.7777777777777777, 0.5555555555555555, 0.6666666666666666]
    """
    func = "element_consistency"
    columns, w, total = _prepared(func, labelings, weights, pairs=True)
    out = np.full(len(columns[0]), float((w * (w - 1) / 2).sum()))
    for k in range(len(columns)):
        for m in range(k + 1, len(columns)):
            if w[k] and w[m]:
                out += (w[k] * w[m]) * _ecs(columns[k], columns[m])
    out /= total * (total - 1) / 2
    return out
