"""contingency_matrix (dense, eps, sparse, dtype) and mutual_info_score(contingency=...)."""

import numpy as np
import pytest
import reference
import scipy.sparse as sp
from helpers import labelings, sklearn_function, tables
from hypothesis import given

import fastcluster_metrics as fcm

LABELS = {
    "ints": (
        [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3],
        [1, 1, 1, 1, 2, 1, 2, 2, 2, 2, 3, 1, 3, 3, 3, 2, 2],
    ),
    "unsorted negative": ([5, -3, 5, 0, -3, 9, 9, 0], [-1, -1, 2, 2, 7, 7, -1, 2]),
    "strings": (["b", "a", "c", "a", "b", "b"], ["y", "x", "x", "z", "z", "y"]),
    "bool": ([True, False, True, True], [False, False, True, True]),
    "one sample": ([4], [2]),
    "empty": ([], []),
}


def _sk_contingency(*args, **kwargs):
    return sklearn_function("contingency_matrix")(*args, **kwargs)


def _assert_same_dense(ours, theirs):
    assert type(ours) is np.ndarray
    assert ours.dtype == theirs.dtype
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)


def _assert_same_sparse(ours, theirs):
    assert sp.issparse(ours)
    assert type(ours) is type(theirs)  # csr_matrix, as scikit-learn returns by default
    assert ours.format == "csr"
    assert ours.dtype == theirs.dtype
    assert ours.shape == theirs.shape
    assert ours.has_canonical_format
    np.testing.assert_array_equal(ours.toarray(), theirs.toarray())


@pytest.mark.parametrize("case", list(LABELS))
def test_dense_equals_sklearn(case):
    labels_true, labels_pred = LABELS[case]
    ours = fcm.contingency_matrix(labels_true, labels_pred)
    _assert_same_dense(ours, _sk_contingency(labels_true, labels_pred))
    np.testing.assert_array_equal(ours, reference.contingency(labels_true, labels_pred))


def test_rows_and_columns_follow_sorted_labels():
    ours = fcm.contingency_matrix([30, 10, 20, 10], ["b", "a", "a", "c"])
    # rows 10, 20, 30; columns "a", "b", "c"
    expected = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 0]], dtype=np.int64)
    _assert_same_dense(ours, expected)


@pytest.mark.parametrize("case", list(LABELS))
@pytest.mark.parametrize("eps", [0, 0.0, 0.1, 1e-10, 2.5])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64, np.float32])
def test_eps(case, eps, dtype):
    labels_true, labels_pred = LABELS[case]
    ours = fcm.contingency_matrix(labels_true, labels_pred, eps=eps, dtype=dtype)
    _assert_same_dense(ours, _sk_contingency(labels_true, labels_pred, eps=eps, dtype=dtype))


def test_eps_is_added_to_every_cell():
    labels_true, labels_pred = LABELS["ints"]
    plain = fcm.contingency_matrix(labels_true, labels_pred)
    with_eps = fcm.contingency_matrix(labels_true, labels_pred, eps=0.1)
    assert with_eps.dtype == np.float64
    np.testing.assert_allclose(with_eps, plain + 0.1, rtol=0, atol=0)


@pytest.mark.parametrize("case", list(LABELS))
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64, np.float32, np.uint16])
def test_sparse_equals_sklearn(case, dtype):
    labels_true, labels_pred = LABELS[case]
    ours = fcm.contingency_matrix(labels_true, labels_pred, sparse=True, dtype=dtype)
    _assert_same_sparse(ours, _sk_contingency(labels_true, labels_pred, sparse=True, dtype=dtype))


@pytest.mark.parametrize("case", list(LABELS))
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int16, np.uint8, np.float64, np.float32])
def test_dense_dtype_argument(case, dtype):
    labels_true, labels_pred = LABELS[case]
    ours = fcm.contingency_matrix(labels_true, labels_pred, dtype=dtype)
    assert ours.dtype == np.dtype(dtype)
    _assert_same_dense(ours, _sk_contingency(labels_true, labels_pred, dtype=dtype))


@given(labels=labelings())
def test_sparse_and_dense_agree_with_sklearn(labels):
    ours = fcm.contingency_matrix(*labels, sparse=True)
    _assert_same_sparse(ours, _sk_contingency(*labels, sparse=True))
    np.testing.assert_array_equal(ours.toarray(), fcm.contingency_matrix(*labels))


def test_eps_with_sparse_is_an_error():
    labels_true, labels_pred = LABELS["ints"]
    with pytest.raises(ValueError, match="Cannot set 'eps' when sparse=True"):
        fcm.contingency_matrix(labels_true, labels_pred, eps=1e-10, sparse=True)


# --------------------------------------------------------------------------------------------
# mutual_info_score with a given contingency table
# --------------------------------------------------------------------------------------------

CONTINGENCY_FORMS = {
    "dense int64": lambda t: np.asarray(t, dtype=np.int64),
    "dense int32": lambda t: np.asarray(t, dtype=np.int32),
    "dense float64": lambda t: np.asarray(t, dtype=np.float64),
    "nested list": lambda t: np.asarray(t).tolist(),
    "csr_matrix": lambda t: sp.csr_matrix(np.asarray(t)),
    "csr_array": lambda t: sp.csr_array(np.asarray(t)),
    "coo_matrix": lambda t: sp.coo_matrix(np.asarray(t)),
    "coo_array": lambda t: sp.coo_array(np.asarray(t)),
    "csc_matrix": lambda t: sp.csc_matrix(np.asarray(t)),
}


@pytest.mark.parametrize("form", list(CONTINGENCY_FORMS))
def test_mutual_info_of_a_given_contingency(form):
    labels_true, labels_pred = LABELS["ints"]
    table = fcm.contingency_matrix(labels_true, labels_pred)
    given_table = CONTINGENCY_FORMS[form](table)
    ours = fcm.mutual_info_score(None, None, contingency=given_table)
    assert type(ours) is float
    assert ours == pytest.approx(0.41022, abs=1e-5)  # scikit-learn's test-suite
    assert ours == pytest.approx(reference.mutual_info_from_table(table), rel=1e-12)
    theirs = sklearn_function("mutual_info_score")(None, None, contingency=given_table)
    assert ours == pytest.approx(theirs, rel=1e-12)
    # the labels are ignored when a contingency is given
    assert fcm.mutual_info_score([0, 1], [1, 1], contingency=given_table) == ours


@pytest.mark.parametrize("form", list(CONTINGENCY_FORMS))
@given(table=tables())
def test_mutual_info_of_random_tables(form, table):
    given_table = CONTINGENCY_FORMS[form](table)
    ours = fcm.mutual_info_score(None, None, contingency=given_table)
    assert type(ours) is float
    assert ours == pytest.approx(reference.mutual_info_from_table(table), rel=1e-12, abs=1e-13)
    theirs = sklearn_function("mutual_info_score")(None, None, contingency=given_table)
    assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-13)


@given(labels=labelings(min_size=1))
def test_mutual_info_from_own_sparse_contingency(labels):
    table = fcm.contingency_matrix(*labels, sparse=True)
    from_table = fcm.mutual_info_score(None, None, contingency=table)
    from_labels = fcm.mutual_info_score(*labels)
    assert from_table == pytest.approx(from_labels, rel=1e-12, abs=1e-13)
