"""Where user labels become arrays the Rust core reads.

Integer and bool numpy arrays go to Rust as they are (bool viewed as uint8);
only non-native byte order or non-contiguous memory is copied. Integral floats
are cast once. String arrays (``U``, ``S``) and object arrays of ``str`` are
hashed in Rust into integer codes numbered in sorted label order, which keeps
scikit-learn's class order; anything else goes through ``np.unique`` first.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import _native

__all__ = ["check_clusterings", "count", "count_one", "to_array"]


def to_array(labels: Any) -> NDArray[Any]:
    """scikit-learn's ``check_array(labels, ensure_2d=False, ensure_min_samples=0, dtype=None)``."""
    arr = np.asarray(labels)
    kind = arr.dtype.kind
    if kind == "c":
        raise ValueError(f"Complex data not supported\n{arr}\n")
    if kind == "f":
        if np.isnan(arr).any():
            raise ValueError("Input contains NaN.")
        if np.isinf(arr).any():
            raise ValueError(f"Input contains infinity or a value too large for {arr.dtype!r}.")
    return arr


def _object_has_nan(arr: NDArray[Any]) -> bool:
    # NaN is the only value not equal to itself.
    return bool((arr != arr).any())


def _is_continuous(arr: NDArray[Any]) -> bool:
    return arr.dtype.kind == "f" and arr.ndim == 1 and bool((arr != np.trunc(arr)).any())


def _target_type(arr: NDArray[Any]) -> str:
    """scikit-learn's ``type_of_target`` for the 1-D cases, used only to word its warning."""
    if _is_continuous(arr):
        return "continuous"
    if arr.dtype.kind == "O" and arr.size and not isinstance(arr.flat[0], str):
        return "unknown"
    return "multiclass" if arr.ndim == 1 and np.unique(arr).size > 2 else "binary"


def check_clusterings(
    labels_true: Any, labels_pred: Any, warn: bool = True
) -> tuple[NDArray[Any], NDArray[Any]]:
    """scikit-learn's ``check_clusterings``: arrays, 1-D, same length (and its warning)."""
    labels_true = to_array(labels_true)
    labels_pred = to_array(labels_pred)
    if warn and (_is_continuous(labels_true) or _is_continuous(labels_pred)):
        warnings.warn(
            "Clustering metrics expects discrete values but received"
            f" {_target_type(labels_true)} values for label, and"
            f" {_target_type(labels_pred)} values for target",
            UserWarning,
            stacklevel=3,
        )
    if labels_true.ndim != 1:
        raise ValueError(f"labels_true must be 1D: shape is {labels_true.shape!r}")
    if labels_pred.ndim != 1:
        raise ValueError(f"labels_pred must be 1D: shape is {labels_pred.shape!r}")
    if labels_true.shape[0] != labels_pred.shape[0]:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples:"
            f" [{labels_true.shape[0]}, {labels_pred.shape[0]}]"
        )
    return labels_true, labels_pred


_INT64_LIMIT = float(2**63)


def _missing_values() -> tuple[object, ...]:
    """Missing-value singletons of the libraries already imported (never imports them)."""
    pandas = sys.modules.get("pandas")
    return (pandas.NA, pandas.NaT) if pandas is not None else ()


def _for_rust(arr: NDArray[Any], name: str) -> NDArray[Any]:
    """An integer array with the same classes in the same order, read in place where possible."""
    kind = arr.dtype.kind
    if kind == "b":
        arr = arr.view(np.uint8)
    elif kind == "f" and bool((np.abs(arr) < _INT64_LIMIT).all() and (arr == np.trunc(arr)).all()):
        arr = arr.astype(np.int64)
    elif kind in "US":
        arr = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("="))
        codes, _, _ = _native.encode_fixed(arr.view(np.uint8), arr.dtype.itemsize, kind == "U")
        return codes
    elif kind == "O":
        encoded = _native.encode_objects(np.ascontiguousarray(arr), _missing_values())
        if encoded is not None:
            codes, _, missing = encoded
            if missing:
                raise ValueError(
                    f"{name} has {missing} missing label{'s' if missing > 1 else ''}"
                    " (None, NaN or NA) out of "
                    f"{arr.shape[0]}; drop those samples or give them a label first"
                )
            return codes
        if arr.size and _object_has_nan(arr):
            raise ValueError("Input contains NaN.")
        arr = np.unique(arr, return_inverse=True)[1].reshape(-1)
    elif kind not in "iu":
        arr = np.unique(arr, return_inverse=True)[1].reshape(-1)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return np.ascontiguousarray(arr)


def count(labels_true: Any, labels_pred: Any, warn: bool = True) -> _native.Table:
    """Validates two labelings and builds their contingency table in one pass."""
    labels_true, labels_pred = check_clusterings(labels_true, labels_pred, warn)
    return _native.count(
        _for_rust(labels_true, "labels_true"), _for_rust(labels_pred, "labels_pred")
    )


def count_one(labels: Any) -> _native.Table:
    """The one-column table of a single labeling (its class sizes are the row sums)."""
    arr = to_array(labels).reshape(-1)
    return _native.count(_for_rust(arr, "labels"), np.zeros(arr.shape[0], dtype=np.uint8))
