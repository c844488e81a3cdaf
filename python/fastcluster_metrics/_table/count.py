"""Where two labelings' codes become their contingency table, in one pass of the core.

:func:`count_labels` is the one prepare step of every call on two labelings: the parameters
checked once, the labels encoded (``_labels/codes.py``), counted by ``_native.count`` (or
``count_weighted`` with sample weights), class weights applied. Also one truth against many
predictions (:func:`count_many`), one labeling alone (:func:`count_one`), and a table's cells
in sorted label order (:func:`ordered_cells`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .._labels.codes import (
    Column,
    apply_missing,
    check_missing,
    check_shapes,
    encode,
    encode_both,
    encode_pair,
    missing_advice,
    native_contiguous,
    prepare,
)
from .._labels.weights import (
    check_class_weight,
    check_sample_weight,
    class_factors,
    weighted_error,
    zero_weights,
)
from .._utils.params import check_array_like
from .weighted import AnyTable, WeightedTable, scale_rows

Table = AnyTable

__all__ = [
    "Table",
    "count_columns",
    "count_labels",
    "count_many",
    "count_one",
    "count_pair",
    "count_samples",
    "label_order",
    "ordered_cells",
]


def count_columns(
    labels_true: Any,
    labels_pred: Any,
    *,
    missing: str = "raise",
    warn: bool = True,
    cells: bool = True,
    margins: bool = False,
    weights: NDArray[Any] | None = None,
    func: str = "count",
    allow_zero: bool = False,
) -> tuple[Table, Column, Column]:
    """Validates two labelings (as scikit-learn's ``check_clusterings``) and builds their
    contingency table in one pass; also gives the encoded columns. ``cells=False``: only the
    table's measures will be asked for (all singletons are then counted without their cells);
    ``margins=True`` too: only measures of its margins and sums of squares (the pair counts),
    so a wide table's cells are counted only if asked for after all.
    ``weights``: the samples' weights, checked (``_labels/weights.py``); all 0 is an
    error unless ``allow_zero`` (a chunk of a stream)."""
    if _plain_integers(labels_true, labels_pred):
        # What the checks below conclude for these, without them (tens of microseconds a
        # call, most of a small input's time).
        true = Column(native_contiguous(labels_true), None, dtype=labels_true.dtype)
        pred = Column(native_contiguous(labels_pred), None, dtype=labels_pred.dtype)
        return count_pair(true, pred, weights, cells, func, allow_zero, margins=margins), true, pred
    true, pred, weights = encode_pair(labels_true, labels_pred, missing, weights, warn=warn)
    return count_pair(true, pred, weights, cells, func, allow_zero, margins=margins), true, pred


def count_pair(
    true: Column,
    pred: Column,
    weights: NDArray[Any] | None,
    cells: bool,
    func: str = "count",
    allow_zero: bool = False,
    *,
    margins: bool = False,
) -> Table:
    """The table of two encoded columns: of counts, or of the samples' weights (whose values
    the core checks as it reads them; ``func`` names the call in the errors)."""
    if weights is None:
        return _native.count(true.codes, pred.codes, cells, margins)
    return _count_weighted(true, pred, weights, func, allow_zero)[1]


def _count_weighted(
    true: Column, pred: Column, weights: NDArray[Any], func: str, allow_zero: bool = False
) -> tuple[_native.Table, Table]:
    """The core's weighted count of two encoded columns: its table (the structure, in the
    weighted table's cell order) and the table of weights. The core's errors on the weights'
    values name ``func``; weights all 0 are an error unless ``allow_zero``."""
    try:
        structure, sums = _native.count_weighted(true.codes, pred.codes, weights)
    except ValueError as e:
        if str(e).startswith("sample_weight"):
            raise weighted_error(func, e, len(weights)) from None
        raise
    if structure.n == 0 and len(weights) and not allow_zero:
        raise zero_weights(func)
    return structure, structure if sums is None else WeightedTable.counted(structure, sums)


def count_labels(
    func: str,
    labels_true: Any,
    labels_pred: Any,
    missing: object,
    *,
    warn: bool = True,
    cells: bool = True,
    margins: bool = False,
    allow_none: bool = False,
    sample_weight: Any = None,
    class_weight: Any = None,
    allow_zero: bool = False,
) -> tuple[Table, Column, Column]:
    """The one prepare step of a call on two labelings, named ``func`` in its errors: the
    labels are array-likes, ``missing`` a policy and the weights numbers (checked once, here),
    then :func:`count_columns` checks their shapes, encodes them and counts them in one pass;
    class weights then scale the table's rows. ``allow_zero``: weights all 0 give the empty
    table (a chunk of a stream), not an error."""
    policy, weights = _checked(func, labels_true, labels_pred, missing, sample_weight, allow_none)
    class_weight = check_class_weight(func, class_weight)
    if class_weight is not None:
        cells = True
    table, true, pred = count_columns(
        labels_true,
        labels_pred,
        missing=policy,
        warn=warn,
        cells=cells,
        margins=margins,
        weights=weights,
        func=func,
        allow_zero=allow_zero,
    )
    if class_weight is not None and table.shape[0]:
        classes = true.labels(table.row_keys())
        table = scale_rows(table, class_factors(func, class_weight, classes, table.row_sums()))
    return table, true, pred


def count_samples(
    func: str,
    labels_true: Any,
    labels_pred: Any,
    missing: object,
    sample_weight: Any = None,
) -> tuple[_native.Table, Table, Column, Column, NDArray[np.bool_] | None]:
    """:func:`count_labels` for a call that goes back to the samples after counting them:
    also the core's table whose cells the samples are gathered from (the weighted table's
    structure, in the same cell order), and which samples were kept (None: all)."""
    policy, weights = _checked(func, labels_true, labels_pred, missing, sample_weight)
    true, pred = encode_both(labels_true, labels_pred, policy, stacklevel=4)
    keep = None
    if policy == "drop" and (true.missing is not None or pred.missing is not None):
        keep = np.ones(len(true), dtype=bool)
        for col in (true, pred):
            if col.missing is not None:
                keep &= ~col.missing
    true, pred, weights = apply_missing(true, pred, policy, weights)
    if weights is None:
        counted = _native.count(true.codes, pred.codes)
        return counted, counted, true, pred, keep
    structure, table = _count_weighted(true, pred, weights, func)
    return structure, table, true, pred, keep


def _checked(
    func: str,
    labels_true: Any,
    labels_pred: Any,
    missing: object,
    sample_weight: Any,
    allow_none: bool = False,
) -> tuple[str, NDArray[Any] | None]:
    """The parameters of a call on two labelings, checked once: the labels are array-likes,
    ``missing`` a policy (returned) and the samples' weights numbers (returned, or None)."""
    check_array_like(func, allow_none=allow_none, labels_true=labels_true, labels_pred=labels_pred)
    policy = check_missing(func, missing)
    weights = None
    if sample_weight is not None:
        weights = check_sample_weight(func, sample_weight, _n_samples(labels_true))
    return policy, weights


def _n_samples(labels: Any) -> int:
    """The number of samples of a labeling (its first dimension)."""
    shape = getattr(labels, "shape", None)
    if shape is not None and len(shape):
        return int(shape[0])
    try:
        return len(labels)
    except TypeError:
        return int(np.shape(labels)[0]) if np.ndim(labels) else 1


def _plain_integers(a: Any, b: Any) -> bool:
    """Two 1-D NumPy integer arrays (not a subclass) of one length: nothing to check."""
    return (
        type(a) is np.ndarray
        and type(b) is np.ndarray
        and a.ndim == 1
        and a.shape == b.shape
        and a.dtype.kind in "iu"
        and b.dtype.kind in "iu"
    )


def count_many(
    labels_true: Any,
    predictions: list[Any] | NDArray[Any],
    *,
    missing: str = "raise",
    func: str = "compare_many",
    sample_weight: Any = None,
    class_weight: Any = None,
) -> list[Table]:
    """The tables of one truth against many predictions: the truth is validated and encoded
    once (its strings hashed once), each prediction then counted against its codes.

    ``predictions`` is a list of labelings, or a 2-D array with one labeling per column;
    integer columns of a C-ordered array are all counted in one pass over its rows (unless
    weighted). ``sample_weight`` and ``class_weight`` as :func:`count_labels` takes them."""
    prepared = prepare(labels_true, missing)
    shape_true = prepared.shape
    if len(shape_true) != 1:
        raise ValueError(f"labels_true must be 1D: shape is {shape_true!r}")
    weights = None
    if sample_weight is not None:
        weights = check_sample_weight(func, sample_weight, shape_true[0])
    class_weight = check_class_weight(func, class_weight)
    true = encode(prepared)
    if isinstance(predictions, np.ndarray) and predictions.ndim == 2:
        if (
            predictions.dtype.kind in "iub"
            and predictions.dtype.isnative
            and weights is None
            and class_weight is None
        ):
            return list(_count_matrix(true, shape_true, predictions, missing))
        predictions = [predictions[:, j] for j in range(predictions.shape[1])]
    tables = []
    for labels_pred in predictions:
        pred = prepare(labels_pred, missing)
        check_shapes(shape_true, pred.shape)
        t, p, w = apply_missing(true, encode(pred), missing, weights)
        table = count_pair(t, p, w, True, func)
        if class_weight is not None and table.shape[0]:
            factors = class_factors(
                func, class_weight, t.labels(table.row_keys()), table.row_sums()
            )
            table = scale_rows(table, factors)
        tables.append(table)
    return tables


def _count_matrix(
    true: Column, shape_true: tuple[int, ...], matrix: NDArray[Any], missing: str
) -> list[_native.Table]:
    """The tables of an encoded truth against the integer columns of a 2-D array."""
    check_shapes(shape_true, (matrix.shape[0],))
    if matrix.dtype.kind == "b":
        matrix = matrix.view(np.uint8)
    if true.missing is not None:
        if missing == "raise":
            k = int(true.missing.sum())
            raise ValueError(f"labels_true has missing labels: {missing_advice(k, len(true))}")
        if missing == "drop":
            keep = ~true.missing
            true = replace(true, codes=true.codes[keep], missing=None)
            matrix = matrix[keep]
    if matrix.flags.f_contiguous and not matrix.flags.c_contiguous:
        # Each column is contiguous already: count them one by one, without copies.
        return [_native.count(true.codes, matrix[:, j]) for j in range(matrix.shape[1])]
    tables: list[_native.Table] = _native.count_columns(true.codes, np.ascontiguousarray(matrix))
    return tables


def count_one(labels: Any, *, missing: str = "raise") -> _native.Table:
    """The one-column table of a single labeling (its class sizes are the row sums)."""
    col = encode(prepare(labels, missing).flat())
    if col.missing is not None:
        if missing == "raise":
            what = "Input contains NaN." if col.nan else "labels has missing labels:"
            raise ValueError(f"{what} {missing_advice(int(col.missing.sum()), len(col))}")
        if missing == "drop":
            col = replace(col, codes=col.codes[~col.missing], missing=None)
    return _native.count_one(col.codes)


def label_order(keys: NDArray[Any], rank: NDArray[Any] | None) -> NDArray[Any]:
    """The permutation putting keys (codes) in sorted label order; identity without a rank."""
    if rank is None:
        return np.arange(keys.size)
    order: NDArray[Any] = np.argsort(rank[keys], kind="stable")
    return order


def ordered_cells(
    table: Table, true: Column, pred: Column
) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
    """(rows, cols, counts, row keys, column keys) with rows and columns in sorted label order
    (a Categorical's codes follow its category order, which need not be sorted)."""
    rows, cols, counts = table.cells()
    row_keys, col_keys = table.row_keys(), table.col_keys()
    for side, (index, keys, rank) in enumerate(
        ((rows, row_keys, true.rank), (cols, col_keys, pred.rank))
    ):
        if rank is None:
            continue
        order = label_order(keys, rank)
        position = np.empty(keys.size, dtype=np.int64)
        position[order] = np.arange(keys.size)
        if side == 0:
            rows, row_keys = position[index], keys[order]
        else:
            cols, col_keys = position[index], keys[order]
    return rows, cols, counts, row_keys, col_keys
