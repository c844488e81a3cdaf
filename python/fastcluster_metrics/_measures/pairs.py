"""The pair-counting measures beyond scikit-learn's, methods of :class:`Contingency`: each a
function of the exact pair counts (``T``, ``P``, ``Q``, ``N``) or of couples of pairs."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._table.weighted import pairs
from .._utils.params import check_beta
from .base import _NAN, TableMeasures
from .exact import Ints, all_of, as_float, choose, copysign, minimum, sqrt
from .exact import ratio as _ratio

__all__ = ["PairMeasures"]


_SMI_MAX_N = 2**33
"""The most samples :meth:`Contingency.standardized_mutual_info_score` takes (its windows of counts
grow as the square root of n: 2 GB at 8e9)."""


def _correlation(num: int, den_squared: int) -> float:
    """``num / sqrt(den_squared)`` (nan when ``den_squared`` is zero), clipped to [-1, 1]."""
    r = sqrt(_ratio(num * num, den_squared, 0.0))
    value = choose(num != 0, copysign(minimum(r, 1.0), num), 0.0)
    return choose(den_squared == 0, _NAN, value)


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
    value = choose(num != 0, copysign(sqrt(_ratio(num * num, den, 0.0)), num), 0.0)
    return choose(den == 0, _NAN, value)


def _plain(x: int | Fraction | Ints) -> int | float:
    """An exact count as a user gets it: an integer, or (from real cells) the nearest float;
    an array of them as floats."""
    return x if isinstance(x, int) else as_float(x)


class PairMeasures(TableMeasures):
    """The pair-counting measures of the table."""

    __slots__ = ()

    def _pairs(self) -> tuple[int, int, int, int]:
        """(N, P, Q, T) as exact integers (exact Fractions for weighted samples, so that every
        ratio of them is rounded once): :func:`.._table.weighted.pairs`."""
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
        # beta^2 = b / d: the quotient of integers (1 + b/d) T / (b/d P + Q), times d.
        b, d = (Fraction(beta) ** 2).as_integer_ratio()
        return _ratio((d + b) * t, b * p + d * q, 1.0)

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
        Cov(A_i, E[S | row i])`` with ``A_i`` row ``i``'s terms. Each conditional
        expectation is a sum over a row's (or a column's) counts, a multivariate
        hypergeometric vector: taken by a forward and a backward pass over its partial sums
        (a Markov chain) where its distributions are narrow, and otherwise from the counts'
        generating functions at about 30 frequencies, clusters of one size together. It is
        exact but for probabilities below ``2^-56`` of their distribution's mode, which are
        left out (checked against every table of small margins and against the sum over
        pairs of cells of Romano et al. to 1e-12; the two methods agree to 1e-14); Romano
        et al.'s own sum costs ``O(max(R, C) n³)`` and subtracts ``E[MI]²`` from
        ``E[MI²]``, losing digits at large ``n``. The cost grows as ``√n``: for 33 classes
        against 60 clusters on two threads, 0.1 s at ``n = 1e6`` (fastami's Monte Carlo
        estimate takes 2 s to be within 0.07, benches/README.md) and 0.31 s at ``1e7``;
        33 x 20,000 takes 28 ms at ``1e6``. Ctrl-C stops the call.

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
                f" (10 s and 2 GB at n = 8e9); this table has n = {int(table.n):,}"
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
        same = (p == q) & (q == t)
        if all_of(same):
            return 1.0
        # (N T - P Q) (N + s) / (s (N^2 - P Q)) with s = sqrt(P Q): the one difference of
        # nearly equal numbers, N^2 - P Q, is exact.
        ratio = _ratio(n_pairs * t - p * q, n_pairs * n_pairs - p * q, _NAN)
        value = ratio * (sqrt(_ratio(n_pairs * n_pairs, p * q, _NAN)) + 1.0)
        return choose(same, 1.0, choose(p * q == 0, _NAN, value))

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

    def _pairs_of_pairs(self) -> tuple[int, int, int]:
        """(concordant, discordant, all) couples of distinct sample pairs, exact integers.

        A couple of two distinct pairs is concordant when one pair is together in both labelings
        and the other apart in both (``tp tn`` of them), discordant when one is together only in
        ``labels_true`` and the other only in ``labels_pred`` (``fp fn``); ``C(N, 2)`` couples.
        """
        n_pairs, p, q, t = self._pairs()
        tp, fp, fn, tn = t, q - t, p - t, n_pairs - p - q + t
        couples = n_pairs * (n_pairs - 1)
        return tp * tn, fp * fn, couples // 2 if isinstance(couples, (int, Ints)) else couples / 2

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
