"""Per-class and per-cluster reports against loops over the samples (and scipy's entropy)."""

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastcluster_metrics as fcm

pd = pytest.importorskip("pandas")
scipy_stats = pytest.importorskip("scipy.stats")


@st.composite
def labelings(draw, max_size=30):
    n = draw(st.integers(1, max_size))
    true = draw(st.lists(st.sampled_from("abcde"), min_size=n, max_size=n))
    pred = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    return true, pred


def brute_class_report(true, pred):
    rows = {}
    for c in sorted(set(true)):
        members = {k for k, x in enumerate(true) if x == c}
        best = None
        for j in sorted(set(pred)):
            cluster = {k for k, y in enumerate(pred) if y == j}
            both = len(members & cluster)
            f1 = 2 * both / (len(members) + len(cluster))
            if best is None or f1 > best[1]:  # first cluster wins ties
                best = (j, f1, both, len(cluster))
        j, f1, both, size_j = best
        spread = Counter(pred[k] for k in members)
        rows[c] = {
            "size": len(members),
            "best_cluster": j,
            "overlap": both,
            "f1": f1,
            "jaccard": both / len(members | {k for k, y in enumerate(pred) if y == j}),
            "recall": both / len(members),
            "precision": both / size_j,
            "n_clusters": len(spread),
            "split_entropy": float(scipy_stats.entropy(list(spread.values()))),
        }
    return rows


def brute_cluster_report(true, pred):
    rows = {}
    for j in sorted(set(pred)):
        members = [true[k] for k, y in enumerate(pred) if y == j]
        counts = Counter(members)
        top = max(counts.values())
        majority = min(c for c, v in counts.items() if v == top)  # first class wins ties
        rows[j] = {
            "size": len(members),
            "majority_class": majority,
            "overlap": top,
            "purity": top / len(members),
            "n_classes": len(counts),
            "entropy": float(scipy_stats.entropy(list(counts.values()))),
        }
    return rows


def assert_frame_matches(frame, expected):
    assert list(frame.index) == list(expected)
    for label, row in expected.items():
        for column, value in row.items():
            got = frame.loc[label, column]
            if isinstance(value, float):
                assert got == pytest.approx(value, rel=1e-12, abs=1e-12), (label, column)
            else:
                assert got == value, (label, column)


@settings(max_examples=40)
@given(labels=labelings())
def test_class_report_against_brute_force(labels):
    true, pred = labels
    c = fcm.Contingency.from_labels(true, pred)
    report = c.class_report()
    assert report.index.name == "class"
    assert list(report.columns) == [
        "size",
        "best_cluster",
        "overlap",
        "f1",
        "jaccard",
        "recall",
        "precision",
        "n_clusters",
        "split_entropy",
    ]
    assert_frame_matches(report, brute_class_report(true, pred))
    # the size-weighted mean F1 is the best-match F-measure; the Jaccard is the best Jaccard
    assert c.best_match_f1_score() == pytest.approx(
        float((report["size"] * report["f1"]).sum()) / c.n, rel=1e-12
    )
    np.testing.assert_allclose(report["jaccard"], report["f1"] / (2 - report["f1"]), rtol=1e-12)


@settings(max_examples=40)
@given(labels=labelings())
def test_cluster_report_against_brute_force(labels):
    true, pred = labels
    c = fcm.Contingency.from_labels(true, pred)
    report = c.cluster_report()
    assert report.index.name == "cluster"
    assert_frame_matches(report, brute_cluster_report(true, pred))
    assert c.purity_score() == pytest.approx(float(report["overlap"].sum()) / c.n, rel=1e-12)
    weighted = float((report["size"] * report["entropy"]).sum()) / c.n
    assert c.conditional_entropy_true_given_pred() == pytest.approx(weighted, rel=1e-9, abs=1e-12)


def test_reports_of_a_given_table_with_empty_rows_and_columns():
    table = pd.DataFrame(
        [[3, 0, 1], [0, 0, 0], [2, 0, 5]],
        index=pd.Index(["t1", "t2", "t3"]),
        columns=pd.Index(["c1", "c2", "c3"]),
    )
    c = fcm.Contingency(table)
    classes = c.class_report()
    assert classes.loc["t2", "size"] == 0
    assert classes.loc["t2", "best_cluster"] is None
    assert math.isnan(classes.loc["t2", "f1"]) and math.isnan(classes.loc["t2", "split_entropy"])
    assert classes.loc["t1", "best_cluster"] == "c1"
    assert classes.loc["t1", "f1"] == pytest.approx(2 * 3 / (4 + 5))
    assert classes.loc["t3", "best_cluster"] == "c3"
    clusters = c.cluster_report()
    assert clusters.loc["c2", "size"] == 0
    assert clusters.loc["c2", "majority_class"] is None
    assert math.isnan(clusters.loc["c2", "purity"])
    assert clusters.loc["c3", "majority_class"] == "t3"
    assert clusters.loc["c3", "purity"] == pytest.approx(5 / 6)
    # empty classes do not change the best-match F-measure
    assert np.isnan(c.best_match_f1_per_class()[1])
    assert c.best_match_f1_score() == pytest.approx((4 * 2 * 3 / 9 + 7 * 2 * 5 / 13) / 11)
    assert c.best_match_f1_score(average="macro") == pytest.approx((6 / 9 + 10 / 13) / 2)


def test_ties_go_to_the_first_label():
    # class a: clusters 0 and 1 hold 2 each, same size -> F1 tie, cluster 0 wins
    c = fcm.Contingency.from_labels(["a", "a", "a", "a", "b", "b"], [0, 0, 1, 1, 2, 2])
    assert c.class_report().loc["a", "best_cluster"] == 0
    c = fcm.Contingency.from_labels(["b", "a", "a", "b"], [7, 7, 5, 5])
    assert c.cluster_report()["majority_class"].tolist() == ["a", "a"]


def test_module_level_reports():
    true, pred = ["x", "x", "y", None], [1, 1, 2, 2]
    expected = fcm.Contingency.from_labels(true, pred, missing="drop")
    pd.testing.assert_frame_equal(
        fcm.class_report(true, pred, missing="drop"), expected.class_report()
    )
    pd.testing.assert_frame_equal(
        fcm.cluster_report(true, pred, missing="drop"), expected.cluster_report()
    )
    with pytest.raises(ValueError, match="missing"):
        fcm.class_report(true, pred)


def test_empty_table_reports():
    c = fcm.Contingency.from_labels([], [])
    assert c.class_report().shape == (0, 9)
    assert c.cluster_report().shape == (0, 6)
