"""The measures catalogue against peer libraries: genieclust 1.3, permetrics 2.1 and scipy.

Where a peer's value differs, the test says why and checks the peer's value against the formula
that explains it (so each disagreement is pinned down, not merely tolerated).
"""

import itertools
import math
import warnings

import numpy as np
import pytest

import fastcluster_metrics as fcm

genieclust = pytest.importorskip("genieclust")
permetrics = pytest.importorskip("permetrics")
gcp = genieclust.compare_partitions

REL = 1e-9


def random_table(rng, shape, n_max=40, p_zero=0.3):
    """A random table with no empty row or column."""
    while True:
        table = rng.integers(0, n_max, size=shape) * (rng.random(shape) > p_zero)
        if (table.sum(axis=0) > 0).all() and (table.sum(axis=1) > 0).all():
            return table


def labels_of(table):
    """Two labelings whose contingency table is ``table``."""
    rows, cols = np.nonzero(table)
    counts = table[rows, cols]
    return np.repeat(rows, counts), np.repeat(cols, counts)


SQUARE = [(k, k) for k in (2, 3, 4, 6) for _ in range(4)]
NON_SQUARE = [(2, 3), (3, 2), (2, 5), (5, 2), (3, 6), (6, 4), (4, 7)]


def genie(func, table, **kwargs):
    """A genieclust score of a table (C-contiguous doubles: see test_genieclust_needs_c_order)."""
    return func(np.ascontiguousarray(table, dtype=np.float64), **kwargs)


def padded(table):
    k = max(table.shape)
    out = np.zeros((k, k), dtype=table.dtype)
    out[: table.shape[0], : table.shape[1]] = table
    return out


# --- genieclust ----------------------------------------------------------------------------------


GENIE_SCORES = {
    "ar": gcp.adjusted_rand_score,
    "r": gcp.rand_score,
    "fm": gcp.fm_score,
    "afm": gcp.adjusted_fm_score,
    "mi": gcp.mi_score,
    "nmi": gcp.normalized_mi_score,
    "ami": gcp.adjusted_mi_score,
}


@pytest.mark.parametrize("shape", SQUARE + NON_SQUARE, ids=str)
def test_genieclust_pair_and_information_scores(shape):
    rng = np.random.default_rng(sum(shape) * 31 + shape[0])
    for _ in range(5):
        table = random_table(rng, shape)
        c = fcm.Contingency(table)
        g = {key: genie(func, table) for key, func in GENIE_SCORES.items()}
        assert c.adjusted_rand_score() == pytest.approx(g["ar"], rel=REL)
        assert c.rand_score() == pytest.approx(g["r"], rel=REL)
        assert c.fowlkes_mallows_score() == pytest.approx(g["fm"], rel=REL)
        assert c.adjusted_fowlkes_mallows_score() == pytest.approx(g["afm"], rel=REL, abs=1e-12)
        assert c.mutual_info_score() == pytest.approx(g["mi"], rel=REL)
        # genieclust's NMI and AMI are Vinh et al.'s "sum" variants: sklearn's "arithmetic"
        assert c.normalized_mutual_info_score() == pytest.approx(g["nmi"], rel=REL)
        assert c.adjusted_mutual_info_score() == pytest.approx(g["ami"], rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("shape", SQUARE + NON_SQUARE, ids=str)
def test_genieclust_set_matching(shape):
    """PSI on any table; NPA and NCA on square tables, and on non-square ones through the
    documented convention: missing classes or clusters are empty ones. genieclust 1.3 asserts
    square tables for NPA and NCA, so a table with fewer rows than columns is given to it
    padded with empty rows (NPA), or with empty columns when it has more rows (NCA)."""
    rng = np.random.default_rng(sum(shape) * 17 + shape[1])
    for _ in range(5):
        table = random_table(rng, shape)
        c = fcm.Contingency(table)
        for simplified, clipped in itertools.product((False, True), repeat=2):
            expected = genie(gcp.pair_sets_index, table, simplified=simplified, clipped=clipped)
            ours = c.pair_sets_index(simplified=simplified, clipped=clipped)
            assert ours == pytest.approx(expected, rel=REL, abs=1e-12)
        assert c.normalized_pivoted_accuracy() == pytest.approx(
            genie(gcp.normalized_pivoted_accuracy, padded(table)), rel=REL, abs=1e-12
        )
        r, k = table.shape
        if r >= k:  # zero columns: the classes left unmatched count 0, r unchanged
            assert c.normalized_clustering_accuracy() == pytest.approx(
                genie(gcp.normalized_clustering_accuracy, padded(table)), rel=REL, abs=1e-12
            )
        else:
            # padding rows would add empty classes and change r; only r classes are matched
            # (genieclust's stated convention, not implemented in 1.3): see test_measures.py
            with pytest.raises(RuntimeError, match="xc == yc"):
                genie(gcp.normalized_clustering_accuracy, table)


def test_genieclust_compare_partitions_from_labels():
    rng = np.random.default_rng(5)
    table = random_table(rng, (4, 4))
    true, pred = labels_of(table)
    g = gcp.compare_partitions(true, pred)
    c = fcm.Contingency.from_labels(true, pred)
    ours = {
        "ar": c.adjusted_rand_score(),
        "r": c.rand_score(),
        "fm": c.fowlkes_mallows_score(),
        "afm": c.adjusted_fowlkes_mallows_score(),
        "mi": c.mutual_info_score(),
        "nmi": c.normalized_mutual_info_score(),
        "ami": c.adjusted_mutual_info_score(),
        "npa": c.normalized_pivoted_accuracy(),
        "psi": c.pair_sets_index(),
        "spsi": c.pair_sets_index(simplified=True),
        "nca": c.normalized_clustering_accuracy(),
    }
    assert set(ours) == set(g)
    for key, value in ours.items():
        assert value == pytest.approx(g[key], rel=1e-7, abs=1e-9), key


def test_genieclust_nca_is_asymmetric_like_ours():
    rng = np.random.default_rng(11)
    table = random_table(rng, (4, 4))
    t = np.ascontiguousarray(table.T)
    assert fcm.Contingency(t).normalized_clustering_accuracy() == pytest.approx(
        genie(gcp.normalized_clustering_accuracy, t), rel=REL
    )
    assert fcm.Contingency(table).normalized_clustering_accuracy() != pytest.approx(
        fcm.Contingency(t).normalized_clustering_accuracy(), rel=1e-6
    )


def test_genieclust_needs_c_order():
    """Disagreement (a genieclust pitfall): given a table that is not C-contiguous (a transposed
    view, or a Fortran-ordered array), genieclust reads its memory as if it were row-major and
    scores another table. Its value on the same table copied to C order equals ours."""
    table = np.array([[3, 1, 0], [0, 4, 2]])
    t = table.T  # a view in Fortran order
    ours = fcm.Contingency(t).adjusted_fowlkes_mallows_score()
    assert ours == pytest.approx(gcp.adjusted_fm_score(np.ascontiguousarray(t)), rel=REL)
    assert gcp.adjusted_fm_score(t) != pytest.approx(ours, rel=1e-3)
    # AFM is symmetric, so the row-major table gives the same answer
    assert ours == pytest.approx(fcm.Contingency(table).adjusted_fowlkes_mallows_score(), rel=REL)


def test_genieclust_counts_unused_label_values():
    """Disagreement: from labels, genieclust's table has a row for every integer between the
    smallest and largest label, so an unused value is an empty class that counts in K
    (PSI here: (S - E) / (3 - E) instead of (2 - E) / (2 - E)). Our tables hold the labels that
    occur; a given table's empty rows and columns are ignored."""
    true, pred = np.array([0, 0, 2, 2]), np.array([0, 0, 1, 1])
    assert gcp.confusion_matrix(true, pred).shape == (3, 2)
    assert gcp.pair_sets_index(true, pred) == pytest.approx(0.5)  # S = 2, E = 4/4, K = 3

    assert fcm.Contingency.from_labels(true, pred).pair_sets_index() == 1.0
    assert fcm.Contingency(np.array([[2, 0], [0, 0], [0, 2]])).pair_sets_index() == 1.0


def test_genieclust_degenerate_pair_scores():
    """Disagreement: for identical all-singleton labelings (no pair together), genieclust's
    ARI, FM and AFM divide 0 by 0 (nan); ours follow scikit-learn (ARI 1.0, FM 0.0) and give
    AFM 1.0 for identical labelings."""
    x = np.arange(5)
    g = gcp.compare_partitions(x, x)
    assert math.isnan(g["ar"]) and math.isnan(g["fm"]) and math.isnan(g["afm"])
    c = fcm.Contingency.from_labels(x, x)
    assert c.adjusted_rand_score() == 1.0
    assert c.fowlkes_mallows_score() == 0.0
    assert c.adjusted_fowlkes_mallows_score() == 1.0
    assert g["npa"] == c.normalized_pivoted_accuracy() == 1.0
    assert g["psi"] == c.pair_sets_index() == 1.0


# --- permetrics ----------------------------------------------------------------------------------

# permetrics name -> our Contingency method, for the measures that agree on ordinary inputs
AGREE = {
    "precision_score": "pair_precision",
    "recall_score": "pair_recall",
    "f_measure_score": "pair_f_score",
    "czekanowski_dice_score": "dice_index",
    "hubert_gamma_score": "hubert_gamma",
    "jaccard_score": "jaccard_index",
    "kulczynski_score": "kulczynski_index",
    "phi_score": "phi_index",
    "rogers_tanimoto_score": "rogers_tanimoto_index",
    "russel_rao_score": "russel_rao_index",
    "sokal_sneath1_score": "sokal_sneath1_index",
    "sokal_sneath2_score": "sokal_sneath2_index",
    "purity_score": "purity_score",
    "rand_score": "rand_score",
    "adjusted_rand_score": "adjusted_rand_score",
    "fowlkes_mallows_score": "fowlkes_mallows_score",
    "mutual_info_score": "mutual_info_score",
    "normalized_mutual_info_score": "normalized_mutual_info_score",
}


@pytest.fixture(scope="module")
def pm():
    return permetrics.ClusteringMetric()


def permetrics_value(pm, name, true, pred):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # permetrics warns on some inputs (e.g. a log of 0)
        return float(getattr(pm, name)(true, pred))


def ordinary_labelings(seed, k_true=3, k_pred=5, n=40):
    """Labelings with several classes and clusters, each used, and pairs of every kind."""
    rng = np.random.default_rng(seed)
    while True:
        true, pred = rng.integers(0, k_true, n), rng.integers(0, k_pred, n)
        if len(set(true)) == k_true and len(set(pred)) == k_pred:
            return true, pred


@pytest.mark.parametrize("seed", range(4))
def test_permetrics_agreeing_measures(pm, seed):
    # k_true > k_pred: homogeneity is right, completeness is not (test_permetrics_homogeneity_bug)
    true, pred = ordinary_labelings(seed, k_true=5, k_pred=3)
    c = fcm.Contingency.from_labels(true, pred)
    for theirs, ours in AGREE.items():
        expected = permetrics_value(pm, theirs, true, pred)
        assert getattr(c, ours)() == pytest.approx(expected, rel=REL, abs=1e-12), theirs
    assert c.homogeneity_score() == pytest.approx(
        permetrics_value(pm, "homogeneity_score", true, pred), rel=REL
    )


@pytest.mark.parametrize("seed", range(4))
def test_permetrics_pair_measures_that_differ(pm, seed):
    """Disagreements in permetrics' pair measures, each checked against what permetrics
    computes:

    * ``mc_nemar_score`` works on the pair counts divided by N (proportions), and McNemar's
      statistic is not scale-free: theirs is ours / sqrt(N).
    * ``gamma_score`` is 2 Rand - 1 (the agreement minus the disagreement share), not a Gamma;
      ours is the Goodman-Kruskal (Baker-Hubert) Gamma of the couples of pairs, Yule's Q.
    * ``gplus_score`` is 1 - Rand (the share of disagreeing pairs), not Rohlf's G(+), the share
      of discordant couples of pairs, fp fn / C(N, 2).
    * ``tau_score`` is (agreeing - disagreeing pairs) / sqrt((N - tp) N), a mix of Kendall's
      tau over pairs of pairs with counts of pairs; Kendall's tau-b of the two pair
      indicators is (tp tn - fp fn) / sqrt(P (N - P) Q (N - Q)), the phi coefficient (checked
      against scipy below).
    """
    true, pred = ordinary_labelings(seed)
    c = fcm.Contingency.from_labels(true, pred)
    k = c.pair_counts()
    n_pairs = sum(k.values())
    agree, disagree = k["tp"] + k["tn"], k["fp"] + k["fn"]

    mcnemar = permetrics_value(pm, "mc_nemar_score", true, pred)
    assert mcnemar == pytest.approx(c.mcnemar_index() / math.sqrt(n_pairs), rel=REL)
    assert c.mcnemar_index() == pytest.approx(
        (k["tn"] - k["fp"]) / math.sqrt(k["tn"] + k["fp"]), rel=REL
    )

    gamma = permetrics_value(pm, "gamma_score", true, pred)
    assert gamma == pytest.approx(2 * c.rand_score() - 1, rel=REL)
    assert c.goodman_kruskal_gamma() != pytest.approx(gamma, rel=1e-3)

    gplus = permetrics_value(pm, "gplus_score", true, pred)
    assert gplus == pytest.approx(1 - c.rand_score(), rel=REL)
    assert c.g_plus_index() == pytest.approx(k["fp"] * k["fn"] / math.comb(n_pairs, 2), rel=REL)

    tau = permetrics_value(pm, "tau_score", true, pred)
    assert tau == pytest.approx((agree - disagree) / math.sqrt((n_pairs - k["tp"]) * n_pairs))
    assert c.kendall_tau() != pytest.approx(tau, rel=1e-3)


@pytest.mark.parametrize("seed", range(3))
def test_kendall_tau_is_scipys_tau_b_of_the_pair_indicators(seed):
    scipy_stats = pytest.importorskip("scipy.stats")
    true, pred = ordinary_labelings(seed, n=25)
    pairs = list(itertools.combinations(range(25), 2))
    x = [int(true[i] == true[j]) for i, j in pairs]
    y = [int(pred[i] == pred[j]) for i, j in pairs]
    expected = scipy_stats.kendalltau(x, y, variant="b").statistic
    c = fcm.Contingency.from_labels(true, pred)
    assert c.kendall_tau() == pytest.approx(expected, rel=REL)
    assert c.kendall_tau() == pytest.approx(c.phi_index(), rel=REL)


@pytest.mark.parametrize("seed", range(3))
def test_permetrics_homogeneity_bug(pm, seed):
    """Disagreement: permetrics' conditional entropy H(true | pred) loops over the label values
    of ``y_true`` (after encoding, 0 .. k_true - 1) to select predicted clusters, so with more
    clusters than classes the clusters k_true, k_true + 1, ... are left out; homogeneity (and
    the V-measure) are then wrong. Completeness swaps the roles: right here, wrong when there
    are more classes than clusters."""
    true, pred = ordinary_labelings(seed, k_true=3, k_pred=5)
    c = fcm.Contingency.from_labels(true, pred)
    report = c.cluster_report()  # per-cluster class entropy (nats) and size
    h_true = c.entropy_true()
    kept = report.index < 3
    truncated = float((report["size"][kept] / c.n * report["entropy"][kept]).sum())
    theirs = permetrics_value(pm, "homogeneity_score", true, pred)
    assert theirs == pytest.approx(1 - truncated / h_true, rel=1e-9)
    assert theirs != pytest.approx(c.homogeneity_score(), rel=1e-3)
    assert permetrics_value(pm, "completeness_score", true, pred) == pytest.approx(
        c.completeness_score(), rel=REL
    )
    # the mirror image: with more classes than clusters, completeness drops classes
    swapped = fcm.Contingency.from_labels(pred, true)
    theirs = permetrics_value(pm, "completeness_score", pred, true)
    assert theirs == pytest.approx(1 - truncated / swapped.entropy_pred(), rel=1e-9)
    assert theirs != pytest.approx(swapped.completeness_score(), rel=1e-3)


@pytest.mark.parametrize("seed", range(3))
def test_permetrics_entropy_score(pm, seed):
    """Disagreement: permetrics' ``entropy_score`` (described as the size-weighted cluster
    entropy, H(true | pred) in bits) flattens the per-cluster probabilities before summing, so
    every cluster gets weight 1: it returns sum_j H(true | pred = j) in bits."""
    true, pred = ordinary_labelings(seed)
    c = fcm.Contingency.from_labels(true, pred)
    report = c.cluster_report()
    theirs = permetrics_value(pm, "entropy_score", true, pred)
    assert theirs == pytest.approx(float(report["entropy"].sum()) / math.log(2), rel=1e-9)
    weighted = float((report["size"] * report["entropy"]).sum()) / c.n / math.log(2)
    assert c.conditional_entropy_true_given_pred(base=2) == pytest.approx(weighted, rel=1e-9)
    assert theirs != pytest.approx(weighted, rel=1e-3)


def test_permetrics_degenerate_conventions(pm):
    """Disagreement: permetrics replaces every undefined value by 0.0 (``force_finite``), even
    for identical labelings; ours give 1.0 to a similarity of identical labelings (as
    scikit-learn's ``rand_score``) and nan to an undefined ratio or correlation. Also its NMI
    and homogeneity of two single-cluster labelings are 0.0 (scikit-learn: 1.0)."""
    singletons = np.arange(6)
    c = fcm.Contingency.from_labels(singletons, singletons)
    for theirs, ours in [
        ("jaccard_score", "jaccard_index"),
        ("czekanowski_dice_score", "dice_index"),
        ("f_measure_score", "pair_f_score"),
        ("sokal_sneath1_score", "sokal_sneath1_index"),
    ]:
        assert permetrics_value(pm, theirs, singletons, singletons) == 0.0
        assert getattr(c, ours)() == 1.0
    assert permetrics_value(pm, "precision_score", singletons, singletons) == 0.0
    assert math.isnan(c.pair_precision())
    assert permetrics_value(pm, "phi_score", singletons, singletons) == 0.0
    assert math.isnan(c.phi_index())

    one = np.zeros(6, dtype=np.int64)
    c = fcm.Contingency.from_labels(one, one)
    assert permetrics_value(pm, "normalized_mutual_info_score", one, one) == 0.0
    assert permetrics_value(pm, "homogeneity_score", one, one) == 0.0
    assert c.normalized_mutual_info_score() == c.homogeneity_score() == 1.0
