"""scIB's benchmark of integrations (Luecken et al. 2022), as scib-metrics' ``Benchmarker``
runs it, in one call (``benchmark.py``): the metrics, their groups and column names
(``metrics.py``, the names from the catalogue), each embedding's neighbours
(``neighbors.py``), the diffusion map and per-label kBET (``diffusion.py``, ``kbet.py``) and
the score table with its aggregates (``table.py``). The measures it adds to those of
``_embedding`` and ``_graph`` are the catalogue's: the NMI and ARI of k-means and Leiden
clusterings (``_measures/clusterings.py``) and principal component regression
(``_embedding/pcr.py``).

Imports ``_utils``, ``_embedding``, ``_graph``, ``_measures`` and ``_io``. Needs pandas,
scipy and scikit-learn (``pip install 'fastcluster-metrics[scib]'``), python-igraph for
Leiden, imported when a function is first called.
"""

from __future__ import annotations

from .benchmark import scib_benchmark
from .metrics import BatchCorrection, BioConservation

__all__ = ["BatchCorrection", "BioConservation", "scib_benchmark"]
