"""Soft and overlapping labelings (``_soft/``): the Frobenius indices against the authors' n x n
formulas and scikit-learn, Omega and overlapping NMI against clusim and the papers' definitions
written set by set, extended BCubed against a loop over pairs, and the errors."""

from __future__ import annotations

import itertools
import math
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics as skm

import fastcluster_metrics as fcm
from fastcluster_metrics._measures.catalogue import COVERS, MEMBERSHIPS, of_kind
from fastcluster_metrics._soft import bcubed as _bcubed
from fastcluster_metrics._soft import cover_groups as _cover_groups
from fastcluster_metrics._soft import frobenius as _frobenius
from fastcluster_metrics._soft import omega as _omega

# the public functions of the catalogue's measures of memberships and covers
FUNCTIONS = list(
    dict.fromkeys(row.function_name for kind in (MEMBERSHIPS, COVERS) for row in of_kind(kind))
)


# --- oracles, written from the definitions -----------------------------------------------------


def fari_reference(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """The authors' R ``fari(a, b)`` (github.com/its-likeli-jeff/FARI, R/fari.R), line by line,
    with the n x n bonding matrices."""
    n = a.shape[0]
    big_a, big_b = a @ a.T, b @ b.T
    j = np.ones((n, n))
    na = (np.sum(big_a * j) / np.sum(big_a * big_a)) * big_a
    nb = (np.sum(big_b * j) / np.sum(big_b * big_b)) * big_b
    ri = (np.sum(na * nb) + np.sum((j - na) * (j - nb)) - n) / (n * (n - 1))
    m = j / n
    r = np.eye(n) - m
    sa, sb = np.sum(big_a * j), np.sum(big_b * j)
    qa, qb = np.sum(big_a * big_a), np.sum(big_b * big_b)
    eri = (
        (2 * sa * sb / (qa * qb))
        * (np.sum(m * big_a) * np.sum(m * big_b) + np.sum(r * big_a) * np.sum(r * big_b) / (n - 1))
        - sa**2 / qa
        - sb**2 / qb
        + n**2
        - n
    ) / (n * (n - 1))
    return float(ri), float((ri - eri) / (1 - eri))


def omega_reference(x: list[set], y: list[set]) -> float:
    """Collins & Dent's Omega over all pairs of samples."""
    n = len(x)
    shared_x = [len(x[i] & x[j]) for i in range(n) for j in range(i + 1, n)]
    shared_y = [len(y[i] & y[j]) for i in range(n) for j in range(i + 1, n)]
    pairs = len(shared_x)
    agree = sum(a == b for a, b in zip(shared_x, shared_y, strict=True)) / pairs
    top = max(shared_x + shared_y) + 1
    tx = np.bincount(shared_x, minlength=top)
    ty = np.bincount(shared_y, minlength=top)
    expected = float(tx @ ty) / pairs**2
    return (agree - expected) / (1 - expected)


def bcubed_reference(truth: list[set], pred: list[set]) -> tuple[float, float]:
    """Amigó et al.'s extended BCubed precision and recall, over every pair of samples."""
    precision, recall = [], []
    for e in range(len(truth)):
        ps, rs = [], []
        for f in range(len(truth)):
            u, t = len(pred[e] & pred[f]), len(truth[e] & truth[f])
            if u:
                ps.append(min(u, t) / u)
            if t:
                rs.append(min(u, t) / t)
        precision.append(np.mean(ps))
        recall.append(np.mean(rs))
    return float(np.mean(precision)), float(np.mean(recall))


def _h(p: float) -> float:
    return 0.0 if p <= 0 else -p * math.log2(p)


def onmi_reference(x: list[set], y: list[set], n: int, variant: str, p00_clusim=False) -> float:
    """Overlapping NMI from the papers, cluster by cluster (as cdlib's ``onmi``); with
    ``p00_clusim`` the probability of being in neither cluster is clusim 0.4's ``1 - P11``."""
    if {frozenset(c) for c in x} == {frozenset(c) for c in y}:
        return 1.0

    def entropy(c: set) -> float:
        return _h(len(c) / n) + _h(1 - len(c) / n)

    def given(c: set, known: set) -> float | None:
        """H(c | known) where LFK's test passes, else None."""
        p11 = len(c & known) / n
        p01, p10 = len(known - c) / n, len(c - known) / n
        p00 = 1 - p11 if p00_clusim else (n - len(c | known)) / n
        if _h(p11) + _h(p00) > _h(p01) + _h(p10):
            return _h(p11) + _h(p10) + _h(p01) + _h(p00) - entropy(known)
        return None

    def conditional(xs: list[set], ys: list[set]) -> list[float]:
        # the least over the clusters that pass, else H(c) (clusim's way: with its P00 the
        # least can exceed H(c); with the true P00 it cannot)
        out = []
        for c in xs:
            passing = [h for k in ys if (h := given(c, k)) is not None]
            out.append(min(passing) if passing else entropy(c))
        return out

    hxy, hyx = conditional(x, y), conditional(y, x)
    if variant == "LFK":

        def normalised(parts: list[float], cs: list[set]) -> float:
            return float(
                np.mean(
                    [
                        1.0 if entropy(c) == 0 else h / entropy(c)
                        for h, c in zip(parts, cs, strict=True)
                    ]
                )
            )

        return 1 - 0.5 * (normalised(hxy, x) + normalised(hyx, y))
    hx, hy = sum(map(entropy, x)), sum(map(entropy, y))
    return 0.5 * (hx - sum(hxy) + hy - sum(hyx)) / max(hx, hy)


def random_cover(rng: np.random.Generator, n: int, k: int, most: int = 3) -> list[set]:
    return [set(rng.integers(0, k, rng.integers(1, most + 1)).tolist()) for _ in range(n)]


def clusters(cover: list[set]) -> list[set]:
    found: dict[int, set] = {}
    for i, labels in enumerate(cover):
        for label in labels:
            found.setdefault(label, set()).add(i)
    return list(found.values())


def clusim_clustering(cover: list[set]):
    from clusim.clustering import Clustering

    return Clustering(elm2clu_dict={i: sorted(s) for i, s in enumerate(cover)})


def clusim_value(name: str, x: list[set], y: list[set]) -> float:
    import clusim.sim

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return float(getattr(clusim.sim, name)(clusim_clustering(x), clusim_clustering(y)))


# --- the Frobenius indices ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_frobenius_indices_are_the_authors_formulas(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    k1, k2 = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    p = rng.dirichlet(np.full(k1, rng.uniform(0.1, 3)), n)
    q = rng.dirichlet(np.full(k2, rng.uniform(0.1, 3)), n)
    ri, ari = fari_reference(p, q)
    assert fcm.frobenius_rand_score(p, q) == pytest.approx(ri, rel=1e-10, abs=1e-12)
    assert fcm.frobenius_adjusted_rand_score(p, q) == pytest.approx(ari, rel=1e-9, abs=1e-12)
    # every form of the inputs gives the same sums
    for a, b in [(sp.csr_matrix(p), q), (p, sp.csc_matrix(q)), (sp.csr_matrix(p), sp.coo_array(q))]:
        assert fcm.frobenius_adjusted_rand_score(a, b) == pytest.approx(ari, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_one_hot_memberships_give_sklearns_rand_and_adjusted_rand(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 2000))
    t = rng.integers(0, int(rng.integers(1, 12)), n)
    p = rng.integers(0, int(rng.integers(1, 12)), n)
    if seed % 4 == 0:
        p = t.copy()
    want_ari, want_ri = skm.adjusted_rand_score(t, p), skm.rand_score(t, p)
    one_hot_t = np.eye(t.max() + 1)[t]
    one_hot_p = np.eye(p.max() + 1)[p]
    for a, b in [(t, p), (one_hot_t, one_hot_p), (t, one_hot_p), (sp.csr_matrix(one_hot_t), p)]:
        assert abs(fcm.frobenius_adjusted_rand_score(a, b) - want_ari) <= 1e-12
        assert abs(fcm.frobenius_rand_score(a, b) - want_ri) <= 1e-12
    names = np.array(["x", "y", "z", "w"] * 3, dtype=object)[t % 12]
    assert abs(fcm.frobenius_adjusted_rand_score(names, p) - skm.adjusted_rand_score(names, p)) <= (
        1e-12
    )


@pytest.mark.parametrize(
    ("t", "p"),
    [([0], [0]), ([0, 0], [1, 1]), ([0, 1, 2], [3, 4, 5]), ([0, 0, 0], [0, 1, 2]), ([], [])],
)
def test_edge_cases_are_sklearns(t, p):
    assert fcm.frobenius_adjusted_rand_score(t, p) == skm.adjusted_rand_score(t, p)
    assert fcm.frobenius_rand_score(t, p) == skm.rand_score(t, p)


def test_a_soft_labeling_compared_with_itself_scores_one_and_with_its_hard_calls_less():
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.full(4, 0.5), 200)
    assert fcm.frobenius_adjusted_rand_score(p, p) == pytest.approx(1.0, abs=1e-12)
    assert fcm.frobenius_rand_score(p, p) == pytest.approx(1.0, abs=1e-12)
    assert fcm.frobenius_adjusted_rand_score(p, p.argmax(axis=1)) < 0.9
    # the scale of the whole matrix does not matter; a row's scale does
    q = rng.dirichlet(np.ones(3), 200)
    value = fcm.frobenius_adjusted_rand_score(p, q)
    assert fcm.frobenius_adjusted_rand_score(7.0 * p, q) == pytest.approx(value, rel=1e-12)
    rows = p.copy()
    rows[:50] *= 3
    assert fcm.frobenius_adjusted_rand_score(rows, q) != pytest.approx(value, rel=1e-6)


@pytest.mark.parametrize("form", ["dense", "sparse", "labels"])
def test_whole_weights_are_repeated_rows(form):
    rng = np.random.default_rng(11)
    n = 150
    p = rng.dirichlet(np.ones(4), n)
    q = rng.dirichlet(np.ones(3), n)
    labels = rng.integers(0, 5, n)
    w = rng.integers(0, 4, n)
    first = {"dense": p, "sparse": sp.csr_matrix(p), "labels": labels}[form]
    repeated = {"dense": np.repeat(p, w, axis=0), "labels": np.repeat(labels, w)}.get(
        form, sp.csr_matrix(np.repeat(p, w, axis=0))
    )
    for f in (fcm.frobenius_adjusted_rand_score, fcm.frobenius_rand_score):
        want = f(repeated, np.repeat(q, w, axis=0))
        assert f(first, q, sample_weight=w) == pytest.approx(want, rel=1e-10, abs=1e-13)
        want = f(repeated, np.repeat(labels, w))
        assert f(first, labels, sample_weight=w) == pytest.approx(want, rel=1e-10, abs=1e-13)
    real = rng.random(n)
    got = fcm.frobenius_adjusted_rand_score(first, q, sample_weight=real)
    dense = fcm.frobenius_adjusted_rand_score(
        np.eye(5)[labels] if form == "labels" else p, q, sample_weight=real
    )
    assert got == pytest.approx(dense, rel=1e-10)


def test_the_chunked_sums_agree_with_one_product_at_a_million_cells():
    rng = np.random.default_rng(5)
    n = 50_000  # x 20 columns = 1e6 cells, about six chunks
    p = rng.dirichlet(np.ones(12), n)
    q = rng.dirichlet(np.full(8, 0.3), n)
    got = _frobenius.sums("f", p, q)
    s, a, b = p.T @ q, p.T @ p, q.T @ q
    want = {
        "cross": float(np.sum(s * s)),
        "total_a": float(p.sum(0) @ p.sum(0)),
        "square_a": float(np.sum(a * a)),
        "trace_a": float(np.sum(p * p)),
        "total_b": float(q.sum(0) @ q.sum(0)),
        "square_b": float(np.sum(b * b)),
        "trace_b": float(np.sum(q * q)),
    }
    for name, value in want.items():
        assert getattr(got, name) == pytest.approx(value, rel=1e-12), name
    assert got.n == n


@given(
    n=st.integers(2, 40),
    k1=st.integers(2, 5),
    k2=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
    hard=st.booleans(),
)
def test_frobenius_over_shapes(n, k1, k2, seed, hard):
    # one soft column is a constant up to rounding, where FARI is 0 / 0: at least two
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k1), n)
    q = np.eye(k2)[rng.integers(0, k2, n)] if hard else rng.dirichlet(np.ones(max(k2, 2)), n)
    with np.errstate(all="ignore"):
        ri, ari = fari_reference(p, q)
    if math.isfinite(ari):  # one cluster on both sides: 0 / 0 there, 1.0 here (as sklearn)
        assert fcm.frobenius_adjusted_rand_score(p, q) == pytest.approx(ari, abs=1e-7)
    assert fcm.frobenius_rand_score(p, q) == pytest.approx(ri, rel=1e-9, abs=1e-12)


# --- covers ------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_omega_is_clusims_and_the_pairs_definition(seed):
    rng = np.random.default_rng(200 + seed)
    n = int(rng.integers(3, 300))
    x = random_cover(rng, n, int(rng.integers(1, 8)))
    y = random_cover(rng, n, int(rng.integers(1, 8)))
    want = clusim_value("omega_index", x, y)
    got = fcm.omega_index(x, y)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-12)
    if n <= 120:
        assert got == pytest.approx(omega_reference(x, y), rel=1e-9, abs=1e-12)
    g = _cover_groups.groups("f", x, y)
    assert _omega._omega(g, by_subsets=False) == pytest.approx(got, rel=1e-12, abs=1e-14)
    assert _omega._omega(g, by_subsets=True) == pytest.approx(got, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("seed", range(5))
def test_omega_on_partitions_is_sklearns_adjusted_rand(seed):
    rng = np.random.default_rng(300 + seed)
    n = int(rng.integers(2, 3000))
    t = rng.integers(0, int(rng.integers(1, 9)), n)
    p = t if seed == 0 else rng.integers(0, int(rng.integers(1, 9)), n)
    assert fcm.omega_index(t, p) == pytest.approx(skm.adjusted_rand_score(t, p), abs=1e-12)


def test_every_cover_form_gives_the_same_values():
    rng = np.random.default_rng(7)
    x, y = random_cover(rng, 80, 5), random_cover(rng, 80, 4)
    matrix = np.zeros((80, 5), dtype=np.int8)
    for i, labels in enumerate(x):
        matrix[i, sorted(labels)] = 1
    names = [{f"c{label}" for label in labels} for labels in x]
    tuples = np.empty(80, dtype=object)
    tuples[:] = [tuple(sorted(labels)) for labels in x]
    for f in FUNCTIONS[2:]:
        want = getattr(fcm, f)(x, y)
        for form in (matrix, sp.csr_matrix(matrix), matrix.astype(bool), names, tuples):
            assert getattr(fcm, f)(form, y) == pytest.approx(want, rel=1e-12), (f, type(form))


@pytest.mark.parametrize("seed", range(6))
def test_overlapping_nmi_is_the_papers_definitions(seed):
    rng = np.random.default_rng(400 + seed)
    n = int(rng.integers(3, 300))
    x = random_cover(rng, n, int(rng.integers(2, 8)))
    y = random_cover(rng, n, int(rng.integers(2, 8)))
    for variant in ("MGH", "LFK"):
        want = onmi_reference(clusters(x), clusters(y), n, variant)
        got = fcm.overlapping_normalized_mutual_info_score(x, y, variant=variant)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12), variant


@pytest.mark.parametrize("seed", range(6))
def test_clusims_onmi_is_lfk_with_its_p00(seed):
    """clusim 0.4's ``onmi`` takes the probability of being in neither cluster as
    ``1 - P11``: the set-by-set LFK with that one change is clusim's value, and our LFK
    differs from clusim's exactly by it (where clusim's value is finite: a cluster of every
    sample makes it divide by a zero entropy)."""
    rng = np.random.default_rng(500 + seed)
    n = int(rng.integers(5, 300))
    x = random_cover(rng, n, int(rng.integers(2, 8)))
    y = random_cover(rng, n, int(rng.integers(2, 8)))
    clusim = clusim_value("onmi", x, y)
    if math.isfinite(clusim):
        ref = onmi_reference(clusters(x), clusters(y), n, "LFK", p00_clusim=True)
        assert clusim == pytest.approx(ref, rel=1e-9, abs=1e-12)
    assert clusim_value("onmi", x, x) == 1.0
    assert fcm.overlapping_normalized_mutual_info_score(x, x, variant="LFK") == 1.0


@pytest.mark.parametrize("seed", range(6))
def test_extended_bcubed_is_the_pairs_definition(seed):
    rng = np.random.default_rng(600 + seed)
    n = int(rng.integers(2, 120))
    x = random_cover(rng, n, int(rng.integers(1, 7)))
    y = random_cover(rng, n, int(rng.integers(1, 7)))
    want_p, want_r = bcubed_reference(x, y)
    p, r, f = fcm.extended_bcubed_precision_recall_f(x, y)
    assert (p, r) == pytest.approx((want_p, want_r), rel=1e-12)
    assert f == pytest.approx(2 * want_p * want_r / (want_p + want_r), rel=1e-12)
    g = _cover_groups.groups("f", x, y)
    assert _bcubed._bcubed(g, by_subsets=False) == pytest.approx((p, r, f), rel=1e-12)


def test_extended_bcubed_on_partitions_is_bcubed():
    rng = np.random.default_rng(8)
    t, p = rng.integers(0, 5, 500), rng.integers(0, 7, 500)
    got = fcm.extended_bcubed_precision_recall_f(t, p)
    want = (fcm.bcubed_precision(t, p), fcm.bcubed_recall(t, p), fcm.bcubed_f_score(t, p))
    assert got == pytest.approx(want, rel=1e-12)


def test_groups_with_many_labels_are_compared_pair_by_pair():
    rng = np.random.default_rng(9)
    x = [set(rng.choice(40, int(rng.integers(1, 30)), replace=False).tolist()) for _ in range(60)]
    y = random_cover(rng, 60, 6)
    g = _cover_groups.groups("f", x, y)
    assert not _cover_groups._by_subsets(g)
    assert fcm.omega_index(x, y) == pytest.approx(omega_reference(x, y), rel=1e-9, abs=1e-12)
    assert fcm.extended_bcubed_precision_recall_f(x, y)[:2] == pytest.approx(
        bcubed_reference(x, y), rel=1e-12
    )


covers_strategy = st.integers(1, 25).flatmap(
    lambda n: st.tuples(
        st.lists(st.sets(st.integers(0, 5), min_size=1, max_size=3), min_size=n, max_size=n),
        st.lists(st.sets(st.integers(0, 4), min_size=1, max_size=3), min_size=n, max_size=n),
    )
)


@given(covers_strategy)
def test_covers_over_shapes(pair):
    x, y = pair
    g = _cover_groups.groups("f", x, y)
    omega = fcm.omega_index(x, y)
    assert _omega._omega(g, by_subsets=False) == pytest.approx(omega, rel=1e-9, abs=1e-12)
    if len(x) >= 2:
        pairs_x = [len(x[i] & x[j]) for i in range(len(x)) for j in range(i + 1, len(x))]
        pairs_y = [len(y[i] & y[j]) for i in range(len(y)) for j in range(i + 1, len(y))]
        if pairs_x != pairs_y and (len(set(pairs_x)) > 1 or len(set(pairs_y)) > 1):
            assert omega == pytest.approx(omega_reference(x, y), rel=1e-9, abs=1e-12)
    assert fcm.extended_bcubed_precision_recall_f(x, y)[:2] == pytest.approx(
        bcubed_reference(x, y), rel=1e-12
    )
    n = len(x)
    for variant in ("MGH", "LFK"):
        want = onmi_reference(clusters(x), clusters(y), n, variant)
        got = fcm.overlapping_normalized_mutual_info_score(x, y, variant=variant)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_covers_with_no_samples():
    assert fcm.omega_index([], []) == 1.0
    assert fcm.overlapping_normalized_mutual_info_score([], []) == 1.0
    assert fcm.extended_bcubed_precision_recall_f([], []) == (1.0, 1.0, 1.0)


# --- the API and the errors --------------------------------------------------------------------


@pytest.mark.parametrize("name", FUNCTIONS)
def test_public_and_typed(name):
    f = getattr(fcm, name)
    assert name in fcm.__all__
    assert f.__module__ == "fastcluster_metrics"
    value = f([0, 0, 1], [0, 1, 1])
    if isinstance(value, tuple):
        assert [type(v) for v in value] == [float, float, float]
    else:
        assert type(value) is float


P_GOOD = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (np.array([[0.5, 0.5], [np.nan, 0.0], [0.2, 0.8]]), "memberships_true has NaN in row 1"),
        (
            np.array([[0.5, 0.5], [1.0, 0.0], [np.inf, 0.8]]),
            "memberships_true has an infinite entry in row 2",
        ),
        (
            np.array([[0.5, -0.5], [1.0, 0.0], [0.2, 0.8]]),
            r"memberships_true has a negative entry in row 0 \(column 1: -0.5\)",
        ),
        (np.array([[0.5, 0.5], [0.0, 0.0], [0.2, 0.8]]), "memberships_true row 1 is all zero"),
        (np.ones((3, 2, 1)), "must be 1-D labels or a 2-D"),
        (np.ones((2, 2)), r"inconsistent numbers of samples: \[2, 3\]"),
        ([0, None, 1], "memberships_true has missing labels"),
    ],
)
def test_membership_errors(bad, message):
    with pytest.raises(ValueError, match=message):
        fcm.frobenius_adjusted_rand_score(bad, P_GOOD)
    if isinstance(bad, np.ndarray) and bad.ndim == 2 and bad.shape[0] == 3:
        with pytest.raises(ValueError, match=message.replace("_true", "_pred")):
            fcm.frobenius_rand_score(P_GOOD, bad)
        with pytest.raises(ValueError, match=message):
            fcm.frobenius_rand_score(sp.csr_matrix(bad), P_GOOD)


def test_membership_type_and_weight_errors():
    with pytest.raises(TypeError, match="must hold numbers"):
        fcm.frobenius_rand_score(np.array([["a", "b"], ["c", "d"]]), [0, 1])
    with pytest.raises(ValueError, match=r"sample_weight\[1\] is -1.0"):
        fcm.frobenius_rand_score(P_GOOD, P_GOOD, sample_weight=[1, -1, 1])
    with pytest.raises(ValueError, match=r"sample_weight\[2\] is nan"):
        fcm.frobenius_rand_score(P_GOOD, P_GOOD, sample_weight=[1, 1, np.nan])
    with pytest.raises(ValueError, match="sample_weight is zero for every sample"):
        fcm.frobenius_adjusted_rand_score(P_GOOD, P_GOOD, sample_weight=[0, 0, 0])
    with pytest.raises(ValueError, match="sample_weight has 2 values for 3 samples"):
        fcm.frobenius_adjusted_rand_score(P_GOOD, P_GOOD, sample_weight=[1, 1])


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([{0}, set(), {1}], "cover_true gives row 1 no label"),
        (np.array([[1, 0], [0, 0]]), "cover_true gives row 1 no label"),
        (np.array([[1, 0], [0, 2]]), "must hold 0 and 1 only: row 1 has 2 in column 1"),
        (sp.csr_matrix(np.array([[1, 0], [0, 0.5]])), "row 1 has 0.5 in column 1"),
        ([{0}, {1}, {0}, {1}], r"inconsistent numbers of samples: \[4, 2\]"),
        ([{0}, {None}], "cover_true has missing labels"),
    ],
)
def test_cover_errors(bad, message):
    for f in FUNCTIONS[2:]:
        with pytest.raises(ValueError, match=message):
            getattr(fcm, f)(bad, [{0}, {1}])


def test_the_variant_is_checked():
    with pytest.raises(fcm.InvalidParameterError, match=r"'variant' parameter .* among"):
        fcm.overlapping_normalized_mutual_info_score([0, 1], [0, 1], variant="NMI")


# --- streams: FrobeniusAccumulator ---------------------------------------------------------


def _split(n: int, rng: np.random.Generator) -> list[slice]:
    """Chunks of random sizes (an empty one among them)."""
    cuts = np.sort(rng.choice(np.arange(1, n), 5, replace=False))
    bounds = [0, *cuts.tolist(), cuts[2], n]
    return [slice(a, b) for a, b in itertools.pairwise(sorted(bounds))]


STREAM_FORMS = ["dense", "sparse", "labels", "strings"]


@pytest.mark.parametrize("form_true", STREAM_FORMS)
@pytest.mark.parametrize("form_pred", STREAM_FORMS)
@pytest.mark.parametrize("weighted", [False, True])
def test_chunks_accumulate_to_the_whole(form_true, form_pred, weighted):
    rng = np.random.default_rng(len(form_true) * 7 + len(form_pred) + weighted)
    n = 400
    codes = rng.integers(0, 6, n)
    forms = {
        "dense": rng.dirichlet(np.ones(4), n),
        "sparse": sp.csr_matrix(rng.dirichlet(np.full(5, 0.3), n).round(1) + np.eye(5)[codes % 5]),
        "labels": codes,
        "strings": np.array([f"type{c}" for c in rng.integers(0, 7, n)]),
    }
    a, b = forms[form_true], forms[form_pred]
    w = rng.random(n) * 3 if weighted else None
    acc = fcm.FrobeniusAccumulator()
    for part in _split(n, rng):
        acc.update(a[part], b[part], sample_weight=None if w is None else w[part])
    for name in ("frobenius_rand_score", "frobenius_adjusted_rand_score"):
        whole = getattr(fcm, name)(a, b, sample_weight=w)
        assert getattr(acc, name)() == pytest.approx(whole, rel=1e-12, abs=1e-12)
    assert acc.n == pytest.approx(n if w is None else w.sum(), rel=1e-14)


def test_chunks_with_labels_the_others_lack_align_by_value():
    # each chunk of labels has its own label set: columns are matched by label value
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.ones(3), 300)
    truth = np.array(["B"] * 100 + ["T"] * 100 + ["NK"] * 100, dtype=object)
    whole = fcm.frobenius_adjusted_rand_score(truth, p)
    acc = fcm.FrobeniusAccumulator()
    for part in (slice(0, 100), slice(100, 150), slice(150, 300)):
        acc.update(truth[part], p[part])
    assert acc.frobenius_adjusted_rand_score() == pytest.approx(whole, rel=1e-12)
    left, right = fcm.FrobeniusAccumulator(), fcm.FrobeniusAccumulator()
    left.update(truth[:120], p[:120])
    right.update(truth[120:], p[120:], sample_weight=np.ones(180))
    merged = left + right
    assert merged.frobenius_adjusted_rand_score() == pytest.approx(whole, rel=1e-12)
    assert merged.n == 300 and left.n == 120  # (the operands are unchanged)


def test_an_empty_accumulator_and_zero_weights():
    acc = fcm.FrobeniusAccumulator()
    assert acc.n == 0.0
    assert acc.frobenius_rand_score() == acc.frobenius_adjusted_rand_score() == 1.0
    assert repr(acc) == "FrobeniusAccumulator(n=0.0)"
    p = np.array([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]])
    acc.update(p, [0, 1, 1], sample_weight=[0, 0, 0])  # a chunk may weigh nothing
    assert acc.n == 0.0
    acc.update(p, [0, 1, 1])
    assert acc.frobenius_adjusted_rand_score() == pytest.approx(
        fcm.frobenius_adjusted_rand_score(p, [0, 1, 1]), rel=1e-12
    )
    assert (acc + fcm.FrobeniusAccumulator()).n == acc.n == (fcm.FrobeniusAccumulator() + acc).n


def test_the_accumulator_pickles_under_the_package_name():
    rng = np.random.default_rng(8)
    p, labels = rng.dirichlet(np.ones(3), 50), rng.choice(["x", "y"], 50)
    acc = fcm.FrobeniusAccumulator().update(p[:20], labels[:20])
    data = pickle.dumps(acc)
    assert b"FrobeniusAccumulator" in data
    assert b"_soft" not in data and b"_Chunks" not in data  # (no private path)
    again = pickle.loads(data).update(p[20:], labels[20:])
    want = fcm.frobenius_adjusted_rand_score(p, labels)
    assert again.frobenius_adjusted_rand_score() == pytest.approx(want, rel=1e-12)
    assert pickle.loads(pickle.dumps(fcm.FrobeniusAccumulator())).n == 0.0
    assert type(acc).__module__ == "fastcluster_metrics"


def test_accumulator_errors_add_nothing():
    p = np.array([[0.9, 0.1], [0.2, 0.8]])
    acc = fcm.FrobeniusAccumulator().update(p, [0, 1])
    with pytest.raises(ValueError, match="has 3 columns in this chunk and 2 in the chunks"):
        acc.update(np.array([[0.5, 0.3, 0.2]]), [1])
    with pytest.raises(ValueError, match="memberships_pred is 1-D labels in some chunks and a"):
        acc.update(p, p)
    with pytest.raises(ValueError, match=r"FrobeniusAccumulator.update: memberships_true has NaN"):
        acc.update(np.array([[np.nan, 1.0]]), [0])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        acc.update(p, [0])
    assert acc.n == 2.0
    assert acc.frobenius_adjusted_rand_score() == fcm.frobenius_adjusted_rand_score(p, [0, 1])
    assert acc.__add__(3) is NotImplemented
