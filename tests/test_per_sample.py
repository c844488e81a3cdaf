"""Per-sample scores, and each sample's agreement and consistency across many labelings.

Oracles: clusim's element scores (``element_sim_elscore``), brute force over pairs of samples
(BCubed) and over pairs of labelings (agreement, consistency), the global measures for the
means, repeated samples and repeated labelings for weights."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics._utils.params import InvalidParameterError

MEASURES = ["ECS", "BCubed precision", "BCubed recall", "BCubed F"]


def brute_scores(truth, pred) -> dict[str, list[Fraction]]:
    """Each sample's scores from the pairs of samples: ``c`` shares both labels with it
    (itself included), ``a`` its class, ``b`` its cluster."""
    out: dict[str, list[Fraction]] = {m: [] for m in MEASURES}
    for x in range(len(truth)):
        a = sum(truth[y] == truth[x] for y in range(len(truth)))
        b = sum(pred[y] == pred[x] for y in range(len(truth)))
        c = sum(truth[y] == truth[x] and pred[y] == pred[x] for y in range(len(truth)))
        out["ECS"].append(Fraction(c, max(a, b)))
        out["BCubed precision"].append(Fraction(c, b))
        out["BCubed recall"].append(Fraction(c, a))
        out["BCubed F"].append(Fraction(2 * c, a + b))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_scores_are_the_brute_force_ones(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    truth = rng.integers(0, rng.integers(1, 6), n)
    pred = rng.integers(-3, rng.integers(-2, 8), n)
    want = brute_scores(truth.tolist(), pred.tolist())
    for m in MEASURES:
        got = fcm.per_sample_score(truth, pred, measure=m)
        assert got.dtype == np.float64 and got.shape == (n,)
        np.testing.assert_allclose(got, [float(f) for f in want[m]], rtol=1e-15, atol=0)


@pytest.mark.parametrize("seed", range(5))
def test_ecs_is_clusims_element_score_for_any_alpha(seed):
    clusim_sim = pytest.importorskip("clusim.sim")
    from clusim.clustering import Clustering

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 500))
    truth = rng.integers(0, rng.integers(1, 12), n)
    pred = rng.integers(0, rng.integers(1, 30), n)
    got = fcm.per_sample_score(truth, pred)
    a = Clustering().from_membership_list(truth.tolist())
    b = Clustering().from_membership_list(pred.tolist())
    for alpha in (0.9, 0.5):
        scores, index = clusim_sim.element_sim_elscore(a, b, alpha=alpha)
        want = np.array([scores[index[x]] for x in range(n)])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_means_are_the_global_measures(seed):
    rng = np.random.default_rng(seed)
    n = 5000
    truth = rng.integers(0, 9, n)
    pred = rng.integers(0, 14, n)
    for m, f in [
        ("ECS", fcm.element_centric_similarity),
        ("BCubed precision", fcm.bcubed_precision),
        ("BCubed recall", fcm.bcubed_recall),
    ]:
        scores = fcm.per_sample_score(truth, pred, measure=m)
        assert math.fsum(scores) / n == pytest.approx(f(truth, pred), rel=1e-13)
        w = rng.random(n) * 3
        scores = fcm.per_sample_score(truth, pred, measure=m, sample_weight=w)
        mean = math.fsum(scores * w) / math.fsum(w)
        assert mean == pytest.approx(f(truth, pred, sample_weight=w), rel=1e-12)
    p = fcm.per_sample_score(truth, pred, measure="BCubed precision")
    r = fcm.per_sample_score(truth, pred, measure="bcubed_recall")
    f1 = fcm.per_sample_score(truth, pred, measure="bcubed f")
    np.testing.assert_allclose(f1, 2 * p * r / (p + r), rtol=1e-14)
    # the mean of the per-sample F is not BCubed F (the harmonic mean of the means)
    assert f1.mean() != pytest.approx(fcm.bcubed_f_score(truth, pred), rel=1e-6)


def test_whole_weights_are_repeated_samples():
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 4, 300)
    pred = rng.integers(0, 5, 300)
    w = rng.integers(1, 4, 300)
    first = np.concatenate([[0], np.cumsum(w)[:-1]])
    for m in MEASURES:
        weighted = fcm.per_sample_score(truth, pred, measure=m, sample_weight=w)
        repeated = fcm.per_sample_score(np.repeat(truth, w), np.repeat(pred, w), measure=m)
        np.testing.assert_allclose(weighted, repeated[first], rtol=1e-15)


def test_a_sample_of_weight_zero():
    # Alone in its cell: no weight there, no score. Beside weighted samples: their cell's
    # (class 1 weighs 2, each cluster 1, each cell 1: ECS 1/2).
    got = fcm.per_sample_score([0, 1, 1, 1], [0, 0, 1, 1], sample_weight=[0, 1, 1, 0])
    assert math.isnan(got[0])
    np.testing.assert_array_equal(got[1:], [0.5, 0.5, 0.5])


def test_label_types_give_the_same_scores():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 6, 400)
    pred = rng.integers(0, 8, 400)
    want = fcm.per_sample_score(truth, pred)
    names = np.array(list("abcdef"))[truth]
    for t, p in [
        (names, pred),
        (names.tolist(), pred.tolist()),
        (pd.Categorical(names, categories=list("fedcba")), pd.Series(pred.astype(float))),
        (names.astype(object), (pred * 10**12).astype(np.int64)),
        (truth.astype(np.uint8), pred.astype(np.int16) - 300),
    ]:
        np.testing.assert_array_equal(fcm.per_sample_score(t, p), want)


def test_missing_labels_line_up_with_the_input():
    truth = np.array(["a", None, "b", "b", "a"], dtype=object)
    pred = np.array([1.0, 1.0, np.nan, 2.0, 1.0])
    with pytest.raises(ValueError, match="labels are missing; pass missing='drop'"):
        fcm.per_sample_score(truth, pred)
    got = fcm.per_sample_score(truth, pred, missing="drop")
    assert np.isnan(got[[1, 2]]).all()
    np.testing.assert_allclose(got[[0, 3, 4]], [1.0, 1.0, 1.0])
    both = fcm.per_sample_score(truth, pred, missing="cluster")
    assert not np.isnan(both).any()
    assert both[1] == pytest.approx(1 / 3)  # None's own class (1) in cluster 1.0 (of 3)


def test_large_and_wide_tables_at_millions():
    """Spread keys (looked up in hash maps) and a table too large for the dense matrix of
    cells (each row's cells searched), against NumPy's sort-based count."""
    rng = np.random.default_rng(11)
    n = 2_000_000
    truth = rng.integers(0, 300_000, n) * 1_000_003
    pred = rng.integers(0, 200_000, n) << 20
    got = fcm.per_sample_score(truth, pred)
    _, ti = np.unique(truth, return_inverse=True)
    _, pi = np.unique(pred, return_inverse=True)
    a = np.bincount(ti)[ti]
    b = np.bincount(pi)[pi]
    _, ci, c = np.unique(
        ti.astype(np.int64) * (pi.max() + 1) + pi, return_inverse=True, return_counts=True
    )
    c = c[ci]
    np.testing.assert_array_equal(got, c / np.maximum(a, b))
    dense_t = rng.integers(0, 40, n)
    dense_p = rng.integers(0, 60, n)
    got = fcm.per_sample_score(dense_t, dense_p, measure="BCubed precision")
    cell = np.bincount(dense_t * 60 + dense_p, minlength=2400)
    np.testing.assert_array_equal(got, cell[dense_t * 60 + dense_p] / np.bincount(dense_p)[dense_p])


def test_bad_input_is_refused_clearly():
    with pytest.raises(InvalidParameterError, match=r"has no per-sample form.*'ECS'"):
        fcm.per_sample_score([0, 1], [0, 1], measure="ARI")
    with pytest.raises(InvalidParameterError, match=r"unknown metric 'ECX'.*did you mean"):
        fcm.per_sample_score([0, 1], [0, 1], measure="ECX")
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[2, 3\]"):
        fcm.per_sample_score([0, 1], [0, 1, 2])
    with pytest.raises(ValueError, match="sample_weight"):
        fcm.per_sample_score([0, 1], [0, 1], sample_weight=[1, -1])
    assert fcm.per_sample_score([], []).shape == (0,)


# --- agreement and consistency ----------------------------------------------------------


def brute_ecs(x, y) -> np.ndarray:
    return np.array([float(f) for f in brute_scores(list(x), list(y))["ECS"]])


def brute_consistency(labelings, weights) -> np.ndarray:
    """Over every pair of copies: a labeling of whole weight w counts w times."""
    copies = [lab for lab, w in zip(labelings, weights, strict=True) for _ in range(w)]
    pairs = list(combinations(range(len(copies)), 2))
    return sum(brute_ecs(copies[i], copies[j]) for i, j in pairs) / len(pairs)


@pytest.mark.parametrize("seed", range(4))
def test_consistency_is_the_mean_over_pairs(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    labelings = [rng.integers(0, rng.integers(1, 5), n) for _ in range(int(rng.integers(2, 6)))]
    labelings.append(labelings[0] + 10)  # the same partition under other labels
    got = fcm.element_consistency(labelings)
    np.testing.assert_allclose(got, brute_consistency(labelings, [1] * len(labelings)), rtol=1e-13)
    w = rng.integers(0, 4, len(labelings))
    w[:2] = [1, 2]
    got = fcm.element_consistency(labelings, weights=w)
    np.testing.assert_allclose(got, brute_consistency(labelings, w), rtol=1e-13)


@pytest.mark.parametrize("seed", range(4))
def test_agreement_is_the_mean_over_labelings(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    reference = rng.integers(0, 4, n)
    labelings = [rng.integers(0, rng.integers(1, 5), n) for _ in range(4)]
    want = sum(brute_ecs(reference, lab) for lab in labelings) / 4
    np.testing.assert_allclose(fcm.element_agreement(reference, labelings), want, rtol=1e-13)
    w = np.array([0.5, 2.0, 0.0, 1.5])
    want = (
        sum(wk * brute_ecs(reference, lab) for wk, lab in zip(w, labelings, strict=True)) / w.sum()
    )
    got = fcm.element_agreement(reference, labelings, weights=w)
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_labelings_in_every_form_agree():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    cols = [rng.integers(0, 5, 200) for _ in range(4)]
    want = fcm.element_consistency(cols)
    matrix = np.column_stack(cols)
    names = {f"leiden_{k}": np.array(list("abcde"))[c] for k, c in enumerate(cols)}
    for form in (tuple(cols), matrix, names, pd.DataFrame(names)):
        np.testing.assert_allclose(fcm.element_consistency(form), want, rtol=1e-15)
    ref = rng.integers(0, 3, 200)
    np.testing.assert_allclose(
        fcm.element_agreement(ref, pd.DataFrame(names)),
        fcm.element_agreement(ref, cols),
        rtol=1e-15,
    )


def test_identical_partitions_merge_into_one():
    rng = np.random.default_rng(9)
    a, b = rng.integers(0, 5, 1000), rng.integers(0, 5, 1000)
    permuted = np.array([3, 0, 4, 1, 2])[a]
    many = [a, permuted, a.astype(str), b, b + 1, a]
    merged = fcm.element_consistency([a, b], weights=[4, 2])
    np.testing.assert_allclose(fcm.element_consistency(many), merged, rtol=1e-14)
    # Same class sizes, a different partition: not merged.
    swapped = a.copy()
    i, j = np.flatnonzero(a == 0)[0], np.flatnonzero(a == 1)[0]
    swapped[i], swapped[j] = 1, 0
    assert not np.allclose(fcm.element_consistency([a, swapped, a]), 1.0)


def test_consistency_of_many_labelings_at_a_million():
    rng = np.random.default_rng(2)
    n = 1_000_000
    base = rng.integers(0, 20, n)
    runs = []
    for _ in range(4):
        x = base.copy()
        moved = rng.random(n) < 0.1
        x[moved] = rng.integers(0, 25, int(moved.sum()))
        runs.append(x)
    got = fcm.element_consistency(runs)
    pairs = [fcm.per_sample_score(runs[i], runs[j]) for i, j in combinations(range(4), 2)]
    np.testing.assert_allclose(got, sum(pairs) / 6, rtol=1e-13)


def test_bad_labelings_are_refused_clearly():
    with pytest.raises(ValueError, match="labelings is empty"):
        fcm.element_consistency([])
    with pytest.raises(ValueError, match="at least two labelings; got 1"):
        fcm.element_consistency([[0, 1, 1]])
    with pytest.raises(ValueError, match=r"labelings\[1\] has 2 samples where the first.*3"):
        fcm.element_consistency([[0, 1, 1], [0, 1]])
    with pytest.raises(ValueError, match="labelings\\['b'\\] has 2 samples"):
        fcm.element_consistency({"a": [0, 1, 1], "b": [0, 1]})
    with pytest.raises(ValueError, match=r"labelings\[0\] has 3 samples where the reference has 2"):
        fcm.element_agreement([0, 1], [[0, 1, 1]])
    with pytest.raises(ValueError, match="one number per labeling \\(2\\)"):
        fcm.element_consistency([[0, 1], [1, 1]], weights=[1, 2, 3])
    with pytest.raises(ValueError, match="weights sum to 1"):
        fcm.element_consistency([[0, 1], [1, 1]], weights=[0.5, 0.5])
    with pytest.raises(ValueError, match="finite and non-negative"):
        fcm.element_agreement([0, 1], [[0, 1]], weights=[-1])
    with pytest.raises(ValueError, match="missing labels"):
        fcm.element_consistency([[0, None], [1, 1]])
    with pytest.raises(TypeError, match="must be a list of labelings"):
        fcm.element_consistency(5)
    with pytest.raises(ValueError, match="2-D"):
        fcm.element_consistency(np.zeros(3))


# --- AnnData ------------------------------------------------------------------------------


def _adata(n: int = 500):
    anndata = pytest.importorskip("anndata")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    types = rng.integers(0, 5, n)
    obs = pd.DataFrame(
        {
            "cell_type": pd.Categorical(np.array(list("ABCDE"))[types]),
            **{
                f"leiden_{r}": pd.Categorical(rng.integers(0, k, n).astype(str))
                for r, k in (("0.5", 3), ("1.0", 6), ("2.0", 9))
            },
            "n_genes": rng.integers(100, 900, n),
        },
        index=[f"cell{i}" for i in range(n)],
    )
    return anndata.AnnData(obs=obs)


def test_anndata_helpers_write_into_obs():
    adata = _adata()
    obs = adata.obs
    got = fcm.per_sample_adata(adata, "cell_type", "leiden_1.0", measure="bcubed recall")
    np.testing.assert_array_equal(adata.obs["BCubed recall_leiden_1.0"].to_numpy(), got)
    want = fcm.per_sample_score(obs["cell_type"], obs["leiden_1.0"], measure="BCubed recall")
    np.testing.assert_array_equal(got, want)
    fcm.per_sample_adata(adata, "cell_type", "leiden_0.5", key="ecs")
    np.testing.assert_array_equal(
        adata.obs["ecs"].to_numpy(), fcm.per_sample_score(obs["cell_type"], obs["leiden_0.5"])
    )
    runs = ["leiden_0.5", "leiden_1.0", "leiden_2.0"]
    got = fcm.element_consistency_adata(adata, "leiden_*", weights=[1, 2, 1])
    want = fcm.element_consistency([obs[c] for c in runs], weights=[1, 2, 1])
    np.testing.assert_array_equal(adata.obs["element_consistency"].to_numpy(), want)
    np.testing.assert_array_equal(got, want)
    fcm.element_agreement_adata(adata, "cell_type", runs[:2], key="agree")
    want = fcm.element_agreement(obs["cell_type"], [obs[c] for c in runs[:2]])
    np.testing.assert_array_equal(adata.obs["agree"].to_numpy(), want)


def test_anndata_helpers_refuse_clearly():
    adata = _adata(20)
    with pytest.raises(KeyError, match="no pred column 'leiden'; the columns are: cell_type"):
        fcm.per_sample_adata(adata, "cell_type", "leiden")
    with pytest.raises(KeyError, match="no pred column 'louvain_\\*'"):
        fcm.element_consistency_adata(adata, "louvain_*")
    with pytest.raises(TypeError, match="takes an AnnData in memory"):
        fcm.element_consistency_adata("cells.h5ad", "leiden_*")
    with pytest.raises(InvalidParameterError, match="has no per-sample form"):
        fcm.per_sample_adata(adata, "cell_type", "leiden_1.0", measure="AMI")


def test_the_examples_run():
    import doctest

    functions = [
        fcm.per_sample_score,
        fcm.element_agreement,
        fcm.element_consistency,
        fcm.per_sample_adata,
        fcm.element_consistency_adata,
    ]
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for f in functions:
        (test,) = doctest.DocTestFinder().find(f, f.__name__, globs={})
        assert test.examples, f.__name__
        runner.run(test)
    assert runner.failures == 0
