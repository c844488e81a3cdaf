"""compare_many: one truth against many predictions equals one call per prediction."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastcluster_metrics as fcm

METRICS = list(fcm._evaluate.METRICS)


def _separately(truth, named, **kw):
    return pd.DataFrame(
        [[getattr(fcm, m)(truth, pred, **kw) for m in METRICS] for _, pred in named],
        index=[name for name, _ in named],
        columns=METRICS,
    )


runs = st.integers(1, 60).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from(["T", "B", "NK", "mono"]), min_size=n, max_size=n),
        st.lists(st.lists(st.integers(0, 5), min_size=n, max_size=n), min_size=1, max_size=4),
    )
)


@given(runs)
def test_equals_separate_calls_in_every_form(run):
    truth, preds = run
    named = {f"leiden_{i}": np.asarray(p) for i, p in enumerate(preds)}
    want = _separately(truth, list(named.items()))
    pd.testing.assert_frame_equal(fcm.compare_many(truth, named), want)
    as_array = np.column_stack(list(named.values()))
    got = fcm.compare_many(np.asarray(truth, dtype=object), as_array)
    assert list(got.index) == list(range(len(preds)))
    np.testing.assert_array_equal(got.to_numpy(), want.to_numpy())
    frame = pd.DataFrame(named)
    pd.testing.assert_frame_equal(fcm.compare_many(pd.Categorical(truth), frame), want)


def test_chosen_metrics_and_missing_per_prediction():
    truth = np.array(["a", None, "b", "b", "a"], dtype=object)
    preds = {"x": [0, 0, 1, 1, 0]}
    got = fcm.compare_many(truth, {"x": preds["x"]}, metrics=["purity_score"], missing="drop")
    assert got.loc["x", "purity_score"] == fcm.purity_score(truth, preds["x"], missing="drop")
    with pytest.raises(ValueError, match="1 of 5 labels are missing"):
        fcm.compare_many(truth, {"x": preds["x"]})
    with pytest.raises(ValueError, match="unknown metrics"):
        fcm.compare_many(truth, {"x": preds["x"]}, metrics=["nope"])


def test_bad_predictions_are_refused():
    with pytest.raises(ValueError, match="inconsistent numbers of samples: \\[3, 2\\]"):
        fcm.compare_many([0, 1, 1], {"short": [0, 1]})
    with pytest.raises(ValueError, match="2-D array"):
        fcm.compare_many([0, 1, 1], np.array([0, 1, 1]))


def test_a_million_cells_ten_clusterings():
    rng = np.random.default_rng(8)
    n = 1_000_000
    types = np.array([f"type_{i:02d}" for i in range(33)])
    codes = rng.integers(0, 33, n)
    truth = types[codes]
    preds = np.column_stack(
        [np.where(rng.random(n) < 0.1 * k, rng.integers(0, 60, n), codes) for k in range(10)]
    )
    got = fcm.compare_many(truth, preds, metrics=["adjusted_rand_score", "v_measure_score"])
    assert got.shape == (10, 2)
    assert got.loc[0, "adjusted_rand_score"] == 1.0
    # more noise, lower agreement
    assert (np.diff(got["adjusted_rand_score"].to_numpy()) < 0).all()
    for k in (3, 9):
        assert got.loc[k, "v_measure_score"] == fcm.v_measure_score(codes, preds[:, k])
