"""The Measures mixin of Contingency against textbook references, degenerate tables, identities."""

import itertools
import math

import numpy as np
import pytest
import reference_measures as ref
from hypothesis import example, given, settings
from hypothesis import strategies as st

import fastcluster_metrics as fcm

REL = 1e-12
ABS = 1e-12

# (method name, keyword arguments); the reference function has the same name.
MEASURES: list[tuple[str, dict]] = [
    ("jaccard_index", {}),
    ("pair_precision", {}),
    ("pair_recall", {}),
    ("pair_f_score", {}),
    ("pair_f_score", {"beta": 0.5}),
    ("pair_f_score", {"beta": 2.0}),
    ("dice_index", {}),
    ("kulczynski_index", {}),
    ("hubert_gamma", {}),
    ("rogers_tanimoto_index", {}),
    ("russel_rao_index", {}),
    ("sokal_sneath1_index", {}),
    ("sokal_sneath2_index", {}),
    ("phi_index", {}),
    ("joint_entropy", {}),
    ("joint_entropy", {"base": 2}),
    ("conditional_entropy_true_given_pred", {}),
    ("conditional_entropy_pred_given_true", {"base": 10.0}),
    ("variation_of_information", {}),
    ("variation_of_information", {"base": 2}),
    ("normalized_variation_of_information", {}),
    ("information_distance", {}),
    ("information_distance", {"base": 2.0}),
    ("normalized_information_distance", {}),
    ("chi_squared", {}),
    ("cramers_v", {}),
    ("inverse_purity_score", {}),
    ("purity_f_score", {}),
    ("bcubed_precision", {}),
    ("bcubed_recall", {}),
    ("bcubed_f_score", {}),
    ("element_centric_similarity", {}),
    ("hungarian_accuracy", {}),
]
# Measures whose references enumerate couples of pairs (O(n^4)) or every matching: smaller inputs.
MORE_MEASURES: list[tuple[str, dict]] = [
    ("adjusted_fowlkes_mallows_score", {}),
    ("modified_adjusted_rand_score", {}),
    ("kendall_tau", {}),
    ("goodman_kruskal_gamma", {}),
    ("g_plus_index", {}),
    ("mcnemar_index", {}),
    ("normalized_mutual_info_score_joint", {}),
    ("frobenius_distance", {}),
    ("normalized_pivoted_accuracy", {}),
    ("normalized_clustering_accuracy", {}),
    ("pair_sets_index", {}),
    ("pair_sets_index", {"simplified": True}),
    ("pair_sets_index", {"clipped": False}),
    ("best_match_f1_score", {}),
    ("best_match_f1_score", {"average": "macro"}),
]


def _ids(measures):
    return [name + "".join(f"[{k}={v}]" for k, v in kw.items()) for name, kw in measures]


IDS = _ids(MEASURES)
NEEDS_SAMPLES = {
    "joint_entropy",
    "conditional_entropy_true_given_pred",
    "conditional_entropy_pred_given_true",
    "variation_of_information",
    "normalized_variation_of_information",
    "information_distance",
    "normalized_information_distance",
    "chi_squared",
    "cramers_v",
}


@st.composite
def labelings(draw, min_size=2, max_size=40, max_labels=6):
    n = draw(st.integers(min_size, max_size))
    k_true = draw(st.integers(1, max_labels))
    k_pred = draw(st.integers(1, max_labels))
    true = draw(st.lists(st.integers(0, k_true - 1), min_size=n, max_size=n))
    pred = draw(st.lists(st.integers(0, k_pred - 1), min_size=n, max_size=n))
    return true, pred


def assert_close(ours, expected):
    assert isinstance(ours, float)
    if math.isnan(expected):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(expected, rel=REL, abs=ABS)


# --- against the references ----------------------------------------------------------------------


@pytest.mark.parametrize(("name", "kwargs"), MEASURES, ids=IDS)
@given(labels=labelings())
# An independent table: chi-squared exactly 0, which n (sum n_ij^2 / (a_i b_j) - 1) missed by
# a rounding (Cramer's V 7e-9).
@example(labels=([0, 0, 0, 0, 0, 1, 1, 1, 1, 1], [0, 0, 1, 1, 2, 0, 0, 1, 1, 2]))
def test_matches_reference(name, kwargs, labels):
    true, pred = labels
    ours = getattr(fcm.Contingency.from_labels(true, pred), name)(**kwargs)
    assert_close(ours, getattr(ref, name)(true, pred, **kwargs))


@given(labels=labelings(min_size=0))
def test_pair_counts_and_mirkin(labels):
    true, pred = labels
    c = fcm.Contingency.from_labels(true, pred)
    counts = c.pair_counts()
    assert counts == ref.pair_counts(true, pred)
    assert all(type(x) is int for x in counts.values())
    assert sum(counts.values()) == len(true) * (len(true) - 1) // 2
    mirkin = c.mirkin_metric()
    assert type(mirkin) is int
    assert mirkin == ref.mirkin_metric(true, pred)


@given(labels=labelings())
def test_hungarian_brute_force_small(labels):
    true, pred = labels
    true = [x % 5 for x in true]
    pred = [x % 5 for x in pred]
    assert_close(
        fcm.Contingency.from_labels(true, pred).hungarian_accuracy(),
        ref.hungarian_accuracy(true, pred),
    )


@pytest.mark.parametrize(("name", "kwargs"), MORE_MEASURES, ids=_ids(MORE_MEASURES))
@settings(max_examples=40)
@given(labels=labelings(max_size=18, max_labels=5))
def test_more_measures_match_reference(name, kwargs, labels):
    true, pred = labels
    ours = getattr(fcm.Contingency.from_labels(true, pred), name)(**kwargs)
    assert_close(ours, getattr(ref, name)(true, pred, **kwargs))


@pytest.mark.parametrize(
    ("name", "kwargs"), MEASURES + MORE_MEASURES, ids=_ids(MEASURES + MORE_MEASURES)
)
def test_dense_table_with_empty_rows_and_columns(name, kwargs):
    """Empty classes or clusters of a given table change nothing."""
    table = np.array([[3, 0, 1, 0], [0, 0, 0, 0], [2, 0, 5, 1], [0, 0, 1, 4]])
    trimmed = table[np.ix_(table.sum(axis=1) > 0, table.sum(axis=0) > 0)]
    ours = getattr(fcm.Contingency(table), name)(**kwargs)
    assert_close(ours, getattr(fcm.Contingency(trimmed), name)(**kwargs))
    true = np.repeat(np.arange(table.shape[0]), table.sum(axis=1))
    pred = np.concatenate([np.repeat(np.arange(table.shape[1]), row) for row in table])
    assert_close(ours, getattr(ref, name)(true.tolist(), pred.tolist(), **kwargs))


# --- identities ----------------------------------------------------------------------------------


@given(labels=labelings(min_size=0))
def test_pair_identities(labels):
    true, pred = labels
    c = fcm.Contingency.from_labels(true, pred)
    n = len(true)
    counts = c.pair_counts()
    # sklearn's pair confusion matrix counts ordered pairs: twice ours
    (tn, fp), (fn, tp) = c.pair_confusion_matrix().tolist()
    assert (tn, fp, fn, tp) == tuple(2 * counts[k] for k in ("tn", "fp", "fn", "tp"))
    # Mirkin = ordered disagreeing pairs = sum a^2 + sum b^2 - 2 sum n_ij^2 = n(n-1)(1 - Rand)
    a, b, cells = c.class_sizes, c.cluster_sizes, c.cells[2]
    assert c.mirkin_metric() == 2 * (counts["fp"] + counts["fn"]) == fp + fn
    assert c.mirkin_metric() == int((a**2).sum() + (b**2).sum() - 2 * (cells**2).sum())
    assert c.mirkin_metric() == pytest.approx(n * (n - 1) * (1 - c.rand_score()), abs=1e-9)
    # Dice is the pair F1; the Jaccard index J and Dice D satisfy D = 2J / (1 + J)
    assert c.dice_index() == c.pair_f_score()
    j = c.jaccard_index()
    assert c.dice_index() == pytest.approx(2 * j / (1 + j), rel=REL, abs=ABS)
    # Hubert's Gamma is the phi coefficient of the pair table
    g, phi = c.hubert_gamma(), c.phi_index()
    assert (math.isnan(g) and math.isnan(phi)) or g == pytest.approx(phi, rel=REL, abs=ABS)
    # Fowlkes-Mallows is the geometric mean of pair precision and recall
    p, r = c.pair_precision(), c.pair_recall()
    if p > 0 and r > 0:
        assert c.fowlkes_mallows_score() == pytest.approx(math.sqrt(p * r), rel=REL)
        assert c.kulczynski_index() == pytest.approx((p + r) / 2, rel=REL)
    # beta = 0 is the precision
    assert c.pair_f_score(beta=0.0) == p or (math.isnan(p) and c.pair_f_score(beta=0.0) == 1.0)


@given(labels=labelings())
def test_information_identities(labels):
    true, pred = labels
    c = fcm.Contingency.from_labels(true, pred)
    hu, hv, mi, huv = c.entropy_true(), c.entropy_pred(), c.mutual_info_score(), c.joint_entropy()
    tol = {"rel": 1e-12, "abs": 1e-12}
    assert huv == pytest.approx(hu + hv - mi, **tol)
    assert c.conditional_entropy_true_given_pred() == pytest.approx(huv - hv, **tol)
    assert c.conditional_entropy_pred_given_true() == pytest.approx(huv - hu, **tol)
    vi = c.variation_of_information()
    assert vi == pytest.approx(hu + hv - 2 * mi, **tol)
    assert vi == pytest.approx(2 * huv - hu - hv, **tol)
    assert c.variation_of_information(base=2) == pytest.approx(vi / math.log(2), **tol)
    assert c.information_distance() == pytest.approx(max(hu, hv) - mi, **tol)
    if max(hu, hv) > 0:
        assert c.normalized_information_distance() == pytest.approx(1 - mi / max(hu, hv), **tol)
    assert 0 <= c.normalized_variation_of_information() <= 1
    assert 0 <= c.normalized_information_distance() <= 1
    # symmetry: swapping the labelings swaps the conditionals and keeps the distances
    s = fcm.Contingency.from_labels(pred, true)
    assert s.conditional_entropy_true_given_pred() == pytest.approx(
        c.conditional_entropy_pred_given_true(), **tol
    )
    assert s.variation_of_information() == pytest.approx(vi, **tol)
    assert s.chi_squared() == pytest.approx(c.chi_squared(), **tol)


@given(labels=labelings())
def test_set_matching_identities(labels):
    true, pred = labels
    c = fcm.Contingency.from_labels(true, pred)
    s = fcm.Contingency.from_labels(pred, true)
    assert c.inverse_purity_score() == pytest.approx(s.purity_score(), rel=REL)
    assert c.bcubed_precision() == pytest.approx(s.bcubed_recall(), rel=REL)
    assert c.hungarian_accuracy() <= min(c.purity_score(), c.inverse_purity_score()) + 1e-15
    for name in ("element_centric_similarity", "bcubed_f_score", "purity_f_score"):
        value = getattr(c, name)()
        assert 0 < value <= 1
        assert value == pytest.approx(getattr(s, name)(), rel=REL)


# --- degenerate tables ---------------------------------------------------------------------------


SIMILARITIES_AT_ONE = [
    "jaccard_index",
    "pair_f_score",
    "dice_index",
    "rogers_tanimoto_index",
    "sokal_sneath1_index",
    "sokal_sneath2_index",
    "inverse_purity_score",
    "purity_f_score",
    "bcubed_precision",
    "bcubed_recall",
    "bcubed_f_score",
    "element_centric_similarity",
    "hungarian_accuracy",
    "adjusted_fowlkes_mallows_score",
    "modified_adjusted_rand_score",
    "normalized_mutual_info_score_joint",
    "normalized_pivoted_accuracy",
    "normalized_clustering_accuracy",
    "pair_sets_index",
    "best_match_f1_score",
]
DISTANCES_AT_ZERO = [
    "conditional_entropy_true_given_pred",
    "conditional_entropy_pred_given_true",
    "variation_of_information",
    "normalized_variation_of_information",
    "information_distance",
    "normalized_information_distance",
    "frobenius_distance",
]


@pytest.mark.parametrize(
    "labels",
    [[0, 0, 1, 1, 1, 2], [3, 1, 4, 1, 5, 9, 2, 6], [0] * 7, list(range(6)), [0, 1]],
    ids=["clusters", "mixed", "one cluster", "singletons", "two singletons"],
)
def test_identical_labelings(labels):
    c = fcm.Contingency.from_labels(labels, labels)
    for name in SIMILARITIES_AT_ONE:
        assert getattr(c, name)() == 1.0, name
    for name in DISTANCES_AT_ZERO:
        assert getattr(c, name)() == 0.0, name
    assert c.mirkin_metric() == 0
    counts = c.pair_counts()
    assert counts["fp"] == counts["fn"] == 0


def test_single_cluster_against_singletons():
    n = 6
    c = fcm.Contingency.from_labels([0] * n, list(range(n)))
    assert c.pair_counts() == {"tp": 0, "fp": 0, "fn": 15, "tn": 0}
    assert c.jaccard_index() == 0.0
    assert math.isnan(c.pair_precision())
    assert c.pair_recall() == 0.0
    assert c.pair_f_score() == 0.0
    assert c.dice_index() == 0.0
    assert math.isnan(c.kulczynski_index())
    assert math.isnan(c.hubert_gamma())
    assert math.isnan(c.phi_index())
    assert c.russel_rao_index() == 0.0
    assert c.rogers_tanimoto_index() == 0.0
    assert c.mirkin_metric() == n * (n - 1)
    assert c.joint_entropy() == pytest.approx(math.log(n), rel=REL)
    assert c.variation_of_information() == pytest.approx(math.log(n), rel=REL)
    assert c.normalized_variation_of_information() == pytest.approx(1.0, rel=REL)
    assert c.normalized_information_distance() == pytest.approx(1.0, rel=REL)
    assert c.chi_squared() == pytest.approx(0.0, abs=ABS)
    assert math.isnan(c.cramers_v())
    assert c.purity_score() == 1.0
    assert c.inverse_purity_score() == pytest.approx(1 / n, rel=REL)
    assert c.bcubed_precision() == 1.0
    assert c.bcubed_recall() == pytest.approx(1 / n, rel=REL)
    assert c.element_centric_similarity() == pytest.approx(1 / n, rel=REL)
    assert c.hungarian_accuracy() == pytest.approx(1 / n, rel=REL)


def test_single_cluster_both():
    c = fcm.Contingency.from_labels([0] * 5, [7] * 5)
    assert c.joint_entropy() == 0.0
    assert c.normalized_variation_of_information() == 0.0
    assert c.normalized_information_distance() == 0.0
    assert math.isnan(c.cramers_v())
    assert math.isnan(c.hubert_gamma())
    assert c.jaccard_index() == 1.0
    assert c.pair_precision() == c.pair_recall() == c.kulczynski_index() == 1.0


def test_perfect_association():
    c = fcm.Contingency.from_labels([0, 0, 1, 1, 2, 2], [5, 5, 3, 3, 4, 4])
    assert c.chi_squared() == pytest.approx(6 * 2, rel=REL)
    assert c.cramers_v() == 1.0
    assert c.hubert_gamma() == 1.0
    assert c.phi_index() == 1.0


def test_anticorrelated_pairs():
    # pairs together in one labeling are exactly those apart in the other
    c = fcm.Contingency.from_labels([0, 0, 1, 1], [0, 1, 0, 1])
    assert c.pair_counts() == {"tp": 0, "fp": 2, "fn": 2, "tn": 2}
    assert c.hubert_gamma() == pytest.approx(-0.5, rel=REL)
    assert c.chi_squared() == 0.0
    assert c.cramers_v() == 0.0


def test_fewer_than_two_samples():
    for labels in ([], [3]):
        c = fcm.Contingency.from_labels(labels, labels)
        assert c.pair_counts() == {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
        assert c.mirkin_metric() == 0
        assert c.jaccard_index() == c.rogers_tanimoto_index() == c.sokal_sneath2_index() == 1.0
        assert math.isnan(c.russel_rao_index())
        assert math.isnan(c.pair_precision())
    empty = fcm.Contingency.from_labels([], [])
    for name in ("inverse_purity_score", "bcubed_f_score", "hungarian_accuracy"):
        assert getattr(empty, name)() == 1.0


@pytest.mark.parametrize(
    "name",
    [
        *(name for name in DISTANCES_AT_ZERO if name != "frobenius_distance"),
        "joint_entropy",
        "chi_squared",
        "cramers_v",
    ],
)
def test_information_on_empty_table_raises(name):
    with pytest.raises(ValueError, match="empty contingency table"):
        getattr(fcm.Contingency.from_labels([], []), name)()
    assert name in NEEDS_SAMPLES


@pytest.mark.parametrize("base", [0, -2.0, 1, 1.0, math.inf, math.nan, "2", True, None])
def test_bad_base(base):
    c = fcm.Contingency.from_labels([0, 1], [0, 0])
    with pytest.raises(ValueError, match="'base' parameter of variation_of_information"):
        c.variation_of_information(base=base)


@pytest.mark.parametrize("beta", [-1.0, math.nan, "1"])
def test_bad_beta(beta):
    c = fcm.Contingency.from_labels([0, 1], [0, 0])
    with pytest.raises(ValueError, match="'beta' parameter of pair_f_score"):
        c.pair_f_score(beta=beta)


def test_large_counts_stay_exact():
    """Pair counts beyond 2**63 are exact Python integers; the ratios are still floats."""
    big = 2**33
    c = fcm.Contingency(np.array([[big, big], [0, big]], dtype=np.int64))
    counts = c.pair_counts()
    assert counts["tp"] == 3 * big * (big - 1) // 2
    assert counts["fn"] == big * big
    assert counts["fp"] == big * big
    assert sum(counts.values()) == 3 * big * (3 * big - 1) // 2
    assert c.jaccard_index() == pytest.approx(3 * (big - 1) / (3 * (big - 1) + 4 * big), rel=REL)
    assert c.mirkin_metric() == 4 * big * big


def test_hungarian_brute_force_every_table_3x3():
    """Every 3x3 table with cells in {0, 1, 2}: matched count against all permutations."""
    for cells in itertools.islice(itertools.product(range(3), repeat=9), 0, None, 37):
        table = np.array(cells).reshape(3, 3)
        n = int(table.sum())
        if n == 0:
            continue
        best = max(sum(table[i, p[i]] for i in range(3)) for p in itertools.permutations(range(3)))
        assert fcm.Contingency(table).hungarian_accuracy() == best / n


# --- pair counting beyond the 2x2 pair table: MARI, AFM, pairs of pairs -------------------------


def test_mari_reference_share_is_unbiased_under_the_multinomial_model():
    """The definition behind MARI: for labelings drawn independently (sample by sample, class
    with probabilities p, cluster with q), the disjoint-couples share E has expectation
    sum p_i^2 sum q_j^2, the probability that a pair is together in both; hence T/N - E has
    expectation 0. Exact, over every labeling of 5 samples."""
    from fractions import Fraction

    p, q, n = [Fraction(1, 3), Fraction(2, 3)], [Fraction(1, 4), Fraction(3, 4)], 5
    mean_raw = Fraction(0)
    mean_share = Fraction(0)
    for true in itertools.product(range(2), repeat=n):
        for pred in itertools.product(range(2), repeat=n):
            prob = math.prod(p[x] for x in true) * math.prod(q[y] for y in pred)
            share = ref.mari_expected_share(list(true), list(pred))
            tp = ref.pair_counts(list(true), list(pred))["tp"]
            mean_share += prob * share
            mean_raw += prob * (Fraction(tp, n * (n - 1) // 2) - share)
    assert mean_share == sum(x * x for x in p) * sum(y * y for y in q)
    assert mean_raw == 0


def test_mari_brute_force_labelings_of_six():
    """A deterministic spread of pairs of labelings of 6 samples into at most 3 labels (every
    7th x every 11th labeling, then every 9th couple: 782 cases): ours against the enumeration
    of couples of pairs."""
    labelings = list(itertools.product(range(3), repeat=6))
    for k, (true, pred) in enumerate(itertools.product(labelings[::7], labelings[::11])):
        if k % 9:
            continue
        assert_close(
            fcm.Contingency.from_labels(true, pred).modified_adjusted_rand_score(),
            ref.modified_adjusted_rand_score(list(true), list(pred)),
        )


def test_mari_special_values():
    # a labeling that puts every sample together: the estimated expectation is T, MARI is 0
    c = fcm.Contingency.from_labels([0] * 9, [0, 0, 1, 1, 1, 2, 2, 2, 2])
    assert c.modified_adjusted_rand_score() == 0.0
    assert c.adjusted_rand_score() == 0.0
    # fewer than four samples: no disjoint couples of pairs
    assert math.isnan(
        fcm.Contingency.from_labels([0, 0, 1], [0, 1, 1]).modified_adjusted_rand_score()
    )
    assert fcm.Contingency.from_labels([0, 0, 1], [5, 5, 2]).modified_adjusted_rand_score() == 1.0
    # large n: MARI and ARI estimate the same quantity and agree to O(1/n)
    rng = np.random.default_rng(0)
    true = rng.integers(0, 4, 5000)
    pred = np.where(rng.random(5000) < 0.6, true, rng.integers(0, 4, 5000))
    c = fcm.Contingency.from_labels(true, pred)
    assert abs(c.modified_adjusted_rand_score() - c.adjusted_rand_score()) < 2e-3
    assert c.modified_adjusted_rand_score() != c.adjusted_rand_score()


def test_mari_and_afm_exact_with_large_counts():
    """Counts near 2**33: n^3 overflows int64, so the sum of n_ij a_i b_j is taken in Python
    integers; compared with the formulas evaluated here in exact rationals."""
    from fractions import Fraction

    big = 2**33
    table = np.array([[big, 3 * big + 1, 0], [5, big, 2 * big - 7]], dtype=np.int64)
    c = fcm.Contingency(table)
    n = int(table.sum())
    a, b = table.sum(axis=1).tolist(), table.sum(axis=0).tolist()
    cells = table.tolist()

    def comb2(x):
        return x * (x - 1) // 2

    t = sum(comb2(x) for row in cells for x in row)
    p, q, n_pairs = sum(map(comb2, a)), sum(map(comb2, b)), comb2(n)
    triples = sum(cells[i][j] * a[i] * b[j] for i in range(2) for j in range(3))
    squares = sum(x * x for row in cells for x in row) + sum(x * x for x in a + b)
    share = Fraction(
        p * q - t - (2 * n + triples - squares), 6 * (n * (n - 1) * (n - 2) * (n - 3) // 24)
    )
    expected = n_pairs * share
    mari = (t - expected) / (Fraction(p + q, 2) - expected)
    assert c.modified_adjusted_rand_score() == pytest.approx(float(mari), rel=1e-14)
    afm = (n_pairs * t - p * q) / (math.sqrt(p * q) * (n_pairs - math.sqrt(p * q)))
    assert c.adjusted_fowlkes_mallows_score() == pytest.approx(afm, rel=1e-9)


@settings(max_examples=30)
@given(labels=labelings(max_size=25))
def test_pairs_of_pairs_identities(labels):
    """Kendall's tau-b of two binary variables is their phi coefficient; gamma is Yule's Q of
    the pair table; G(+) = fp fn / C(N, 2)."""
    true, pred = labels
    c = fcm.Contingency.from_labels(true, pred)
    tau, phi = c.kendall_tau(), c.phi_index()
    assert (math.isnan(tau) and math.isnan(phi)) or tau == pytest.approx(phi, rel=REL, abs=ABS)
    k = c.pair_counts()
    tp, fp, fn, tn = k["tp"], k["fp"], k["fn"], k["tn"]
    if tp * tn + fp * fn:
        assert c.goodman_kruskal_gamma() == pytest.approx(
            (tp * tn - fp * fn) / (tp * tn + fp * fn), rel=REL, abs=ABS
        )
    n_pairs = tp + fp + fn + tn
    if n_pairs >= 2:
        assert c.g_plus_index() == pytest.approx(fp * fn / math.comb(n_pairs, 2), rel=REL, abs=ABS)


@settings(max_examples=30)
@given(labels=labelings(max_size=20))
def test_best_match_f1_per_class(labels):
    true, pred = labels
    ours = fcm.Contingency.from_labels(true, pred).best_match_f1_per_class()
    assert ours.dtype == np.float64
    np.testing.assert_allclose(ours, ref.best_match_f1_per_class(true, pred), rtol=REL)


@settings(max_examples=30)
@given(labels=labelings(max_size=30))
# Found by hypothesis: the joint entropy of one cell came out 4e-16, not 0.
@example(labels=([0] * 23, [0] * 23))
def test_set_matching_symmetry_and_bounds(labels):
    true, pred = labels
    c = fcm.Contingency.from_labels(true, pred)
    s = fcm.Contingency.from_labels(pred, true)
    for name in ("normalized_pivoted_accuracy", "pair_sets_index"):
        assert getattr(c, name)() == pytest.approx(getattr(s, name)(), rel=REL, abs=ABS)
        assert 0 <= getattr(c, name)() <= 1
    assert c.pair_sets_index(clipped=False) >= -1
    assert c.pair_sets_index() == max(0.0, c.pair_sets_index(clipped=False))
    nca = c.normalized_clustering_accuracy()
    assert nca <= 1 + 1e-15 or (math.isnan(nca) and len(set(true)) == 1 < len(set(pred)))
    assert c.adjusted_fowlkes_mallows_score() <= 1 + 1e-15 or math.isnan(
        c.adjusted_fowlkes_mallows_score()
    )
    assert c.normalized_mutual_info_score_joint() == pytest.approx(
        1 - c.normalized_variation_of_information(), rel=REL, abs=ABS
    )


@pytest.mark.parametrize("n", [1, 3, 23, 1000, 10**6 + 7])
def test_joint_entropy_of_one_cell_is_zero(n):
    c = fcm.Contingency(np.array([[n]]))
    assert c.joint_entropy() == 0.0
    assert c.normalized_mutual_info_score_joint() == 1.0


def test_set_matching_non_square_conventions():
    """Documented k != l conventions, on a table whose answer is worked out by hand."""
    # classes a (3 samples), b (3); clusters x (2), y (1), z (3)
    table = np.array([[2, 1, 0], [0, 0, 3]])
    c = fcm.Contingency(table)
    # NPA: padded to 3 x 3, best matching 2 + 3 = 5 of 6 samples: (5/6 - 1/3) / (1 - 1/3)
    assert c.normalized_pivoted_accuracy() == pytest.approx((5 / 6 - 1 / 3) / (2 / 3), rel=REL)
    # NCA: r = 2 classes, shares 2/3 and 3/3 matched: (2/3 + 1 - 1) / (2 - 1)
    assert c.normalized_clustering_accuracy() == pytest.approx(2 / 3, rel=REL)
    # transposed: r = 3 classes, 2 clusters; the unmatched class counts 0:
    # best = max(2/2 + 3/3, 1/1 + 3/3, ...) = 2, NCA = (2 - 1) / (3 - 1)
    assert fcm.Contingency(table.T).normalized_clustering_accuracy() == pytest.approx(0.5, rel=REL)
    # PSI: s = 2/max(3,2) + 3/max(3,3) = 5/3; E = (min(3,3) + min(3,2)) / 6 = 5/6; K = 3
    assert c.pair_sets_index() == pytest.approx((5 / 3 - 5 / 6) / (3 - 5 / 6), rel=REL)
    assert c.pair_sets_index(simplified=True) == pytest.approx((5 / 3 - 1) / 2, rel=REL)


def test_one_class_conventions():
    split = fcm.Contingency.from_labels([0] * 4, [0, 0, 1, 2])
    assert math.isnan(split.normalized_clustering_accuracy())
    assert split.normalized_pivoted_accuracy() == pytest.approx((2 / 4 - 1 / 3) / (2 / 3))
    assert split.best_match_f1_score() == pytest.approx(2 * 2 / (4 + 2))
    assert math.isnan(split.adjusted_fowlkes_mallows_score()) is False  # P > 0 and Q > 0
    singletons = fcm.Contingency.from_labels([0] * 4, [0, 1, 2, 3])
    assert math.isnan(singletons.adjusted_fowlkes_mallows_score())  # Q = 0
    assert math.isnan(singletons.goodman_kruskal_gamma())  # no untied couple
    assert math.isnan(fcm.Contingency.from_labels([0, 1], [0, 1]).g_plus_index())


def test_best_match_f1_bad_average():
    c = fcm.Contingency.from_labels([0, 1], [0, 0])
    with pytest.raises(ValueError, match="'average' parameter of best_match_f1_score"):
        c.best_match_f1_score(average="micro")


def test_new_measures_on_tiny_tables():
    empty = fcm.Contingency.from_labels([], [])
    for name in (
        "normalized_pivoted_accuracy",
        "normalized_clustering_accuracy",
        "pair_sets_index",
        "best_match_f1_score",
        "normalized_mutual_info_score_joint",
        "adjusted_fowlkes_mallows_score",
        "modified_adjusted_rand_score",
    ):
        assert getattr(empty, name)() == 1.0, name
    assert empty.frobenius_distance() == 0.0
    assert empty.best_match_f1_per_class().size == 0
    for name in ("kendall_tau", "goodman_kruskal_gamma", "g_plus_index", "mcnemar_index"):
        assert math.isnan(getattr(empty, name)()), name


def test_chi_squared_is_the_exact_sum_over_every_cell():
    # Against the exact rational sum of (n n_ij - a_i b_j)^2 / (n a_i b_j) over every cell,
    # empty ones included; an independent table (each cell a_i b_j / n) is exactly 0.
    from fractions import Fraction

    rng = np.random.default_rng(7)
    a = rng.integers(0, 6, 2_000)
    b = (a * 3 + rng.integers(0, 4, a.size)) % 11
    for true, pred in [(a, b), (np.repeat([0, 1, 2], 60), np.tile([0, 0, 1, 2, 2, 2], 30))]:
        m = fcm.contingency_matrix(true, pred).astype(object)
        n, r, c = int(m.sum()), m.sum(axis=1), m.sum(axis=0)
        exact = sum(
            Fraction((n * int(m[i, j]) - int(r[i] * c[j])) ** 2, n * int(r[i] * c[j]))
            for i in range(m.shape[0])
            for j in range(m.shape[1])
        )
        assert fcm.chi_squared(true, pred) == pytest.approx(float(exact), rel=1e-14, abs=0)
        if exact == 0:
            assert fcm.cramers_v(true, pred) == 0.0
