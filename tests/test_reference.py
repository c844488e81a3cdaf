"""The oracle itself: tests/reference.py against brute force and hand-computed values.

Nothing here imports fastcluster_metrics or scikit-learn.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import reference
from helpers import labelings
from hypothesis import given, settings
from hypothesis import strategies as st


def _brute_force_pairs(labels_true, labels_pred):
    """(T, P, Q, M) by visiting every unordered pair."""
    t = p = q = m = 0
    for i, j in itertools.combinations(range(len(labels_true)), 2):
        same_true = labels_true[i] == labels_true[j]
        same_pred = labels_pred[i] == labels_pred[j]
        t += same_true and same_pred
        p += same_pred
        q += same_true
        m += 1
    return t, p, q, m


@given(labels=labelings(max_size=40))
def test_pair_counts_by_brute_force(labels):
    table = reference.contingency(*labels)
    assert reference.pair_counts(table) == _brute_force_pairs(*labels)


@given(labels=labelings(max_size=40))
def test_rand_and_ari_by_brute_force(labels):
    t, p, q, m = _brute_force_pairs(*labels)
    table = reference.contingency(*labels)
    if m:
        assert reference.rand_from_table(table) == float(Fraction(t + (m - p - q + t), m))
    # ARI from the ordered-pair confusion matrix, the other classic form
    (tn, fp), (fn, tp) = reference.pair_confusion_from_table(table)
    if fn == fp == 0:
        assert reference.ari_from_table(table) == 1.0
    else:
        other = Fraction(2 * (tp * tn - fn * fp), (tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))
        assert reference.ari_from_table(table) == float(other)


@given(labels=labelings(min_size=1, max_size=300))
def test_mutual_info_is_entropy_sum_minus_joint_entropy(labels):
    labels_true, labels_pred = labels
    joint = np.unique(np.stack([labels_true, labels_pred]), axis=1, return_counts=True)[1]
    h_true = reference.entropy(labels_true)
    h_pred = reference.entropy(labels_pred)
    h_joint = reference.entropy_from_counts(joint)
    mi = reference.mutual_info_score(labels_true, labels_pred)
    assert mi == pytest.approx(h_true + h_pred - h_joint, rel=1e-12, abs=1e-13)


def _emi_by_enumeration(labels_true, labels_pred):
    """E[MI] as the mean MI over every permutation of the predicted labels."""
    values = [
        reference.mutual_info_score(labels_true, [labels_pred[i] for i in order])
        for order in itertools.permutations(range(len(labels_pred)))
    ]
    return math.fsum(values) / len(values)


@pytest.mark.parametrize(
    ("labels_true", "labels_pred"),
    [
        ([0, 0, 1, 1], [0, 1, 1, 1]),
        ([0, 0, 0, 1, 2], [0, 1, 1, 2, 2]),
        ([0, 0, 1, 1, 1, 2, 2], [0, 0, 0, 1, 1, 1, 1]),
        ([0, 1, 2, 3, 4, 5], [0, 0, 1, 1, 2, 2]),
    ],
)
def test_expected_mutual_info_by_enumeration(labels_true, labels_pred):
    table = reference.contingency(labels_true, labels_pred)
    emi = reference.expected_mutual_info(table.sum(axis=1), table.sum(axis=0))
    assert emi == pytest.approx(_emi_by_enumeration(labels_true, labels_pred), rel=1e-13)


@settings(max_examples=30)
@given(labels=labelings(min_size=1, max_size=300))
def test_large_layer_agrees_with_exact_layer(labels):
    labels_true, labels_pred = labels
    table = reference.contingency(labels_true, labels_pred)
    codes_true = np.unique(labels_true, return_inverse=True)[1]
    codes_pred = np.unique(labels_pred, return_inverse=True)[1]
    cells = reference.cells_from_codes(codes_true, codes_pred, *table.shape)
    close = {"rel": 1e-12, "abs": 1e-13}
    assert reference.large_pair_counts(cells) == reference.pair_counts(table)
    assert reference.large_rand(cells) == reference.rand_from_table(table)
    assert reference.large_ari(cells) == reference.ari_from_table(table)
    assert reference.large_fowlkes_mallows(cells) == reference.fowlkes_mallows_from_table(table)
    assert reference.large_purity(cells) == reference.purity_from_table(table)
    assert reference.large_mutual_info(cells) == pytest.approx(
        reference.mutual_info_from_table(table), **close
    )
    emi = reference.expected_mutual_info(cells.a, cells.b)
    assert reference.large_expected_mutual_info(cells.a, cells.b) == pytest.approx(emi, **close)
    h, c, v = reference.homogeneity_completeness_v_from_table(table)
    assert reference.large_homogeneity_completeness_v(cells) == pytest.approx((h, c, v), **close)
    for method in reference.AVERAGE_METHODS:
        assert reference.large_nmi(cells, method) == pytest.approx(
            reference.nmi_from_table(table, method), **close
        )


def test_large_expected_mutual_info_window_on_large_margins():
    """At N = 2000 the window (narrower than the support here) gives the exact sum."""
    a = np.array([1000, 600, 400])
    b = np.array([500, 500, 800, 200])
    exact = reference.expected_mutual_info(a, b)
    assert reference.large_expected_mutual_info(a, b) == pytest.approx(exact, rel=1e-11)


def test_hand_computed_values():
    # [[2, 0], [1, 1]]: T = 1, P = C(3,2) + 0 = 3, Q = 1 + 1 = 2, M = 6
    labels_true, labels_pred = [0, 0, 1, 1], [0, 0, 0, 1]
    assert reference.pair_counts(reference.contingency(labels_true, labels_pred)) == (1, 3, 2, 6)
    assert reference.rand_score(labels_true, labels_pred) == 0.5  # (6 + 2 - 3 - 2) / 6
    # ARI = (1 - 3*2/6) / ((3+2)/2 - 1) = 0
    assert reference.adjusted_rand_score(labels_true, labels_pred) == 0.0
    assert reference.fowlkes_mallows_score(labels_true, labels_pred) == pytest.approx(
        1 / math.sqrt(6)
    )
    assert reference.purity_score(labels_true, labels_pred) == 0.75
    assert reference.purity_score(labels_pred, labels_true) == 0.75
    assert reference.entropy([0, 0, 1, 1]) == pytest.approx(math.log(2))
    # MI = H(pred) - H(pred | true) = H(3/4, 1/4) - (1/2) H(1/2, 1/2)
    h_pred = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    mi = h_pred - 0.5 * math.log(2)
    assert reference.mutual_info_score(labels_true, labels_pred) == pytest.approx(mi, rel=1e-14)
    assert reference.normalized_mutual_info_score(
        labels_true, labels_pred, average_method="max"
    ) == pytest.approx(mi / math.log(2), rel=1e-14)
    h, c, v = reference.homogeneity_completeness_v_measure(labels_true, labels_pred)
    assert (h, c) == pytest.approx((mi / math.log(2), mi / h_pred), rel=1e-14)
    assert v == pytest.approx(2 * h * c / (h + c), rel=1e-14)


@given(st.lists(st.integers(0, 5), min_size=1, max_size=50))
def test_identical_labelings_are_perfect(labels):
    assert reference.adjusted_rand_score(labels, labels) == 1.0
    assert reference.rand_score(labels, labels) == 1.0
    assert reference.purity_score(labels, labels) == 1.0
    assert reference.normalized_mutual_info_score(labels, labels) == pytest.approx(1.0)
    assert reference.adjusted_mutual_info_score(labels, labels) == pytest.approx(1.0)
    assert reference.mutual_info_score(labels, labels) == pytest.approx(reference.entropy(labels))
