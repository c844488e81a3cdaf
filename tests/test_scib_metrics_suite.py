"""scib-metrics' own tests of the functions this package shares with it
(``tests/test_metrics.py`` and ``tests/test_BRAS_metric.py`` of its repository), run against
ours: the same data (its ``dummy_x_labels``: 100 normal points in 10 dimensions, 4 labels,
seed 42; batches of seed 43), the same oracles (scikit-learn, harmonypy, a naive silhouette
of every pair), the same tolerances."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

import fastcluster_metrics as fcm

skm = pytest.importorskip("sklearn.metrics")
neighbors = pytest.importorskip("sklearn.neighbors")
pd = pytest.importorskip("pandas")


def _x_labels(symmetric_positive=False, as_neighbors=False):
    rng = np.random.default_rng(seed=42)
    x = rng.normal(size=(100, 10))
    labels = rng.integers(0, 4, size=(100,))
    if symmetric_positive:
        x = np.abs(x @ x.T)
    if as_neighbors:
        dist = cdist(x, x)
        found = neighbors.NearestNeighbors(n_neighbors=30, metric="precomputed").fit(dist)
        d, i = found.kneighbors(dist)
        return (i, d), labels
    return x, labels


def _x_labels_batch(as_neighbors=False):
    rng = np.random.default_rng(seed=43)
    x, labels = _x_labels(as_neighbors=as_neighbors)
    return x, labels, rng.integers(0, 4, size=(100,))


def _naive_silhouette(x, clusters, metric="euclidean", between="nearest"):
    """scib-metrics' naive reference: every pair's distance, a loop over the samples."""
    keys = np.unique(clusters)
    if len(keys) < 2:
        return np.zeros(len(x))
    d = skm.pairwise_distances(x, metric=metric)
    out = np.zeros(len(x))
    for i in range(len(x)):
        same = clusters == clusters[i]
        same[i] = False
        if not same.any():
            continue
        a = d[i, same].mean()
        means = [d[i, clusters == k].mean() for k in keys if k != clusters[i]]
        if between == "furthest":
            b = max(means)
        elif between == "mean_other":
            b = d[i, clusters != clusters[i]].mean()
        else:
            b = min(means)
        out[i] = (b - a) / max(a, b)
    return out


def _naive_batch(x, labels, batch, metric="euclidean", between="nearest"):
    rows = []
    for group in np.unique(labels):
        mask = labels == group
        n_batches = len(np.unique(batch[mask]))
        if n_batches in (1, mask.sum()):
            continue
        s = 1 - np.abs(_naive_silhouette(x[mask], batch[mask], metric, between))
        rows.append(pd.DataFrame({"group": group, "s": s}))
    return pd.concat(rows).groupby("group").mean()["s"].mean()


def test_silhouette_samples_equal_sklearn():
    x, labels = _x_labels()
    np.testing.assert_allclose(
        fcm.silhouette_samples(x, labels), skm.silhouette_samples(x, labels), atol=1e-5
    )


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_silhouette_label_is_sklearns_rescaled(metric):
    x, labels = _x_labels()
    score = fcm.silhouette_label(x, labels, metric=metric)
    assert score > 0
    want = (np.mean(skm.silhouette_samples(x, labels, metric=metric)) + 1) / 2
    assert np.allclose(score, want)
    assert np.allclose(fcm.silhouette_label(x, labels, rescale=False, metric=metric), 2 * want - 1)


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
@pytest.mark.parametrize("between", ["nearest", "mean_other", "furthest"])
def test_silhouette_batch_equals_the_naive_silhouette(metric, between):
    x, labels, batch = _x_labels_batch()
    score = fcm.silhouette_batch(x, labels, batch, metric=metric, between_cluster_distances=between)
    assert score > 0
    assert np.allclose(score, _naive_batch(x, labels, batch, metric, between))


def test_bras_equals_the_naive_silhouette():
    x, labels, batch = _x_labels_batch()
    # scib-metrics' test passes the labels as batches and the batches as labels: both ways
    for a, b in ((labels, batch), (batch, labels)):
        want = _naive_batch(x, a, b, metric="cosine", between="mean_other")
        assert np.allclose(fcm.bras(x, a, b), want)


def _scib_metrics():
    import warnings

    # umap (imported by scib-metrics) warns when TensorFlow is absent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pytest.importorskip("scib_metrics")


@pytest.mark.parametrize("n_neighbors", [30, 60, 72])
def test_lisi_knn_equals_harmonypy_and_scib_metrics(n_neighbors):
    harmonypy = pytest.importorskip("harmonypy")
    perplexity = n_neighbors // 3
    x, labels = _x_labels()
    # harmonypy 2 searches 3 x perplexity neighbours besides the cell itself (its 1.x, which
    # scib-metrics' test holds it to, counted the cell among them): given its neighbours,
    # ours equals it in float64
    k = 3 * perplexity + (int(harmonypy.__version__.split(".")[0]) >= 2)
    dists, inds = neighbors.NearestNeighbors(n_neighbors=k).fit(x).kneighbors(x)
    ours = fcm.lisi_knn((inds, dists), labels, perplexity=perplexity)
    theirs = harmonypy.compute_lisi(
        x, pd.DataFrame({"labels": labels}), label_colnames=["labels"], perplexity=perplexity
    )[:, 0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)
    sm = _scib_metrics()
    from scib_metrics.nearest_neighbors import NeighborsResults

    found = neighbors.NearestNeighbors(n_neighbors=n_neighbors, algorithm="kd_tree").fit(x)
    dists, inds = found.kneighbors(x)
    ours = fcm.lisi_knn((inds, dists), labels, perplexity=perplexity)
    theirs = sm.lisi_knn(NeighborsResults(indices=inds, distances=dists), labels, perplexity)
    np.testing.assert_allclose(ours, theirs, rtol=5e-5, atol=5e-5)


def test_ilisi_clisi_kbet_and_connectivity_return_scib_metrics_types():
    graph, labels, batches = _x_labels_batch(as_neighbors=True)
    for value in (fcm.ilisi_knn(graph, batches, perplexity=10), fcm.clisi_knn(graph, labels)):
        assert isinstance(value, float) and 0.0 <= value <= 1.0
    acc_rate, stats, pvalues = fcm.kbet(graph, batches)
    assert isinstance(acc_rate, float)
    assert len(stats) == len(pvalues) == graph[0].shape[0]
    assert isinstance(fcm.kbet_per_label(graph, batches, labels), float)
    positive, labels = _x_labels(symmetric_positive=True, as_neighbors=True)
    assert isinstance(fcm.graph_connectivity(positive, labels), float)


def test_isolated_labels_is_a_mean_of_rescaled_silhouettes():
    x, labels, batch = _x_labels_batch()
    # every label is in all 4 batches here: all are isolated at the default threshold
    s = (skm.silhouette_samples(x, labels) + 1) / 2
    want = np.mean([s[labels == k].mean() for k in np.unique(labels)])
    assert np.allclose(fcm.isolated_labels(x, labels, batch), want)
