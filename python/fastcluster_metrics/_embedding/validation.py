"""Where an embedding and its labelings are checked, once, before the core reads them.

``X`` is checked as scikit-learn's ``check_X_y`` checks it, with its error types and messages:
a dense array-like (NumPy in C or F order, lists, a pandas or polars frame, read through its
``to_numpy``) becomes one C-contiguous float32 or float64 array (float32 stays float32; every
other numeric dtype becomes float64), NaN and infinity refused. A scipy sparse matrix (any
format) is densified whole, into one ``n x d`` array, where a caller takes sparse input (the
silhouette); the others refuse it with scikit-learn's ``TypeError``. A precomputed distance
matrix is checked square, non-negative and zero on its diagonal.

Labels are every label type of the package (``_labels/codes.py``), re-coded ``0..k-1`` with
every code used, ``missing=`` applied; several labelings of the same samples (a 2-D array, one
labeling a row, or a list of labelings) become one ``(m, n)`` int64 array of codes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from numbers import Integral
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .._labels.codes import Column, Prepared, encode, prepare, prepared_array
from .._utils.params import InvalidParameterError, is_array_like

T = TypeVar("T")

__all__ = [
    "Labelings",
    "check_features",
    "check_finite",
    "check_labelings",
    "check_number_of_labels",
    "check_precomputed",
    "check_random_state",
    "finite_first",
    "finite_in_core",
    "is_sparse",
]


def check_number_of_labels(n_labels: int, n_samples: int) -> None:
    """scikit-learn's: a score of an embedding needs 2 to ``n_samples - 1`` labels."""
    if not 1 < n_labels < n_samples:
        raise ValueError(
            f"Number of labels is {n_labels}. Valid values are 2 to n_samples - 1 (inclusive)"
        )


def is_sparse(x: object) -> bool:
    """A scipy sparse matrix or array, recognised without importing scipy."""
    if "scipy.sparse" not in sys.modules:
        return False
    return bool(sys.modules["scipy.sparse"].issparse(x))


def _reshape_hint(arr: NDArray[Any]) -> ValueError:
    return ValueError(
        f"Expected 2D array, got {'scalar' if arr.ndim == 0 else '1D'} array instead:"
        f"\narray={arr}.\n"
        "Reshape your data either using array.reshape(-1, 1) if your data has a single"
        " feature or array.reshape(1, -1) if it contains a single sample."
    )


def _frame_values(x: Any) -> Any:
    """A pandas or polars frame's values (its ``to_numpy``); anything else as it is."""
    module = type(x).__module__
    if module.startswith(("pandas", "polars")) and hasattr(x, "to_numpy"):
        return x.to_numpy()
    return x


def check_finite(arr: NDArray[Any], name: str = "X") -> None:
    """scikit-learn's refusal of NaN and infinity in ``arr``, with its messages."""
    if arr.dtype.kind != "f":
        return
    # One reduction answers the usual case (all finite); the messages need to know which.
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(arr.sum(dtype=np.float64)) or np.isfinite(arr).all():
            return
    if np.isnan(arr).any():
        raise ValueError(f"Input {name} contains NaN.")
    raise ValueError(f"Input {name} contains infinity or a value too large for {arr.dtype!r}.")


def _float_dtype(dtype: np.dtype[Any]) -> type[np.floating[Any]]:
    """float32 stays float32; every other number is computed in float64 (scikit-learn's
    pairwise distances do the same)."""
    return np.float32 if dtype == np.float32 else np.float64


def check_features(x: Any, *, sparse: str = "densify", name: str = "X", finite: bool = True) -> Any:
    """``X`` as scikit-learn's ``check_array`` checks it; returns a C-contiguous float32 or
    float64 array (``sparse="keep"``, for scikit-learn's own path: a sparse matrix stays
    sparse, as CSR, and a dense array keeps its dtype; ``"refuse"``: a sparse matrix is a
    ``TypeError``; ``"densify"``: made dense). ``finite=False`` leaves a dense array's NaN
    and infinity to the core pass that reads it next (:func:`finite_in_core`): checking
    them here would read ``X`` once more, as long as the pass itself."""
    if is_sparse(x):
        if sparse == "refuse":
            raise TypeError(
                f"Sparse data was passed for {name}, but dense data is required. Use '.toarray()'"
                " to convert to a dense numpy array."
            )
        csr = x.tocsr()
        if csr.dtype.kind == "c":
            raise ValueError(f"Complex data not supported\n{csr}\n")
        shape = csr.shape
        _check_min(shape)
        check_finite(np.asarray(csr.data), name)
        if sparse == "keep":
            return csr
        # Densified whole: the kernels read dense rows (n x d floats above the input).
        return np.ascontiguousarray(csr.toarray(), dtype=_float_dtype(csr.dtype))
    arr = np.asarray(_frame_values(x))
    kind = arr.dtype.kind
    if kind == "c":
        raise ValueError(f"Complex data not supported\n{arr}\n")
    if kind in "USV":
        raise ValueError(
            "dtype='numeric' is not compatible with arrays of bytes/strings."
            "Convert your data to numeric values explicitly instead."
        )
    if kind == "O":
        arr = arr.astype(np.float64)
    if arr.ndim < 2:
        raise _reshape_hint(arr)
    if arr.ndim > 2:
        raise ValueError(f"Found array with dim {arr.ndim}, while dim <= 2 is required.")
    if finite:
        check_finite(arr, name)
    _check_min(arr.shape)
    out = arr if sparse == "keep" else arr.astype(_float_dtype(arr.dtype), copy=False)
    if not out.dtype.isnative:
        out = out.astype(out.dtype.newbyteorder("="))
    return np.require(out, requirements=["C", "A"])


def finite_in_core(call: Callable[[], T], data: NDArray[Any], name: str = "X") -> T:
    """``call()``, a core pass over ``data`` that refuses NaN and infinity from the sums of
    its first pass (``check_features(..., finite=False)`` left the check to it); a refusal
    becomes scikit-learn's message, or, where every value is finite but their sums
    overflow float64, an error that says so."""
    try:
        return call()
    except _native.NotFiniteError:
        check_finite(data, name)
        raise ValueError(
            f"Input {name} holds values too large to add up: their sums overflow float64."
        ) from None


@contextmanager
def finite_first(data: NDArray[Any], name: str = "X") -> Iterator[None]:
    """scikit-learn's order of errors where ``check_features(..., finite=False)`` left the
    NaN in ``data`` to the core: an error of the labels raised in the block comes after
    ``data``'s own, as ``check_X_y`` checks ``X`` first."""
    try:
        yield
    except (ValueError, TypeError):
        check_finite(data, name)
        raise


def _check_min(shape: tuple[int, ...]) -> None:
    if shape[0] < 1:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={shape}) while a minimum of 1 is required."
        )
    if shape[1] < 1:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={shape}) while a minimum of 1 is required."
        )


_DIAGONAL = (
    "The precomputed distance matrix contains non-zero elements on the diagonal."
    " Use np.fill_diagonal(X, 0)."
)


def check_precomputed(d: NDArray[Any]) -> None:
    """A distance matrix as scikit-learn takes it: zero on the diagonal (to 100 ulps of its
    dtype), square, non-negative."""
    atol = float(np.finfo(d.dtype).eps) * 100
    if np.any(np.abs(np.diagonal(d)) > atol):
        raise ValueError(_DIAGONAL)
    if d.shape[0] != d.shape[1]:
        raise ValueError(
            "Precomputed metric requires shape (n_queries, n_indexed). Got"
            f" {d.shape} for {d.shape[0]} indexed."
        )
    if d.size and float(d.min()) < 0:
        raise ValueError(
            "Negative values in data passed to `pairwise_distances`. Precomputed distance"
            "  need to have non-negative values.."
        )


@dataclass(frozen=True)
class Labelings:
    """One or more labelings of the same samples, as the core reads them."""

    codes: NDArray[np.int64]
    """(m, n) C-contiguous: each row one labeling, codes ``0..k-1``, every code used."""
    n_labels: list[int]
    """``k`` of each row."""
    many: bool
    """Whether the caller gave several labelings (the result then has one row each)."""
    keep: NDArray[np.bool_] | None
    """Which of the input's samples are kept (``missing="drop"``); None: all."""


def _labelings(labels: Any, n_samples: int) -> tuple[list[Prepared], bool]:
    """The labelings in ``labels``, each prepared (its array not yet checked), and whether
    there are several."""
    if isinstance(labels, (list, tuple)) and labels:
        first = labels[0]
        if is_array_like(first) and not isinstance(first, (str, bytes)):
            return [prepare(one, None) for one in labels], True
    prepared = prepare(labels, None)
    arr = prepared.arr
    if (
        arr is not None
        and arr.ndim == 2
        and arr.shape[1] == n_samples
        and arr.shape != (n_samples, 1)
    ):
        return [prepared_array(arr[j]) for j in range(arr.shape[0])], True
    return [prepared], False


def _one(prepared: Prepared, n_samples: int) -> Column:
    """One labeling checked (scikit-learn's ``column_or_1d`` and its finiteness check) and
    encoded; missing labels marked, not yet refused."""
    arr = prepared.arr
    if arr is not None:
        if arr.ndim == 2 and arr.shape[1] == 1:
            import warnings

            warnings.warn(
                "A column-vector y was passed when a 1d array was expected. Please change the"
                " shape of y to (n_samples, ), for example using ravel().",
                UserWarning,
                stacklevel=5,
            )
            arr = arr.reshape(-1)
            prepared = prepared_array(arr)
        if arr.ndim != 1:
            if arr.ndim == 0:
                raise TypeError(f"Singleton array {arr!r} cannot be considered a valid collection.")
            raise ValueError(f"y should be a 1d array, got an array of shape {arr.shape} instead.")
        if arr.dtype.kind == "c":
            raise ValueError(f"Complex data not supported\n{arr}\n")
        if arr.dtype.kind == "f" and np.isinf(arr).any():
            raise ValueError(f"Input y contains infinity or a value too large for {arr.dtype!r}.")
    shape = prepared.shape
    if shape[0] != n_samples:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: [{n_samples}, {shape[0]}]"
        )
    col = encode(prepared)
    if arr is not None and arr.dtype.kind == "f" and col.missing is not None:
        col = replace(col, nan=True)  # scikit-learn's "Input y contains NaN."
    return col


def _advice(k: int, n: int) -> str:
    return (
        f"{k} of {n} labels are missing; pass missing='drop' to leave those samples out,"
        " or missing='cluster' to count missing as one more label."
    )


def _dense_codes(codes: NDArray[Any]) -> tuple[NDArray[np.int64], int]:
    """Codes renumbered ``0..k-1`` in their order, every number used, and ``k``: the core's
    one-labeling count gives the distinct codes in one pass; a look-up table (a search,
    for codes spread too wide) maps each to its rank."""
    keys = _native.count_one(codes).row_keys().astype(np.int64)
    k = int(keys.size)
    out = codes.astype(np.int64, copy=False)
    if k == 0 or (keys[0] == 0 and keys[-1] == k - 1):
        return out, k
    if keys[0] >= 0 and keys[-1] < 4 * codes.shape[0] + 1024:
        table = np.zeros(int(keys[-1]) + 1, dtype=np.int64)
        table[keys] = np.arange(k, dtype=np.int64)
        return table[out], k
    return np.searchsorted(keys, out).astype(np.int64), k


def check_labelings(labels: Any, n_samples: int, missing: str) -> Labelings:
    """The labelings of ``n_samples`` samples, each checked and encoded, the ``missing``
    policy applied (``"drop"`` leaves out the samples missing in any labeling), re-coded
    ``0..k-1``. The number of labels is checked by the caller (after sampling)."""
    found, many = _labelings(labels, n_samples)
    columns = [_one(one, n_samples) for one in found]
    keep = None
    for col in columns:
        if col.missing is None:
            continue
        if missing == "raise":
            k = int(col.missing.sum())
            what = "Input y contains NaN." if col.nan else "labels has missing labels:"
            raise ValueError(f"{what} {_advice(k, len(col))}")
        if missing == "drop":
            keep = ~col.missing if keep is None else keep & ~col.missing
    n = n_samples if keep is None else int(keep.sum())
    codes = np.empty((len(columns), n), dtype=np.int64)
    n_labels = []
    for j, col in enumerate(columns):
        raw = col.codes if keep is None else col.codes[keep]
        codes[j], k = _dense_codes(np.ascontiguousarray(raw))
        n_labels.append(k)
    return Labelings(codes, n_labels, many, keep)


def check_random_state(seed: object) -> np.random.RandomState:
    """scikit-learn's ``check_random_state``: None is NumPy's global RandomState, an int
    seeds a new one, a RandomState is used as it is."""
    if seed is None or seed is np.random:
        return np.random.mtrand._rand
    if isinstance(seed, Integral):
        return np.random.RandomState(int(seed))
    if isinstance(seed, np.random.RandomState):
        return seed
    raise InvalidParameterError(
        f"{seed!r} cannot be used to seed a numpy.random.RandomState instance"
    )
