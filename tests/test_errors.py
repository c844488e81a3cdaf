"""Errors and warnings: scikit-learn's types and messages (and where ours deliberately differ)."""

import re
import warnings

import numpy as np
import pytest
from helpers import (
    CHECKED_FUNCTIONS,
    SKLEARN_CHECKED_FUNCTIONS,
    normalise_message,
    sklearn_function,
)
from sklearn.utils._param_validation import InvalidParameterError as SkInvalidParameterError

import fastcluster_metrics as fcm


@pytest.mark.parametrize("name", CHECKED_FUNCTIONS)
def test_inconsistent_lengths(name):
    expected = "Found input variables with inconsistent numbers of samples: [2, 3]"
    with pytest.raises(ValueError, match=re.escape(expected)):
        getattr(fcm, name)([0, 1], [1, 1, 1])
    with pytest.raises(ValueError, match=re.escape(expected.replace("[2, 3]", "[3, 2]"))):
        getattr(fcm, name)(np.array([0, 1, 1]), np.array([1, 1]))


@pytest.mark.parametrize("name", CHECKED_FUNCTIONS)
def test_labels_must_be_one_dimensional(name):
    fn = getattr(fcm, name)
    with pytest.raises(ValueError, match=re.escape("labels_true must be 1D: shape is (2, 2)")):
        fn([[0, 1], [1, 0]], [1, 1, 1])
    with pytest.raises(ValueError, match=re.escape("labels_pred must be 1D: shape is (2, 2)")):
        fn([0, 1, 0], np.array([[1, 1], [0, 0]]))
    with pytest.raises(ValueError, match=re.escape("labels_true must be 1D: shape is (2, 1)")):
        fn(np.zeros((2, 1), dtype=np.int64), [0, 1])


NON_FINITE = [
    (np.nan, "Input contains NaN."),
    (np.inf, "Input contains infinity or a value too large for dtype('float64')."),
    (-np.inf, "Input contains infinity or a value too large for dtype('float64')."),
]


@pytest.mark.parametrize("name", CHECKED_FUNCTIONS)
@pytest.mark.parametrize(("value", "message"), NON_FINITE, ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("side", ["true", "pred"])
def test_non_finite_labels(name, value, message, side):
    finite = np.array([0.0, 1.0, 1.0])
    bad = np.array([0.0, value, 1.0])
    args = (bad, finite) if side == "true" else (finite, bad)
    with pytest.raises(ValueError, match=re.escape(message)):
        getattr(fcm, name)(*args)
    if name in SKLEARN_CHECKED_FUNCTIONS:  # the same message as scikit-learn's
        with pytest.raises(ValueError, match=re.escape(message)):
            sklearn_function(name)(*args)


def test_non_finite_float32_names_its_dtype():
    message = "Input contains infinity or a value too large for dtype('float32')."
    labels = np.array([0.0, np.inf, 1.0], dtype=np.float32)
    with pytest.raises(ValueError, match=re.escape(message)):
        fcm.adjusted_rand_score(labels, [0, 1, 1])


def _warning_messages(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(*args)
    return {(w.category, str(w.message)) for w in caught}


CONTINUOUS = {
    "continuous vs binary": ([0.5, 1.5, 0.5], [0, 1, 1]),
    "continuous vs multiclass": ([0.5, 1.5, 2.0], [0, 1, 2]),
    "multiclass vs continuous": ([0, 1, 2], [0.5, 1.5, 2.0]),
    "continuous vs continuous": ([0.5, 1.5, 2.0], [0.25, 1.0, 2.0]),
    "binary vs continuous": (np.array([3, 3, 4]), np.array([0.1, 0.2, 0.2])),
}


@pytest.mark.parametrize("case", list(CONTINUOUS))
@pytest.mark.parametrize("name", CHECKED_FUNCTIONS)
def test_non_integral_floats_warn_like_sklearn(name, case):
    labels_true, labels_pred = CONTINUOUS[case]
    with pytest.warns(UserWarning, match="Clustering metrics expects discrete values"):
        getattr(fcm, name)(labels_true, labels_pred)
    ours = _warning_messages(getattr(fcm, name), labels_true, labels_pred)
    # purity_score is ours: it warns as every other score does
    sk_name = name if name in SKLEARN_CHECKED_FUNCTIONS else "rand_score"
    theirs = _warning_messages(sklearn_function(sk_name), labels_true, labels_pred)
    assert ours == theirs


# --------------------------------------------------------------------------------------------
# Invalid parameters: fastcluster_metrics.InvalidParameterError with scikit-learn's message
# --------------------------------------------------------------------------------------------


def test_invalid_parameter_error_is_value_and_type_error():
    assert issubclass(fcm.InvalidParameterError, ValueError)
    assert issubclass(fcm.InvalidParameterError, TypeError)


INVALID_PARAMETERS = [
    ("normalized_mutual_info_score", {"average_method": "foo"}),
    ("normalized_mutual_info_score", {"average_method": "Arithmetic"}),
    ("normalized_mutual_info_score", {"average_method": 1}),
    ("adjusted_mutual_info_score", {"average_method": "foo"}),
    ("adjusted_mutual_info_score", {"average_method": None}),
    ("v_measure_score", {"beta": -1}),
    ("v_measure_score", {"beta": -0.5}),
    ("v_measure_score", {"beta": "a"}),
    ("v_measure_score", {"beta": None}),
    ("homogeneity_completeness_v_measure", {"beta": -1}),
    ("homogeneity_completeness_v_measure", {"beta": float("inf")}),
    ("contingency_matrix", {"eps": -1}),
    ("contingency_matrix", {"eps": -0.5}),
    ("contingency_matrix", {"sparse": "yes"}),
]


@pytest.mark.parametrize(
    ("name", "kwargs"),
    INVALID_PARAMETERS,
    ids=[f"{n}-{k}" for n, k in INVALID_PARAMETERS],
)
def test_invalid_keyword_parameter(name, kwargs):
    with pytest.raises(SkInvalidParameterError) as theirs:
        sklearn_function(name)([0, 1, 1], [0, 0, 1], **kwargs)
    with pytest.raises(fcm.InvalidParameterError) as ours:
        getattr(fcm, name)([0, 1, 1], [0, 0, 1], **kwargs)
    assert normalise_message(str(ours.value)) == normalise_message(str(theirs.value))


def test_invalid_average_method_message():
    expected = (
        "The 'average_method' parameter of normalized_mutual_info_score must be a str among "
        "{'arithmetic', 'geometric', 'max', 'min'}. Got 'foo' instead."
    )
    with pytest.raises(fcm.InvalidParameterError) as ours:
        fcm.normalized_mutual_info_score([0, 1], [0, 1], average_method="foo")
    assert normalise_message(str(ours.value)) == normalise_message(expected)
    with pytest.raises(ValueError, match=r"The 'average_method' parameter"):
        fcm.adjusted_mutual_info_score([0, 1], [0, 1], average_method="foo")


def test_negative_beta_message():
    expected = (
        "The 'beta' parameter of v_measure_score must be a float in the range [0.0, inf). "
        "Got -1 instead."
    )
    with pytest.raises(fcm.InvalidParameterError, match=re.escape(expected)):
        fcm.v_measure_score([0, 1], [0, 1], beta=-1)
    with pytest.raises(TypeError, match=re.escape(expected)):
        fcm.v_measure_score([0, 1], [0, 1], beta=-1)


NOT_ARRAY_LIKE = {
    "int": lambda: 1,
    "float": lambda: 1.5,
    "str": lambda: "abc",
    "None": lambda: None,
    "generator": lambda: (x for x in [0, 1]),
}


@pytest.mark.parametrize("kind", list(NOT_ARRAY_LIKE))
@pytest.mark.parametrize("side", ["labels_true", "labels_pred"])
@pytest.mark.parametrize("name", [*SKLEARN_CHECKED_FUNCTIONS, "contingency_matrix"])
def test_labels_that_are_not_array_like(name, side, kind):
    good, bad = [0, 1], NOT_ARRAY_LIKE[kind]()
    args = (bad, good) if side == "labels_true" else (good, bad)
    try:
        sklearn_function(name)(*args)
    except SkInvalidParameterError as error:
        theirs = str(error)
    except Exception:
        # None passes the validation of contingency_matrix and mutual_info_score, which then
        # fail in other ways (even IndexError); ask ours for a ValueError or TypeError
        with pytest.raises((ValueError, TypeError)):
            getattr(fcm, name)(*args)
        return
    else:
        raise AssertionError("scikit-learn accepted it")
    with pytest.raises(fcm.InvalidParameterError) as ours:
        getattr(fcm, name)(*args)
    assert str(ours.value) == theirs


@pytest.mark.parametrize("bad", [1, 1.5, "abc", None], ids=["int", "float", "str", "None"])
def test_purity_labels_that_are_not_array_like(bad):
    expected = (
        f"The 'labels_true' parameter of purity_score must be an array-like. Got {bad!r} instead."
    )
    with pytest.raises(fcm.InvalidParameterError, match=re.escape(expected)):
        fcm.purity_score(bad, [0, 1])


def test_mutual_info_of_no_samples_is_an_error():
    """scikit-learn raises ValueError('math domain error'); ours a ValueError that says more."""
    with pytest.raises(ValueError):
        fcm.mutual_info_score([], [])
    with pytest.raises(ValueError):
        fcm.mutual_info_score(np.array([], dtype=np.int64), np.array([], dtype=np.int64))


def test_contingency_with_eps_and_sparse():
    with pytest.raises(ValueError, match=re.escape("Cannot set 'eps' when sparse=True")):
        fcm.contingency_matrix([0, 1], [0, 1], eps=0.5, sparse=True)
