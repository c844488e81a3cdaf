"""Two dendrograms of the same samples compared at every number of clusters
(``compare_dendrograms``): Fowlkes & Mallows' B_k curve with its expectation and variance
under their null, and the other measures of pair counts and entropies, from the sums the core
keeps while it replays both trees' merges (``_native.dendrogram_pair_cuts``).

Each tree is cut as ``score_dendrogram`` cuts it (scipy's ``fcluster(Z, k, "maxclust")``),
so the pair of cuts for ``k`` is the pair of each tree's own cut for ``k``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .._measures.catalogue import INFORMATION, Measure
from .._measures.contingency import Contingency
from .._measures.lookup import resolve_all
from .._utils.public import public
from .dendrogram import _Cuts, _entropy, _ks, _order, _Sums, _tree

__all__ = ["compare_dendrograms"]

_FM = "fowlkes_mallows_score"


@public
def compare_dendrograms(
    linkage1: Any,
    linkage2: Any,
    *,
    ks: Iterable[int] | None = None,
    metrics: Iterable[str] | str | None = None,
) -> Any:
    """Two dendrograms of the same samples compared at every number of clusters ``k``, as a
    pandas DataFrame: Fowlkes & Mallows' B_k curve (1983) with its expectation and variance
    under their null, and any other measures.

    Each linkage is scipy's linkage matrix or scikit-learn's ``children_``, as
    :func:`score_dendrogram` reads them, over the same ``n`` samples (leaf ``i`` is sample
    ``i`` in both). Each tree is cut as scipy's ``fcluster(linkage, k, "maxclust")`` cuts it;
    where merges tie in height a tree has no cut of exactly ``k`` clusters for some ``k``, and
    the row holds its cut with fewer: ``n_clusters_1`` and ``n_clusters_2`` say how many.

    One row per ``k`` (1 to ``n``, or those in ``ks``), indexed by ``k``, with the columns

    - ``n_clusters_1``, ``n_clusters_2``: the clusters of each tree's cut;
    - ``fowlkes_mallows_score``: ``B_k = T_k / sqrt(P_k Q_k)``, scikit-learn's
      :func:`fowlkes_mallows_score` of the two cuts (``T_k``, ``P_k``, ``Q_k``: the pairs of
      samples together in both cuts, in the first, in the second; 0 where ``T_k`` is 0);
    - ``fowlkes_mallows_expected``, ``fowlkes_mallows_variance``: B_k's mean and variance
      when the second cut's labels are randomly permuted over the samples (both cuts' cluster
      sizes fixed), Fowlkes & Mallows' formulas (their 2.3 and 2.4; R's dendextend
      ``FM_index``), ``E = sqrt(P Q) / (n (n - 1))`` with ``P = Σ a_i² - n`` and
      ``Q = Σ b_j² - n`` over the cuts' cluster sizes, and
      ``Var = 2 / (n (n-1)) + 4 P' Q' / (n (n-1) (n-2) P Q)
      + (P - 2 - 4 P'/P) (Q - 2 - 4 Q'/Q) / (n (n-1) (n-2) (n-3)) - P Q / (n² (n-1)²)``
      with ``P' = Σ a_i (a_i - 1) (a_i - 2)`` and ``Q'`` likewise, computed with its two
      last terms combined so that they do not cancel in floating point. Where a cut is all
      single samples B_k is 0 under every permutation (mean and variance 0); below 4 samples
      the moments are the permutations' own;
    - one column per measure named in ``metrics`` (names as everywhere).

    Both trees' merges are applied in turn, each updating the sums of the two cuts' table:
    a merge joins two rows (or two columns), and the smaller cluster's cells are moved, so
    the whole curve costs about ``n log n`` cell updates, where re-cutting both trees and
    counting each ``k`` costs ``n`` per ``k`` (dendextend's ``Bk``). The measures read from
    pair counts and entropies (the catalogue's rows marked ``merges`` but for those of the
    expected mutual information and purity) come from those sums and agree with scoring
    each pair of cuts to about ``1e-12``; the others are computed on each requested pair of
    cuts' own table (name ``ks`` for them on large trees). Needs pandas.

    Examples
    --------
    >>> import numpy as np
    >>> import fastcluster_metrics as fcm
    >>> z1 = np.array([[0, 1], [2, 3], [4, 5]])  # {0, 1} and {2, 3}, then all
    >>> z2 = np.array([[0, 2], [1, 3], [4, 5]])  # {0, 2} and {1, 3}, then all
    >>> bk = fcm.compare_dendrograms(z1, z2, metrics="ARI")
    >>> bk[["fowlkes_mallows_score", "fowlkes_mallows_expected", "adjusted_rand_score"]].round(3)
       fowlkes_mallows_score  fowlkes_mallows_expected  adjusted_rand_score
    k
    1                    1.0                     1.000                  1.0
    2                    0.0                     0.333                 -0.5
    3                    0.0                     0.167                 -0.2
    4                    0.0                     0.000                  1.0
    """
    import pandas as pd

    func = "compare_dendrograms"
    rows = [] if metrics is None else [r for r in resolve_all(metrics, func) if r.name != _FM]
    n = _samples(linkage1, linkage2)
    (m1, o1, reach1), (m2, o2, reach2) = _replay(linkage1, n), _replay(linkage2, n)
    wanted = _ks(ks, n, func)
    # Each tree's cut for k: its fewest merges that leave at most k clusters (maxclust).
    # Both trees' steps grow with the merges n - k: in that order the distinct pairs are
    # one path, which the core walks.
    merged, at = np.unique(np.maximum(n - wanted, 0), return_inverse=True)
    steps = np.stack(
        [reach1[np.searchsorted(reach1, merged)], reach2[np.searchsorted(reach2, merged)]]
    )
    new = np.ones(merged.size, dtype=bool)
    new[1:] = (steps[:, 1:] != steps[:, :-1]).any(axis=0)
    record = steps[:, new]
    at = (np.cumsum(new) - 1)[np.asarray(at).reshape(-1)]
    sums = _native.dendrogram_pair_cuts(
        n,
        m1,
        o1.astype(np.uint64),
        m2,
        o2.astype(np.uint64),
        record[0].astype(np.uint64),
        record[1].astype(np.uint64),
    )
    columns: dict[str, Any] = {
        "n_clusters_1": n - sums["merges1"].astype(np.int64),
        "n_clusters_2": n - sums["merges2"].astype(np.int64),
    }
    columns.update(_fowlkes_mallows(n, sums))
    by_sums = [row for row in rows if _from_sums(row)]
    per_cut = [row for row in rows if not _from_sums(row)]
    for row in by_sums:
        columns[row.name] = np.array(
            [row(Contingency._of(_PairCut(n, sums, r))) for r in range(record.shape[1])]  # type: ignore[arg-type]
        )
    if per_cut:
        cuts1, cuts2 = _Cuts(m1, o1, n), _Cuts(m2, o2, n)
        values = {row.name: np.empty(record.shape[1]) for row in per_cut}
        for r, (s1, s2) in enumerate(record.T):
            table = Contingency.from_labels(cuts1(int(s1)), cuts2(int(s2)))
            for row in per_cut:
                values[row.name][r] = row(table)
        columns.update(values)
    frame = pd.DataFrame(
        {name: np.asarray(v)[at] for name, v in columns.items()},
        index=pd.Index(wanted, name="k"),
    )
    return frame[["n_clusters_1", "n_clusters_2", _FM, *_MOMENTS, *(r.name for r in rows)]]


_MOMENTS = ("fowlkes_mallows_expected", "fowlkes_mallows_variance")


def _samples(linkage1: Any, linkage2: Any) -> int:
    """The samples both trees join: one more than each one's merges."""
    shapes = [np.shape(z) for z in (linkage1, linkage2)]
    for i, shape in enumerate(shapes, 1):
        if len(shape) != 2 or shape[1] not in (2, 4):
            raise ValueError(
                f"linkage{i} must be scipy's linkage matrix (n - 1 rows of 4) or"
                f" scikit-learn's children_ (n - 1 rows of 2); got an array of shape {shape}"
            )
    if shapes[0][0] != shapes[1][0]:
        raise ValueError(
            "linkage1 and linkage2 must join the same samples: they have"
            f" {shapes[0][0]} and {shapes[1][0]} merges, so {shapes[0][0] + 1} and"
            f" {shapes[1][0] + 1} samples"
        )
    return int(shapes[0][0]) + 1


def _replay(linkage: Any, n: int) -> tuple[NDArray[np.uint64], NDArray[np.intp], NDArray[np.intp]]:
    """A tree's merges, the order they are applied in, and the steps after which it has a cut."""
    merges, heights = _tree(linkage, n)
    order, reachable = _order(merges, heights, n)
    return merges, order, reachable


def _from_sums(row: Measure) -> bool:
    """Read from the pair counts and entropies of both cuts (not the expected mutual
    information or purity, which the pair's sums do not keep)."""
    return row.pairs or (row.family == INFORMATION and row.merges and not row.counts)


def _fowlkes_mallows(n: int, sums: dict[str, NDArray[Any]]) -> dict[str, NDArray[np.float64]]:
    """B_k, and its mean and variance under Fowlkes & Mallows' null, for every recorded pair."""
    # Unordered pairs, as scikit-learn's fowlkes_mallows_score counts them: exact in
    # float64 below 2**53, so B_k is its value to the last bit.
    t = ((sums["cells_sq"] - n) // 2).astype(np.float64)
    p = ((sums["rows_sq"] - n) // 2).astype(np.float64)
    q = ((sums["cols_sq"] - n) // 2).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(t != 0, np.sqrt(t / q) * np.sqrt(t / p), 0.0)
    # Fowlkes & Mallows' P_k and Q_k count ordered pairs.
    pk, qk = 2 * p, 2 * q
    if n < 4:
        mean, var = _permuted_moments(n, sums, pk, qk)
    else:
        mean, var = _null_moments(float(n), pk, qk, sums["rows_cubed"], sums["cols_cubed"])
    return {_FM: b, _MOMENTS[0]: mean, _MOMENTS[1]: var}


def _null_moments(
    n: float,
    pk: NDArray[np.float64],
    qk: NDArray[np.float64],
    p3: NDArray[np.float64],
    q3: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Fowlkes & Mallows' mean and variance of B_k (n >= 4); 0 and 0 where a cut is all
    single samples (P or Q is 0: B_k is then 0 under every permutation)."""
    some = (pk > 0) & (qk > 0)
    pk, qk = np.where(some, pk, 1.0), np.where(some, qk, 1.0)
    n1, n2, n3 = n * (n - 1), n * (n - 1) * (n - 2), n * (n - 1) * (n - 2) * (n - 3)
    mean = np.sqrt(pk * qk) / n1
    dp, dq = 2 + 4 * p3 / pk, 2 + 4 * q3 / qk
    # (P - dp)(Q - dq) / n3 - P Q / n1², its P Q terms taken together: 1/n3 - 1/n1² is
    # (4n - 6) / ((n-2)(n-3) n1²).
    var = (
        2 / n1
        + 4 * p3 * q3 / (n2 * pk * qk)
        + pk * qk * (4 * n - 6) / ((n - 2) * (n - 3) * n1 * n1)
        - (dp * qk + dq * pk - dp * dq) / n3
    )
    return np.where(some, mean, 0.0), np.where(some, np.maximum(var, 0.0), 0.0)


def _permuted_moments(
    n: int, sums: dict[str, NDArray[Any]], pk: NDArray[np.float64], qk: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """B_k's mean and variance over every permutation of the second cut (n < 4, where
    Fowlkes & Mallows' variance divides by n - 3): cuts of n < 4 samples are fixed by their
    cluster sizes up to the samples' order, so sizes alone give them."""
    mean, var = np.zeros(pk.size), np.zeros(pk.size)
    for r in range(pk.size):
        first = _cut_of_pairs(n, int(pk[r]))
        second = _cut_of_pairs(n, int(qk[r]))
        values = []
        for perm in itertools.permutations(range(n)):
            together = sum(
                first[i] == first[j] and second[perm[i]] == second[perm[j]]
                for i in range(n)
                for j in range(n)
                if i != j
            )
            denom = np.sqrt(pk[r] * qk[r])
            values.append(together / denom if together else 0.0)
        mean[r], var[r] = np.mean(values), np.var(values)
    return mean, var


def _cut_of_pairs(n: int, ordered_pairs: int) -> list[int]:
    """A cut of n < 4 samples with that many ordered pairs together (0, 2 or 6)."""
    return {0: list(range(n)), 2: [0, 0, 1][:n], 6: [0] * n}[ordered_pairs]


class _PairCut(_Sums):
    """The table of two cuts as the measures of pair counts and entropies read it."""

    def __init__(self, n: int, sums: dict[str, NDArray[Any]], r: int) -> None:
        self.n = n
        self.shape = (n - int(sums["merges1"][r]), n - int(sums["merges2"][r]))
        self._cells_sq = int(sums["cells_sq"][r])
        self._rows_sq = int(sums["rows_sq"][r])
        self._cols_sq = int(sums["cols_sq"][r])
        self._cells_xlnx = float(sums["cells_xlnx"][r])
        self._rows_xlnx = float(sums["rows_xlnx"][r])
        self._cols_xlnx = float(sums["cols_xlnx"][r])

    def entropy_rows(self) -> float:
        return _entropy(self.n, self.shape[0], self._rows_xlnx)
