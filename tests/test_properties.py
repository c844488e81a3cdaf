"""Invariances every metric has by definition: relabelling, sample order, symmetry, bounds."""

import numpy as np
import pytest
from helpers import AVERAGE_METHODS, INT64, PAIR_SCORES, ami_is_undefined, case_id, labelings
from hypothesis import example, given
from hypothesis import strategies as st

import fastcluster_metrics as fcm

SCORES = [(n, k) for n, k in PAIR_SCORES if n != "mutual_info_score"] + [("purity_score", {})]
SYMMETRIC = [
    ("rand_score", {}),
    ("adjusted_rand_score", {}),
    ("fowlkes_mallows_score", {}),
    ("mutual_info_score", {}),
    ("v_measure_score", {}),
    *[("normalized_mutual_info_score", {"average_method": m}) for m in AVERAGE_METHODS],
    *[("adjusted_mutual_info_score", {"average_method": m}) for m in AVERAGE_METHODS],
]
CLOSE = {"rel": 1e-12, "abs": 1e-12}


def _score(name, kwargs, labels_true, labels_pred):
    return getattr(fcm, name)(labels_true, labels_pred, **kwargs)


def _rename(labels, data):
    """The same partition under other int64 names, in another order."""
    values, codes = np.unique(labels, return_inverse=True)
    names = data.draw(st.lists(INT64, min_size=values.size, max_size=values.size, unique=True))
    return np.array(names, dtype=np.int64)[codes]


@pytest.mark.parametrize(("name", "kwargs"), SCORES, ids=[case_id(n, k) for n, k in SCORES])
@given(labels=labelings(min_size=1), data=st.data())
def test_relabelling_and_sample_order_do_not_matter(name, kwargs, labels, data):
    labels_true, labels_pred = labels
    order = np.array(data.draw(st.permutations(range(len(labels_true)))), dtype=np.intp)
    renamed_true = _rename(labels_true, data)
    renamed_pred = np.array([f"c{x}" for x in labels_pred])
    expected = _score(name, kwargs, labels_true, labels_pred)
    moved = _score(name, kwargs, renamed_true[order], renamed_pred[order])
    if ami_is_undefined(name, kwargs, labels_true, labels_pred):
        assert type(moved) is float
        return
    assert moved == pytest.approx(expected, **CLOSE)


@pytest.mark.parametrize(("name", "kwargs"), SYMMETRIC, ids=[case_id(n, k) for n, k in SYMMETRIC])
@given(labels=labelings(min_size=1))
def test_symmetric_scores(name, kwargs, labels):
    labels_true, labels_pred = labels
    forward = _score(name, kwargs, labels_true, labels_pred)
    backward = _score(name, kwargs, labels_pred, labels_true)
    if ami_is_undefined(name, kwargs, labels_true, labels_pred):
        assert type(backward) is float
        return
    assert backward == pytest.approx(forward, **CLOSE)


@given(labels=labelings(min_size=1))
def test_homogeneity_is_completeness_swapped(labels):
    labels_true, labels_pred = labels
    h, c, v = fcm.homogeneity_completeness_v_measure(labels_true, labels_pred)
    c2, h2, v2 = fcm.homogeneity_completeness_v_measure(labels_pred, labels_true)
    assert (h2, c2, v2) == pytest.approx((h, c, v), **CLOSE)
    assert fcm.homogeneity_score(labels_true, labels_pred) == h
    assert fcm.completeness_score(labels_true, labels_pred) == c
    assert fcm.v_measure_score(labels_true, labels_pred) == v
    # V-measure is NMI with the arithmetic mean
    nmi = fcm.normalized_mutual_info_score(labels_true, labels_pred)
    assert v == pytest.approx(nmi, **CLOSE)


# Found by hypothesis: completeness 1 + 6.9e-15, the same value as scikit-learn's (the mutual
# information and the entropy it is divided by are each rounded), hence a bound of 1e-14.
@example(labels=(np.array([0] * 146 + [1] * 29 + [-1]), np.array([0] * 175 + [1])))
@given(labels=labelings(min_size=2))
def test_bounds(labels):
    labels_true, labels_pred = labels
    for name in (
        "rand_score",
        "fowlkes_mallows_score",
        "purity_score",
        "homogeneity_score",
        "completeness_score",
        "v_measure_score",
        "normalized_mutual_info_score",
    ):
        value = getattr(fcm, name)(labels_true, labels_pred)
        assert -1e-14 <= value <= 1 + 1e-14, name
    assert -0.5 - 1e-14 <= fcm.adjusted_rand_score(labels_true, labels_pred) <= 1 + 1e-14
    assert fcm.mutual_info_score(labels_true, labels_pred) >= 0.0
    counts = fcm.pair_confusion_matrix(labels_true, labels_pred)
    n = len(labels_true)
    assert counts.sum() == n * (n - 1)
    assert (counts >= 0).all()
    assert (counts % 2 == 0).all()  # ordered pairs: each unordered pair twice


@given(labels=labelings(min_size=1), repeat=st.integers(2, 5))
def test_scaled_copies_keep_ratio_scores(labels, repeat):
    """Repeating the whole data set keeps purity, homogeneity, completeness and NMI."""
    labels_true, labels_pred = labels
    tiled_true, tiled_pred = np.tile(labels_true, repeat), np.tile(labels_pred, repeat)
    for name in (
        "purity_score",
        "homogeneity_score",
        "completeness_score",
        "normalized_mutual_info_score",
        "mutual_info_score",
    ):
        single = getattr(fcm, name)(labels_true, labels_pred)
        tiled = getattr(fcm, name)(tiled_true, tiled_pred)
        assert tiled == pytest.approx(single, **CLOSE), name
    table = fcm.contingency_matrix(labels_true, labels_pred)
    np.testing.assert_array_equal(fcm.contingency_matrix(tiled_true, tiled_pred), table * repeat)


@given(labels=labelings(min_size=1))
def test_same_input_same_bits(labels):
    """Deterministic: the same call twice gives the same last bit."""
    for name, kwargs in PAIR_SCORES:
        first = _score(name, kwargs, *labels)
        second = _score(name, kwargs, *labels)
        assert first == second, name
