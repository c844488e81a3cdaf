"""The Omega index of two covers, from the distinct groups of samples (``cover_groups.py``).

With ``m(U, V)`` the samples whose label sets contain the subset ``U`` of labels of the first
cover and ``V`` of the second, by inclusion and exclusion the pairs of samples sharing exactly
``s`` labels of the first cover and ``t`` of the second are

    N(s, t) = Σ_{|U| ≥ s, |V| ≥ t} (-1)^(|U| - s + |V| - t) C(|U|, s) C(|V|, t) C(m(U, V), 2),

and by Vandermonde's identity the pairs on which the two covers agree are
``Σ_t N(t, t) = Σ_{U, V} (-1)^(|U| + |V|) C(|U| + |V|, |U|) C(m(U, V), 2)``. Groups with many
labels are compared group with group instead.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._utils.public import public
from .cover_groups import Groups, _by_subsets, _chunk_rows, _group_blocks, groups, subsets

__all__ = ["omega_counts", "omega_index"]


def _pairs(m: NDArray[np.int64]) -> NDArray[np.int64]:
    return m * (m - 1) // 2


def _signed_sum(values: NDArray[np.int64], coefficients: NDArray[np.int64]) -> int:
    """``Σ coefficient * value`` exactly, in Python integers by coefficient."""
    total = 0
    for c in np.unique(coefficients):
        if c:
            total += int(c) * int(values[coefficients == c].sum(dtype=np.int64))
    return total


def _omega_counts_by_subsets(g: Groups) -> tuple[int, list[int], list[int]]:
    """Pairs on which the covers agree, and pairs sharing exactly ``t`` labels on each side."""
    s = subsets(g, index=False)
    pairs = _pairs(s.m)
    sign = 1 - 2 * ((s.size_u + s.size_v) % 2)
    agree = _signed_sum(pairs, sign * _comb(s.size_u + s.size_v, s.size_u))
    side_a = _exactly(pairs, s.size_u, s.size_v == 0, int(g.size_a.max(initial=0)))
    side_b = _exactly(pairs, s.size_v, s.size_u == 0, int(g.size_b.max(initial=0)))
    return agree, side_a, side_b


def _comb(n: NDArray[np.int64], k: NDArray[np.int64]) -> NDArray[np.int64]:
    """``C(n, k)`` elementwise, for the small ``n`` of subset sizes."""
    top = int(n.max(initial=0))
    table = np.array([[math.comb(i, j) for j in range(top + 1)] for i in range(top + 1)])
    found: NDArray[np.int64] = table[n, k].astype(np.int64)
    return found


def _exactly(
    pairs: NDArray[np.int64], size: NDArray[np.int64], keep: NDArray[np.bool_], largest: int
) -> list[int]:
    """Pairs sharing exactly ``t`` labels of one side, ``t = 0..largest``, from the subsets of
    that side alone (``keep``)."""
    pairs, size = pairs[keep], size[keep]
    out = []
    for t in range(largest + 1):
        sign = np.where((size - t) % 2 == 0, 1, -1)
        coef = np.where(size >= t, sign * _comb(size, np.minimum(size, t)), 0)
        out.append(_signed_sum(pairs, coef.astype(np.int64)))
    return out


def _omega_counts_by_pairs(g: Groups) -> tuple[int, list[int], list[int]]:
    """The same counts, group with group (for groups with many labels)."""
    count = g.count.astype(np.float64)
    top = int(max(g.size_a.max(initial=0), g.size_b.max(initial=0)))
    agree = 0.0
    side_a = np.zeros(top + 1)
    side_b = np.zeros(top + 1)
    for part, shared_a, shared_b in _group_blocks(g, _chunk_rows(g.count.size)):
        w = count[part][:, None] * count[None, :]
        agree += float(w[shared_a == shared_b].sum())
        side_a += np.bincount(shared_a.astype(np.int64).ravel(), w.ravel(), minlength=top + 1)
        side_b += np.bincount(shared_b.astype(np.int64).ravel(), w.ravel(), minlength=top + 1)
    # ordered pairs of groups count each sample with itself once: take those out, then halve
    size_a, size_b = g.size_a, g.size_b
    agree -= float(g.count[size_a == size_b].sum())
    side_a -= np.bincount(size_a, g.count, minlength=top + 1)
    side_b -= np.bincount(size_b, g.count, minlength=top + 1)
    return (
        round(agree) // 2,
        [round(x) // 2 for x in side_a],
        [round(x) // 2 for x in side_b],
    )


def omega_counts(g: Groups, by_subsets: bool | None = None) -> tuple[int, list[int], list[int]]:
    """Agreeing pairs and each side's pairs by shared labels, by subsets or by pairs of
    groups (whichever is cheaper unless ``by_subsets`` says)."""
    if by_subsets is None:
        by_subsets = _by_subsets(g)
    return _omega_counts_by_subsets(g) if by_subsets else _omega_counts_by_pairs(g)


@public
def omega_index(cover_true: ArrayLike, cover_pred: ArrayLike) -> float:
    """Omega index of two covers (Collins & Dent 1988): the adjusted Rand index of
    overlapping clusterings.

    A pair of samples is counted as an agreement when the two covers put it together in the
    same number of clusters (0, 1, 2, ...). With ``M = C(n, 2)`` pairs, ``A`` agreeing pairs
    and ``t_k(X)`` the pairs sharing exactly ``k`` clusters of cover ``X``,

    ``ω_u = A / M``, ``ω_e = Σ_k t_k(X) t_k(Y) / M²``, ``Omega = (ω_u - ω_e) / (1 - ω_e)``,

    as clusim's ``omega_index``. On partitions (one label per sample) it is the adjusted
    Rand index. The counts are exact integers from the distinct groups of samples (see the
    module's notes), divided once: O(n log n) plus the groups, never the pairs.

    Parameters
    ----------
    cover_true, cover_pred
        Each sample's labels: a sequence of label sets (lists, tuples, sets; labels of any
        type), a 0/1 matrix (dense or SciPy sparse, a column per label) or 1-D labels (one
        label per sample). Every sample needs a label.

    Returns
    -------
    float
        1.0 where ``ω_e = 1`` (fewer than two samples, or every pair in the same situation
        on both sides), as scikit-learn's ARI.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> fcm.omega_index([{"a"}, {"a", "b"}, {"b"}, {"c"}], [{1}, {1, 2}, {2}, {2}])
    0.4
    >>> fcm.omega_index([0, 0, 1, 1], [0, 0, 1, 2]) == fcm.adjusted_rand_score(
    ...     [0, 0, 1, 1], [0, 0, 1, 2])
    True
    """
    g = groups("omega_index", cover_true, cover_pred)
    return _omega(g)


def _omega(g: Groups, by_subsets: bool | None = None) -> float:
    total = g.n * (g.n - 1) // 2
    if total == 0:
        return 1.0
    agree, side_a, side_b = omega_counts(g, by_subsets)
    expected = sum(x * y for x, y in zip(side_a, side_b, strict=False))
    # (ω_u - ω_e) / (1 - ω_e) with ω_u = A / M, ω_e = E / M², in integers: (A M - E) / (M² - E)
    denominator = total * total - expected
    if denominator == 0:
        return 1.0
    return (agree * total - expected) / denominator
