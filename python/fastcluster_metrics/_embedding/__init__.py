"""Scores of a clustering against the data it clusters (an embedding): the embedding and its
labelings checked once (``validation.py``), the silhouette of one or many labelings
(``silhouette.py``), scIB's silhouette scores (``scib.py``), an approximate silhouette in
O(n·k·d) (``approximate.py``), Calinski-Harabasz and Davies-Bouldin (``dispersion.py``),
principal component regression and its comparison before and after integration
(``pcr.py``), and ``consensus_score`` of two sets of biclusters (``bicluster.py``).

Imports ``_native``, ``_utils`` and ``_labels``.
"""
