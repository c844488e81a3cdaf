"""kBET (Büttner et al. 2019) as scib-metrics' ``kbet``, and its per-label score
``kbet_per_label`` (Luecken et al. 2022)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .neighbors import Graph, check_graph, check_labels

__all__ = ["kbet", "kbet_per_label"]


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
) -> Any:
    """Compute the kBET score per cell-type label (Luecken et al. 2022), as scib-metrics'
    ``kbet_per_label``, and their mean over the labels.

    Each label's cells are scored as there: a label of fewer than 10 cells or of one batch
    is skipped (NaN); ``k0 = min(70, max(10, mean batch size // 4))``; if the label's cells
    form one connected piece of the graph, its score is kBET's acceptance rate over them
    (batch shares within the label); if they fall apart, its pieces of at least ``3 k0``
    cells are scored if they hold 75% of the label's cells or more, and the label scores 0
    otherwise. The final score is the mean over the labels not skipped.

    Where this differs from scib-metrics: scib-metrics finds each label's pieces on UMAP's
    connectivities (the graph made symmetric) and then draws each cell's ``k0`` neighbours
    afresh from a diffusion map of the label's subgraph (``diffusion_n_comps`` components);
    here the pieces are the label's weakly connected components of the same graph (the
    components of UMAP's symmetric graph but for edges of weight 0), and each cell's
    neighbourhood is its own row of the graph restricted to the label (the cell itself
    counted), with no diffusion map: scores are close to, not equal to, scib-metrics'.
    ``diffusion_n_comps`` is accepted for the signature and not used.

    Returns
    -------
    kbet_score
        The mean of the labels' scores (NaN where all were skipped).
    df
        With ``return_df``, a pandas DataFrame with columns ``cluster`` (each label) and
        ``kBET`` (its score).
    """
    del diffusion_n_comps
    graph = check_graph(X)
    bcodes, nb = check_labels(batches, graph)
    lcodes, nl = check_labels(labels, graph)
    _, first = np.unique(lcodes, return_index=True)
    label_values = np.asarray(labels)[first]
    comps = _native.graph_components(*graph.native(), lcodes, nl, False)
    scores = []
    for c in range(nl):
        mask = lcodes == c
        n_obs = int(mask.sum())
        sub_b = bcodes[mask]
        sizes = np.bincount(sub_b, minlength=nb)
        present = sizes[sizes > 0]
        if n_obs < 10 or present.size == 1:
            scores.append(float("nan"))
            continue
        k0 = int(min(70, max(10, int(np.floor(present.mean() / 4)))))
        if k0 * n_obs >= 2**31 - 1:
            k0 = int(np.floor((2**31 - 1) / n_obs))
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
    values = np.asarray(scores, dtype=np.float64)
    final = float(np.nanmean(values)) if np.isfinite(values).any() else float("nan")
    if not return_df:
        return final
    import pandas as pd

    df = pd.DataFrame({"cluster": label_values, "kBET": values}).reset_index(drop=True)
    return final, df
