"""standardized_rand_score against every permutation of small labelings (exact mean and
variance of the Rand index, in fractions), and its properties at larger n."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import fastcluster_metrics as fcm


def _together(t: list[int], p: list[int]) -> int:
    """Unordered pairs of distinct samples together in both labelings."""
    n = len(t)
    return sum(1 for i in range(n) for j in range(i + 1, n) if t[i] == t[j] and p[i] == p[j])


def _by_permutations(t: list[int], p: list[int]) -> float:
    """(T - E[T]) / sd(T) over every permutation of ``p``: nan when the sd is 0."""
    values = [_together(t, [p[i] for i in perm]) for perm in itertools.permutations(range(len(p)))]
    mean = Fraction(sum(values), len(values))
    variance = Fraction(sum(v * v for v in values), len(values)) - mean * mean
    if variance == 0:
        return math.nan
    deviation = _together(t, p) - mean
    return math.copysign(math.sqrt(float(deviation * deviation / variance)), deviation)


@pytest.mark.parametrize("seed", range(12))
def test_every_permutation(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    t = rng.integers(0, int(rng.integers(1, 4)), n).tolist()
    p = rng.integers(0, int(rng.integers(1, 5)), n).tolist()
    want = _by_permutations(t, p)
    got = fcm.standardized_rand_score(t, p)
    if math.isnan(want):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(want, rel=1e-13, abs=1e-14), (t, p)


def test_small_and_degenerate():
    # Fewer than four samples: the formula's terms over quadruples vanish.
    for t, p in [([0, 0, 1], [0, 1, 1]), ([0, 1, 1], [0, 0, 1]), ([0, 0], [0, 1])]:
        want = _by_permutations(t, p)
        got = fcm.standardized_rand_score(t, p)
        assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(want, rel=1e-13)
    # One cluster, or all singletons: every permutation gives the same index.
    assert math.isnan(fcm.standardized_rand_score([0, 1, 2, 3], [0, 0, 0, 0]))
    assert math.isnan(fcm.standardized_rand_score([0, 0, 1, 1], [0, 1, 2, 3]))
    assert math.isnan(fcm.standardized_rand_score([], []))


@pytest.mark.parametrize(
    ("name", "short", "seed", "rel"),
    [("standardized_rand_score", "SRI", 4, 0), ("standardized_mutual_info_score", "SMI", 5, 1e-12)],
)
def test_symmetric_and_agrees_with_the_contingency_and_evaluate(name, short, seed, rel):
    """The same value either way round (bit for bit for SRI's integers; to 1e-12 for SMI, whose
    passes run over the rows of the table or of its transpose), from a Contingency and from
    evaluate; far above chance with 10 % of the samples copied into the prediction."""
    rng = np.random.default_rng(seed)
    t, p = rng.integers(0, 6, 5000), rng.integers(0, 9, 5000)
    p = np.where(rng.random(5000) < 0.1, t, p)
    value = getattr(fcm, name)(t, p)
    assert value == pytest.approx(getattr(fcm, name)(p, t), rel=rel, abs=0)
    assert value == getattr(fcm.Contingency.from_labels(t, p), name)()
    assert value == fcm.evaluate(t, p, metrics=[short])[name]
    assert value > 10


@pytest.mark.parametrize(
    ("name", "seed"), [("standardized_rand_score", 9), ("standardized_mutual_info_score", 11)]
)
def test_random_labelings_are_standard(name, seed):
    """Independent labelings: the values have mean about 0 and variance about 1 (400 draws
    of n = 300: the mean within 0.2, the variance within 0.25 of 1)."""
    rng = np.random.default_rng(seed)
    score = getattr(fcm, name)
    values = [score(rng.integers(0, 4, 300), rng.integers(0, 12, 300)) for _ in range(400)]
    assert abs(np.mean(values)) < 0.2
    assert abs(np.var(values) - 1) < 0.25


def test_many_samples_exact_and_weights():
    """At n = 1e6 the exact integers give a finite value; whole-number weights are counts."""
    rng = np.random.default_rng(2)
    n = 1_000_000
    t = rng.integers(0, 33, n)
    p = np.where(rng.random(n) < 0.01, t, rng.integers(0, 60, n))
    value = fcm.standardized_rand_score(t, p)
    assert math.isfinite(value) and value > 3
    got = fcm.standardized_rand_score([0, 0, 1, 2], [0, 1, 1, 2], sample_weight=[2, 1, 1, 3])
    want = fcm.standardized_rand_score([0, 0, 0, 1, 2, 2, 2], [0, 0, 1, 1, 2, 2, 2])
    assert got == pytest.approx(want, rel=1e-14)
    with pytest.raises(ValueError, match="defined for counts only"):
        fcm.standardized_rand_score([0, 0, 1], [0, 1, 1], sample_weight=[0.5, 1, 1])


# standardized_mutual_info_score


def _mi(t: list[int], p: list[int]) -> float:
    """Mutual information (nats) from its definition."""
    n = len(t)
    cells: dict[tuple[int, int], int] = {}
    for a, b in zip(t, p, strict=True):
        cells[a, b] = cells.get((a, b), 0) + 1
    rows = {a: t.count(a) for a in set(t)}
    cols = {b: p.count(b) for b in set(p)}
    return math.fsum(c / n * math.log(c * n / (rows[a] * cols[b])) for (a, b), c in cells.items())


def _mi_by_permutations(t: list[int], p: list[int]) -> tuple[float, float, float]:
    """The mutual information, and its mean and variance over every permutation of ``p``."""
    values = [_mi(t, [p[i] for i in perm]) for perm in itertools.permutations(range(len(p)))]
    mean = math.fsum(values) / len(values)
    variance = math.fsum((v - mean) ** 2 for v in values) / len(values)
    return _mi(t, p), mean, variance


@pytest.mark.parametrize("seed", range(16))
def test_smi_every_permutation(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(3, 8))
    t = rng.integers(0, int(rng.integers(2, 4)), n).tolist()
    p = rng.integers(0, int(rng.integers(2, 5)), n).tolist()
    mi, mean, variance = _mi_by_permutations(t, p)
    got = fcm.standardized_mutual_info_score(t, p)
    if variance < 1e-24:
        assert math.isnan(got), (t, p)
    else:
        assert got == pytest.approx((mi - mean) / math.sqrt(variance), rel=1e-9, abs=1e-9), (t, p)


@pytest.mark.parametrize(
    ("t", "p"),
    [
        ([0, 0, 0, 0, 1], [0, 0, 1, 1, 2]),  # n - 1 and 1 against unequal sizes
        ([0, 0, 0, 0, 0, 1], [0, 0, 1, 1, 2, 2]),  # against equal sizes: constant
        ([0, 1, 2, 3, 4, 5], [0, 0, 1, 1, 1, 2]),  # all singletons: constant
        ([0, 0, 1, 1, 2, 2], [0, 0, 0, 0, 0, 0]),  # one cluster: constant
        ([0, 0, 1, 1, 2, 2], [0, 0, 0, 0, 0, 1]),
        ([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 3]),
    ],
)
def test_smi_constant_cases_are_nan_and_only_they(t, p):
    mi, mean, variance = _mi_by_permutations(t, p)
    for a, b in [(t, p), (p, t)]:
        got = fcm.standardized_mutual_info_score(a, b)
        if variance < 1e-24:
            assert math.isnan(got)
        else:
            assert got == pytest.approx((mi - mean) / math.sqrt(variance), rel=1e-9)
    assert math.isnan(fcm.standardized_mutual_info_score([], []))


def test_smi_weights():
    """Whole-number weights count samples; others are refused, and so are weights that make
    more samples than the exact computation takes."""
    rng = np.random.default_rng(5)
    t, p = rng.integers(0, 6, 5000), rng.integers(0, 9, 5000)
    p = np.where(rng.random(5000) < 0.1, t, p)
    w = rng.integers(1, 4, 5000)
    assert fcm.standardized_mutual_info_score(t, p, sample_weight=w) == pytest.approx(
        fcm.standardized_mutual_info_score(np.repeat(t, w), np.repeat(p, w)), rel=1e-12
    )
    with pytest.raises(ValueError, match="counts only"):
        fcm.standardized_mutual_info_score(t, p, sample_weight=w + 0.5)
    # Weights that make n past 2**33 samples: refused at once, not minutes and gigabytes.
    with pytest.raises(ValueError, match=r"at most 2\*\*33 samples .* n = 85,899,345,920,000"):
        fcm.standardized_mutual_info_score(t, p, sample_weight=np.full(5000, 2**34))


def test_smi_at_a_million_labels_against_permutations():
    """At n = 1e6 (6 x 9 clusters of unequal sizes), the standardized values of 60 random
    permutations of the prediction have mean about 0 and variance about 1: a variance off
    by a tenth would show (the sample variance of 60 standard normals is within 0.5 of 1
    with probability above 0.999)."""
    rng = np.random.default_rng(12)
    n = 1_000_000
    t = rng.choice(6, n, p=[0.3, 0.25, 0.2, 0.1, 0.1, 0.05])
    p = rng.choice(9, n, p=[0.2, 0.2, 0.15, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05])
    table = fcm.Contingency.from_labels(t, p)
    sd = math.sqrt(table._native_table.mutual_info_variance())
    mi0, emi, _, _ = table._native_table.ami_parts()
    # Asymptotically 2 n MI is chi-squared with (R - 1)(C - 1) = 40 degrees of freedom.
    assert sd * n == pytest.approx(math.sqrt(40 / 2), rel=0.02)
    z = [(fcm.mutual_info_score(t, rng.permutation(p)) - emi) / sd for _ in range(60)]
    assert abs(np.mean(z)) < 0.5
    assert abs(np.var(z) - 1) < 0.5
    assert fcm.standardized_mutual_info_score(t, p) == pytest.approx((mi0 - emi) / sd, rel=1e-12)


def _partitions(n: int, largest: int | None = None):
    """Every partition of ``n`` into parts of at most ``largest``, parts descending."""
    if n == 0:
        yield ()
        return
    for k in range(min(n, largest or n), 0, -1):
        for rest in _partitions(n - k, k):
            yield (k, *rest)


def _tables(rows: tuple[int, ...], cols: tuple[int, ...]):
    """Every table with these row and column sums."""

    def fill(j: int, left: int, room: list[int], row: list[int]):
        if j == len(room) - 1:
            if left <= room[j]:
                yield [*row, left]
            return
        for x in range(min(left, room[j]) + 1):
            yield from fill(j + 1, left - x, room, [*row, x])

    def rows_from(i: int, room: list[int]):
        if i == len(rows):
            if not any(room):
                yield []
            return
        for row in fill(0, rows[i], room, []):
            for rest in rows_from(i + 1, [c - x for c, x in zip(room, row, strict=True)]):
                yield [row, *rest]

    yield from rows_from(0, list(cols))


def test_smi_every_pair_of_margins_against_every_table():
    """For every pair of row and column sizes of up to 8 samples: nan exactly where every table
    with those sums has the same mutual information, and otherwise the value from the exact
    distribution over the tables (probabilities in fractions)."""
    fact = math.factorial
    for n in range(2, 9):
        for rows in _partitions(n):
            for cols in _partitions(n):
                margins = math.prod(map(fact, rows)) * math.prod(map(fact, cols))
                values, probs = [], []
                for table in _tables(rows, cols):
                    cells = math.prod(fact(x) for row in table for x in row)
                    probs.append(float(Fraction(margins, fact(n) * cells)))
                    values.append(
                        math.fsum(
                            x / n * math.log(x * n / (rows[i] * cols[j]))
                            for i, row in enumerate(table)
                            for j, x in enumerate(row)
                            if x
                        )
                    )
                t = np.repeat(np.arange(len(rows)), rows)
                p = np.repeat(np.arange(len(cols)), cols)[::-1]
                got = fcm.standardized_mutual_info_score(t, p)
                if max(values) - min(values) < 1e-12:
                    assert math.isnan(got), (rows, cols)
                    continue
                mean = math.fsum(q * v for q, v in zip(probs, values, strict=True))
                var = math.fsum(q * (v - mean) ** 2 for q, v in zip(probs, values, strict=True))
                mi = fcm.mutual_info_score(t, p)
                assert got == pytest.approx((mi - mean) / math.sqrt(var), rel=1e-9, abs=1e-9), (
                    rows,
                    cols,
                )
