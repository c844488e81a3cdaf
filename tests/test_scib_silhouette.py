"""scIB's silhouette scores of an embedding (``silhouette_label``, ``silhouette_batch``,
``bras``, ``isolated_labels``) against a plain-NumPy reading of scib-metrics' definitions
over the full distance matrix, and against scib-metrics itself where it is installed."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import cdist

import fastcluster_metrics as fcm

_SCIPY = {"euclidean": "euclidean", "sqeuclidean": "sqeuclidean", "cosine": "cosine"}
_SCIPY["manhattan"] = "cityblock"


def _silhouette(x, labels, metric="euclidean", between="nearest"):
    """scib-metrics' ``silhouette_samples`` from the n x n matrix, in float64."""
    x = np.asarray(x, dtype=np.float64)
    d = cdist(x, x, _SCIPY[metric])
    if metric == "cosine":
        d = np.clip(d, 0, 2)
    codes = pd.Categorical(labels).codes
    k = codes.max() + 1
    freqs = np.bincount(codes, minlength=k).astype(float)
    out = np.zeros(len(x))
    for i in range(len(x)):
        sums = np.bincount(codes, weights=d[i], minlength=k)
        own = codes[i]
        if freqs[own] == 1:
            continue
        a = sums[own] / (freqs[own] - 1)
        others = [c for c in range(k) if c != own]
        if not others:
            continue
        means = sums[others] / freqs[others]
        if between == "nearest":
            b = means.min()
        elif between == "furthest":
            b = means.max()
        else:
            b = sums[others].sum() / freqs[others].sum()
        most = max(a, b)
        out[i] = 0.0 if most == 0 else (b - a) / most
    return out


def _batch(x, labels, batch, rescale=True, metric="euclidean", between="nearest"):
    """scib-metrics' ``silhouette_batch``: label by label, pandas' group means."""
    x, labels, batch = np.asarray(x, dtype=np.float64), np.asarray(labels), np.asarray(batch)
    frames = []
    for group in np.unique(labels):
        mask = labels == group
        n_batches = len(np.unique(batch[mask]))
        if n_batches == 1 or n_batches == mask.sum():
            continue
        s = np.abs(_silhouette(x[mask], batch[mask], metric, between))
        frames.append(pd.DataFrame({"group": group, "s": 1 - s if rescale else s}))
    return pd.concat(frames).groupby("group").mean()["s"].mean()


def _isolated(x, labels, batch, rescale=True, iso_threshold=None):
    """scib-metrics' ``isolated_labels``."""
    labels, batch = np.asarray(labels), np.asarray(batch)
    pairs = pd.DataFrame({"label": labels, "batch": batch}).drop_duplicates()
    per_label = pairs.groupby("label").agg({"batch": "count"})["batch"]
    threshold = per_label.min() if iso_threshold is None else iso_threshold
    isolated = per_label[per_label <= threshold].index
    s = _silhouette(x, labels)
    if rescale:
        s = (s + 1) / 2
    return pd.Series({lab: s[labels == lab].mean() for lab in isolated}, dtype=float).mean()


def _data(n=300, d=6, types=5, batches=3, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, types, n)
    batch = rng.integers(0, batches, n)
    x = rng.normal(size=(n, d)) + 3 * labels[:, None] * rng.random(d) + 0.5 * batch[:, None]
    return x.astype(dtype), labels, batch


@pytest.mark.parametrize("metric", ["euclidean", "cosine", "sqeuclidean", "manhattan"])
def test_silhouette_label_is_the_rescaled_mean(metric) -> None:
    x, labels, _ = _data(seed=1)
    want = _silhouette(x, labels, metric).mean()
    assert fcm.silhouette_label(x, labels, metric=metric) == pytest.approx(
        (want + 1) / 2, rel=1e-12
    )
    assert fcm.silhouette_label(x, labels, rescale=False, metric=metric) == pytest.approx(
        want, rel=1e-12
    )
    if metric != "sqeuclidean":
        assert fcm.silhouette_label(x, labels, rescale=False, metric=metric) == pytest.approx(
            fcm.silhouette_score(x, labels, metric=metric), rel=1e-14
        )


@pytest.mark.parametrize("between", ["nearest", "mean_other", "furthest"])
@pytest.mark.parametrize("metric", ["euclidean", "cosine", "manhattan"])
def test_silhouette_batch_equals_its_definition(metric, between) -> None:
    x, labels, batch = _data(seed=2)
    # a label of one batch, and one with as many batches as cells: both left out
    labels[:4], batch[:4] = 7, 0
    labels[4:6], batch[4:6] = 8, [0, 1]
    for rescale in (True, False):
        want = _batch(x, labels, batch, rescale, metric, between)
        got = fcm.silhouette_batch(
            x, labels, batch, rescale, metric=metric, between_cluster_distances=between
        )
        assert got == pytest.approx(want, rel=1e-12)


def test_bras_is_the_cosine_batch_silhouette_against_all_other_batches() -> None:
    x, labels, batch = _data(seed=3, d=10)
    want = _batch(x, labels, batch, True, "cosine", "mean_other")
    assert fcm.bras(x, labels, batch) == pytest.approx(want, rel=1e-12)
    want = _batch(x, labels, batch, True, "euclidean", "furthest")
    got = fcm.bras(x, labels, batch, metric="euclidean", between_cluster_distances="furthest")
    assert got == pytest.approx(want, rel=1e-12)


def test_isolated_labels_equals_its_definition() -> None:
    x, labels, batch = _data(seed=4)
    # label 0 in batch 0 only, label 1 in batches 0 and 1: isolated at the threshold 1 and 2
    batch[labels == 0] = 0
    batch[labels == 1] = np.where(batch[labels == 1] == 2, 1, batch[labels == 1])
    for threshold in (None, 1, 2, 3):
        for rescale in (True, False):
            want = _isolated(x, labels, batch, rescale, threshold)
            got = fcm.isolated_labels(x, labels, batch, rescale, threshold)
            assert got == pytest.approx(want, rel=1e-12)
    assert np.isnan(fcm.isolated_labels(x, labels, batch, iso_threshold=0))


def test_labels_of_every_type_and_float32() -> None:
    x, labels, batch = _data(seed=5)
    names = np.array(["T", "B", "NK", "mono", "DC"])[labels]
    cats = pd.Categorical(names)
    want = fcm.silhouette_batch(x, labels, batch)
    assert fcm.silhouette_batch(x, cats, [f"b{b}" for b in batch]) == pytest.approx(want, rel=1e-14)
    assert fcm.isolated_labels(x, pd.Series(names), batch) == pytest.approx(
        fcm.isolated_labels(x, labels, batch), rel=1e-14
    )
    # float32 input: float32 distances, float64 sums
    got = fcm.silhouette_batch(x.astype(np.float32), labels, batch)
    assert got == pytest.approx(want, rel=1e-5)


def test_one_label_scores_zero_before_rescaling() -> None:
    x, _, _ = _data(n=40, seed=6)
    assert fcm.silhouette_label(x, np.zeros(40, dtype=int)) == 0.5


def test_bad_inputs_raise_one_clear_error() -> None:
    x, labels, batch = _data(n=50, seed=7)
    with pytest.raises(ValueError, match="between_cluster_distances"):
        fcm.silhouette_batch(x, labels, batch, between_cluster_distances="median")
    with pytest.raises(fcm.InvalidParameterError, match="'metric' parameter"):
        fcm.silhouette_label(x, labels, metric="chebyshev")
    with pytest.raises(ValueError, match="no label has cells of more than one batch"):
        fcm.silhouette_batch(x, labels, np.zeros(50, dtype=int))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fcm.bras(x, labels, batch[:-1])
    with pytest.raises(ValueError, match="NaN"):
        fcm.silhouette_label(np.where(x > 1, np.nan, x), labels)
    with pytest.raises(ValueError, match="missing"):
        fcm.isolated_labels(x, np.where(labels == 0, None, labels.astype(object)), batch)


def _scib_metrics():
    # umap (imported by scib-metrics) warns when TensorFlow is absent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pytest.importorskip("scib_metrics")


def test_equals_scib_metrics() -> None:
    sm = _scib_metrics()
    x, labels, batch = _data(n=600, d=8, seed=8, dtype=np.float32)
    batch[labels == 0] = 0
    # scib-metrics computes in float32 on JAX: it agrees to about 1e-6 here
    tol = {"rel": 2e-5, "abs": 2e-6}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = {
            "label": sm.silhouette_label(x, labels),
            "label_cos": sm.silhouette_label(x, labels, metric="cosine"),
            "batch": sm.silhouette_batch(x, labels, batch),
            "batch_far": sm.silhouette_batch(
                x, labels, batch, between_cluster_distances="furthest"
            ),
            "bras": sm.bras(x, labels, batch),
            "isolated": sm.isolated_labels(x, labels, batch),
        }
    assert fcm.silhouette_label(x, labels) == pytest.approx(theirs["label"], **tol)
    assert fcm.silhouette_label(x, labels, metric="cosine") == pytest.approx(
        theirs["label_cos"], **tol
    )
    assert fcm.silhouette_batch(x, labels, batch) == pytest.approx(theirs["batch"], **tol)
    assert fcm.silhouette_batch(
        x, labels, batch, between_cluster_distances="furthest"
    ) == pytest.approx(theirs["batch_far"], **tol)
    assert fcm.bras(x, labels, batch) == pytest.approx(theirs["bras"], **tol)
    assert fcm.isolated_labels(x, labels, batch) == pytest.approx(theirs["isolated"], **tol)


def test_in_the_catalogue_as_an_embeddings_measures() -> None:
    pytest.importorskip("pandas")
    table = fcm.measures("embedding")
    for name in ("silhouette_label", "silhouette_batch", "bras", "isolated_labels"):
        assert table.loc[name, "kind"] == "embedding"
        assert table.loc[name, "family"] == "silhouette"
