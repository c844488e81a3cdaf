"""Degenerate labelings: empty, one sample, one cluster, singletons, identical, relabelled."""

import math

import numpy as np
import pytest
import reference
from helpers import (
    AVERAGE_METHODS,
    PAIR_SCORES,
    assert_same_result,
    case_id,
    is_undefined,
    sklearn_function,
)

import fastcluster_metrics as fcm

EDGE_CASES = {
    "empty": ([], []),
    "one sample": ([0], [1]),
    "two samples, one cluster each": ([3, 3], [5, 5]),
    "two samples, singletons": ([0, 1], [0, 1]),
    "two samples, split": ([0, 0], [0, 1]),
    "one cluster each side": ([0] * 6, [7] * 6),
    "one true class": ([0] * 6, [0, 0, 1, 1, 2, 2]),
    "one predicted cluster": ([0, 0, 1, 1, 2, 2], [1] * 6),
    "singletons both sides": (list(range(8)), [3, 1, 4, 0, 6, 5, 2, 7]),
    "singletons predicted": ([0, 0, 0, 1, 1, 2, 2, 2], list(range(8))),
    "singletons true": (list(range(8)), [0, 0, 0, 1, 1, 2, 2, 2]),
    "singletons against one cluster": (list(range(5)), [0] * 5),
    "identical": ([0, 1, 1, 2, 2, 2, 3], [0, 1, 1, 2, 2, 2, 3]),
    "relabelled": ([0, 0, 1, 1, 2, 2, 2], [9, 9, -4, -4, 7, 7, 7]),
    "independent (MI exactly 0)": ([0, 0, 1, 1, 0, 0], [0, 1, 0, 1, 2, 2]),
    "anti-correlated": ([0, 0, 1, 1], [0, 1, 0, 1]),
    "non-consecutive labels": ([0, 0, 0, 2, 2, 2], [0, 4, 0, 4, 2, 2]),
    "float labels": ([0.0, 1.0, 0.0], [42.0, 7.0, 42.0]),
}
CASE_IDS = list(EDGE_CASES)


@pytest.mark.parametrize("case", CASE_IDS)
@pytest.mark.parametrize(
    ("name", "kwargs"), PAIR_SCORES, ids=[case_id(n, k) for n, k in PAIR_SCORES]
)
def test_score_on_edge_case(name, kwargs, case):
    labels_true, labels_pred = EDGE_CASES[case]
    ours_fn = getattr(fcm, name)
    if name == "mutual_info_score" and not labels_true:
        with pytest.raises(ValueError):
            ours_fn(labels_true, labels_pred)
        return
    ours = ours_fn(labels_true, labels_pred, **kwargs)
    expected = getattr(reference, name)(labels_true, labels_pred, **kwargs)
    if is_undefined(expected):  # AMI "min" against singletons: 0 / 0
        assert type(ours) is float
        return
    assert_same_result(ours, expected, name)
    assert_same_result(ours, sklearn_function(name)(labels_true, labels_pred, **kwargs), name)


@pytest.mark.parametrize("case", CASE_IDS)
@pytest.mark.parametrize(
    "name", ["pair_confusion_matrix", "contingency_matrix", "homogeneity_completeness_v_measure"]
)
def test_tables_on_edge_case(name, case):
    labels_true, labels_pred = EDGE_CASES[case]
    ours = getattr(fcm, name)(labels_true, labels_pred)
    assert_same_result(ours, sklearn_function(name)(labels_true, labels_pred), name)


@pytest.mark.parametrize("case", CASE_IDS)
def test_purity_and_entropy_on_edge_case(case):
    labels_true, labels_pred = EDGE_CASES[case]
    ours = fcm.purity_score(labels_true, labels_pred)
    assert_same_result(ours, reference.purity_score(labels_true, labels_pred), "purity_score")
    for labels in (labels_true, labels_pred):
        ours = fcm.entropy(labels)
        assert_same_result(ours, sklearn_function("entropy")(labels), "entropy")
        assert_same_result(ours, reference.entropy(labels), "entropy")


PERFECT_MATCHES = [
    ([], []),
    ([0], [1]),
    ([0, 0, 0], [0, 0, 0]),
    ([0, 1, 0], [42, 7, 42]),
    ([0.0, 1.0, 0.0], [42.0, 7.0, 42.0]),
    ([0.0, 1.0, 2.0], [42.0, 7.0, 2.0]),
    ([0, 1, 2], [42, 7, 2]),
    ([0, 1], [0, 1]),
    ([0, 1, 2, 3], [0, 1, 2, 3]),
]


@pytest.mark.parametrize(("labels_true", "labels_pred"), PERFECT_MATCHES)
@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("adjusted_rand_score", {}),
        ("rand_score", {}),
        ("homogeneity_score", {}),
        ("completeness_score", {}),
        ("v_measure_score", {}),
        ("purity_score", {}),
        *[("adjusted_mutual_info_score", {"average_method": m}) for m in AVERAGE_METHODS],
        *[("normalized_mutual_info_score", {"average_method": m}) for m in AVERAGE_METHODS],
    ],
)
def test_perfect_match_scores_one(name, kwargs, labels_true, labels_pred):
    assert getattr(fcm, name)(labels_true, labels_pred, **kwargs) == pytest.approx(1.0)


@pytest.mark.parametrize("n", [10, 100, 1000, 10000])
def test_one_cluster_against_singletons_carries_no_information(n):
    labels_true, labels_pred = np.ones(n, dtype=int), np.arange(n)
    assert fcm.normalized_mutual_info_score(labels_true, labels_pred) == pytest.approx(0.0)
    assert fcm.v_measure_score(labels_true, labels_pred) == pytest.approx(0.0)
    assert fcm.mutual_info_score(labels_true, labels_pred) == 0.0
    for method in AVERAGE_METHODS:
        assert (
            fcm.adjusted_mutual_info_score(labels_true, labels_pred, average_method=method) == 0.0
        )
        nmi = fcm.normalized_mutual_info_score(labels_true, labels_pred, average_method=method)
        assert nmi == pytest.approx(0.0)


@pytest.mark.parametrize("method", AVERAGE_METHODS)
def test_nmi_is_zero_for_a_constant_labeling_and_below_one_otherwise(method):
    labels1 = [0] * 469
    labels2 = [1, *labels1[1:]]
    labels3 = [0, 1, *labels1[2:]]
    assert fcm.normalized_mutual_info_score(labels1, labels2, average_method=method) == 0
    nmi = fcm.normalized_mutual_info_score(labels2, labels3, average_method=method)
    assert 0 <= nmi < 1


@pytest.mark.parametrize(
    ("labels_true", "labels_pred"),
    [
        (["a"] * 6, [1, 1, 0, 0, 1, 1]),
        ([1] * 6, [1, 1, 0, 0, 1, 1]),
        ([1, 1, 0, 0, 1, 1], ["a"] * 6),
        ([1, 1, 0, 0, 1, 1], [1] * 6),
        (["a"] * 6, ["a"] * 6),
    ],
)
def test_mutual_info_is_exactly_zero_against_a_constant_labeling(labels_true, labels_pred):
    assert fcm.mutual_info_score(labels_true, labels_pred) == 0.0


def test_zero_entropy():
    """H = 0: homogeneity (completeness) is 1.0 when the true (predicted) side is one cluster."""
    assert fcm.entropy([5, 5, 5]) == 0.0
    assert fcm.homogeneity_completeness_v_measure([5, 5, 5, 5], [0, 0, 1, 1]) == (1.0, 0.0, 0.0)
    assert fcm.homogeneity_completeness_v_measure([0, 0, 1, 1], [5, 5, 5, 5]) == (0.0, 1.0, 0.0)
    assert fcm.homogeneity_completeness_v_measure([5, 5], [6, 6]) == (1.0, 1.0, 1.0)


def test_empty_input_conventions():
    """The documented values for no samples (mutual_info_score raises: see test_errors.py)."""
    assert fcm.rand_score([], []) == 1.0
    assert fcm.adjusted_rand_score([], []) == 1.0
    assert fcm.fowlkes_mallows_score([], []) == 0.0
    assert fcm.purity_score([], []) == 1.0
    assert fcm.entropy([]) == 1.0
    assert fcm.homogeneity_completeness_v_measure([], []) == (1.0, 1.0, 1.0)
    for method in AVERAGE_METHODS:
        assert fcm.normalized_mutual_info_score([], [], average_method=method) == 1.0
        assert fcm.adjusted_mutual_info_score([], [], average_method=method) == 1.0
    assert_same_result(fcm.pair_confusion_matrix([], []), np.zeros((2, 2), dtype=np.int64), "pcm")
    empty = fcm.contingency_matrix([], [])
    assert empty.shape == (0, 0)
    assert empty.dtype == np.int64


def test_purity_is_not_symmetric():
    labels_true, labels_pred = [0, 0, 1, 1, 2, 2], [0, 0, 0, 0, 1, 1]
    assert fcm.purity_score(labels_true, labels_pred) == pytest.approx(4 / 6)
    assert fcm.purity_score(labels_pred, labels_true) == 1.0
    assert fcm.purity_score([0, 0, 1, 2], list(range(4))) == 1.0
    assert fcm.purity_score([0, 0, 0, 1, 1, 2], [7] * 6) == 0.5


@pytest.mark.parametrize(
    ("labels_true", "labels_pred"),
    [
        ([0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 1]),
        ([0, 0, 0, 1, 1, 1], [0, 1, 0, 1, 2, 2]),
        ([0, 0, 1, 1], [0, 0, 1, 2]),
    ],
)
def test_v_measure_beta_limits(labels_true, labels_pred):
    """beta = 0 weighs homogeneity only; a huge beta tends to completeness."""
    h, c, _ = fcm.homogeneity_completeness_v_measure(labels_true, labels_pred)
    v0 = fcm.v_measure_score(labels_true, labels_pred, beta=0.0)
    assert v0 == pytest.approx(h, rel=1e-12)
    assert v0 == pytest.approx(
        sklearn_function("v_measure_score")(labels_true, labels_pred, beta=0.0), rel=1e-12
    )
    assert fcm.v_measure_score(labels_true, labels_pred, beta=1e9) == pytest.approx(c, rel=1e-8)
    assert fcm.homogeneity_completeness_v_measure(labels_true, labels_pred, beta=0)[2] == v0


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 2.0, 1e3, 7])
def test_v_measure_beta_values(beta):
    labels_true, labels_pred = [0, 0, 0, 1, 1, 1, 2, 2], [0, 1, 0, 1, 2, 2, 2, 0]
    ours = fcm.v_measure_score(labels_true, labels_pred, beta=beta)
    theirs = sklearn_function("v_measure_score")(labels_true, labels_pred, beta=beta)
    assert_same_result(ours, theirs, "v_measure_score")
    assert_same_result(
        ours, reference.v_measure_score(labels_true, labels_pred, beta=beta), "v_measure_score"
    )


def test_ari_reaches_its_lower_bound():
    assert fcm.adjusted_rand_score([0, 0, 1, 1], [0, 1, 0, 1]) == -0.5


def test_no_overflow_on_int8_labels():
    """scikit-learn #20305: ARI of 100 000 int8 labels."""
    rng = np.random.RandomState(0)
    labels_true = rng.randint(0, 2, 100_000, dtype=np.int8)
    labels_pred = rng.randint(0, 2, 100_000, dtype=np.int8)
    ours = fcm.adjusted_rand_score(labels_true, labels_pred)
    assert_same_result(ours, reference.adjusted_rand_score(labels_true, labels_pred), "ari")


def test_mutual_info_and_fowlkes_mallows_on_large_cells():
    """scikit-learn's overflow regression: cells of 52 632 samples."""
    labels_true = np.array(
        [1] * (52632 + 2529)
        + [2] * (14660 + 793)
        + [3] * (3271 + 204)
        + [4] * (814 + 39)
        + [5] * (316 + 20)
    )
    labels_pred = np.array(
        [0] * 52632
        + [1] * 2529
        + [0] * 14660
        + [1] * 793
        + [0] * 3271
        + [1] * 204
        + [0] * 814
        + [1] * 39
        + [0] * 316
        + [1] * 20
    )
    for name in ("mutual_info_score", "fowlkes_mallows_score"):
        ours = getattr(fcm, name)(labels_true, labels_pred)
        assert math.isfinite(ours)
        assert_same_result(ours, getattr(reference, name)(labels_true, labels_pred), name)
        assert_same_result(ours, sklearn_function(name)(labels_true, labels_pred), name)


def test_v_measure_beta_zero_with_zero_completeness_is_homogeneity():
    # sklearn divides 0 by 0 here (ZeroDivisionError); V_0 = homogeneity for any completeness > 0.
    true, pred = [0, 0, 0, 0], [0, 1, 2, 3]
    h, c, v = fcm.homogeneity_completeness_v_measure(true, pred, beta=0.0)
    assert (h, c) == (1.0, 0.0)
    assert v == 1.0
    assert fcm.v_measure_score(true, pred, beta=0.0) == 1.0
    assert fcm.v_measure_score(true, [0, 1, 1, 2], beta=0.0) == 1.0
