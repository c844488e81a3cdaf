"""score_dendrogram: every cut of a dendrogram, against cutting it with scipy (or replaying
scikit-learn's merges) and scoring each cut on its own."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics import _native
from fastcluster_metrics._many.dendrogram import (
    _NO_CLASS,
    _Base,
    _classes,
    _Cut,
    _Every,
    _order,
    _tree,
)
from fastcluster_metrics._measures.catalogue import MEASURES
from fastcluster_metrics._measures.contingency import Contingency

hierarchy = pytest.importorskip("scipy.cluster.hierarchy")
pytest.importorskip("pandas")

ALL = list(MEASURES)


def _close(got: float, want: float) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return math.isclose(got, want, rel_tol=1e-11, abs_tol=1e-12)


def _ill_posed(name: str, truth, cut) -> bool:
    """AMI of a cut whose expected mutual information reaches its normaliser (all singletons
    against an average at most the truth's entropy): a 0/0 of rounding errors, which scikit-learn
    also answers with a quotient of two values of the order of machine epsilon."""
    if not name.startswith("adjusted_mutual_info"):
        return False
    _, emi, h_true, h_pred = Contingency.from_labels(truth, cut)._native_table.ami_parts()
    return min(h_true, h_pred) - emi < 1e-9


def _points(n: int, classes: int, seed: int, decimals: int | None = None):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, classes, n)
    x = rng.normal(size=(n, 2)) + truth[:, None] * 0.7
    return truth, (np.round(x, decimals) if decimals is not None else x)


def _replay(children: np.ndarray, n: int, merges: int) -> np.ndarray:
    """Each sample's cluster after the first ``merges`` rows of children_, one by one."""
    cluster = list(range(n))
    members = {i: [i] for i in range(n)}
    for m in range(merges):
        a, b = (int(x) for x in children[m])
        members[n + m] = members.pop(a) + members.pop(b)
    for node, samples in members.items():
        for s in samples:
            cluster[s] = node
    return np.array(cluster)


@pytest.mark.parametrize(
    ("method", "decimals"),
    [
        ("ward", None),
        ("single", 1),
        ("average", 0),
        ("complete", 1),
        ("centroid", None),
        ("median", 1),
    ],
)
def test_every_cut_scores_as_scipy_cut_scored_alone(method, decimals):
    # Rounded points make merges tie in height (no cut has some numbers of clusters);
    # centroid and median linkages have heights that decrease.
    truth, x = _points(40, 4, seed=len(method), decimals=decimals)
    z = hierarchy.linkage(x, method)
    got = fcm.score_dendrogram(truth, z, metrics="all")
    assert list(got.index) == list(range(1, 41))
    assert list(got.columns) == ["n_clusters", *ALL]
    for k in range(1, 42):
        cut = hierarchy.fcluster(z, k, criterion="maxclust")
        want = fcm.evaluate(truth, cut, metrics="all")
        row = got.loc[min(k, 40)]
        assert row["n_clusters"] == np.unique(cut).size
        for name in ALL:
            if not _ill_posed(name, truth, cut):
                assert _close(row[name], want[name]), (method, k, name, row[name], want[name])


def test_two_thousand_samples_with_ties_every_k():
    # Points on a coarse grid: many merges tie in height.
    truth, x = _points(2000, 7, seed=21, decimals=0)
    z = hierarchy.linkage(x, "average")
    names = ["adjusted_rand_score", "adjusted_mutual_info_score", "purity_score", "jaccard_index"]
    got = fcm.score_dendrogram(truth, z, metrics=names)
    counts = got["n_clusters"].to_numpy()
    assert (counts < np.arange(1, 2001)).any()  # some k have no cut of their own
    for k in range(1, 2001):
        cut = hierarchy.fcluster(z, k, criterion="maxclust")
        assert counts[k - 1] == np.unique(cut).size
        if k % 50 == 1 or counts[k - 1] != k:
            want = fcm.evaluate(truth, cut, metrics=names)
            for name in names:
                if not _ill_posed(name, truth, cut):
                    assert _close(got.loc[k, name], want[name]), (k, name)


def test_all_heights_equal_and_two_samples():
    truth = [0, 1, 1, 0, 2]
    z = hierarchy.linkage(np.zeros((5, 1)), "single")
    got = fcm.score_dendrogram(truth, z, metrics=["ARI"])
    # One height: no cut between one cluster and every sample alone.
    assert got["n_clusters"].tolist() == [1, 1, 1, 1, 5]
    assert got["n_clusters"].tolist() == [
        np.unique(hierarchy.fcluster(z, k, criterion="maxclust")).size for k in range(1, 6)
    ]
    two = fcm.score_dendrogram(["a", "b"], [[0, 1]], metrics=["ARI", "purity"])
    assert two["n_clusters"].tolist() == [1, 2]
    assert two["purity_score"].tolist() == [0.5, 1.0]
    assert two["adjusted_rand_score"].tolist() == [
        fcm.adjusted_rand_score(["a", "b"], [0, 0]),
        fcm.adjusted_rand_score(["a", "b"], [0, 1]),
    ]


def test_ties_give_the_cut_with_fewer_clusters_as_scipy():
    # Four groups of three identical points: every cut below the groups' merges has 12
    # clusters, every cut above them 4 or fewer.
    x = np.repeat(np.array([[0.0, 0], [0, 5], [7, 0], [20, 20]]), 3, axis=0)
    truth = np.repeat([0, 1, 2, 3], 3)
    z = hierarchy.linkage(x, "single")
    got = fcm.score_dendrogram(truth, z, metrics=["ARI"])
    assert got["n_clusters"].tolist() == [1, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 12]
    scipy_counts = [np.unique(hierarchy.fcluster(z, k, "maxclust")).size for k in range(1, 13)]
    assert got["n_clusters"].tolist() == scipy_counts
    assert got.loc[4:11, "adjusted_rand_score"].tolist() == [1.0] * 8


def test_children_apply_their_first_merges_as_scikit_learn_cuts_them():
    cluster = pytest.importorskip("sklearn.cluster")
    truth, x = _points(60, 5, seed=3)
    model = cluster.AgglomerativeClustering(compute_full_tree=True, linkage="average").fit(x)
    got = fcm.score_dendrogram(truth, model.children_, metrics="all")
    for k in (1, 2, 5, 17, 59, 60):
        cut = _replay(model.children_, 60, 60 - k)
        labels = cluster.AgglomerativeClustering(n_clusters=k, linkage="average").fit(x).labels_
        assert fcm.adjusted_rand_score(cut, labels) == 1.0
        want = fcm.evaluate(truth, cut, metrics="all")
        assert got.loc[k, "n_clusters"] == k
        for name in ALL:
            if not _ill_posed(name, truth, cut):
                assert _close(got.loc[k, name], want[name]), (k, name)


def test_rows_marked_merges_are_exactly_those_read_from_the_sums():
    # A row is marked when its kernel reads only the sums the merges keep (and then agrees
    # with the cut's own table); every other kernel needs the cells, which a cut lacks.
    truth, x = _points(80, 5, seed=11)
    z = hierarchy.linkage(x, "ward")
    classes, n_classes = _classes(truth, "raise")
    merges, heights = _tree(z, 80)
    order, _ = _order(merges, heights, 80)
    steps = np.array([80 - 7], dtype=np.uint64)
    sums = _native.dendrogram_cuts(classes, n_classes, merges, order.astype(np.uint64), steps, True)
    row_sums = np.bincount(classes)
    base = _Base(80, n_classes, _native.count_one(classes).entropy_rows(), row_sums)
    cut = Contingency._of(_Cut(base, sums, 0))  # type: ignore[arg-type]
    table = Contingency.from_labels(truth, hierarchy.fcluster(z, 7, criterion="maxclust"))
    marked = [row for row in MEASURES.values() if row.merges]
    assert len(marked) == 36
    for row in MEASURES.values():
        if row.merges:
            assert _close(row(cut), row(table)), row.name
        else:
            with pytest.raises(AttributeError):
                row(cut)


def test_ks_choose_rows_in_their_order():
    truth, x = _points(30, 3, seed=5)
    z = hierarchy.linkage(x, "ward")
    every = fcm.score_dendrogram(truth, z, metrics=["NMI", "MARI"])
    got = fcm.score_dendrogram(truth, z, metrics=["NMI", "MARI"], ks=[7, 2, 99, 7])
    assert got.index.tolist() == [7, 2, 99, 7]
    assert got.iloc[2]["n_clusters"] == 30
    for position, k in enumerate([7, 2, 99, 7]):
        assert got.iloc[position].tolist() == every.loc[min(k, 30)].tolist()
    for bad in ([0], [2.5], "3", 4):
        with pytest.raises(fcm.InvalidParameterError, match="'ks' parameter"):
            fcm.score_dendrogram(truth, z, ks=bad)


def test_missing_truth_is_dropped_from_every_table_or_refused():
    truth, x = _points(50, 4, seed=8)
    z = hierarchy.linkage(x, "average")
    labels = truth.astype(object)
    labels[[3, 10, 11, 40]] = None
    with pytest.raises(ValueError, match="missing labels"):
        fcm.score_dendrogram(labels, z)
    got = fcm.score_dendrogram(labels, z, metrics="all", missing="drop")
    keep = np.array([x is not None for x in labels])
    for k in (1, 3, 9, 50):
        cut = hierarchy.fcluster(z, k, criterion="maxclust")
        want = fcm.evaluate(truth[keep], cut[keep], metrics="all")
        for name in ALL:
            if not _ill_posed(name, truth, cut):
                assert _close(got.loc[k, name], want[name]), (k, name)


@pytest.mark.parametrize(
    ("linkage", "match"),
    [
        (np.zeros((3, 4)), "n - 1 = 4 rows"),
        (np.zeros((4, 3)), "rows of 4"),
        (
            np.array([[0, 1], [1, 2], [3, 4], [5, 6]]),
            "not a valid dendrogram: merge 1 joins node 1, which an earlier merge",
        ),
        (
            np.array([[0, 1], [2, 7], [3, 5], [4, 6]]),
            "merge 1 joins node 7, the cluster of merge 2, which comes later",
        ),
        (np.array([[0, 1], [2, 3], [4, 5], [6, 9]]), r"node ids must lie in \[0, 9\)"),
        (np.array([[0, 1, np.nan, 2], [2, 3, 1, 2], [4, 5, 2, 3], [6, 7, 3, 5]]), "NaN"),
        (np.array([[0, 1.5, 1, 2], [2, 3, 1, 2], [4, 5, 2, 3], [6, 7, 3, 5]]), "whole numbers"),
        (np.array([["a", "b"]] * 4), "must hold numbers"),
    ],
)
def test_bad_trees_are_refused_with_what_is_wrong(linkage, match):
    with pytest.raises(ValueError, match=match):
        fcm.score_dendrogram([0, 0, 1, 1, 2], linkage)


def test_strings_and_a_single_sample():
    truth, x = _points(20, 3, seed=2)
    z = hierarchy.linkage(x, "ward")
    names = np.array(["b-cell", "t-cell", "nk"])[truth]
    assert fcm.score_dendrogram(names, z).equals(fcm.score_dendrogram(truth, z))
    one = fcm.score_dendrogram(["a"], np.zeros((0, 4)), metrics=["ARI"])
    assert one.index.tolist() == [1]
    assert one.loc[1, "adjusted_rand_score"] == 1.0


def _random_tree(n: int, rng: np.random.Generator) -> np.ndarray:
    """children_ of a random tree: level by level, random pairs of the clusters alive."""
    alive, formed, out = rng.permutation(n), n, []
    while alive.size > 1:
        half = alive.size // 2
        out.append(np.stack([alive[:half], alive[half : 2 * half]], axis=1))
        alive = rng.permutation(
            np.concatenate([np.arange(formed, formed + half), alive[2 * half :]])
        )
        formed += half
    return np.concatenate(out)


def _cut_of(children: np.ndarray, n: int, merges: int) -> np.ndarray:
    """Each sample's cluster after the first ``merges`` rows: its highest formed ancestor."""
    parent = np.arange(n + children.shape[0])
    done = np.arange(merges)
    parent[children[done, 0]] = n + done
    parent[children[done, 1]] = n + done
    while True:
        up = parent[parent]
        if (up == parent).all():
            return parent[:n]
        parent = up


def test_a_million_samples_against_each_cut_counted():
    rng = np.random.default_rng(7)
    n = 1_000_000
    truth = rng.integers(0, 33, n)
    children = _random_tree(n, rng)
    ks = [1, 2, 33, 1000, 123_457, n]
    names = ["ARI", "AMI", "NMI", "purity", "Jaccard"]
    got = fcm.score_dendrogram(truth, children, metrics=names, ks=ks)
    for k in ks:
        want = fcm.evaluate(truth, _cut_of(children, n, n - k), metrics=names)
        assert got.loc[k, "n_clusters"] == k
        for name, value in want.items():
            assert _close(got.loc[k, name], value), (k, name)


def _every_cut(truth, linkage, missing="raise"):
    """The base, the core's sums at every cut that exists, and their number, as
    ``score_dendrogram`` makes them."""
    classes, n_classes = _classes(truth, missing)
    n = classes.shape[0]
    merges, heights = _tree(linkage, n)
    order, reachable = _order(merges, heights, n)
    sums = _native.dendrogram_cuts(
        classes, n_classes, merges, order.astype(np.uint64), reachable.astype(np.uint64), True
    )
    counted = classes[classes != _NO_CLASS]
    row_sums = np.bincount(counted, minlength=n_classes)
    base = _Base(counted.size, int(np.count_nonzero(row_sums)), 0.0, row_sums)
    base.entropy_rows = _native.count_one(counted).entropy_rows() if counted.size else 1.0
    return base, sums, reachable.size


def _bits(values: np.ndarray) -> np.ndarray:
    """Each float's bits, every NaN alike."""
    return np.where(np.isnan(values), np.nan, values).view(np.uint64)


@pytest.mark.parametrize(
    "case",
    ["ward 40", "ties 300", "single 60", "missing 2000", "children 10000"],
)
def test_every_cut_at_once_is_each_cut_to_the_last_bit(case):
    # The kernels run once on arrays of every cut's sums (_Every) and once per cut on a
    # cut's own (_Cut): the same values, bit for bit, for every row marked merges and every
    # cut, ties (no cut for some k), a missing truth and products past 2**53 and 2**100
    # (phi's and Kendall's denominators at n = 1e4, whose Ints fall back to Python ints).
    kind, size = case.split()
    n = int(size)
    missing = "raise"
    if kind == "children":
        rng = np.random.default_rng(46)
        truth, linkage = rng.integers(0, 12, n), _random_tree(n, rng)
    else:
        truth, x = _points(
            n, 1 if kind == "single" else 6, seed=n, decimals=0 if kind == "ties" else None
        )
        linkage = hierarchy.linkage(x, "average" if kind == "ties" else "ward")
        if kind == "missing":
            truth = np.where(np.arange(n) % 7 == 3, np.nan, truth)
            missing = "drop"
    base, sums, cuts = _every_cut(truth, linkage, missing)
    every = Contingency._of(_Every(base, sums))  # type: ignore[arg-type]
    each = [Contingency._of(_Cut(base, sums, r)) for r in range(cuts)]  # type: ignore[arg-type]
    marked = [row for row in MEASURES.values() if row.merges]
    for row in marked:
        got = np.broadcast_to(np.asarray(row.exact(every), dtype=np.float64), (cuts,))
        want = np.array([row(table) for table in each])
        assert np.array_equal(_bits(got), _bits(want)), (row.name, np.flatnonzero(got != want)[:5])
    got = fcm.score_dendrogram(
        truth, linkage, metrics=[row.name for row in marked], missing=missing
    )
    assert got.shape[0] == n
