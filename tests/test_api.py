"""The public API is scikit-learn's: names, signatures, defaults, return types."""

import inspect
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers import LABEL_FUNCTIONS, sklearn_function

import fastcluster_metrics as fcm

SKLEARN_NAMES = [name for name in LABEL_FUNCTIONS if name != "purity_score"] + ["entropy"]


def _parameters(fn):
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


# Our additions to every metric: keyword-only, after scikit-learn's parameters.
EXTRA = [
    ("missing", inspect.Parameter.KEYWORD_ONLY, "raise"),
    ("sample_weight", inspect.Parameter.KEYWORD_ONLY, None),
    ("class_weight", inspect.Parameter.KEYWORD_ONLY, None),
]


@pytest.mark.parametrize("name", SKLEARN_NAMES)
def test_signature_is_sklearns(name):
    assert callable(getattr(fcm, name))
    # entropy has one labeling: no classes to weigh.
    extra = EXTRA[:2] if name == "entropy" else EXTRA
    if name in ("adjusted_rand_score", "adjusted_mutual_info_score"):
        # The random model of Gates and Ahn (2017) the score is adjusted under.
        extra = [*extra, ("random_model", inspect.Parameter.KEYWORD_ONLY, "perm")]
    assert _parameters(getattr(fcm, name)) == _parameters(sklearn_function(name)) + extra


def test_purity_score_signature():
    kinds = inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert _parameters(fcm.purity_score) == [
        ("labels_true", kinds, inspect.Parameter.empty),
        ("labels_pred", kinds, inspect.Parameter.empty),
        *EXTRA,
    ]


def test_keywords_are_keyword_only():
    with pytest.raises(TypeError):
        fcm.normalized_mutual_info_score([0, 1], [0, 1], "max")
    with pytest.raises(TypeError):
        fcm.v_measure_score([0, 1], [0, 1], 2.0)
    with pytest.raises(TypeError):
        fcm.contingency_matrix([0, 1], [0, 1], 0.1)


def test_labels_by_keyword():
    assert fcm.adjusted_rand_score(labels_pred=[0, 0, 1], labels_true=[1, 1, 0]) == 1.0
    assert fcm.purity_score(labels_true=[0, 0, 1], labels_pred=[0, 0, 0]) == pytest.approx(2 / 3)
    assert fcm.entropy(labels=[0, 1]) == pytest.approx(np.log(2))


def test_entropy_is_not_deprecated():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fcm.entropy([0, 0, 42.0])
    assert caught == []
    assert value == pytest.approx(0.6365141, abs=1e-6)


# The functions that return one float.
SCORES = [
    name
    for name in LABEL_FUNCTIONS
    if name
    not in ("contingency_matrix", "pair_confusion_matrix", "homogeneity_completeness_v_measure")
]


@pytest.mark.parametrize("name", SCORES)
@pytest.mark.parametrize(
    ("labels_true", "labels_pred"),
    [([0, 0, 1, 1], [0, 1, 1, 1]), ([0], [0]), ([3, 3], [1, 2]), (np.arange(5), np.zeros(5))],
)
def test_scores_are_python_floats(name, labels_true, labels_pred):
    assert type(getattr(fcm, name)(labels_true, labels_pred)) is float


def test_other_return_types():
    labels_true, labels_pred = [0, 0, 1, 1, 2], [0, 1, 1, 1, 2]
    hcv = fcm.homogeneity_completeness_v_measure(labels_true, labels_pred)
    assert type(hcv) is tuple
    assert [type(x) for x in hcv] == [float, float, float]
    counts = fcm.pair_confusion_matrix(labels_true, labels_pred)
    assert type(counts) is np.ndarray
    assert counts.dtype == np.int64
    assert counts.shape == (2, 2)
    assert type(fcm.entropy(labels_true)) is float
    table = fcm.contingency_matrix(labels_true, labels_pred)
    assert type(table) is np.ndarray
    assert table.dtype == np.int64


def test_pair_confusion_matrix_is_exact_int64():
    """Our pair counts are exact integers (scikit-learn's n**2 overflows int64 past ~3e9
    samples); for any n they must equal the exact counts, in an int64 array."""
    rng = np.random.default_rng(3)
    labels_true = rng.integers(0, 3, 100_000)
    labels_pred = rng.integers(0, 2, 100_000)
    counts = fcm.pair_confusion_matrix(labels_true, labels_pred)
    assert counts.dtype == np.int64
    n = 100_000
    assert int(counts.sum()) == n * (n - 1)
    np.testing.assert_array_equal(
        counts, sklearn_function("pair_confusion_matrix")(labels_true, labels_pred)
    )


@pytest.mark.skipif(sys.platform == "win32", reason="extension modules there end in .pyd")
def test_the_extension_is_built_for_the_stable_abi():
    # One wheel for every CPython from 3.10 on (PyO3's abi3-py310): the module's file is
    # _native.abi3.so, not _native.cpython-3XX-<platform>.so.
    from fastcluster_metrics import _native

    assert Path(_native.__file__).name == "_native.abi3.so"


def test_the_release_workflow_builds_one_abi3_wheel_per_platform():
    """The maintainer's release workflow: wheels for manylinux, musllinux, Windows and macOS
    and the sdist, published on a version tag; no free-threaded builds, which the stable ABI
    the extension is built for does not cover."""
    yaml = pytest.importorskip("yaml")
    root = Path(__file__).resolve().parents[1]
    workflow = yaml.safe_load((root / ".github/workflows/release.yml").read_text())
    assert {"linux", "musllinux", "windows", "macos", "sdist", "release"} <= set(workflow["jobs"])
    assert workflow[True]["push"]["tags"] == ["v*"]  # YAML reads the key `on` as True
    text = (root / ".github/workflows/release.yml").read_text()
    assert "3.14t" not in text and "PyO3/maturin-action" in text
    cargo = (root / "Cargo.toml").read_text()
    assert '"abi3-py310"' in cargo
