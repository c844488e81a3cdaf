"""Measures beyond scikit-learn's, each a method of :class:`Contingency` (through this mixin).

Notation used in the docstrings: ``n_ij`` is the table, ``a_i`` the class sizes (row sums),
``b_j`` the cluster sizes (column sums), ``n`` the number of samples, and over *unordered* pairs
of distinct samples

* ``T = sum C(n_ij, 2)`` pairs together in both labelings,
* ``P = sum C(a_i, 2)`` pairs together in ``labels_true``,
* ``Q = sum C(b_j, 2)`` pairs together in ``labels_pred``,
* ``N = C(n, 2)`` all pairs.

"Positive" means "in the same predicted cluster": ``tp = T``, ``fp = Q - T``, ``fn = P - T``,
``tn = N - P - Q + T``. scikit-learn's :func:`pair_confusion_matrix` counts ordered pairs, which
is twice these counts.

Pair-counting measures are computed from these exact integers and rounded to float once (or
twice where a square root is taken). When a denominator is zero no measure raises: a symmetric
similarity whose denominator vanishes only when the two labelings are identical (both all
singletons, or fewer than two samples) is 1.0, as :func:`rand_score` is; an undefined ratio
(precision without predicted pairs, a correlation with a constant margin) is ``nan``.

Information measures are in nats unless ``base=`` says otherwise, and raise ``ValueError`` on an
empty table, as :func:`mutual_info_score`. Set-matching measures are 1.0 on an empty table, as
:func:`purity_score`.

References
----------
.. [HA85] L. Hubert, P. Arabie (1985). Comparing partitions. J. Classification 2, 193-218.
.. [Mi96] B. Mirkin (1996). Mathematical Classification and Clustering. Kluwer.
.. [Me07] M. Meila (2007). Comparing clusterings - an information based distance.
   J. Multivariate Analysis 98(5), 873-895.
.. [VEB10] N. X. Vinh, J. Epps, J. Bailey (2010). Information theoretic measures for clusterings
   comparison. JMLR 11, 2837-2854.
.. [De13] B. Desgraupes (2013). Clustering indices (R package clusterCrit), section on external
   criteria; also M. Halkidi, Y. Batistakis, M. Vazirgiannis (2001). On clustering validation
   techniques. J. Intelligent Information Systems 17, 107-145.
.. [AGAV09] E. Amigo, J. Gonzalo, J. Artiles, F. Verdejo (2009). A comparison of extrinsic
   clustering evaluation metrics based on formal constraints. Information Retrieval 12, 461-486.
.. [GWJA19] A. J. Gates, I. B. Wood, W. P. Hetrick, Y.-Y. Ahn (2019). Element-centric
   clustering comparison unifies overlaps and hierarchy. Scientific Reports 9, 8574.
.. [Cr46] H. Cramer (1946). Mathematical Methods of Statistics. Princeton, section 21.9.
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Real
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ._params import _fail, check_beta

if TYPE_CHECKING:
    from . import _native

__all__ = ["Measures"]

_NAN = float("nan")


def _ratio(num: int | Fraction, den: int | Fraction, degenerate: float) -> float:
    """``num / den`` rounded once, or ``degenerate`` when ``den`` is zero."""
    if den == 0:
        return degenerate
    return float(Fraction(num) / Fraction(den))


def _correlation(num: int, den_squared: int) -> float:
    """``num / sqrt(den_squared)`` (nan when ``den_squared`` is zero), clipped to [-1, 1]."""
    if den_squared == 0:
        return _NAN
    r = math.sqrt(float(Fraction(num * num, den_squared)))
    return math.copysign(min(r, 1.0), num) if num else 0.0


def _log_factor(func: str, base: object) -> float:
    """``1 / ln(base)``: the factor turning nats into units of ``base``."""
    if (
        not isinstance(base, Real)
        or isinstance(base, bool)
        or not 0 < float(base) < math.inf
        or float(base) == 1
    ):
        raise _fail("base", func, "a float in the range (0.0, inf) other than 1.0", base)
    return 1.0 / math.log(float(base))


class Measures:
    """The catalogue of external measures, computed from the table alone."""

    __slots__ = ()

    if TYPE_CHECKING:
        _cells: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]
        _native_table: _native.Table

        @property
        def n(self) -> int: ...
        @property
        def class_sizes(self) -> NDArray[np.int64]: ...
        @property
        def cluster_sizes(self) -> NDArray[np.int64]: ...
        def to_numpy(self) -> NDArray[np.int64]: ...
        def mutual_info_score(self) -> float: ...
        def entropy_true(self) -> float: ...
        def entropy_pred(self) -> float: ...

    # --- pair counting -----------------------------------------------------------------------

    def _pairs(self) -> tuple[int, int, int, int]:
        """(N, P, Q, T) as exact integers, from the sums of squares."""
        n, cells_sq, rows_sq, cols_sq = self._native_table.pair_sums()
        return n * (n - 1) // 2, (rows_sq - n) // 2, (cols_sq - n) // 2, (cells_sq - n) // 2

    def pair_counts(self) -> dict[str, int]:
        """Unordered pairs of distinct samples by agreement, as exact integers.

        ``tp = T`` (together in both), ``fp = Q - T`` (together only in ``labels_pred``),
        ``fn = P - T`` (together only in ``labels_true``), ``tn = N - P - Q + T`` (apart in
        both): "positive" means "in the same predicted cluster" [HA85]_. scikit-learn's
        :func:`pair_confusion_matrix` counts ordered pairs: twice these.
        """
        n_pairs, p, q, t = self._pairs()
        return {"tp": t, "fp": q - t, "fn": p - t, "tn": n_pairs - p - q + t}

    def jaccard_index(self) -> float:
        """Jaccard index over pairs, ``T / (P + Q - T)`` [HA85]_.

        1.0 when no pair is together in either labeling (they are then identical).
        """
        _, p, q, t = self._pairs()
        return _ratio(t, p + q - t, 1.0)

    def pair_precision(self) -> float:
        """Share of predicted pairs that are true pairs, ``T / Q``; nan when ``Q = 0``."""
        _, _, q, t = self._pairs()
        return _ratio(t, q, _NAN)

    def pair_recall(self) -> float:
        """Share of true pairs that are predicted pairs, ``T / P``; nan when ``P = 0``."""
        _, p, _, t = self._pairs()
        return _ratio(t, p, _NAN)

    def pair_f_score(self, *, beta: float = 1.0) -> float:
        """F-beta of pair precision and recall, ``(1 + beta^2) T / (beta^2 P + Q)``.

        ``beta = 0`` is the precision; 1.0 when ``P = Q = 0`` (the labelings are then identical).
        """
        beta = check_beta("pair_f_score", beta)
        _, p, q, t = self._pairs()
        b2 = Fraction(beta) ** 2
        return _ratio((1 + b2) * t, b2 * p + q, 1.0)

    def dice_index(self) -> float:
        """Czekanowski-Dice index, ``2T / (P + Q)``: the pair F1 score [De13]_.

        1.0 when ``P = Q = 0``.
        """
        _, p, q, t = self._pairs()
        return _ratio(2 * t, p + q, 1.0)

    def kulczynski_index(self) -> float:
        """Kulczynski index, ``(T/P + T/Q) / 2`` [De13]_; nan when ``P`` or ``Q`` is 0."""
        _, p, q, t = self._pairs()
        return _ratio(t * (p + q), 2 * p * q, _NAN)

    def mirkin_metric(self) -> int:
        """Mirkin metric, ``sum a_i^2 + sum b_j^2 - 2 sum n_ij^2 = 2 (P + Q - 2T)`` [Mi96]_.

        The number of *ordered* pairs of samples on which the labelings disagree, as R's
        ``aricode::Mirkin``; equals ``n (n - 1) (1 - rand_score)``. An exact integer.
        """
        _, p, q, t = self._pairs()
        return 2 * (p + q - 2 * t)

    def hubert_gamma(self) -> float:
        """Hubert's (normalised) Gamma, ``(N T - P Q) / sqrt(P Q (N - P) (N - Q))`` [HA85]_.

        The correlation of the two pair indicators, equal to :meth:`phi_index`; nan when a
        labeling puts every pair together or every pair apart.
        """
        n_pairs, p, q, t = self._pairs()
        return _correlation(n_pairs * t - p * q, p * q * (n_pairs - p) * (n_pairs - q))

    def rogers_tanimoto_index(self) -> float:
        """Rogers-Tanimoto index, ``(tp + tn) / (tp + tn + 2 (fp + fn))`` [De13]_.

        1.0 for fewer than two samples.
        """
        n_pairs, p, q, t = self._pairs()
        agree, disagree = n_pairs - p - q + 2 * t, p + q - 2 * t
        return _ratio(agree, agree + 2 * disagree, 1.0)

    def russel_rao_index(self) -> float:
        """Russel-Rao index, ``tp / N`` [De13]_; nan for fewer than two samples."""
        n_pairs, _, _, t = self._pairs()
        return _ratio(t, n_pairs, _NAN)

    def sokal_sneath1_index(self) -> float:
        """Sokal-Sneath index (first kind), ``tp / (tp + 2 (fp + fn))`` [De13]_.

        1.0 when ``P = Q = 0``.
        """
        _, p, q, t = self._pairs()
        return _ratio(t, t + 2 * (p + q - 2 * t), 1.0)

    def sokal_sneath2_index(self) -> float:
        """Sokal-Sneath index (second kind), ``(tp + tn) / (tp + tn + (fp + fn) / 2)`` [De13]_.

        1.0 for fewer than two samples.
        """
        n_pairs, p, q, t = self._pairs()
        agree, disagree = n_pairs - p - q + 2 * t, p + q - 2 * t
        return _ratio(2 * agree, 2 * agree + disagree, 1.0)

    def phi_index(self) -> float:
        """Phi coefficient of the pair table [De13]_.

        ``(tp tn - fp fn) / sqrt((tp + fp) (tp + fn) (tn + fp) (tn + fn))``; nan when a margin
        is zero. Equal to :meth:`hubert_gamma`.
        """
        c = self.pair_counts()
        tp, fp, fn, tn = c["tp"], c["fp"], c["fn"], c["tn"]
        return _correlation(tp * tn - fp * fn, (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))

    # --- information -------------------------------------------------------------------------

    def _nonempty(self, func: str) -> None:
        if self.n == 0:
            raise ValueError(f"{func} is undefined for an empty contingency table")

    def _log_terms(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Per cell: n_ij, ln n_ij, and the stacked rows (ln a_i, ln b_j), as floats."""
        rows, cols, counts = self._cells
        c = counts.astype(np.float64)
        log_a = np.log(self.class_sizes[rows].astype(np.float64))
        log_b = np.log(self.cluster_sizes[cols].astype(np.float64))
        return c, np.log(c), np.stack([log_a, log_b])

    def _conditional(self) -> tuple[float, float]:
        """(H(U|V), H(V|U)) in nats, each a sum of non-negative terms."""
        c, log_c, log_ab = self._log_terms()
        n = self.n
        h_true_given_pred = math.fsum(c * (log_ab[1] - log_c)) / n
        h_pred_given_true = math.fsum(c * (log_ab[0] - log_c)) / n
        return h_true_given_pred, h_pred_given_true

    def joint_entropy(self, *, base: float = math.e) -> float:
        """Joint entropy ``H(U, V) = -sum (n_ij / n) log(n_ij / n)`` [Me07]_."""
        unit = _log_factor("joint_entropy", base)
        self._nonempty("joint entropy")
        c, log_c, _ = self._log_terms()
        n = self.n
        return max(0.0, math.log(n) - math.fsum(c * log_c) / n) * unit

    def conditional_entropy_true_given_pred(self, *, base: float = math.e) -> float:
        """``H(U|V) = H(U, V) - H(V) = -sum (n_ij / n) log(n_ij / b_j)`` [Me07]_."""
        unit = _log_factor("conditional_entropy_true_given_pred", base)
        self._nonempty("conditional entropy")
        return self._conditional()[0] * unit

    def conditional_entropy_pred_given_true(self, *, base: float = math.e) -> float:
        """``H(V|U) = H(U, V) - H(U) = -sum (n_ij / n) log(n_ij / a_i)`` [Me07]_."""
        unit = _log_factor("conditional_entropy_pred_given_true", base)
        self._nonempty("conditional entropy")
        return self._conditional()[1] * unit

    def variation_of_information(self, *, base: float = math.e) -> float:
        """Variation of information ``VI = H(U|V) + H(V|U)`` [Me07]_: a metric on partitions."""
        unit = _log_factor("variation_of_information", base)
        self._nonempty("variation of information")
        return sum(self._conditional()) * unit

    def normalized_variation_of_information(self) -> float:
        """``VI / H(U, V)``, in [0, 1] [VEB10]_; 0 when ``H(U, V) = 0`` (one cell)."""
        self._nonempty("variation of information")
        joint = self.joint_entropy()
        if joint == 0:
            return 0.0
        return min(1.0, sum(self._conditional()) / joint)

    def information_distance(self, *, base: float = math.e) -> float:
        """Information distance ``ID = max(H(U), H(V)) - MI = max(H(U|V), H(V|U))`` [VEB10]_."""
        unit = _log_factor("information_distance", base)
        self._nonempty("information distance")
        return max(self._conditional()) * unit

    def normalized_information_distance(self) -> float:
        """``NID = 1 - MI / max(H(U), H(V)) = ID / max(H(U), H(V))`` [VEB10]_.

        In [0, 1]; 0 when both entropies are 0 (a single class and a single cluster).
        """
        self._nonempty("information distance")
        h_max = max(self.entropy_true(), self.entropy_pred())
        if h_max == 0:
            return 0.0
        return min(1.0, max(self._conditional()) / h_max)

    def chi_squared(self) -> float:
        """Pearson's chi-squared statistic of independence, ``n (sum n_ij^2 / (a_i b_j) - 1)``.

        The sum of ``(n_ij - a_i b_j / n)^2 / (a_i b_j / n)`` over all cells [Cr46]_.
        """
        self._nonempty("chi-squared")
        rows, cols, counts = self._cells
        c = counts.astype(np.float64)
        a = self.class_sizes[rows].astype(np.float64)
        b = self.cluster_sizes[cols].astype(np.float64)
        terms = (c / a) * (c / b)
        return max(0.0, self.n * math.fsum([*terms.tolist(), -1.0]))

    def cramers_v(self) -> float:
        """Cramer's V, ``sqrt(chi^2 / (n (min(r, c) - 1)))`` [Cr46]_.

        ``r`` and ``c`` count the non-empty classes and clusters; nan when ``min(r, c) = 1``.
        """
        self._nonempty("Cramer's V")
        r = int(np.count_nonzero(self.class_sizes))
        c = int(np.count_nonzero(self.cluster_sizes))
        k = min(r, c) - 1
        if k == 0:
            return _NAN
        return min(1.0, math.sqrt(self.chi_squared() / (self.n * k)))

    # --- set matching ------------------------------------------------------------------------

    def _max_per(self, axis: int) -> int:
        """``sum_i max_j n_ij`` (axis 0: per class) or ``sum_j max_i n_ij`` (axis 1)."""
        rows, cols, counts = self._cells
        index, size = (
            (rows, self.class_sizes.size) if axis == 0 else (cols, self.cluster_sizes.size)
        )
        best = np.zeros(size, dtype=np.int64)
        np.maximum.at(best, index, counts)
        return sum(int(x) for x in best.tolist())

    def inverse_purity_score(self) -> float:
        """Inverse purity, ``(1/n) sum_i max_j n_ij`` [AGAV09]_; 1.0 on an empty table."""
        return _ratio(self._max_per(0), self.n, 1.0)

    def purity_f_score(self) -> float:
        """Harmonic mean of purity and inverse purity [AGAV09]_; 1.0 on an empty table."""
        purity, inverse = self._max_per(1), self._max_per(0)
        return _ratio(2 * purity * inverse, self.n * (purity + inverse), 1.0)

    def _bcubed(self) -> tuple[float, float]:
        rows, cols, counts = self._cells
        c = counts.astype(np.float64)
        a = self.class_sizes[rows].astype(np.float64)
        b = self.cluster_sizes[cols].astype(np.float64)
        n = self.n
        return math.fsum((c * (c / b)).tolist()) / n, math.fsum((c * (c / a)).tolist()) / n

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
        rows, cols, counts = self._cells
        c = counts.astype(np.float64)
        m = np.maximum(self.class_sizes[rows], self.cluster_sizes[cols]).astype(np.float64)
        return math.fsum((c * (c / m)).tolist()) / self.n

    def hungarian_accuracy(self) -> float:
        """Best one-to-one matching of classes to clusters: matched samples / n.

        The matching maximises ``sum n_{i, m(i)}`` (Hungarian algorithm,
        ``scipy.optimize.linear_sum_assignment`` on the dense table, which needs scipy); 1.0 on
        an empty table.
        """
        if self.n == 0:
            return 1.0
        try:
            from scipy.optimize import linear_sum_assignment
        except ImportError as e:  # pragma: no cover - scipy is installed with the test extras
            raise ImportError(
                "hungarian_accuracy needs scipy: pip install 'fastcluster-metrics[sparse]'"
            ) from e
        table = self.to_numpy()
        rows, cols = linear_sum_assignment(table, maximize=True)
        matched = sum(int(x) for x in table[rows, cols].tolist())
        return _ratio(matched, self.n, 1.0)
