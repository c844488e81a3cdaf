"""Every metric against both oracles (scikit-learn and tests/reference.py) on random labelings,
and against the values scikit-learn documents."""

import math

import numpy as np
import pytest
import reference
from helpers import (
    PAIR_SCORES,
    ami_is_undefined,
    assert_same_result,
    case_id,
    labelings,
    sklearn_function,
    sklearn_quiet,
)
from hypothesis import given

import fastcluster_metrics as fcm

PAIR_SCORE_IDS = [case_id(name, kwargs) for name, kwargs in PAIR_SCORES]


@pytest.mark.parametrize(("name", "kwargs"), PAIR_SCORES, ids=PAIR_SCORE_IDS)
@given(labels=labelings())
def test_score_matches_sklearn_and_reference(name, kwargs, labels):
    labels_true, labels_pred = labels
    if name == "mutual_info_score" and len(labels_true) == 0:
        # both raise ValueError (ours with a clearer message than "math domain error")
        with pytest.raises(ValueError):
            fcm.mutual_info_score(labels_true, labels_pred)
        return
    ours = getattr(fcm, name)(labels_true, labels_pred, **kwargs)
    if ami_is_undefined(name, kwargs, labels_true, labels_pred):
        # AMI "min" with singletons on one side: 0 / 0, scikit-learn returns rounding noise
        # (values such as -2.0 or 1.33); only ask for a float.
        assert type(ours) is float
        return
    theirs = sklearn_function(name)(labels_true, labels_pred, **kwargs)
    assert_same_result(ours, theirs, name)  # scikit-learn
    expected = getattr(reference, name)(labels_true, labels_pred, **kwargs)
    assert_same_result(ours, expected, name)  # reference


@pytest.mark.parametrize("beta", [0.25, 1.0, 3.0])
@given(labels=labelings())
def test_homogeneity_completeness_v_measure(beta, labels):
    ours = fcm.homogeneity_completeness_v_measure(*labels, beta=beta)
    theirs = sklearn_function("homogeneity_completeness_v_measure")(*labels, beta=beta)
    assert_same_result(ours, theirs, "homogeneity_completeness_v_measure")
    expected = reference.homogeneity_completeness_v_measure(*labels, beta=beta)
    assert_same_result(ours, expected, "homogeneity_completeness_v_measure")


@given(labels=labelings())
def test_pair_confusion_matrix(labels):
    ours = fcm.pair_confusion_matrix(*labels)
    assert_same_result(ours, sklearn_function("pair_confusion_matrix")(*labels), "pcm")
    assert_same_result(ours, reference.pair_confusion_matrix(*labels), "pcm")


@given(labels=labelings())
def test_contingency_matrix(labels):
    ours = fcm.contingency_matrix(*labels)
    assert_same_result(ours, sklearn_function("contingency_matrix")(*labels), "contingency")
    assert_same_result(ours, reference.contingency(*labels), "contingency")


@given(labels=labelings())
def test_entropy(labels):
    labels_true, _ = labels
    ours = fcm.entropy(labels_true)
    assert_same_result(ours, sklearn_function("entropy")(labels_true), "entropy")
    assert_same_result(ours, reference.entropy(labels_true), "entropy")


@given(labels=labelings())
def test_purity_score(labels):
    ours = fcm.purity_score(*labels)
    assert_same_result(ours, reference.purity_score(*labels), "purity_score")


# --------------------------------------------------------------------------------------------
# Values documented by scikit-learn: its docstring examples (shown to the precision written
# there, as its doctests compare them) and the known values of its own test-suite.
# --------------------------------------------------------------------------------------------

DOCUMENTED = [
    ("rand_score", [0, 0, 1, 1], [1, 1, 0, 0], {}, "1.0"),
    ("rand_score", [0, 0, 1, 2], [0, 0, 1, 1], {}, "0.83"),
    ("adjusted_rand_score", [0, 0, 1, 1], [0, 0, 1, 1], {}, "1.0"),
    ("adjusted_rand_score", [0, 0, 1, 1], [1, 1, 0, 0], {}, "1.0"),
    ("adjusted_rand_score", [0, 0, 1, 2], [0, 0, 1, 1], {}, "0.57"),
    ("adjusted_rand_score", [0, 0, 1, 1], [0, 0, 1, 2], {}, "0.57"),
    ("adjusted_rand_score", [0, 0, 0, 0], [0, 1, 2, 3], {}, "0.0"),
    ("adjusted_rand_score", [0, 0, 1, 1], [0, 1, 0, 1], {}, "-0.5"),
    ("homogeneity_score", [0, 0, 1, 1], [1, 1, 0, 0], {}, "1.0"),
    ("homogeneity_score", [0, 0, 1, 1], [0, 0, 1, 2], {}, "1.000000"),
    ("homogeneity_score", [0, 0, 1, 1], [0, 1, 2, 3], {}, "1.000000"),
    ("homogeneity_score", [0, 0, 1, 1], [0, 1, 0, 1], {}, "0.000000"),
    ("homogeneity_score", [0, 0, 1, 1], [0, 0, 0, 0], {}, "0.000000"),
    ("completeness_score", [0, 0, 1, 1], [1, 1, 0, 0], {}, "1.0"),
    ("completeness_score", [0, 0, 1, 1], [0, 0, 0, 0], {}, "1.0"),
    ("completeness_score", [0, 1, 2, 3], [0, 0, 1, 1], {}, "0.999"),
    ("completeness_score", [0, 0, 1, 1], [0, 1, 0, 1], {}, "0.0"),
    ("completeness_score", [0, 0, 0, 0], [0, 1, 2, 3], {}, "0.0"),
    ("v_measure_score", [0, 0, 1, 1], [0, 0, 1, 1], {}, "1.0"),
    ("v_measure_score", [0, 0, 1, 1], [1, 1, 0, 0], {}, "1.0"),
    ("v_measure_score", [0, 0, 1, 2], [0, 0, 1, 1], {}, "0.8"),
    ("v_measure_score", [0, 1, 2, 3], [0, 0, 1, 1], {}, "0.67"),
    ("v_measure_score", [0, 0, 1, 1], [0, 0, 1, 2], {}, "0.8"),
    ("v_measure_score", [0, 0, 1, 1], [0, 1, 2, 3], {}, "0.67"),
    ("v_measure_score", [0, 0, 0, 0], [0, 1, 2, 3], {}, "0.0"),
    ("v_measure_score", [0, 0, 1, 1], [0, 0, 0, 0], {}, "0.0"),
    ("mutual_info_score", [0, 1, 1, 0, 1, 0], [0, 1, 0, 0, 1, 1], {}, "0.0566"),
    ("adjusted_mutual_info_score", [0, 0, 1, 1], [0, 0, 1, 1], {}, "1.0"),
    ("adjusted_mutual_info_score", [0, 0, 1, 1], [1, 1, 0, 0], {}, "1.0"),
    ("adjusted_mutual_info_score", [0, 0, 0, 0], [0, 1, 2, 3], {}, "0.0"),
    ("normalized_mutual_info_score", [0, 0, 1, 1], [0, 0, 1, 1], {}, "1.0"),
    ("normalized_mutual_info_score", [0, 0, 1, 1], [1, 1, 0, 0], {}, "1.0"),
    ("normalized_mutual_info_score", [0, 0, 0, 0], [0, 1, 2, 3], {}, "0.0"),
    ("fowlkes_mallows_score", [0, 0, 1, 1], [0, 0, 1, 1], {}, "1.0"),
    ("fowlkes_mallows_score", [0, 0, 1, 1], [1, 1, 0, 0], {}, "1.0"),
    ("fowlkes_mallows_score", [0, 0, 0, 0], [0, 1, 2, 3], {}, "0.0"),
    # scikit-learn's test_supervised.py
    ("mutual_info_score", [1] * 6 + [2] * 6 + [3] * 5, "AMI_B", {}, "0.41022"),
    ("adjusted_mutual_info_score", [1] * 6 + [2] * 6 + [3] * 5, "AMI_B", {}, "0.27821"),
    ("adjusted_mutual_info_score", [1, 1, 2, 2], [2, 2, 3, 3], {}, "1.0"),
    ("adjusted_rand_score", [0, 0, 0, 1, 1, 1], [0, 1, 0, 1, 2, 2], {}, "0.24"),
    ("adjusted_rand_score", [0, 0, 0, 1, 1, 1], [0, 4, 0, 4, 2, 2], {}, "0.24"),
    ("rand_score", [0, 0, 0, 1, 1, 1], [0, 1, 0, 1, 2, 2], {}, "0.67"),
    ("fowlkes_mallows_score", [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2], {}, "0.471404520791"),
    ("fowlkes_mallows_score", [0, 0, 0, 1, 1, 2], [1, 1, 2, 2, 0, 0], {}, "0.288675134595"),
    ("v_measure_score", [0, 0, 0, 1, 1, 1], [0, 1, 0, 1, 2, 2], {"beta": 0.2}, "0.61"),
]
AMI_B = [1, 1, 1, 1, 2, 1, 2, 2, 2, 2, 3, 1, 3, 3, 3, 2, 2]


def _documented_cases():
    for name, labels_true, labels_pred, kwargs, shown in DOCUMENTED:
        labels_pred = AMI_B if labels_pred == "AMI_B" else labels_pred
        yield pytest.param(
            name, labels_true, labels_pred, kwargs, shown, id=f"{name}-{labels_true}-{labels_pred}"
        )


@pytest.mark.parametrize(
    ("name", "labels_true", "labels_pred", "kwargs", "shown"), list(_documented_cases())
)
def test_documented_values(name, labels_true, labels_pred, kwargs, shown):
    ours = getattr(fcm, name)(labels_true, labels_pred, **kwargs)
    decimals = len(shown.split(".")[1])
    assert type(ours) is float
    assert ours == pytest.approx(float(shown), abs=10.0**-decimals)
    # and to the last bits of what scikit-learn returns
    theirs = sklearn_function(name)(labels_true, labels_pred, **kwargs)
    assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-13)


def test_documented_contingency_matrix():
    ours = fcm.contingency_matrix([0, 0, 1, 1, 2, 2], [1, 0, 2, 1, 0, 2])
    expected = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]], dtype=np.int64)
    assert_same_result(ours, expected, "contingency_matrix")


@pytest.mark.parametrize(
    ("labels_true", "labels_pred", "expected"),
    [
        ([0, 0, 1, 1], [1, 1, 0, 0], [[8, 0], [0, 4]]),
        ([0, 0, 1, 2], [0, 0, 1, 1], [[8, 2], [0, 2]]),
        (list(range(100)), list(range(100)), [[100 * 99, 0], [0, 0]]),
        ([0.0] * 100, [0.0] * 100, [[0, 0], [0, 100 * 99]]),
    ],
)
def test_documented_pair_confusion_matrix(labels_true, labels_pred, expected):
    ours = fcm.pair_confusion_matrix(labels_true, labels_pred)
    assert_same_result(ours, np.array(expected, dtype=np.int64), "pair_confusion_matrix")


def test_pair_confusion_matrix_counts_ordered_pairs():
    """scikit-learn's quadratic definition, on its own test labelings."""
    n = 10
    labels_true = np.hstack([[i + 1] * n for i in range(n)])
    labels_pred = np.hstack([[i + 1] * (n + 1) for i in range(n)])[: n * n]
    expected = np.zeros((2, 2), dtype=np.int64)
    for i in range(n * n):
        for j in range(n * n):
            if i != j:
                same_true = int(labels_true[i] == labels_true[j])
                same_pred = int(labels_pred[i] == labels_pred[j])
                expected[same_true, same_pred] += 1
    assert_same_result(fcm.pair_confusion_matrix(labels_true, labels_pred), expected, "pcm")


@pytest.mark.parametrize(
    ("labels_true", "labels_pred", "shown"),
    [
        ([0, 0, 1, 1, 2, 2], [0, 0, 1, 2, 2, 2], ("0.71", "0.771", "0.74")),
        ([0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 2, 2], ("1.00", "0.69", "0.81")),
        ([0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 1, 1], ("0.58", "1.00", "0.73")),
        ([0, 0, 0, 1, 1, 1], [0, 1, 0, 1, 2, 2], ("0.67", "0.42", "0.52")),
        ([0, 0, 0, 2, 2, 2], [0, 1, 0, 1, 2, 2], ("0.67", "0.42", "0.52")),
    ],
)
def test_documented_homogeneity_completeness_v_measure(labels_true, labels_pred, shown):
    ours = fcm.homogeneity_completeness_v_measure(labels_true, labels_pred)
    assert type(ours) is tuple
    assert len(ours) == 3
    for got, text in zip(ours, shown, strict=True):
        assert type(got) is float
        assert got == pytest.approx(float(text), abs=10.0 ** -len(text.split(".")[1]))


def test_documented_entropy():
    assert fcm.entropy([0, 0, 42.0]) == pytest.approx(0.6365141, abs=1e-5)
    assert fcm.entropy([0, 0, 42.0]) == pytest.approx(math.log(3) - 2 / 3 * math.log(2), rel=1e-14)
    assert fcm.entropy([1, 1, 1, 1]) == 0.0
    assert fcm.entropy([]) == 1.0


def test_documented_ami_on_a_larger_array():
    labels_true = np.array(([1] * 6 + [2] * 6 + [3] * 5) * 110)
    labels_pred = np.array(AMI_B * 110)
    ours = fcm.adjusted_mutual_info_score(labels_true, labels_pred)
    assert ours == pytest.approx(0.38, abs=1e-2)
    assert ours == pytest.approx(
        sklearn_quiet("adjusted_mutual_info_score", labels_true, labels_pred), rel=1e-12, abs=1e-12
    )
    assert ours == pytest.approx(
        reference.adjusted_mutual_info_score(labels_true, labels_pred), rel=1e-12, abs=1e-12
    )
