"""The catalogue of measures is the only list: every entry point takes its names from it, and
the public functions, ``__all__``, the Contingency methods, the README and the documentation's
measures page agree with it."""

import inspect
import math
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics._cli import main as _cli
from fastcluster_metrics._cli import render as cli_render
from fastcluster_metrics._measures import catalogue as _catalogue
from fastcluster_metrics._measures import lookup as _lookup
from fastcluster_metrics._measures.catalogue import MATCHING, MEASURES, Measure

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "fastcluster_metrics"

TRUTH = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 2])
PRED = np.array([0, 0, 1, 1, 1, 1, 2, 2, 3, 3])


# --- the catalogue against the functions, __all__, the methods and the README ----------------


def _scalar_methods() -> set[str]:
    """Contingency methods that give one number and take no required argument."""
    names = set()
    for name, member in inspect.getmembers(fcm.Contingency, inspect.isfunction):
        signature = inspect.signature(member)
        params = list(signature.parameters.values())[1:]
        if (
            not name.startswith("_")
            and signature.return_annotation in ("float", "int")
            and all(p.default is not inspect.Parameter.empty for p in params)
        ):
            names.add(name)
    return names


def test_every_scalar_method_is_in_the_catalogue_and_every_kernel_is_a_method():
    kernels = {row.kernel.__name__ for row in MEASURES.values()}
    assert _scalar_methods() == kernels
    for row in MEASURES.values():
        assert getattr(fcm.Contingency, row.kernel.__name__) is row.kernel, row.name
        if not row.options:
            assert row.kernel.__name__ == row.name, row.name


def test_every_public_function_of_a_measure_is_exported_and_computes_the_row():
    table = fcm.Contingency.from_labels(TRUTH, PRED)
    for row in MEASURES.values():
        name = row.function_name
        if name is None:
            assert row.name not in fcm.__all__
            continue
        assert name in fcm.__all__, name
        value = getattr(fcm, name)(TRUTH, PRED, **row.options)
        assert float(value) == row(table), row.name
        # the function and the method take the row's options as keywords
        accepted = inspect.signature(getattr(fcm, name)).parameters
        assert set(row.options) <= set(accepted), row.name


def test_exported_scalar_functions_are_measures_of_the_catalogue():
    """A public function of two labelings giving one number is a row (or computes one). A
    function that needs more than the two labelings (a tree of their labels) cannot be, and is
    not asked to."""
    functions = {row.function_name for row in MEASURES.values()}
    for name in fcm.__all__:
        member = getattr(fcm, name)
        if not callable(member) or inspect.isclass(member):
            continue
        signature = inspect.signature(member)
        params = list(signature.parameters.values())
        more = [
            p
            for p in params[2:]
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        names = [p.name for p in params[:2]]
        if names == ["labels_true", "labels_pred"] and signature.return_annotation in (
            "float",
            "int",
        ):
            assert name in functions or more, name


def test_parameters_come_from_the_kernels():
    assert MEASURES["pair_f_score"].parameters == {"beta": 1.0}
    assert MEASURES["joint_entropy"].parameters == {"base": math.e}
    assert MEASURES["adjusted_mutual_info_score_max"].parameters == {
        "average_method": "max",
        "random_model": "perm",
    }
    assert MEASURES["adjusted_rand_score_num1"].parameters == {"random_model": "num1"}
    assert MEASURES["pair_sets_index_simplified"].parameters == {
        "simplified": True,
        "clipped": True,
    }
    assert MEASURES["jaccard_index"].parameters == {}


def test_names_are_unique_however_they_are_written():
    keys: dict[str, str] = {}
    for row in MEASURES.values():
        for name in (row.name, *row.short):
            key = _lookup._key(name)
            assert keys.setdefault(key, row.name) == row.name, (name, keys[key], row.name)
        assert row.family in _catalogue.FAMILIES
        assert (row.range is None) == bool(row.unit), row.name


def test_readme_and_the_measures_page_are_the_catalogue():
    """The README counts the catalogue's measures; the documentation's measures page is made
    from the catalogue (its table and one section per measure with its formula:
    ``tests/test_docs.py`` checks them)."""
    readme = (ROOT / "README.md").read_text()
    assert f"all {len(MEASURES)}" in readme
    page = (ROOT / "docs" / "measures.rst").read_text()
    assert ".. fcm-measures::" in page


@pytest.mark.parametrize("row", MEASURES.values(), ids=lambda r: r.name)
def test_values_lie_in_the_declared_range_and_symmetry_holds(row):
    rng = np.random.default_rng(7)
    for trial in range(40):
        n = int(rng.integers(2, 50))
        t = rng.integers(0, int(rng.integers(1, 6)), n)
        p = t.copy() if trial % 5 == 0 else rng.integers(0, int(rng.integers(1, 9)), n)
        value = row(fcm.Contingency.from_labels(t, p))
        if row.range is not None and not math.isnan(value):
            low, high = row.range
            assert low - 1e-12 <= value <= high + 1e-12, (row.name, value)
        if row.symmetric:
            swapped = row(fcm.Contingency.from_labels(p, t))
            assert swapped == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), row.name


# --- one toy row, seen by every entry point --------------------------------------------------


def _toy_kernel(table: fcm.Contingency) -> float:
    """Clusters per class: asymmetric, and never computed by anything else."""
    return table.shape[1] / table.shape[0] if table.shape[0] else math.nan


TOY = Measure("toy_clusters_per_class", _toy_kernel, MATCHING, ("TOY",), range=None, unit="ratio")


@pytest.fixture
def toy():
    with _lookup.register(TOY) as row:
        yield row
    assert "toy_clusters_per_class" not in MEASURES


def test_a_registered_row_reaches_every_entry_point(toy, tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    want = 4 / 3
    assert fcm.evaluate(TRUTH, PRED, metrics=["toy"])["toy_clusters_per_class"] == want
    assert len(fcm.evaluate(TRUTH, PRED, metrics="all")) == len(MEASURES)
    many = fcm.compare_many(TRUTH, {"p": PRED}, metrics="TOY")
    assert many.loc["p", "toy_clusters_per_class"] == want
    matrix = fcm.pairwise({"t": TRUTH, "p": PRED}, metric="Toy")
    assert matrix.loc["t", "p"] == want and matrix.loc["p", "t"] == 3 / 4  # asymmetric
    table = fcm.Contingency.from_labels(TRUTH, PRED)
    assert fcm.bootstrap(table, "toy", n_resamples=5, seed=0).estimate == want

    path = tmp_path / "cells.csv"
    pd.DataFrame({"truth": TRUTH, "pred": PRED}).to_csv(path, index=False)
    status = _cli.main([str(path), "--truth", "truth", "--pred", "pred", "--metrics", "toy,ARI"])
    out = capsys.readouterr().out
    assert status == 0
    lines = out.splitlines()
    assert lines[2].split() == ["prediction", "n", "TOY", "ARI"]
    assert lines[4].split()[:3] == ["pred", "10", "1.3333"]
    assert "TOY" in _cli.parser().format_help()
    assert cli_render.resolve_metrics(["all"])[-1] == "toy_clusters_per_class"


def test_a_registered_row_is_named_in_the_plots(toy):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fastcluster_metrics import plot

    runs = {2: PRED % 2, 4: PRED}
    ax = plot.plot_scores(TRUTH, runs, metrics=["TOY", "ARI"], best="toy", xlabel="k")
    # TOY is unbounded (a ratio): its own panel, below the scores'.
    curves = [[line.get_label() for line in a.get_lines()][:1] for a in ax.figure.axes]
    assert curves == [["ARI"], ["TOY"]]
    assert ax.figure.axes[1].get_ylabel() == "ratio"
    assert ax.get_title().startswith("best k = 4 by TOY")
    plt.close("all")


def test_register_refuses_a_name_taken():
    with pytest.raises(ValueError, match="already in the catalogue"):
        with _lookup.register(MEASURES["adjusted_rand_score"]):
            pass
    assert "adjusted_rand_score" in MEASURES


# --- names everywhere -------------------------------------------------------------------------


def test_short_names_in_any_case_everywhere():
    pd = pytest.importorskip("pandas")
    ari = fcm.adjusted_rand_score(TRUTH, PRED)
    assert fcm.evaluate(TRUTH, PRED, metrics=["ARI"]).to_dict() == {"adjusted_rand_score": ari}
    assert fcm.evaluate(TRUTH, PRED, metrics="ari")["adjusted_rand_score"] == ari
    assert fcm.compare_many(TRUTH, {"p": PRED}, metrics="ARI").loc["p"].tolist() == [ari]
    assert fcm.pairwise({"t": TRUTH, "p": PRED}, metric="ari").loc["t", "p"] == ari
    table = fcm.Contingency.from_labels(TRUTH, PRED)
    assert fcm.bootstrap(table, "ARI", n_resamples=5, seed=0).estimate == ari
    ami = fcm.adjusted_mutual_info_score(TRUTH, PRED)
    assert fcm.permutation_test(table, "ami", n_resamples=5, seed=0).statistic == ami
    acc = fcm.ContingencyAccumulator().update(TRUTH, PRED)
    assert acc.evaluate(["V-measure"]).to_dict() == {
        "v_measure_score": fcm.v_measure_score(TRUTH, PRED)
    }
    frame = pd.DataFrame({"cell_type": TRUTH, "leiden": PRED})
    got = fcm.evaluate_adata(frame, "cell_type", "leiden", metrics=["nmi_max", "Purity"])
    assert list(got.columns) == ["normalized_mutual_info_score_max", "purity_score"]
    assert cli_render.resolve_metrics(["ari,NMI-max"]) == [
        "adjusted_rand_score",
        "normalized_mutual_info_score_max",
    ]


def test_plot_scores_takes_short_names_and_marks_a_distance_at_its_lowest():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fastcluster_metrics import plot

    runs = {1: np.zeros(10, int), 3: TRUTH, 4: PRED}
    ax = plot.plot_scores(TRUTH, runs, metrics=["VI", "ARI"], best="ARI", xlabel="k")
    assert ax.get_title().startswith("best k = 3 by ARI")
    ax = plot.plot_scores(TRUTH, runs, metrics=["VI", "ARI"], best="vi", xlabel="k")
    assert ax.get_title().startswith("best k = 3 by VI (0")  # VI is 0 at the truth: lowest
    plt.close("all")


@pytest.mark.parametrize(
    "call",
    [
        lambda name: fcm.evaluate(TRUTH, PRED, metrics=[name]),
        lambda name: fcm.compare_many(TRUTH, {"p": PRED}, metrics=name),
        lambda name: fcm.pairwise({"t": TRUTH}, metric=name),
        lambda name: fcm.bootstrap(fcm.Contingency.from_labels(TRUTH, PRED), name),
        lambda name: fcm.permutation_test(fcm.Contingency.from_labels(TRUTH, PRED), name),
        lambda name: fcm.ContingencyAccumulator().update(TRUTH, PRED).evaluate([name]),
    ],
)
def test_an_unknown_name_suggests_the_closest_not_the_whole_list(call):
    with pytest.raises(fcm.InvalidParameterError) as raised:
        call("adjusted_rand")
    message = str(raised.value)
    assert "unknown metric 'adjusted_rand'" in message
    assert "did you mean 'adjusted_rand_score' (ARI)" in message
    assert len(message) < 300  # not the 61 names


def test_the_cli_says_an_unknown_name_in_one_line(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    path = tmp_path / "cells.csv"
    pd.DataFrame({"truth": TRUTH, "pred": PRED}).to_csv(path, index=False)
    status = _cli.main([str(path), "--truth", "truth", "--pred", "pred", "--metrics", "AMl"])
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert "\n" not in err and "unknown metric 'AMl'" in err and "(AMI)" in err


def test_plot_scores_labels_its_axis_with_the_catalogues_units():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fastcluster_metrics import plot

    runs = {1: np.zeros(10, int), 3: TRUTH, 4: PRED}
    assert plot.plot_scores(TRUTH, runs, metrics=["ARI", "NMI"]).get_ylabel() == "score"
    assert plot.plot_scores(TRUTH, runs, metrics=["VI", "MI"]).get_ylabel() == "nats"
    figure = plot.plot_scores(TRUTH, runs, metrics=["ARI", "Mirkin"]).figure
    assert [a.get_ylabel() for a in figure.axes] == ["score", "ordered pairs"]
    plt.close("all")


# --- every kind of measure: fcm.measures() and the lists derived from the catalogue ----------


def test_measures_lists_every_public_measure_with_its_kind():
    frame = fcm.measures()
    assert list(frame.index) == list(_catalogue.CATALOGUE)
    assert set(frame["kind"]) <= set(_catalogue.KINDS)
    assert list(frame.columns) == [
        "short_names",
        "kind",
        "family",
        "range",
        "unit",
        "better",
        "adjusted",
        "symmetric",
        "function",
        "options",
        "reference",
    ]
    ari = frame.loc["adjusted_rand_score"]
    assert (ari["kind"], ari["range"], ari["better"], ari["adjusted"]) == (
        "table",
        (-1.0, 1.0),
        "higher",
        True,
    )
    assert "Hubert" in frame.loc["jaccard_index", "reference"]
    assert frame.loc["variation_of_information", "better"] == "lower"
    # every public function of a measure, whatever it reads, is some row's function
    functions = set(frame["function"].dropna())
    assert functions <= set(fcm.__all__)
    soft = {
        "frobenius_rand_score",
        "frobenius_adjusted_rand_score",
        "omega_index",
        "overlapping_normalized_mutual_info_score",
        "extended_bcubed_precision_recall_f",
    }
    assert soft <= functions


@pytest.mark.parametrize("kind", list(_catalogue.KINDS))
def test_measures_of_one_kind(kind):
    frame = fcm.measures(kind)
    assert set(frame["kind"]) <= {kind}
    assert list(frame.index) == [r.name for r in _catalogue.CATALOGUE.values() if r.kind == kind]


def test_measures_of_an_unknown_kind_is_refused():
    with pytest.raises(fcm.InvalidParameterError, match="'kind' parameter of measures"):
        fcm.measures("tables")


def test_the_other_kinds_kernels_compute_their_public_functions():
    from fastcluster_metrics._soft.covers import groups
    from fastcluster_metrics._soft.frobenius import sums

    rng = np.random.default_rng(3)
    p, q = rng.dirichlet(np.ones(3), 50), rng.dirichlet(np.ones(4), 50)
    found = sums("test", p, q, None)
    for row in _catalogue.of_kind(_catalogue.MEMBERSHIPS):
        assert row.kernel(found) == getattr(fcm, row.function_name)(p, q, **row.options)
    a = [set(rng.choice(4, rng.integers(1, 3), replace=False).tolist()) for _ in range(60)]
    b = [set(rng.choice(3, rng.integers(1, 3), replace=False).tolist()) for _ in range(60)]
    g = groups("test", a, b)
    bcubed = dict(
        zip(
            ("extended_bcubed_precision", "extended_bcubed_recall", "extended_bcubed_f"),
            fcm.extended_bcubed_precision_recall_f(a, b),
            strict=True,
        )
    )
    for row in _catalogue.of_kind(_catalogue.COVERS):
        function = getattr(fcm, row.function_name)
        want = bcubed[row.name] if row.name in bcubed else function(a, b, **row.options)
        assert row.kernel(g, **row.options) == want, row.name


def test_the_scib_rows_kernels_compute_their_public_functions():
    """The k-means and PCR rows (two rows of one dict each for k-means and Leiden) give the
    public functions' values."""
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(5)
    labels = np.repeat(np.arange(3), 40)
    x = rng.normal(size=(120, 4)) + labels[:, None] * 3.0
    batches = rng.integers(0, 2, 120)
    found = fcm.nmi_ari_cluster_labels_kmeans(x, labels)
    rows = _catalogue.CATALOGUE
    assert rows["nmi_ari_cluster_labels_kmeans_nmi"].kernel(x, labels) == found["nmi"]
    assert rows["nmi_ari_cluster_labels_kmeans_ari"].kernel(x, labels) == found["ari"]
    post = x + batches[:, None] * 0.5
    assert rows["pcr_comparison"].kernel(post + batches[:, None], post, batches) == (
        fcm.pcr_comparison(post + batches[:, None], post, batches)
    )
    assert rows["principal_component_regression"].kernel(post, batches) == (
        fcm.principal_component_regression(post, batches)
    )
    leiden = rows["nmi_ari_cluster_labels_leiden_ari"]
    assert leiden.kind == _catalogue.GRAPH
    assert leiden.function_name == "nmi_ari_cluster_labels_leiden"
    assert "Leiden" in leiden.kernel.__doc__


def test_the_benchmarks_metrics_and_columns_come_from_the_catalogue():
    """Every metric of scib_benchmark's groups is a row's function; its columns are the rows'
    scib-metrics names, and each graph metric reads a number of neighbours from its row."""
    from fastcluster_metrics._scib import metrics

    functions = {row.function_name for row in _catalogue.CATALOGUE.values() if row.scib_column}
    groups = [f.name for g in (fcm.BioConservation, fcm.BatchCorrection) for f in fields(g)]
    assert set(groups) <= functions
    for row in _catalogue.CATALOGUE.values():
        assert metrics.CLEAN_NAMES.get(row.name, "") == row.scib_column
        if row.scib_column and row.function_name in groups:
            wants_graph = row.kind == _catalogue.GRAPH
            assert (metrics.GRAPH_NEIGHBORS.get(row.function_name, 0) > 0) == wants_graph
    assert metrics.MAX_NEIGHBORS == 90
    assert metrics.GRAPH_NEIGHBORS["kbet_per_label"] == 50


def test_evaluate_names_the_function_of_a_measure_of_another_kind():
    with pytest.raises(fcm.InvalidParameterError, match=r"fastcluster_metrics\.omega_index\("):
        fcm.evaluate(TRUTH, PRED, metrics=["ARI", "Omega"])
    with pytest.raises(fcm.InvalidParameterError, match=r"variant='LFK'"):
        fcm.evaluate(TRUTH, PRED, metrics="ONMI-LFK")


def test_names_of_every_kind_are_unique_however_they_are_written():
    keys: dict[str, str] = {}
    for row in _catalogue.CATALOGUE.values():
        for name in (row.name, *row.short):
            key = _lookup._key(name)
            assert keys.setdefault(key, row.name) == row.name, (name, keys[key], row.name)
        assert row.family in _catalogue.FAMILIES + _catalogue.OTHER_FAMILIES, row.name


def _categories() -> dict[str, set[str]]:
    """The lists the catalogue defines: each kind's measures (and any two kinds' together),
    and the measures with each flag."""
    rows = list(_catalogue.CATALOGUE.values())
    kinds = {k: {r.name for r in rows if r.kind == k} for k in _catalogue.KINDS}
    found = {f"kind {k}": v for k, v in kinds.items()}
    found |= {f"kinds {a} and {b}": kinds[a] | kinds[b] for a in kinds for b in kinds if a < b}
    for flag in (
        "default",
        "in_sklearn",
        "merges",
        "plotted",
        "counts",
        "adjusted",
        "in_scib",
        "scib_column",
        "scib_neighbors",
    ):
        found[flag] = {r.name for r in rows if getattr(r, flag)}
    found["per_sample"] = {r.name for r in rows if r.per_sample is not None}
    return {k: v for k, v in found.items() if len(v) >= 2}


# Lists written out on purpose: each is a specification that a test holds the catalogue (or a
# list derived from it) to, or per-measure data that a test holds to the catalogue.
_SPECIFICATIONS = {
    ("tests/test_evaluate_all.py", "DEFAULT"),  # evaluate's defaults, as documented
    ("tests/test_catalogue.py", "soft"),  # the public soft functions
    ("benches/test_bench_metrics.py", "METRICS"),  # held to sklearn.metrics.cluster's
    ("docs/formulas.py", "FORMULAS"),  # tests/test_docs.py holds these to the catalogue
    ("docs/formulas.py", "PER_SAMPLE"),
    ("docs/formulas.py", "OTHER_FORMULAS"),
}


def test_no_list_of_measure_names_is_written_by_hand():
    """A list, tuple, set or dict of names that is one of the catalogue's lists (a kind's
    measures, evaluate's defaults, scikit-learn's, ...) is a second copy of it, bound to
    disagree: derive it from the catalogue. ``__all__`` lists, the specifications above, and
    oracles (a dict from each name to the peer's function computing it) are the exceptions."""
    import ast

    names = {n for r in _catalogue.CATALOGUE.values() for n in (r.name, *r.short)}
    categories = _categories()
    stray = []
    for folder in ("python", "tests", "benches", "docs"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            if where.endswith("_measures/catalogue.py"):
                continue
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if not isinstance(node, ast.Assign | ast.AnnAssign):
                    continue
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                target = {t.id for t in targets if isinstance(t, ast.Name)}
                if "__all__" in target or any((where, t) in _SPECIFICATIONS for t in target):
                    continue
                for display in ast.walk(node):
                    if not isinstance(display, ast.List | ast.Tuple | ast.Set | ast.Dict):
                        continue
                    if isinstance(display, ast.Dict) and not all(
                        isinstance(v, ast.Constant) for v in display.values
                    ):
                        continue  # an oracle: each name's own computation
                    items = display.keys if isinstance(display, ast.Dict) else display.elts
                    written = {
                        e.value
                        for e in items
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    } & names
                    for category, members in categories.items():
                        if members == written:
                            stray.append(f"{where}:{display.lineno} writes out {category}")
    assert not stray, "\n".join(stray)


def test_the_stray_list_check_finds_a_hand_written_list(tmp_path, monkeypatch):
    """The check above fails on a copy of a kind's names, as ``_cli/soft.py`` once had."""
    copy = {row.name: row.label for row in _catalogue.of_kind(_catalogue.MEMBERSHIPS)}
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "stray.py").write_text(f"MEASURES = {copy!r}\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    with pytest.raises(AssertionError, match=r"stray\.py:1 writes out kind memberships"):
        test_no_list_of_measure_names_is_written_by_hand()
