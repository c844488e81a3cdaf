"""Dask: the silhouette of a Dask array, each row block scored on a worker against all
samples, equals the in-memory one to the last bit."""

import numpy as np
import pandas as pd
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

import fastcluster_metrics as fcm  # noqa: E402
import fastcluster_metrics.dask as fcm_dask  # noqa: E402

METRICS = ["euclidean", "sqeuclidean", "cosine", "manhattan"]


def blobs(n, d=7, k=5, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=4.0, size=(k, d))
    labels = rng.integers(0, k, n)
    x = (centres[labels] + rng.normal(size=(n, d)) + 50.0).astype(dtype)
    return x, labels


# Chunks that cut the core's blocks of 256 rows anywhere, of every size down to one row.
CHUNKINGS = [(1300,), (256, 256, 788), (1, 300, 77, 500, 422), (650, 650)]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_samples_equal_the_in_memory_ones_bit_for_bit(metric, dtype):
    x, labels = blobs(1300, dtype=dtype)
    want = fcm.silhouette_samples(x, labels, metric=metric)
    for chunks in CHUNKINGS:
        got = fcm_dask.silhouette_samples(
            da.from_array(x, chunks=(chunks, 3)), labels, metric=metric
        )
        assert isinstance(got, da.Array)
        assert got.chunks == (chunks,)
        values = got.compute()
        assert values.dtype == want.dtype
        np.testing.assert_array_equal(values, want)
    score = fcm_dask.silhouette_score(da.from_array(x, chunks=(400, 7)), labels, metric=metric)
    assert score == fcm.silhouette_score(x, labels, metric=metric)


def test_a_sweep_of_labelings_and_dask_labels():
    x, labels = blobs(900, k=6, seed=3)
    rng = np.random.default_rng(1)
    sweep = np.stack([labels] + [rng.integers(0, k, 900) for k in (2, 9, 40)])
    xd = da.from_array(x, chunks=(200, 7))
    want = fcm.silhouette_samples(x, sweep)
    got = fcm_dask.silhouette_samples(xd, sweep).compute()
    assert got.shape == (4, 900)
    np.testing.assert_array_equal(got, want)
    for j, row in enumerate(sweep):
        np.testing.assert_array_equal(got[j], fcm.silhouette_samples(x, row))
    scores = fcm_dask.silhouette_score(xd, [da.from_array(row, chunks=300) for row in sweep])
    np.testing.assert_array_equal(scores, fcm.silhouette_score(x, sweep))
    names = np.array(["B", "NK", "T", "mono", "DC", "pDC"])[labels]
    series = dd.from_pandas(pd.Series(names), npartitions=3)
    assert fcm_dask.silhouette_score(xd, series) == fcm.silhouette_score(x, names)


def test_dropped_samples_are_nan_and_the_rest_unchanged():
    x, labels = blobs(800, seed=5)
    named = np.array(["a", "b", "c", "d", "e"], dtype=object)[labels]
    named[::7] = None
    xd = da.from_array(x, chunks=(130, 7))
    want = fcm.silhouette_samples(x, named, missing="drop")
    got = fcm_dask.silhouette_samples(xd, named, missing="drop").compute()
    assert np.isnan(got[::7]).all()
    np.testing.assert_array_equal(got, want)
    assert fcm_dask.silhouette_score(xd, named, missing="drop") == fcm.silhouette_score(
        x, named, missing="drop"
    )
    with pytest.raises(ValueError, match="missing"):
        fcm_dask.silhouette_score(xd, named)


def test_on_worker_processes():
    distributed = pytest.importorskip("distributed")
    x, labels = blobs(700, seed=2)
    with (
        distributed.LocalCluster(
            processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        got = fcm_dask.silhouette_samples(da.from_array(x, chunks=(180, 7)), labels).compute()
    np.testing.assert_array_equal(got, fcm.silhouette_samples(x, labels))


def test_bad_input_gets_the_in_memory_errors():
    x, labels = blobs(50)
    xd = da.from_array(x, chunks=(20, 7))
    with pytest.raises(ValueError, match=r"metrics .*'euclidean'.* not 'chebyshev'"):
        fcm_dask.silhouette_score(xd, labels, metric="chebyshev")
    with pytest.raises(ValueError, match="not 'precomputed'"):
        fcm_dask.silhouette_samples(xd, labels, metric="precomputed")
    with pytest.raises(ValueError, match="Expected 2D array"):
        fcm_dask.silhouette_samples(da.from_array(x[:, 0], chunks=10), labels)
    with pytest.raises(ValueError, match="Number of labels is 1"):
        fcm_dask.silhouette_score(xd, np.zeros(50, dtype=int))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fcm_dask.silhouette_score(xd, labels[:40])
    bad = x.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fcm_dask.silhouette_score(da.from_array(bad, chunks=(20, 7)), labels)


def test_docstring_examples():
    import doctest

    from fastcluster_metrics._embedding import distributed

    result = doctest.testmod(distributed, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 4
    assert result.failed == 0
