"""The local inverse Simpson index (Korsunsky et al. 2019) and scIB's iLISI and cLISI
(Luecken et al. 2022), as scib-metrics' ``lisi_knn``, ``ilisi_knn`` and ``clisi_knn``."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .neighbors import check_graph, check_labels

__all__ = ["clisi_knn", "ilisi_knn", "lisi_knn"]

_TOL = 1e-5
"""scib-metrics' tolerance of the entropy's bisection."""


def lisi_knn(X: Any, labels: Any, perplexity: float | None = None) -> NDArray[np.float64]:
    """Compute the local inverse Simpson index (LISI) for each cell (Korsunsky et al. 2019).

    As scib-metrics' ``lisi_knn``: each cell's neighbours weighted by ``exp(-beta * d)`` (the
    distances as given; the cell itself weighted 0), ``beta`` calibrated by bisection (from 1,
    tolerance 1e-5, at most 50 steps) so that the weights' perplexity is ``perplexity``, then
    the inverse Simpson index ``1 / sum_l p_l**2`` of the labels' total weights. A cell whose
    weights' entropy ends at 0 gets -1, as there. Computed in float64 (scib-metrics: float32).

    Parameters
    ----------
    X
        The neighbour graph: a ``NeighborsResults`` (``.indices`` and ``.distances``, each
        cell first among its own neighbours), an ``(indices, distances)`` tuple of
        ``(n_cells, n_neighbors)`` arrays, or a scipy sparse distance matrix as scanpy's
        ``adata.obsp["distances"]`` (the cell itself not stored; rows of any length).
    labels
        Array of shape (n_cells,): any label type of the package.
    perplexity
        The effective neighbourhood size. If None, ``n_neighbors // 3``, where
        ``n_neighbors`` is the arrays' width, or a sparse matrix's longest row plus one (the
        cell itself, as scanpy counts it): both forms of one search get the same perplexity.

    Returns
    -------
    lisi
        Array of shape (n_cells,) with the LISI score for each cell.
    """
    graph = check_graph(X)
    codes, k = check_labels(labels, graph)
    if perplexity is None:
        perplexity = float(np.floor(graph.k / 3))
    return _native.graph_lisi(*graph.native(), codes, k, float(perplexity), _TOL)


def ilisi_knn(X: Any, batches: Any, perplexity: float | None = None, scale: bool = True) -> float:
    """Compute the integration LISI (iLISI): the median LISI of the batches over the cells.

    As scib-metrics' ``ilisi_knn``; scaled (the default) to ``(ilisi - 1) / (n_batches - 1)``
    in [0, 1], higher meaning better mixed batches. ``X`` and ``perplexity`` as in
    :func:`lisi_knn`.
    """
    graph = check_graph(X)
    codes, k = check_labels(batches, graph)
    if perplexity is None:
        perplexity = float(np.floor(graph.k / 3))
    lisi = _native.graph_lisi(*graph.native(), codes, k, float(perplexity), _TOL)
    ilisi = float(np.nanmedian(lisi))
    if scale:
        ilisi = (ilisi - 1) / (k - 1) if k > 1 else float("nan")
    return ilisi


def clisi_knn(X: Any, labels: Any, perplexity: float | None = None, scale: bool = True) -> float:
    """Compute the cell-type LISI (cLISI): the median LISI of the cell types over the cells.

    As scib-metrics' ``clisi_knn``; scaled (the default) to ``(n_labels - clisi) /
    (n_labels - 1)`` in [0, 1], higher meaning better separated cell types. ``X`` and
    ``perplexity`` as in :func:`lisi_knn`.
    """
    graph = check_graph(X)
    codes, k = check_labels(labels, graph)
    if perplexity is None:
        perplexity = float(np.floor(graph.k / 3))
    lisi = _native.graph_lisi(*graph.native(), codes, k, float(perplexity), _TOL)
    clisi = float(np.nanmedian(lisi))
    if scale:
        clisi = (k - clisi) / (k - 1) if k > 1 else float("nan")
    return clisi
