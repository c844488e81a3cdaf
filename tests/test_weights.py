"""Sample and class weights: whole numbers are repeated samples, real ones follow the weighted
definitions, balanced weights are scikit-learn's, bad weights are refused before counting."""

from __future__ import annotations

import math
import os
import pickle
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from helpers import same
from hypothesis import given, settings
from hypothesis import strategies as st

import fastcluster_metrics as fcm
from fastcluster_metrics._measures.catalogue import MEASURES
from fastcluster_metrics._measures.lookup import default_names

# scikit-learn's measures and purity: evaluate's defaults
SKLEARN_SCORES = default_names()


def _close(a, b, rel=1e-11, abs_=1e-12):
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def _labelings(seed, n=300, k_true=5, k_pred=7):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k_true, n)
    p = np.where(rng.random(n) < 0.6, t, rng.integers(0, k_pred, n))
    return t, p, rng


# --- whole numbers: each sample repeated -------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_whole_weights_give_every_measure_of_the_repeated_samples(seed):
    t, p, rng = _labelings(seed)
    w = rng.integers(0, 4, t.size)
    every = fcm.evaluate(t, p, metrics="all", sample_weight=w)
    repeated = fcm.evaluate(np.repeat(t, w), np.repeat(p, w), metrics="all")
    assert every.n == repeated.n == int(w.sum())
    mismatched = [m for m in every if not same(every[m], repeated[m])]
    assert not mismatched
    assert len(every) == len(MEASURES)


@pytest.mark.parametrize(
    "kind", ["int", "str", "categorical", "float weights", "int32 weights", "bool weights"]
)
def test_whole_weights_of_every_label_type_and_weight_dtype(kind):
    t, p, rng = _labelings(3)
    w = rng.integers(0, 5, t.size)
    tt, pp = t, p
    if kind == "str":
        tt, pp = np.array([f"c{x}" for x in t]), np.array([f"k{x}" for x in p], dtype=object)
    if kind == "categorical":
        pd = pytest.importorskip("pandas")
        tt = pd.Categorical([f"c{x}" for x in t], categories=["c4", "c3", "c2", "c1", "c0"])
    weights = {
        "float weights": w.astype(np.float32),
        "int32 weights": w.astype(np.int32),
        "bool weights": w > 2,
    }.get(kind, w)
    reps = np.asarray(weights).astype(np.int64)
    expanded_t = np.repeat(np.asarray(tt, dtype=object), reps)
    expanded_p = np.repeat(np.asarray(pp, dtype=object), reps)
    for name in SKLEARN_SCORES:
        got = getattr(fcm, name)(tt, pp, sample_weight=weights)
        want = getattr(fcm, name)(expanded_t, expanded_p)
        assert got == want, name
    assert np.array_equal(
        fcm.contingency_matrix(tt, pp, sample_weight=weights),
        fcm.contingency_matrix(expanded_t, expanded_p),
    )
    assert np.array_equal(
        fcm.pair_confusion_matrix(tt, pp, sample_weight=weights),
        fcm.pair_confusion_matrix(expanded_t, expanded_p),
    )
    assert fcm.pair_counts(tt, pp, sample_weight=weights) == fcm.pair_counts(expanded_t, expanded_p)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(0, 3)),
        min_size=1,
        max_size=40,
    )
)
def test_hypothesis_whole_weights_are_repeated_samples(rows):
    t = np.array([r[0] for r in rows])
    p = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows])
    if w.sum() == 0:
        with pytest.raises(ValueError, match="zero for every sample"):
            fcm.adjusted_rand_score(t, p, sample_weight=w)
        return
    got = fcm.evaluate(t, p, metrics="all", sample_weight=w)
    want = fcm.evaluate(np.repeat(t, w), np.repeat(p, w), metrics="all")
    assert all(same(got[m], want[m]) for m in got)


def test_a_weight_of_zero_drops_the_sample_and_its_class():
    t = np.array([0, 0, 1, 2, 2])
    p = np.array([0, 0, 1, 1, 2])
    w = np.array([1, 1, 0, 2, 2])
    c = fcm.Contingency.from_labels(t, p, sample_weight=w)
    assert c.classes.tolist() == [0, 2]
    assert c.to_numpy().tolist() == [[2, 0, 0], [0, 2, 2]]
    assert fcm.adjusted_rand_score(t, p, sample_weight=w) == fcm.adjusted_rand_score(
        [0, 0, 2, 2, 2, 2], [0, 0, 1, 1, 2, 2]
    )


def test_missing_labels_drop_their_weights():
    t = np.array([0.0, 0, 1, np.nan, 1])
    p = np.array([0, 1, 1, 1, 1])
    w = np.array([1, 2, 3, 100, 1])
    got = fcm.adjusted_rand_score(t, p, sample_weight=w, missing="drop")
    want = fcm.adjusted_rand_score([0, 1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1, 1])
    want = fcm.adjusted_rand_score(
        np.repeat([0, 0, 1, 1], [1, 2, 3, 1]), np.repeat([0, 1, 1, 1], [1, 2, 3, 1])
    )
    assert got == want


# --- real weights: the weighted definitions ----------------------------------------------------


def _square(x):
    """A sample's square in the pair counts: a whole weight k stands for k samples of weight 1
    (squares summing to k), any other weight w for one sample (w**2)."""
    f = Fraction(x)
    return f if f.denominator == 1 else f * f


def _exact_cells(t, p, w):
    """The dense table of weight sums, exactly: the Python floats added as Fractions (rows and
    columns the sorted labels, including those whose samples all weigh 0), and the samples'
    squares summed (:func:`_square`)."""
    classes, ti = np.unique(t, return_inverse=True)
    clusters, pi = np.unique(p, return_inverse=True)
    cells = [[Fraction(0)] * len(clusters) for _ in classes]
    for i, j, x in zip(ti.tolist(), pi.tolist(), w.tolist(), strict=True):
        cells[i][j] += Fraction(x)
    squares = sum((_square(x) for x in w.tolist()), Fraction(0))
    return classes, clusters, cells, squares


def _margins(cells):
    """The class sizes, cluster sizes and total of an exact table."""
    a = [sum(row, Fraction(0)) for row in cells]
    b = [sum(col, Fraction(0)) for col in zip(*cells, strict=True)]
    return a, b, sum(a, Fraction(0))


def _pair_counts(cells, squares):
    """The exact pair counts (within a cell, a class, a cluster, all) of a real-valued table:
    (sum of squared sums - sum of the samples' squares) / 2, the sums over distinct pairs of
    w(x) w(y) (:func:`_brute_pairs` checks it)."""
    a, b, n = _margins(cells)

    def pairs(sizes):
        return (sum(x * x for x in sizes) - squares) / 2

    return pairs([x for row in cells for x in row]), pairs(a), pairs(b), (n * n - squares) / 2


def _brute_pairs(t, p, w):
    """(within a cell, a class, a cluster, all): w(x) w(y) summed over the unordered pairs of
    distinct samples, one by one, after each whole weight k became k samples of weight 1."""
    bt, bp, bw = [], [], []
    for ti, pi, x in zip(t.tolist(), p.tolist(), w.tolist(), strict=True):
        f = Fraction(x)
        k = int(f) if f.denominator == 1 else 1
        bt += [ti] * k
        bp += [pi] * k
        bw += [Fraction(1) if f.denominator == 1 else f] * k
    return _brute_pairs_of(bt, bp, bw)


def _brute_pairs_of(t, p, w):
    """:func:`_brute_pairs` of samples given one by one (lists), each weight as it is."""
    samples = list(zip(t, p, (Fraction(x) for x in w), strict=True))
    both = same_t = same_p = every = Fraction(0)
    for k, (tk, pk, wk) in enumerate(samples):
        for tj, pj, wj in samples[:k]:
            ww = wk * wj
            every += ww
            same_t += ww if tk == tj else 0
            same_p += ww if pk == pj else 0
            both += ww if (tk, pk) == (tj, pj) else 0
    return both, same_t, same_p, every


def _reference(t, p, w):
    """Measures of a real-valued table written from their weighted definitions, in exact
    fractions where possible: the dense table of weight sums (:func:`_exact_cells`), the pair
    counts of weighted samples (:func:`_pair_counts`); entropies of the weighted
    proportions."""
    _, _, cells, squares = _exact_cells(t, p, w)
    a, b, n = _margins(cells)
    t_, p_, q_, n_ = _pair_counts(cells, squares)
    expected = p_ * q_ / n_
    out = {
        "adjusted_rand_score": float((t_ - expected) / ((p_ + q_) / 2 - expected)),
        "rand_score": float((n_ - p_ - q_ + 2 * t_) / n_),
        "fowlkes_mallows_score": math.sqrt(float(t_ / p_)) * math.sqrt(float(t_ / q_)),
        "jaccard_index": float(t_ / (p_ + q_ - t_)),
    }
    f = [[float(x) for x in row] for row in cells]
    af, bf, nf = [float(x) for x in a], [float(x) for x in b], float(n)

    def entropy(sizes):
        return -math.fsum(s / nf * math.log(s / nf) for s in sizes if s)

    h_true, h_pred = entropy(af), entropy(bf)
    mi = math.fsum(
        x / nf * math.log(x * nf / (af[i] * bf[j]))
        for i, row in enumerate(f)
        for j, x in enumerate(row)
        if x
    )
    out["mutual_info_score"] = mi
    out["homogeneity_score"] = mi / h_true
    out["completeness_score"] = mi / h_pred
    out["v_measure_score"] = 2 * mi / (h_true + h_pred)
    out["normalized_mutual_info_score"] = mi / ((h_true + h_pred) / 2)
    out["purity_score"] = math.fsum(max(col) for col in zip(*f, strict=True)) / nf
    out["variation_of_information"] = h_true + h_pred - 2 * mi
    return out, np.array(f)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_real_weights_follow_the_weighted_definitions(seed):
    t, p, rng = _labelings(seed, n=200)
    w = rng.gamma(2.0, 1.5, t.size)
    want, dense = _reference(t, p, w)
    for name, value in want.items():
        assert _close(getattr(fcm, name)(t, p, sample_weight=w), value), name
    got = fcm.contingency_matrix(t, p, sample_weight=w)
    assert got.dtype == np.float64
    assert np.array_equal(got, dense)


# Weights for the pair-count oracle: whole ones (repeated samples), halves and quarters, and
# ones with every mantissa bit used; few enough samples to sum every pair one by one.
_PAIR_WEIGHTS = st.sampled_from([0.0, 0.25, 0.3, 0.5, 1.0, 1.5, 2.0, 3.0, 1 / 3, 0.9])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 3), _PAIR_WEIGHTS), min_size=1, max_size=12
    ).filter(lambda rows: any(r[2] > 0 for r in rows))
)
def test_hypothesis_pair_counts_sum_the_pairs_of_distinct_weighted_samples(rows):
    """The pair counts of a weighted table are w(x) w(y) summed over the pairs of distinct
    samples (a whole weight k standing for k samples of weight 1), summed one by one here:
    never negative, the repeated samples' for whole weights, exact for any."""
    t, p, w = (np.array(column) for column in zip(*rows, strict=True))
    w = w.astype(np.float64)
    both, same_t, same_p, every = _brute_pairs(t, p, w)
    _, _, cells, squares = _exact_cells(t, p, w)
    assert _pair_counts(cells, squares) == (both, same_t, same_p, every)
    # scikit-learn's pair confusion matrix counts ordered pairs: twice the unordered ones.
    want = [[every - same_t - same_p + both, same_p - both], [same_t - both, both]]
    want = [[2 * x for x in row] for row in want]
    got = fcm.pair_confusion_matrix(t, p, sample_weight=w)
    assert got.tolist() == [[float(x) for x in row] for row in want]
    assert (got >= 0).all()
    ari, rand, fmi = (
        getattr(fcm, name)(t, p, sample_weight=w)
        for name in ("adjusted_rand_score", "rand_score", "fowlkes_mallows_score")
    )
    assert 0.0 <= rand <= 1.0 and 0.0 <= fmi <= 1.0 and ari <= 1.0
    if every:
        assert rand == float((every - same_t - same_p + 2 * both) / every)
    if same_t and same_p:
        assert _close(fmi, math.sqrt(float(both / same_t)) * math.sqrt(float(both / same_p)))


def test_pairs_of_real_weights_are_never_negative():
    # Two samples of weight 1/2 make one pair of weight 1/4 (C(1, 2) = 0 was the old count,
    # and C(x, 2) < 0 for a class of total weight x < 1: a ZeroDivisionError, a Rand index of
    # 2.875, a square root of a negative number).
    every = fcm.evaluate([0, 0], [0, 1], metrics="all", sample_weight=[0.5, 0.5])
    assert every["rand_score"] == 0.0
    assert every["adjusted_rand_score"] == 0.0
    assert fcm.pair_confusion_matrix([0, 0], [0, 1], sample_weight=[0.5, 0.5]).tolist() == [
        [0.0, 0.0],
        [0.5, 0.0],
    ]
    t, p, w = np.array([0, 0, 1]), np.array([0, 1, 1]), np.array([0.3, 0.3, 0.2])
    # Pairs: (1, 2) 0.09 same class; (1, 3) 0.06 neither; (2, 3) 0.06 same cluster.
    assert _close(fcm.rand_score(t, p, sample_weight=w), 0.06 / 0.21)
    assert fcm.fowlkes_mallows_score(t, p, sample_weight=w) == 0.0
    for name, value in fcm.evaluate(t, p, metrics="all", sample_weight=w).items():
        if not MEASURES[name].counts:
            assert not (isinstance(value, float) and math.isnan(value)), name


def test_whole_weights_are_repeated_samples_within_real_tables():
    # A sample of weight 2 among real weights still stands for two samples: the pair counts
    # equal those of the samples repeated, whatever the other weights.
    t = np.array([0, 0, 1, 1])
    p = np.array([0, 0, 1, 0])
    w = np.array([2.0, 0.5, 3.0, 0.25])
    expanded_t = np.array([0, 0, 0, 1, 1, 1, 1])
    expanded_p = np.array([0, 0, 0, 1, 1, 1, 0])
    expanded_w = np.array([1.0, 1.0, 0.5, 1.0, 1.0, 1.0, 0.25])
    for name in ("adjusted_rand_score", "rand_score", "fowlkes_mallows_score", "jaccard_index"):
        assert getattr(fcm, name)(t, p, sample_weight=w) == getattr(fcm, name)(
            expanded_t, expanded_p, sample_weight=expanded_w
        ), name


@pytest.mark.parametrize("class_weight", ["balanced", {0: 2, 1: 0.5, 2: 3}, {1: 2.5}])
def test_class_weights_scale_the_pairs_of_real_weights(class_weight):
    """A whole class weight f repeats each sample of its class f times; any other multiplies
    each sample's weight: brute force over the samples so made."""
    rng = np.random.default_rng(3)
    t = rng.integers(0, 3, 14)
    p = rng.integers(0, 3, 14)
    w = rng.choice(np.array([0.5, 1.0, 2.0, 0.3]), 14)
    c = fcm.Contingency.from_labels(t, p, sample_weight=w, class_weight=class_weight)
    if class_weight == "balanced":
        totals = {k: math.fsum(w[t == k].tolist()) for k in range(3)}
        factors = {k: math.fsum(w.tolist()) / (3 * totals[k]) for k in range(3)}
    else:
        factors = {k: class_weight.get(k, 1) for k in range(3)}
    bt, bp, bw = [], [], []
    for ti, pi, x in zip(t.tolist(), p.tolist(), w.tolist(), strict=True):
        fx, f = Fraction(x), Fraction(factors[ti])
        # A whole weight k is k samples of weight 1, each then repeated or scaled.
        for u in [Fraction(1)] * int(fx) if fx.denominator == 1 else [fx]:
            made = [u] * int(f) if f.denominator == 1 else [u * f]
            bt += [ti] * len(made)
            bp += [pi] * len(made)
            bw += made
    both, same_t, same_p, every = _brute_pairs_of(bt, bp, bw)
    tn, fp, fn, tp = (every - same_t - same_p + both, same_p - both, same_t - both, both)
    got = c.pair_confusion_matrix()
    assert _close(got[0, 0], float(2 * tn)) and _close(got[1, 1], float(2 * tp))
    assert _close(got[0, 1], float(2 * fp)) and _close(got[1, 0], float(2 * fn))
    want_ari = float(2 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)))
    assert _close(c.adjusted_rand_score(), want_ari)


@pytest.mark.parametrize("seed", [0, 1])
def test_every_measure_takes_real_weights(seed):
    t, p, rng = _labelings(seed, n=150)
    w = rng.random(t.size) * 3
    every = fcm.evaluate(t, p, metrics="all", sample_weight=w)
    for name, value in every.items():
        if MEASURES[name].counts:
            assert math.isnan(value), name
        else:
            assert math.isfinite(value), name
    # Dyadic weights (quarters) are an exact quarter of whole-number weights: measures of
    # proportions (entropies, information, set matching) agree with the repeated samples.
    q = rng.integers(0, 9, t.size)
    quartered = fcm.evaluate(t, p, metrics="all", sample_weight=q / 4)
    repeated = fcm.evaluate(np.repeat(t, q), np.repeat(p, q), metrics="all")
    scale_free = [
        m
        for m, row in MEASURES.items()
        if row.family != "pair counting" and not row.counts and m != "chi_squared"
    ]
    assert len(scale_free) > 25
    for m in scale_free:
        assert _close(quartered[m], repeated[m], rel=1e-9, abs_=1e-12), m
    assert _close(quartered["chi_squared"], repeated["chi_squared"] / 4, rel=1e-9)


# Real weights for the property test below: 0, or at least 2**-11 (see there); tiny ones, ones
# with every mantissa bit used (1/3, pi, 1 - 2**-53, and hypothesis's own), whole ones.
_REAL_WEIGHTS = st.one_of(
    st.just(0.0),
    st.sampled_from([1e-3, 2.0**-11, 0.1, 1 / 3, math.pi, 1 - 2.0**-53, 1.0, 1e3 / 7]),
    st.floats(min_value=2.0**-11, max_value=1e3),
)

_PROPERTY_SCORES = [
    "adjusted_rand_score",
    "normalized_mutual_info_score",
    "v_measure_score",
    "fowlkes_mallows_score",
]


@st.composite
def _weighted_samples(draw):
    """Small labelings (4 classes, 5 clusters at most), real weights not all 0, and an order
    of the samples."""
    rows = draw(
        st.lists(
            st.tuples(st.integers(0, 3), st.integers(0, 4), _REAL_WEIGHTS), min_size=1, max_size=30
        ).filter(lambda rows: any(r[2] > 0 for r in rows))
    )
    order = draw(st.permutations(range(len(rows))))
    t, p, w = (np.array(column) for column in zip(*rows, strict=True))
    return t, p, w.astype(np.float64), np.array(order, dtype=np.int64)


@settings(max_examples=100, deadline=None)
@given(_weighted_samples())
def test_hypothesis_real_weights_are_exact_sums_in_any_order(samples):
    """Real weights, 0 or at least 2**-11: the core sums weights exactly in units of 2**-64
    (smaller weights are rounded to those units), so each cell, size and the total are the
    exact sums of the float weights (Fractions), rounded once. The measures then follow the
    weighted definitions (:func:`_reference`, where its formulas are defined: no 0 / 0; the
    pair counts are exact, so no cancellation), and the samples in another order give the same
    table and scores, to the last bit."""
    t, p, w, order = samples
    c = fcm.Contingency.from_labels(t, p, sample_weight=w)
    classes, clusters, cells, _ = _exact_cells(t, p, w)
    rows = [i for i, row in enumerate(cells) if any(row)]
    cols = [j for j in range(len(clusters)) if any(row[j] for row in cells)]
    assert c.classes.tolist() == classes[rows].tolist()
    assert c.clusters.tolist() == clusters[cols].tolist()
    exact = [[float(cells[i][j]) for j in cols] for i in rows]
    assert c.to_numpy().tolist() == exact
    assert c.class_sizes.tolist() == [float(sum(cells[i], Fraction(0))) for i in rows]
    assert c.cluster_sizes.tolist() == [
        float(sum((row[j] for row in cells), Fraction(0))) for j in cols
    ]
    assert c.n == float(sum((x for row in cells for x in row), Fraction(0)))

    shuffled = fcm.Contingency.from_labels(t[order], p[order], sample_weight=w[order])
    assert shuffled == c
    assert shuffled.to_numpy().tolist() == c.to_numpy().tolist()
    assert shuffled.class_sizes.tolist() == c.class_sizes.tolist()
    assert shuffled.n == c.n

    try:
        want, _ = _reference(t, p, w)
    except (ZeroDivisionError, ValueError):
        return  # a degenerate table (one class, ...): its conventions are tested elsewhere
    got = fcm.evaluate(t, p, metrics=_PROPERTY_SCORES, sample_weight=w)
    for name in _PROPERTY_SCORES:
        assert _close(got[name], want[name], rel=1e-10, abs_=1e-10), name
    again = fcm.evaluate(t[order], p[order], metrics="all", sample_weight=w[order])
    every = fcm.evaluate(t, p, metrics="all", sample_weight=w)
    assert all(same(again[m], every[m]) for m in every)


def test_the_adjusted_mutual_information_needs_counts():
    t, p, rng = _labelings(5)
    w = rng.random(t.size)
    with pytest.raises(ValueError, match=r"defined for counts only.*whole-number"):
        fcm.adjusted_mutual_info_score(t, p, sample_weight=w)
    assert math.isnan(fcm.evaluate(t, p, sample_weight=w)["adjusted_mutual_info_score"])


def test_real_weights_do_not_depend_on_the_order_of_the_samples():
    t, p, rng = _labelings(7, n=200_000, k_true=30, k_pred=3000)
    w = rng.random(t.size) * 10
    perm = rng.permutation(t.size)
    a = fcm.Contingency.from_labels(t, p, sample_weight=w)
    b = fcm.Contingency.from_labels(t[perm], p[perm], sample_weight=w[perm])
    assert a == b
    assert np.array_equal(a.class_sizes, b.class_sizes)
    assert a.n == b.n


def test_real_weights_do_not_depend_on_the_thread_count():
    code = (
        "import numpy as np, fastcluster_metrics as fcm\n"
        "rng = np.random.default_rng(3)\n"
        "t = rng.integers(0, 40, 400_000); p = rng.integers(0, 5000, 400_000)\n"
        "w = rng.random(400_000)\n"
        "c = fcm.Contingency.from_labels(t, p, sample_weight=w)\n"
        "print(repr(c.cells[2].sum()), c.n, fcm.adjusted_rand_score(t, p, sample_weight=w))\n"
    )
    outs = set()
    for threads in ("1", "2"):
        env = {**os.environ, "FASTCLUSTER_METRICS_NUM_THREADS": threads}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outs.add(out.stdout)
    assert len(outs) == 1


def test_weighted_tables_pickle():
    t, p, rng = _labelings(9)
    c = fcm.Contingency.from_labels(t, p, sample_weight=rng.random(t.size))
    back = pickle.loads(pickle.dumps(c))
    assert back == c and back.weighted
    assert back.adjusted_rand_score() == c.adjusted_rand_score()
    assert back.n == c.n


def test_weights_reach_evaluate_and_compare_many():
    t, p, rng = _labelings(11)
    w = rng.random(t.size)
    other = rng.integers(0, 3, t.size)
    df = fcm.compare_many(t, {"p": p, "other": other}, sample_weight=w, class_weight="balanced")
    for name, labels in (("p", p), ("other", other)):
        assert df.loc[name, "adjusted_rand_score"] == fcm.adjusted_rand_score(
            t, labels, sample_weight=w, class_weight="balanced"
        )
    matrix = np.stack([p, other], axis=1)
    df2 = fcm.compare_many(t, matrix, sample_weight=w)
    assert df2.loc[0, "v_measure_score"] == fcm.v_measure_score(t, p, sample_weight=w)


# --- class weights ---------------------------------------------------------------------------


def test_balanced_class_weights_are_scikit_learns():
    from sklearn.utils.class_weight import compute_class_weight

    t, p, _ = _labelings(13, n=500)
    t = np.where(t == 4, 3, t)  # unequal classes
    cw = compute_class_weight("balanced", classes=np.unique(t), y=t)
    per_sample = cw[np.searchsorted(np.unique(t), t)]
    for name in SKLEARN_SCORES:
        if name == "adjusted_mutual_info_score":
            continue
        got = getattr(fcm, name)(t, p, class_weight="balanced")
        want = getattr(fcm, name)(t, p, sample_weight=per_sample)
        assert _close(got, want, rel=1e-12), name
    c = fcm.Contingency.from_labels(t, p, class_weight="balanced")
    assert np.allclose(c.class_sizes, t.size / len(np.unique(t)), rtol=1e-15)
    assert math.isclose(c.n, t.size, rel_tol=1e-15)


def test_balanced_with_sample_weights_gives_every_class_the_same_weighted_total():
    t, p, rng = _labelings(17, n=400)
    w = rng.random(t.size) * 4
    c = fcm.Contingency.from_labels(t, p, sample_weight=w, class_weight="balanced")
    assert np.allclose(c.class_sizes, c.n / c.shape[0], rtol=1e-14)
    assert math.isclose(c.n, w.sum(), rel_tol=1e-12)
    # The product of the two weights, per sample.
    totals = np.bincount(t, weights=w)
    per_sample = w * (w.sum() / (len(totals) * totals))[t]
    assert _close(
        fcm.adjusted_rand_score(t, p, sample_weight=w, class_weight="balanced"),
        fcm.adjusted_rand_score(t, p, sample_weight=per_sample),
        rel=1e-11,
    )


def test_whole_number_class_weights_are_repeated_samples():
    t = np.array(["a", "a", "b", "b", "b", "c"])
    p = np.array([0, 0, 0, 1, 1, 1])
    got = fcm.evaluate(t, p, metrics="all", class_weight={"a": 3, "c": 0})
    rep = np.array([3, 3, 1, 1, 1, 0])
    want = fcm.evaluate(np.repeat(t, rep), np.repeat(p, rep), metrics="all")
    assert all(same(got[m], want[m]) for m in got)
    c = fcm.Contingency.from_labels(t, p, class_weight={"a": 3, "c": 0})
    assert c.classes.tolist() == ["a", "b"] and not c.weighted


def test_balanced_scores_see_a_merged_rare_class():
    # Two common cell types of 1,000 cells, a rare one of 20 that the clustering merges into
    # the second: ARI hardly notices; balanced, each type weighs the same and it does.
    t = np.array([0] * 1000 + [1] * 1000 + [2] * 20)
    p = np.array([0] * 1000 + [1] * 1020)
    plain = fcm.adjusted_rand_score(t, p)
    balanced = fcm.adjusted_rand_score(t, p, class_weight="balanced")
    assert plain > 0.97
    assert balanced < plain - 0.2


def test_balanced_differs_from_the_truncated_reference_by_its_rounding():
    # balanced-clustering 0.1.0 truncates the reweighted table to integers; on this table
    # (classes of 7, 11 and 13 samples) that moves the balanced ARI by more than 1e-3.
    t = np.array([0] * 7 + [1] * 11 + [2] * 13)
    p = np.array([0] * 5 + [1] * 2 + [1] * 6 + [2] * 5 + [2] * 10 + [0] * 3)
    c = fcm.Contingency.from_labels(t, p, class_weight="balanced")
    truncated = np.floor(c.to_numpy())
    exact_ari = c.adjusted_rand_score()
    trunc_ari = fcm.Contingency(truncated.astype(np.int64)).adjusted_rand_score()
    assert abs(exact_ari - trunc_ari) > 1e-3


def test_every_measure_documents_the_weights():
    """scikit-learn's names (each public name of ``_measures/supervised.py`` and
    ``_measures/matrices.py``) and the catalogue's functions carry the paragraph on weights in
    their docstrings."""
    from fastcluster_metrics._labels.weights import WEIGHTS_DOC
    from fastcluster_metrics._measures import matrices as _matrices
    from fastcluster_metrics._measures import supervised as _supervised

    names = [
        *_supervised.__all__,
        *_matrices.__all__,
        *(name for name in MEASURES if hasattr(fcm, name)),
    ]
    assert len(names) > 50
    for name in names:
        assert WEIGHTS_DOC in getattr(fcm, name).__doc__, name


# --- bad weights -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weights", "error", "match"),
    [
        ([1, 1, -1], ValueError, r"sample_weight\[2\] is -1.0: weights must be finite"),
        ([1, 0.5, -1], ValueError, r"sample_weight\[2\] is -1.0: weights must be finite"),
        ([1, np.nan, 1], ValueError, r"sample_weight\[1\] is NaN"),
        ([1, np.inf, 1], ValueError, r"sample_weight\[1\] is infinity"),
        ([1, 2.0**52, 1], ValueError, r"less than 2\*\*52"),
        ([1, 1], ValueError, "2 values for 3 samples"),
        ([[1, 1, 1]], ValueError, "must be 1D"),
        ([0, 0, 0], ValueError, "zero for every sample"),
        (["a", "b", "c"], TypeError, "must hold numbers"),
        ("abc", TypeError, "array-like of numbers"),
        ([1, None, 1], ValueError, r"sample_weight\[1\] is NaN"),
        ([{}, 1, 1], TypeError, "must hold numbers"),
    ],
)
def test_bad_weights_are_refused_clearly(weights, error, match):
    for call in (
        lambda: fcm.adjusted_rand_score([0, 0, 1], [0, 1, 1], sample_weight=weights),
        lambda: fcm.jaccard_index([0, 0, 1], [0, 1, 1], sample_weight=weights),
        lambda: fcm.evaluate([0, 0, 1], [0, 1, 1], sample_weight=weights),
        lambda: fcm.Contingency.from_labels([0, 0, 1], [0, 1, 1], sample_weight=weights),
    ):
        with pytest.raises(error, match=match):
            call()


def test_weights_summing_to_2_to_the_62_are_refused():
    n = 3000
    with pytest.raises(ValueError, match=r"adjusted_rand_score: sample_weight sums to 2\*\*62"):
        fcm.adjusted_rand_score(np.zeros(n), np.zeros(n), sample_weight=np.full(n, 2.0**51))


@pytest.mark.parametrize(
    ("class_weight", "match"),
    [
        ("balance", "class_weight must be None, 'balanced' or a dict"),
        ({0: -1}, "non-negative finite"),
        ({0: float("nan")}, "non-negative finite"),
        ({0: "x"}, "non-negative finite"),
        ({7: 2.0}, "does not have"),
        ([1, 2], "class_weight must be None"),
    ],
)
def test_bad_class_weights_are_refused_clearly(class_weight, match):
    with pytest.raises(ValueError, match=match):
        fcm.adjusted_rand_score([0, 0, 1], [0, 1, 1], class_weight=class_weight)


def test_a_contingency_given_with_weights_is_refused():
    with pytest.raises(ValueError, match="given contingency table"):
        fcm.mutual_info_score(None, None, contingency=[[1, 2]], sample_weight=[1, 1, 1])


def test_real_cells_refuse_an_integer_dtype_and_keep_their_floats():
    c = fcm.Contingency.from_labels([0, 0, 1], [0, 1, 1], sample_weight=[0.5, 1, 1])
    assert c.weighted
    assert c.to_numpy().tolist() == [[0.5, 1.0], [0.0, 1.0]]
    with pytest.raises(ValueError, match="would truncate"):
        c.to_numpy(np.int64)
    assert fcm.contingency_matrix([0, 0, 1], [0, 1, 1], sample_weight=[0.5, 1, 1]).dtype == (
        np.float64
    )
    assert fcm.entropy([0, 0, 1], sample_weight=[1, 1, 2]) == fcm.entropy([0, 0, 1, 1])


# --- merging weighted tables: exact sums, rounded once ----------------------------------------


def _split_tables(t, p, w, bounds, order):
    """The weighted tables of the pieces of a split, in the given order."""
    pieces = np.split(np.arange(len(t)), bounds)
    return [
        fcm.Contingency.from_labels(t[pieces[k]], p[pieces[k]], sample_weight=w[pieces[k]])
        for k in order
    ]


@pytest.mark.parametrize("seed", range(6))
def test_merged_weighted_tables_equal_the_table_of_the_whole_exactly(seed):
    rng = np.random.default_rng(seed)
    n = 400
    t = rng.choice(np.array(["x", "y", "z", "w"]), n)
    p = rng.integers(0, 6, n)
    # Magnitudes far apart: a float sum of the parts' rounded cells would differ in the last bits.
    w = rng.random(n) * 10.0 ** rng.integers(-8, 9, n)
    whole = fcm.Contingency.from_labels(t, p, sample_weight=w)
    bounds = np.sort(rng.choice(np.arange(1, n), size=int(rng.integers(1, 6)), replace=False))
    order = rng.permutation(len(bounds) + 1)
    tables = _split_tables(t, p, w, bounds, order)
    merged = tables[0]
    for table in tables[1:]:
        merged = merged + table
    assert merged.weighted
    assert merged == whole
    assert merged.n == whole.n
    assert np.array_equal(merged.class_sizes, whole.class_sizes)
    assert np.array_equal(merged.cluster_sizes, whole.cluster_sizes)
    for name in ("adjusted_rand_score", "normalized_mutual_info_score", "purity_score"):
        assert getattr(merged, name)() == getattr(whole, name)(), name


def test_merge_of_sums_rounded_once_not_of_rounded_cells():
    # 1 + 2**-60 + 2**-60 is not a float sum of the parts' cells (1 + 2**-60 rounds to 1).
    w = np.array([1.0, 2.0**-60, 2.0**-60])
    t = p = np.zeros(3, dtype=np.int64)
    whole = fcm.Contingency.from_labels(t, p, sample_weight=w)
    parts = [
        fcm.Contingency.from_labels(t[i : i + 1], p[i : i + 1], sample_weight=w[i : i + 1])
        for i in range(3)
    ]
    merged = parts[0] + parts[1] + parts[2]
    assert merged == whole
    assert merged.to_numpy()[0, 0] == float(Fraction(1) + 2 * Fraction(2) ** -60)


def test_whole_and_real_parts_merge_and_whole_sums_give_counts():
    t = np.array([0, 0, 1, 1, 1])
    p = np.array([0, 0, 1, 1, 0])
    w = np.array([0.5, 0.5, 2.0, 0.25, 3.0])
    # One part counted with whole-number weights (the core's table of counts), one with real.
    counts = fcm.Contingency.from_labels(t[2:3], p[2:3], sample_weight=w[2:3])
    real = fcm.Contingency.from_labels(
        t[[0, 1, 3, 4]], p[[0, 1, 3, 4]], sample_weight=w[[0, 1, 3, 4]]
    )
    assert not counts.weighted and real.weighted
    whole = fcm.Contingency.from_labels(t, p, sample_weight=w)
    assert counts + real == whole and real + counts == whole
    # Halves whose sum is a whole number stay two samples of weight 1/2 (their pair weighs
    # 1/4), as the whole's count of them; a sample of weight 1 is a table of counts.
    a = fcm.Contingency.from_labels([0], [1], sample_weight=[0.5])
    merged = a + a
    halves = fcm.Contingency.from_labels([0, 0], [1, 1], sample_weight=[0.5, 0.5])
    one = fcm.Contingency.from_labels([0], [1], sample_weight=[1.0])
    assert merged.weighted and halves.weighted and not one.weighted
    assert merged == halves and merged != one
    assert merged.to_numpy().tolist() == [[1.0]] == one.to_numpy().tolist()
    assert merged.pair_confusion_matrix().tolist() == [[0.0, 0.0], [0.0, 0.5]]
    assert halves.pair_confusion_matrix().tolist() == [[0.0, 0.0], [0.0, 0.5]]
    assert one.pair_confusion_matrix().tolist() == [[0, 0], [0, 0]]
    ones = fcm.Contingency.from_labels([0], [1], sample_weight=[1.0])
    assert not (ones + ones).weighted


def test_merged_weighted_tables_pickle_and_merge_again():
    t, p, rng = _labelings(11)
    w = rng.random(t.size)
    a = fcm.Contingency.from_labels(t[:100], p[:100], sample_weight=w[:100])
    b = fcm.Contingency.from_labels(t[100:], p[100:], sample_weight=w[100:])
    again = pickle.loads(pickle.dumps(a)) + pickle.loads(pickle.dumps(b))
    assert again == fcm.Contingency.from_labels(t, p, sample_weight=w)


@pytest.mark.parametrize("class_weight", ["balanced", {0: 2}])
def test_tables_with_class_weights_refuse_to_merge(class_weight):
    t, p, _ = _labelings(12)
    a = fcm.Contingency.from_labels(t, p, class_weight=class_weight)
    b = fcm.Contingency.from_labels(t, p)
    for left, right in ((a, b), (b, a)):
        with pytest.raises(ValueError, match="cannot merge a Contingency made with class_weight"):
            left + right


def test_resampling_refuses_real_cells_and_takes_whole_weights():
    t, p, rng = _labelings(19)
    real = fcm.Contingency.from_labels(t, p, sample_weight=rng.random(t.size))
    for call in (
        lambda: fcm.bootstrap(real, n_resamples=10),
        lambda: fcm.bootstrap([real, real], n_resamples=10),
        lambda: fcm.permutation_test(real, n_resamples=10),
    ):
        with pytest.raises(ValueError, match="needs a table of counts"):
            call()
    w = rng.integers(0, 3, t.size)
    whole = fcm.Contingency.from_labels(t, p, sample_weight=w)
    repeated = fcm.Contingency.from_labels(np.repeat(t, w), np.repeat(p, w))
    a = fcm.permutation_test(whole, n_resamples=50, seed=1)
    b = fcm.permutation_test(repeated, n_resamples=50, seed=1)
    assert a.pvalue == b.pvalue and a.statistic == b.statistic


def test_class_report_shows_the_class_weights_and_real_overlaps():
    pytest.importorskip("pandas")
    t = np.array(["a"] * 6 + ["b"] * 2)
    p = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    report = fcm.class_report(t, p, class_weight="balanced")
    assert report["class_weight"].tolist() == [8 / (2 * 6), 8 / (2 * 2)]
    assert report["size"].tolist() == [4.0, 4.0]
    assert report["overlap"].tolist() == [4 * 8 / 12, 4.0]
    w = np.array([0.5] * 8)
    report = fcm.class_report(t, p, sample_weight=w)
    assert "class_weight" not in report
    assert report["overlap"].tolist() == [2.0, 1.0]
    clusters = fcm.cluster_report(t, p, sample_weight=w)
    assert clusters["overlap"].tolist() == [2.0, 1.0]


def test_five_million_weighted_labels_against_numpy():
    rng = np.random.default_rng(23)
    n = 5_000_000
    t = rng.integers(0, 33, n)
    p = np.where(rng.random(n) < 0.7, t * 2, rng.integers(0, 70, n))
    w = rng.gamma(1.5, 2.0, n)
    flat = np.bincount(t * 70 + p, weights=w, minlength=33 * 70).reshape(33, 70)
    a, b, total = flat.sum(axis=1), flat.sum(axis=0), flat.sum()

    # Each sample's square in the pair counts: k for a whole weight k, else w**2.
    squares = math.fsum(np.where(w == np.floor(w), w, w * w).tolist())

    def pairs(x):
        return (math.fsum((x * x).ravel().tolist()) - squares) / 2

    tt, pp, qq, nn = pairs(flat), pairs(a), pairs(b), (total * total - squares) / 2
    expected = pp * qq / nn
    ari = (tt - expected) / ((pp + qq) / 2 - expected)
    nz = flat[flat > 0]
    h_true = -math.fsum((a / total * np.log(a / total)).tolist())
    h_pred = -math.fsum((b[b > 0] / total * np.log(b[b > 0] / total)).tolist())
    mi = math.fsum((nz / total * np.log(nz * total / np.outer(a, b)[flat > 0])).tolist())
    c = fcm.Contingency.from_labels(t, p, sample_weight=w)
    assert c.weighted
    assert np.allclose(c.to_numpy(), flat[:, b > 0], rtol=1e-12)
    assert _close(c.adjusted_rand_score(), ari, rel=1e-9)
    assert _close(c.mutual_info_score(), mi, rel=1e-9)
    assert _close(c.v_measure_score(), 2 * mi / (h_true + h_pred), rel=1e-9)
    assert _close(c.purity_score(), flat.max(axis=0).sum() / total, rel=1e-12)
    whole = rng.integers(0, 3, n)
    got = fcm.evaluate(t, p, sample_weight=whole)
    want = fcm.evaluate(np.repeat(t, whole), np.repeat(p, whole))
    assert got.to_dict() == want.to_dict()


def test_the_heatmap_writes_real_cells_to_one_decimal():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fastcluster_metrics import plot

    c = fcm.Contingency.from_labels([0, 0, 1, 1], [0, 1, 1, 1], sample_weight=[1 / 7, 2, 3, 0.5])
    ax = plot.plot_contingency(c, normalize=None)
    assert sorted(t.get_text() for t in ax.texts) == ["0.1", "2.0", "3.5"]
    plt.close("all")
