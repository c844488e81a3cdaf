"""Exact integers on arrays (``_measures/exact.py``): every operation against Python's ints,
every quotient against ``float(Fraction(num, den))``, to the last bit."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from fastcluster_metrics._measures.exact import Ints, ratio


def _quotients(num: list[int], den: list[int]) -> np.ndarray:
    return np.array([float(Fraction(a, b)) if b else -1.0 for a, b in zip(num, den, strict=True)])


@pytest.mark.parametrize("bits", [3, 20, 30, 40, 52, 53, 60])
def test_sums_products_and_quotients_are_pythons(bits):
    rng = np.random.default_rng(bits)
    a, b, c, d = (rng.integers(-(2**bits), 2**bits, 20_000) for _ in range(4))
    b[::3] = a[::3] + rng.integers(-3, 3, b[::3].size)  # near-cancelling differences
    x = [[int(v) for v in arr] for arr in (a, b, c, d)]
    num_i = [2 * (p * q - r * s) for p, q, r, s in zip(*x, strict=True)]
    den_i = [(p + r) * (q - s) + r * s + 1 for p, q, r, s in zip(*x, strict=True)]
    A, B, C, D = (Ints.of(arr) for arr in (a, b, c, d))
    num, den = 2 * (A * B - C * D), (A + C) * (B - D) + C * D + 1
    assert num.objects().tolist() == num_i
    assert den.objects().tolist() == den_i
    assert (num < den).tolist() == [p < q for p, q in zip(num_i, den_i, strict=True)]
    assert (num == num_i[0]).tolist() == [p == num_i[0] for p in num_i]
    assert ((num - num) // 2 == 0).all()
    got = ratio(num, den, -1.0)
    assert np.array_equal(got.view(np.uint64), _quotients(num_i, den_i).view(np.uint64))


def test_ties_and_values_past_two_to_the_hundred():
    # (2**53 + 1) / 1 lies halfway between two floats (ties to even); 2**54 + 2 is the
    # product of two floats, so the quotient is refined and found a tie, then divided exactly.
    a = Ints.of(np.array([3_002_399_751_580_331, 3_002_399_751_580_331, 7, 2**40]))
    b = Ints.of(np.array([6, -6, 3, 2**40]))
    num = a * b
    den = Ints.of(np.array([2, 2, -2, 3]))
    num_i = [int(v) for v in num.objects()]
    assert num_i == [2**54 + 2, -(2**54) - 2, 21, 2**80]
    got = ratio(num, den, -1.0)
    assert np.array_equal(got.view(np.uint64), _quotients(num_i, [2, 2, -2, 3]).view(np.uint64))
    huge = num * num  # past 2**100: Python ints
    assert huge.obj is not None
    assert huge.objects().tolist() == [v * v for v in num_i]
    assert np.array_equal(ratio(huge, den, -1.0), _quotients([v * v for v in num_i], [2, 2, -2, 3]))
    assert ratio(Ints.of(np.array([0, 5])), Ints.of(np.array([-3, 0])), 9.0).tolist() == [0.0, 9.0]
    assert str(ratio(Ints.of(np.array([0])), Ints.of(np.array([-3])), 9.0)[0]) == "0.0"
