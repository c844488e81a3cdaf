"""A catalogue of bad inputs: each one a ValueError or TypeError that names the problem.

Only cases that tests/test_errors.py does not already cover: that file checks the functions
scikit-learn also has on lists and arrays; this one adds the other entry points (``evaluate``,
``Contingency.from_labels``, ``compare_many``, ``entropy``), other containers, other non-array
objects, mixed and unhashable values, given contingency tables, and extreme label values.
Where scikit-learn refuses an input we refuse it with the same exception type (and, where its
message says what is wrong, a message containing it); where it accepts one, we give its score.
"""

import math
import re
import subprocess
import sys
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import scipy.sparse as sp
from helpers import (
    FUNCTIONS,
    SKLEARN_CHECKED_FUNCTIONS,
    assert_same_result,
    normalise_message,
    sklearn_function,
    sklearn_quiet,
)
from sklearn.utils._param_validation import InvalidParameterError as SkInvalidParameterError

import fastcluster_metrics as fcm
from fastcluster_metrics._table import given as _given

ALL = list(FUNCTIONS)
# The entry points test_errors.py does not check for lengths, dimensions and non-finite values.
EXTRA = ["contingency_matrix", "evaluate", "Contingency.from_labels", "compare_many"]


def _call(name, *args, **kwargs):
    return FUNCTIONS[name](*args, **kwargs)


def _plain(result):
    """A result as plain Python values that compare with == (NaN as the string 'nan')."""
    if isinstance(result, fcm.Contingency):
        return _plain((result.to_numpy(), result.classes.tolist(), result.clusters.tolist()))
    if isinstance(result, fcm.Evaluation):
        return _plain(result.to_dict())
    if isinstance(result, pd.DataFrame):
        return _plain(result.to_dict())
    if isinstance(result, np.ndarray):
        return (str(result.dtype), _plain(result.tolist()))
    if isinstance(result, dict):
        return {k: _plain(v) for k, v in result.items()}
    if isinstance(result, (list, tuple)):
        return type(result)(_plain(v) for v in result)
    if isinstance(result, float) and math.isnan(result):
        return "nan"
    return result


def _rank_codes(labels):
    return np.unique(np.asarray(labels), return_inverse=True)[1].reshape(-1).astype(np.int64)


def _assert_same_as_codes(name, labels_true, labels_pred):
    """Our result on the labels equals our result on their rank codes (table, scores, all).

    Contingency.from_labels keeps the label values, so only its tables are compared.
    """
    ours = _call(name, labels_true, labels_pred)
    codes = _call(name, _rank_codes(labels_true), _rank_codes(labels_pred))
    if name == "Contingency.from_labels":
        ours, codes = ours.to_numpy(), codes.to_numpy()
        assert ours.tolist() == codes.tolist()
        return
    assert _plain(ours) == _plain(codes)


def _sklearn_outcome(name, *args):
    """scikit-learn's result, or the exception it raises."""
    try:
        return sklearn_quiet(name, *args)
    except Exception as error:
        return error


# --------------------------------------------------------------------------------------------
# Lengths and dimensions, on every entry point and every kind of container
# --------------------------------------------------------------------------------------------

CONTAINERS = {
    "list": list,
    "int64": lambda v: np.asarray(v, dtype=np.int64),
    "U": lambda v: np.asarray([f"c{x}" for x in v]),
    "object str": lambda v: np.asarray([f"c{x}" for x in v], dtype=object),
    "Categorical": lambda v: pd.Categorical([f"c{x}" for x in v]),
    "Series": lambda v: pd.Series(v),
    "arrow dictionary": lambda v: pa.array([f"c{x}" for x in v]).dictionary_encode(),
}


@pytest.mark.parametrize("container", list(CONTAINERS))
@pytest.mark.parametrize("name", ALL)
def test_length_mismatch_in_every_container(name, container):
    make = CONTAINERS[container]
    message = "Found input variables with inconsistent numbers of samples: [{}, {}]"
    with pytest.raises(ValueError, match=re.escape(message.format(3, 2))):
        _call(name, make([0, 1, 1]), make([0, 1]))
    with pytest.raises(ValueError, match=re.escape(message.format(0, 2))):
        _call(name, make([]), [0, 1])


NOT_1D = {
    "0-d": np.array(3),
    "2-D": np.array([[0, 1], [1, 0]]),
    "2-D column": np.zeros((3, 1), dtype=np.int64),
    "empty 2-D": np.zeros((0, 2)),
    "3-D": np.zeros((1, 1, 1), dtype=np.int64),
    "2-D strings": np.array([["a", "b"], ["b", "a"]]),
}


@pytest.mark.parametrize("case", list(NOT_1D))
@pytest.mark.parametrize("name", ALL)
def test_labels_that_are_not_one_dimensional(name, case):
    bad = NOT_1D[case]
    shape = re.escape(f"must be 1D: shape is {bad.shape}")
    if not (name == "compare_many" and bad.dtype.kind == "U"):  # see the end
        with pytest.raises(ValueError, match="labels_true " + shape):
            _call(name, bad, [0, 1])
    with pytest.raises(ValueError, match="labels_pred " + shape):
        _call(name, [0, 1], bad)


@pytest.mark.parametrize("case", list(NOT_1D))
def test_entropy_refuses_labels_that_are_not_one_dimensional(case):
    """scikit-learn's entropy flattens n-D labels (and fails on 0-d); ours refuses both."""
    bad = NOT_1D[case]
    with pytest.raises(ValueError, match=re.escape(f"labels must be 1D: shape is {bad.shape}")):
        fcm.entropy(bad)


@pytest.mark.parametrize("name", [*SKLEARN_CHECKED_FUNCTIONS, "purity_score"])
def test_scalar_labels_fail_as_sklearn_does(name):
    """A 0-d array is refused by shape, as scikit-learn's check_clusterings does."""
    with pytest.raises(ValueError, match=re.escape("labels_true must be 1D: shape is ()")):
        getattr(fcm, name)(np.array(3), np.array(3))
    if name in SKLEARN_CHECKED_FUNCTIONS:
        with pytest.raises(ValueError, match=re.escape("labels_true must be 1D: shape is ()")):
            sklearn_function(name)(np.array(3), np.array(3))


# --------------------------------------------------------------------------------------------
# NaN and infinity on the entry points test_errors.py does not check
# --------------------------------------------------------------------------------------------

NON_FINITE = {
    "nan float64": (np.array([0.0, np.nan, 1.0]), "Input contains NaN."),
    "nan list": ([0.0, float("nan"), 1.0], "Input contains NaN."),
    "nan float16": (np.array([0, np.nan, 1], dtype=np.float16), "Input contains NaN."),
    "nan object": (np.array([0, np.nan, 1], dtype=object), "Input contains NaN."),
    "inf float64": (
        np.array([0.0, np.inf, 1.0]),
        "Input contains infinity or a value too large for dtype('float64').",
    ),
    "-inf float16": (
        np.array([0, -np.inf, 1], dtype=np.float16),
        "Input contains infinity or a value too large for dtype('float16').",
    ),
    "inf big-endian": (
        np.array([0.0, np.inf, 1.0], dtype=">f8"),
        "Input contains infinity or a value too large for dtype('>f8').",
    ),
}


@pytest.mark.parametrize("case", list(NON_FINITE))
@pytest.mark.parametrize("name", [*EXTRA, "entropy"])
def test_non_finite_labels_on_every_entry_point(name, case):
    bad, message = NON_FINITE[case]
    if name == "entropy":
        with pytest.raises(ValueError, match=re.escape(message)):
            fcm.entropy(bad)
        return
    with pytest.raises(ValueError, match=re.escape(message)):
        _call(name, bad, [0, 1, 1])
    with pytest.raises(ValueError, match=re.escape(message)):
        _call(name, [0, 1, 1], bad)


@pytest.mark.parametrize("name", SKLEARN_CHECKED_FUNCTIONS)
def test_infinity_in_an_object_array_is_a_label_as_in_sklearn(name):
    """check_array(dtype=None) keeps object arrays as they are: inf is one more label there."""
    labels = np.array([1.0, np.inf, 2.0, np.inf, -np.inf], dtype=object)
    pred = [0, 1, 1, 1, 0]
    assert_same_result(getattr(fcm, name)(labels, pred), sklearn_quiet(name, labels, pred), name)


# --------------------------------------------------------------------------------------------
# None, unhashable and mixed values
# --------------------------------------------------------------------------------------------


def _objects(*values):
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


# (labels, exception type, a fragment of our message); scikit-learn refuses every one of them
# with the same type (its messages are compared below where it has one of its own). None among
# numbers is not here: it is a missing label (missing=), where scikit-learn fails to sort it.
REFUSED = {
    "dicts": (_objects({}, {"a": 1}, {}), TypeError, "'<' not supported"),
    "a list among ints": (_objects(1, [0], 2), TypeError, "'<' not supported"),
    "ints and strings": (
        _objects(1, "a", 2),
        TypeError,
        "'<' not supported between instances of 'str' and 'int'",
    ),
    "strings and bytes": (_objects("a", b"a", "b"), TypeError, "'<' not supported"),
    "complex objects": (_objects(1j, 2, 1j), TypeError, "'<' not supported"),
    "NaN among numbers": (_objects(1.0, float("nan"), 2), ValueError, "Input contains NaN"),
    "complex": (np.array([1j, 2, 3]), ValueError, "Complex data not supported"),
}


@pytest.mark.parametrize("case", list(REFUSED))
@pytest.mark.parametrize("name", [*ALL, "entropy"])
def test_values_that_are_not_labels(name, case):
    bad, error, fragment = REFUSED[case]
    if name == "entropy":
        with pytest.raises(error, match=re.escape(fragment)):
            fcm.entropy(bad)
        return
    with pytest.raises(error, match=re.escape(fragment)):
        _call(name, bad, [0, 1, 1])
    with pytest.raises(error, match=re.escape(fragment)):
        _call(name, [0, 1, 1], bad)


@pytest.mark.parametrize("case", list(REFUSED))
@pytest.mark.parametrize("name", SKLEARN_CHECKED_FUNCTIONS)
def test_values_that_are_not_labels_fail_as_in_sklearn(name, case):
    bad = REFUSED[case][0]
    theirs = _sklearn_outcome(name, bad, [0, 1, 1])
    assert isinstance(theirs, Exception), "scikit-learn accepted it"
    with pytest.raises(type(theirs)) as ours:
        getattr(fcm, name)(bad, [0, 1, 1])
    if "'<' not supported" in str(theirs) or "Complex" in str(theirs):
        assert str(theirs) in str(ours.value)
    else:  # scikit-learn: "Input contains NaN" (no full stop), ours: "Input contains NaN."
        assert str(theirs).rstrip(".") in str(ours.value)


def test_none_among_strings_is_a_counted_missing_label():
    """scikit-learn fails sorting str against None (TypeError); ours says what is missing."""
    bad = _objects("a", None, "b")
    for name in ALL:
        with pytest.raises(ValueError, match="1 of 3 labels are missing; pass missing='drop'"):
            _call(name, bad, [0, 1, 1])


# Mixed values scikit-learn accepts: the same score (and the same score as the rank codes).
ACCEPTED = {
    "ints and floats": _objects(1, 2.5, 1.0, 2),
    "bools and ints": _objects(True, 1, 0, False),
    "Python ints beyond int64": _objects(2**100, -(2**100), 2**100, 0),
    "Fractions": _objects(Fraction(1, 3), Fraction(1, 2), Fraction(1, 3), Fraction(2, 6)),
    "ints and strings (list, read as U)": [1, "a", 2, "a"],
    "datetime64": np.array(["2020-01-01", "2021-01-01", "NaT", "2020-01-01"], dtype="M8[D]"),
    "timedelta64": np.array([1, -5, 1, 7], dtype="m8[s]"),
    "structured": np.array([(1, 2), (3, 4), (1, 2), (0, 0)], dtype=[("a", "i4"), ("b", "i4")]),
    "longdouble": np.array([1, 2**70, 1, 0.5], dtype=np.longdouble),
    "lone surrogates": np.array(["\ud800", "a", "\udfff", "\ud800"]),
    "NUL inside strings": np.array(["a\x00b", "a", "a\x00b", ""]),
    "range": range(4),
    "tuple": (3, 1, 3, 2),
}


@pytest.mark.parametrize("case", list(ACCEPTED))
@pytest.mark.parametrize("name", SKLEARN_CHECKED_FUNCTIONS)
def test_mixed_values_sklearn_accepts_give_its_score(name, case):
    labels, pred = ACCEPTED[case], [0, 1, 1, 0]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Clustering metrics expects discrete", UserWarning)
        ours = getattr(fcm, name)(labels, pred)
    assert_same_result(ours, sklearn_quiet(name, labels, pred), name)


@pytest.mark.parametrize("case", list(ACCEPTED))
@pytest.mark.parametrize("name", ALL)
def test_mixed_values_sklearn_accepts_equal_their_rank_codes(name, case):
    labels, pred = ACCEPTED[case], np.array(["x", "y", "y", "x"])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Clustering metrics expects discrete", UserWarning)
        _assert_same_as_codes(name, labels, pred)
        _assert_same_as_codes(name, pred, labels)


# --------------------------------------------------------------------------------------------
# Objects that are not arrays
# --------------------------------------------------------------------------------------------

NOT_ARRAYS = {
    "generator": lambda: (x for x in [0, 1, 1]),
    "str": lambda: "abc",
    "bytes": lambda: b"abc",
    "int": lambda: 3,
    "numpy scalar": lambda: np.int64(3),
    "None": lambda: None,
    "memoryview": lambda: memoryview(np.array([0, 1, 1])),
}


@pytest.mark.parametrize("kind", list(NOT_ARRAYS))
@pytest.mark.parametrize(
    ("name", "func"),
    [
        ("evaluate", fcm.evaluate),
        ("Contingency.from_labels", fcm.Contingency.from_labels),
        ("compare_many", FUNCTIONS["compare_many"]),
    ],
)
def test_extra_entry_points_refuse_what_is_not_array_like(name, func, kind):
    bad = NOT_ARRAYS[kind]()
    expected = f"The 'labels_true' parameter of {name} must be an array-like. Got {bad!r} instead."
    with pytest.raises(fcm.InvalidParameterError) as error:
        func(bad, [0, 1, 1])
    assert str(error.value) == expected
    if name != "compare_many":
        with pytest.raises(fcm.InvalidParameterError, match="The 'labels_pred' parameter"):
            func([0, 1, 1], NOT_ARRAYS[kind]())
    elif kind == "memoryview":  # a prediction is read with np.asarray: a memoryview is an array
        got = func([0, 1, 1], NOT_ARRAYS[kind]())
        assert _plain(got) == _plain(func([0, 1, 1], np.array([0, 1, 1])))
    else:  # and every other one of these is a 0-d array
        with pytest.raises(ValueError, match=re.escape("labels_pred must be 1D: shape is ()")):
            func([0, 1, 1], NOT_ARRAYS[kind]())


@pytest.mark.parametrize("kind", list(NOT_ARRAYS))
def test_entropy_refuses_what_is_not_array_like(kind):
    """scikit-learn's entropy returns 0.0 for a str (one label) and fails on a generator."""
    bad = NOT_ARRAYS[kind]()
    expected = f"The 'labels' parameter of entropy must be an array-like. Got {bad!r} instead."
    with pytest.raises(fcm.InvalidParameterError) as error:
        fcm.entropy(bad)
    assert str(error.value) == expected


@pytest.mark.parametrize("name", [*SKLEARN_CHECKED_FUNCTIONS, "contingency_matrix"])
def test_memoryview_and_numpy_scalar_fail_as_in_sklearn(name):
    for bad in (memoryview(np.array([0, 1, 1])), np.int64(3)):
        with pytest.raises(SkInvalidParameterError) as theirs:
            sklearn_function(name)(bad, [0, 1, 1])
        with pytest.raises(fcm.InvalidParameterError) as ours:
            getattr(fcm, name)(bad, [0, 1, 1])
        assert str(ours.value) == str(theirs.value)


SIZED_NOT_SEQUENCES = {
    "set": lambda: {0, 1, 2},
    "frozenset": lambda: frozenset({0, 1, 2}),
    "dict": lambda: {0: 1, 1: 1, 2: 2},
}


@pytest.mark.parametrize("kind", list(SIZED_NOT_SEQUENCES))
@pytest.mark.parametrize("name", [*ALL, "entropy"])
def test_sets_and_dicts_are_refused_by_shape(name, kind):
    """A set or dict has a length but numpy reads it as one object: a 0-d array."""
    bad = SIZED_NOT_SEQUENCES[kind]()
    if name == "entropy":
        with pytest.raises(ValueError, match=re.escape("labels must be 1D: shape is ()")):
            fcm.entropy(bad)
        return
    with pytest.raises(ValueError, match=re.escape("labels_true must be 1D: shape is ()")):
        _call(name, bad, [0, 1, 2])
    if name in SKLEARN_CHECKED_FUNCTIONS:
        with pytest.raises(ValueError, match=re.escape("labels_true must be 1D: shape is ()")):
            sklearn_function(name)(SIZED_NOT_SEQUENCES[kind](), [0, 1, 2])


# --------------------------------------------------------------------------------------------
# Empty input where a score is undefined
# --------------------------------------------------------------------------------------------


def test_empty_input_where_mutual_information_is_undefined():
    """One error for the lone score, NaN in the tables of many scores (as documented)."""
    undefined = "mutual information is undefined for an empty contingency table"
    with pytest.raises(ValueError, match=undefined):
        fcm.Contingency.from_labels([], []).mutual_info_score()
    with pytest.raises(ValueError, match=undefined):
        fcm.Contingency(np.zeros((2, 3), dtype=np.int64)).mutual_info_score()
    with pytest.raises(ValueError, match=undefined):
        fcm.mutual_info_score(None, None, contingency=np.zeros((2, 3)))
    assert math.isnan(fcm.evaluate([], [])["mutual_info_score"])
    assert math.isnan(fcm.compare_many([], {"p": []})["mutual_info_score"]["p"])
    # scikit-learn's message for a table with no rows or no columns
    message = "Found array with 0 sample(s) (shape=(0, 3)) while a minimum of 1 is required."
    with pytest.raises(ValueError, match=re.escape(message)):
        fcm.mutual_info_score(None, None, contingency=np.zeros((0, 3)))
    with pytest.raises(ValueError, match=re.escape(message)):
        sklearn_function("mutual_info_score")(None, None, contingency=np.zeros((0, 3)))


# --------------------------------------------------------------------------------------------
# Given contingency tables: Contingency(table) and mutual_info_score(contingency=...)
# --------------------------------------------------------------------------------------------

# (table, exception type, message fragment for Contingency, for mutual_info_score)
BAD_TABLES = {
    "NaN": (
        np.array([[1.0, np.nan], [2, 3]]),
        ValueError,
        "contingency counts must be finite; got NaN",
        "Input contains NaN.",
    ),
    "inf": (
        np.array([[1.0, np.inf], [2, 3]]),
        ValueError,
        "contingency counts must be finite; got inf",
        "Input contains infinity or a value too large for dtype('int64').",
    ),
    "-inf": (
        np.array([[1.0, -np.inf], [2, 3]]),
        ValueError,
        "contingency counts must be finite; got inf",
        "Input contains infinity or a value too large for dtype('int64').",
    ),
    "negative float": (
        np.array([[1.0, -2.0], [2, 3]]),
        ValueError,
        "cannot hold negative counts",
        "cannot hold negative counts",
    ),
    "negative int8": (
        np.array([[1, -128], [2, 3]], dtype=np.int8),
        ValueError,
        "cannot hold negative counts",
        "cannot hold negative counts",
    ),
    "1e30": (
        np.array([[1, 1e30], [2, 3]]),
        ValueError,
        "does not fit in int64",
        "does not fit in int64",
    ),
    "2**63 as float": (
        np.array([[1, 2.0**63], [2, 3]]),
        ValueError,
        "does not fit in int64",
        "does not fit in int64",
    ),
    "uint64 2**63": (
        np.array([[1, 2**63], [2, 3]], dtype=np.uint64),
        ValueError,
        "does not fit in int64",
        "does not fit in int64",
    ),
    "uint64 max": (
        np.array([[1, 2**64 - 1], [2, 3]], dtype=np.uint64),
        ValueError,
        "does not fit in int64",
        "does not fit in int64",
    ),
    "sum of 2**64 samples": (
        np.array([[2**63 - 1, 2**63 - 1], [2, 0]], dtype=np.int64),
        ValueError,
        "sum to 18446744073709551616 samples",
        "sum to 18446744073709551616 samples",
    ),
    "None": (
        np.array([[1, None], [2, 3]], dtype=object),
        TypeError,
        "contingency counts must be numbers, not object",
        "contingency counts must be integers",
    ),
    "complex": (
        np.array([[1 + 1j, 2], [2, 3]]),
        (TypeError, ValueError),
        "contingency counts must be numbers, not complex128",
        "Complex data not supported",
    ),
    "1-D": (np.array([1, 2]), ValueError, "a contingency table is 2-D", "Expected 2D array"),
    "0-d": (np.array(5), ValueError, "a contingency table is 2-D", "got scalar array instead"),
    "3-D": (
        np.ones((2, 2, 2)),
        ValueError,
        "a contingency table is 2-D",
        "Found array with dim 3, while dim <= 2 is required.",
    ),
}


def _ours_mutual_info(table):
    return fcm.mutual_info_score(None, None, contingency=table)


# scipy has sparse matrices of 2-D numeric tables only
BAD_TABLE_FORMS = [(case, False) for case in BAD_TABLES] + [
    (case, True) for case, (t, *_) in BAD_TABLES.items() if t.ndim == 2 and t.dtype != object
]


@pytest.mark.parametrize(
    ("case", "sparse"),
    BAD_TABLE_FORMS,
    ids=[f"{case}-{'sparse' if sparse else 'dense'}" for case, sparse in BAD_TABLE_FORMS],
)
def test_bad_given_tables(case, sparse):
    table, error, for_contingency, for_mutual_info = BAD_TABLES[case]
    if sparse:
        table = sp.csr_matrix(table)
    with pytest.raises(error, match=re.escape(for_contingency)):
        fcm.Contingency(table)
    with pytest.raises(error, match=re.escape(for_mutual_info)):
        _ours_mutual_info(table)


@pytest.mark.parametrize("case", ["NaN", "None", "complex", "0-d", "1-D", "3-D"])
def test_bad_given_tables_fail_as_in_sklearn(case):
    table = BAD_TABLES[case][0]
    try:
        sklearn_function("mutual_info_score")(None, None, contingency=table)
    except Exception as error:
        theirs = error
    else:
        raise AssertionError("scikit-learn accepted it")
    with pytest.raises(type(theirs)) as ours:
        _ours_mutual_info(table)
    fragment = str(theirs).split("\n")[0] if case != "None" else "int() argument must be"
    assert fragment in str(ours.value)


# Tables scikit-learn's mutual_info_score accepts (casting counts to int): the same value.
ACCEPTED_TABLES = {
    "object ints": np.array([[1, 2], [2, 3]], dtype=object),
    "strings of digits": np.array([["1", "2"], ["2", "3"]]),
    "non-integral floats": np.array([[1, 1.5], [2, 3.9]]),
    "bool": np.array([[True, False], [True, True]]),
    "timedelta": np.array([[1, 2], [3, 4]], dtype="m8[s]"),
    "float16": np.array([[1, 2], [3, 4]], dtype=np.float16),
    "big-endian": np.array([[1, 2], [3, 4]], dtype=">i8"),
    "strided": np.arange(16).reshape(4, 4)[::2, ::-2],
    "sparse with duplicates": sp.coo_matrix(([1, 1, 2], ([0, 0, 1], [0, 0, 1])), shape=(2, 3)),
    "sparse explicit zero": sp.csr_matrix(([0, 1], ([0, 1], [0, 1])), shape=(2, 2)),
}


@pytest.mark.parametrize("case", list(ACCEPTED_TABLES))
def test_given_tables_sklearn_accepts_give_its_score(case):
    table = ACCEPTED_TABLES[case]
    theirs = sklearn_function("mutual_info_score")(None, None, contingency=table)
    assert_same_result(_ours_mutual_info(table), theirs, "mutual_info_score")


def test_contingency_counts_up_to_2_64_minus_1_samples_are_exact():
    c = fcm.Contingency(np.array([[2**63 - 1, 2**63 - 1], [1, 0]], dtype=np.int64))
    assert c.n == 2**64 - 1
    # sizes of 2**63 and more do not wrap to negative int64 values
    assert [int(x) for x in c.class_sizes] == [2**64 - 2, 1]
    assert [int(x) for x in c.cluster_sizes] == [2**63, 2**63 - 1]
    assert c.to_numpy().tolist() == [[2**63 - 1, 2**63 - 1], [1, 0]]


def test_merging_tables_past_the_limits_is_refused():
    half = fcm.Contingency(np.array([[2**63 - 1]], dtype=np.int64), classes=["a"], clusters=["x"])
    other = fcm.Contingency(np.array([[2**63 - 1]], dtype=np.int64), classes=["b"], clusters=["y"])
    both = half + other  # two cells: n = 2**64 - 2
    assert both.n == 2**64 - 2
    assert both.to_numpy().tolist() == [[2**63 - 1, 0], [0, 2**63 - 1]]
    with pytest.raises(ValueError, match=re.escape("at most 2**64 - 1 are supported")):
        both + fcm.Contingency(np.array([[2]]), classes=["c"], clusters=["z"])
    quarter = fcm.Contingency(np.array([[2**62]], dtype=np.int64))
    with pytest.raises(ValueError, match=re.escape("a merged cell would count 2**63 samples")):
        quarter + quarter


def test_a_given_table_too_large_is_refused_before_allocating():
    side = 2**32 - 2  # the most rows the core indexes; their sums alone need 128 GiB
    huge = sp.coo_matrix(([1, 2], ([0, 1], [0, 1])), shape=(side, side))
    if _given.physical_memory() is None or _given.physical_memory() >= 16 * 2 * side:
        pytest.skip("this machine could hold the row and column sums")
    with pytest.raises(MemoryError, match="row and column sums"):
        fcm.Contingency(huge)
    with pytest.raises(MemoryError, match="row and column sums"):
        _ours_mutual_info(huge)
    wider = sp.coo_matrix(([1], ([0], [0])), shape=(2, side + 1))
    with pytest.raises(ValueError, match=re.escape("more than 2**32 - 2 rows or columns")):
        fcm.Contingency(wider)


def test_dense_table_of_a_sparse_contingency_too_large_is_refused():
    wide = fcm.Contingency(sp.coo_matrix(([1], ([0], [0])), shape=(200_000, 200_000)))
    assert wide.n == 1
    with pytest.raises(MemoryError, match="a dense 200000 x 200000 contingency matrix"):
        wide.to_numpy()


# --------------------------------------------------------------------------------------------
# Parameters test_errors.py does not cover
# --------------------------------------------------------------------------------------------

PARAMETERS = [
    ("v_measure_score", {"beta": float("nan")}),
    ("v_measure_score", {"beta": np.float64(-1.0)}),
    ("v_measure_score", {"beta": 1j}),
    ("homogeneity_completeness_v_measure", {"beta": "1"}),
    ("contingency_matrix", {"eps": float("nan")}),
    ("contingency_matrix", {"eps": float("inf")}),
    ("contingency_matrix", {"eps": "0.1"}),
    ("adjusted_mutual_info_score", {"average_method": "MIN"}),
    ("normalized_mutual_info_score", {"average_method": b"min"}),
    ("normalized_mutual_info_score", {"average_method": ["min"]}),
]


@pytest.mark.parametrize(("name", "kwargs"), PARAMETERS, ids=[f"{n}-{k}" for n, k in PARAMETERS])
def test_more_invalid_parameters_fail_as_in_sklearn(name, kwargs):
    with pytest.raises(SkInvalidParameterError) as theirs:
        sklearn_function(name)([0, 1, 1], [0, 0, 1], **kwargs)
    with pytest.raises(fcm.InvalidParameterError) as ours:
        getattr(fcm, name)([0, 1, 1], [0, 0, 1], **kwargs)
    assert normalise_message(str(ours.value)) == normalise_message(str(theirs.value))


@pytest.mark.parametrize(
    ("method", "kwargs", "parameter"),
    [
        ("normalized_mutual_info_score", {"average_method": "mean"}, "average_method"),
        ("adjusted_mutual_info_score", {"average_method": None}, "average_method"),
        ("v_measure_score", {"beta": -1}, "beta"),
        ("homogeneity_completeness_v_measure", {"beta": float("inf")}, "beta"),
    ],
)
def test_invalid_parameters_of_table_methods(method, kwargs, parameter):
    c = fcm.Contingency.from_labels([0, 1, 1], [0, 0, 1])
    with pytest.raises(fcm.InvalidParameterError, match=f"The '{parameter}' parameter of {method}"):
        getattr(c, method)(**kwargs)


@pytest.mark.parametrize(
    ("func", "name"),
    [
        (fcm.evaluate, "evaluate"),
        (fcm.Contingency.from_labels, "Contingency.from_labels"),
        (FUNCTIONS["compare_many"], "compare_many"),
        (lambda t, p, **kw: fcm.entropy(t, **kw), "entropy"),
    ],
)
def test_invalid_missing_policy_on_every_entry_point(func, name):
    with pytest.raises(fcm.InvalidParameterError, match=f"The 'missing' parameter of {name}"):
        func([0, 1], [0, 1], missing="ignore")


def test_unknown_metric_names():
    hint = re.escape("did you mean 'adjusted_rand_score' (ARI)")
    unknown = "unknown metric 'adjusted_rand_scor' for evaluate.*"
    with pytest.raises(fcm.InvalidParameterError, match=unknown + hint):
        fcm.evaluate([0, 1], [0, 1], metrics=["adjusted_rand_scor"])
    with pytest.raises(fcm.InvalidParameterError, match="unknown metric 'ar1' for compare_many"):
        fcm.compare_many([0, 1], {"p": [0, 1]}, metrics=["ar1"])


# --------------------------------------------------------------------------------------------
# Labels at the extremes of every dtype are labels like any other
# --------------------------------------------------------------------------------------------


def _extremes(dtype, family):
    dtype = np.dtype(dtype)
    if family == "integral":  # floats whose values are all integers: read as int64
        top = 65504 if dtype == np.float16 else 2**62
        return np.array([-top, -2048, -1, -0.0, 0, 1, 2048, top], dtype=dtype)
    if dtype.kind == "b":
        return np.array([True, False])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        top = int(info.max)
        values = {int(info.min), int(info.min) + 1, 0, 1, top - 1, top}
        if dtype == np.uint64:
            values |= {2**63 - 1, 2**63, 2**63 + 1}
        return np.array(sorted(values), dtype=dtype)
    info = np.finfo(dtype)
    return np.array(
        [-info.max, -1.0, -0.0, 0.0, info.smallest_subnormal, info.tiny, 1.0, info.max],
        dtype=dtype,
    )


EXTREME_DTYPES = [
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    np.bool_,
]


EXTREME_CASES = [(d, "extremes") for d in EXTREME_DTYPES] + [
    (d, "integral") for d in (np.float16, np.float32, np.float64)
]


@pytest.mark.parametrize("byteorder", ["=", ">"], ids=["native", "big-endian"])
@pytest.mark.parametrize(
    ("dtype", "family"), EXTREME_CASES, ids=[f"{np.dtype(d).name}-{f}" for d, f in EXTREME_CASES]
)
@pytest.mark.parametrize("name", [*ALL, "entropy"])
def test_extreme_values_give_the_scores_of_their_rank_codes(name, dtype, family, byteorder):
    values = _extremes(dtype, family)
    rng = np.random.default_rng(7)
    picks_true = rng.integers(0, values.size, 60)
    picks_pred = rng.integers(0, values.size, 60)
    picks_pred[:30] = picks_true[:30]  # related labelings, so scores are not all near zero
    labels_true = values[picks_true].astype(values.dtype.newbyteorder(byteorder))
    labels_pred = values[::-1][picks_pred].astype(values.dtype.newbyteorder(byteorder))
    with warnings.catch_warnings():
        # subnormal and tiny floats are non-integral labels: scikit-learn's warning
        warnings.filterwarnings("ignore", "Clustering metrics expects discrete", UserWarning)
        # float16 labels used to warn of an overflow that does not happen (see the end)
        warnings.filterwarnings("ignore", "overflow encountered in cast", RuntimeWarning)
        if name == "entropy":
            assert fcm.entropy(labels_true) == fcm.entropy(_rank_codes(labels_true))
            return
        _assert_same_as_codes(name, labels_true, labels_pred)
        if name == "contingency_matrix":  # the order of classes is the order of label values
            expected = sklearn_quiet(name, labels_true, labels_pred)
            assert fcm.contingency_matrix(labels_true, labels_pred).tolist() == expected.tolist()
        if name == "Contingency.from_labels":
            c = fcm.Contingency.from_labels(labels_true, labels_pred)
            assert c.classes.tolist() == np.unique(labels_true).tolist()


# --------------------------------------------------------------------------------------------
# Found by these tests and fixed: each failed before its fix
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["contingency_matrix", "entropy"])
def test_masked_arrays_are_not_read_through_their_mask(name):
    masked = np.ma.array([0, 1, 1, 2], mask=[False, True, False, False])
    pred = [0, 1, 1, 0]
    args = (masked,) if name == "entropy" else (masked, pred)
    try:
        ours = getattr(fcm, name)(*args)
    except (ValueError, TypeError):
        return
    unmasked = (masked.data,) if name == "entropy" else (masked.data, pred)
    assert _plain(ours) != _plain(getattr(fcm, name)(*unmasked))
    assert _plain(ours) == _plain(sklearn_quiet(name, *args))


@pytest.mark.parametrize(
    "labels",
    [
        [0, None, 1, 1],
        _objects(0, None, 1, 1),
        _objects(0.0, float("nan"), 1.0, 1.0),
        _objects(0, pd.NA, 1, 1),
    ],
    ids=["None in list", "None", "NaN", "pd.NA"],
)
def test_missing_among_numeric_objects_follows_the_missing_policy(labels):
    pred = [0, 0, 1, 1]
    with pytest.raises(ValueError, match="1 of 4 labels are missing"):
        fcm.adjusted_rand_score(labels, pred)
    assert fcm.adjusted_rand_score(labels, pred, missing="drop") == fcm.adjusted_rand_score(
        [0, 1, 1], [0, 1, 1]
    )
    assert fcm.contingency_matrix(labels, pred, missing="cluster").tolist() == [
        [1, 0],
        [0, 2],
        [1, 0],
    ]


@pytest.mark.parametrize("name", SKLEARN_CHECKED_FUNCTIONS)
def test_sequences_as_labels_fail_as_in_sklearn(name):
    labels = _objects((1, 2), (1, 2), (3,))
    theirs = _sklearn_outcome(name, labels, [0, 1, 1])
    assert isinstance(theirs, ValueError)
    with pytest.raises(ValueError, match="legacy multi-label data representation"):
        getattr(fcm, name)(labels, [0, 1, 1])


def test_float16_labels_do_not_warn():
    labels = np.array([0, 1, 1, 2], dtype=np.float16)
    assert fcm.adjusted_rand_score(labels, [0, 1, 1, 2]) == 1.0  # any warning is an error here


@pytest.mark.parametrize("dtype", ["U1", object])
def test_compare_many_refuses_a_two_dimensional_truth_by_shape(dtype):
    truth = np.array([["a", "b"], ["b", "a"]], dtype=dtype)
    with pytest.raises(ValueError, match=re.escape("labels_true must be 1D: shape is (2, 2)")):
        fcm.compare_many(truth, {"p": [0, 1]})


def test_continuous_labels_against_strings_with_missing_labels():
    strings = np.array(["a", None, "b", "a"], dtype=object)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Clustering metrics expects discrete", UserWarning)
        got = fcm.adjusted_rand_score([0.5, 1.5, 0.5, 0.5], strings, missing="drop")
    assert got == fcm.adjusted_rand_score([0, 0, 0], [0, 1, 0])


HANG_SCRIPT = """
import numpy as np, fastcluster_metrics as fcm
c = fcm.Contingency(np.array([[2**62, 1], [1, 2**62]], dtype=np.int64))
try:
    value = c.adjusted_mutual_info_score()
except ValueError:
    print("refused")
else:
    assert -1.0 <= value <= 1.0, value
    print("value")
"""


def test_ami_of_a_huge_given_table_does_not_hang():
    out = subprocess.run(
        [sys.executable, "-c", HANG_SCRIPT],
        capture_output=True,
        text=True,
        timeout=5,
        check=True,
    )
    assert out.stdout.strip() in ("refused", "value")
