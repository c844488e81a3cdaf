"""compare_many: one truth against many predictions equals one call per prediction."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastcluster_metrics as fcm
from fastcluster_metrics._measures import catalogue as _catalogue
from fastcluster_metrics._measures import lookup as _lookup

METRICS = _lookup.default_names()


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
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
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


# --- pairwise --------------------------------------------------------------------------------

# the Contingency methods of the catalogue that take no option
MEASURES = [
    name
    for name, row in _catalogue.MEASURES.items()
    if name not in METRICS and not row.options and hasattr(fcm.Contingency, name)
]
# and the other names evaluate knows (options of a measure, such as NMI's average_method)
MORE = [m for m in _catalogue.MEASURES if m not in METRICS + MEASURES]
ALL_METRICS = METRICS + MEASURES + MORE


def _per_pair(name, a, b, **kw):
    """The function of that name on one pair (or the Contingency method of that name, or the
    evaluate of that name)."""
    if name in METRICS:
        return getattr(fcm, name)(a, b, **kw)
    if name in MEASURES:
        return getattr(fcm.Contingency.from_labels(a, b, **kw), name)()
    return fcm.evaluate(a, b, metrics=[name], **kw)[name]


def _assert_pairwise(got, named, metric, **kw):
    names = list(named)
    assert list(got.index) == names
    assert list(got.columns) == names
    for a in names:
        for b in names:
            want = _per_pair(metric, named[a], named[b], **kw)
            value = got.loc[a, b]
            if isinstance(want, int):
                assert value == want, (metric, a, b)
            else:
                assert value == pytest.approx(want, rel=1e-12, abs=1e-12, nan_ok=True), (a, b)


labelings = st.integers(2, 40).flatmap(
    lambda n: st.lists(st.lists(st.integers(0, 4), min_size=n, max_size=n), min_size=1, max_size=4)
)


@given(labelings, st.sampled_from(ALL_METRICS))
def test_pairwise_equals_the_function_of_each_pair(runs, metric):
    named = {f"seed{i}": np.asarray(r) for i, r in enumerate(runs)}
    _assert_pairwise(fcm.pairwise(named, metric=metric), named, metric)


def test_pairwise_of_every_metric_on_asymmetric_labelings():
    """Labelings where every asymmetric measure differs by direction."""
    rng = np.random.default_rng(4)
    named = {
        "fine": rng.integers(0, 12, 300),
        "coarse": rng.integers(0, 3, 300),
        "types": np.array(["T", "B", "NK", "mono"])[rng.integers(0, 4, 300)],
    }
    asymmetric = 0
    for metric in ALL_METRICS:
        got = fcm.pairwise(named, metric=metric)
        _assert_pairwise(got, named, metric)
        asymmetric += not np.allclose(got.to_numpy(float), got.to_numpy(float).T, equal_nan=True)
        if _catalogue.MEASURES[metric].symmetric:
            np.testing.assert_array_equal(got.to_numpy(), got.to_numpy().T)
    assert asymmetric >= 10  # homogeneity, completeness, purity, pair precision, ...


def test_pairwise_forms_and_names():
    rng = np.random.default_rng(6)
    matrix = rng.integers(0, 5, (500, 3))
    frame = pd.DataFrame(matrix, columns=["leiden_0.5", "leiden_1.0", "louvain"])
    by_frame = fcm.pairwise(frame, metric="v_measure_score")
    assert list(by_frame.index) == list(frame.columns)
    by_array = fcm.pairwise(matrix, metric="v_measure_score")
    assert list(by_array.index) == [0, 1, 2]
    np.testing.assert_array_equal(by_frame.to_numpy(), by_array.to_numpy())
    as_strings = {c: frame[c].astype(str).to_numpy(dtype=object) for c in frame.columns}
    as_strings["louvain"] = pd.Categorical(as_strings["louvain"])
    pd.testing.assert_frame_equal(fcm.pairwise(as_strings, metric="v_measure_score"), by_frame)
    ints = fcm.pairwise(frame, metric="mirkin_metric")
    assert ints.dtypes.tolist() == [np.int64] * 3


def test_pairwise_encodes_each_labeling_once_and_counts_each_pair_once(monkeypatch):
    encoded, counted = [], []
    column, count = fcm._many.compare.encode, fcm._native.count
    monkeypatch.setattr(fcm._many.compare, "encode", lambda *a: encoded.append(1) or column(*a))
    monkeypatch.setattr(fcm._native, "count", lambda *a: counted.append(1) or count(*a))
    runs = {f"r{i}": np.array(["a", "b", "c"])[np.arange(60) % (i + 2) % 3] for i in range(5)}
    got = fcm.pairwise(runs, metric="homogeneity_score")
    assert len(encoded) == 5
    assert len(counted) == 10  # 5 * 4 / 2: the reverse direction is the transposed table
    monkeypatch.undo()
    _assert_pairwise(got, runs, "homogeneity_score")


@pytest.mark.parametrize("missing", ["drop", "cluster"])
def test_pairwise_missing_labels_pair_by_pair(missing):
    rng = np.random.default_rng(7)
    named = {}
    for i in range(3):
        labels = np.array(["x", "y", "z"], dtype=object)[rng.integers(0, 3, 200)]
        labels[rng.random(200) < 0.1] = None
        named[f"run{i}"] = labels
    named["complete"] = rng.integers(0, 4, 200)
    for metric in ("adjusted_rand_score", "completeness_score", "jaccard_index"):
        got = fcm.pairwise(named, metric=metric, missing=missing)
        _assert_pairwise(got, named, metric, missing=missing)
    with pytest.raises(ValueError, match="labeling 'run0' has missing labels: 19 of 200"):
        fcm.pairwise(named)


def test_pairwise_bad_arguments():
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        fcm.pairwise({"a": [0, 1]}, metric="nope")
    with pytest.raises(ValueError, match="unknown metric 'pair_counts'"):
        fcm.pairwise({"a": [0, 1]}, metric="pair_counts")
    with pytest.raises(ValueError, match="inconsistent numbers of samples: \\[3, 2\\]"):
        fcm.pairwise({"a": [0, 1, 1], "b": [0, 1]})
    with pytest.raises(ValueError, match="labelings must be a dict"):
        fcm.pairwise(np.array([0, 1, 1]))
    with pytest.raises(fcm.InvalidParameterError, match="'missing' parameter of pairwise"):
        fcm.pairwise({"a": [0, 1]}, missing="skip")


# --- pairwise with sample weights ------------------------------------------------------------


def _exact_pair(metric, a, b, **kw):
    """The function of that name on one pair (ValueError's type if it refuses)."""
    try:
        return _per_pair(metric, a, b, **kw)
    except ValueError:
        return ValueError


@pytest.mark.parametrize("missing", ["raise", "drop", "cluster"])
def test_pairwise_with_sample_weight_equals_the_function_of_each_pair(missing):
    rng = np.random.default_rng(9)
    n = 300
    named = {
        "fine": rng.integers(0, 9, n),
        "coarse": rng.integers(0, 3, n),
        "types": np.array(["T", "B", "NK", "mono"], dtype=object)[rng.integers(0, 4, n)],
    }
    if missing != "raise":
        named["types"][rng.random(n) < 0.1] = None
    w = rng.random(n) * 10.0 ** rng.integers(-3, 4, n)
    for metric in ALL_METRICS:
        want = {
            (a, b): _exact_pair(metric, named[a], named[b], sample_weight=w, missing=missing)
            for a in named
            for b in named
        }
        got = fcm.pairwise(named, metric=metric, missing=missing, sample_weight=w)
        for (a, b), value in want.items():
            if value is ValueError:  # the adjusted mutual information of real weights: NaN,
                assert np.isnan(got.loc[a, b]), (metric, a, b)  # as compare_many gives
            else:
                same = got.loc[a, b] == value or (np.isnan(value) and np.isnan(got.loc[a, b]))
                assert same, (metric, a, b)
    unweighted = fcm.pairwise(named, missing=missing)
    assert not fcm.pairwise(named, missing=missing, sample_weight=w).equals(unweighted)


def test_pairwise_with_whole_weights_is_repeated_samples():
    rng = np.random.default_rng(10)
    named = {"a": rng.integers(0, 4, 100), "b": rng.integers(0, 5, 100)}
    w = rng.integers(0, 4, 100)
    got = fcm.pairwise(named, metric="adjusted_mutual_info_score", sample_weight=w)
    repeated = {k: np.repeat(v, w) for k, v in named.items()}
    pd.testing.assert_frame_equal(got, fcm.pairwise(repeated, metric="adjusted_mutual_info_score"))
    with pytest.raises(ValueError, match="pairwise: sample_weight has 3 values for 100 samples"):
        fcm.pairwise(named, sample_weight=[1, 2, 3])
