"""The set-matching measures, methods of :class:`Contingency`: purity, BCubed, element-centric
similarity, one-to-one matchings (Hungarian accuracy, NPA, NCA, PSI), best-match F1."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._utils.params import _fail, scipy_module
from .base import _NAN, TableMeasures
from .exact import ratio as _ratio

__all__ = [
    "MatchingMeasures",
    "PerSample",
    "bcubed_f_cells",
    "bcubed_precision_cells",
    "bcubed_recall_cells",
    "ecs_cells",
]

PerSample = Callable[[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]], Any]
"""A measure's value for a sample, from the sample's cell: ``f(c, a, b)`` with the cell's count
``c`` (its samples' weight, with weights), its class's size ``a`` and its cluster's size ``b``,
arrays over the cells."""


def ecs_cells(c: NDArray[np.float64], a: NDArray[np.float64], b: NDArray[np.float64]) -> Any:
    """Element-centric similarity of a sample in a cell: ``c / max(a, b)``.

    Gates et al.'s ``1 - L1 / 2`` between the sample's affinities, uniform over its class
    (``1/a`` on ``a`` samples) and over its cluster (``1/b`` on ``b``): they overlap on the
    ``c`` samples of its cell, so ``L1 = c |1/a - 1/b| + (a - c)/a + (b - c)/b``, which is
    ``2 - 2 c / max(a, b)``."""
    return c / np.maximum(a, b)


def bcubed_precision_cells(
    c: NDArray[np.float64], a: NDArray[np.float64], b: NDArray[np.float64]
) -> Any:
    """BCubed precision of a sample: the share of its cluster in its class, ``c / b``."""
    return c / b


def bcubed_recall_cells(
    c: NDArray[np.float64], a: NDArray[np.float64], b: NDArray[np.float64]
) -> Any:
    """BCubed recall of a sample: the share of its class in its cluster, ``c / a``."""
    return c / a


def bcubed_f_cells(c: NDArray[np.float64], a: NDArray[np.float64], b: NDArray[np.float64]) -> Any:
    """BCubed F of a sample: the harmonic mean of its precision and recall, ``2 c / (a + b)``
    (its mean over samples is not :meth:`~MatchingMeasures.bcubed_f_score`, the harmonic mean
    of the mean precision and recall)."""
    return 2 * c / (a + b)


def _total(values: NDArray[Any]) -> int | float:
    """The exact sum of integer values, or the correctly rounded sum of real ones."""
    if values.dtype.kind == "f":
        return math.fsum(values.tolist())
    return sum(int(x) for x in values.tolist())


def _linear_sum_assignment() -> Any:
    return scipy_module("optimize", "set-matching measures").linear_sum_assignment


class MatchingMeasures(TableMeasures):
    """The set-matching measures of the table."""

    __slots__ = ()

    def _max_per(self, axis: int) -> int | float:
        """``sum_i max_j n_ij`` (axis 0: per class) or ``sum_j max_i n_ij`` (axis 1)."""
        rows, cols, counts = self._cells
        index, size = (
            (rows, self.class_sizes.size) if axis == 0 else (cols, self.cluster_sizes.size)
        )
        best = np.zeros(size, dtype=counts.dtype)
        np.maximum.at(best, index, counts)
        return _total(best)

    def inverse_purity_score(self) -> float:
        """Inverse purity, ``(1/n) sum_i max_j n_ij`` [AGAV09]_; 1.0 on an empty table."""
        return _ratio(self._max_per(0), self.n, 1.0)

    def purity_f_score(self) -> float:
        """Harmonic mean of purity and inverse purity [AGAV09]_; 1.0 on an empty table."""
        purity, inverse = self._max_per(1), self._max_per(0)
        return _ratio(2 * purity * inverse, self.n * (purity + inverse), 1.0)

    def _cell_sizes(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Each cell's count, its class's size and its cluster's size, as floats."""
        rows, cols, counts = self._cells
        return (
            counts.astype(np.float64),
            self.class_sizes[rows].astype(np.float64),
            self.cluster_sizes[cols].astype(np.float64),
        )

    def _sample_mean(self, per_sample: PerSample) -> float:
        """The mean over samples of a per-sample measure, ``(1/n) sum n_ij f(n_ij, a_i, b_j)``."""
        c, a, b = self._cell_sizes()
        return math.fsum((c * per_sample(c, a, b)).tolist()) / self.n

    def _bcubed(self) -> tuple[float, float]:
        return self._sample_mean(bcubed_precision_cells), self._sample_mean(bcubed_recall_cells)

    def bcubed_precision(self) -> float:
        """BCubed precision, ``(1/n) sum n_ij^2 / b_j`` [AGAV09]_; 1.0 on an empty table."""
        return self._bcubed()[0] if self.n else 1.0

    def bcubed_recall(self) -> float:
        """BCubed recall, ``(1/n) sum n_ij^2 / a_i`` [AGAV09]_; 1.0 on an empty table."""
        return self._bcubed()[1] if self.n else 1.0

    def bcubed_f_score(self) -> float:
        """Harmonic mean of BCubed precision and recall [AGAV09]_; 1.0 on an empty table."""
        if self.n == 0:
            return 1.0
        p, r = self._bcubed()
        return 2 * p * r / (p + r)

    def element_centric_similarity(self) -> float:
        """Element-centric similarity of two partitions, ``(1/n) sum n_ij^2 / max(a_i, b_j)``.

        The mean over samples of ``1 - L1 / 2`` between the uniform affinities over the sample's
        class and over its cluster [GWJA19]_ (flat partitions, no overlap); 1.0 on an empty table.
        """
        if self.n == 0:
            return 1.0
        return self._sample_mean(ecs_cells)

    def hungarian_accuracy(self) -> float:
        """Best one-to-one matching of classes to clusters: matched samples / n.

        The matching maximises ``sum n_{i, m(i)}`` (Hungarian algorithm,
        ``scipy.optimize.linear_sum_assignment`` on the dense table, which needs scipy); 1.0 on
        an empty table.
        """
        if self.n == 0:
            return 1.0
        table = self.to_numpy()
        rows, cols = _linear_sum_assignment()(table, maximize=True)
        matched = _total(table[rows, cols])
        return _ratio(matched, self.n, 1.0)

    def _dense_nonempty(self) -> NDArray[np.int64]:
        """The dense table without its empty classes and clusters."""
        table = self.to_numpy()
        return table[np.ix_(self.class_sizes > 0, self.cluster_sizes > 0)]

    def _to_match(self) -> tuple[NDArray[np.int64], int] | None:
        """For the measures that match classes to clusters one-to-one in a square table: the
        dense table without empty classes and clusters, and ``K = max(r, c)``; None where the
        measure is 1.0 by convention (no samples, or ``K = 1``)."""
        if self.n == 0:
            return None
        table = self._dense_nonempty()
        k = int(max(table.shape))
        return None if k == 1 else (table, k)

    def normalized_pivoted_accuracy(self) -> float:
        """Normalised pivoted accuracy (NPA), ``(A K - 1) / (K - 1)`` [Ga25]_.

        ``A`` is :meth:`hungarian_accuracy` (the best one-to-one matching's share of samples) and
        ``K = max(r, c)`` the larger of the numbers of non-empty classes and clusters: the table
        is padded with empty rows or columns to a square (genieclust's convention for non-square
        tables, whose own function accepts square tables only), so ``1/K`` is the accuracy of
        the worst case. Symmetric; 1.0 when ``K = 1`` and on an empty table. Needs scipy.
        """
        match = self._to_match()
        if match is None:
            return 1.0
        table, k = match
        rows, cols = _linear_sum_assignment()(table, maximize=True)
        matched = _total(table[rows, cols])
        return float((k * Fraction(matched) - Fraction(self.n)) / (Fraction(self.n) * (k - 1)))

    def normalized_clustering_accuracy(self) -> float:
        """Normalised clustering accuracy (NCA) of Gagolewski [Ga25]_, asymmetric.

        ``NCA = max_m (1/r) sum_i (n_{i,m(i)} / a_i - 1/r) / (1 - 1/r)
        = (max_m sum_i n_{i,m(i)} / a_i - 1) / (r - 1)``: the mean over the ``r`` true classes of
        the share of each class in the cluster matched to it, rescaled so that 0 is the worst
        case (uniform membership); ``m`` maps classes to distinct clusters (linear sum
        assignment on the row-normalised table). With more classes than clusters, the classes
        left unmatched count 0 (missing clusters are empty columns); with more clusters, only
        ``r`` are matched and ``r`` stays the number of classes: genieclust's stated convention
        for non-square tables (its function accepts square tables only). 1.0 when there is one
        class and one cluster, or no samples; nan for one class split over several clusters.
        Needs scipy.
        """
        if self.n == 0:
            return 1.0
        table = self._dense_nonempty()
        r, c = (int(x) for x in table.shape)
        if r == 1:
            return 1.0 if c == 1 else _NAN
        shares = table / table.sum(axis=1, keepdims=True)
        rows, cols = _linear_sum_assignment()(shares, maximize=True)
        total = math.fsum(shares[rows, cols].tolist())
        return (total - 1.0) / (r - 1)

    def pair_sets_index(self, *, simplified: bool = False, clipped: bool = True) -> float:
        """Pair sets index (PSI) of Rezaei and Franti [RF16]_, as genieclust's.

        Similarities ``s_ij = n_ij / max(a_i, b_j)``; ``S`` is the largest sum over a one-to-one
        matching of classes to clusters (tables padded to square ``K = max(r, c)``). Its
        expectation under the permutation model is estimated by ``E = sum_k min(a_(k), b_(k)) / n``
        over the class and cluster sizes sorted in decreasing order (padded with zeros), and
        ``PSI = (S - E) / (K - E)``, or with ``simplified=True``, ``(S - 1) / (K - 1)`` (``E = 1``,
        the paper's eq. 20). ``clipped`` (the default, as the paper) returns 0 for negative
        values. Symmetric; 1.0 when ``K = 1`` or on an empty table. Needs scipy.
        """
        match = self._to_match()
        if match is None:
            return 1.0
        table, k = match
        a = table.sum(axis=1)
        b = table.sum(axis=0)
        sim = table / np.maximum(a[:, None], b[None, :])
        rows, cols = _linear_sum_assignment()(sim, maximize=True)
        s = math.fsum(sim[rows, cols].tolist())
        if simplified:
            value = (s - 1.0) / (k - 1)
        else:
            sizes_a = np.sort(a)[::-1]
            sizes_b = np.sort(b)[::-1]
            m = min(sizes_a.size, sizes_b.size)
            expected = Fraction(_total(np.minimum(sizes_a[:m], sizes_b[:m]))) / Fraction(self.n)
            value = (s - float(expected)) / float(k - expected)
        return max(0.0, value) if clipped else value

    def best_match_f1_per_class(self) -> NDArray[np.float64]:
        """For each class (in class order), its best F1 against any one cluster.

        ``max_j 2 n_ij / (a_i + b_j)``: the harmonic mean of the class's recall and the
        cluster's precision for the cluster that matches the class best (the "isolated label
        F1" of single-cell integration benchmarks, per class) [LA99]_. nan for an empty class
        of a given table. :meth:`class_report` also gives the cluster.
        """
        return self._best_matches()[1]

    def best_match_f1_score(self, *, average: str = "weighted") -> float:
        """Best-match F-measure of Larsen and Aone [LA99]_ over the classes.

        ``average="weighted"``: ``sum_i (a_i / n) max_j 2 n_ij / (a_i + b_j)`` (the clustering
        F-measure); ``"macro"``: the unweighted mean over the non-empty classes (every class
        counts alike, as rare cell types should). Classes may share a best cluster. 1.0 on an
        empty table.
        """
        if average not in ("weighted", "macro"):
            raise _fail(
                "average", "best_match_f1_score", "a str among {'weighted', 'macro'}", average
            )
        if self.n == 0:
            return 1.0
        f1 = self._best_matches()[1]
        sizes = self.class_sizes
        nonempty = sizes > 0
        if average == "macro":
            return math.fsum(f1[nonempty].tolist()) / int(np.count_nonzero(nonempty))
        return math.fsum((f1[nonempty] * sizes[nonempty]).tolist()) / self.n
