"""Exact at sizes no label array reaches (tables given directly), and no dense table too large."""

from fractions import Fraction
from math import comb, isqrt

import numpy as np
import pytest

import fastcluster_metrics as fcm

BIG = 2**40  # samples: far past where int64 pair counts (n**2) overflow


def _pair_reference(table):
    """T, P, Q, N over unordered pairs, as exact Python integers."""
    cells = [[int(x) for x in row] for row in table]  # Python ints: sums past 2^63 stay exact
    t = sum(comb(x, 2) for row in cells for x in row)
    p = sum(comb(sum(row), 2) for row in cells)
    q = sum(comb(sum(col), 2) for col in zip(*cells, strict=True))
    return t, p, q, comb(sum(map(sum, cells)), 2)


TABLES = [
    np.array([[BIG // 2, 3], [5, BIG // 2 - 8]], dtype=np.int64),
    np.array(
        [[BIG // 3, BIG // 5, 7], [1, BIG // 7, BIG // 11], [2**35, 0, 2**20]], dtype=np.int64
    ),
    np.array([[2**62, 1], [1, 2**62]], dtype=np.int64),  # n ~ 2^63: pair sums need 126 bits
]


@pytest.mark.parametrize("table", TABLES, ids=["2x2", "3x3", "2^63"])
def test_pair_measures_exact_at_huge_n(table):
    c = fcm.Contingency(table)
    t, p, q, n_pairs = _pair_reference(table)
    assert c.n == sum(int(x) for x in table.flat)
    # sklearn's 2x2 pair table counts ordered pairs: twice the unordered ones.
    want = [[2 * (n_pairs - p - q + t), 2 * (q - t)], [2 * (p - t), 2 * t]]
    got = c.pair_confusion_matrix()
    assert [[int(x) for x in row] for row in got] == want
    assert c.rand_score() == float(Fraction(n_pairs - p - q + 2 * t, n_pairs))
    expected = Fraction(p * q, n_pairs)
    ari = (t - expected) / (Fraction(p + q, 2) - expected)
    assert c.adjusted_rand_score() == float(ari)
    fm = c.fowlkes_mallows_score()
    # FM = t / sqrt(p q): compare against an integer square root at 60 extra bits.
    scale = 2**60
    want_fm = Fraction(t * scale, isqrt(p * q * scale * scale))
    assert fm == pytest.approx(float(want_fm), rel=1e-15)


def test_pair_confusion_beyond_int64_is_object_dtype():
    table = np.array([[2**62, 1], [1, 2**62]], dtype=np.int64)
    got = fcm.Contingency(table).pair_confusion_matrix()
    assert got.dtype == object
    assert int(got[1, 1]) == 2 * (2**62) ** 2 - 2 * 2**62


def test_entropy_and_mi_stable_for_a_million_cells():
    rng = np.random.default_rng(2)
    table = rng.integers(1, 50, size=(1000, 1000))
    c = fcm.Contingency(table)
    p = table / table.sum()
    pi, pj = p.sum(axis=1), p.sum(axis=0)
    mi = float(np.sum(p * (np.log(p) - np.log(np.outer(pi, pj)))))
    assert c.mutual_info_score() == pytest.approx(mi, rel=1e-9, abs=1e-15)
    h = float(-np.sum(pi * np.log(pi)))
    assert c.entropy_true() == pytest.approx(h, rel=1e-12)


def test_dense_contingency_matrix_too_large_is_refused_before_allocating():
    labels = np.arange(200_000)  # 200,000 x 200,000 int64 cells: 298 GiB
    with pytest.raises(MemoryError, match="use sparse=True"):
        fcm.contingency_matrix(labels, labels)
    sparse = fcm.contingency_matrix(labels, labels, sparse=True)
    assert sparse.nnz == 200_000
