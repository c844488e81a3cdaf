"""Where an AnnData file's arrays of cells are read: an embedding of ``obsm`` (a dense array,
``obsm["X_pca"]``) or a neighbour graph of ``obsp`` (a CSR matrix, ``obsp["distances"]``), of
an .h5ad file or a zarr store, through the guarded store (``anndata_store.py``), checked.

An ``obsm`` entry is a 2-D numeric dataset with a row per cell, its values finite; read as
float64 (float32 kept). A dataframe entry (encoding ``dataframe``) or a sparse one is refused.
An ``obsp`` entry is a group of encoding ``csr_matrix`` (or ``csc_matrix``, turned into CSR):
``data``, ``indices``, ``indptr`` and the attribute ``shape``, n_obs by n_obs; its ``indptr``
starts at 0, never decreases and ends at the number of stored values, its ``indices`` lie
inside the matrix, its values are finite. scipy makes the matrix (an optional extra).
Problems are :class:`AnnDataError` (the file's name added by the caller).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .anndata_errors import AnnDataError, UnsafeElementError, _reason
from .anndata_files import obs_columns
from .anndata_store import _attr, _Group, _is_group, _root

__all__ = ["read_obsm", "read_obsp"]

_SPARSE = ("csr_matrix", "csc_matrix")


def _entry(root: _Group, slot: str, key: str) -> Any:
    """``slot[key]`` (``obsm``, ``obsp``), or the error that names the keys there are."""
    try:
        group = root[slot] if slot in root else None
        keys = sorted(group.keys()) if isinstance(group, _Group) else []
        if not isinstance(group, _Group) or key not in keys:
            found = ", ".join(repr(k) for k in keys) or "none"
            raise AnnDataError(f"no {slot}[{key!r}]; the {slot} keys are: {found}")
        return group[key]
    except UnsafeElementError as e:
        raise e.about(f"{slot}[{key!r}]") from e


def _numbers(values: Any, what: str) -> NDArray[Any]:
    array = np.asarray(values)
    if array.dtype.kind not in "biuf":
        raise AnnDataError(f"{what} holds values of type {array.dtype}, not numbers")
    if array.dtype.kind != "f":
        array = array.astype(np.float64)
    if not np.isfinite(array).all():
        bad = int(np.count_nonzero(~np.isfinite(array)))
        raise AnnDataError(
            f"{what} holds {bad:,} of its {array.size:,} values not finite (NaN or infinity)"
        )
    return array


def read_obsm(path: Path, kind: str, key: str) -> NDArray[np.floating[Any]]:
    """The dense array ``obsm[key]`` of an AnnData file (``kind`` ``"h5ad"`` or ``"zarr"``),
    checked: 2-D, numeric, finite, a row per cell."""
    n = obs_columns(path, kind)[1]
    what = f"obsm[{key!r}]"
    with _root(path, kind) as root:
        element = _entry(root, "obsm", key)
        encoding = _attr(element, "encoding-type")
        if _is_group(element):
            shown = "a dataframe" if encoding == "dataframe" else f"stored as {encoding!r}"
            raise AnnDataError(f"{what} is {shown}; an embedding is a dense array of numbers")
        if len(element.shape) != 2:
            raise AnnDataError(f"{what} has shape {tuple(element.shape)}, not 2-D (cells x dims)")
        if int(element.shape[0]) != n:
            raise AnnDataError(
                f"{what} has {int(element.shape[0]):,} rows, not one per cell ({n:,} in obs)"
            )
        try:
            values = element[...]
        except (KeyError, ValueError, TypeError, OSError) as e:
            raise AnnDataError(f"{what} cannot be read: {_reason(e)} ({type(e).__name__})") from e
    return _numbers(values, what)


def read_obsp(path: Path, kind: str, key: str) -> Any:
    """The sparse matrix ``obsp[key]`` of an AnnData file as a ``scipy.sparse.csr_matrix``,
    checked: n_obs by n_obs, its ``indptr`` and ``indices`` consistent, its values finite."""
    try:
        import scipy.sparse as sp
    except ImportError as e:
        raise ImportError(
            f"reading a neighbour graph (obsp) needs scipy: pip install scipy ({e})"
        ) from e
    n = obs_columns(path, kind)[1]
    what = f"obsp[{key!r}]"
    with _root(path, kind) as root:
        element = _entry(root, "obsp", key)
        encoding = _attr(element, "encoding-type")
        if not _is_group(element) or encoding not in _SPARSE:
            shown = "a dense array" if not _is_group(element) else f"stored as {encoding!r}"
            raise AnnDataError(
                f"{what} is {shown}; a neighbour graph is a sparse matrix (csr_matrix)"
            )
        shape = tuple(int(s) for s in np.atleast_1d(_attr(element, "shape", ())))
        if shape != (n, n):
            raise AnnDataError(f"{what} has shape {shape}, not cells x cells ({n:,} in obs)")
        try:
            parts = {name: np.asarray(element[name][...]) for name in ("data", "indices", "indptr")}
        except (KeyError, ValueError, TypeError, OSError) as e:
            raise AnnDataError(f"{what} cannot be read: {_reason(e)} ({type(e).__name__})") from e
    data = _numbers(parts["data"], what)
    indices, indptr = parts["indices"], parts["indptr"]
    for name, array in (("indices", indices), ("indptr", indptr)):
        if array.ndim != 1 or array.dtype.kind not in "iu":
            raise AnnDataError(f"{what}: its {name} are not a 1-D array of integers")
    if data.ndim != 1 or len(indptr) != n + 1 or len(indices) != len(data):
        raise AnnDataError(
            f"{what}: {len(indptr):,} indptr for {n:,} rows (not {n + 1:,}), or"
            f" {len(indices):,} indices for {len(data):,} values"
        )
    if indptr[0] != 0 or indptr[-1] != len(data) or (np.diff(indptr) < 0).any():
        raise AnnDataError(
            f"{what}: its indptr do not run from 0 up to the {len(data):,} stored values"
        )
    if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= n):
        raise AnnDataError(f"{what}: an index outside its {n:,} columns")
    matrix = sp.csr_matrix if encoding == "csr_matrix" else sp.csc_matrix
    return sp.csr_matrix(matrix((data, indices, indptr), shape=(n, n)))
