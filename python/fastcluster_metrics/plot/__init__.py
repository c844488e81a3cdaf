"""Pictures of a comparison: the contingency table, the pair counts, scores against a
parameter (the number of clusters ``k``, a Leiden resolution) for model selection, the
clustering tree, an embedding coloured by a per-sample score, the silhouette plot of one
clustering, two dendrograms' B_k curve, and scIB's table of integrations. The heatmaps are
drawn by :mod:`._heatmap`, the scores by :mod:`._score_plot`, the tree by :mod:`._clustree`,
the embedding by :mod:`._embedding`, the silhouettes by :mod:`._silhouette`, the B_k curve by
:mod:`._bk` and scIB's table by :mod:`._scib_table`; this module is their public face.

Needs matplotlib (``pip install 'fastcluster-metrics[plot]'``), imported when a function is
first called: ``import fastcluster_metrics.plot`` alone imports nothing heavy. Each function
takes the labels themselves (any label type the metrics take) or a :class:`Contingency`
(:func:`plot_embedding`: the positions and one number per sample, or an AnnData;
:func:`plot_silhouette`: the embedding and the labels, or their silhouettes), draws on
``ax=`` (a new figure when omitted) and returns the Axes. On a machine without a display, use
the Agg backend (``matplotlib.use("Agg")`` or ``MPLBACKEND=Agg``) or draw on the axes of a
:class:`matplotlib.figure.Figure` made directly, as the command line does.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from fastcluster_metrics import plot
>>> ax = plot.plot_contingency(["a", "a", "b", "b", "b"], [1, 1, 1, 2, 2])
>>> ax.get_xlabel(), [t.get_text() for t in ax.get_xticklabels()]
('predicted cluster', ['1', '2'])
>>> import io
>>> ax.figure.savefig(io.BytesIO(), format="png")
>>> import matplotlib.pyplot as plt
>>> plt.close("all")
"""

from __future__ import annotations

from ._bk import plot_bk
from ._clustree import plot_clustree
from ._embedding import plot_embedding
from ._heatmap import plot_contingency, plot_pair_confusion
from ._scib_table import plot_scib_table
from ._score_plot import plot_scores
from ._silhouette import plot_silhouette

__all__ = [
    "plot_bk",
    "plot_clustree",
    "plot_contingency",
    "plot_embedding",
    "plot_pair_confusion",
    "plot_scib_table",
    "plot_scores",
    "plot_silhouette",
]
