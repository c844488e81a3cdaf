"""The k nearest neighbours of each cell of an embedding: ``(n, k)`` arrays of indices and
float32 distances, each cell first among its own neighbours (at distance 0), nearest first,
as ``Benchmarker.prepare`` finds them (each graph metric of :func:`scib_benchmark` takes its
first 15, 50 or 90) and as scib-metrics' per-label kBET finds them in a diffusion map
(``_graph/diffusion.py``).

Three sources: a graph already in ``obsp`` (scanpy's ``obsp["distances"]`` of
``sc.pp.neighbors(n_neighbors=90)``: each row's stored neighbours, the cell itself not among
them, sorted here by distance); an exact search (scikit-learn's brute-force
``NearestNeighbors``, Euclidean, the default); or pynndescent's approximate search, called as
scib-metrics calls it (``random_state=0``, its number of trees and iterations), which gives
Benchmarker's own neighbours, after about a minute of compiling pynndescent's code in each
new process.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .validation import is_sparse

__all__ = ["Neighbors", "from_graph", "search"]

Neighbors = tuple[NDArray[np.int64], NDArray[np.float32]]
"""``(indices, distances)``, each ``(n, k)``."""


def _needs(what: str, extra: str = "scib") -> ImportError:
    return ImportError(
        f"the neighbour search needs {what} (pip install 'fastcluster-metrics[{extra}]')"
    )


def exact(x: NDArray[Any], k: int, n_jobs: int | None = 1) -> Neighbors:
    """The ``k`` nearest neighbours of each row of ``x`` (itself first), exactly."""
    try:
        from sklearn.neighbors import NearestNeighbors
    except ImportError as e:  # pragma: no cover - scikit-learn is in the scib extra
        raise _needs("scikit-learn") from e
    n = x.shape[0]
    if n < k:
        raise ValueError(f"{k} neighbours a cell need at least {k} cells; there are {n}")
    found = NearestNeighbors(n_neighbors=k - 1, algorithm="brute", n_jobs=n_jobs).fit(x)
    # without a query the search leaves each cell out of its own neighbours: prepend it
    dist, idx = found.kneighbors()
    indices = np.empty((n, k), np.int64)
    indices[:, 0] = np.arange(n)
    indices[:, 1:] = idx
    distances = np.zeros((n, k), np.float32)
    distances[:, 1:] = dist
    return indices, distances


def pynndescent(x: NDArray[Any], k: int, n_jobs: int | None = 1) -> Neighbors:
    """scib-metrics' ``nearest_neighbors.pynndescent``: the same call of pynndescent."""
    try:
        from pynndescent import NNDescent
    except ImportError as e:
        raise _needs("pynndescent", "scib") from e
    n = x.shape[0]
    index = NNDescent(
        x,
        n_neighbors=k,
        random_state=0,
        low_memory=True,
        n_jobs=n_jobs,
        compressed=False,
        n_trees=min(64, 5 + round(n**0.5 / 20.0)),
        n_iters=max(5, round(float(np.log2(n)))),
        max_candidates=60,
    )
    indices, distances = index.neighbor_graph
    return np.asarray(indices, np.int64), np.asarray(distances, np.float32)


def search(
    x: NDArray[Any], k: int, computer: str | Callable[..., Any] | None, n_jobs: int | None
) -> Neighbors:
    """``x``'s neighbours by ``computer``: None or ``"exact"``, ``"pynndescent"``, or a
    callable ``(x, k)`` returning a ``NeighborsResults`` (anything with ``.indices`` and
    ``.distances``), as ``Benchmarker.prepare(neighbor_computer=...)`` takes."""
    if computer is None or computer == "exact":
        return exact(x, k, n_jobs)
    if computer == "pynndescent":
        return pynndescent(x, k, n_jobs)
    if callable(computer):
        found = computer(x, k)
        indices = np.asarray(found.indices)
        distances = np.asarray(found.distances, dtype=np.float32)
        if indices.ndim != 2 or indices.shape != distances.shape or indices.shape[1] < k:
            raise ValueError(
                f"neighbor_computer gave neighbours of shape {indices.shape}; {k} neighbours"
                f" for each of the {x.shape[0]} cells are needed"
            )
        return indices[:, :k].astype(np.int64, copy=False), distances[:, :k]
    raise ValueError(
        "neighbor_computer is None or 'exact' (an exact search), 'pynndescent' (Benchmarker's),"
        f" or a callable (X, k) returning a NeighborsResults; got {computer!r}"
    )


def from_graph(graph: Any, k: int, name: str, n: int) -> Neighbors:
    """The ``k`` nearest neighbours (the cell itself first) of a sparse distance matrix whose
    rows hold each cell's neighbours but itself, as scanpy's ``obsp["distances"]``."""
    if not is_sparse(graph):
        raise TypeError(
            f"obsp[{name!r}] must be a scipy sparse distance matrix (as scanpy's"
            f" obsp['distances']), not {type(graph).__name__}"
        )
    if graph.shape != (n, n):
        raise ValueError(f"obsp[{name!r}] has shape {graph.shape}, not ({n}, {n})")
    csr = graph.tocsr()
    counts = np.diff(csr.indptr).astype(np.int64)
    rows, cols, data = without_self(
        np.repeat(np.arange(n, dtype=np.int64), counts),
        np.asarray(csr.indices, np.int64),
        np.asarray(csr.data, np.float32),
    )
    per_row = np.bincount(rows, minlength=n)
    short = np.flatnonzero(per_row < k - 1)
    if short.size:
        raise ValueError(
            f"obsp[{name!r}] holds {per_row[short[0]]} neighbours of cell {short[0]}; the"
            f" benchmark reads the {k - 1} nearest of each cell (scanpy's"
            f" sc.pp.neighbors(n_neighbors={k}) keeps them)"
        )
    if data.size and (not np.isfinite(data).all() or data.min() < 0):
        raise ValueError(f"obsp[{name!r}] holds distances that are negative or not finite")
    return nearest(rows, cols, data, per_row, k)


def without_self(
    rows: NDArray[np.int64], cols: NDArray[Any], data: NDArray[Any]
) -> tuple[NDArray[np.int64], NDArray[Any], NDArray[Any]]:
    """A sparse graph's entries (row, column, distance) but those of a cell in its own row: a
    stored diagonal (scikit-learn's ``kneighbors_graph(..., include_self=True)``) is the cell
    itself, which :func:`nearest` puts first."""
    other = cols != rows
    if other.all():
        return rows, cols, data
    return rows[other], cols[other], data[other]


def nearest(
    rows: NDArray[np.int64],
    cols: NDArray[Any],
    data: NDArray[Any],
    per_row: NDArray[np.int64],
    k: int,
) -> Neighbors:
    """Each cell's ``k - 1`` nearest entries (each row holding at least that many, the cell
    itself not among them) as ``(n, k)`` arrays, the cell itself first at distance 0, as
    scib-metrics' ``NeighborsResults`` holds them."""
    n = per_row.size
    order = np.lexsort((data, rows))  # by row, then by distance (ties in stored order)
    starts = np.zeros(n, np.int64)
    np.cumsum(per_row[:-1], out=starts[1:])
    take = order[(starts[:, None] + np.arange(k - 1)).ravel()]
    indices = np.empty((n, k), np.int64)
    indices[:, 0] = np.arange(n)
    indices[:, 1:] = cols[take].reshape(n, k - 1)
    distances = np.zeros((n, k), np.float32)
    distances[:, 1:] = data[take].reshape(n, k - 1)
    return indices, distances
