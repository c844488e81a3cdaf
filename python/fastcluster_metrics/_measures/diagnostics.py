"""Per-class and per-cluster diagnostics of a contingency table, as pandas DataFrames.

:class:`Diagnostics` is a mixin of :class:`Contingency` (through ``Measures``): every column is
computed from the table's non-zero cells, vectorised over cells (no pass over the samples).
pandas is imported when a report is asked for, not before.

Notation: ``n_ij`` the table, ``a_i`` class sizes (row sums), ``b_j`` cluster sizes (column sums).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._utils.natural import natural_order

__all__ = ["Diagnostics"]


def _first_best_per_group(
    groups: NDArray[np.int64], score: NDArray[np.float64], other: NDArray[np.int64], size: int
) -> NDArray[np.int64]:
    """For each group, the index (into the cells) of its best cell: the highest ``score``, ties
    to the smallest ``other`` index; -1 for a group without cells."""
    best = np.full(size, -1, dtype=np.int64)
    if groups.size == 0:
        return best
    order = np.lexsort((other, -score, groups))
    first = np.ones(order.size, dtype=bool)
    first[1:] = groups[order][1:] != groups[order][:-1]
    best[groups[order][first]] = order[first]
    return best


def _entropy_by_group(
    groups: NDArray[np.int64], counts: NDArray[np.int64], totals: NDArray[np.int64]
) -> NDArray[np.float64]:
    """Per group ``g``: ``-sum_k (c_k / t_g) ln(c_k / t_g)`` over its cells (nats); nan if empty."""
    c = counts.astype(np.float64)
    t = totals.astype(np.float64)
    weighted = np.bincount(groups, weights=c * np.log(c), minlength=t.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.log(t) - weighted / t
    h[totals == 0] = np.nan
    return np.maximum(h, 0.0, where=totals > 0, out=h)


def _pick(labels: NDArray[Any], index: NDArray[np.int64], rows: Any) -> Any:
    """``labels[index]`` as a pandas Series of objects on ``rows``, with None where ``index`` is
    -1 (object dtype: pandas 3 would make text labels its ``str`` dtype, and None NaN)."""
    import pandas as pd

    values = labels[np.maximum(index, 0)].tolist() if labels.size else [None] * index.size
    picked = [v if i >= 0 else None for v, i in zip(values, index.tolist(), strict=True)]
    return pd.Series(picked, index=rows, dtype=object)


class Diagnostics:
    """Per-class and per-cluster reports (pandas DataFrames) of a :class:`Contingency`."""

    __slots__ = ()

    if TYPE_CHECKING:

        @property
        def classes(self) -> NDArray[Any]: ...
        @property
        def clusters(self) -> NDArray[Any]: ...
        @property
        def _cells(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]: ...

        @property
        def class_sizes(self) -> NDArray[np.int64]: ...
        @property
        def cluster_sizes(self) -> NDArray[np.int64]: ...

        _native_table: Any

    def _best_matches(
        self,
    ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
        """Per class: (best cluster index or -1, its F1, its Jaccard, the overlap ``n_ij``).

        The best cluster maximises ``F1 = 2 n_ij / (a_i + b_j)``; it also maximises the
        Jaccard index ``n_ij / (a_i + b_j - n_ij) = F1 / (2 - F1)``. Ties go to the first
        cluster in cluster order. Empty classes get -1, nan, nan, 0.
        """
        rows, cols, counts = self._cells
        a = self.class_sizes
        b = self.cluster_sizes
        f1_cells = 2.0 * counts / (a[rows] + b[cols])
        best = _first_best_per_group(rows, f1_cells, cols, a.size)
        has = best >= 0
        cell = best[has]
        f1 = np.full(a.size, np.nan)
        jaccard = np.full(a.size, np.nan)
        overlap = np.zeros(a.size, dtype=counts.dtype)
        cluster = np.full(a.size, -1, dtype=np.int64)
        f1[has] = f1_cells[cell]
        overlap[has] = counts[cell]
        cluster[has] = cols[cell]
        jaccard[has] = counts[cell] / (a[has] + b[cols[cell]] - counts[cell])
        return cluster, f1, jaccard, overlap

    def class_report(self) -> Any:
        """One row per true class, as a pandas DataFrame, the classes in natural order (the
        numbers in their labels read as numbers: ``type_2`` before ``type_10``):

        * ``size``: samples in the class, ``a_i`` (with weights: their total);
        * ``class_weight``: the weight ``class_weight=`` gave the class (only then);
        * ``best_cluster``: the cluster with the highest F1 against the class (first on ties;
          None for an empty class), and ``overlap``, the samples they share, ``n_ij``;
        * ``f1``: ``2 n_ij / (a_i + b_j)`` for that cluster (the per-class "isolated label" F1;
          its mean weighted by size is :meth:`best_match_f1_score`) and ``jaccard``:
          ``n_ij / (a_i + b_j - n_ij)`` (also the best Jaccard: it increases with F1);
        * ``recall``: ``n_ij / a_i`` and ``precision``: ``n_ij / b_j`` for that cluster;
        * ``n_clusters``: how many clusters hold some of the class;
        * ``split_entropy``: entropy (nats) of the class's distribution over clusters, 0 when it
          lies in one cluster.

        Examples
        --------
        >>> import fastcluster_metrics as fcm
        >>> c = fcm.Contingency.from_labels(["a", "a", "a", "b", "b"], [0, 0, 1, 1, 1])
        >>> c.class_report()[["size", "best_cluster", "f1", "n_clusters"]]
               size  best_cluster   f1  n_clusters
        class
        a         3             0  0.8           2
        b         2             1  0.8           1
        """
        import pandas as pd

        rows, _, counts = self._cells
        a = self.class_sizes
        cluster, f1, jaccard, overlap = self._best_matches()
        b_best = np.where(cluster >= 0, self.cluster_sizes[np.maximum(cluster, 0)], 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            recall = np.where(a > 0, overlap / a, np.nan)
            precision = np.where(b_best > 0, overlap / np.maximum(b_best, 1), np.nan)
        index = pd.Index(self.classes, name="class")
        factors = getattr(self._native_table, "row_factors", None)
        weights = {} if factors is None else {"class_weight": factors.astype(np.float64)}
        return pd.DataFrame(
            {
                "size": a,
                **weights,
                "best_cluster": _pick(self.clusters, cluster, index),
                "overlap": overlap,
                "f1": f1,
                "jaccard": jaccard,
                "recall": recall,
                "precision": precision,
                "n_clusters": np.bincount(rows, minlength=a.size),
                "split_entropy": _entropy_by_group(rows, counts, a),
            },
            index=index,
        ).iloc[natural_order(self.classes)]

    def cluster_report(self) -> Any:
        """One row per predicted cluster, as a pandas DataFrame, the clusters in natural order
        (``"2"`` before ``"10"``):

        * ``size``: samples in the cluster, ``b_j``;
        * ``majority_class``: its most frequent class (first on ties; None for an empty
          cluster) and ``overlap``, how many samples of it the cluster holds;
        * ``purity``: ``max_i n_ij / b_j`` (its mean weighted by size is ``purity_score``);
        * ``n_classes``: how many classes the cluster mixes;
        * ``entropy``: entropy (nats) of the cluster's class distribution, 0 when pure.

        Examples
        --------
        >>> import fastcluster_metrics as fcm
        >>> c = fcm.Contingency.from_labels(["a", "a", "a", "b", "b"], [0, 0, 1, 1, 1])
        >>> c.cluster_report()[["size", "majority_class", "purity", "n_classes"]]
                 size majority_class    purity  n_classes
        cluster
        0           2              a  1.000000          1
        1           3              b  0.666667          2
        """
        import pandas as pd

        rows, cols, counts = self._cells
        b = self.cluster_sizes
        best = _first_best_per_group(cols, counts.astype(np.float64), rows, b.size)
        has = best >= 0
        majority = np.full(b.size, -1, dtype=np.int64)
        majority[has] = rows[best[has]]
        overlap = np.zeros(b.size, dtype=counts.dtype)
        overlap[has] = counts[best[has]]
        with np.errstate(divide="ignore", invalid="ignore"):
            purity = np.where(b > 0, overlap / np.maximum(b, 1), np.nan)
        index = pd.Index(self.clusters, name="cluster")
        return pd.DataFrame(
            {
                "size": b,
                "majority_class": _pick(self.classes, majority, index),
                "overlap": overlap,
                "purity": purity,
                "n_classes": np.bincount(cols, minlength=b.size),
                "entropy": _entropy_by_group(cols, counts, b),
            },
            index=index,
        ).iloc[natural_order(self.clusters)]
