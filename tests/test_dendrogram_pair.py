"""compare_dendrograms: B_k and the other measures against scikit-learn's on scipy's cuts of
both trees at every k, the null moments against their formulas in exact arithmetic and
against every (or random) permutation, and its errors."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import fastcluster_metrics as fcm

pd = pytest.importorskip("pandas")
hierarchy = pytest.importorskip("scipy.cluster.hierarchy")
metrics = pytest.importorskip("sklearn.metrics")


def _linkages(n: int, seed: int, ties: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, size=(n, 2)).astype(float) if ties else rng.normal(size=(n, 2))
    return hierarchy.linkage(x, "single"), hierarchy.linkage(x[:, ::-1] ** 2, "average")


def _children(n: int, seed: int) -> np.ndarray:
    """A random merge order of n leaves as scikit-learn's children_."""
    rng = np.random.default_rng(seed)
    alive = list(range(n))
    rows = []
    for m in range(n - 1):
        a = alive.pop(int(rng.integers(len(alive))))
        b = alive.pop(int(rng.integers(len(alive))))
        rows.append((a, b))
        alive.append(n + m)
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


def _cut_children(children: np.ndarray, k: int) -> np.ndarray:
    """The clusters after the first n - k merges of children_ (the oracle's own walk)."""
    n = children.shape[0] + 1
    parent = list(range(2 * n - 1))
    for m in range(n - k):
        for node in children[m]:
            parent[int(node)] = n + m
    out = []
    for i in range(n):
        while parent[i] != i:
            i = parent[i]
        out.append(i)
    return np.array(out)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("n", [4, 9, 40, 150])
def test_every_k_is_scikit_learns_fowlkes_mallows_of_scipys_cuts(n, ties):
    z1, z2 = _linkages(n, n, ties)
    got = fcm.compare_dendrograms(z1, z2)
    assert list(got.index) == list(range(1, n + 1))
    for k in range(1, n + 1):
        a = hierarchy.fcluster(z1, k, "maxclust")
        b = hierarchy.fcluster(z2, k, "maxclust")
        row = got.loc[k]
        assert row["n_clusters_1"] == np.unique(a).size
        assert row["n_clusters_2"] == np.unique(b).size
        # The same float operations on the same exact pair counts: equal to the last bit.
        assert row["fowlkes_mallows_score"] == metrics.fowlkes_mallows_score(a, b), k


def test_ties_leave_rows_with_fewer_clusters():
    z1, z2 = _linkages(40, 3, ties=True)
    got = fcm.compare_dendrograms(z1, z2)
    assert (got["n_clusters_1"] < got.index).any()
    assert (got["n_clusters_1"] <= got.index).all() and (got["n_clusters_2"] <= got.index).all()


def test_children_are_cut_by_their_first_merges():
    n = 60
    c1, c2 = _children(n, 1), _children(n, 2)
    got = fcm.compare_dendrograms(c1, c2, metrics=["ARI", "NMI", "AMI", "purity"])
    for k in range(1, n + 1):
        a, b = _cut_children(c1, k), _cut_children(c2, k)
        assert got.loc[k, "n_clusters_1"] == k
        assert got.loc[k, "fowlkes_mallows_score"] == metrics.fowlkes_mallows_score(a, b)
        want = fcm.evaluate(a, b, metrics=["ARI", "NMI", "AMI", "purity"])
        for name, value in want.items():
            assert got.loc[k, name] == pytest.approx(value, rel=1e-12, abs=1e-12), (k, name)


def test_measures_from_the_sums_agree_with_each_cut_scored_alone():
    z1, z2 = _linkages(120, 7, ties=True)
    names = [
        "adjusted_rand_score",
        "rand_score",
        "normalized_mutual_info_score",
        "normalized_mutual_info_score_max",
        "mutual_info_score",
        "homogeneity_score",
        "completeness_score",
        "v_measure_score",
        "entropy_true",
        "entropy_pred",
        "jaccard_index",
        "adjusted_fowlkes_mallows_score",
        "variation_of_information",
        "adjusted_mutual_info_score",
    ]
    ks = [1, 2, 3, 5, 8, 13, 30, 60, 119, 120]
    got = fcm.compare_dendrograms(z1, z2, ks=ks, metrics=names)
    assert list(got.index) == ks
    for k in ks:
        a = hierarchy.fcluster(z1, k, "maxclust")
        b = hierarchy.fcluster(z2, k, "maxclust")
        want = fcm.evaluate(a, b, metrics=names)
        for name, value in want.items():
            assert got.loc[k, name] == pytest.approx(value, rel=1e-11, abs=1e-12), (k, name)


def _exact_moments(a: np.ndarray, b: np.ndarray) -> tuple[float, Fraction]:
    """Fowlkes & Mallows' mean and variance evaluated in exact fractions (the mean's square
    root last)."""
    n = a.size
    sa, sb = np.unique(a, return_counts=True)[1], np.unique(b, return_counts=True)[1]
    p = sum(int(x) ** 2 for x in sa) - n
    q = sum(int(x) ** 2 for x in sb) - n
    p3 = sum(int(x) * (int(x) - 1) * (int(x) - 2) for x in sa)
    q3 = sum(int(x) * (int(x) - 1) * (int(x) - 2) for x in sb)
    if p == 0 or q == 0:
        return 0.0, Fraction(0)
    f = Fraction
    var = (
        f(2, n * (n - 1))
        + f(4 * p3 * q3, n * (n - 1) * (n - 2) * p * q)
        + (p - 2 - f(4 * p3, p)) * (q - 2 - f(4 * q3, q)) / (n * (n - 1) * (n - 2) * (n - 3))
        - f(p * q, n**2 * (n - 1) ** 2)
    )
    return math.sqrt(p * q) / (n * (n - 1)), var


@pytest.mark.parametrize("n", [5, 30, 400])
def test_null_moments_are_fowlkes_and_mallows_formulas(n):
    z1, z2 = _linkages(n, n + 1, ties=False)
    got = fcm.compare_dendrograms(z1, z2)
    for k in range(1, n + 1):
        mean, var = _exact_moments(
            hierarchy.fcluster(z1, k, "maxclust"), hierarchy.fcluster(z2, k, "maxclust")
        )
        assert got.loc[k, "fowlkes_mallows_expected"] == pytest.approx(mean, rel=1e-14)
        assert got.loc[k, "fowlkes_mallows_variance"] == pytest.approx(
            float(var), rel=1e-9, abs=1e-15
        ), k


def _permuted(a: np.ndarray, b: np.ndarray, perms) -> np.ndarray:
    return np.array([metrics.fowlkes_mallows_score(a, b[list(p)]) for p in perms])


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_null_moments_are_those_of_every_permutation(n):
    c1, c2 = _children(n, n), _children(n, n + 10)
    got = fcm.compare_dendrograms(c1, c2)
    for k in range(1, n + 1):
        a, b = _cut_children(c1, k), _cut_children(c2, k)
        values = _permuted(a, b, itertools.permutations(range(n)))
        assert got.loc[k, "fowlkes_mallows_expected"] == pytest.approx(values.mean(), abs=1e-12)
        assert got.loc[k, "fowlkes_mallows_variance"] == pytest.approx(values.var(), abs=1e-12)


def test_null_moments_match_random_permutations():
    n, draws = 200, 3000
    z1, z2 = _linkages(n, 11, ties=False)
    got = fcm.compare_dendrograms(z1, z2, ks=[4, 20])
    rng = np.random.default_rng(5)
    for k in (4, 20):
        a = hierarchy.fcluster(z1, k, "maxclust")
        b = hierarchy.fcluster(z2, k, "maxclust")
        values = _permuted(a, b, (rng.permutation(n) for _ in range(draws)))
        mean, var = got.loc[k, "fowlkes_mallows_expected"], got.loc[k, "fowlkes_mallows_variance"]
        assert abs(values.mean() - mean) < 5 * math.sqrt(var / draws)
        assert values.var() == pytest.approx(var, rel=0.15)


def test_identical_trees_score_one_at_every_k():
    z, _ = _linkages(50, 2, ties=False)
    got = fcm.compare_dendrograms(z, z, metrics="ARI")
    assert (got["fowlkes_mallows_score"].iloc[:-1] == 1.0).all()
    assert got["fowlkes_mallows_score"].iloc[-1] == 0.0  # all singletons: no pairs, as sklearn
    assert np.allclose(got["adjusted_rand_score"], 1.0)


def test_a_million_samples_agree_with_direct_cuts():
    n = 2**20
    rng = np.random.default_rng(0)

    def balanced(leaves):
        rows, nodes, next_id = [], leaves, n
        while nodes.size > 1:
            pairs = nodes.reshape(-1, 2)
            rows.append(pairs)
            nodes = np.arange(next_id, next_id + pairs.shape[0])
            next_id += pairs.shape[0]
        return np.concatenate(rows)

    c1, c2 = balanced(rng.permutation(n)), balanced(rng.permutation(n))
    ks = [1, 2, 7, 1000, 2**19 + 3, n]
    got = fcm.compare_dendrograms(c1, c2, ks=ks, metrics=["ARI"])
    for k in ks:
        a, b = _cuts_vectorised(c1, k), _cuts_vectorised(c2, k)
        assert got.loc[k, "fowlkes_mallows_score"] == fcm.fowlkes_mallows_score(a, b)
        assert got.loc[k, "adjusted_rand_score"] == pytest.approx(
            fcm.adjusted_rand_score(a, b), rel=1e-12, abs=1e-15
        )


def _cuts_vectorised(children: np.ndarray, k: int) -> np.ndarray:
    n = children.shape[0] + 1
    parent = np.arange(2 * n - 1)
    done = np.arange(n - k)
    parent[children[done, 0]] = n + done
    parent[children[done, 1]] = n + done
    while True:
        up = parent[parent]
        if (up == parent).all():
            return parent[:n]
        parent = up


def test_errors():
    z1, z2 = _linkages(10, 0, ties=False)
    with pytest.raises(ValueError, match="same samples: they have 9 and 8 merges"):
        fcm.compare_dendrograms(z1, z2[:-1])
    with pytest.raises(ValueError, match="linkage2 must be scipy's linkage matrix"):
        fcm.compare_dendrograms(z1, z2[:, :3])
    bad = z2.copy()
    bad[3, 0] = bad[2, 0]
    with pytest.raises(ValueError, match="not a valid dendrogram"):
        fcm.compare_dendrograms(z1, bad)
    with pytest.raises(fcm.InvalidParameterError, match="'ks' parameter"):
        fcm.compare_dendrograms(z1, z2, ks=[0])
    with pytest.raises(fcm.InvalidParameterError, match="compare_dendrograms"):
        fcm.compare_dendrograms(z1, z2, metrics=["no such measure"])
