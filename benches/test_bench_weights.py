"""Weighted counting at n = 1e7: the weighted pass against the unweighted one, the floor and the
approach of scikit-learn's open pull request #26923 (weights as the data of a scipy COO
contingency matrix, V-measure from it).

Timing run:  pytest benches/test_bench_weights.py --benchmark-only --benchmark-json=weights.json
Report:      python benches/report.py weights.json

Labels are ``make_labels`` (20 classes x 30 clusters, int64). Weights: ``int`` (whole numbers
0..3, int64) and ``float`` (uniform in [0, 3), float64). Groups:

- ``weighted ARI``: ``unweighted`` (``fcm.adjusted_rand_score(t, p)``, the pass the weighted
  one is measured against), ``int`` and ``float`` weights, and ``floor`` (NumPy reading the
  labels and the float weights once: the weighted pass reads 1.5x the bytes of the unweighted
  one).
- ``weighted AMI``: ``unweighted`` and ``int`` weights (AMI needs whole numbers).
- ``weighted V-measure``: ``float`` weights, ours against ``sklearn_pr``.

Every case checks its value first: whole-number weights against the measure of the repeated
samples, real ones against a NumPy computation from the weighted table (1e-9 relative).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from conftest import make_labels

import fastcluster_metrics as fcm

N = 10**7
REL = 1e-9


@functools.cache
def _inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    t, p = make_labels(N)
    rng = np.random.default_rng(7)
    whole = rng.integers(0, 4, N)
    real = rng.random(N) * 3
    return t, p, whole, real


def _sklearn_pr_v_measure(t: np.ndarray, p: np.ndarray, w: np.ndarray) -> float:
    """V-measure as PR #26923 computes it: the classes and clusters by ``np.unique``, the
    weights summed by a scipy COO matrix, entropies and MI of the weighted table."""
    import scipy.sparse as sp

    classes, ci = np.unique(t, return_inverse=True)
    clusters, ki = np.unique(p, return_inverse=True)
    table = sp.coo_matrix((w, (ci, ki)), shape=(classes.size, clusters.size)).tocsr()
    table.sum_duplicates()
    n = table.sum()
    a = np.asarray(table.sum(axis=1)).ravel()
    b = np.asarray(table.sum(axis=0)).ravel()

    def entropy(s: np.ndarray) -> float:
        s = s[s > 0]
        return float(-np.sum((s / n) * (np.log(s) - math.log(n))))

    rows, cols = table.nonzero()
    c = np.asarray(table[rows, cols]).ravel()
    mi = float(np.sum(c / n * (np.log(c) + math.log(n) - np.log(a[rows]) - np.log(b[cols]))))
    h_c, h_k = entropy(a), entropy(b)
    return 2 * mi / (h_c + h_k)


def _numpy_ari(t: np.ndarray, p: np.ndarray, w: np.ndarray) -> float:
    table = np.zeros((t.max() + 1, p.max() + 1))
    np.add.at(table, (t, p), w)
    a, b, n = table.sum(axis=1), table.sum(axis=0), table.sum()
    # Pairs of distinct samples: (x**2 - s) / 2, s the samples' squares (k for a whole weight
    # k, which stands for k samples of weight 1; w**2 for any other).
    s = float(np.sum(np.where(w == np.floor(w), w, w * w)))

    def pairs(x: np.ndarray) -> float:
        return float((np.sum(x * x) - s) / 2)

    tt, pp, qq, nn = pairs(table), pairs(a), pairs(b), (n * n - s) / 2
    e = pp * qq / nn
    return (tt - e) / ((pp + qq) / 2 - e)


def _check(got: float, want: float) -> None:
    assert math.isclose(got, want, rel_tol=REL), (got, want)


@pytest.mark.parametrize("case", ["unweighted", "int", "float", "floor"])
def test_weighted_ari(benchmark, case):
    t, p, whole, real = _inputs()
    benchmark.group = "weighted ARI 1e7"
    if case == "floor":
        benchmark(lambda: (np.add.reduce(t), np.add.reduce(p), np.add.reduce(real)))
        return
    if case == "unweighted":
        _check(fcm.adjusted_rand_score(t, p), _numpy_ari(t, p, np.ones(N)))
        benchmark(fcm.adjusted_rand_score, t, p)
        return
    w = whole if case == "int" else real
    if case == "int":
        want = fcm.adjusted_rand_score(np.repeat(t, whole), np.repeat(p, whole))
        assert fcm.adjusted_rand_score(t, p, sample_weight=w) == want
    else:
        _check(fcm.adjusted_rand_score(t, p, sample_weight=w), _numpy_ari(t, p, w))
    benchmark(lambda: fcm.adjusted_rand_score(t, p, sample_weight=w))


@pytest.mark.parametrize("case", ["unweighted", "int"])
def test_weighted_ami(benchmark, case):
    t, p, whole, _ = _inputs()
    benchmark.group = "weighted AMI 1e7"
    if case == "unweighted":
        benchmark(fcm.adjusted_mutual_info_score, t, p)
        return
    want = fcm.adjusted_mutual_info_score(np.repeat(t, whole), np.repeat(p, whole))
    assert fcm.adjusted_mutual_info_score(t, p, sample_weight=whole) == want
    benchmark(lambda: fcm.adjusted_mutual_info_score(t, p, sample_weight=whole))


@pytest.mark.parametrize("case", ["ours", "sklearn_pr"])
def test_weighted_v_measure(benchmark, case):
    pytest.importorskip("scipy")
    t, p, _, real = _inputs()
    benchmark.group = "weighted V-measure 1e7"
    want = _sklearn_pr_v_measure(t, p, real)
    if case == "ours":
        _check(fcm.v_measure_score(t, p, sample_weight=real), want)
        benchmark(lambda: fcm.v_measure_score(t, p, sample_weight=real))
    else:
        benchmark(_sklearn_pr_v_measure, t, p, real)
