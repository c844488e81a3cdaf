"""kBET per cell-type label by scib-metrics' definition (its ``kbet_per_label``): the default
of :func:`~fastcluster_metrics.kbet_per_label` and the KBET column of :func:`scib_benchmark`.

For each label: skipped (NaN) under 10 cells or with one batch; ``k0 = min(70, max(10,
floor(mean batch size / 4)))``; the label's cells in UMAP's connectivities of the graph
(``umap.py``), and their strongly connected components (scipy's); one component: kBET's
acceptance rate (:func:`~fastcluster_metrics.kbet`) over each cell's ``k0 + 1`` neighbours
in the diffusion map of the label's connectivities (``diffusion.py``); several: the same
over the components of at least ``3 k0`` cells if they hold 75% of the label's cells, else
0; 0 too where the diffusion map fails with a ``ValueError``, as there. The score is the
mean over the labels not skipped.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .diffusion import diffusion_neighbors
from .kbet import kbet
from .umap import fuzzy_connectivities

__all__ = ["kbet_per_label", "label_k0", "label_scores"]

_SIZE_MAX = 2**31 - 1


def _score(
    conn: Any, batches: NDArray[np.int64], k0: int, n_comps: int, alpha: float, computer: Any
) -> float:
    n_comps = min(n_comps, conn.shape[0] - 1)
    try:
        indices, distances = diffusion_neighbors(conn, k0, n_comps, computer)
    except ValueError:
        return 0.0  # "Diffusion distance failed": scib-metrics' 100% rejection
    rate: float = kbet((indices, distances), batches, alpha)[0]
    return rate


def label_k0(batch_sizes: NDArray[np.int64], n_obs: int) -> int | None:
    """A label's neighbourhood size ``k0`` from its cells' batch sizes, or None where the
    label is skipped (under 10 cells, or one batch)."""
    present = batch_sizes[batch_sizes > 0]
    if n_obs < 10 or present.size == 1:
        return None
    k0 = int(min(70, max(10, int(np.floor(np.mean(present) / 4)))))
    if k0 * n_obs >= _SIZE_MAX:
        k0 = int(np.floor(_SIZE_MAX / n_obs))
    return k0


def label_scores(
    indices: NDArray[np.int64],
    distances: NDArray[np.float32],
    batches: NDArray[np.int64],
    labels: NDArray[np.int64],
    alpha: float = 0.05,
    diffusion_n_comps: int = 100,
    computer: Any = None,
) -> NDArray[np.float64]:
    """Each label's score (NaN where skipped): the neighbour arrays (the cell itself first),
    batches and labels as codes ``0..k-1``; ``computer="pynndescent"`` searches the diffusion
    map as scib-metrics does, anything else exactly."""
    try:
        from scipy.sparse.csgraph import connected_components
    except ImportError as e:
        raise ImportError(
            "kbet_per_label needs scipy and scikit-learn for scib-metrics' diffusion map (pip"
            " install 'fastcluster-metrics[scib]'); diffusion=False needs neither"
        ) from e

    conn = fuzzy_connectivities(indices, distances)
    scores = []
    for label in range(int(labels.max()) + 1 if labels.size else 0):
        mask = labels == label
        sub = conn[mask, :][:, mask]
        sub.sort_indices()
        n_obs = sub.shape[0]
        sub_batches = batches[mask]
        k0 = label_k0(np.bincount(sub_batches), n_obs)
        if k0 is None:
            scores.append(math.nan)
            continue
        n_comp, comps = connected_components(sub, connection="strong")
        if n_comp == 1:
            scores.append(_score(sub, sub_batches, k0, diffusion_n_comps, alpha, computer))
            continue
        comp_sizes = np.bincount(comps)
        keep = np.flatnonzero(comp_sizes[comps] >= 3 * k0)
        if keep.size / comps.size < 0.75:
            scores.append(0.0)
            continue
        sub_sub = sub[keep, :][:, keep]
        sub_sub.sort_indices()
        scores.append(_score(sub_sub, sub_batches[keep], k0, diffusion_n_comps, alpha, computer))
    return np.asarray(scores, dtype=np.float64)


def kbet_per_label(
    indices: NDArray[np.int64],
    distances: NDArray[np.float32],
    batches: NDArray[np.int64],
    labels: NDArray[np.int64],
    alpha: float = 0.05,
    diffusion_n_comps: int = 100,
    computer: Any = None,
) -> float:
    """scib-metrics' ``kbet_per_label`` of the neighbour arrays (the mean of
    :func:`label_scores`), as :func:`scib_benchmark` calls it."""
    values = label_scores(indices, distances, batches, labels, alpha, diffusion_n_comps, computer)
    return float(np.nanmean(values)) if np.isfinite(values).any() else math.nan
