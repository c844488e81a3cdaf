"""scikit-learn's measures and purity as functions of the core's table (``_native.Table``).

The sklearn-compatible wrappers of ``supervised.py`` and the :class:`Contingency` methods both call
these; the pair-counting scores finish in exact Python integers, the information scores in
Rust. Degenerate tables give what scikit-learn 1.9 gives. Each is written in ``exact.py``'s
primitives, so that it runs unchanged on arrays of every cut's sums (``score_dendrogram``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._table.weighted import AnyTable, pairs
from .exact import all_of, as_float, choose, maximum, minimum, quotient, ratio, sqrt

__all__ = [
    "EPS",
    "INT64_MAX",
    "ami",
    "ari",
    "fowlkes_mallows",
    "hcv",
    "mi",
    "nmi",
    "pair_confusion",
    "pair_confusion_matrix",
    "purity",
    "rand",
]

EPS = float(np.finfo(np.float64).eps)
INT64_MAX = 2**63 - 1


def pair_confusion(table: AnyTable) -> tuple[Any, Any, Any, Any]:
    """(tn, fp, fn, tp) over ordered pairs of distinct samples, as exact integers (exact
    Fractions for weighted samples, :func:`pairs`)."""
    n_pairs, p, q, t = pairs(table)
    tp, fp, fn = 2 * t, 2 * (q - t), 2 * (p - t)
    return 2 * n_pairs - tp - fp - fn, fp, fn, tp


def pair_confusion_matrix(table: AnyTable) -> NDArray[Any]:
    """The 2x2 matrix: int64 while its entries fit, an object array of Python ints beyond."""
    tn, fp, fn, tp = pair_confusion(table)
    if isinstance(tn, Fraction):
        return np.array([[tn, fp], [fn, tp]], dtype=np.float64)
    dtype = np.int64 if max(tn, fp, fn, tp) <= INT64_MAX else object
    return np.array([[tn, fp], [fn, tp]], dtype=dtype)


def rand(table: AnyTable) -> float:
    tn, fp, fn, tp = pair_confusion(table)
    numerator, denominator = tn + tp, tn + fp + fn + tp
    same = (numerator == denominator) | (denominator == 0)
    return choose(same, 1.0, ratio(numerator, denominator, 1.0))


def ari(table: AnyTable, random_model: str = "perm") -> float:
    tn, fp, fn, tp = pair_confusion(table)
    same = (fn == 0) & (fp == 0)
    if all_of(same):
        return 1.0
    if random_model not in ("perm", "perm1"):
        return _ari_under(table, random_model)
    # One correctly rounded division of exact integers.
    den = (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)
    return choose(same, 1.0, ratio(2 * (tp * tn - fn * fp), den, math.nan))


def _ari_under(table: AnyTable, random_model: str) -> float:
    """``(RI - E[RI]) / (1 - E[RI])`` under a random model that draws a labeling anew: with
    ``p``, ``q`` the probabilities that two samples share a class, a cluster (observed, or
    expected of a drawn side), ``E[RI] = p q + (1 - p)(1 - q)``, so the value is
    ``1 - (1 - RI) / (p (1 - q) + q (1 - p))``, ``1 - RI`` from exact pair counts."""
    pair_rows, pair_cols, random_rows, random_cols, _ = table.model_parts(random_model, False)
    n_pairs, in_rows, in_cols, in_both = pairs(table)
    p = pair_rows if random_rows else float(Fraction(in_rows, n_pairs))
    q = pair_cols if random_cols else float(Fraction(in_cols, n_pairs))
    apart = float(Fraction(in_rows + in_cols - 2 * in_both, n_pairs))  # 1 - RI
    spread = p * (1.0 - q) + q * (1.0 - p)  # 1 - E[RI]
    # Both sides certain (all in one block, or all apart) and equal: RI is 1 (returned above).
    return float(1.0 - apart / spread)


def hcv(table: AnyTable, beta: float) -> tuple[float, float, float]:
    if table.n == 0:
        return 1.0, 1.0, 1.0
    entropy_c = table.entropy_rows()
    entropy_k = table.entropy_cols()
    mi = table.mutual_info()
    homogeneity = choose(entropy_c != 0, quotient(mi, entropy_c), 1.0)
    completeness = choose(entropy_k != 0, quotient(mi, entropy_k), 1.0)
    weighed = beta * homogeneity + completeness
    v_measure = choose(
        homogeneity + completeness == 0.0,
        0.0,
        # beta = 0 and completeness = 0: V_0 is homogeneity for every completeness > 0, so its
        # limit (scikit-learn raises ZeroDivisionError here).
        choose(
            weighed == 0.0, homogeneity, quotient((1 + beta) * homogeneity * completeness, weighed)
        ),
    )
    return as_float(homogeneity), as_float(completeness), as_float(v_measure)


def mi(table: AnyTable) -> float:
    rows, cols = table.shape
    single = (rows == 1) | (cols == 1)
    if all_of(single):
        return 0.0
    if table.n == 0:
        raise ValueError("mutual information is undefined for an empty contingency table")
    return choose(single, 0.0, table.mutual_info())


def generalized_average(u: Any, v: Any, average_method: str) -> Any:
    if average_method == "min":
        return minimum(u, v)
    if average_method == "geometric":
        return sqrt(u * v)
    if average_method == "arithmetic":
        return (u + v) / 2
    return maximum(u, v)


def _one_each(table: AnyTable) -> Any:
    """One class and one cluster, or none of either: identical labelings."""
    classes, clusters = table.shape
    return ((classes == 1) & (clusters == 1)) | ((classes == 0) & (clusters == 0))


def _away_from_zero(x: Any) -> Any:
    """As scikit-learn: keep the sign, but never less than eps in size."""
    return choose(x < 0, minimum(x, -EPS), maximum(x, EPS))


def nmi(table: AnyTable, average_method: str) -> float:
    same = _one_each(table)
    if all_of(same):
        return 1.0
    mi = table.mutual_info()
    normalizer = generalized_average(table.entropy_rows(), table.entropy_cols(), average_method)
    return as_float(choose(same, 1.0, choose(mi == 0, 0.0, quotient(mi, normalizer))))


def ami(table: AnyTable, average_method: str, random_model: str = "perm") -> float:
    same = _one_each(table)
    if all_of(same):
        return 1.0
    classes, clusters = table.shape
    single = (classes == 1) | (clusters == 1)
    if random_model in ("perm", "perm1"):
        if all_of(single):
            return as_float(choose(same, 1.0, 0.0))
        mi, emi, h_true, h_pred = table.ami_parts()
    else:
        # A side drawn anew may hold information where the observed one has one block.
        expected = table.model_parts(random_model, True)[4]
        if expected is None:
            raise RuntimeError("model_parts gave no expected mutual information")
        emi = expected
        if single and emi == 0.0:
            return 0.0
        single = False
        mi, h_true, h_pred = table.mutual_info(), table.entropy_rows(), table.entropy_cols()
    normalizer = generalized_average(h_true, h_pred, average_method)
    # Never divide by (or return) less than eps in size.
    value = _away_from_zero(mi - emi) / _away_from_zero(normalizer - emi)
    return as_float(choose(same, 1.0, choose(single, 0.0, value)))


def fowlkes_mallows(table: AnyTable) -> float:
    _, p, q, t = pairs(table)
    return choose(t != 0, sqrt(ratio(t, q, math.nan)) * sqrt(ratio(t, p, math.nan)), 0.0)


def purity(table: AnyTable) -> float:
    return table.purity()
