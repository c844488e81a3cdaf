"""Tables given by the user, read into the core's table; and dense or sparse tables handed back.

A given table (a dense array-like, a scipy sparse matrix) is checked here, once, before
anything is allocated: 2-D, counts that are finite, non-negative, fit in int64 and sum to
fewer than 2**64 samples; the :class:`Contingency` constructor also refuses non-integral and
non-numeric counts, which ``mutual_info_score(contingency=...)`` casts as scikit-learn does.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

from .. import _native
from .._utils.params import scipy_module

__all__ = [
    "SAMPLES_LIMIT",
    "check_dense_fits",
    "contingency_table",
    "csr",
    "given_table",
    "physical_memory",
]

INT64_LIMIT = 2**63
SAMPLES_LIMIT = 2**64  # the core counts samples in u64
SIDE_LIMIT = 2**32 - 2  # the core indexes rows and columns in u32


def physical_memory() -> int | None:
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None


def _room() -> tuple[int, str] | None:
    """What this process may still allocate, and what limits it (its cgroup's limit or the
    available memory, as the core reads them: ``rust/core/src/memory.rs``; else the machine's
    memory, where only that can be read)."""
    usable = _native.usable_memory()
    if usable is not None:
        return usable
    have = physical_memory()
    return None if have is None else (have, "the machine's memory")


def _size(n: int) -> str:
    """``n`` bytes for a message: GiB, MiB, or bytes."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:,} bytes"


def check_dense_fits(shape: tuple[int, int], dtype: np.dtype[Any]) -> None:
    """Refuses, before allocating, a dense table larger than the memory this process may
    still use: its pages would be promised, and the process killed as it fills them."""
    need = shape[0] * shape[1] * dtype.itemsize
    room = _room()
    if room is not None and need > room[0]:
        raise MemoryError(
            f"a dense {shape[0]} x {shape[1]} contingency matrix of {dtype} needs"
            f" {_size(need)}, more than the {_size(room[0])} this process may use ({room[1]});"
            " use sparse=True"
        )


def csr(
    shape: tuple[int, int],
    rows: NDArray[Any],
    cols: NDArray[Any],
    counts: NDArray[Any],
    dtype: DTypeLike,
) -> Any:
    return scipy_module("sparse", "sparse contingency matrices").csr_matrix(
        (counts.astype(dtype), (rows, cols)), shape=shape
    )


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
    if top >= INT64_LIMIT:
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
    if max(shape) > SIDE_LIMIT:
        raise ValueError(
            f"a {shape[0]} x {shape[1]} contingency table has more than 2**32 - 2 rows or columns"
        )
    need = 16 * (shape[0] + shape[1])  # u64 row and column sums, and their int64 copies
    room = _room()
    if room is not None and need > room[0]:
        raise MemoryError(
            f"the row and column sums of a {shape[0]} x {shape[1]} contingency table need"
            f" {_size(need)}, more than the {_size(room[0])} this process may use ({room[1]})"
        )


def given_table(contingency: Any, *, strict: bool) -> _native.Table:
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
    if total >= SAMPLES_LIMIT:
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


def contingency_table(contingency: Any) -> _native.Table:
    """A table from the ``contingency`` of ``mutual_info_score`` (counts cast to int)."""
    shape = getattr(contingency, "shape", None) or np.shape(contingency)
    if len(shape) == 2 and min(shape) == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={tuple(shape)}) while a minimum of 1 is required."
        )
    return given_table(contingency, strict=False)
