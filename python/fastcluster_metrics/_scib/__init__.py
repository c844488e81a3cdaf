"""scIB's benchmark of integrations (Luecken et al. 2022), as scib-metrics' ``Benchmarker``
runs it, in one call (``benchmark.py``): the metrics, their groups and column names
(``metrics.py``), each embedding's neighbours (``neighbors.py``), UMAP's connectivities of a
neighbour graph (``connectivities.py``), the diffusion map and per-label kBET
(``diffusion.py``, ``kbet.py``), the NMI and ARI of k-means and Leiden clusterings
(``clustering.py``), principal component regression (``pcr.py``) and the score table with
its aggregates (``table.py``).

Imports ``_utils``, ``_embedding``, ``_graph``, ``_measures`` and ``_io``. Needs pandas,
scipy and scikit-learn (``pip install 'fastcluster-metrics[scib]'``), python-igraph for
Leiden, imported when a function is first called.
"""

from __future__ import annotations

from .benchmark import scib_benchmark
from .clustering import nmi_ari_cluster_labels_kmeans, nmi_ari_cluster_labels_leiden
from .metrics import BatchCorrection, BioConservation
from .pcr import pcr_comparison, principal_component_regression

__all__ = [
    "BatchCorrection",
    "BioConservation",
    "nmi_ari_cluster_labels_kmeans",
    "nmi_ari_cluster_labels_leiden",
    "pcr_comparison",
    "principal_component_regression",
    "scib_benchmark",
]
