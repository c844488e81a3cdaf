"""Every accepted input type gives the result of the same partition as int64 codes."""

import numpy as np
import pytest
from helpers import LABEL_FUNCTIONS, assert_same_result, sklearn_function, sklearn_quiet

import fastcluster_metrics as fcm

# One labeling pair with 4 true classes and 3 clusters, used in every conversion below.
CODES_TRUE = np.array([0, 0, 1, 3, 2, 2, 1, 0, 3, 3, 2, 1, 0, 0, 2, 3, 1, 1, 2, 0])
CODES_PRED = np.array([1, 1, 0, 2, 2, 0, 0, 1, 2, 2, 2, 0, 1, 0, 2, 2, 0, 1, 2, 1])

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _convert(kind, codes):
    """The same partition as ``codes`` (and in the same sorted order) in another input type."""
    k = int(codes.max()) + 1
    if kind in [np.dtype(d).name for d in INT_DTYPES]:
        return np.arange(k, dtype=kind)[codes] * (3 if np.dtype(kind).itemsize > 1 else 1)
    if kind == "bool":
        return (codes % 2).astype(bool)
    if kind == "float64":
        return codes.astype(np.float64) * 2.0 - 1.0
    if kind == "float32":
        return codes.astype(np.float32) + 0.0
    if kind == "big-endian int64":
        return (codes * 10 - 7).astype(">i8")
    if kind == "big-endian uint32":
        return codes.astype(">u4")
    if kind == "big-endian float64":
        return codes.astype(">f8")
    if kind == "non-contiguous":
        return np.repeat(codes * 5, 2)[::2]
    if kind == "negative stride":
        return (codes * 5)[::-1]
    if kind == "column of a 2-D array":
        return np.stack([codes, -codes], axis=1)[:, 0]
    if kind == "list":
        return [int(c) for c in codes]
    if kind == "tuple":
        return tuple(int(c) for c in codes)
    if kind == "list of str":
        return [f"label-{c}" for c in codes]
    if kind == "tuple of str":
        return tuple(f"label-{c}" for c in codes)
    if kind == "unicode array":
        return np.array([f"é{c}" for c in codes])
    if kind == "bytes array":
        return np.array([f"b{c}".encode() for c in codes])
    if kind == "object array of str":
        return np.array([f"s{c}" for c in codes], dtype=object)
    if kind == "object array of int":
        return np.array([int(c) * 1000 for c in codes], dtype=object)
    if kind == "int64 extremes":
        return np.array([-(2**63), -1, 0, 2**63 - 1], dtype=np.int64)[codes]
    if kind == "uint64 extremes":
        return np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)[codes]
    if kind == "list of int64 extremes":
        return [[-(2**63), -1, 0, 2**63 - 1][c] for c in codes]
    raise AssertionError(kind)


KINDS = [
    *[np.dtype(d).name for d in INT_DTYPES],
    "bool",
    "float64",
    "float32",
    "big-endian int64",
    "big-endian uint32",
    "big-endian float64",
    "non-contiguous",
    "negative stride",
    "column of a 2-D array",
    "list",
    "tuple",
    "list of str",
    "tuple of str",
    "unicode array",
    "bytes array",
    "object array of str",
    "object array of int",
    "int64 extremes",
    "uint64 extremes",
    "list of int64 extremes",
]
# scikit-learn refuses bytes labels; ours accepts them (a deliberate difference).
SKLEARN_REFUSES = {"bytes array"}


def _recode(labels):
    """int64 codes of ``labels`` in the order np.unique sorts them."""
    return np.unique(np.asarray(labels), return_inverse=True)[1].ravel().astype(np.int64)


CLOSE = {"rel": 1e-13, "abs": 1e-15}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", LABEL_FUNCTIONS)
def test_same_result_as_int64_codes(name, kind):
    labels_true, labels_pred = _convert(kind, CODES_TRUE), _convert(kind, CODES_PRED)
    fn = getattr(fcm, name)
    ours = fn(labels_true, labels_pred)
    expected = fn(_recode(labels_true), _recode(labels_pred))
    assert_same_result(ours, expected, name, **CLOSE)
    if name != "purity_score" and kind not in SKLEARN_REFUSES:
        assert_same_result(ours, sklearn_function(name)(labels_true, labels_pred), name)


@pytest.mark.parametrize("kind", KINDS)
def test_entropy_accepts_every_type(kind):
    labels = _convert(kind, CODES_TRUE)
    ours = fcm.entropy(labels)
    assert_same_result(ours, fcm.entropy(_recode(labels)), "entropy", **CLOSE)
    if kind not in SKLEARN_REFUSES:
        assert_same_result(ours, sklearn_function("entropy")(labels), "entropy")


@pytest.mark.parametrize("kind", KINDS)
def test_mixed_types_on_the_two_sides(kind):
    """Each side is converted on its own: int codes against any other type."""
    labels_pred = _convert(kind, CODES_PRED)
    for name in ("adjusted_rand_score", "normalized_mutual_info_score", "purity_score"):
        ours = getattr(fcm, name)(CODES_TRUE, labels_pred)
        expected = getattr(fcm, name)(CODES_TRUE, _recode(labels_pred))
        assert ours == pytest.approx(expected, **CLOSE)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_full_range_of_each_integer_dtype(dtype):
    info = np.iinfo(dtype)
    labels_true = np.array([info.min, info.max, info.min, 0, info.max, 0, 1, 1], dtype=dtype)
    labels_pred = np.array([info.max, info.max, info.min, info.min, 0, 0, 1, 0], dtype=dtype)
    table = fcm.contingency_matrix(labels_true, labels_pred)
    np.testing.assert_array_equal(
        table, sklearn_function("contingency_matrix")(labels_true, labels_pred)
    )
    for name in ("adjusted_rand_score", "adjusted_mutual_info_score", "fowlkes_mallows_score"):
        ours = getattr(fcm, name)(labels_true, labels_pred)
        assert_same_result(ours, sklearn_function(name)(labels_true, labels_pred), name)


def test_uint64_labels_above_int64_range_stay_distinct():
    top = np.uint64(2**64 - 1)
    labels = np.array(
        [top, top - np.uint64(1), np.uint64(2**63), np.uint64(2**63 - 1)], dtype=np.uint64
    )
    table = fcm.contingency_matrix(labels, labels)
    np.testing.assert_array_equal(table, np.eye(4, dtype=np.int64))
    assert fcm.adjusted_rand_score(labels, [0, 0, 1, 1]) == pytest.approx(
        sklearn_function("adjusted_rand_score")(labels, [0, 0, 1, 1])
    )


def test_integral_floats_give_no_warning():
    labels_true = np.array([0.0, 1.0, 1.0, 2.0, -3.0])
    labels_pred = np.array([5.0, 5.0, 1.0, 1.0, 1.0], dtype=np.float32)
    # pytest's filterwarnings = error turns any warning into a failure here
    ours = fcm.adjusted_rand_score(labels_true, labels_pred)
    assert ours == sklearn_function("adjusted_rand_score")(labels_true, labels_pred)


def test_non_integral_floats_are_distinct_labels():
    labels_true = np.array([0.5, 0.25, 0.5, 1e-300, 1e15, 0.25])
    labels_pred = np.array([1, 1, 2, 2, 3, 3])
    with pytest.warns(UserWarning, match="Clustering metrics expects discrete values"):
        ours = fcm.adjusted_rand_score(labels_true, labels_pred)
    assert ours == sklearn_quiet("adjusted_rand_score", labels_true, labels_pred)


def test_contingency_matrix_of_non_integral_floats_does_not_warn():
    """scikit-learn's contingency_matrix does not check its labels, so it does not warn."""
    labels_true = np.array([0.5, 0.25, 0.5, 1e-300, 1e15, 0.25])
    labels_pred = np.array([1, 1, 2, 2, 3, 3])
    table = fcm.contingency_matrix(labels_true, labels_pred)  # any warning fails the test
    np.testing.assert_array_equal(
        table, sklearn_function("contingency_matrix")(labels_true, labels_pred)
    )


def test_negative_zero_and_zero_are_one_label():
    labels_true = np.array([0.0, -0.0, 1.0, 1.0])
    labels_pred = np.array([3, 3, 4, 4])
    assert fcm.adjusted_rand_score(labels_true, labels_pred) == 1.0
    assert fcm.contingency_matrix(labels_true, labels_pred).shape == (2, 2)


def test_large_codes_in_int8_are_not_truncated():
    labels = np.array([-128, 127, -128, 127, 0], dtype=np.int8)
    other = np.array([127, 127, -128, -128, 0], dtype=np.int8)
    assert_same_result(
        fcm.pair_confusion_matrix(labels, other),
        sklearn_function("pair_confusion_matrix")(labels, other),
        "pcm",
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a.astype(np.int64),
        lambda a: a.astype(np.uint8),
        lambda a: a.astype(">i4"),  # big-endian
        lambda a: np.repeat(a.astype(np.int16), 2)[::2],  # a strided view
        lambda a: a[:0].astype(np.int32),  # empty
    ],
)
def test_plain_integer_arrays_give_what_the_general_path_gives(make):
    """Two 1-D NumPy integer arrays skip the general checks; the same table, labels and
    scores as the same labels given as lists (which go through them)."""
    rng = np.random.default_rng(5)
    true, pred = make(rng.integers(0, 7, 500)), make(rng.integers(0, 9, 500) * 3)
    lists = (true.tolist(), pred.tolist())
    for f in (fcm.adjusted_rand_score, fcm.adjusted_mutual_info_score, fcm.v_measure_score):
        assert f(true, pred) == f(*lists)
    np.testing.assert_array_equal(
        fcm.contingency_matrix(true, pred), fcm.contingency_matrix(*lists)
    )
    ours = fcm.Contingency.from_labels(true, pred)
    general = fcm.Contingency.from_labels(*lists)
    np.testing.assert_array_equal(ours.classes, general.classes)
    np.testing.assert_array_equal(ours.clusters, general.clusters)
