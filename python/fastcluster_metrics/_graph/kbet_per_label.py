"""kBET per cell-type label (Luecken et al. 2022), as scib-metrics' ``kbet_per_label``
(``kbet_diffusion.py``: each cell's neighbours drawn from a diffusion map of its label's
UMAP connectivities), or over each cell's own neighbours within its label
(``diffusion=False``: no scipy, no search, one pass of the core per label)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .._embedding import knn as _neighbors
from .kbet import _statistics
from .kbet_diffusion import label_k0, label_scores
from .neighbors import Graph, check_graph, check_labels

__all__ = ["kbet_per_label"]


def _within(graph: Graph, keep: NDArray[np.bool_]) -> Graph:
    """The subgraph of the cells ``keep``: their rows, each holding the neighbours kept."""
    rows = np.flatnonzero(keep)
    starts = graph.offsets[rows]
    lengths = graph.offsets[rows + 1] - starts
    total = int(lengths.sum())
    first = np.cumsum(lengths) - lengths
    pos = np.repeat(starts - first, lengths) + np.arange(total, dtype=np.int64)
    nb = graph.indices[pos]
    valid = keep[nb]
    local = np.cumsum(keep, dtype=np.int64) - 1
    row_of = np.repeat(np.arange(rows.size, dtype=np.int64), lengths)[valid]
    counts = np.bincount(row_of, minlength=rows.size)
    offsets = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    indices = local[nb[valid]]
    distances = np.ascontiguousarray(graph.distances[pos][valid])
    k = int(counts.max()) + (1 if graph.with_self else 0) if rows.size else 0
    return Graph(int(rows.size), k, False, offsets, indices, distances, graph.with_self)


def kbet_per_label(
    X: Any,
    batches: Any,
    labels: Any,
    alpha: float = 0.05,
    diffusion_n_comps: int = 100,
    return_df: bool = False,
    *,
    diffusion: bool = True,
) -> Any:
    """Compute the kBET score per cell-type label (Luecken et al. 2022), as scib-metrics'
    ``kbet_per_label``, and their mean over the labels.

    Each label's cells are scored as there: a label of fewer than 10 cells or of one batch
    is skipped (NaN); ``k0 = min(70, max(10, mean batch size // 4))``; the label's cells in
    UMAP's connectivities of the graph (scib-metrics' ``knn_graph_connectivities``), and
    their strongly connected components. If they are one piece, its score is kBET's
    acceptance rate (batch shares within the label) over each cell's ``k0 + 1`` nearest
    neighbours in a diffusion map of the label's connectivities (``diffusion_n_comps``
    components); if they fall apart, its pieces of at least ``3 k0`` cells are scored so if
    they hold 75% of the label's cells or more, and the label scores 0 otherwise (0 too where
    the diffusion map fails, as there). The final score is the mean over the labels not
    skipped. This is :func:`scib_benchmark`'s KBET column, on the same graph.

    Where it differs from scib-metrics: the diffusion map's eigenvectors start from a fixed
    vector (ARPACK's ``v0``; scib-metrics' is random, so its own runs differ where
    eigenvalues lie close together) and its neighbours are found exactly (scib-metrics runs
    pynndescent); scib-metrics computes in float32 on JAX, this in float64 where the test is
    computed. Each cell's neighbours can differ by a last neighbour or two, so the scores are
    close to, not always equal to, scib-metrics'.

    ``diffusion=False`` scores each cell's own row of the graph restricted to its label (the
    cell itself counted) instead of diffusion-map neighbours, and the pieces are the label's
    connected components of the graph itself: no scipy and no search, for any graph, in a
    fraction of the time, with scores close to the diffusion map's where the graph's
    neighbourhoods are already the label's.

    Parameters
    ----------
    X
        The neighbour graph, as in :func:`lisi_knn`. With ``diffusion=True``, every cell has
        the same number of neighbours (a sparse matrix's rows, the cell itself not stored,
        are read as its ``k - 1`` nearest).
    batches, labels
        Arrays of shape (n_cells,): any label type of the package.
    alpha
        Significance level for the statistical test.
    diffusion_n_comps
        The diffusion map's components.
    return_df
        Also return each label's score.
    diffusion
        Draw the neighbourhoods from the diffusion map, as scib-metrics does (needs scipy and
        scikit-learn: ``pip install 'fastcluster-metrics[scib]'``).

    Returns
    -------
    kbet_score
        The mean of the labels' scores (NaN where all were skipped).
    df
        With ``return_df``, a pandas DataFrame with columns ``cluster`` (each label) and
        ``kBET`` (its score).
    """
    graph = check_graph(X)
    bcodes, nb = check_labels(batches, graph)
    lcodes, nl = check_labels(labels, graph)
    _, first = np.unique(lcodes, return_index=True)
    label_values = np.asarray(labels)[first]
    if diffusion:
        indices, distances = _knn_arrays(graph)
        values = label_scores(indices, distances, bcodes, lcodes, alpha, diffusion_n_comps)
    else:
        values = _within_scores(graph, bcodes, nb, lcodes, nl, alpha)
    final = float(np.nanmean(values)) if np.isfinite(values).any() else math.nan
    if not return_df:
        return final
    import pandas as pd

    df = pd.DataFrame({"cluster": label_values, "kBET": values}).reset_index(drop=True)
    return final, df


def _knn_arrays(graph: Graph) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """The graph as ``(n, k)`` arrays, each cell first among its own neighbours, as
    scib-metrics' ``NeighborsResults`` holds them (a sparse matrix's rows, the cell itself
    not stored: its ``k - 1`` nearest, the cell itself prepended; a stored diagonal taken
    out first, so that the cell is not counted twice)."""
    n = graph.n
    if graph.fixed:
        k = graph.k
        return (
            graph.indices.reshape(n, k).astype(np.int64, copy=False),
            graph.distances.reshape(n, k).astype(np.float32, copy=False),
        )
    rows, cols, data = _neighbors.without_self(
        np.repeat(np.arange(n, dtype=np.int64), np.diff(graph.offsets)),
        graph.indices,
        graph.distances,
    )
    counts = np.bincount(rows, minlength=n)
    k = int(counts.max()) + 1 if n else 1
    short = np.flatnonzero(counts < k - 1)
    if short.size:
        raise ValueError(
            f"kbet_per_label: cell {short[0]} has {counts[short[0]]} neighbours where others"
            f" have {k - 1}; scib-metrics' definition reads the same number of each cell's"
            " nearest neighbours (pass diffusion=False to score each cell's own row)"
        )
    return _neighbors.nearest(rows, cols, data, counts, k)


def _within_scores(
    graph: Graph,
    bcodes: NDArray[np.int64],
    nb: int,
    lcodes: NDArray[np.int64],
    nl: int,
    alpha: float,
) -> NDArray[np.float64]:
    """Each label's score over its cells' own rows of the graph (``diffusion=False``)."""
    comps = _native.graph_components(*graph.native(), lcodes, nl, False)
    scores = []
    for c in range(nl):
        mask = lcodes == c
        n_obs = int(mask.sum())
        k0 = label_k0(np.bincount(bcodes[mask], minlength=nb), n_obs)
        if k0 is None:
            scores.append(math.nan)
            continue
        _, comp_of, comp_sizes = np.unique(comps[mask], return_inverse=True, return_counts=True)
        if comp_sizes.size == 1:
            keep = mask
        else:
            big = comp_sizes[comp_of] >= 3 * k0
            if big.sum() / n_obs < 0.75:
                scores.append(0.0)
                continue
            keep = np.zeros(graph.n, dtype=bool)
            keep[np.flatnonzero(mask)[big]] = True
        sub = _within(graph, keep)
        sub_codes, sub_k = check_labels(bcodes[keep], sub)
        out = _statistics(sub, sub_codes, sub_k)
        scores.append(float((out[:, 1] >= alpha).mean()))
    return np.asarray(scores, dtype=np.float64)
