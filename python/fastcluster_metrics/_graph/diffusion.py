"""scib-metrics' ``diffusion_nn``: each cell's nearest neighbours in a diffusion map of a
connectivities graph (Coifman et al. 2005), as its per-label kBET draws them.

The steps are scib-metrics' (scanpy's): the kernel density-normalised (``Q K Q``, ``q`` the
degrees), made symmetric (``Z K Z``, ``z`` the square roots of its degrees), in scipy's float32
sparse arithmetic; its ``n_comps`` eigenvalues of largest magnitude by ARPACK (``eigsh`` in
float64, then float32); each eigenvector scaled by ``e / (1 - e)`` (1 kept as 1) after
adding 1e-8; then ``k + 1`` neighbours (the cell itself counted) in that embedding.

Where scib-metrics starts ARPACK from a random vector and searches with pynndescent, here the
start is a fixed vector (the same value on every run) and the search exact (or pynndescent,
called as scib-metrics calls it, when the benchmark's neighbours come from it): scib-metrics'
own runs differ from each other where eigenvalues lie close together, in the last digits of
the embedding, so its neighbours, and ours, can differ in a cell's last neighbour or two.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._embedding import knn as _neighbors

__all__ = ["diffusion_embedding", "diffusion_neighbors"]

_EPS = 1e-8


def _one_blas_thread() -> Any:
    """ARPACK's steps (vectors of one label's cells) are too small to share between BLAS
    threads: on two busy cores, two threads made a 3,000-cell label's eigenvectors 4 times
    slower (3.9 s against 0.95 s). One thread where threadpoolctl (scikit-learn's) is
    installed."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - installed with scikit-learn
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def _transitions(conn: Any) -> Any:
    """scanpy's symmetric transition matrix of ``conn``, density-normalised."""
    import scipy.sparse as sp

    n = conn.shape[0]
    q = np.asarray(conn.sum(axis=0))
    big_q = sp.spdiags(1.0 / q, 0, n, n)
    kernel = big_q @ conn @ big_q
    z = np.sqrt(np.asarray(kernel.sum(axis=0)))
    big_z = sp.spdiags(1.0 / z, 0, n, n)
    return big_z @ kernel @ big_z


def diffusion_embedding(conn: Any, n_comps: int) -> NDArray[np.float32]:
    """The multiscale diffusion map of ``conn`` (a square float32 sparse matrix), float32."""
    from scipy.sparse.linalg import eigsh

    transitions = _transitions(conn)
    n = transitions.shape[0]
    k = min(n - 1, n_comps)
    v0 = np.random.default_rng(0).uniform(-1.0, 1.0, n)
    with _one_blas_thread():
        evals, evecs = eigsh(transitions.astype(np.float64), k=k, which="LM", v0=v0)
    evals = evals.astype(np.float32)[::-1] + np.float32(_EPS)
    evecs = evecs.astype(np.float32)[:, ::-1]
    scaled = np.array([e if e == 1 else e / (1 - e) for e in evals], dtype=np.float32)
    out: NDArray[np.float32] = evecs * scaled
    return out


def diffusion_neighbors(
    conn: Any, k: int, n_comps: int = 100, computer: Any = None
) -> _neighbors.Neighbors:
    """The ``k + 1`` nearest neighbours of each cell (itself first) in the diffusion map of
    ``conn``, as scib-metrics' ``diffusion_nn(conn, k, n_comps)``; ``computer="pynndescent"``
    searches as it does, anything else exactly."""
    embedding = diffusion_embedding(conn, n_comps)
    if computer == "pynndescent":
        return _neighbors.pynndescent(embedding, k + 1)
    return _neighbors.exact(embedding, k + 1)
