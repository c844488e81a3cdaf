"""Graph connectivity (Luecken et al. 2022), as scib-metrics' ``graph_connectivity``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _native
from .neighbors import check_graph, check_labels

__all__ = ["graph_connectivity"]


def graph_connectivity(X: Any, labels: Any) -> float:
    """Quantify the connectivity of the subgraph per cell-type label.

    As scib-metrics' ``graph_connectivity``: for each label, the share of its cells in the
    largest strongly connected component of the directed graph restricted to that label's
    cells (scipy's ``connected_components(connection="strong")``, an edge ``i -> j`` for each
    neighbour ``j`` of ``i``); the mean of those shares over the labels. In [0, 1], 1 when
    every label's cells are one component.

    Parameters
    ----------
    X
        The neighbour graph, as in :func:`lisi_knn` (its distances are checked, not used).
    labels
        Array of shape (n_cells,): any label type of the package.
    """
    graph = check_graph(X)
    codes, k = check_labels(labels, graph)
    comps = _native.graph_components(*graph.native(), codes, k, True)
    sizes = np.bincount(comps, minlength=graph.n)
    roots = np.flatnonzero(sizes)
    largest = np.zeros(k, dtype=np.int64)
    np.maximum.at(largest, codes[roots], sizes[roots])
    per_label = np.bincount(codes, minlength=k)
    return float(np.mean(largest / per_label))
