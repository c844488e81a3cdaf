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

Some measures look at *couples* of distinct pairs of samples (each pair an observation with two
binary variables, together in ``labels_true`` and together in ``labels_pred``): ``s+ = tp tn``
couples are concordant, ``s- = fp fn`` discordant, out of ``C(N, 2)``; MARI looks at couples of
pairs that share no sample.

Pair-counting measures are computed from these exact integers and rounded to float once (or
twice where a square root is taken). When a denominator is zero no measure raises: a symmetric
similarity whose denominator vanishes only when the two labelings are identical (both all
singletons, or fewer than two samples) is 1.0, as :func:`rand_score` is; an undefined ratio
(precision without predicted pairs, a correlation with a constant margin) is ``nan``.

Information measures are in nats unless ``base=`` says otherwise; the entropies, distances and
chi-squared raise ``ValueError`` on an empty table, as :func:`mutual_info_score` (the joint NMI
is then 1.0, as :func:`normalized_mutual_info_score`, and the Frobenius distance 0).
Set-matching measures are 1.0 on an empty table, as :func:`purity_score`; those that match
classes to clusters one-to-one (Hungarian accuracy, NPA, NCA, PSI) need scipy.

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
.. [SCR23] L. Sundqvist, J. Chiquet, G. Rigaill (2023). Adjusting the adjusted Rand index: a
   multinomial story. Computational Statistics 38, 327-347 (R package aricode, ``MARI``).
.. [Ke38] M. G. Kendall (1938). A new measure of rank correlation. Biometrika 30, 81-93; tau-b
   with ties: M. G. Kendall (1945), Biometrika 33, 239-251.
.. [GK54] L. A. Goodman, W. H. Kruskal (1954). Measures of association for cross
   classifications. JASA 49, 732-764; as Baker-Hubert Gamma in [De13]_.
.. [Ro74] F. J. Rohlf (1974). Methods of comparing classifications. Annual Review of Ecology and
   Systematics 5, 101-113 (the G(+) index, as in [De13]_).
.. [Mc47] Q. McNemar (1947). Note on the sampling error of the difference between correlated
   proportions or percentages. Psychometrika 12, 153-157 (as in [De13]_).
.. [Ga25] M. Gagolewski (2025). Normalised clustering accuracy: an asymmetric external cluster
   validity measure. J. Classification 42, 2-30 (also NPA; Python/R package genieclust).
.. [RF16] M. Rezaei, P. Franti (2016). Set matching measures for external cluster validity.
   IEEE Trans. Knowledge and Data Engineering 28(8), 2173-2186.
.. [LA99] B. Larsen, C. Aone (1999). Fast and effective text mining using linear-time document
   clustering. KDD '99, 16-22 (the best-match F-measure).
.. [LBA14] R. Lajugie, F. Bach, S. Arlot (2014). Large-margin metric learning for constrained
   partitioning problems. ICML (the Frobenius distance; R package aricode, ``Frobenius``).
.. [NCY20] M. E. J. Newman, G. T. Cantwell, J.-G. Young (2020). Improved mutual information
   measure for clustering, classification, and community detection. Phys. Rev. E 101, 042304
   (the flat reduction); the number of tables estimated as in M. Jerdee, A. Kirkley,
   M. E. J. Newman (2023), Efficient estimation of the number of contingency tables, J. Stat.
   Mech.
.. [JKN24] M. Jerdee, A. Kirkley, M. E. J. Newman (2024). Normalized mutual information is a
   biased measure for classification and community detection. arXiv:2307.01282 (the
   asymmetric normalisation) and Mutual information and the encoding of contingency tables,
   arXiv:2405.05393 (the Dirichlet-multinomial reduction); Python package clustering-mi.
.. [RBNV14] S. Romano, J. Bailey, N. X. Vinh, K. Verspoor (2014). Standardized mutual
   information for clustering comparisons: one step further in adjustment for chance.
   ICML 2014, PMLR 32(2):1143-1151.
.. [RBNV16] S. Romano, N. X. Vinh, J. Bailey, K. Verspoor (2016). Adjusting for chance
   clustering comparison measures. JMLR 17(134), 1-32.
.. [Ma67] N. Mantel (1967). The detection of disease clustering and a generalized regression
   approach. Cancer Research 27, 209-220 (the variance of a permuted sum of products).
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Real
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ._diagnostics import Diagnostics
from ._params import _fail, check_beta, scipy_module
from ._weighted_table import WeightedTable, pairs

if TYPE_CHECKING:
    from ._weighted_table import AnyTable

__all__ = ["Measures"]

_NAN = float("nan")

_RMI_VARIANTS = ("dirichlet", "flat")
_RMI_NORMALIZATIONS = ("second", "first", "mean", "min", "max", "geometric", "none")


_SMI_MAX_N = 2**33
"""The most samples :meth:`Measures.standardized_mutual_info_score` takes (hours, gigabytes)."""


def _ratio(num: float | Fraction, den: float | Fraction, degenerate: float) -> float:
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


def _exact_sum_of_products(*factors: NDArray[Any]) -> int | Fraction:
    """``sum_k prod_f factors[f][k]`` as an exact Python integer (int64 when it cannot overflow);
    for real factors (weights), their products' correctly rounded sum, as a Fraction."""
    if factors[0].size == 0:
        return 0
    if any(f.dtype.kind == "f" for f in factors):
        product_f = np.ones(factors[0].size)
        for f in factors:
            product_f = product_f * f
        return Fraction(math.fsum(product_f.tolist()))
    bound = factors[0].size
    for f in factors:
        bound *= int(f.max())
    if bound < 2**63:
        product = factors[0].copy()
        for f in factors[1:]:
            product *= f
        return int(product.sum())
    product_obj = factors[0].astype(object)
    for f in factors[1:]:
        product_obj = product_obj * f.astype(object)
    return int(product_obj.sum())


def _signed_sqrt_ratio(num: int, den: int) -> float:
    """``num / sqrt(den)`` for integers, rounded from the exact square ``num^2 / den``."""
    if den == 0:
        return _NAN
    return math.copysign(math.sqrt(float(Fraction(num * num, den))), num) if num else 0.0


def _plain(x: int | Fraction) -> int | float:
    """An exact count as a user gets it: an integer, or (from real cells) the nearest float."""
    return x if isinstance(x, int) else float(x)


def _total(values: NDArray[Any]) -> int | float:
    """The exact sum of integer values, or the correctly rounded sum of real ones."""
    if values.dtype.kind == "f":
        return math.fsum(values.tolist())
    return sum(int(x) for x in values.tolist())


def _linear_sum_assignment() -> Any:
    return scipy_module("optimize", "set-matching measures").linear_sum_assignment


class Measures(Diagnostics):
    """The catalogue of external measures, computed from the table alone."""

    __slots__ = ()

    if TYPE_CHECKING:

        @property
        def _cells(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]: ...

        _native_table: AnyTable

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
        """(N, P, Q, T) as exact integers (exact Fractions for weighted samples, so that every
        ratio of them is rounded once): :func:`._weighted_table.pairs`."""
        return pairs(self._native_table)

    def pair_counts(self) -> dict[str, int | float]:
        """Unordered pairs of distinct samples by agreement, as exact integers.

        ``tp = T`` (together in both), ``fp = Q - T`` (together only in ``labels_pred``),
        ``fn = P - T`` (together only in ``labels_true``), ``tn = N - P - Q + T`` (apart in
        both): "positive" means "in the same predicted cluster" [HA85]_. scikit-learn's
        :func:`pair_confusion_matrix` counts ordered pairs: twice these.
        """
        n_pairs, p, q, t = self._pairs()
        counts = {"tp": t, "fp": q - t, "fn": p - t, "tn": n_pairs - p - q + t}
        return {k: _plain(v) for k, v in counts.items()}

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
        return _plain(2 * (p + q - 2 * t))  # type: ignore[return-value]

    def hubert_gamma(self) -> float:
        """Hubert's (normalised) Gamma, ``(N T - P Q) / sqrt(P Q (N - P) (N - Q))`` [HA85]_.

        The correlation of the two pair indicators, equal to :meth:`phi_index`; nan when a
        labeling puts every pair together or every pair apart.
        """
        n_pairs, p, q, t = self._pairs()
        return _correlation(n_pairs * t - p * q, p * q * (n_pairs - p) * (n_pairs - q))

    def standardized_rand_score(self) -> float:
        """Standardized Rand index: how many standard deviations the Rand index lies above its
        expectation when one labeling is permuted at random (the permutation model of ARI)
        [RBNV16]_.

        When many clusterings are compared with one reference, those with many small
        clusters vary more by chance, and the adjusted Rand index favours them; dividing by
        the standard deviation corrects that selection bias. The Rand index is an affine
        function of ``Γ``, the ordered pairs of distinct samples together in both labelings,
        a permuted sum of products whose mean and variance Mantel gave in closed form [Ma67]_:
        with ``A1 = Σ a (a - 1)`` and ``A3 = Σ a (a - 1)²`` over the class sizes ``a`` (``B1``,
        ``B3`` over the cluster sizes) and ``n_(k)`` the falling factorial,
        ``E[Γ] = A1 B1 / n_(2)`` and ``Var Γ = 2 A1 B1 / n_(2) + 4 (A3 - A1)(B3 - B1) / n_(3)
        + (A1² + 2 A1 - 4 A3)(B1² + 2 B1 - 4 B3) / n_(4) - E[Γ]²``, all exact integers here
        (checked against every permutation of small labelings). The value is
        ``(Γ - E[Γ]) / sqrt(Var Γ)``, the same for the Rand index and ARI; nan when the
        variance is 0 (a labeling of one cluster, or all singletons: every permutation gives
        the same index). For counts only (whole-number weights).
        """
        self._counts_only("standardized_rand_score", "pairs of samples a permutation moves")
        _, p, q, t = self._pairs()
        table = self._native_table
        n = int(table.n)
        rows = [int(a) for a in table.row_sums()]
        cols = [int(b) for b in table.col_sums()]
        a1, a3 = 2 * p, sum(a * (a - 1) ** 2 for a in rows)
        b1, b3 = 2 * q, sum(b * (b - 1) ** 2 for b in cols)
        falling = [1, n, n * (n - 1), n * (n - 1) * (n - 2), n * (n - 1) * (n - 2) * (n - 3)]

        def term(count: int, k: int) -> Fraction:
            # Below k samples there is nothing to count (the count is 0 then too).
            return Fraction(count, falling[k]) if falling[k] else Fraction(0)

        mean = term(a1 * b1, 2)
        variance = (
            term(2 * a1 * b1, 2)
            + term(4 * (a3 - a1) * (b3 - b1), 3)
            + term((a1 * a1 + 2 * a1 - 4 * a3) * (b1 * b1 + 2 * b1 - 4 * b3), 4)
            - mean * mean
        )
        if variance <= 0:
            return _NAN
        deviation = 2 * t - mean
        z = math.sqrt(float(deviation * deviation / variance))
        return math.copysign(z, deviation) if deviation else 0.0

    def standardized_mutual_info_score(self) -> float:
        """Standardized mutual information: how many standard deviations the mutual
        information lies above its expectation when one labeling is permuted at random (the
        permutation model of :func:`adjusted_mutual_info_score`) [RBNV14]_.

        The counterpart of :meth:`standardized_rand_score` for information: among many
        clusterings compared with one reference, those with many small clusters gain mutual
        information by chance, and dividing by its standard deviation corrects that
        selection bias. With ``S = n MI = Σ g_ij(n_ij)``, ``g_ij(x) = x ln(x / e_ij) - x +
        e_ij`` and ``e_ij = a_i b_j / n``, the variance is taken by rows, ``Var S = Σ_i
        Cov(A_i, E[S | row i])`` with ``A_i`` row ``i``'s terms, and each conditional
        expectation by a forward and a backward pass over the partial sums of a row's (or a
        column's) counts, which are a Markov chain. It is exact but for probabilities below
        ``2^-56`` of their distribution's mode, which are left out (checked against every
        table of small margins and against the sum over pairs of cells of Romano et al. to
        1e-12); Romano et al.'s own sum costs ``O(max(R, C) n³)`` and subtracts ``E[MI]²``
        from ``E[MI²]``, losing digits at large ``n``. The cost here grows as ``n`` times the
        square of the number of standard deviations kept: 24 ms at ``n = 1e4``, 0.23 s at
        ``1e5`` and 2.4 s at ``1e6`` for 33 classes against 60 clusters on two threads,
        where fastami's Monte Carlo estimate takes 2.2 s to be within 0.07 (benches/README.md).
        Rows and columns of equal sizes are computed once, but each distinct size walks every
        cluster of the other side: 33 x 20,000 takes 25 s at ``n = 1e6``, and 33 x 60 27 s at
        ``n = 1e7`` (Ctrl-C stops the call).

        The value is ``(MI - E[MI]) / sqrt(Var MI)``, symmetric in the two labelings; nan
        when the variance is 0 (every permutation gives the same mutual information: one
        cluster on either side, all singletons on either side, or ``n - 1`` and 1 samples
        against clusters of equal sizes). For counts only (whole-number weights).
        """
        self._counts_only("standardized_mutual_info_score", "samples a permutation moves")
        table = self._native_table
        if table.n > _SMI_MAX_N:
            # Its cost and memory grow as n (whole-number weights can make n huge).
            raise ValueError(
                f"standardized_mutual_info_score is computed exactly for at most 2**33 samples"
                f" (its time grows as n: 27 s at n = 1e7); this table has n = {int(table.n):,}"
            )
        variance = table.mutual_info_variance()
        if variance <= 0:
            return _NAN
        mi, emi, _, _ = table.ami_parts()
        return float((mi - emi) / math.sqrt(variance))

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
        n_pairs, p, q, t = self._pairs()
        tp, fp, fn, tn = t, q - t, p - t, n_pairs - p - q + t
        return _correlation(tp * tn - fp * fn, (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))

    def adjusted_fowlkes_mallows_score(self) -> float:
        """Fowlkes-Mallows index adjusted for chance, ``(FM - E[FM]) / (1 - E[FM])`` [HA85]_.

        ``FM = T / sqrt(P Q)`` and, under the hypergeometric (fixed margins) model,
        ``E[T] = P Q / N`` so ``E[FM] = sqrt(P Q) / N``; hence
        ``AFM = (N T - P Q) / (sqrt(P Q) (N - sqrt(P Q)))``, as genieclust's
        ``adjusted_fm_score`` (Hubert and Arabie's eq. 4). 1.0 for identical labelings
        (``P = Q = T``), nan when ``P`` or ``Q`` is 0 otherwise; may be negative.
        """
        n_pairs, p, q, t = self._pairs()
        if p == q == t:
            return 1.0
        if p * q == 0:
            return _NAN
        # (N T - P Q) (N + s) / (s (N^2 - P Q)) with s = sqrt(P Q): the one difference of
        # nearly equal numbers, N^2 - P Q, is exact.
        ratio = float(Fraction(n_pairs * t - p * q, n_pairs * n_pairs - p * q))
        return ratio * (math.sqrt(float(Fraction(n_pairs * n_pairs, p * q))) + 1.0)

    def modified_adjusted_rand_score(self) -> float:
        """Modified adjusted Rand index (MARI) of Sundqvist, Chiquet and Rigaill [SCR23]_.

        The ARI's expected index ``P Q / N`` assumes fixed margins (hypergeometric model). Under
        a multinomial model (samples drawn independently, labelings independent), the
        probability that a pair is together in both labelings, ``sum p_i^2 sum q_j^2``, is
        estimated without bias from *disjoint* pairs of pairs: over the ``6 C(n, 4)`` ordered
        couples (a pair, another pair sharing no sample), the share ``E`` whose first pair is
        together in ``labels_true`` and second pair together in ``labels_pred``. Counting the
        couples that overlap (the same pair, ``T`` of them, or one shared sample, by triples),

        ``6 C(n, 4) E = P Q - T - (2n + sum n_ij a_i b_j - sum n_ij^2 - sum a_i^2 - sum b_j^2)``

        and ``MARI = (T - N E) / ((P + Q) / 2 - N E)``, as R's ``aricode::MARI``. Computed from
        exact integers and rounded once. 1.0 for identical labelings (aricode: nan when both are
        all singletons); nan for fewer than four samples otherwise (no disjoint pairs of
        pairs) or a zero denominator. Under independence it estimates 0 without bias at any
        ``n``; for large ``n`` it approaches the ARI.
        """
        self._counts_only("modified_adjusted_rand_score")
        n_pairs, p, q, t = self._pairs()
        if p == q == t:
            return 1.0
        n = self.n
        if n < 4:
            return _NAN
        _, cells_sq, rows_sq, cols_sq = self._native_table.pair_sums()
        rows, cols, counts = self._cells
        triples = _exact_sum_of_products(counts, self.class_sizes[rows], self.cluster_sizes[cols])
        together = p * q - t - (2 * n + triples - cells_sq - rows_sq - cols_sq)
        couples = n * (n - 1) * (n - 2) * (n - 3)  # 6 C(n, 4), times 4
        couples = couples // 4 if isinstance(couples, int) else Fraction(couples) / 4
        # MARI = (T D - N E') / ((P + Q) D / 2 - N E') with E' = together, D = couples
        return _ratio(
            2 * (t * couples - n_pairs * together), (p + q) * couples - 2 * n_pairs * together, _NAN
        )

    def _counts_only(
        self,
        func: str,
        counts: str = "couples of distinct sample pairs (or quadruples of samples)",
    ) -> None:
        """``ValueError`` on a table of weighted samples that are not all whole numbers, for a
        measure that ``counts`` what only whole numbers of samples make."""
        table = self._native_table
        if isinstance(table, WeightedTable) and not table.integral:
            raise ValueError(
                f"{func} is defined for counts only: it counts {counts}, which weights that are"
                " not whole numbers do not define. Use whole-number sample_weight and"
                " class_weight (each sample then counts that many times)"
            )

    def _pairs_of_pairs(self) -> tuple[int, int, int]:
        """(concordant, discordant, all) couples of distinct sample pairs, exact integers.

        A couple of two distinct pairs is concordant when one pair is together in both labelings
        and the other apart in both (``tp tn`` of them), discordant when one is together only in
        ``labels_true`` and the other only in ``labels_pred`` (``fp fn``); ``C(N, 2)`` couples.
        """
        n_pairs, p, q, t = self._pairs()
        tp, fp, fn, tn = t, q - t, p - t, n_pairs - p - q + t
        couples = n_pairs * (n_pairs - 1)
        return tp * tn, fp * fn, couples // 2 if isinstance(couples, int) else couples / 2

    def kendall_tau(self) -> float:
        """Kendall's tau-b between the two "together" indicators over all pairs of samples.

        Each pair of samples is an observation with two binary variables (together in
        ``labels_true``, together in ``labels_pred``); over couples of observations
        ``tau_b = (s+ - s-) / sqrt((C(N, 2) - ties_true) (C(N, 2) - ties_pred))`` [Ke38]_ with
        ``s+ = tp tn``, ``s- = fp fn``, ``C(N, 2) - ties_true = P (N - P)`` and
        ``C(N, 2) - ties_pred = Q (N - Q)``. For two binary variables tau-b equals the phi
        coefficient (so :meth:`phi_index` and :meth:`hubert_gamma`); nan when either labeling
        puts every pair together or every pair apart.
        """
        n_pairs, p, q, _ = self._pairs()
        s_plus, s_minus, _ = self._pairs_of_pairs()
        return _correlation(s_plus - s_minus, p * (n_pairs - p) * q * (n_pairs - q))

    def goodman_kruskal_gamma(self) -> float:
        """Goodman-Kruskal (Baker-Hubert) Gamma of the pair indicators, ``(s+ - s-) / (s+ + s-)``.

        ``s+ = tp tn`` concordant and ``s- = fp fn`` discordant couples of pairs of samples
        [GK54]_; for two binary variables this is Yule's Q. In [-1, 1]; nan when there is no
        untied couple (``s+ = s- = 0``).
        """
        s_plus, s_minus, _ = self._pairs_of_pairs()
        return _ratio(s_plus - s_minus, s_plus + s_minus, _NAN)

    def g_plus_index(self) -> float:
        """Rohlf's G(+) index, the share of discordant couples, ``s- / C(N, 2) = fp fn / C(N, 2)``.

        ``2 s- / (N (N - 1))`` of [Ro74]_, over all couples of distinct pairs of samples;
        0 is best. nan for fewer than three samples (fewer than two pairs).
        """
        self._counts_only("g_plus_index")
        _, s_minus, couples = self._pairs_of_pairs()
        return _ratio(s_minus, couples, _NAN)

    def mcnemar_index(self) -> float:
        """McNemar statistic of the pair table, ``(tn - fp) / sqrt(tn + fp)`` [Mc47]_, [De13]_.

        ``tn`` pairs apart in both labelings, ``fp`` together only in ``labels_pred``; an
        unbounded count statistic (it grows like ``n``). nan when ``tn + fp = 0``.
        """
        n_pairs, p, q, t = self._pairs()
        fp, tn = q - t, n_pairs - p - q + t
        return _signed_sqrt_ratio(tn - fp, tn + fp)

    # --- information -------------------------------------------------------------------------

    def reduced_mutual_info_score(
        self, *, variant: str = "dirichlet", normalization: str = "second"
    ) -> float:
        """Reduced mutual information: mutual information less what describing the table's
        margins costs, normalised (Newman, Cantwell & Young 2020; Jerdee, Kirkley & Newman
        2024) [NCY20]_ [JKN24]_.

        Mutual information rewards more clusters: a clustering that splits every class in
        two keeps its NMI, and random clusterings with more clusters score higher. The reduced
        mutual information subtracts the information needed to transmit the table's margins
        (the cluster sizes), so that it falls back to about 0 for random labelings at any
        number of clusters. All values are in bits, and equal those of the authors' package
        ``clustering-mi`` (``normalized_mutual_information(labels_pred, labels_true,
        variation=..., normalization=...)``: the truth is its *second* labeling, and the table's
        rows here) to rounding.

        ``variant``:

        - ``"dirichlet"`` (default): the truth's group sizes, alone and within each cluster,
          described under Dirichlet-multinomial priors whose concentrations are chosen to
          describe them best [JKN24]_ (clustering-mi's ``"reduced"``);
        - ``"flat"``: the microcanonical mutual information less the logarithm of the number of
          tables with the table's margins (their EC estimate) [NCY20]_ (``"reduced_flat"``).
          Where one side's groups are all single samples that number is exact,
          ``n! / prod x!`` over the other side's sizes ``x`` (clustering-mi 0.2.2 returns
          ``ln (n+1)! - sum ln (x+1)!`` there, in nats where its other values are in bits).

        With ``I(c; g)`` the reduced mutual information of the table (what the clusters tell
        of the truth), ``I(g; c)`` of its transpose and ``I(g; g)``, ``I(c; c)`` each
        labeling's with itself (its reduced entropy), ``normalization`` is ``"second"``
        (default: ``I(c; g) / I(g; g)``, the share of the truth the clusters convey, the
        asymmetric normalisation the authors recommend), ``"first"`` (``I(g; c) / I(c; c)``),
        ``"mean"`` (``(I(c; g) + I(g; c)) / (I(c; c) + I(g; g))``), ``"min"``, ``"max"``,
        ``"geometric"`` (of the two numerators over the same of the two denominators), or
        ``"none"`` (``I(c; g)`` in bits). 0 where the denominator is not positive, as
        clustering-mi. Defined for counts only (``ValueError`` with real weights).
        """
        func = "reduced_mutual_info_score"
        for name, value, allowed in (
            ("variant", variant, _RMI_VARIANTS),
            ("normalization", normalization, _RMI_NORMALIZATIONS),
        ):
            if not isinstance(value, str) or value not in allowed:
                among = "{" + ", ".join(repr(a) for a in allowed) + "}"
                raise _fail(name, func, f"a str among {among}", value)
        self._counts_only(func, "the tables of whole numbers with the given margins")
        cg, gc, cc, gg = self._native_table.reduced_parts(variant == "flat")
        if normalization == "none":
            return cg
        if normalization == "geometric":
            if not cc * gg > 0:
                return 0.0
            return math.sqrt(cg * gc) / math.sqrt(cc * gg) if cg * gc >= 0 else _NAN
        top, bottom = {
            "second": (cg, gg),
            "first": (gc, cc),
            "mean": (cg + gc, cc + gg),
            "min": (min(cg, gc), min(cc, gg)),
            "max": (max(cg, gc), max(cc, gg)),
        }[normalization]
        return top / bottom if bottom > 0 else 0.0

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
        # A sum of non-negative terms, exactly 0 for a single cell (ln n less the mean of
        # ln n_ij was 4e-16 there, through rounding).
        return math.fsum(c * (math.log(n) - log_c)) / n * unit

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

    def normalized_mutual_info_score_joint(self) -> float:
        """NMI normalised by the joint entropy, ``MI / H(U, V)`` [VEB10]_ (aricode's "joint").

        The four other normalisations are :meth:`normalized_mutual_info_score`'s
        ``average_method``. Equals ``1 - NVI``. 1.0 on an empty table or a single cell (as
        scikit-learn's NMI of two single clusters), 0.0 when ``MI = 0``.
        """
        if self.n == 0:
            return 1.0
        joint = self.joint_entropy()
        if joint == 0:
            return 1.0
        if self.mutual_info_score() == 0:
            return 0.0
        # 1 - VI / H(U, V): the conditional entropies are exactly 0 for identical labelings
        return max(0.0, 1.0 - sum(self._conditional()) / joint)

    def frobenius_distance(self) -> float:
        """Squared Frobenius distance between the partitions' co-membership projections.

        Each partition is the ``n x n`` matrix ``M_ab = 1 / |block|`` for samples ``a, b`` in the
        same block (0 otherwise), the orthogonal projection onto the block indicators; then
        ``||M_U - M_V||_F^2 = r + c - 2 sum n_ij^2 / (a_i b_j)`` with ``r`` and ``c`` the numbers
        of non-empty classes and clusters [LBA14]_, as R's ``aricode::Frobenius``. 0 for
        identical labelings (and on an empty table).
        """
        rows, cols, counts = self._cells
        if counts.size == 0:
            return 0.0
        c = counts.astype(np.float64)
        a = self.class_sizes[rows].astype(np.float64)
        b = self.cluster_sizes[cols].astype(np.float64)
        r = int(np.count_nonzero(self.class_sizes))
        k = int(np.count_nonzero(self.cluster_sizes))
        cross = math.fsum(((c / a) * (c / b)).tolist())
        return max(0.0, r + k - 2 * cross)

    # --- set matching ------------------------------------------------------------------------

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
