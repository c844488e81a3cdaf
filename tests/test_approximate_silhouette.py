"""The approximate silhouette (bluster's ``approxSilhouette``) against its definition from
every pair, the root-mean-square distance to each cluster, by brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import cdist

import fastcluster_metrics as fcm
from fastcluster_metrics._embedding import approximate


def _brute(x, labels):
    """Each sample's root-mean-square distance to every cluster, from all n^2 pairs."""
    x = np.asarray(x, dtype=np.float64)
    labels = np.asarray(labels)
    d2 = cdist(x, x, "sqeuclidean")
    keys = np.unique(labels)
    rms = np.stack([np.sqrt(d2[:, labels == k].mean(axis=1)) for k in keys], axis=1)
    own_index = np.searchsorted(keys, labels)
    rows = np.arange(len(x))
    own = rms[rows, own_index].copy()
    rms[rows, own_index] = np.inf
    other = rms.min(axis=1)
    most = np.maximum(own, other)
    return np.where(most > 0, (other - own) / np.where(most > 0, most, 1), 0.0)


def _blobs(n=500, d=7, k=6, seed=0, offset=0.0, scale=1.0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    x = offset + rng.normal(0, 3, (k, d))[labels] + scale * rng.normal(size=(n, d))
    return x, labels


@pytest.mark.parametrize("seed", range(4))
def test_equals_the_root_mean_square_of_every_pair(seed) -> None:
    x, labels = _blobs(seed=seed)
    got = fcm.approximate_silhouette_samples(x, labels)
    np.testing.assert_allclose(got, _brute(x, labels), rtol=1e-12, atol=1e-13)
    assert fcm.approximate_silhouette_score(x, labels) == pytest.approx(
        _brute(x, labels).mean(), rel=1e-12
    )


def test_chunks_merge_exactly(monkeypatch) -> None:
    x, labels = _blobs(n=1000, seed=5)
    want = fcm.approximate_silhouette_samples(x, labels)
    monkeypatch.setattr(approximate, "_CHUNK", 37)
    np.testing.assert_allclose(fcm.approximate_silhouette_samples(x, labels), want, rtol=1e-12)


def test_a_tight_cluster_far_from_the_origin_keeps_its_digits() -> None:
    # spreads of 1e-12 around points 1e6 from the origin: sums of squares lose everything
    x, labels = _blobs(n=400, d=3, k=4, seed=6, offset=1e6, scale=1e-6)
    np.testing.assert_allclose(
        fcm.approximate_silhouette_samples(x, labels), _brute(x - 1e6, labels), atol=1e-9
    )


def test_float32_label_types_and_many_labelings() -> None:
    x, labels = _blobs(seed=7)
    want = fcm.approximate_silhouette_samples(x, labels)
    got = fcm.approximate_silhouette_samples(x.astype(np.float32), labels)
    np.testing.assert_allclose(got, _brute(x.astype(np.float32), labels), rtol=1e-10, atol=1e-12)
    names = pd.Categorical(np.array(list("abcdef"))[labels])
    np.testing.assert_array_equal(fcm.approximate_silhouette_samples(x, names), want)
    other = (labels + 1) % 3
    many = fcm.approximate_silhouette_samples(x, [labels, other])
    assert many.shape == (2, len(x))
    np.testing.assert_array_equal(many[0], want)
    np.testing.assert_array_equal(many[1], fcm.approximate_silhouette_samples(x, other))
    scores = fcm.approximate_silhouette_score(x, [labels, other])
    np.testing.assert_allclose(scores, many.mean(axis=1), rtol=1e-14)


def test_missing_labels_are_dropped_or_refused() -> None:
    x, labels = _blobs(seed=8)
    holes = labels.astype(float)
    holes[::7] = np.nan
    with pytest.raises(ValueError, match="missing"):
        fcm.approximate_silhouette_samples(x, holes)
    got = fcm.approximate_silhouette_samples(x, holes, missing="drop")
    kept = ~np.isnan(holes)
    assert np.isnan(got[~kept]).all()
    np.testing.assert_allclose(got[kept], _brute(x[kept], labels[kept]), rtol=1e-12, atol=1e-13)
    assert fcm.approximate_silhouette_score(x, holes, missing="drop") == pytest.approx(
        got[kept].mean(), rel=1e-13
    )


def test_close_to_the_exact_silhouette_on_separated_blobs() -> None:
    x, labels = _blobs(n=2000, d=20, k=8, seed=9)
    exact = fcm.silhouette_score(x, labels)
    assert fcm.approximate_silhouette_score(x, labels) == pytest.approx(exact, abs=0.02)


def test_bad_inputs() -> None:
    x, labels = _blobs(n=50, seed=10)
    with pytest.raises(ValueError, match="Number of labels is 1"):
        fcm.approximate_silhouette_score(x, np.zeros(50, dtype=int))
    with pytest.raises(ValueError, match="NaN"):
        fcm.approximate_silhouette_score(np.where(x > 2, np.nan, x), labels)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fcm.approximate_silhouette_score(x, labels[:-1])
