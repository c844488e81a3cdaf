"""Scores of labels over a neighbour graph (scIB's, with scib-metrics' names and definitions):
the graph in any of the forms users hold it, checked once (``neighbors.py``), each cell's local
inverse Simpson index and its iLISI and cLISI summaries (``lisi.py``), kBET's test of each
neighbourhood and its per-label score (``kbet.py``), graph connectivity
(``connectivity.py``), and UMAP's connectivities of a graph, where Leiden clustering and
scib-metrics' per-label kBET start (``umap.py``).

Imports ``_native``, ``_utils``, ``_labels`` and ``_embedding``.
"""

from __future__ import annotations

from .connectivity import graph_connectivity
from .kbet import kbet, kbet_per_label
from .lisi import clisi_knn, ilisi_knn, lisi_knn

__all__ = [
    "clisi_knn",
    "graph_connectivity",
    "ilisi_knn",
    "kbet",
    "kbet_per_label",
    "lisi_knn",
]
