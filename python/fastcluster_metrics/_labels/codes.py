"""Where labels become the integer codes the Rust core counts.

Integer and bool numpy arrays go to Rust as they are (bool viewed as uint8);
only non-native byte order or non-contiguous memory is copied. Integral floats
are cast once. pandas Categoricals give their integer codes (no copy). String
arrays (``U``, ``S``) and object arrays of ``str`` are hashed in Rust into
integer codes numbered in sorted label order; Arrow and polars columns are read
through their buffers (``arrow.py``); anything else goes through ``np.unique``
first. Missing labels (NaN, None, pandas NA, a Categorical's -1 code) are
refused, dropped or counted as one more label (``missing=``).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .._utils.params import InvalidParameterError
from .arrow import arrow_codes, arrow_integers, arrow_string_codes, is_arrow_like

__all__ = [
    "ARRAY",
    "MISSING_POLICIES",
    "Column",
    "Prepared",
    "apply_missing",
    "check_missing",
    "check_shapes",
    "encode",
    "encode_both",
    "encode_pair",
    "missing_advice",
    "native_contiguous",
    "prepare",
    "prepared_array",
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
            raise ValueError(f"Input contains NaN. {missing_advice(n_nan, arr.size)}")
    return arr


def missing_advice(k: int, n: int) -> str:
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


def native_contiguous(arr: NDArray[Any]) -> NDArray[Any]:
    """The array in native byte order, C-contiguous and aligned (a buffer unpickled from
    another process may be misaligned), copied only when it is not already so."""
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return np.require(arr, requirements=["C", "A"])


ARROW = "arrow"
CATEGORICAL = "categorical"
MASKED = "masked"
ARRAY = "array"


class Prepared(NamedTuple):
    """One labeling, its type decided once (:func:`prepare`): how it is read, and its shape.

    Every entry point on labels starts here: a pair (``count_labels``), a sample-weighted
    pair and per-sample scores (``count_samples``), many labelings, a labeling alone, the
    consistency of several, an embedding's labels; :func:`encode` then makes its codes."""

    labels: Any
    """The labels as given."""
    form: str
    """How they are read: :data:`ARROW` (an Arrow or polars column, through its buffers),
    :data:`CATEGORICAL` (a pandas Categorical's codes), :data:`MASKED` (a masked array or a
    pandas nullable column), or :data:`ARRAY` (``np.asarray``)."""
    shape: tuple[int, ...]
    arr: NDArray[Any] | None = None
    """``np.asarray(labels)`` (form :data:`ARRAY`), checked as scikit-learn checks labels."""
    categorical: tuple[NDArray[Any], NDArray[Any]] | None = None
    """A Categorical's (codes, categories)."""

    def flat(self) -> Prepared:
        """The labels as one column (an array's dimensions flattened)."""
        if self.arr is None or self.arr.ndim == 1:
            return self
        return prepared_array(self.arr.reshape(-1))


def prepare(labels: Any, missing: str | None = "raise") -> Prepared:
    """Decides once how ``labels`` are read (:class:`Prepared`). An array is checked as
    scikit-learn's ``check_array`` checks labels (complex, infinite, and NaN unless
    ``missing`` marks it); ``missing=None``: made, not checked (the caller checks it as its
    peer does)."""
    if is_arrow_like(labels):
        return Prepared(labels, ARROW, (len(labels),))
    cat = _categorical(labels)
    if cat is not None:
        return Prepared(labels, CATEGORICAL, tuple(np.shape(labels)), categorical=cat)
    if _is_masked(labels):
        return Prepared(labels, MASKED, tuple(np.shape(labels)))
    arr = np.asarray(labels) if missing is None else _as_array(labels, missing)
    return Prepared(labels, ARRAY, tuple(arr.shape), arr)


def prepared_array(arr: NDArray[Any]) -> Prepared:
    """An array already checked, as :func:`prepare` would give it."""
    return Prepared(arr, ARRAY, tuple(arr.shape), arr)


def encode(prepared: Prepared) -> Column:
    """Encodes one prepared labeling."""
    labels, arr = prepared.labels, prepared.arr
    if prepared.form == ARROW:
        plain = arrow_integers(labels)
        strings = None if plain is not None else arrow_string_codes(labels)
        if plain is not None:
            return _encode_array(plain)
        if strings is not None:
            str_codes, str_missing, str_uniques = strings
            return Column(str_codes, str_missing, uniques=str_uniques)
        codes, missing, rank, values = arrow_codes(labels)
        return Column(codes, missing, rank, values)
    if prepared.categorical is not None:
        cat_codes, categories = prepared.categorical
        # A min() is a fast reduction; the mask is only made when something is missing.
        has_missing = bool(cat_codes.size) and int(cat_codes.min()) < 0
        cat_missing = cat_codes < 0 if has_missing else None
        order = np.argsort(categories, kind="stable")
        cat_rank = None
        if has_missing or (order != np.arange(order.size)).any():
            cat_rank = np.empty(order.size + 1, dtype=np.int64)
            cat_rank[order] = np.arange(order.size)
            cat_rank[-1] = order.size  # code -1 (missing) sorts last
        return Column(native_contiguous(cat_codes), cat_missing, cat_rank, categories)
    if prepared.form == MASKED:
        values, mask = _masked(labels)
        if not mask.any():
            return _encode_array(values)
        # Missing values have no spare integer: number the present ones, missing last.
        uniques, inverse = np.unique(values[~mask], return_inverse=True)
        codes = np.full(values.shape[0], uniques.size, dtype=np.int64)
        codes[~mask] = inverse.reshape(-1)
        return Column(codes, mask, uniques=uniques)
    assert arr is not None  # form ARRAY
    return _encode_array(arr)


def _encode_array(arr: NDArray[Any]) -> Column:
    """The codes of a NumPy array of labels."""
    kind = arr.dtype.kind
    if kind == "b":
        return Column(native_contiguous(arr.view(np.uint8)), None, dtype=arr.dtype)
    if kind in "iu":
        return Column(native_contiguous(arr), None, dtype=arr.dtype)
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
        uniques, inverse = np.unique(arr, return_inverse=True)
        return Column(inverse.reshape(-1), nan if has_nan else None, uniques=uniques)
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
            numbered = np.full(arr.shape[0], uniques.size, dtype=np.int64)
            numbered[~absent] = inverse.reshape(-1)
            nan = any(isinstance(x, (float, np.floating)) for x in arr[absent])
            return Column(numbered, absent, uniques=uniques, nan=nan)
    uniques, inverse = np.unique(arr, return_inverse=True)
    return Column(native_contiguous(inverse.reshape(-1)), None, uniques=uniques)


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


def check_shapes(shape_true: tuple[int, ...], shape_pred: tuple[int, ...]) -> None:
    if len(shape_true) != 1:
        raise ValueError(f"labels_true must be 1D: shape is {shape_true!r}")
    if len(shape_pred) != 1:
        raise ValueError(f"labels_pred must be 1D: shape is {shape_pred!r}")
    if shape_true[0] != shape_pred[0]:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples:"
            f" [{shape_true[0]}, {shape_pred[0]}]"
        )


def apply_missing(
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
                raise ValueError(f"{what} {missing_advice(k, len(col))}")
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


def encode_pair(
    labels_true: Any,
    labels_pred: Any,
    missing: str,
    weights: NDArray[Any] | None = None,
    *,
    warn: bool = True,
) -> tuple[Column, Column, NDArray[Any] | None]:
    """Two labelings checked and encoded (:func:`encode_both`), and the ``missing`` policy
    applied (to the samples' weights too)."""
    true, pred = encode_both(labels_true, labels_pred, missing, warn=warn, stacklevel=6)
    return apply_missing(true, pred, missing, weights)


def encode_both(
    labels_true: Any, labels_pred: Any, missing: str, *, warn: bool = True, stacklevel: int = 5
) -> tuple[Column, Column]:
    """Two labelings checked as scikit-learn's ``check_clusterings`` checks them (1-D, of one
    length; a warning for continuous values) and encoded, their missing labels marked."""
    true = prepare(labels_true, missing)
    pred = prepare(labels_pred, missing)
    if warn and (
        (true.arr is not None and _is_continuous(true.arr))
        or (pred.arr is not None and _is_continuous(pred.arr))
    ):
        warnings.warn(
            "Clustering metrics expects discrete values but received"
            f" {_target_type(np.asarray(labels_true))} values for label, and"
            f" {_target_type(np.asarray(labels_pred))} values for target",
            UserWarning,
            stacklevel=stacklevel,
        )
    check_shapes(true.shape, pred.shape)
    return encode(true), encode(pred)
