"""The information-theoretic measures beyond scikit-learn's, methods of :class:`Contingency`:
entropies, distances, reduced and joint-normalised mutual information, chi-squared."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from numpy.typing import NDArray

from .._utils.params import _fail
from .base import _NAN, TableMeasures

__all__ = ["InformationMeasures"]


_RMI_VARIANTS = ("dirichlet", "flat")


_RMI_NORMALIZATIONS = ("second", "first", "mean", "min", "max", "geometric", "none")


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


class InformationMeasures(TableMeasures):
    """The information-theoretic measures of the table."""

    __slots__ = ()

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
        n = self.n
        if counts.dtype.kind not in "iu":
            # Weighted counts: n (sum n_ij^2 / (a_i b_j) - 1).
            c = counts.astype(np.float64)
            a = self.class_sizes[rows].astype(np.float64)
            b = self.cluster_sizes[cols].astype(np.float64)
            terms = (c / a) * (c / b)
            return max(0.0, n * math.fsum([*terms.tolist(), -1.0]))
        # Whole counts: each cell's (n n_ij - a_i b_j)^2 / (n a_i b_j) from the exact
        # difference, and the cells left out of the table (each a_i b_j / n) from the exact
        # n^2 - sum a_i b_j. No term cancels another: an independent table gives exactly 0,
        # where n (sum - 1) left a rounding that Cramer's V's square root made 7e-9.
        kind = np.int64 if n < 2**31 else object
        c, a, b = (
            x.astype(kind) for x in (counts, self.class_sizes[rows], self.cluster_sizes[cols])
        )
        ab = a * b
        d = (n * c - ab).astype(np.float64)
        near = d * d / (ab.astype(np.float64) * n)
        missing = n * n - sum(ab.tolist())
        return math.fsum([*near.tolist(), missing / n])

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
