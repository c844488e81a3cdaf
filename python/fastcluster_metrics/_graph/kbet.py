"""kBET (Büttner et al. 2019) as scib-metrics' ``kbet``: each cell's neighbourhood tested
against the batches' shares of all cells, in one pass of the core. Its per-label score is
``kbet_per_label.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .neighbors import Graph, check_graph, check_labels

__all__ = ["kbet"]


def _statistics(graph: Graph, codes: NDArray[np.int64], k: int) -> NDArray[np.float64]:
    out: NDArray[np.float64] = _native.graph_kbet(*graph.native(), codes, k, graph.with_self)
    return out


def kbet(
    X: Any, batches: Any, alpha: float = 0.05
) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """Compute kBET (Büttner et al. 2019) as scib-metrics' ``kbet``.

    Each cell's neighbourhood (its row of the graph, the cell itself counted) is tested
    against the batches' shares of all cells: the statistic ``sum_b (c_b - k f_b)**2 /
    (k f_b)`` over every batch ``b`` (``c_b`` the neighbours in ``b``, ``k`` the row's
    neighbours, ``f_b`` the share of all cells in ``b``), its p-value the chi-square upper
    tail with ``n_batches - 1`` degrees of freedom (the regularised upper incomplete gamma
    function, in float64: scib-metrics computes ``1 - gammainc`` in float32, which loses
    p-values below about 1e-7). A higher acceptance rate means better mixed batches.

    Parameters
    ----------
    X
        The neighbour graph, as in :func:`lisi_knn`. A sparse distance matrix's rows do not
        hold the cell itself: it is counted as one more neighbour, as a ``NeighborsResults``
        of the same search holds it, so both forms give the same values; its rows may have
        different lengths (``k`` is then each row's own).
    batches
        Array of shape (n_cells,): any label type of the package.
    alpha
        Significance level for the statistical test.

    Returns
    -------
    acceptance_rate
        The share of cells whose p-value is ``alpha`` or more.
    test_statistics
        Array of shape (n_cells,): each cell's chi-square statistic.
    p_values
        Array of shape (n_cells,): each cell's p-value.
    """
    graph = check_graph(X)
    codes, k = check_labels(batches, graph)
    out = _statistics(graph, codes, k)
    stats = np.ascontiguousarray(out[:, 0])
    p = np.ascontiguousarray(out[:, 1])
    return float((p >= alpha).mean()), stats, p
