"""Bootstrap intervals and permutation tests from the table alone, against brute force on labels.

Statistical checks use fixed seeds and tolerances of about four standard errors: each would
fail for a sampler off by a few percent, and passes for a correct one with the seeds given.
"""

import functools
import itertools
import math
import operator

import numpy as np
import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics._many import uncertainty as u

scipy_stats = pytest.importorskip("scipy.stats")


# --- the fixed-margins table sampler -------------------------------------------------------------


def chisquare_pvalue(observed, prob, draws):
    """Pearson's goodness of fit, the outcomes expected fewer than 5 times pooled into one."""
    keep = prob * draws >= 5
    obs, exp = observed[keep], prob[keep] * draws
    if not keep.all():
        obs = np.append(obs, draws - obs.sum())
        exp = np.append(exp, draws - exp.sum())
    return scipy_stats.chisquare(obs, exp * draws / exp.sum()).pvalue


def draw_tables(a, b, count, seed):
    rng = np.random.default_rng(seed)
    out = np.zeros((count, len(a), len(b)), dtype=np.int64)
    for k in range(count):
        rows, cols, counts = u._random_cells(np.array(a), np.array(b), rng)
        np.add.at(out[k], (rows, cols), counts)
    return out


@pytest.mark.parametrize(
    ("a", "b"),
    [([5, 0, 7, 3], [4, 4, 0, 7]), ([1], [1]), ([10, 20], [30]), ([2, 2, 2, 2, 2], [9, 1])],
)
def test_sampler_margins_are_exact(a, b):
    tables = draw_tables(a, b, 200, seed=1)
    assert (tables >= 0).all()
    assert (tables.sum(axis=2) == np.array(a)).all()
    assert (tables.sum(axis=1) == np.array(b)).all()


def test_sampler_mean_is_the_independence_table():
    """E[n_ij] = a_i b_j / n, with the hypergeometric variance a_i b_j (n - a_i)(n - b_j) /
    (n^2 (n - 1)); every cell's mean over 3000 tables within 4.5 standard errors."""
    a, b = np.array([6, 11, 13]), np.array([3, 9, 10, 8])
    n, draws = a.sum(), 3000
    tables = draw_tables(a, b, draws, seed=7)
    expected = np.outer(a, b) / n
    variance = np.outer(a * (n - a), b * (n - b)) / (n * n * (n - 1))
    z = (tables.mean(axis=0) - expected) / np.sqrt(variance / draws)
    assert np.abs(z).max() < 4.5
    # and the spread is the hypergeometric one (not, say, multinomial): within 10%
    np.testing.assert_allclose(tables.var(axis=0, ddof=1), variance, rtol=0.1)


def test_sampler_two_by_two_is_hypergeometric():
    """In a 2 x 2 table with margins (a_1, a_2), (b_1, b_2), n_11 ~ Hypergeometric(n, a_1, b_1)."""
    a, b = [12, 18], [10, 20]
    draws = 4000
    n11 = draw_tables(a, b, draws, seed=3)[:, 0, 0]
    support = np.arange(0, 11)
    pmf = scipy_stats.hypergeom(30, 12, 10).pmf(support)
    observed = np.bincount(n11, minlength=support.size)[: support.size]
    assert observed.sum() == draws
    assert chisquare_pvalue(observed, pmf, draws) > 1e-3


# A small labeling whose permutation distribution is enumerated exactly (8! permutations).
TRUE8 = np.array([0, 0, 0, 1, 1, 2, 2, 2])
PRED8 = np.array([0, 0, 1, 1, 1, 2, 2, 0])


def exact_permutation_tables():
    """Every permutation of PRED8 against TRUE8: the distinct tables and how many
    permutations give each (a brute-force permutation test on labels)."""
    perms = np.array(list(itertools.permutations(range(8))))
    codes = TRUE8[None, :] * 3 + PRED8[perms]
    flat = np.zeros((perms.shape[0], 9), dtype=np.int64)
    np.add.at(flat, (np.repeat(np.arange(perms.shape[0]), 8), codes.ravel()), 1)
    tables, counts = np.unique(flat, axis=0, return_counts=True)
    return tables.reshape(-1, 3, 3), counts


def test_sampler_matches_the_exact_permutation_distribution():
    tables, counts = exact_permutation_tables()
    prob = counts / counts.sum()
    draws = 4000
    drawn = draw_tables(np.bincount(TRUE8), np.bincount(PRED8), draws, seed=11)
    index = {t.tobytes(): k for k, t in enumerate(tables)}
    observed = np.bincount([index[t.tobytes()] for t in drawn], minlength=len(tables))
    assert observed.sum() == draws  # every drawn table is a table some permutation gives
    assert chisquare_pvalue(observed, prob, draws) > 1e-3


@pytest.mark.parametrize("measure", ["adjusted_rand_score", "adjusted_mutual_info_score"])
def test_permutation_pvalue_matches_exact_enumeration(measure):
    tables, counts = exact_permutation_tables()
    values = np.array([getattr(fcm.Contingency(t), measure)() for t in tables])
    observed = getattr(fcm.Contingency.from_labels(TRUE8, PRED8), measure)()
    exact = counts[values >= observed - 1e-12].sum() / counts.sum()
    draws = 2000
    result = fcm.permutation_test(
        fcm.Contingency.from_labels(TRUE8, PRED8), measure, n_resamples=draws, seed=5
    )
    assert result.statistic == observed
    assert 0.05 < exact < 0.95  # a p-value away from the edges, so the comparison has teeth
    assert abs(result.pvalue - exact) < 4 * math.sqrt(exact * (1 - exact) / draws) + 2 / draws


def test_permutation_pvalue_against_label_permutations():
    """Monte Carlo on both sides (fixed seeds): permuting labels_pred 600 times and computing AMI
    from the labels, against our 600 tables; the p-values within 4 standard errors of their
    difference."""
    rng = np.random.default_rng(23)
    true = rng.integers(0, 4, 60)
    pred = np.where(rng.random(60) < 0.1, true, rng.integers(0, 5, 60))
    observed = fcm.adjusted_mutual_info_score(true, pred)
    draws = 600
    null = [fcm.adjusted_mutual_info_score(true, rng.permutation(pred)) for _ in range(draws)]
    p_labels = (1 + sum(v >= observed - 1e-12 for v in null)) / (1 + draws)
    ours = fcm.permutation_test(
        fcm.Contingency.from_labels(true, pred),
        "adjusted_mutual_info_score",
        n_resamples=draws,
        seed=22,
    )
    assert 0.02 < p_labels < 0.98
    se = math.sqrt(2 * p_labels * (1 - p_labels) / draws)
    assert abs(ours.pvalue - p_labels) < 4 * se + 2 / draws
    assert ours.statistic == pytest.approx(observed, rel=1e-12)


def test_permutation_test_extremes_and_alternative():
    true = np.repeat(np.arange(4), 25)
    c = fcm.Contingency.from_labels(true, true)
    strong = fcm.permutation_test(c, n_resamples=99, seed=0)
    assert strong.pvalue == 1 / 100  # nothing random comes close to identical labelings
    assert strong.null_distribution.shape == (99,)
    assert np.abs(strong.null_distribution).max() < 0.2
    distance = fcm.permutation_test(c, "variation_of_information", alternative="less", seed=0)
    assert distance.pvalue == 1 / 1000
    # one cluster: every permutation gives the same table, every null value ties
    flat = fcm.Contingency.from_labels(true, np.zeros(100, dtype=int))
    assert fcm.permutation_test(flat, n_resamples=20, seed=0).pvalue == 1.0
    assert fcm.permutation_test(c, n_resamples=20, seed=3).null_distribution.tolist() == (
        fcm.permutation_test(c, n_resamples=20, seed=3).null_distribution.tolist()
    )


def test_permutation_test_with_a_callable_and_labels_kept():
    seen = []

    def measure(t):
        seen.append((t.n, t.classes.tolist(), t.clusters.tolist(), t.class_sizes.tolist()))
        return t.purity_score()

    c = fcm.Contingency.from_labels(["a", "a", "b", "c"], ["x", "y", "y", "y"])
    fcm.permutation_test(c, measure, n_resamples=10, seed=0)
    assert len(seen) == 11
    assert all(s == (4, ["a", "b", "c"], ["x", "y"], [2, 1, 1]) for s in seen)


# --- bootstrap ----------------------------------------------------------------------------------


def test_cell_bootstrap_matches_resampling_labels():
    """Resampling n samples with replacement, computed from labels (brute force), and our
    multinomial draws over cells give the same distribution of the ARI: means within 4
    standard errors, standard deviations within 12%, and a two-sample KS test."""
    rng = np.random.default_rng(4)
    true = rng.integers(0, 3, 80)
    pred = np.where(rng.random(80) < 0.6, true, rng.integers(0, 4, 80))
    draws = 1500
    brute = np.array(
        [
            fcm.adjusted_rand_score(true[idx], pred[idx])
            for idx in rng.integers(0, 80, size=(draws, 80))
        ]
    )
    ours = fcm.bootstrap(
        fcm.Contingency.from_labels(true, pred), n_resamples=draws, seed=5
    ).replicates
    se = math.sqrt((brute.var() + ours.var()) / draws)
    assert abs(brute.mean() - ours.mean()) < 4 * se
    assert ours.std() == pytest.approx(brute.std(), rel=0.12)
    assert scipy_stats.ks_2samp(brute, ours).pvalue > 1e-3


def test_bootstrap_interval_and_replicate_tables():
    seen = []

    def measure(t):
        seen.append((t.n, t.shape))
        return t.jaccard_index()

    c = fcm.Contingency.from_labels([0, 0, 1, 1, 2, 2, 2], [0, 0, 0, 1, 1, 2, 2])
    result = fcm.bootstrap(c, measure, n_resamples=300, confidence_level=0.9, seed=2)
    assert result.estimate == c.jaccard_index()
    assert seen[0] == (7, (3, 3)) and len(seen) == 301
    assert all(s == (7, (3, 3)) for s in seen)  # every replicate has n samples, same labels
    finite = result.replicates[~np.isnan(result.replicates)]
    low, high = np.quantile(finite, [0.05, 0.95])
    assert (result.low, result.high) == (low, high)
    assert result.standard_error == pytest.approx(np.std(finite, ddof=1))
    assert result.low <= result.estimate <= result.high
    assert result.confidence_level == 0.9
    again = fcm.bootstrap(c, measure, n_resamples=300, confidence_level=0.9, seed=2)
    np.testing.assert_array_equal(again.replicates, result.replicates)
    other = fcm.bootstrap(c, "jaccard_index", n_resamples=300, seed=3)
    assert not np.array_equal(other.replicates, result.replicates)
    assert "BootstrapResult(estimate=" in repr(result)


def test_group_bootstrap_is_exact_resampling_of_groups():
    """Each replicate equals the measure of the labels of the drawn groups, concatenated: the
    documented draws, rng.integers(0, G, size=(n_resamples, G)), reproduced here on labels."""
    rng = np.random.default_rng(8)
    n = 120
    groups = rng.choice(["d1", "d2", "d3", "d4", "d5"], n)
    true = rng.integers(0, 3, n)
    pred = np.where(rng.random(n) < 0.5, true, rng.integers(0, 4, n)).astype(str)
    tables = fcm.group_tables(true, pred, groups)
    assert list(tables) == ["d1", "d2", "d3", "d4", "d5"]
    assert functools.reduce(operator.add, tables.values()) == fcm.Contingency.from_labels(
        true, pred
    )
    result = fcm.bootstrap(tables, "adjusted_rand_score", n_resamples=40, seed=9)
    assert result.estimate == fcm.adjusted_rand_score(true, pred)
    draws = np.random.default_rng(9).integers(0, 5, size=(40, 5))
    names = list(tables)
    for draw, value in zip(draws, result.replicates, strict=True):
        idx = np.concatenate([np.flatnonzero(groups == names[g]) for g in draw])
        assert value == fcm.adjusted_rand_score(true[idx], pred[idx])
    # a sequence of tables works as a mapping does
    listed = fcm.bootstrap(list(tables.values()), "adjusted_rand_score", n_resamples=40, seed=9)
    np.testing.assert_array_equal(listed.replicates, result.replicates)


def test_group_bootstrap_single_group_has_no_spread():
    tables = fcm.group_tables([0, 0, 1, 1, 1], [1, 1, 0, 0, 1], ["x"] * 5)
    result = fcm.bootstrap(tables, "v_measure_score", n_resamples=25, seed=0)
    assert (result.replicates == result.estimate).all()
    assert result.standard_error == 0.0
    assert result.low == result.high == result.estimate


def test_bootstrap_nan_replicates_are_left_out():
    # pair precision is nan when no pair is together in labels_pred: here for the observed
    # table, and for a replicate that draws each of the 4 cells once (probability 4!/4^4)
    c = fcm.Contingency(np.array([[1, 0, 0, 0], [0, 1, 1, 1]]))
    result = fcm.bootstrap(c, "pair_precision", n_resamples=200, seed=1)
    assert math.isnan(result.estimate)
    assert 5 < np.isnan(result.replicates).sum() < 40
    finite = result.replicates[~np.isnan(result.replicates)]
    assert (result.low, result.high) == tuple(np.quantile(finite, [0.025, 0.975]))
    assert result.standard_error == pytest.approx(np.std(finite, ddof=1))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_resamples": 0}, "'n_resamples' parameter of bootstrap"),
        ({"n_resamples": 2.5}, "'n_resamples' parameter of bootstrap"),
        ({"confidence_level": 1.0}, "'confidence_level' parameter of bootstrap"),
        ({"confidence_level": "0.9"}, "'confidence_level' parameter of bootstrap"),
        ({"measure": "arri"}, "unknown metric 'arri' for bootstrap.*'adjusted_rand_score'"),
        ({"measure": 3}, "'measure' parameter of bootstrap"),
    ],
)
def test_bootstrap_bad_parameters(kwargs, match):
    c = fcm.Contingency.from_labels([0, 1, 1], [0, 0, 1])
    with pytest.raises(ValueError, match=match):
        fcm.bootstrap(c, **kwargs)


def test_bad_inputs():
    c = fcm.Contingency.from_labels([0, 1, 1], [0, 0, 1])
    with pytest.raises(ValueError, match="'alternative' parameter of permutation_test"):
        fcm.permutation_test(c, alternative="two-sided")
    with pytest.raises(TypeError, match="takes a Contingency"):
        fcm.permutation_test(np.eye(2))
    with pytest.raises(ValueError, match="empty contingency table"):
        fcm.bootstrap(fcm.Contingency.from_labels([], []))
    with pytest.raises(ValueError, match="at least one group"):
        fcm.bootstrap([])
    with pytest.raises(TypeError, match="must be Contingency objects"):
        fcm.bootstrap([np.eye(2)])
    with pytest.raises(ValueError, match="same length"):
        fcm.group_tables([0, 1], [0, 1], [0])
