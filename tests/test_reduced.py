"""reduced_mutual_info_score against the authors' package clustering-mi, and against counting
the tables with given margins where its estimate is exact."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest

import fastcluster_metrics as fcm

cmi = pytest.importorskip("clustering_mi")

NORMALIZATIONS = ["second", "first", "mean", "min", "max", "geometric", "none"]
VARIANTS = {"dirichlet": "reduced", "flat": "reduced_flat"}


def _theirs(labels_true, labels_pred, variant, normalization):
    # clustering-mi's truth is its second labeling (the table's rows).
    with np.errstate(invalid="ignore"):
        return float(
            cmi.normalized_mutual_information(
                labels_pred, labels_true, variation=VARIANTS[variant], normalization=normalization
            )
        )


def _scale(labels_true, variant):
    """The size of the bits being compared: the truth's reduced entropy (at least 1)."""
    own = fcm.reduced_mutual_info_score(
        labels_true, labels_true, variant=variant, normalization="none"
    )
    return max(1.0, abs(own))


def _pairs(seed):
    rng = np.random.default_rng(seed)
    for n, k_true, k_pred in [(10, 3, 4), (60, 1, 5), (200, 6, 6), (2000, 4, 40), (5000, 30, 3)]:
        truth = rng.integers(0, k_true, n)
        noise = rng.integers(0, k_pred, n)
        # Related for some, independent for others.
        pred = np.where(rng.random(n) < 0.6, truth % k_pred, noise)
        yield truth, pred


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_clustering_mi_on_random_tables(variant, seed):
    for truth, pred in _pairs(seed):
        for normalization in NORMALIZATIONS:
            got = fcm.reduced_mutual_info_score(
                truth, pred, variant=variant, normalization=normalization
            )
            want = _theirs(truth, pred, variant, normalization)
            if math.isnan(want):
                assert math.isnan(got)
                continue
            scale = _scale(truth, variant) if normalization == "none" else 1.0
            assert abs(got - want) <= 1e-10 * max(scale, abs(want)), (normalization, got, want)


def test_equals_clustering_mi_at_a_million_labels():
    rng = np.random.default_rng(5)
    n = 10**6
    truth = rng.integers(0, 33, n)
    pred = np.where(rng.random(n) < 0.5, truth * 61 % 2000, rng.integers(0, 2000, n))
    for variant in VARIANTS:
        got = fcm.reduced_mutual_info_score(truth, pred, variant=variant)
        want = _theirs(truth, pred, variant, "second")
        assert abs(got - want) <= 1e-10, (variant, got, want)


def _tables_with_margins(rows, cols):
    """How many tables of whole numbers have these row and column sums (by enumeration)."""

    def fill(rows, cols):
        if not rows:
            return 1 if not any(cols) else 0
        first, rest = rows[0], rows[1:]
        found = 0
        for cells in itertools.product(*(range(min(c, first) + 1) for c in cols)):
            if sum(cells) == first:
                found += fill(rest, [c - x for c, x in zip(cols, cells, strict=True)])
        return found

    return fill(list(rows), list(cols))


@pytest.mark.parametrize(
    ("truth", "pred"),
    [([0, 1, 2], [0, 0, 1]), ([0, 1, 2, 3, 4], [0, 0, 1, 1, 1]), ([0, 1, 2, 3], [5, 5, 5, 7])],
)
def test_flat_reduction_is_exact_where_the_truth_is_all_singletons(truth, pred):
    # Every true class a singleton: the number of tables is n! / prod b_j!, counted here.
    sizes = np.unique(pred, return_counts=True)[1]
    omega = _tables_with_margins([1] * len(truth), sizes.tolist())
    assert omega == math.factorial(len(truth)) // math.prod(math.factorial(b) for b in sizes)
    table = fcm.Contingency.from_labels(truth, pred).to_numpy()
    lf = math.lgamma
    mi = (
        lf(len(truth) + 1)
        - sum(lf(a + 1) for a in table.sum(axis=1))
        - sum(lf(b + 1) for b in table.sum(axis=0))
        + sum(lf(x + 1) for x in table.ravel())
    )
    got = fcm.reduced_mutual_info_score(truth, pred, variant="flat", normalization="none")
    assert math.isclose(got, (mi - math.log(omega)) / math.log(2), abs_tol=1e-12)


def test_weights_counts_and_parameters():
    truth, pred = [0, 0, 1, 1, 2], [0, 0, 0, 1, 1]
    w = [2, 1, 3, 1, 1]
    repeated = fcm.reduced_mutual_info_score(np.repeat(truth, w), np.repeat(pred, w))
    assert fcm.reduced_mutual_info_score(truth, pred, sample_weight=w) == repeated
    with pytest.raises(ValueError, match="defined for counts only"):
        fcm.reduced_mutual_info_score(truth, pred, sample_weight=[0.5] * 5)
    with pytest.raises(fcm.InvalidParameterError, match=re.escape("among {'dirichlet', 'flat'}")):
        fcm.reduced_mutual_info_score(truth, pred, variant="reduced")
    with pytest.raises(fcm.InvalidParameterError, match="'normalization' parameter"):
        fcm.reduced_mutual_info_score(truth, pred, normalization="arithmetic")
    scores = fcm.evaluate(truth, pred, metrics=["RMI", "RMI_flat"])
    assert scores["reduced_mutual_info_score"] == fcm.reduced_mutual_info_score(truth, pred)
    assert scores["reduced_mutual_info_score_flat"] == fcm.reduced_mutual_info_score(
        truth, pred, variant="flat"
    )


def test_identical_labelings_score_one_and_random_ones_near_zero():
    rng = np.random.default_rng(9)
    truth = rng.integers(0, 8, 20_000)
    for variant in VARIANTS:
        assert math.isclose(fcm.reduced_mutual_info_score(truth, truth, variant=variant), 1.0)
    # 500 clusters unrelated to 8 classes: NMI credits them with 0.023; the
    # Dirichlet-multinomial reduction gives about 0 (1.4e-5), the flat one overcorrects
    # (-0.041, the bias Jerdee, Kirkley & Newman point out).
    pred = rng.integers(0, 500, truth.size)
    nmi = fcm.normalized_mutual_info_score(truth, pred)
    dirichlet = fcm.reduced_mutual_info_score(truth, pred)
    flat = fcm.reduced_mutual_info_score(truth, pred, variant="flat")
    assert nmi > 0.02
    assert abs(dirichlet) < 1e-3 * nmi * 10
    assert flat < 0
