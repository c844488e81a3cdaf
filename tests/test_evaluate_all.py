"""evaluate(metrics="all"), the catalogue's module-level functions, and their docstrings."""

import doctest
import inspect
import math
import subprocess
import sys

import numpy as np
import pytest
from helpers import same

import fastcluster_metrics as fcm
from fastcluster_metrics._many import uncertainty as _uncertainty
from fastcluster_metrics._measures import catalogue as _catalogue
from fastcluster_metrics._measures import diagnostics as _diagnostics
from fastcluster_metrics._measures import evaluate as _evaluate
from fastcluster_metrics._measures import functions as _functions
from fastcluster_metrics._measures import lookup as _lookup

DEFAULT = [
    "adjusted_rand_score",
    "rand_score",
    "adjusted_mutual_info_score",
    "normalized_mutual_info_score",
    "mutual_info_score",
    "homogeneity_score",
    "completeness_score",
    "v_measure_score",
    "fowlkes_mallows_score",
    "purity_score",
]
# catalogue names that are a function with an option: name -> (function, keyword arguments)
VARIANTS = {
    **{
        f"{f}_{m}": (f, {"average_method": m})
        for f in ("normalized_mutual_info_score", "adjusted_mutual_info_score")
        for m in ("min", "geometric", "max")
    },
    "pair_sets_index_simplified": ("pair_sets_index", {"simplified": True}),
    "best_match_f1_score_macro": ("best_match_f1_score", {"average": "macro"}),
    "reduced_mutual_info_score_flat": ("reduced_mutual_info_score", {"variant": "flat"}),
    **{
        f"adjusted_rand_score_{m}": ("adjusted_rand_score", {"random_model": m})
        for m in ("num1", "all1", "num", "all")
    },
    **{
        f"adjusted_mutual_info_score_{m}": ("adjusted_mutual_info_score", {"random_model": m})
        for m in ("num1", "all1")
    },
}
# entropies of one labeling are methods only (fcm.entropy takes one labeling)
METHODS_ONLY = {"entropy_true", "entropy_pred"}

LABELINGS = [
    ([0, 0, 1, 1, 2, 2, 2, 3], [0, 0, 0, 1, 1, 2, 2, 2]),
    (list("aabbbcccdd"), [5, 5, 5, 6, 6, 7, 7, 7, 8, 9]),
    ([0, 1, 2, 3, 4, 5], [0, 0, 0, 1, 1, 1]),
]


def expected_value(name, true, pred):
    if name in METHODS_ONLY:
        return getattr(fcm.Contingency.from_labels(true, pred), name)()
    function, kwargs = VARIANTS.get(name, (name, {}))
    return float(getattr(fcm, function)(true, pred, **kwargs))


@pytest.mark.parametrize(("true", "pred"), LABELINGS)
def test_evaluate_all_equals_each_function(true, pred):
    scores = fcm.evaluate(true, pred, metrics="all")
    assert list(scores) == list(_catalogue.MEASURES)
    assert len(scores) > 60
    for name, value in scores.items():
        expected = expected_value(name, true, pred)
        assert type(value) is float, name
        assert same(value, expected), name


def test_every_name_is_a_function_or_a_variant():
    for name in _catalogue.MEASURES:
        if name in METHODS_ONLY:
            assert callable(getattr(fcm.Contingency, name))
        else:
            assert callable(getattr(fcm, VARIANTS.get(name, (name, {}))[0])), name


def test_default_set_is_unchanged():
    assert list(_lookup.default_names()) == DEFAULT
    assert check_metrics(None) == DEFAULT
    assert list(fcm.evaluate([0, 1], [0, 0])) == DEFAULT
    # compare_many takes any catalogue name
    truth, pred = [0, 0, 1, 1], [0, 1, 1, 1]
    many = fcm.compare_many(truth, {"p": pred}, metrics=["kendall_tau"])
    assert many.loc["p", "kendall_tau"] == fcm.kendall_tau(truth, pred)
    assert "kendall_tau" not in _lookup.default_names()


def check_metrics(metrics):
    return [m.name for m in _lookup.resolve_all(metrics, "evaluate")]


def test_check_metrics():
    assert check_metrics("all") == list(_catalogue.MEASURES)
    assert check_metrics("kendall_tau") == ["kendall_tau"]
    assert check_metrics(("mirkin_metric", "rand_score")) == [
        "mirkin_metric",
        "rand_score",
    ]
    with pytest.raises(fcm.InvalidParameterError, match=r"unknown metric 'al' for evaluate"):
        check_metrics("al")


def test_compare_many_with_the_catalogue():
    pd = pytest.importorskip("pandas")
    truth = [0, 0, 1, 1, 2, 2]
    preds = {"a": [0, 0, 1, 1, 1, 2], "b": [0, 1, 0, 1, 0, 1]}
    frame = fcm.compare_many(truth, preds, metrics=["kendall_tau", "pair_sets_index"])
    expected = pd.DataFrame(
        [[fcm.kendall_tau(truth, p), fcm.pair_sets_index(truth, p)] for p in preds.values()],
        index=list(preds),
        columns=["kendall_tau", "pair_sets_index"],
    )
    pd.testing.assert_frame_equal(frame, expected)
    assert list(fcm.compare_many(truth, preds, metrics="all").columns) == list(_catalogue.MEASURES)


def test_evaluate_all_on_empty_labels():
    scores = fcm.evaluate([], [], metrics="all")
    assert math.isnan(scores["variation_of_information"])  # raises alone: nan here
    assert math.isnan(scores["mutual_info_score"])
    assert scores["pair_sets_index"] == 1.0
    with pytest.raises(ValueError, match="empty contingency table"):
        fcm.variation_of_information([], [])


def test_one_pass_for_all(monkeypatch):
    """evaluate counts the labels once, whatever the metrics."""
    calls = []
    real = _evaluate.count_labels

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_evaluate, "count_labels", counting)
    fcm.evaluate([0, 0, 1], [0, 1, 1], metrics="all")
    assert calls == [1]


# --- the module-level functions ------------------------------------------------------------------

LABELS_AND_MISSING = [
    ("labels_true", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
    ("labels_pred", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
    ("missing", inspect.Parameter.KEYWORD_ONLY, "raise"),
    ("sample_weight", inspect.Parameter.KEYWORD_ONLY, None),
    ("class_weight", inspect.Parameter.KEYWORD_ONLY, None),
]


@pytest.mark.parametrize("name", _functions.__all__)
def test_function_equals_method(name):
    function = getattr(fcm, name)
    assert function is getattr(_functions, name)
    assert function.__name__ == name and function.__module__ == "fastcluster_metrics"
    method = getattr(fcm.Contingency, name)
    params = [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]
    options = [
        (p.name, p.kind, p.default)
        for p in inspect.signature(method).parameters.values()
        if p.kind is p.KEYWORD_ONLY
    ]
    assert params == LABELS_AND_MISSING + options
    assert inspect.getdoc(method).split("\n")[0] in function.__doc__
    true, pred = ["a", "a", "b", None, "c", "c"], [0, 0, 0, 1, 1, 2]
    ours = function(true, pred, missing="drop")
    expected = getattr(fcm.Contingency.from_labels(true, pred, missing="drop"), name)()
    if name in ("class_report", "cluster_report"):
        assert ours.equals(expected)
    elif name == "best_match_f1_per_class":
        np.testing.assert_array_equal(ours, expected)
    else:
        assert ours == expected or (math.isnan(ours) and math.isnan(expected))
        assert type(ours) is type(expected)


@pytest.mark.parametrize("name", ["jaccard_index", "variation_of_information", "class_report"])
def test_function_parameter_errors(name):
    function = getattr(fcm, name)
    with pytest.raises(fcm.InvalidParameterError, match=f"'missing' parameter of {name}"):
        function([0, 1], [0, 1], missing="ignore")
    with pytest.raises(fcm.InvalidParameterError, match=f"'labels_true' parameter of {name}"):
        function(3, [0, 1])
    with pytest.raises(ValueError, match="missing"):
        function([0.0, np.nan], [0, 1])
    with pytest.raises(TypeError):
        function([0, 1], [0, 1], "drop")  # missing is keyword-only


def test_function_options():
    true, pred = [0, 0, 1, 1, 2], [0, 0, 1, 2, 2]
    assert fcm.variation_of_information(true, pred, base=2) == pytest.approx(
        fcm.variation_of_information(true, pred) / math.log(2)
    )
    assert fcm.pair_f_score(true, pred, beta=0.0) == fcm.pair_precision(true, pred)
    assert fcm.pair_sets_index(true, pred, simplified=True, clipped=False) == (
        fcm.Contingency.from_labels(true, pred).pair_sets_index(simplified=True, clipped=False)
    )
    with pytest.raises(ValueError, match="'base' parameter of variation_of_information"):
        fcm.variation_of_information(true, pred, base=1)


# --- docstrings and imports -----------------------------------------------------------------------


@pytest.mark.parametrize("module", [_functions, _diagnostics, _uncertainty])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_public_names():
    for name in [*_functions.__all__, *_uncertainty.__all__]:
        assert name in fcm.__all__, name
        assert getattr(fcm, name) is getattr(
            _functions if name in _functions.__all__ else _uncertainty, name
        )


def test_import_stays_light():
    code = (
        "import sys, fastcluster_metrics; "
        "heavy = {'pandas', 'scipy', 'genieclust', 'permetrics', 'sklearn'} & set(sys.modules); "
        "print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
