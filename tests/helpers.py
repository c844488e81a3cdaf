"""Shared pieces of the test suite: the metric cases, the two oracles, tolerances, strategies."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
import reference
import sklearn.metrics.cluster as skc
from hypothesis import strategies as st
from sklearn.metrics.cluster._supervised import _entropy as sk_entropy

import fastcluster_metrics as fcm
from fastcluster_metrics._measures import lookup as _lookup

AVERAGE_METHODS = reference.AVERAGE_METHODS

# Scores of two labelings that scikit-learn also has, with their keyword variants.
PAIR_SCORES: list[tuple[str, dict]] = [
    ("rand_score", {}),
    ("adjusted_rand_score", {}),
    ("fowlkes_mallows_score", {}),
    ("mutual_info_score", {}),
    ("homogeneity_score", {}),
    ("completeness_score", {}),
    ("v_measure_score", {}),
    ("v_measure_score", {"beta": 0.25}),
    ("v_measure_score", {"beta": 3.0}),
    *[("normalized_mutual_info_score", {"average_method": m}) for m in AVERAGE_METHODS],
    *[("adjusted_mutual_info_score", {"average_method": m}) for m in AVERAGE_METHODS],
]

# Every public function of two labelings, with the default keywords.
# scikit-learn's tables, its measures and purity (the catalogue's defaults), and its three
# measures of one call.
LABEL_FUNCTIONS = [
    "contingency_matrix",
    "pair_confusion_matrix",
    *_lookup.default_names(),
    "homogeneity_completeness_v_measure",
]

# Functions that validate their labels as scikit-learn's check_clusterings does
# (contingency_matrix does not in scikit-learn; purity_score is ours and follows the others).
CHECKED_FUNCTIONS = [name for name in LABEL_FUNCTIONS if name != "contingency_matrix"]
SKLEARN_CHECKED_FUNCTIONS = [name for name in CHECKED_FUNCTIONS if name != "purity_score"]


def case_id(name: str, kwargs: dict) -> str:
    return name + "".join(f"[{k}={v}]" for k, v in kwargs.items())


def sklearn_function(name: str):
    """scikit-learn's function of that name; ``entropy`` is the non-deprecated private one."""
    if name == "entropy":
        return sk_entropy
    return getattr(skc, name)


def sklearn_quiet(name: str, *args, **kwargs):
    """Call scikit-learn with its warnings silenced (they are checked in test_errors.py)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sklearn_function(name)(*args, **kwargs)


# Tolerances. Scores agree with both oracles to a relative 1e-12; values near 0 (where a
# relative bound means nothing) to an absolute 1e-13. AMI gets an absolute 1e-12: scikit-learn's
# expected mutual information adds and subtracts lgamma values of size up to N log N, whose last
# bits move its AMI by up to ~1e-13 from the exact value.
REL = 1e-12
ABS = 1e-13
ABS_AMI = 1e-12


def tolerance(name: str) -> dict:
    return {"rel": REL, "abs": ABS_AMI if name == "adjusted_mutual_info_score" else ABS}


def assert_same_result(actual, expected, name: str, **tol) -> None:
    """Same type and shape as ``expected``; floats within the tolerances, integers exact."""
    tol = tol or tolerance(name)
    if isinstance(expected, tuple):
        assert type(actual) is tuple, type(actual)
        assert len(actual) == len(expected)
        for got, want in zip(actual, expected, strict=True):
            assert_same_result(got, want, name, **tol)
    elif isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray), type(actual)
        assert actual.dtype == expected.dtype
        assert actual.shape == expected.shape
        np.testing.assert_array_equal(actual, expected)
    else:
        assert type(actual) is float, type(actual)
        assert actual == pytest.approx(float(expected), **tol)


def normalise_message(message: str) -> str:
    """Sort the items of every ``{...}`` set in an error message (set order is not fixed)."""

    def sort_set(match: re.Match) -> str:
        items = sorted(item.strip() for item in match.group(1).split(","))
        return "{" + ", ".join(items) + "}"

    return re.sub(r"\{([^{}]*)\}", sort_set, message)


# --------------------------------------------------------------------------------------------
# Hypothesis strategies
# --------------------------------------------------------------------------------------------

INT64 = st.integers(-(2**63), 2**63 - 1)


@st.composite
def labelings(draw, min_size: int = 0, max_size: int = 300, max_labels: int = 20):
    """Two int64 labelings of the same length, 1..max_labels distinct values each.

    The predicted labels are independent of the true ones, a function of them (a perfect or
    merged clustering), or such a function with noise, so that scores near 0 and near 1 occur.
    Label values are arbitrary int64s, not 0..k-1.
    """
    n = draw(st.integers(min_size, max_size))
    k_true = draw(st.integers(1, max_labels))
    k_pred = draw(st.integers(1, max_labels))
    values_true = np.array(draw(st.lists(INT64, min_size=k_true, max_size=k_true, unique=True)))
    values_pred = np.array(draw(st.lists(INT64, min_size=k_pred, max_size=k_pred, unique=True)))
    codes_true = np.array(
        draw(st.lists(st.integers(0, k_true - 1), min_size=n, max_size=n)), dtype=np.int64
    )
    raw = np.array(
        draw(st.lists(st.integers(0, 4 * k_pred - 1), min_size=n, max_size=n)), dtype=np.int64
    )
    mode = draw(st.sampled_from(["independent", "function", "noisy function"]))
    if mode == "independent":
        codes_pred = raw % k_pred
    else:
        mapping = np.array(
            draw(st.lists(st.integers(0, k_pred - 1), min_size=k_true, max_size=k_true))
        )
        codes_pred = mapping[codes_true]
        if mode == "noisy function":
            codes_pred = np.where(raw % 4 == 0, raw // 4, codes_pred)
    return values_true[codes_true].astype(np.int64), values_pred[codes_pred].astype(np.int64)


@st.composite
def tables(draw, max_rows: int = 12, max_cols: int = 12, max_count: int = 30):
    """Contingency tables (rows and columns may be all zero) with at least one sample."""
    rows = draw(st.integers(1, max_rows))
    cols = draw(st.integers(1, max_cols))
    cells = draw(
        st.lists(st.integers(0, max_count), min_size=rows * cols, max_size=rows * cols).filter(any)
    )
    return np.array(cells, dtype=np.int64).reshape(rows, cols)


def is_undefined(value) -> bool:
    return isinstance(value, float) and math.isnan(value)


def same(a, b) -> bool:
    """Equal values, to the last bit; NaN equal to NaN."""
    return (is_undefined(a) and is_undefined(b)) or a == b


def ami_is_undefined(name: str, kwargs: dict, labels_true, labels_pred) -> bool:
    """AMI with ``average_method="min"`` and singletons on exactly one side is 0 / 0."""
    if name != "adjusted_mutual_info_score" or kwargs.get("average_method") != "min":
        return False
    return is_undefined(
        reference.adjusted_mutual_info_score(labels_true, labels_pred, average_method="min")
    )


def _compare_many(labels_true, labels_pred, **kwargs):
    return fcm.compare_many(labels_true, {"p": labels_pred}, **kwargs)


# Every public function of two labelings, by name (LABEL_FUNCTIONS and the ones beyond sklearn).
FUNCTIONS = {
    **{name: getattr(fcm, name) for name in LABEL_FUNCTIONS},
    "evaluate": fcm.evaluate,
    "Contingency.from_labels": fcm.Contingency.from_labels,
    "compare_many": _compare_many,
}
