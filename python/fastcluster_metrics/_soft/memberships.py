"""Memberships and covers read and checked at the edge.

A *membership matrix* (n samples x k clusters) gives each sample a non-negative weight on each
cluster: a classifier's probabilities, a fuzzy clustering's memberships. It is read as

- a 2-D NumPy array (or anything ``np.asarray`` makes one of: a DataFrame, nested lists),
  kept as float64 and read in chunks of rows;
- a SciPy sparse matrix (top-k probabilities), kept sparse (CSR);
- 1-D labels of any type the metrics take (``_labels/codes.py``), read as one-hot rows: one
  cluster per sample, so that every hard-label oracle applies.

Entries must be finite and non-negative, and every row must have a positive entry. Rows are used
as given: a probability row that does not sum to 1 is not rescaled (the Frobenius indices do
not change when a whole matrix is multiplied by one number, but a row's scale weighs its
pairs).

A *cover* gives each sample a set of labels (overlapping clusters, multi-label annotations):
a list of label sets per sample (each a list, tuple, set or array of labels of any type), a
0/1 matrix (dense or sparse; a column per label), or 1-D labels (one label each, a partition).
Every sample needs at least one label.

Errors name the function, the argument and the first bad row.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._labels.codes import encode, missing_advice, prepare

__all__ = [
    "CHUNK_ROWS",
    "Cover",
    "Memberships",
    "check_same_samples",
    "read_cover",
    "read_memberships",
]

CHUNK_ROWS = 8192
"""Rows per chunk of a dense matrix: two chunks of 30 columns (4 MB) stay in a core's cache
while they are checked and multiplied."""


@dataclass(frozen=True)
class Memberships:
    """An n x k membership matrix in the form it was given: exactly one of ``dense`` (float64,
    checked chunk by chunk as it is read: :meth:`chunks`), ``sparse`` (SciPy CSR, float64,
    checked) or ``codes`` (one-hot: each sample's column, 0..k-1)."""

    func: str
    name: str
    n: int
    k: int
    dense: NDArray[np.float64] | None = None
    sparse: Any = None
    codes: NDArray[np.intp] | None = None
    labels: NDArray[Any] | None = None
    """With ``codes``: the label of each column (sorted), by which chunks align."""

    def chunks(self, rows: int = CHUNK_ROWS) -> Iterator[tuple[int, NDArray[np.float64]]]:
        """``(start, block)`` of the dense matrix, each block checked (:func:`check_block`)."""
        assert self.dense is not None
        for start in range(0, self.n, rows):
            block = self.dense[start : start + rows]
            check_block(self.func, self.name, block, start)
            yield start, block

    def checked(self) -> None:
        """Checks every row of a dense matrix (the others are checked when read)."""
        if self.dense is not None:
            for _ in self.chunks(1 << 16):
                pass


@dataclass(frozen=True)
class Cover:
    """Each sample's set of labels: sample ``i`` has the label codes
    ``labels[indptr[i]:indptr[i + 1]]``, sorted and distinct, each in ``0..k-1``."""

    n: int
    k: int
    indptr: NDArray[np.int64]
    labels: NDArray[np.int64]

    @property
    def sizes(self) -> NDArray[np.int64]:
        """How many labels each sample has."""
        sizes: NDArray[np.int64] = np.diff(self.indptr)
        return sizes


def _sparse_module() -> Any:
    """``scipy.sparse`` if it is already imported (a sparse input implies it), else None."""
    return sys.modules.get("scipy.sparse")


def _is_sparse(x: Any) -> bool:
    sparse = _sparse_module()
    return sparse is not None and bool(sparse.issparse(x))


def _error(func: str, name: str, text: str) -> ValueError:
    return ValueError(f"{func}: {name} {text}")


def check_block(func: str, name: str, block: NDArray[Any], start: int) -> None:
    """ValueError naming the first row of ``block`` (rows ``start..``) with a NaN, an infinite
    or a negative entry, or no positive entry. Whole-block reductions and one product, all
    in cache (a row-by-row ``min(axis=1)`` costs more than the products it guards)."""
    if not block.size:
        if block.shape[0]:
            _refuse_rows(func, name, block, start)
        return
    low, high = block.min(), block.max()
    # non-negative and finite, so that a row sums to 0 exactly when it is all zero
    if not (low >= 0 and high < np.inf) or not (block @ np.ones(block.shape[1]) > 0).all():
        _refuse_rows(func, name, block, start)


def _refuse_rows(func: str, name: str, block: NDArray[Any], start: int) -> None:
    nan = np.asarray(np.isnan(block).any(axis=1))
    inf = np.asarray(np.isinf(block).any(axis=1))
    neg = np.asarray((block < 0).any(axis=1))
    empty = np.asarray(~(block > 0).any(axis=1))
    bad = nan | inf | neg | empty
    row = int(np.argmax(bad))
    where = f"row {start + row}"
    if nan[row]:
        raise _error(func, name, f"has NaN in {where}: memberships must be finite numbers")
    if inf[row]:
        raise _error(func, name, f"has an infinite entry in {where}: memberships must be finite")
    if neg[row]:
        col = int(np.argmax(block[row] < 0))
        raise _error(
            func,
            name,
            f"has a negative entry in {where} (column {col}: {block[row, col].item()!r});"
            " memberships must be non-negative",
        )
    raise _error(
        func,
        name,
        f"{where} is all zero: every sample needs a positive membership (or a label)",
    )


def _label_codes(func: str, name: str, labels: Any) -> tuple[NDArray[np.intp], NDArray[Any]]:
    """Any 1-D labels as dense codes ``0..k-1`` (the package's encoding) and the label of each
    code; missing refused."""
    column = encode(prepare(labels))
    if column.missing is not None:
        count = int(column.missing.sum())
        raise _error(func, name, f"has missing labels: {missing_advice(count, len(column))}")
    uniques, codes = np.unique(column.codes, return_inverse=True)
    return codes.reshape(-1).astype(np.intp, copy=False), column.labels(uniques)


def _two_d(func: str, name: str, x: Any) -> NDArray[Any] | None:
    """``x`` as a NumPy array when it is a 2-D matrix, None when it is 1-D labels; a
    ValueError for any other number of dimensions."""
    if hasattr(x, "to_numpy") and getattr(x, "ndim", 1) == 2:
        x = x.to_numpy()
    if isinstance(x, np.ndarray):
        arr = x
    elif isinstance(x, (list, tuple)) and x and isinstance(x[0], (list, tuple, np.ndarray)):
        arr = np.asarray(x)
    else:
        return None
    if arr.ndim == 1:
        return None
    if arr.ndim != 2:
        raise _error(
            func,
            name,
            f"must be 1-D labels or a 2-D (n_samples, n_clusters) matrix: shape is {arr.shape!r}",
        )
    return arr


def _numbers(func: str, name: str, arr: NDArray[Any]) -> NDArray[np.float64]:
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{func}: {name} must hold numbers; its dtype is {arr.dtype}")
    out: NDArray[np.float64] = np.asarray(arr, dtype=np.float64)
    return out


def read_memberships(func: str, name: str, x: Any) -> Memberships:
    """``x`` as memberships (see the module's docstring). Sparse matrices are checked here;
    dense ones as their chunks are read (:meth:`Memberships.chunks`)."""
    if _is_sparse(x):
        csr = x.tocsr().astype(np.float64)
        csr.sum_duplicates()
        n, k = csr.shape
        data = csr.data
        if not np.isfinite(data).all() or (data < 0).any() or not _rows_filled(csr):
            # the first bad row, with the dense check's message
            bad = ~np.isfinite(data) | (data < 0)
            rows = np.repeat(np.arange(n), np.diff(csr.indptr))
            first = int(rows[np.argmax(bad)]) if bad.any() else n
            empty = np.flatnonzero(~_row_positive(csr))
            if empty.size and empty[0] < first:
                first = int(empty[0])
            _refuse_rows(func, name, csr[first].toarray(), first)
        return Memberships(func, name, int(n), int(k), sparse=csr)
    arr = _two_d(func, name, x)
    if arr is None:
        codes, values = _label_codes(func, name, x)
        return Memberships(
            func, name, int(codes.shape[0]), int(values.shape[0]), codes=codes, labels=values
        )
    dense = _numbers(func, name, arr)
    return Memberships(func, name, int(dense.shape[0]), int(dense.shape[1]), dense=dense)


def _row_positive(csr: Any) -> NDArray[np.bool_]:
    """Whether each row of a CSR matrix has a positive entry."""
    positive = (csr.data > 0).astype(np.int64)
    counts = np.zeros(csr.shape[0], dtype=np.int64)
    rows = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr))
    np.add.at(counts, rows, positive)
    found: NDArray[np.bool_] = counts > 0
    return found


def _rows_filled(csr: Any) -> bool:
    return bool(_row_positive(csr).all())


def check_same_samples(func: str, names: tuple[str, str], n_a: int, n_b: int) -> None:
    """scikit-learn's message for two inputs of different lengths, naming them."""
    if n_a != n_b:
        raise ValueError(
            f"{func}: {names[0]} and {names[1]} must have one row per sample each."
            f" Found input variables with inconsistent numbers of samples: [{n_a}, {n_b}]"
        )


# --- covers ----------------------------------------------------------------------------------


def _is_label_set(x: object) -> bool:
    return isinstance(x, (list, tuple, set, frozenset, np.ndarray)) or (
        hasattr(x, "__iter__") and not isinstance(x, (str, bytes)) and not np.isscalar(x)
    )


def _sets_given(x: Any) -> bool:
    """Whether ``x`` is a sequence of label sets (rather than 1-D labels or a matrix)."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind != "O" or x.ndim != 1:
            return False
    elif hasattr(x, "dtype") and hasattr(x, "to_numpy"):
        if getattr(x.dtype, "kind", None) != "O":
            return False
    elif not isinstance(x, (list, tuple)):
        return False
    for item in x:
        return _is_label_set(item)
    return False


def _cover_from_pairs(
    n: int, rows: NDArray[Any], codes: NDArray[Any], k: int, func: str, name: str
) -> Cover:
    """The cover of (sample, label code) pairs: sorted by sample then label, repeats dropped;
    a ValueError naming the first sample without a label."""
    key = rows.astype(np.int64) * max(k, 1) + codes.astype(np.int64)
    if key.size and not (key[1:] > key[:-1]).all():  # sorted and distinct already (CSR)
        key = np.unique(key)
    rows_s = key // max(k, 1)
    labels = key - rows_s * max(k, 1)
    counts = np.bincount(rows_s, minlength=n)
    if n and not (counts > 0).all():
        first = int(np.argmax(counts == 0))
        raise _error(
            func,
            name,
            f"gives row {first} no label: every sample needs at least one label (leave out"
            " the samples without one)",
        )
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return Cover(n, k, indptr, labels.astype(np.int64, copy=False))


def _binary_matrix(func: str, name: str, arr: NDArray[Any]) -> tuple[NDArray[Any], ...]:
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{func}: {name} must hold numbers; its dtype is {arr.dtype}")
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        row = int(np.argmax(bad.any(axis=1)))
        col = int(np.argmax(bad[row]))
        raise _error(
            func,
            name,
            f"as a matrix must hold 0 and 1 only: row {row} has {arr[row, col].item()!r}"
            f" in column {col}",
        )
    return tuple(np.nonzero(arr))


def read_cover(func: str, name: str, x: Any) -> Cover:
    """``x`` as a cover (see the module's docstring)."""
    if _is_sparse(x):
        csr = x.tocsr(copy=True)
        csr.sum_duplicates()  # sorts the indices too
        n, k = csr.shape
        data = np.asarray(csr.data)
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(csr.indptr))
        bad = (data != 0) & (data != 1)
        if bad.any():
            i = int(np.argmax(bad))
            raise _error(
                func,
                name,
                f"as a matrix must hold 0 and 1 only: row {int(rows[i])} has"
                f" {data[i].item()!r} in column {int(csr.indices[i])}",
            )
        keep = data != 0
        return _cover_from_pairs(int(n), rows[keep], csr.indices[keep], int(k), func, name)
    if _sets_given(x):
        sizes = np.fromiter((len(item) for item in x), dtype=np.int64)
        n = int(sizes.shape[0])
        flat = [label for item in x for label in item]
        rows = np.repeat(np.arange(n, dtype=np.int64), sizes)
        if not flat:
            return _cover_from_pairs(n, rows, rows, 0, func, name)
        # One Python type (str, int): a typed array, hashed or read as numbers; mixed types
        # stay objects, so that 1 and "1" remain two labels.
        if len({type(v) for v in flat}) == 1:
            flat_arr = np.asarray(flat)
        else:
            flat_arr = np.empty(len(flat), dtype=object)
            flat_arr[:] = flat
        codes, values = _label_codes(func, name, flat_arr)
        return _cover_from_pairs(n, rows, codes, int(values.shape[0]), func, name)
    arr = _two_d(func, name, x)
    if arr is not None:
        rows, cols = _binary_matrix(func, name, arr)
        return _cover_from_pairs(int(arr.shape[0]), rows, cols, int(arr.shape[1]), func, name)
    codes, values = _label_codes(func, name, x)
    n = int(codes.shape[0])
    indptr = np.arange(n + 1, dtype=np.int64)
    return Cover(n, int(values.shape[0]), indptr, codes.astype(np.int64))
