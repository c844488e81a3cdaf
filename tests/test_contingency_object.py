"""The public Contingency table and evaluate(): one pass, every measure, mergeable, pickleable."""

import pickle

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import scipy.sparse as sp
from helpers import LABEL_FUNCTIONS
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import cluster as sk

import fastcluster_metrics as fcm
from fastcluster_metrics._measures import lookup as _lookup

# Every measure of two labelings is also a method of the table.
METHODS = [n for n in LABEL_FUNCTIONS if n not in ("contingency_matrix", "pair_confusion_matrix")]

pairs = st.integers(2, 80).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(-3, 6), min_size=n, max_size=n),
        st.lists(st.integers(0, 9), min_size=n, max_size=n),
    )
)


@given(pairs)
def test_methods_equal_the_functions(pair):
    true, pred = pair
    c = fcm.Contingency.from_labels(true, pred)
    for name in METHODS:
        assert getattr(c, name)() == getattr(fcm, name)(true, pred), name
    assert (c.pair_confusion_matrix() == fcm.pair_confusion_matrix(true, pred)).all()
    assert (c.to_numpy() == sk.contingency_matrix(true, pred)).all()
    assert c.classes.tolist() == sorted(set(true))
    assert c.clusters.tolist() == sorted(set(pred))
    assert c.n == len(true)
    assert c.entropy_true() == fcm.entropy(true)
    assert c.entropy_pred() == fcm.entropy(pred)
    for method in ("min", "geometric", "max"):
        assert c.adjusted_mutual_info_score(average_method=method) == (
            fcm.adjusted_mutual_info_score(true, pred, average_method=method)
        )


@given(pairs, st.integers(0, 80))
def test_tables_of_disjoint_samples_merge_by_label_value(pair, cut):
    true, pred = pair
    cut = min(cut, len(true))
    # Each part has its own label set: merging must match labels by value, not position.
    a = fcm.Contingency.from_labels(true[:cut], pred[:cut]) if cut else None
    b = fcm.Contingency.from_labels(true[cut:], pred[cut:])
    whole = fcm.Contingency.from_labels(true, pred)
    merged = b if a is None else a + b
    assert merged == whole
    assert merged.adjusted_mutual_info_score() == whole.adjusted_mutual_info_score()


def test_string_and_categorical_labels_are_kept():
    true = pd.Categorical(["b", "a", "c", "a"], categories=["c", "b", "a", "unused"])
    pred = pa.array(["x", "y", "x", "x"]).dictionary_encode()
    c = fcm.Contingency.from_labels(true, pred)
    assert c.classes.tolist() == ["a", "b", "c"]
    assert c.clusters.tolist() == ["x", "y"]
    assert c.to_numpy().tolist() == [[1, 1], [1, 0], [1, 0]]
    df = c.to_pandas()
    assert df.loc["a", "y"] == 1
    assert list(df.index) == ["a", "b", "c"]
    other = fcm.Contingency.from_labels(np.array(["d", "a"]), np.array(["y", "z"]))
    merged = c + other
    assert merged.classes.tolist() == ["a", "b", "c", "d"]
    assert merged.clusters.tolist() == ["x", "y", "z"]
    assert merged.to_numpy().tolist() == [[1, 1, 1], [1, 0, 0], [1, 0, 0], [0, 1, 0]]


def test_missing_cluster_label_is_none():
    c = fcm.Contingency.from_labels(
        np.array(["a", None, "b"], dtype=object), [0, 1, 1], missing="cluster"
    )
    assert c.classes.tolist() == ["a", "b", None]


def test_from_a_given_table_in_every_form():
    dense = np.array([[5, 0, 1], [0, 3, 0]])
    labels = {"classes": ["t1", "t2"], "clusters": [10, 20, 30]}
    forms = [
        fcm.Contingency(dense, **labels),
        fcm.Contingency(sp.csr_matrix(dense), **labels),
        fcm.Contingency(sp.coo_matrix(dense), **labels),
        fcm.Contingency(pd.DataFrame(dense, index=["t1", "t2"], columns=[10, 20, 30])),
        fcm.Contingency(dense.astype(float), **labels),
    ]
    for c in forms:
        assert c == forms[0]
        assert c.n == 9
        assert c.to_numpy().tolist() == dense.tolist()
        assert (c.to_scipy().toarray() == dense).all()
        assert c.mutual_info_score() == sk.mutual_info_score(None, None, contingency=dense)
    assert fcm.Contingency(dense).classes.tolist() == [0, 1]


@pytest.mark.parametrize(
    ("table", "kwargs", "error", "match"),
    [
        (np.array([1, 2]), {}, ValueError, "2-D"),
        (np.array([[1.5, 2]]), {}, ValueError, "whole numbers"),
        (np.array([[-1, 2]]), {}, ValueError, "negative"),
        (np.array([[1, 2]]), {"classes": ["a", "b"]}, ValueError, "classes has shape"),
        (np.array([["a"]]), {}, TypeError, "numbers"),
    ],
)
def test_bad_tables_are_refused(table, kwargs, error, match):
    with pytest.raises(error, match=match):
        fcm.Contingency(table, **kwargs)


def test_pickle_round_trip():
    c = fcm.Contingency.from_labels(["a", "b", "b", "c"], [1, 1, 2, 2])
    back = pickle.loads(pickle.dumps(c))
    assert back == c
    assert back.adjusted_rand_score() == c.adjusted_rand_score()
    assert repr(back) == "Contingency(n=4, classes=3, clusters=2)"


def test_a_large_table_merges_exactly():
    rng = np.random.default_rng(3)
    n = 2_000_000
    true = rng.integers(0, 40, n)
    pred = rng.integers(0, 70, n)
    parts = [fcm.Contingency.from_labels(true[i::4], pred[i::4]) for i in range(4)]
    whole = fcm.Contingency.from_labels(true, pred)
    assert parts[0] + parts[1] + parts[2] + parts[3] == whole
    ref = np.zeros((40, 70), dtype=np.int64)
    np.add.at(ref, (true, pred), 1)
    assert (whole.to_numpy() == ref).all()


# --- evaluate -----------------------------------------------------------------------------------


@given(pairs)
def test_evaluate_equals_each_function(pair):
    true, pred = pair
    scores = fcm.evaluate(true, pred)
    assert set(scores) == set(_lookup.default_names())
    for name, value in scores.items():
        assert value == getattr(fcm, name)(true, pred), name
    assert scores.n == len(true)


def test_evaluate_chosen_metrics_and_outputs():
    scores = fcm.evaluate(["a", "a", "b"], [0, 0, 0], metrics=["purity_score", "rand_score"])
    assert list(scores) == ["purity_score", "rand_score"]
    assert scores.to_dict() == {"purity_score": 2 / 3, "rand_score": 1 / 3}
    series = scores.to_pandas()
    assert series["rand_score"] == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="unknown metric 'bogus'"):
        fcm.evaluate([0], [0], metrics=["bogus"])
    dropped = fcm.evaluate([0.0, np.nan, 1.0], [0, 1, 1], missing="drop")
    assert dropped.n == 2
