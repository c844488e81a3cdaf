"""Scores of an embedding: the silhouette, Calinski-Harabasz, Davies-Bouldin, consensus_score
and expected_mutual_information against scikit-learn.

Values: float64 to 1e-10 relative. float32: the core computes float32 distances with float64
sums, scikit-learn float32 distances (Euclidean ones upcast to float64 by chunks) summed into
float32, so the two agree to float32's precision only: 1e-4 relative and 1e-5 absolute on each
sample's coefficient of random data (coefficients near 0 have no relative precision); where
points repeat, the float32 form ``|x|^2 + |y|^2 - 2 x.y`` gives two equal points a distance of
up to ``sqrt(eps32) |x|`` instead of 0, and the coefficients then agree to 5e-3 absolute (the
worst found on integer points of norm up to 3). Errors: scikit-learn's
type and message, compared with what scikit-learn 1.9 raises on the same input. Every label
type gives the bits of its integer codes; several labelings the bits of the calls one by one;
one and two threads the same bits.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn.metrics as skm
import sklearn.metrics.cluster as skc
from hypothesis import given
from hypothesis import strategies as st

import fastcluster_metrics as fcm

METRICS = ["euclidean", "sqeuclidean", "cosine", "manhattan", "l2", "l1", "cityblock"]
F64 = {"rtol": 1e-10, "atol": 1e-12}
F32 = {"rtol": 1e-4, "atol": 1e-5}
F32_TIES = {"rtol": 1e-4, "atol": 5e-3}


def _blobs(n: int = 120, d: int = 5, k: int = 4, seed: int = 0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    centres = rng.normal(0, 3, (k, d))
    x = centres[labels] + rng.normal(0, 1, (n, d))
    return x.astype(dtype), labels


def _tol(dtype) -> dict[str, float]:
    return F32 if np.dtype(dtype) == np.float32 else F64


def _approx(value, tol):
    return pytest.approx(value, rel=tol["rtol"], abs=tol["atol"])


# --------------------------------------------------------------------------------------------
# Every name of sklearn.metrics.cluster
# --------------------------------------------------------------------------------------------


def test_every_name_of_sklearn_metrics_cluster_is_here():
    missing = [name for name in skc.__all__ if not hasattr(fcm, name)]
    assert not missing
    for name in (
        "silhouette_samples",
        "silhouette_score",
        "calinski_harabasz_score",
        "davies_bouldin_score",
        "consensus_score",
        "expected_mutual_information",
    ):
        assert name in fcm.__all__


def test_the_import_stays_numpy_only():
    code = (
        "import sys, fastcluster_metrics;"
        "print(sorted(m for m in ('scipy', 'sklearn', 'pandas', 'polars') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------------------------
# The silhouette against scikit-learn
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_silhouette_matches_sklearn(metric, dtype, order):
    x, labels = _blobs(dtype=dtype)
    x = np.asarray(x, order=order)
    want = skm.silhouette_samples(x, labels, metric=metric)
    got = fcm.silhouette_samples(x, labels, metric=metric)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, **_tol(dtype))
    score = fcm.silhouette_score(x, labels, metric=metric)
    assert isinstance(score, float)
    assert score == _approx(skm.silhouette_score(x, labels, metric=metric), _tol(dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_precomputed_matches_sklearn(dtype):
    x, labels = _blobs(dtype=dtype)
    d = skm.pairwise_distances(x).astype(dtype)
    np.fill_diagonal(d, 0)
    want = skm.silhouette_samples(d, labels, metric="precomputed")
    got = fcm.silhouette_samples(d, labels, metric="precomputed")
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, **_tol(dtype))
    np.testing.assert_allclose(
        fcm.silhouette_samples(np.asfortranarray(d), labels, metric="precomputed"), got, **F64
    )


def test_integers_lists_frames_and_sparse_match_sklearn():
    x, labels = _blobs(n=60)
    want = skm.silhouette_samples(x, labels)
    frame = pd.DataFrame(x, columns=[f"c{i}" for i in range(x.shape[1])])
    np.testing.assert_allclose(fcm.silhouette_samples(frame, labels), want, **F64)
    np.testing.assert_allclose(fcm.silhouette_samples(x.tolist(), labels.tolist()), want, **F64)
    for container in (sp.csr_matrix, sp.csc_matrix, sp.csr_array, sp.coo_matrix):
        sparse = container(np.where(np.abs(x) < 1, 0, x))
        np.testing.assert_allclose(
            fcm.silhouette_samples(sparse, labels), skm.silhouette_samples(sparse, labels), **F64
        )
    ints = np.round(x * 10).astype(np.int32)
    np.testing.assert_allclose(
        fcm.silhouette_samples(ints, labels), skm.silhouette_samples(ints, labels), **F64
    )
    d = np.round(skm.pairwise_distances(x) * 10).astype(np.int64)
    np.testing.assert_allclose(
        fcm.silhouette_samples(d, labels, metric="precomputed"),
        skm.silhouette_samples(d, labels, metric="precomputed"),
        **F64,
    )


def test_polars_frame():
    pl = pytest.importorskip("polars")
    x, labels = _blobs(n=50)
    frame = pl.DataFrame({f"c{i}": x[:, i] for i in range(x.shape[1])})
    np.testing.assert_allclose(
        fcm.silhouette_samples(frame, labels), skm.silhouette_samples(x, labels), **F64
    )
    assert fcm.calinski_harabasz_score(frame, labels) == pytest.approx(
        skm.calinski_harabasz_score(x, labels), rel=1e-10
    )


def test_edge_cases_match_sklearn():
    # a cluster of one sample, identical samples, a zero row under cosine
    x = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [2.0, 1.0], [3.0, 3.0], [3.0, 3.0]])
    labels = np.array([0, 1, 1, 1, 2, 2])
    for metric in METRICS:
        np.testing.assert_allclose(
            fcm.silhouette_samples(x, labels, metric=metric),
            skm.silhouette_samples(x, labels, metric=metric),
            **F64,
        )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_zero_row_under_cosine_matches_sklearn(dtype):
    # sklearn's normalize leaves a zero row at zero: its similarity with every row is 0, its
    # distance to itself 0 (the diagonal is set to 0)
    x = np.array([[-1.0, 0], [0, 0], [3.0, 1], [2.0, 2], [1.0, -1], [-2.0, 3]], dtype=dtype)
    labels = np.array([0, 0, 0, 0, 1, 1])
    np.testing.assert_allclose(
        fcm.silhouette_samples(x, labels, metric="cosine"),
        skm.silhouette_samples(x, labels, metric="cosine"),
        **_tol(dtype),
    )


def _davies_bouldin(x, labels):
    """The textbook Davies-Bouldin index, spreads as direct distances to the centroids, with
    scikit-learn's conventions (0 when every spread or every centroid distance is 0; a pair
    of clusters on one centroid counts 0)."""
    ks = np.unique(labels)
    cent = np.array([x[labels == k].mean(axis=0) for k in ks])
    spread = np.array(
        [np.linalg.norm(x[labels == k] - c, axis=1).mean() for k, c in zip(ks, cent, strict=True)]
    )
    apart = np.linalg.norm(cent[:, None, :] - cent[None, :, :], axis=-1)
    if np.allclose(spread, 0) or np.allclose(apart, 0):
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):  # the diagonal, 0 / 0
        ratio = np.where(apart == 0, 0.0, (spread[:, None] + spread[None, :]) / apart)
    return float(ratio.max(axis=1).mean())


def test_davies_bouldin_of_a_singleton_cluster_is_exact():
    # A cluster of one sample has a spread of exactly 0. scikit-learn takes the spreads from
    # its Euclidean distances (|x|^2 + |c|^2 - 2 x.c), whose rounding leaves about 1e-8 of
    # |x| there: it agrees to 1e-7, the definition to 1e-12.
    rng = np.random.default_rng(1)
    for _ in range(20):
        x = rng.normal(size=(4, 4))
        labels = np.array([1, 1, 0, 1])
        got = fcm.davies_bouldin_score(x, labels)
        assert got == pytest.approx(_davies_bouldin(x, labels), rel=1e-12)
        assert got == pytest.approx(skm.davies_bouldin_score(x, labels), rel=1e-7)


@pytest.mark.parametrize("metric", ["chebyshev", "minkowski", "correlation"])
def test_other_metrics_and_callables_go_through_sklearn(metric):
    x, labels = _blobs(n=40)
    np.testing.assert_array_equal(
        fcm.silhouette_samples(x, labels, metric=metric),
        skm.silhouette_samples(x, labels, metric=metric),
    )

    def l1(a, b):
        return float(np.abs(a - b).sum())

    np.testing.assert_allclose(
        fcm.silhouette_samples(x, labels, metric=l1),
        skm.silhouette_samples(x, labels, metric="manhattan"),
        **F64,
    )
    assert fcm.silhouette_score(x, labels, metric="minkowski", p=3) == (
        skm.silhouette_score(x, labels, metric="minkowski", p=3)
    )


@pytest.mark.parametrize("metric", ["euclidean", "cosine", "precomputed", "chebyshev"])
@pytest.mark.parametrize("sample_size", [1, 10, 57, 500])
def test_sample_size_draws_sklearns_samples(metric, sample_size):
    x, labels = _blobs(n=120)
    data = skm.pairwise_distances(x) if metric == "precomputed" else x
    for seed in (0, 7, np.random.RandomState(3)):
        kwargs = {"metric": metric, "sample_size": sample_size}
        ours_seed = seed if isinstance(seed, int) else np.random.RandomState(3)
        theirs_seed = seed if isinstance(seed, int) else np.random.RandomState(3)
        try:
            want = skm.silhouette_score(data, labels, random_state=theirs_seed, **kwargs)
        except ValueError as e:
            with pytest.raises(ValueError, match=str(e).replace("(", r"\(").replace(")", r"\)")):
                fcm.silhouette_score(data, labels, random_state=ours_seed, **kwargs)
            continue
        got = fcm.silhouette_score(data, labels, random_state=ours_seed, **kwargs)
        assert got == _approx(want, F64)
    # None: numpy's global RandomState, as scikit-learn's
    np.random.seed(11)  # noqa: NPY002 - the global RandomState is what None means
    want = skm.silhouette_score(data, labels, metric=metric, sample_size=60)
    np.random.seed(11)  # noqa: NPY002 - the global RandomState is what None means
    assert fcm.silhouette_score(data, labels, metric=metric, sample_size=60) == _approx(want, F64)


# --------------------------------------------------------------------------------------------
# Label types and missing labels
# --------------------------------------------------------------------------------------------


def _label_forms(codes: np.ndarray) -> dict[str, object]:
    names = np.array(["delta", "alpha", "charlie", "bravo", "echo"])
    strings = names[codes]
    forms: dict[str, object] = {
        "int8": codes.astype(np.int8),
        "uint64 spread": codes.astype(np.uint64) * 1000 + 7,
        "negative": codes - 2,
        "float": codes.astype(np.float64),
        "list": codes.tolist(),
        "str": strings,
        "bytes": strings.astype("S"),
        "object str": strings.astype(object),
        "list of str": strings.tolist(),
        "categorical": pd.Categorical(strings, categories=names[::-1]),
        "category series": pd.Series(strings, dtype="category"),
        "series": pd.Series(codes),
        "nullable": pd.array(codes, dtype="Int64"),
    }
    try:
        import pyarrow as pa

        forms["arrow"] = pa.array(strings)
    except ImportError:
        pass
    try:
        import polars as pl

        forms["polars"] = pl.Series(strings)
    except ImportError:
        pass
    return forms


def test_every_label_type_gives_the_bits_of_its_codes():
    x, codes = _blobs(n=80, k=5)
    want = fcm.silhouette_samples(x, codes)
    ch, db = fcm.calinski_harabasz_score(x, codes), fcm.davies_bouldin_score(x, codes)
    for name, labels in _label_forms(codes).items():
        np.testing.assert_array_equal(fcm.silhouette_samples(x, labels), want, err_msg=name)
        # the clusters are numbered in label order, which changes the order of their sums
        assert fcm.calinski_harabasz_score(x, labels) == pytest.approx(ch, rel=1e-13), name
        assert fcm.davies_bouldin_score(x, labels) == pytest.approx(db, rel=1e-13), name


def test_missing_labels():
    x, codes = _blobs(n=60)
    labels = codes.astype(np.float64)
    labels[[3, 10]] = np.nan
    with pytest.raises(ValueError, match=r"^Input y contains NaN\. 2 of 60 labels are missing"):
        fcm.silhouette_samples(x, labels)
    with pytest.raises(ValueError, match="labels has missing labels"):
        fcm.silhouette_score(x, pd.Categorical(np.where(np.isnan(labels), None, codes)))
    keep = ~np.isnan(labels)
    got = fcm.silhouette_samples(x, labels, missing="drop")
    assert np.isnan(got[~keep]).all()
    np.testing.assert_array_equal(got[keep], fcm.silhouette_samples(x[keep], codes[keep]))
    assert fcm.silhouette_score(x, labels, missing="drop") == fcm.silhouette_score(
        x[keep], codes[keep]
    )
    as_label = np.where(keep, codes, 99)
    np.testing.assert_array_equal(
        fcm.silhouette_samples(x, labels, missing="cluster"), fcm.silhouette_samples(x, as_label)
    )
    d = skm.pairwise_distances(x)
    np.testing.assert_allclose(
        fcm.silhouette_samples(d, labels, metric="precomputed", missing="drop")[keep],
        fcm.silhouette_samples(x[keep], codes[keep]),
        **F64,
    )
    assert fcm.calinski_harabasz_score(x, labels, missing="drop") == (
        fcm.calinski_harabasz_score(x[keep], codes[keep])
    )
    assert fcm.davies_bouldin_score(x, labels, missing="cluster") == (
        fcm.davies_bouldin_score(x, as_label)
    )
    with pytest.raises(ValueError, match="'missing' parameter of silhouette_samples"):
        fcm.silhouette_samples(x, codes, missing="ignore")


# --------------------------------------------------------------------------------------------
# Many labelings in one call
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean", "cosine", "manhattan"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_many_labelings_equal_the_calls_one_by_one(metric, dtype):
    x, _ = _blobs(n=150, dtype=dtype)
    rng = np.random.default_rng(5)
    sweep = np.stack([rng.integers(0, k, x.shape[0]) for k in (2, 3, 5, 8, 20)])
    rows = fcm.silhouette_samples(x, sweep, metric=metric)
    assert rows.shape == sweep.shape
    scores = fcm.silhouette_score(x, sweep, metric=metric)
    assert scores.shape == (sweep.shape[0],)
    for j, labels in enumerate(sweep):
        np.testing.assert_array_equal(rows[j], fcm.silhouette_samples(x, labels, metric=metric))
        assert scores[j] == fcm.silhouette_score(x, labels, metric=metric)
    as_list = [sweep[0], sweep[1].tolist(), pd.Series(sweep[2]), sweep[3].astype(str), sweep[4]]
    np.testing.assert_array_equal(fcm.silhouette_samples(x, as_list, metric=metric), rows)
    sampled = fcm.silhouette_score(x, sweep, metric=metric, sample_size=70, random_state=2)
    for j, labels in enumerate(sweep):
        assert sampled[j] == fcm.silhouette_score(
            x, labels, metric=metric, sample_size=70, random_state=2
        )


def test_many_labelings_precomputed_and_fallback():
    x, _ = _blobs(n=90)
    rng = np.random.default_rng(1)
    sweep = np.stack([rng.integers(0, k, x.shape[0]) for k in (2, 4, 6)])
    d = skm.pairwise_distances(x)
    for data, metric in ((d, "precomputed"), (x, "chebyshev")):
        rows = fcm.silhouette_samples(data, sweep, metric=metric)
        for j, labels in enumerate(sweep):
            np.testing.assert_array_equal(
                rows[j], fcm.silhouette_samples(data, labels, metric=metric)
            )


# --------------------------------------------------------------------------------------------
# Calinski-Harabasz and Davies-Bouldin
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("func", ["calinski_harabasz_score", "davies_bouldin_score"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("order", ["C", "F"])
def test_dispersion_matches_sklearn(func, dtype, order):
    x, labels = _blobs(n=500, d=7, k=6)
    x = np.asarray(x * (10 if dtype == np.int64 else 1), order=order).astype(dtype)
    got = getattr(fcm, func)(x, labels)
    want = getattr(skm, func)(x, labels)
    assert isinstance(got, float)
    # scikit-learn computes Calinski-Harabasz in float64 even for float32 data
    assert got == pytest.approx(want, rel=1e-6 if dtype == np.float32 else 1e-10)
    frame = pd.DataFrame(x)
    assert getattr(fcm, func)(frame, labels) == got


def test_dispersion_edge_cases_match_sklearn():
    cases = [
        (np.ones((10, 2)), [0] * 5 + [1] * 5),
        ([[-1, -1], [1, 1]] * 10, [0] * 10 + [1] * 10),
        ([[0, 0], [2, 2], [3, 3], [5, 5]], [0, 0, 1, 2]),
        ([[0, 0], [1, 1]] * 5 + [[3, 3], [4, 4]] * 5, [0] * 10 + [1] * 10),
    ]
    for x, labels in cases:
        for func in ("calinski_harabasz_score", "davies_bouldin_score"):
            assert getattr(fcm, func)(x, labels) == pytest.approx(
                getattr(skm, func)(x, labels), rel=1e-10, abs=1e-12
            )


# --------------------------------------------------------------------------------------------
# Bad inputs: scikit-learn's error types and messages
# --------------------------------------------------------------------------------------------


def _x():
    return np.random.default_rng(0).normal(size=(10, 3))


def _labels():
    return np.array([0, 1] * 5)


def _with(value, at):
    x = _x()
    x[at] = value
    return x


def _bad_diag():
    d = skm.pairwise_distances(_x())
    d[2, 2] = 1.0
    return d


def _negative():
    d = skm.pairwise_distances(_x())
    d[1, 2] = -1.0
    return d


BAD = {
    "nan X": (lambda: (_with(np.nan, (3, 1)), _labels()), {}),
    "inf X": (lambda: (_with(np.inf, (3, 1)), _labels()), {}),
    "-inf X": (lambda: (_with(-np.inf, (0, 0)), _labels()), {}),
    "1-D X": (lambda: (np.arange(10.0), _labels()), {}),
    "scalar X": (lambda: (np.float64(3.0), _labels()), {}),
    "3-D X": (lambda: (np.zeros((10, 2, 2)), _labels()), {}),
    "no samples": (lambda: (np.zeros((0, 3)), np.zeros(0)), {}),
    "no features": (lambda: (np.zeros((10, 0)), _labels()), {}),
    "strings X": (lambda: (np.array([["a", "b"]] * 10), _labels()), {}),
    "complex X": (lambda: (_x() + 1j, _labels()), {}),
    "lengths": (lambda: (_x(), np.array([0, 1] * 4)), {}),
    "one label": (lambda: (_x(), np.zeros(10)), {}),
    "all labels": (lambda: (_x(), np.arange(10)), {}),
    "2-D labels": (lambda: (_x(), np.zeros((10, 2))), {}),
    "inf labels": (lambda: (_x(), np.array([0.0, 1.0] * 4 + [np.inf, 1.0])), {}),
    "scalar labels": (lambda: (_x(), 3), {}),
    "X not array": (lambda: (3, _labels()), {}),
    "diagonal": (lambda: (_bad_diag(), _labels()), {"metric": "precomputed"}),
    "not square": (lambda: (_x(), _labels()), {"metric": "precomputed"}),
    "negative": (lambda: (_negative(), _labels()), {"metric": "precomputed"}),
    "unknown metric": (lambda: (_x(), _labels()), {"metric": "nope"}),
    "metric not str": (lambda: (_x(), _labels()), {"metric": 3}),
}


def _outcome(func, *args, **kwargs):
    try:
        func(*args, **kwargs)
    except Exception as e:  # the error is the result here
        return type(e), str(e)
    return None


def _same_error(ours, theirs, case):
    assert theirs is not None, case
    assert ours is not None, case
    assert issubclass(ours[0], theirs[0]) or theirs[0].__name__ == ours[0].__name__, case
    if case == "unknown metric" or case == "metric not str":
        # scikit-learn lists its metrics from a set, in an order that changes between runs
        assert ours[1].split(" among ")[0] == theirs[1].split(" among ")[0]
    else:
        assert ours[1] == theirs[1], case


@pytest.mark.parametrize("case", list(BAD))
@pytest.mark.parametrize("func", ["silhouette_samples", "silhouette_score"])
def test_silhouette_bad_inputs_raise_sklearns_errors(case, func):
    make, kwargs = BAD[case]
    theirs = _outcome(getattr(skm, func), *make(), **kwargs)
    ours = _outcome(getattr(fcm, func), *make(), **kwargs)
    _same_error(ours, theirs, case)


DISPERSION_BAD = [
    c
    for c in BAD
    if not BAD[c][1] and c not in ("2-D labels",)  # scikit-learn: a warning, then a value
]


@pytest.mark.parametrize("case", [*DISPERSION_BAD, "sparse"])
@pytest.mark.parametrize("func", ["calinski_harabasz_score", "davies_bouldin_score"])
def test_dispersion_bad_inputs_raise_sklearns_errors(case, func):
    if case == "sparse":

        def make():
            return sp.csr_matrix(_x()), _labels()

    else:
        make = BAD[case][0]
    theirs = _outcome(getattr(skm, func), *make())
    ours = _outcome(getattr(fcm, func), *make())
    _same_error(ours, theirs, case)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"sample_size": 0},
        {"sample_size": 2.5},
        {"sample_size": "3"},
        {"sample_size": 5, "random_state": -1},
        {"sample_size": 5, "random_state": "seed"},
        {"sample_size": 5, "random_state": 2**32},
        {"sample_size": 5, "random_state": np.random.default_rng(0)},
        {"sample_size": True, "random_state": 0},
    ],
)
def test_silhouette_score_parameters_raise_sklearns_errors(kwargs):
    theirs = _outcome(skm.silhouette_score, _x(), _labels(), **kwargs)
    ours = _outcome(fcm.silhouette_score, _x(), _labels(), **kwargs)
    _same_error(ours, theirs, str(kwargs))


def test_nan_labels_give_sklearns_message_first():
    labels = np.array([0.0, 1.0] * 4 + [np.nan, 1.0])
    theirs = _outcome(skm.silhouette_samples, _x(), labels)
    ours = _outcome(fcm.silhouette_samples, _x(), labels)
    assert theirs is not None and ours is not None
    assert ours[0] is theirs[0] and ours[1].startswith(theirs[1])


def test_check_number_of_labels_message():
    with pytest.raises(
        ValueError,
        match=r"^Number of labels is 1\. Valid values are 2 to n_samples - 1 \(inclusive\)$",
    ):
        fcm.davies_bouldin_score(_x(), np.zeros(10))


# --------------------------------------------------------------------------------------------
# consensus_score and expected_mutual_information
# --------------------------------------------------------------------------------------------


def _biclusters(rng, k, n_rows, n_cols):
    return rng.random((k, n_rows)) < 0.4, rng.random((k, n_cols)) < 0.4


def test_consensus_score_matches_sklearn():
    rng = np.random.default_rng(4)
    for ka, kb in ((3, 3), (4, 2), (1, 5)):
        a, b = _biclusters(rng, ka, 30, 20), _biclusters(rng, kb, 30, 20)
        assert fcm.consensus_score(a, b) == pytest.approx(skm.consensus_score(a, b), rel=1e-12)
        as_ints = tuple(side.astype(np.int64) for side in a), tuple(side.tolist() for side in b)
        assert fcm.consensus_score(*as_ints) == pytest.approx(skm.consensus_score(a, b))
        weights = tuple(side * rng.random(side.shape) for side in a)
        assert fcm.consensus_score(weights, b) == pytest.approx(
            skm.consensus_score(weights, b), rel=1e-12
        )

        def overlap(ar, ac, br, bc):
            return float((ar & br).sum()) / ar.size

        assert fcm.consensus_score(a, b, similarity=overlap) == (
            skm.consensus_score(a, b, similarity=overlap)
        )


@pytest.mark.parametrize(
    "args",
    [
        ([[1, 0]], ([[1, 0]], [[1]])),
        (([[1, 0]], [[1]]), [[1, 0]]),
        (([[1, 0]], [[1]]), ([[1, 0]], [[1]]), "dice"),
    ],
)
def test_consensus_score_bad_parameters(args):
    a, b, *rest = args
    kwargs = {"similarity": rest[0]} if rest else {}
    theirs = _outcome(skm.consensus_score, a, b, **kwargs)
    ours = _outcome(fcm.consensus_score, a, b, **kwargs)
    _same_error(ours, theirs, str(args))


def test_expected_mutual_information_matches_sklearn():
    rng = np.random.default_rng(9)
    for shape in ((2, 2), (3, 5), (10, 4), (1, 4), (30, 30)):
        table = rng.integers(0, 20, shape)
        n = int(table.sum())
        want = skc.expected_mutual_information(table, n)
        got = fcm.expected_mutual_information(table, n)
        assert isinstance(got, float)
        assert got == pytest.approx(want, rel=1e-10, abs=1e-14)
        assert fcm.expected_mutual_information(sp.csr_matrix(table), n) == got
    table = np.array([[3, 1], [2, 5]])
    assert fcm.expected_mutual_information(table, 20) == skc.expected_mutual_information(table, 20)


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


@st.composite
def _embeddings(draw):
    n = draw(st.integers(3, 40))
    d = draw(st.integers(1, 5))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)).astype(dtype)
    if draw(st.booleans()):
        x = np.round(x)  # ties and repeated points
    k = draw(st.integers(2, n - 1))
    labels = np.concatenate([np.arange(k), rng.integers(0, k, n - k)])
    rng.shuffle(labels)
    return x, labels, draw(st.sampled_from(METRICS))


@given(_embeddings())
def test_silhouette_property_against_sklearn(case):
    x, labels, metric = case
    want = skm.silhouette_samples(x, labels, metric=metric)
    got = fcm.silhouette_samples(x, labels, metric=metric)
    # Repeated points: both take their distance from |x|^2 + |y|^2 - 2 x.y, whose rounding
    # leaves some 1e-8 of |x| where it should be 0, each its own way (random points: 1e-9).
    tol = F32_TIES if x.dtype == np.float32 else {"rtol": 1e-7, "atol": 1e-7}
    np.testing.assert_allclose(got, want, **tol)
    assert np.all(np.abs(got) <= 1 + 1e-6)


@given(_embeddings())
def test_dispersion_property_against_sklearn(case):
    x, labels, _ = case
    x = x.astype(np.float64)
    want = skm.calinski_harabasz_score(x, labels)
    assert fcm.calinski_harabasz_score(x, labels) == pytest.approx(want, rel=1e-9, abs=1e-9)
    # the definition, not scikit-learn, whose spreads of one-sample clusters are rounding
    # noise (test_davies_bouldin_of_a_singleton_cluster_is_exact)
    want = _davies_bouldin(x, labels)
    assert fcm.davies_bouldin_score(x, labels) == pytest.approx(want, rel=1e-9, abs=1e-9)


# --------------------------------------------------------------------------------------------
# Threads
# --------------------------------------------------------------------------------------------

THREADS_SCRIPT = """
import hashlib, numpy as np, fastcluster_metrics as fcm
rng = np.random.default_rng(0)
x = rng.normal(size=(3000, 20))
sweep = np.stack([rng.integers(0, k, 3000) for k in (2, 7, 30)])
h = hashlib.sha256()
for metric in ("euclidean", "sqeuclidean", "cosine", "manhattan"):
    for data in (x, x.astype(np.float32)):
        h.update(fcm.silhouette_samples(data, sweep, metric=metric).tobytes())
d = np.sqrt(((x[:800, None, :] - x[None, :800, :]) ** 2).sum(-1))
h.update(fcm.silhouette_samples(d, sweep[:, :800], metric="precomputed").tobytes())
big = rng.normal(size=(200_000, 8))
labels = rng.integers(0, 20, 200_000)
h.update(np.float64(fcm.calinski_harabasz_score(big, labels)).tobytes())
h.update(np.float64(fcm.davies_bouldin_score(big, labels)).tobytes())
print(fcm.num_threads(), h.hexdigest())
"""


def _run(threads: int) -> str:
    env = dict(os.environ, FASTCLUSTER_METRICS_NUM_THREADS=str(threads))
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(THREADS_SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_one_and_two_threads_give_the_same_bits():
    one, two = _run(1), _run(2)
    assert one.split()[0] == "1" and two.split()[0] == "2"
    assert one.split()[1] == two.split()[1]


_READ_BY_THE_CORE = [
    ("calinski_harabasz_score", {}),
    ("davies_bouldin_score", {}),
    ("silhouette_score", {"metric": "sqeuclidean"}),
    ("silhouette_samples", {"metric": "cosine"}),
]


@pytest.mark.parametrize(("name", "kwargs"), _READ_BY_THE_CORE)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(
    ("bad", "what"), [(np.nan, "NaN"), (np.inf, "infinity"), (-np.inf, "infinity")]
)
def test_nan_left_to_the_core_gets_scikit_learns_messages(
    name: str, kwargs: dict, dtype: type, bad: float, what: str
) -> None:
    # These scores leave X's NaN to the core's first pass (one read of X fewer); the
    # messages, and their order before the labels' own errors, stay scikit-learn's.
    rng = np.random.default_rng(3)
    x = rng.normal(size=(50, 3)).astype(dtype)
    x[rng.integers(50), rng.integers(3)] = bad
    labels = rng.integers(0, 3, 50)
    for lab in (labels, np.zeros(50, dtype=int), labels[:40]):
        with pytest.raises(ValueError, match=f"^Input X contains {what}") as ours:
            getattr(fcm, name)(x, lab, **kwargs)
        with pytest.raises(ValueError) as theirs:
            getattr(skm, name)(x, lab, **kwargs)
        if name == "calinski_harabasz_score" and dtype == np.float32:
            # scikit-learn names float64 there (its cast); ours names X's own dtype
            assert (
                str(ours.value).split(" for dtype")[0] == str(theirs.value).split(" for dtype")[0]
            )
        else:
            assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(("name", "kwargs"), _READ_BY_THE_CORE)
def test_nan_in_a_dropped_sample_and_sums_that_overflow_are_refused(
    name: str, kwargs: dict
) -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(40, 2))
    labels = rng.integers(0, 3, 40).astype(float)
    labels[5] = np.nan
    x[5, 1] = np.nan
    with pytest.raises(ValueError, match=r"^Input X contains NaN"):
        getattr(fcm, name)(x, labels, missing="drop", **kwargs)
    # every value finite, their sums past float64: an error, not a silent inf or NaN
    huge = np.full((40, 2), np.finfo(np.float64).max)
    if name != "silhouette_samples":  # cosine scales each row first
        with pytest.raises(ValueError, match="too large to add up"):
            getattr(fcm, name)(huge, rng.integers(0, 3, 40), **kwargs)
