"""Fuzzing the entry points: any input gives the right answer or a ValueError / TypeError.

Random dtypes (every numpy integer, float, bool, ``U``, ``S``, object and complex), shapes
(0-d, 1-d, 2-d), memory layouts (steps, negative steps, big- and little-endian), containers
(arrays, lists, tuples), values (extremes, NaN, inf, None, mixed types), lengths 0..50 and
mismatched pairs. Every call must either raise ValueError or TypeError (never a panic, a
SystemError or anything else), or return exactly what the same function returns on the rank
codes of the labels (``np.unique(..., return_inverse=True)``), itself checked against
scikit-learn. Which of the two is decided here, independently of the package: inputs that are
certainly valid must not raise and inputs that are certainly invalid must not return.

``HYPOTHESIS_PROFILE=slow`` runs the deep version (see conftest.py).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from helpers import (
    AVERAGE_METHODS,
    FUNCTIONS,
    SKLEARN_CHECKED_FUNCTIONS,
    assert_same_result,
    normalise_message,
    sklearn_function,
    sklearn_quiet,
)
from hypothesis import assume, event, given, note
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.utils._param_validation import InvalidParameterError as SkInvalidParameterError

import fastcluster_metrics as fcm

ERRORS = (ValueError, TypeError)


def _plain(result):
    """A result as plain Python values comparable with == (NaN as 'nan', bit-exact floats)."""
    if isinstance(result, fcm.Contingency):
        return _plain(result.to_numpy())
    if isinstance(result, fcm.Evaluation):
        return _plain(result.to_dict())
    if isinstance(result, pd.DataFrame):
        return _plain(result.to_dict())
    if isinstance(result, np.ndarray):
        return (str(result.dtype), result.shape, _plain(result.tolist()))
    if isinstance(result, dict):
        return {k: _plain(v) for k, v in result.items()}
    if isinstance(result, (list, tuple)):
        return type(result)(_plain(v) for v in result)
    if isinstance(result, float):
        return "nan" if math.isnan(result) else result.hex()
    return result


def _quiet_call(func, *args, **kwargs):
    """The result or the ValueError/TypeError of a call; any other exception propagates.

    Every warning is an error, except scikit-learn's warning about non-integral labels and the
    spurious overflow warning of float16 labels (a known bug: see test_bad_inputs.py).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", "Clustering metrics expects discrete", UserWarning)
        warnings.filterwarnings(
            "ignore",
            "overflow encountered in cast",
            RuntimeWarning,
            module=r"fastcluster_metrics\._labels",
        )
        try:
            return func(*args, **kwargs), None
        except ERRORS as error:
            return None, error


# --------------------------------------------------------------------------------------------
# Strategies: one labeling of any kind
# --------------------------------------------------------------------------------------------

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_DTYPES = ["float16", "float32", "float64"]
KINDS = [*INT_DTYPES, *FLOAT_DTYPES, "bool", "U", "S", "object", "complex128"]


def _pool(draw, kind: str) -> list:
    """A few distinct-ish label values of one kind (labels repeat, so tables are not trivial)."""
    size = draw(st.integers(1, 6))
    if kind in INT_DTYPES:
        info = np.iinfo(kind)
        extremes = st.sampled_from([int(info.min), int(info.max), 0, 1, int(info.max) - 1])
        values = st.one_of(extremes, st.integers(int(info.min), int(info.max)))
    elif kind in FLOAT_DTYPES:
        width = int(kind[5:])
        info = np.finfo(kind)
        extremes = st.sampled_from(
            [float(info.max), -float(info.max), float(info.tiny), -0.0, 0.0, 1.0, math.nan]
        )
        values = st.one_of(
            extremes,
            st.integers(-(2**11), 2**11).map(float),
            st.floats(width=width, allow_nan=True, allow_infinity=True),
        )
    elif kind == "bool":
        values = st.booleans()
    elif kind == "U":
        values = st.text(st.characters(codec=None, exclude_categories=()), max_size=3)
    elif kind == "S":
        values = st.binary(max_size=3)
    elif kind == "complex128":
        values = st.complex_numbers(max_magnitude=10, allow_nan=False)
    else:  # object: mostly one type of value (with missing ones), sometimes a mix
        flavours = {
            "str": st.text(max_size=2),
            "str or missing": st.one_of(st.text(max_size=2), st.none(), st.just(math.nan)),
            "int": st.integers(-(2**70), 2**70),
            "float": st.floats(allow_nan=True, allow_infinity=True),
            "bytes": st.binary(max_size=2),
        }
        flavour = draw(st.sampled_from([*flavours, "mixed"]))
        values = flavours.get(flavour, st.one_of(*flavours.values(), st.booleans()))
    return draw(st.lists(values, min_size=size, max_size=size))


@st.composite
def labelings(draw, n: int):
    """One labeling of n samples, in one of many forms (see the module docstring)."""
    kind = draw(st.sampled_from(KINDS))
    pool = _pool(draw, kind)
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n))
    if kind in ("U", "S", "object"):
        dtype = np.dtype(object) if kind == "object" else np.dtype(kind)
        values = np.empty(n, dtype=object)
        values[:] = [pool[i] for i in picks]
        arr = values.astype(dtype) if kind != "object" else values
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # float values that overflow the narrower dtypes
            arr = np.array([pool[i] for i in picks], dtype=kind)
    if arr.dtype.itemsize > 1 and arr.dtype.kind != "O":
        arr = arr.astype(arr.dtype.newbyteorder(draw(st.sampled_from("<>"))))
    step = draw(st.sampled_from([1, 1, 2, 3, -1, -2]))
    if step != 1 and n:
        big = np.empty(n * abs(step), dtype=arr.dtype)
        big[:] = arr[0]  # the elements between the labels: values that must not be read
        big[::step] = arr
        arr = big[::step]
    form = draw(st.sampled_from(["array"] * 6 + ["list", "tuple", "0-d", "2-d"]))
    if form == "list":
        return arr.tolist()
    if form == "tuple":
        return tuple(arr.tolist())
    if form == "0-d":
        return arr[0] if n and arr.dtype.kind != "O" else np.asarray(arr[0] if n else 0)
    if form == "2-d":
        return arr.reshape(1, -1) if draw(st.booleans()) else arr.reshape(-1, 1)
    return arr


# --------------------------------------------------------------------------------------------
# The independent verdict: what an input means
# --------------------------------------------------------------------------------------------


@dataclass
class Reading:
    """What a labeling is: 'ok' (codes and missing mask), 'invalid' or 'unsortable'."""

    verdict: str
    values: np.ndarray | None = None
    missing: np.ndarray | None = None
    tolerated: bool = False  # may also raise (a known limitation, xfailed in test_bad_inputs)


def _read(labels) -> Reading:
    try:
        arr = np.asarray(labels)
    except ERRORS:
        return Reading("invalid")
    if arr.ndim != 1 or arr.dtype.kind == "c":
        return Reading("invalid")
    if arr.dtype.kind == "f":
        if np.isinf(arr).any():
            return Reading("invalid")
        return Reading("ok", arr, np.isnan(arr))
    if arr.dtype.kind == "O":
        missing = np.array(
            [v is None or (isinstance(v, float) and math.isnan(v)) for v in arr], dtype=bool
        )
        others = arr[~missing]
        all_str = all(isinstance(v, str) for v in others)
        # None and NaN among non-string objects reach np.unique (test_bad_inputs.py's xfail)
        return Reading("ok", arr, missing, tolerated=bool(missing.any()) and not all_str)
    return Reading("ok", arr, np.zeros(arr.shape, dtype=bool))


def _rank_codes(values: np.ndarray, missing: np.ndarray, policy: str) -> np.ndarray | None:
    """Rank codes of the non-missing values, missing last ('cluster'); None if unsortable."""
    try:
        uniques, inverse = np.unique(values[~missing], return_inverse=True)
    except TypeError:
        return None
    codes = np.full(values.shape[0], uniques.size, dtype=np.int64)
    codes[~missing] = inverse.reshape(-1)
    return codes


@dataclass
class Expectation:
    """'raise', 'result' (with the codes to compare against) or 'either' (with codes)."""

    outcome: str
    codes: tuple[np.ndarray, np.ndarray] | None = None


def _expect_pair(labels_true, labels_pred, policy: str) -> Expectation:
    true, pred = _read(labels_true), _read(labels_pred)
    if "invalid" in (true.verdict, pred.verdict):
        return Expectation("raise")
    assert true.values is not None and pred.values is not None
    assert true.missing is not None and pred.missing is not None
    if true.values.shape != pred.values.shape:
        return Expectation("raise")
    if policy == "raise" and (true.missing.any() or pred.missing.any()):
        return Expectation("raise")
    keep = np.ones(true.values.shape, dtype=bool)
    if policy == "drop":
        keep = ~true.missing & ~pred.missing
    codes = []
    for side in (true, pred):
        side_codes = _rank_codes(side.values[keep], side.missing[keep], policy)
        if side_codes is None:
            return Expectation("raise")
        codes.append(side_codes)
    tolerated = true.tolerated or pred.tolerated
    # Non-integral floats on one side: the wording of scikit-learn's warning sorts the other
    # side, which fails on missing labels among strings (test_bad_inputs.py's xfail).
    for one, other in ((true, pred), (pred, true)):
        if _is_continuous(one.values) and other.values.dtype.kind == "O" and other.missing.any():
            tolerated = True
    return Expectation("either" if tolerated else "result", (codes[0], codes[1]))


def _is_continuous(values: np.ndarray) -> bool:
    if values.dtype.kind != "f":
        return False
    finite = values[~np.isnan(values)]
    return bool((finite != np.trunc(finite)).any())


def _check(name, labels_true, labels_pred, policy):
    expectation = _expect_pair(labels_true, labels_pred, policy)
    note(f"{name}: expect {expectation.outcome}")
    got, error = _quiet_call(FUNCTIONS[name], labels_true, labels_pred, missing=policy)
    event(f"expected {expectation.outcome}, {'raised' if error else 'returned'}")
    if expectation.outcome == "raise":
        assert error is not None, f"{name} accepted an invalid input and returned {got!r}"
        return
    if error is not None and expectation.outcome == "either":
        return
    assert expectation.codes is not None
    codes_true, codes_pred = expectation.codes
    # Valid: the same result, or the same error (mutual_info_score of nothing), as the codes.
    want, want_error = _quiet_call(FUNCTIONS[name], codes_true, codes_pred)
    assert repr(error) == repr(want_error), f"{name}: {error!r} on the labels"
    assert _plain(got) == _plain(want)


@given(data=st.data())
def test_every_entry_point_is_right_or_refuses(data):
    n_true = data.draw(st.integers(0, 50), label="n")
    mismatched = data.draw(st.integers(0, 4), label="mismatched") == 0
    n_pred = data.draw(st.integers(0, 50), label="n_pred") if mismatched else n_true
    labels_true = data.draw(labelings(n_true), label="labels_true")
    labels_pred = data.draw(labelings(n_pred), label="labels_pred")
    policy = data.draw(st.sampled_from(["raise", "raise", "drop", "cluster"]), label="missing")
    for name in FUNCTIONS:
        _check(name, labels_true, labels_pred, policy)


@given(data=st.data())
def test_entropy_is_right_or_refuses(data):
    n = data.draw(st.integers(0, 50), label="n")
    labels = data.draw(labelings(n), label="labels")
    policy = data.draw(st.sampled_from(["raise", "drop", "cluster"]), label="missing")
    reading = _read(labels)
    got, error = _quiet_call(fcm.entropy, labels, missing=policy)
    if reading.verdict == "invalid" or (policy == "raise" and reading.missing.any()):
        assert error is not None, f"entropy accepted an invalid input: {got!r}"
        return
    codes = _rank_codes(reading.values, reading.missing, policy)
    if codes is None:
        assert error is not None
        return
    if error is not None and reading.tolerated:
        return
    assert error is None, f"entropy refused a valid input: {error!r}"
    if policy == "drop":
        codes = codes[~reading.missing]
    assert _plain(got) == _plain(fcm.entropy(codes))


@given(
    codes=st.integers(0, 40).flatmap(
        lambda n: st.tuples(
            hnp.arrays(np.int64, n, elements=st.integers(0, 5)),
            hnp.arrays(np.int64, n, elements=st.integers(0, 7)),
        )
    )
)
def test_rank_codes_agree_with_sklearn(codes):
    """The second oracle: our functions on int64 codes (the fuzz's reference) equal sklearn's."""
    labels_true, labels_pred = codes
    for name in [*SKLEARN_CHECKED_FUNCTIONS, "contingency_matrix"]:
        if name == "mutual_info_score" and labels_true.size == 0:
            continue  # ours says why it is undefined, scikit-learn 'math domain error'
        ours = getattr(fcm, name)(labels_true, labels_pred)
        assert_same_result(ours, sklearn_quiet(name, labels_true, labels_pred), name)


# --------------------------------------------------------------------------------------------
# Given tables and parameters
# --------------------------------------------------------------------------------------------

TABLE_DTYPES = [*INT_DTYPES, *FLOAT_DTYPES, "bool", "object", "complex128", "U"]


@st.composite
def given_tables(draw):
    dtype = draw(st.sampled_from(TABLE_DTYPES))
    shape = draw(st.tuples(st.integers(0, 4), st.integers(0, 4)))
    cells = shape[0] * shape[1]
    small = st.integers(0, 9)
    if dtype in INT_DTYPES:
        info = np.iinfo(dtype)
        special = st.sampled_from([int(info.min), int(info.max), -1 if info.min else 1])
        values = draw(st.lists(st.one_of(small, special), min_size=cells, max_size=cells))
    elif dtype in FLOAT_DTYPES:
        special = st.sampled_from([math.nan, math.inf, -1.0, 0.5, 2.0**63, 1e30, -0.0])
        values = draw(
            st.lists(st.one_of(small.map(float), special), min_size=cells, max_size=cells)
        )
    elif dtype == "bool":
        values = draw(st.lists(st.booleans(), min_size=cells, max_size=cells))
    elif dtype == "object":
        special = st.sampled_from([None, 2**70, -1, 1.5, "3"])
        values = draw(st.lists(st.one_of(small, special), min_size=cells, max_size=cells))
    elif dtype == "complex128":
        values = draw(st.lists(small.map(complex), min_size=cells, max_size=cells))
    else:
        values = draw(st.lists(small.map(str), min_size=cells, max_size=cells))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = np.empty(cells, dtype=object)
        table[:] = values
        table = table.astype(dtype).reshape(shape) if dtype != "object" else table.reshape(shape)
    if draw(st.booleans()) and table.dtype.kind in "iufb" and table.size and dtype != "float16":
        table = sp.csr_matrix(table)
    return table


def _counts_if_valid(table) -> np.ndarray | None:
    """The int64 counts of a table the Contingency constructor must accept, else None."""
    dense = table.toarray() if sp.issparse(table) else np.asarray(table)
    if dense.dtype.kind not in "iufb":
        return None
    as_float = dense.astype(np.float64)
    if dense.dtype.kind in "iu":
        as_int = [int(v) for v in dense.flat]
        if any(v < 0 or v >= 2**63 for v in as_int) or sum(as_int) >= 2**64:
            return None
        return dense.astype(np.int64)
    if not np.isfinite(as_float).all() or (as_float < 0).any() or (as_float >= 2**63).any():
        return None
    if (as_float != np.trunc(as_float)).any():
        return None
    return dense.astype(np.int64)


@given(table=given_tables())
def test_given_tables_are_right_or_refused(table):
    counts = _counts_if_valid(table)
    got, error = _quiet_call(fcm.Contingency, table)
    if counts is None:
        assert error is not None, f"Contingency accepted {table!r}"
    else:
        assert error is None, f"Contingency refused a valid table: {error!r}"
        assert got.to_numpy().tolist() == counts.tolist()
        assert got.n == sum(int(v) for v in counts.flat)
    mi, mi_error = _quiet_call(fcm.mutual_info_score, None, None, contingency=table)
    if counts is not None:
        want, want_error = _quiet_call(fcm.mutual_info_score, None, None, contingency=counts)
        assert type(mi_error) is type(want_error)
        assert _plain(mi) == _plain(want)
        # scikit-learn's own float products overflow for counts near 2**63: compare small ones
        if want_error is None and 0 < counts.sum() and counts.max() < 2**20:
            theirs = sklearn_function("mutual_info_score")(None, None, contingency=counts)
            assert_same_result(mi, theirs, "mutual_info_score")


PARAMETER_VALUES = st.one_of(
    st.sampled_from([*AVERAGE_METHODS, "MIN", "", "mean"]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-3, 3),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
    st.sampled_from([np.float64(-1.0), np.float32(0.5), np.int64(2), 1j, [1.0]]),
)
PARAMETER_CASES = [
    ("v_measure_score", "beta"),
    ("homogeneity_completeness_v_measure", "beta"),
    ("normalized_mutual_info_score", "average_method"),
    ("adjusted_mutual_info_score", "average_method"),
    ("contingency_matrix", "eps"),
]


@pytest.mark.parametrize(("name", "parameter"), PARAMETER_CASES)
@given(value=PARAMETER_VALUES)
def test_parameters_are_validated_as_sklearn_does(name, parameter, value):
    labels_true, labels_pred = [0, 1, 1, 2], [0, 0, 1, 1]
    try:
        theirs = sklearn_quiet(name, labels_true, labels_pred, **{parameter: value})
    except SkInvalidParameterError as error:
        with pytest.raises(fcm.InvalidParameterError) as ours:
            getattr(fcm, name)(labels_true, labels_pred, **{parameter: value})
        assert normalise_message(str(ours.value)) == normalise_message(str(error))
        return
    ours = getattr(fcm, name)(labels_true, labels_pred, **{parameter: value})
    assert_same_result(ours, theirs, name)


def _ndim(labels) -> int | None:
    try:
        return int(np.ndim(labels))
    except ERRORS:  # a list of str and non-ASCII bytes: numpy cannot decode the bytes
        return None


@given(data=st.data())
def test_mismatched_lengths_always_refused(data):
    n = data.draw(st.integers(0, 30))
    m = data.draw(st.integers(0, 30).filter(lambda m: m != n))
    labels_true = data.draw(labelings(n))
    labels_pred = data.draw(labelings(m))
    assume(_ndim(labels_true) == 1 and _ndim(labels_pred) == 1)
    for name, func in FUNCTIONS.items():
        got, error = _quiet_call(func, labels_true, labels_pred, missing="cluster")
        assert error is not None, f"{name} returned {got!r} for lengths {n} and {m}"
