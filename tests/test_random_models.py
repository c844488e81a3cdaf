"""The random models of adjusted_rand_score and adjusted_mutual_info_score (Gates and Ahn
2017) against brute force over every set partition (n <= 10), exact integer Stirling and
Bell numbers, clusim's closed forms of the expected Rand index, and scipy's hypergeometric
probabilities at n = 2e4."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from sklearn.metrics import adjusted_mutual_info_score as sk_ami
from sklearn.metrics import adjusted_rand_score as sk_ari
from sklearn.metrics import mutual_info_score as sk_mi

import fastcluster_metrics as fcm

MODELS = ["perm", "perm1", "num", "num1", "all", "all1"]
EPS = float(np.finfo(np.float64).eps)


def partitions(n: int) -> np.ndarray:
    """Every set partition of n items, as restricted growth strings (one per row)."""
    out: list[list[int]] = []
    word = [0] * n

    def grow(i: int, blocks: int) -> None:
        if i == n:
            out.append(word.copy())
            return
        for b in range(blocks + 1):
            word[i] = b
            grow(i + 1, max(blocks, b + 1))

    grow(1, 1) if n else out.append([])
    return np.array(out, dtype=np.int64).reshape(-1, n)


def tables(truth: np.ndarray, parts: np.ndarray) -> np.ndarray:
    """The contingency table of ``truth`` with each row of ``parts``: (P, classes, n)."""
    n = truth.size
    classes = int(truth.max()) + 1
    index = np.arange(len(parts))[:, None] * (classes * n) + truth[None, :] * n + parts
    counts = np.bincount(index.ravel(), minlength=len(parts) * classes * n)
    return counts.reshape(len(parts), classes, n)


def mutual_info(t: np.ndarray) -> np.ndarray:
    """Σ n_ij/N ln(N n_ij / (a_i b_j)) of each table, in nats."""
    n = t.sum(axis=(1, 2))[:, None, None].astype(float)
    a = t.sum(axis=2, keepdims=True).astype(float)
    b = t.sum(axis=1, keepdims=True).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(t > 0, t / n * np.log(n * t / (a * b)), 0.0)
    return terms.sum(axis=(1, 2))


def rand(t: np.ndarray) -> np.ndarray:
    """The Rand index of each table, from its pair counts."""
    n = t.sum(axis=(1, 2))
    both = (t * (t - 1) // 2).sum(axis=(1, 2))
    rows = (t.sum(axis=2) * (t.sum(axis=2) - 1) // 2).sum(axis=1)
    cols = (t.sum(axis=1) * (t.sum(axis=1) - 1) // 2).sum(axis=1)
    pairs = n * (n - 1) // 2
    return (pairs - rows - cols + 2 * both) / pairs


def entropy(labels: np.ndarray) -> float:
    p = np.bincount(labels) / labels.size
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def ami_of(mi: float, emi: float, h_true: float, h_pred: float) -> float:
    """scikit-learn's AMI (arithmetic mean) with a given expectation and its clamps."""
    normalizer = (h_true + h_pred) / 2
    den = normalizer - emi
    den = min(den, -EPS) if den < 0 else max(den, EPS)
    num = mi - emi
    num = min(num, -EPS) if num < 0 else max(num, EPS)
    return num / den


def expectations(truth: np.ndarray, pred: np.ndarray, model: str) -> tuple[float, float]:
    """(E[RI], E[MI]) under ``model`` by brute force: the mean over every labeling drawn."""
    n = truth.size
    every = partitions(n)
    blocks = every.max(axis=1) + 1
    k_true, k_pred = len(set(truth.tolist())), len(set(pred.tolist()))
    if model in ("num1", "all1"):
        drawn = every[blocks == k_pred] if model == "num1" else every
        t = tables(truth, drawn)
        return float(rand(t).mean()), float(mutual_info(t).mean())
    rows = every[blocks == k_true] if model == "num" else every
    cols = every[blocks == k_pred] if model == "num" else every
    ri, mi = [], []
    for r in rows:
        t = tables(r, cols)
        ri.append(rand(t).mean())
        mi.append(mutual_info(t).mean())
    return float(np.mean(ri)), float(np.mean(mi))


def _labelings(n: int, classes: int, clusters: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random labelings with exactly ``classes`` and ``clusters`` labels (each label once,
    the rest at random, shuffled)."""
    rng = np.random.default_rng(seed)
    t = rng.permutation(np.concatenate([np.arange(classes), rng.integers(0, classes, n - classes)]))
    p = rng.permutation(
        np.concatenate([np.arange(clusters), rng.integers(0, clusters, n - clusters)])
    )
    return t, p


BRUTE = [
    # (n, classes, clusters, models): one-sided up to n = 10 (115,975 partitions), two-sided
    # over pairs of partitions up to n = 7.
    (10, 3, 4, ["num1", "all1"]),
    (9, 2, 5, ["num1", "all1"]),
    (8, 4, 2, ["num1", "all1"]),
    (8, 3, 7, ["num1", "all1"]),
    (7, 3, 3, ["num", "all"]),
    (6, 2, 4, ["num", "all"]),
    (6, 5, 2, ["num", "all"]),
]


@pytest.mark.parametrize(("n", "classes", "clusters", "models"), BRUTE)
def test_every_partition(n, classes, clusters, models):
    truth, pred = _labelings(n, classes, clusters, seed=n * 100 + classes * 10 + clusters)
    ri = float(rand(tables(truth, pred[None, :]))[0])
    mi = sk_mi(truth, pred)
    for model in models:
        e_ri, e_mi = expectations(truth, pred, model)
        want_ari = 1.0 if ri == 1 else (ri - e_ri) / (1 - e_ri)
        got = fcm.adjusted_rand_score(truth, pred, random_model=model)
        assert got == pytest.approx(want_ari, rel=1e-12, abs=1e-13), model
        want_ami = ami_of(mi, e_mi, entropy(truth), entropy(pred))
        got = fcm.adjusted_mutual_info_score(truth, pred, random_model=model)
        assert got == pytest.approx(want_ami, rel=1e-11, abs=1e-12), model


@cache
def stirling(n: int, k: int) -> int:
    """S(n, k), exactly (the alternating sum)."""
    total = sum((-1) ** j * math.comb(k, j) * (k - j) ** n for j in range(k + 1))
    return total // math.factorial(k)


@cache
def bell(n: int) -> int:
    row = [1]
    for _ in range(n):
        nxt = [row[-1]]
        for x in row:
            nxt.append(nxt[-1] + x)
        row = nxt
    return row[0]


def pair_share(n: int, k: int | None) -> Fraction:
    """The probability that two given items share a block of a random partition of n items
    into k blocks (any number when None): clusim's S(n-1, k)/S(n, k) and B(n-1)/B(n)."""
    if k is None:
        return Fraction(bell(n - 1), bell(n))
    return Fraction(stirling(n - 1, k), stirling(n, k))


@pytest.mark.parametrize(
    ("n", "classes", "clusters"),
    [(50, 3, 2), (200, 5, 40), (200, 3, 190), (300, 20, 60), (1000, 7, 300), (2000, 4, 30)],
)
def test_ari_against_exact_pair_shares(n, classes, clusters):
    """clusim's closed forms: E[RI] = p q + (1-p)(1-q), with the drawn side's p from exact
    Stirling and Bell numbers (n below and above k ln k)."""
    truth, pred = _labelings(n, classes, clusters, seed=n + clusters)
    pairs = Fraction(n * (n - 1), 2)
    a = Fraction(sum(math.comb(c, 2) for c in np.bincount(truth).tolist()), 1) / pairs
    b = Fraction(sum(math.comb(c, 2) for c in np.bincount(pred).tolist()), 1) / pairs
    table = np.zeros((classes, clusters), dtype=np.int64)
    np.add.at(table, (truth, pred), 1)
    both = Fraction(sum(math.comb(int(c), 2) for c in table.ravel()), 1) / pairs
    ri = 1 - a - b + 2 * both
    for model, p, q in [
        ("num1", a, pair_share(n, clusters)),
        ("all1", a, pair_share(n, None)),
        ("num", pair_share(n, classes), pair_share(n, clusters)),
        ("all", pair_share(n, None), pair_share(n, None)),
        ("perm", a, b),
    ]:
        e = p * q + (1 - p) * (1 - q)
        want = float((ri - e) / (1 - e))
        got = fcm.adjusted_rand_score(truth, pred, random_model=model)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-14), model


def test_perm_and_perm1_are_scikit_learns_bit_for_bit():
    rng = np.random.default_rng(7)
    for n, r, c in [(30, 3, 4), (5000, 20, 30), (100_000, 33, 60)]:
        t, p = rng.integers(0, r, n), rng.integers(0, c, n)
        base_ari = fcm.adjusted_rand_score(t, p)
        base_ami = fcm.adjusted_mutual_info_score(t, p)
        assert base_ari == pytest.approx(sk_ari(t, p), rel=1e-12)
        assert base_ami == pytest.approx(sk_ami(t, p), rel=1e-9, abs=1e-12)
        for model in ("perm", "perm1"):
            assert fcm.adjusted_rand_score(t, p, random_model=model) == base_ari
            assert fcm.adjusted_mutual_info_score(t, p, random_model=model) == base_ami


def _hypergeometric_terms(a: int, b: int, n: int) -> float:
    """Σ_k P(k) (k/n) ln(n k/(a b)) over the hypergeometric P (scipy)."""
    from scipy.stats import hypergeom

    k = np.arange(max(1, a + b - n), min(a, b) + 1)
    p = hypergeom.pmf(k, n, a, b)
    return float(np.sum(p * k / n * np.log(n * k / (a * b))))


def _expected_blocks(n: int, k: int | None) -> dict[int, float]:
    """The expected number of blocks of each size b of a random partition: C(n, b)
    S(n-b, k-1)/S(n, k), or C(n, b) B(n-b)/B(n); sizes below 1e-20 of the largest left
    out."""
    out = {}
    if k is None:
        total = bell(n)
        sizes = range(1, n + 1)
        weight = lambda b: Fraction(math.comb(n, b) * bell(n - b), total)  # noqa: E731
    else:
        total = stirling(n, k)
        mode = n // k
        sizes = range(max(1, mode - 60 * int(math.sqrt(mode) + 1)), n - k + 2)
        weight = lambda b: Fraction(math.comb(n, b) * stirling(n - b, k - 1), total)  # noqa: E731
    top = 0.0
    for b in sizes:
        w = float(weight(b))
        top = max(top, w)
        if w < 1e-20 * top:
            if b > (n // k if k else 1):
                break
            continue
        out[b] = w
    return out


@pytest.mark.parametrize(
    ("n", "classes", "clusters", "model"),
    [(200, 3, 5, "num1"), (200, 4, 150, "num1"), (150, 3, None, "all1"), (3000, 5, 8, "num1")],
)
def test_expected_mutual_info_against_exact_block_sizes(n, classes, clusters, model):
    """E[MI] = Σ_i Σ_b E[blocks of size b] h(a_i, b), from exact Stirling and Bell numbers
    and scipy's hypergeometric probabilities."""
    k = clusters if model == "num1" else 7
    truth, pred = _labelings(n, classes, k, seed=n + k)
    blocks = _expected_blocks(n, clusters)
    rows = np.bincount(truth)
    emi = sum(w * sum(_hypergeometric_terms(int(a), b, n) for a in rows) for b, w in blocks.items())
    want = ami_of(sk_mi(truth, pred), emi, entropy(truth), entropy(pred))
    got = fcm.adjusted_mutual_info_score(truth, pred, random_model=model)
    assert got == pytest.approx(want, rel=1e-10, abs=1e-12)


def test_a_million_samples_one_sided():
    """33 classes x 60 clusters at n = 1e6 under num1 and all1: the Contingency method
    agrees; num1 is near the permutation model's value, all1 well below it."""
    rng = np.random.default_rng(3)
    n = 1_000_000
    t = rng.integers(0, 33, n)
    p = np.where(rng.random(n) < 0.7, t * 2 + rng.integers(0, 2, n), rng.integers(0, 60, n))
    c = fcm.Contingency.from_labels(t, p)
    base = fcm.adjusted_mutual_info_score(t, p)
    for model in ("num1", "all1"):
        got = fcm.adjusted_mutual_info_score(t, p, random_model=model)
        assert got == c.adjusted_mutual_info_score(random_model=model)
        assert math.isfinite(got)
        ari = fcm.adjusted_rand_score(t, p, random_model=model)
        assert ari == c.adjusted_rand_score(random_model=model)
        if model == "num1":
            # 60 random clusters share little with 33 classes: the values stay close.
            assert abs(got - base) < 0.05, (model, got, base)
            assert abs(ari - fcm.adjusted_rand_score(t, p)) < 0.05
        else:
            # A random partition of 1e6 samples has about 72,000 blocks of about 14: each
            # tells much of the classes, so less is left above chance.
            assert 0 < got < base - 0.1, (model, got, base)


def test_models_differ_where_the_numbers_of_clusters_differ():
    """A prediction with many small clusters: its ARI under 'all1' (whose random partitions
    have about n / ln n blocks) differs from 'perm', and 'num1' differs from both."""
    rng = np.random.default_rng(11)
    n = 5000
    t = rng.integers(0, 5, n)
    p = t * 100 + rng.integers(0, 100, n)  # 500 clusters nested in the classes
    values = {m: fcm.adjusted_rand_score(t, p, random_model=m) for m in ("perm", "num1", "all1")}
    assert len({round(v, 9) for v in values.values()}) == 3, values


def test_bad_models_and_weights():
    with pytest.raises(fcm.InvalidParameterError, match="'random_model' parameter"):
        fcm.adjusted_rand_score([0, 1], [0, 1], random_model="num2")
    with pytest.raises(fcm.InvalidParameterError, match=r"among \{'perm', 'perm1', 'num'"):
        fcm.adjusted_mutual_info_score([0, 1], [0, 1], random_model=None)
    with pytest.raises(ValueError, match="defined for counts only"):
        fcm.adjusted_rand_score(
            [0, 0, 1], [0, 1, 1], sample_weight=[0.5, 1, 1], random_model="num1"
        )
    # Whole-number weights are counts: the same as repeating the samples.
    got = fcm.adjusted_rand_score(
        [0, 0, 1, 2], [0, 1, 1, 2], sample_weight=[2, 1, 1, 3], random_model="all1"
    )
    want = fcm.adjusted_rand_score(
        [0, 0, 0, 1, 2, 2, 2], [0, 0, 1, 1, 2, 2, 2], random_model="all1"
    )
    assert got == pytest.approx(want, rel=1e-14)


def test_too_costly_is_refused_with_the_reason():
    """n below k ln k with both k and n - k large: the exact recurrence is refused."""
    n = 1_000_000
    p = np.arange(n) // 5  # 200,000 clusters of 5
    t = np.arange(n) % 3
    with pytest.raises(ValueError, match=r"too costly to compute exactly.*\(k - 1\)\(n - k \+ 1\)"):
        fcm.adjusted_rand_score(t, p, random_model="num1")
    # 'all1' has no such limit.
    assert math.isfinite(fcm.adjusted_rand_score(t, p, random_model="all1"))


def test_ari_against_clusim():
    """clusim 0.4's adjrand_index under each model (its second clustering is the fixed
    truth of the one-sided models), where its mpmath sums run in reasonable time."""
    clusim_sim = pytest.importorskip("clusim.sim")
    from clusim.clustering import Clustering

    rng = np.random.default_rng(5)
    for n, r, c in [(40, 3, 5), (120, 4, 9), (300, 6, 3)]:
        t = rng.integers(0, r, n)
        p = np.where(rng.random(n) < 0.5, t, rng.integers(0, c, n))
        truth = Clustering().from_membership_list(t.tolist())
        pred = Clustering().from_membership_list(p.tolist())
        for model in MODELS:
            theirs = float(clusim_sim.adjrand_index(pred, truth, random_model=model))
            ours = fcm.adjusted_rand_score(t, p, random_model=model)
            assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12), (n, model)
