"""Where a neighbour graph is checked, once, before the core reads it.

Three forms, one :class:`Graph`:

- scib-metrics' ``NeighborsResults``, or anything with ``.indices`` and ``.distances``: two
  ``(n, k)`` arrays, row ``i`` the ``k`` nearest neighbours of cell ``i``, the cell itself
  among them (first, at distance 0);
- a plain ``(indices, distances)`` tuple of such arrays;
- a scipy sparse matrix of distances (``n x n``, any format, read as CSR), as scanpy's
  ``adata.obsp["distances"]`` holds it: row ``i``'s stored entries are cell ``i``'s neighbours
  (an explicit zero is a neighbour at distance 0), the cell itself not among them, and rows may
  hold different numbers of neighbours.

``k`` is the arrays' width in the first two forms; for a sparse matrix it is its longest row
plus one (the cell itself, as scanpy's ``n_neighbors`` counts it), so that both forms of one
k-nearest-neighbour search have the same ``k``, the same default perplexity and the same
scores. A sparse row may store the cell itself (scikit-learn's ``kneighbors_graph(...,
include_self=True)``): every score passes over it, but it counts in the longest row.

The indices are read as ``int32`` or ``int64``, the distances as ``float32`` or ``float64``,
without copies where they already are; each index being a cell of the graph and
each distance finite and non-negative is checked by the core as it reads the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._embedding.validation import check_labelings, is_sparse

__all__ = ["Graph", "check_graph", "check_labels"]


@dataclass(frozen=True)
class Graph:
    """A neighbour graph as the core reads it."""

    n: int
    """The number of cells."""
    k: int
    """The neighbours a row, the cell itself counted (a sparse matrix's longest row + 1)."""
    fixed: bool
    """Whether every row holds ``k`` neighbours (the arrays forms); else rows lie between
    ``offsets``."""
    offsets: NDArray[np.int64]
    """Row ``i``'s neighbours lie at ``offsets[i]:offsets[i + 1]`` (``n + 1`` values)."""
    indices: NDArray[Any]
    """The neighbours' indices, flat (``int32`` or ``int64``)."""
    distances: NDArray[Any]
    """Their distances, flat (``float32`` or ``float64``)."""
    with_self: bool
    """Whether each cell is to be counted among its own neighbours where it is not stored
    (a sparse matrix's rows)."""

    def native(self) -> tuple[int, int | None, NDArray[np.int64] | None, Any, Any]:
        """The first five arguments of the core's graph functions."""
        if self.fixed:
            return self.n, self.k, None, self.indices, self.distances
        return self.n, None, self.offsets, self.indices, self.distances


def _indices(a: NDArray[Any]) -> NDArray[Any]:
    if a.dtype.kind not in "iu":
        raise ValueError(f"neighbour indices must be integers, not {a.dtype}")
    dtype = a.dtype if a.dtype in (np.dtype(np.int32), np.dtype(np.int64)) else np.int64
    return np.ascontiguousarray(a, dtype=dtype).reshape(-1)


def _distances(a: NDArray[Any]) -> NDArray[Any]:
    if a.dtype.kind not in "fiub":
        raise ValueError(f"distances must be numbers, not {a.dtype}")
    dtype = a.dtype if a.dtype in (np.dtype(np.float32), np.dtype(np.float64)) else np.float64
    return np.ascontiguousarray(a, dtype=dtype).reshape(-1)


def _rows(a: Any, what: str) -> NDArray[Any]:
    try:
        arr = np.asarray(a)
    except ValueError as e:  # NumPy's "inhomogeneous shape": rows of different lengths
        raise ValueError(
            f"the {what} have rows of different lengths: give (n, k) arrays, or a scipy sparse"
            " matrix for rows of their own lengths"
        ) from e
    if arr.dtype == object:
        raise ValueError(
            f"the {what} have rows of different lengths: give (n, k) arrays, or a scipy sparse"
            " matrix for rows of their own lengths"
        )
    if arr.ndim != 2:
        raise ValueError(f"the {what} must be a 2-D (n_cells, n_neighbors) array, not {arr.ndim}-D")
    return arr


def _arrays(indices: Any, distances: Any) -> Graph:
    idx = _rows(indices, "neighbour indices")
    dist = _rows(distances, "distances")
    if idx.shape != dist.shape:
        raise ValueError(
            f"neighbour indices of shape {idx.shape} and distances of shape {dist.shape}:"
            " they must have the same shape"
        )
    n, k = idx.shape
    if k == 0:
        raise ValueError("a graph needs at least one neighbour a cell")
    offsets = np.arange(0, n * k + 1, k, dtype=np.int64) if k else np.zeros(n + 1, np.int64)
    return Graph(n, k, True, offsets, _indices(idx), _distances(dist), False)


def _sparse(x: Any) -> Graph:
    if x.ndim != 2 or x.shape[0] != x.shape[1]:
        raise ValueError(
            f"a sparse distance matrix must be square (n_cells, n_cells), not {x.shape}"
        )
    csr = x.tocsr()
    n = int(csr.shape[0])
    offsets = np.ascontiguousarray(csr.indptr, dtype=np.int64)
    widest = int(np.diff(offsets).max()) if n else 0
    return Graph(n, widest + 1, False, offsets, _indices(csr.indices), _distances(csr.data), True)


def check_graph(x: Any) -> Graph:
    """The graph ``x`` in any of its forms (see the module's note)."""
    if is_sparse(x):
        return _sparse(x)
    if hasattr(x, "indices") and hasattr(x, "distances"):
        return _arrays(x.indices, x.distances)
    if isinstance(x, tuple) and len(x) == 2:
        return _arrays(x[0], x[1])
    raise TypeError(
        "X must be a NeighborsResults (an object with .indices and .distances), an"
        " (indices, distances) tuple of (n_cells, n_neighbors) arrays, or a scipy sparse"
        f" distance matrix (as adata.obsp['distances']), not {type(x).__name__}"
    )


def check_labels(labels: Any, graph: Graph) -> tuple[NDArray[np.int64], int]:
    """Labels of the graph's cells as codes ``0..k-1`` (every label type of the package) and
    ``k``."""
    found = check_labelings(labels, graph.n, "raise")
    if found.many:
        raise ValueError("one labeling of the cells is expected, not several")
    return np.ascontiguousarray(found.codes[0]), int(found.n_labels[0])
