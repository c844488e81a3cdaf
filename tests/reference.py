"""Reference formulas for the clustering metrics, written from their textbook definitions.

This module is one of the two oracles of the test suite (scikit-learn is the other). It imports
neither scikit-learn nor fastcluster_metrics: only the standard library and NumPy.

Two layers:

* Exact formulas for small inputs. The contingency table comes from ``np.unique``; pair counts
  are Python ints, ratios are ``Fraction``s, sums of logarithms use ``math.fsum`` and the
  hypergeometric probabilities of the expected mutual information are exact binomial ratios.
  These are the oracle of the hypothesis tests.
* Vectorised NumPy formulas over the non-zero cells of a table (:class:`Cells`), for the tests
  with millions of samples.

Notation: a table ``n[i][j]`` has true classes as rows and predicted clusters as columns,
``a[i]`` are the row sums (class sizes), ``b[j]`` the column sums (cluster sizes), ``N`` the
number of samples, ``C(k, 2)`` the number of unordered pairs among ``k`` samples, and

* ``T = sum_ij C(n_ij, 2)`` pairs together in both labelings,
* ``P = sum_j C(b_j, 2)`` pairs together in the predicted labeling,
* ``Q = sum_i C(a_i, 2)`` pairs together in the true labeling,
* ``M = C(N, 2)`` all pairs.

Degenerate inputs follow scikit-learn's documented conventions; each one is stated where it is
applied. ``nan`` marks the one case that has no defined value (AMI with ``average_method="min"``
when one labeling is all singletons: 0 / 0).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

AVERAGE_METHODS = ("min", "geometric", "arithmetic", "max")


# --------------------------------------------------------------------------------------------
# Exact layer: tables from labels, pair counts, scores
# --------------------------------------------------------------------------------------------


def contingency(labels_true, labels_pred) -> np.ndarray:
    """Dense int64 table; rows and columns follow the sorted unique labels (``np.unique``)."""
    true = np.asarray(labels_true)
    pred = np.asarray(labels_pred)
    classes, class_idx = np.unique(true, return_inverse=True)
    clusters, cluster_idx = np.unique(pred, return_inverse=True)
    table = np.zeros((classes.size, clusters.size), dtype=np.int64)
    np.add.at(table, (class_idx.ravel(), cluster_idx.ravel()), 1)
    return table


def _rows(table) -> list[list[int]]:
    return [[int(x) for x in row] for row in np.asarray(table).tolist()]


def _margins(table) -> tuple[list[list[int]], list[int], list[int], int]:
    rows = _rows(table)
    a = [sum(row) for row in rows]
    b = [sum(col) for col in zip(*rows, strict=True)] if rows else []
    return rows, a, b, sum(a)


def _pairs(k: int) -> int:
    return k * (k - 1) // 2


def pair_counts(table) -> tuple[int, int, int, int]:
    """``(T, P, Q, M)`` as exact Python ints."""
    rows, a, b, n = _margins(table)
    t = sum(_pairs(x) for row in rows for x in row)
    return t, sum(_pairs(x) for x in b), sum(_pairs(x) for x in a), _pairs(n)


def pair_confusion_from_table(table) -> list[list[int]]:
    """scikit-learn's layout: ordered pairs, ``[[C00, C01], [C10, C11]]``.

    The first index says "together in the true labeling", the second "together in the
    predicted labeling"; every unordered pair is counted twice.
    """
    t, p, q, m = pair_counts(table)
    c11 = 2 * t
    c01 = 2 * (p - t)
    c10 = 2 * (q - t)
    c00 = 2 * m - c11 - c01 - c10
    return [[c00, c01], [c10, c11]]


def rand_from_table(table) -> float:
    """Agreeing pairs over all pairs. Fewer than two samples: 1.0 (no pair can disagree)."""
    t, p, q, m = pair_counts(table)
    if m == 0:
        return 1.0
    return float(Fraction(m + 2 * t - p - q, m))


def ari_from_table(table) -> float:
    """Hubert and Arabie: (T - E[T]) / (max - E[T]), E[T] = P Q / M, max = (P + Q) / 2.

    The denominator is 0 only when no pair disagrees (T = P = Q: no samples, one cluster on
    each side, or singletons on each side); those are perfect matches: 1.0.
    """
    t, p, q, m = pair_counts(table)
    if t == p == q:
        return 1.0
    expected = Fraction(p * q, m)
    return float((t - expected) / (Fraction(p + q, 2) - expected))


def fowlkes_mallows_from_table(table) -> float:
    """T / sqrt(P Q); 0.0 when T = 0 (including no samples)."""
    t, p, q, _ = pair_counts(table)
    if t == 0:
        return 0.0
    return math.sqrt(Fraction(t * t, p * q))


def purity_from_table(table) -> float:
    """(1 / N) sum over predicted clusters of the largest class count; no samples: 1.0."""
    rows, _, _, n = _margins(table)
    if n == 0:
        return 1.0
    return float(Fraction(sum(max(col) for col in zip(*rows, strict=True)), n))


def entropy_from_counts(counts) -> float:
    """Shannon entropy in nats of a labeling with these cluster sizes; no samples: 1.0."""
    counts = [int(c) for c in counts if c]
    n = sum(counts)
    if n == 0:
        return 1.0
    if len(counts) == 1:
        return 0.0
    return math.fsum(c / n * math.log(n / c) for c in counts)


def mutual_info_from_table(table) -> float:
    """sum_ij (n_ij / N) log(N n_ij / (a_i b_j)), exactly 0.0 for an independent table."""
    rows, a, b, n = _margins(table)
    if n == 0:
        raise ValueError("mutual information of an empty table is undefined")
    if all(
        n * x == ai * bj
        for ai, row in zip(a, rows, strict=True)
        for bj, x in zip(b, row, strict=True)
    ):
        return 0.0
    terms = [
        x / n * math.log(n * x / (ai * bj))
        for ai, row in zip(a, rows, strict=True)
        for bj, x in zip(b, row, strict=True)
        if x
    ]
    return max(0.0, math.fsum(terms))


def _average(u: float, v: float, method: str) -> float:
    if method == "min":
        return min(u, v)
    if method == "geometric":
        return math.sqrt(u * v)
    if method == "arithmetic":
        return (u + v) / 2
    if method == "max":
        return max(u, v)
    raise ValueError(method)


def _occupied(counts) -> int:
    return sum(1 for c in counts if c)


def nmi_from_table(table, average_method: str = "arithmetic") -> float:
    """MI / average(H(true), H(pred)).

    No samples, or one cluster on each side: 1.0 (both labelings carry no information and
    agree). MI = 0 otherwise: 0.0, whatever the average.
    """
    _, a, b, _ = _margins(table)
    r, c = _occupied(a), _occupied(b)
    if r == c == 1 or r == c == 0:
        return 1.0
    mi = mutual_info_from_table(table)
    if mi == 0.0:
        return 0.0
    return mi / _average(entropy_from_counts(a), entropy_from_counts(b), average_method)


def expected_mutual_info(a, b) -> float:
    """E[MI] over all tables with row sums ``a`` and column sums ``b`` (hypergeometric model).

    sum_ij sum_k (k / N) log(N k / (a_i b_j)) Pr[n_ij = k], with the exact probability
    Pr[n_ij = k] = C(a_i, k) C(N - a_i, b_j - k) / C(N, b_j), k from max(1, a_i + b_j - N) to
    min(a_i, b_j) (the k = 0 term is 0). Cells with the same (a_i, b_j) are summed once.
    """
    a = [int(x) for x in a if x]
    b = [int(x) for x in b if x]
    n = sum(a)
    terms = []
    for ai, wa in Counter(a).items():
        for bj, wb in Counter(b).items():
            denominator = math.comb(n, bj)
            for k in range(max(1, ai + bj - n), min(ai, bj) + 1):
                prob = Fraction(math.comb(ai, k) * math.comb(n - ai, bj - k), denominator)
                terms.append(wa * wb * float(prob) * k / n * math.log(n * k / (ai * bj)))
    return math.fsum(terms)


def _all_singletons(counts) -> bool:
    return all(c == 1 for c in counts if c)


def ami_from_table(table, average_method: str = "arithmetic") -> float:
    """(MI - E[MI]) / (average(H(true), H(pred)) - E[MI]), Vinh, Epps and Bailey (2010).

    * no samples, or one cluster on each side: 1.0;
    * one cluster on exactly one side: 0.0;
    * singletons on both sides (N >= 2): MI = E[MI] = H = log N, 0 / 0, a perfect match: 1.0;
    * singletons on exactly one side: MI = E[MI] for every table with those margins, so the
      numerator is 0. The denominator is positive (0.0 is returned) except with
      ``average_method="min"``, where it is 0 too: undefined, ``nan``.
    """
    _, a, b, _ = _margins(table)
    r, c = _occupied(a), _occupied(b)
    if r == c == 1 or r == c == 0:
        return 1.0
    if r == 1 or c == 1:
        return 0.0
    single_a, single_b = _all_singletons(a), _all_singletons(b)
    if single_a and single_b:
        return 1.0
    if single_a or single_b:
        return math.nan if average_method == "min" else 0.0
    mi = mutual_info_from_table(table)
    emi = expected_mutual_info(a, b)
    normaliser = _average(entropy_from_counts(a), entropy_from_counts(b), average_method)
    return (mi - emi) / (normaliser - emi)


def homogeneity_completeness_v_from_table(table, beta: float = 1.0):
    """Rosenberg and Hirschberg (2007).

    h = MI / H(true) (1.0 when H(true) = 0), c = MI / H(pred) (1.0 when H(pred) = 0),
    v = (1 + beta) h c / (beta h + c) (0.0 when h + c = 0); no samples: (1.0, 1.0, 1.0).
    """
    _, a, b, n = _margins(table)
    if n == 0:
        return 1.0, 1.0, 1.0
    mi = mutual_info_from_table(table)
    h_true, h_pred = entropy_from_counts(a), entropy_from_counts(b)
    h = mi / h_true if h_true else 1.0
    c = mi / h_pred if h_pred else 1.0
    if h + c == 0.0:
        return h, c, 0.0
    return h, c, (1 + beta) * h * c / (beta * h + c)


# Labels in, score out, under scikit-learn's names (purity_score is ours).


def pair_confusion_matrix(labels_true, labels_pred) -> np.ndarray:
    counts = pair_confusion_from_table(contingency(labels_true, labels_pred))
    return np.array(counts, dtype=np.int64)


def rand_score(labels_true, labels_pred) -> float:
    return rand_from_table(contingency(labels_true, labels_pred))


def adjusted_rand_score(labels_true, labels_pred) -> float:
    return ari_from_table(contingency(labels_true, labels_pred))


def fowlkes_mallows_score(labels_true, labels_pred) -> float:
    return fowlkes_mallows_from_table(contingency(labels_true, labels_pred))


def purity_score(labels_true, labels_pred) -> float:
    return purity_from_table(contingency(labels_true, labels_pred))


def entropy(labels) -> float:
    labels = np.asarray(labels)
    if labels.size == 0:
        return 1.0
    return entropy_from_counts(np.unique(labels, return_counts=True)[1])


def mutual_info_score(labels_true, labels_pred) -> float:
    return mutual_info_from_table(contingency(labels_true, labels_pred))


def normalized_mutual_info_score(labels_true, labels_pred, *, average_method="arithmetic"):
    return nmi_from_table(contingency(labels_true, labels_pred), average_method)


def adjusted_mutual_info_score(labels_true, labels_pred, *, average_method="arithmetic"):
    return ami_from_table(contingency(labels_true, labels_pred), average_method)


def homogeneity_completeness_v_measure(labels_true, labels_pred, *, beta=1.0):
    return homogeneity_completeness_v_from_table(contingency(labels_true, labels_pred), beta)


def homogeneity_score(labels_true, labels_pred) -> float:
    return homogeneity_completeness_v_measure(labels_true, labels_pred)[0]


def completeness_score(labels_true, labels_pred) -> float:
    return homogeneity_completeness_v_measure(labels_true, labels_pred)[1]


def v_measure_score(labels_true, labels_pred, *, beta=1.0) -> float:
    return homogeneity_completeness_v_measure(labels_true, labels_pred, beta=beta)[2]


# --------------------------------------------------------------------------------------------
# Vectorised layer: non-zero cells of a large table
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cells:
    """The non-zero cells of a table and its margins, all int64 arrays."""

    rows: np.ndarray
    cols: np.ndarray
    counts: np.ndarray
    a: np.ndarray
    b: np.ndarray

    @property
    def n(self) -> int:
        return int(self.a.sum())


def cells_from_codes(codes_true, codes_pred, n_true: int, n_pred: int) -> Cells:
    """Cells of the table of two labelings already coded as 0..n_true-1 and 0..n_pred-1.

    One ``np.bincount`` over the combined code ``true * n_pred + pred``; for tables too large
    to hold densely, ``np.unique`` on the same code.
    """
    true = np.asarray(codes_true, dtype=np.int64)
    pred = np.asarray(codes_pred, dtype=np.int64)
    combined = true * n_pred + pred
    if n_true * n_pred <= 50_000_000:
        dense = np.bincount(combined, minlength=n_true * n_pred)
        flat = np.flatnonzero(dense)
        counts = dense[flat]
    else:
        flat, counts = np.unique(combined, return_counts=True)
    return Cells(
        rows=flat // n_pred,
        cols=flat % n_pred,
        counts=counts.astype(np.int64),
        a=np.bincount(true, minlength=n_true).astype(np.int64),
        b=np.bincount(pred, minlength=n_pred).astype(np.int64),
    )


def _sum_pairs(counts: np.ndarray) -> int:
    counts = counts.astype(np.int64)
    if counts.size and int(counts.max()) > 3_000_000_000:  # k (k - 1) would overflow int64
        return sum(_pairs(int(k)) for k in counts)
    return int((counts * (counts - 1) // 2).sum())


def large_pair_counts(cells: Cells) -> tuple[int, int, int, int]:
    """``(T, P, Q, M)`` as Python ints."""
    return (
        _sum_pairs(cells.counts),
        _sum_pairs(cells.b),
        _sum_pairs(cells.a),
        _pairs(cells.n),
    )


def large_pair_confusion(cells: Cells) -> list[list[int]]:
    t, p, q, m = large_pair_counts(cells)
    return [[2 * m - 2 * p - 2 * q + 2 * t, 2 * (p - t)], [2 * (q - t), 2 * t]]


def large_rand(cells: Cells) -> float:
    t, p, q, m = large_pair_counts(cells)
    return 1.0 if m == 0 else float(Fraction(m + 2 * t - p - q, m))


def large_ari(cells: Cells) -> float:
    t, p, q, m = large_pair_counts(cells)
    if t == p == q:
        return 1.0
    expected = Fraction(p * q, m)
    return float((t - expected) / (Fraction(p + q, 2) - expected))


def large_fowlkes_mallows(cells: Cells) -> float:
    t, p, q, _ = large_pair_counts(cells)
    return 0.0 if t == 0 else math.sqrt(Fraction(t * t, p * q))


def large_purity(cells: Cells) -> float:
    best = np.zeros(cells.b.size, dtype=np.int64)
    np.maximum.at(best, cells.cols, cells.counts)
    return float(Fraction(int(best.sum()), cells.n))


def large_entropy(counts: np.ndarray) -> float:
    counts = counts[counts > 0].astype(np.float64)
    n = counts.sum()
    if counts.size <= 1:
        return 0.0
    return math.fsum(counts / n * np.log(n / counts))


def large_mutual_info(cells: Cells) -> float:
    n = cells.n
    nij = cells.counts
    outer = cells.a[cells.rows] * cells.b[cells.cols]  # exact in int64 for N < 3e9
    ratio = (n * nij) / outer  # both integers exact in float64 for N < 9e7
    return max(0.0, math.fsum(nij / n * np.log(ratio)))


def large_expected_mutual_info(a: np.ndarray, b: np.ndarray) -> float:
    """E[MI] for large N, vectorised over the distinct (a_i, b_j) pairs.

    The hypergeometric pmf of each pair is built from its ratio recurrence
    p(k + 1) / p(k) = (a - k)(b - k) / ((k + 1)(N - a - b + k + 1)) over a window of the support
    around the mean, then normalised to sum 1 over the window. The window spans
    15 sigma + 30 on each side (sigma the binomial standard deviation, which bounds the
    hypergeometric one); by the Bernstein bound, which holds for sampling without replacement,
    the mass outside is below 1e-19, far below the tolerances used with this function.
    """
    a = a[a > 0].astype(np.int64)
    b = b[b > 0].astype(np.int64)
    n = int(a.sum())
    ua, wa = np.unique(a, return_counts=True)
    ub, wb = np.unique(b, return_counts=True)
    ai = np.repeat(ua, ub.size)
    bj = np.tile(ub, ua.size)
    weight = (np.repeat(wa, ub.size) * np.tile(wb, ua.size)).astype(np.float64)

    lo = np.maximum(0, ai + bj - n)
    hi = np.minimum(ai, bj)
    mean = ai * bj / n
    sigma = np.sqrt(bj * (ai / n) * (1 - ai / n))
    start = np.maximum(lo, np.floor(mean - 15 * sigma - 30).astype(np.int64))
    stop = np.minimum(hi, np.ceil(mean + 15 * sigma + 30).astype(np.int64))

    with np.errstate(divide="ignore", invalid="ignore"):
        return _emi_windows(n, ai, bj, weight, start, stop)


def _emi_windows(n, ai, bj, weight, start, stop) -> float:
    width = int((stop - start).max()) + 1
    total = 0.0
    chunk = max(1, 2_000_000 // width)
    for s in range(0, ai.size, chunk):
        sl = slice(s, s + chunk)
        a_, b_, w_ = ai[sl, None], bj[sl, None], weight[sl, None]
        k = start[sl, None] + np.arange(width)[None, :]
        inside = k <= stop[sl, None]
        k = np.where(inside, k, stop[sl, None])
        # log p(k) - log p(start), the sum of the log ratios from start to k
        step = np.log(
            ((a_ - k) * (b_ - k)).astype(np.float64)
            / ((k + 1) * (n - a_ - b_ + k + 1)).astype(np.float64)
        )
        step = np.where(inside, step, -np.inf)
        log_p = np.concatenate([np.zeros((k.shape[0], 1)), np.cumsum(step, axis=1)[:, :-1]], 1)
        log_p = np.where(inside, log_p, -np.inf)
        p = np.exp(log_p - log_p.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        kf = k.astype(np.float64)
        term = np.where(
            inside & (k > 0),
            p * kf / n * np.log(n * kf / (a_ * b_).astype(np.float64)),
            0.0,
        )
        total += math.fsum((w_ * term).ravel())
    return total


def large_nmi(cells: Cells, average_method: str = "arithmetic") -> float:
    r, c = _occupied(cells.a), _occupied(cells.b)
    if r == c == 1 or r == c == 0:
        return 1.0
    mi = large_mutual_info(cells)
    if mi == 0.0:
        return 0.0
    return mi / _average(large_entropy(cells.a), large_entropy(cells.b), average_method)


def large_ami(cells: Cells, average_method: str = "arithmetic", emi: float | None = None) -> float:
    """AMI; pass ``emi`` (``large_expected_mutual_info``) to reuse it across averages."""
    r, c = _occupied(cells.a), _occupied(cells.b)
    if r == c == 1 or r == c == 0:
        return 1.0
    if r == 1 or c == 1:
        return 0.0
    mi = large_mutual_info(cells)
    if emi is None:
        emi = large_expected_mutual_info(cells.a, cells.b)
    normaliser = _average(large_entropy(cells.a), large_entropy(cells.b), average_method)
    return (mi - emi) / (normaliser - emi)


def large_homogeneity_completeness_v(cells: Cells, beta: float = 1.0):
    mi = large_mutual_info(cells)
    h_true, h_pred = large_entropy(cells.a), large_entropy(cells.b)
    h = mi / h_true if h_true else 1.0
    c = mi / h_pred if h_pred else 1.0
    v = 0.0 if h + c == 0.0 else (1 + beta) * h * c / (beta * h + c)
    return h, c, v
