"""Scores of labels over a neighbour graph (scIB's, with scib-metrics' names and definitions):
the graph in any of the forms users hold it, checked once (``neighbors.py``), each cell's local
inverse Simpson index and its iLISI and cLISI summaries (``lisi.py``), kBET's test of each
neighbourhood (``kbet.py``) and its per-label score (``kbet_per_label.py``), by scib-metrics'
definition on a diffusion map of each label's cells (``kbet_diffusion.py``, ``diffusion.py``)
or over each cell's own neighbours, graph connectivity (``connectivity.py``), and UMAP's
connectivities of a graph, where Leiden clustering and the diffusion map start (``umap.py``).

Imports ``_native``, ``_utils``, ``_labels`` and ``_embedding``; scipy and scikit-learn for
the diffusion map, when it is first asked for.
"""

from __future__ import annotations

from .connectivity import graph_connectivity
from .kbet import kbet
from .kbet_per_label import kbet_per_label
from .lisi import clisi_knn, ilisi_knn, lisi_knn

__all__ = [
    "clisi_knn",
    "graph_connectivity",
    "ilisi_knn",
    "kbet",
    "kbet_per_label",
    "lisi_knn",
]
