"""Where user labels become arrays the Rust core reads.

Integer and bool numpy arrays go to Rust as they are (bool viewed as uint8);
only non-native byte order or non-contiguous memory is copied. Integral floats
are cast once. pandas Categoricals give their integer codes (no copy). String
arrays (``U``, ``S``) and object arrays of ``str`` are hashed in Rust into
integer codes numbered in sorted label order; anything else goes through
``np.unique`` first. Missing labels (NaN, None, pandas NA, a Categorical's -1
code) are refused, dropped or counted as one more label (``missing=``).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import _native
from ._arrow import arrow_codes, arrow_integers, arrow_string_codes, is_arrow_like
from ._params import InvalidParameterError, check_array_like
from ._weighted_table import AnyTable, WeightedTable, scale_rows
from ._weights import (
    check_class_weight,
    check_sample_weight,
    class_factors,
    weighted_error,
    zero_weights,
)

Table = AnyTable

__all__ = [
    "MISSING_POLICIES",
    "Column",
    "Table",
    "check_missing",
    "count_columns",
    "count_labels",
    "count_many",
    "count_one",
    "ordered_cells",
]

MISSING_POLICIES = ("raise", "drop", "cluster")


def check_missing(func: str, missing: object) -> str:
    if not isinstance(missing, str) or missing not in MISSING_POLICIES:
        among = "{" + ", ".join(repr(m) for m in MISSING_POLICIES) + "}"
        raise InvalidParameterError(
            f"The 'missing' parameter of {func} must be a str among {among}."
            f" Got {missing!r} instead."
        )
    return missing


def _categorical(labels: Any) -> tuple[NDArray[Any], NDArray[Any]] | None:
    """(codes, categories) of a pandas Categorical or category-dtype Series, without copying."""
    if getattr(getattr(labels, "dtype", None), "name", None) != "category":
        return None
    cat = labels.cat if hasattr(labels, "cat") else labels
    return np.asarray(cat.codes), np.asarray(cat.categories)


def _is_masked(labels: Any) -> bool:
    """Whether ``labels`` is a numpy masked array, or a pandas nullable integer or boolean
    column (``Int64``, ``UInt8``, ``boolean``, or Arrow-backed ``int64[pyarrow]``...)."""
    if isinstance(labels, np.ma.MaskedArray):
        return True
    dtype = getattr(labels, "dtype", None)
    if dtype is None or isinstance(dtype, np.dtype) or "pandas" not in sys.modules:
        return False
    numpy_dtype = getattr(dtype, "numpy_dtype", None)
    return (
        getattr(dtype, "kind", None) in ("i", "u", "b")
        and isinstance(numpy_dtype, np.dtype)
        and numpy_dtype.kind in "iub"
    )


def _masked(labels: Any) -> tuple[NDArray[Any], NDArray[np.bool_]]:
    """(values, missing mask) of labels for which :func:`_is_masked` holds, read without
    Python objects."""
    if isinstance(labels, np.ma.MaskedArray):
        # Masked entries are missing labels (np.asarray would expose the values under them).
        return np.asarray(labels.data), np.ma.getmaskarray(labels).reshape(-1)
    mask = np.asarray(labels.isna(), dtype=bool)
    values = np.asarray(labels.to_numpy(dtype=labels.dtype.numpy_dtype, na_value=0))
    return values, mask


def _as_array(labels: Any, missing: str) -> NDArray[Any]:
    """scikit-learn's ``check_array(labels, ensure_2d=False, ensure_min_samples=0, dtype=None)``."""
    arr = np.asarray(labels)
    kind = arr.dtype.kind
    if kind == "c":
        raise ValueError(f"Complex data not supported\n{arr}\n")
    if kind == "f":
        if np.isinf(arr).any():
            raise ValueError(f"Input contains infinity or a value too large for {arr.dtype!r}.")
        if missing == "raise" and np.isnan(arr).any():
            n_nan = int(np.isnan(arr).sum())
            raise ValueError(f"Input contains NaN. {_missing_advice(n_nan, arr.size)}")
    return arr


def _missing_advice(k: int, n: int) -> str:
    return (
        f"{k} of {n} labels are missing; pass missing='drop' to leave out the samples"
        " missing in either labeling, or missing='cluster' to count missing as one more label."
    )


def _is_continuous(arr: NDArray[Any]) -> bool:
    if arr.dtype.kind != "f" or arr.ndim != 1:
        return False
    finite = arr[~np.isnan(arr)] if np.isnan(arr).any() else arr
    return bool((finite != np.trunc(finite)).any())


def _target_type(arr: NDArray[Any]) -> str:
    """scikit-learn's ``type_of_target`` for the 1-D cases, used only to word its warning."""
    if _is_continuous(arr):
        return "continuous"
    if arr.dtype.kind == "O" and arr.size and not isinstance(arr.flat[0], str):
        return "unknown"
    try:
        distinct = np.unique(arr).size if arr.ndim == 1 else 0
    except TypeError:  # missing labels among strings: only the wording of a warning is at stake
        distinct = 3
    return "multiclass" if distinct > 2 else "binary"


@dataclass(frozen=True)
class Column:
    """One labeling as the core reads it."""

    codes: NDArray[Any]
    """Integer labels: the values themselves, or codes."""
    missing: NDArray[np.bool_] | None
    """Which samples are missing (None when none are)."""
    rank: NDArray[Any] | None = None
    """For codes not numbered in sorted label order (a Categorical's): each code's rank."""
    uniques: Any = None
    """The label of each code (array-like, or a callable making it), None when codes are values."""
    dtype: Any = None
    """The dtype of the labels when codes are the values themselves."""
    nan: bool = False
    """Whether NaN is among the missing labels (scikit-learn's "Input contains NaN.")."""

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    def labels(self, keys: NDArray[Any]) -> NDArray[Any]:
        """The label values of the given codes (a table's row or column keys)."""
        if self.uniques is None:
            values: NDArray[Any] = keys.astype(self.dtype if self.dtype is not None else keys.dtype)
            return values
        uniques = np.asarray(self.uniques() if callable(self.uniques) else self.uniques)
        missing = (keys < 0) | (keys >= uniques.shape[0])
        if not missing.any():
            found: NDArray[Any] = uniques[keys]
            return found
        out = np.empty(keys.shape[0], dtype=object)
        out[~missing] = uniques[keys[~missing]]
        out[missing] = None
        return out


_INT64_LIMIT = float(2**63)


def _missing_values() -> tuple[object, ...]:
    """Missing-value singletons of the libraries already imported (never imports them)."""
    pandas = sys.modules.get("pandas")
    return (pandas.NA, pandas.NaT) if pandas is not None else ()


def _native_contiguous(arr: NDArray[Any]) -> NDArray[Any]:
    """The array in native byte order, C-contiguous and aligned (a buffer unpickled from
    another process may be misaligned), copied only when it is not already so."""
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return np.require(arr, requirements=["C", "A"])


def _special(labels: Any) -> bool:
    """Labels read through their own codes rather than ``np.asarray``."""
    return _categorical(labels) is not None or is_arrow_like(labels) or _is_masked(labels)


def _shape(labels: Any, arr: NDArray[Any] | None) -> tuple[int, ...]:
    if arr is not None:
        return tuple(arr.shape)
    return (len(labels),) if is_arrow_like(labels) else tuple(np.shape(labels))


def _column(labels: Any, arr: NDArray[Any] | None = None) -> Column:
    """Encodes one validated labeling (``arr`` is ``np.asarray(labels)``, if already made)."""
    if is_arrow_like(labels):
        plain = arrow_integers(labels)
        strings = None if plain is not None else arrow_string_codes(labels)
        if plain is not None:
            arr = plain
        elif strings is not None:
            str_codes, str_missing, str_uniques = strings
            return Column(str_codes, str_missing, uniques=str_uniques)
        else:
            codes, missing, rank, values = arrow_codes(labels)
            return Column(codes, missing, rank, values)
    cat = _categorical(labels)
    if cat is not None:
        cat_codes, categories = cat
        # A min() is a fast reduction; the mask is only made when something is missing.
        has_missing = bool(cat_codes.size) and int(cat_codes.min()) < 0
        cat_missing = cat_codes < 0 if has_missing else None
        order = np.argsort(categories, kind="stable")
        cat_rank = None
        if has_missing or (order != np.arange(order.size)).any():
            cat_rank = np.empty(order.size + 1, dtype=np.int64)
            cat_rank[order] = np.arange(order.size)
            cat_rank[-1] = order.size  # code -1 (missing) sorts last
        return Column(_native_contiguous(cat_codes), cat_missing, cat_rank, categories)
    if arr is None and _is_masked(labels):
        values, mask = _masked(labels)
        if not mask.any():
            return _column(values, values)
        # Missing values have no spare integer: number the present ones, missing last.
        uniques, inverse = np.unique(values[~mask], return_inverse=True)
        codes = np.full(values.shape[0], uniques.size, dtype=np.int64)
        codes[~mask] = inverse.reshape(-1)
        return Column(codes, mask, uniques=uniques)
    if arr is None:
        arr = np.asarray(labels)
    kind = arr.dtype.kind
    if kind == "b":
        return Column(_native_contiguous(arr.view(np.uint8)), None, dtype=arr.dtype)
    if kind in "iu":
        return Column(_native_contiguous(arr), None, dtype=arr.dtype)
    if kind == "f":
        nan = np.isnan(arr)
        has_nan = bool(nan.any())
        finite = arr[~nan] if has_nan else arr
        # In float64: float16 cannot hold 2**63 (comparing in it would warn of an overflow).
        wide = finite.astype(np.float64, copy=False)
        integral = (np.abs(wide) < _INT64_LIMIT).all() and (finite == np.trunc(finite)).all()
        if integral and not has_nan:
            return Column(arr.astype(np.int64), None, dtype=arr.dtype)
        # np.unique numbers NaN last, as one label.
        uniques, codes = np.unique(arr, return_inverse=True)
        return Column(codes.reshape(-1), nan if has_nan else None, uniques=uniques)
    if kind in "US":
        arr = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("="))
        codes, first, _ = _native.encode_fixed(arr.view(np.uint8), arr.dtype.itemsize, kind == "U")
        return Column(codes, None, uniques=lambda: arr[first])
    if kind == "O":
        encoded = _native.encode_objects(np.ascontiguousarray(arr), _missing_values())
        if encoded is not None:
            codes, first, n_missing = encoded
            missing = codes == _native.MISSING if n_missing else None
            return Column(codes, missing, uniques=lambda: arr[first])
        first_label = arr.flat[0] if arr.size else None
        if isinstance(first_label, Sequence) and not isinstance(first_label, (str, bytes)):
            raise ValueError(_LEGACY_MULTILABEL)
        absent = _object_missing(arr)
        if absent is not None:
            # Missing among other objects (numbers): number the present ones, missing last.
            uniques, inverse = np.unique(arr[~absent], return_inverse=True)
            codes = np.full(arr.shape[0], uniques.size, dtype=np.int64)
            codes[~absent] = inverse.reshape(-1)
            nan = any(isinstance(x, (float, np.floating)) for x in arr[absent])
            return Column(codes, absent, uniques=uniques, nan=nan)
    uniques, codes = np.unique(arr, return_inverse=True)
    return Column(_native_contiguous(codes.reshape(-1)), None, uniques=uniques)


_LEGACY_MULTILABEL = (
    "You appear to be using a legacy multi-label data representation. Sequence of sequences"
    " are no longer supported; use a binary array or sparse matrix instead - the"
    " MultiLabelBinarizer transformer can convert to this format."
)


def _object_missing(arr: NDArray[Any]) -> NDArray[np.bool_] | None:
    """Which items of an object array are missing labels (None, NaN, pd.NA, pd.NaT), or
    None when none are. A per-item check, on the path that sorts Python objects anyway."""
    singletons = _missing_values()

    def is_missing(x: object) -> bool:
        if x is None or any(x is m for m in singletons):
            return True
        return isinstance(x, (float, np.floating)) and bool(x != x)

    mask = np.frompyfunc(is_missing, 1, 1)(arr).astype(bool).reshape(-1)
    return mask if mask.any() else None


def _check_shapes(shape_true: tuple[int, ...], shape_pred: tuple[int, ...]) -> None:
    if len(shape_true) != 1:
        raise ValueError(f"labels_true must be 1D: shape is {shape_true!r}")
    if len(shape_pred) != 1:
        raise ValueError(f"labels_pred must be 1D: shape is {shape_pred!r}")
    if shape_true[0] != shape_pred[0]:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples:"
            f" [{shape_true[0]}, {shape_pred[0]}]"
        )


def _apply_missing(
    true: Column, pred: Column, missing: str, weights: NDArray[Any] | None = None
) -> tuple[Column, Column, NDArray[Any] | None]:
    """The two columns (and the samples' weights) after the ``missing`` policy."""
    if true.missing is None and pred.missing is None:
        return true, pred, weights
    if missing == "raise":
        for name, col in (("labels_true", true), ("labels_pred", pred)):
            if col.missing is not None:
                k = int(col.missing.sum())
                what = "Input contains NaN." if col.nan else f"{name} has missing labels:"
                raise ValueError(f"{what} {_missing_advice(k, len(col))}")
    if missing == "drop":
        keep = np.ones(len(true), dtype=bool)
        for col in (true, pred):
            if col.missing is not None:
                keep &= ~col.missing
        true = replace(true, codes=true.codes[keep], missing=None)
        pred = replace(pred, codes=pred.codes[keep], missing=None)
        if weights is not None:
            weights = weights[keep]
    return true, pred, weights


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
    ``weights``: the samples' weights, checked (``_weights.check_sample_weight``); all 0 is an
    error unless ``allow_zero`` (a chunk of a stream)."""
    if _plain_integers(labels_true, labels_pred):
        # What the checks below conclude for these, without them (tens of microseconds a
        # call, most of a small input's time).
        true = Column(_native_contiguous(labels_true), None, dtype=labels_true.dtype)
        pred = Column(_native_contiguous(labels_pred), None, dtype=labels_pred.dtype)
        return _count(true, pred, weights, cells, func, allow_zero, margins=margins), true, pred
    arr_true = None if _special(labels_true) else _as_array(labels_true, missing)
    arr_pred = None if _special(labels_pred) else _as_array(labels_pred, missing)
    if warn and (
        (arr_true is not None and _is_continuous(arr_true))
        or (arr_pred is not None and _is_continuous(arr_pred))
    ):
        warnings.warn(
            "Clustering metrics expects discrete values but received"
            f" {_target_type(np.asarray(labels_true))} values for label, and"
            f" {_target_type(np.asarray(labels_pred))} values for target",
            UserWarning,
            stacklevel=4,
        )
    _check_shapes(_shape(labels_true, arr_true), _shape(labels_pred, arr_pred))
    true, pred, weights = _apply_missing(
        _column(labels_true, arr_true), _column(labels_pred, arr_pred), missing, weights
    )
    return _count(true, pred, weights, cells, func, allow_zero, margins=margins), true, pred


def _count(
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
    try:
        table, sums = _native.count_weighted(true.codes, pred.codes, weights)
    except ValueError as e:
        if str(e).startswith("sample_weight"):
            raise weighted_error(func, e, len(weights)) from None
        raise
    if table.n == 0 and len(weights) and not allow_zero:
        raise zero_weights(func)
    return table if sums is None else WeightedTable.counted(table, sums)


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
    check_array_like(func, allow_none=allow_none, labels_true=labels_true, labels_pred=labels_pred)
    policy = check_missing(func, missing)
    weights = None
    if sample_weight is not None:
        weights = check_sample_weight(func, sample_weight, _n_samples(labels_true))
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
    arr_true = None if _special(labels_true) else _as_array(labels_true, missing)
    shape_true = _shape(labels_true, arr_true)
    if len(shape_true) != 1:
        raise ValueError(f"labels_true must be 1D: shape is {shape_true!r}")
    weights = None
    if sample_weight is not None:
        weights = check_sample_weight(func, sample_weight, shape_true[0])
    class_weight = check_class_weight(func, class_weight)
    true = _column(labels_true, arr_true)
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
        arr_pred = None if _special(labels_pred) else _as_array(labels_pred, missing)
        _check_shapes(shape_true, _shape(labels_pred, arr_pred))
        t, p, w = _apply_missing(true, _column(labels_pred, arr_pred), missing, weights)
        table = _count(t, p, w, True, func)
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
    _check_shapes(shape_true, (matrix.shape[0],))
    if matrix.dtype.kind == "b":
        matrix = matrix.view(np.uint8)
    if true.missing is not None:
        if missing == "raise":
            k = int(true.missing.sum())
            raise ValueError(f"labels_true has missing labels: {_missing_advice(k, len(true))}")
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
    arr = None if _special(labels) else _as_array(labels, missing).reshape(-1)
    col = _column(labels, arr)
    if col.missing is not None:
        if missing == "raise":
            what = "Input contains NaN." if col.nan else "labels has missing labels:"
            raise ValueError(f"{what} {_missing_advice(int(col.missing.sum()), len(col))}")
        if missing == "drop":
            col = replace(col, codes=col.codes[~col.missing], missing=None)
    return _native.count_one(col.codes)


def _order(keys: NDArray[Any], rank: NDArray[Any] | None) -> NDArray[Any]:
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
        order = _order(keys, rank)
        position = np.empty(keys.size, dtype=np.int64)
        position[order] = np.arange(keys.size)
        if side == 0:
            rows, row_keys = position[index], keys[order]
        else:
            cols, col_keys = position[index], keys[order]
    return rows, cols, counts, row_keys, col_keys
