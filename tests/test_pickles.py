"""Pickles written by 0.1.0 (tests/data/pickles-0.1.0, before the modules were grouped into
subpackages) load with today's code, and today's pickles name the public classes by the package
itself, whichever private module defines them."""

import pickle
import pickletools
from pathlib import Path

import numpy as np
import pytest

import fastcluster_metrics as fcm

DATA = Path(__file__).parent / "data" / "pickles-0.1.0"

# The labels and weights the committed pickles were made of.
TRUE = ["b", "a", "a", "c", "c", "c", "b", "a", "c", "b"]
PRED = [1, 1, 0, 2, 2, 0, 1, 1, 2, 0]
WEIGHTS = [0.5, 1.0, 2.25, 1.0, 0.75, 1.5, 1.0, 0.5, 3.0, 1.25]


def _load(name):
    if np.__version__.startswith("1."):
        pytest.skip(f"the pickles name numpy 2's numpy._core, which numpy {np.__version__} has not")
    return pickle.loads((DATA / f"{name}.pickle").read_bytes())


def _modules(blob):
    """The fastcluster_metrics modules a pickle names."""
    return {a for _, a, _ in pickletools.genops(blob) if isinstance(a, str) and "fastcluster" in a}


def _same_table(a, b):
    assert a.classes.tolist() == b.classes.tolist()
    assert a.clusters.tolist() == b.clusters.tolist()
    assert np.array_equal(a.to_numpy(), b.to_numpy())
    assert a.n == b.n
    for name in ("adjusted_rand_score", "normalized_mutual_info_score", "purity_score"):
        assert getattr(a, name)() == getattr(b, name)()


def test_the_committed_pickles_name_the_old_flat_modules():
    # what makes them a test of loading: they do not name today's modules
    named = set().union(*(_modules(p.read_bytes()) for p in DATA.glob("*.pickle")))
    assert named == {
        "fastcluster_metrics._contingency",
        "fastcluster_metrics._evaluate",
        "fastcluster_metrics._stream",
        "fastcluster_metrics._uncertainty",
    }


def test_contingency_pickles_of_0_1_0_load():
    _same_table(_load("contingency"), fcm.Contingency.from_labels(TRUE, PRED))
    weighted = _load("contingency_weighted")
    _same_table(weighted, fcm.Contingency.from_labels(TRUE, PRED, sample_weight=WEIGHTS))
    assert weighted.n == pytest.approx(sum(WEIGHTS))
    assert weighted.to_numpy().dtype == np.float64


@pytest.mark.parametrize("weights", [None, WEIGHTS])
def test_accumulator_pickles_of_0_1_0_load_and_go_on_counting(weights):
    acc = _load("accumulator" if weights is None else "accumulator_weighted")
    assert isinstance(acc, fcm.ContingencyAccumulator)
    _same_table(acc.table, fcm.Contingency.from_labels(TRUE, PRED, sample_weight=weights))
    more = {} if weights is None else {"sample_weight": weights}
    acc.update(TRUE, PRED, **more)
    twice = {} if weights is None else {"sample_weight": weights + weights}
    _same_table(acc.table, fcm.Contingency.from_labels(TRUE + TRUE, PRED + PRED, **twice))


def test_evaluation_and_resampling_pickles_of_0_1_0_load():
    evaluation = _load("evaluation")
    metrics = ["adjusted_rand_score", "purity_score"]
    assert evaluation.to_dict() == fcm.evaluate(TRUE, PRED, metrics=metrics).to_dict()
    assert evaluation.n == len(TRUE)
    table = fcm.Contingency.from_labels(TRUE, PRED)
    boot = _load("bootstrap")
    again = fcm.bootstrap(table, "adjusted_rand_score", n_resamples=20, seed=0)
    assert np.array_equal(boot.replicates, again.replicates)
    assert (boot.low, boot.high) == (again.low, again.high)
    perm = _load("permutation")
    again = fcm.permutation_test(table, "adjusted_rand_score", n_resamples=20, seed=0)
    assert np.array_equal(perm.null_distribution, again.null_distribution)
    assert perm.pvalue == again.pvalue


def test_todays_pickles_name_the_package_not_a_private_module():
    table = fcm.Contingency.from_labels(TRUE, PRED)
    acc = fcm.ContingencyAccumulator().update(TRUE, PRED)
    objects = [
        table,
        fcm.Contingency.from_labels(TRUE, PRED, sample_weight=WEIGHTS),
        acc,
        fcm.evaluate(TRUE, PRED, metrics=["ARI"]),
        fcm.bootstrap(table, "adjusted_rand_score", n_resamples=5, seed=0),
        fcm.permutation_test(table, "adjusted_rand_score", n_resamples=5, seed=0),
        fcm.InvalidParameterError("x"),
    ]
    for obj in objects:
        blob = pickle.dumps(obj)
        assert _modules(blob) == {"fastcluster_metrics"}, type(obj)
        assert type(pickle.loads(blob)) is type(obj)
