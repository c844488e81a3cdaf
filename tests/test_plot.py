"""fastcluster_metrics.plot: each picture shows the numbers of the table, and renders to PNG."""

import doctest
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.image  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import fastcluster_metrics as fcm  # noqa: E402
from fastcluster_metrics import plot  # noqa: E402

TRUTH = ["a", "a", "a", "b", "b", "c", "c", "c", "c"]
PRED = [7, 7, 3, 3, 3, 1, 1, 1, 7]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _png(ax, path):
    """Renders the figure of ``ax`` to ``path`` and checks that it is a non-blank PNG."""
    ax.figure.savefig(path, dpi=60)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = matplotlib.image.imread(path)
    assert pixels.ndim == 3
    assert pixels.shape[0] > 100
    assert pixels.shape[1] > 100
    assert pixels[..., :3].std() > 0.05  # something is drawn
    return pixels


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def _ticks(labels):
    return [t.get_text() for t in labels]


# --- contingency heatmap --------------------------------------------------------------------


def test_contingency_heatmap_counts_and_order(tmp_path):
    ax = plot.plot_contingency(TRUTH, PRED)
    table = fcm.Contingency.from_labels(TRUTH, PRED)
    # Clusters follow the class holding most of each: 7 (mostly a), 3 (b), 1 (c).
    assert _ticks(ax.get_xticklabels()) == ["7", "3", "1"]
    assert _ticks(ax.get_yticklabels()) == ["a", "b", "c"]
    shown = ax.images[0].get_array()
    counts = table.to_numpy()[:, [2, 1, 0]]  # clusters 1, 3, 7 -> 7, 3, 1
    np.testing.assert_allclose(shown, counts / counts.sum(axis=1, keepdims=True))
    # Every non-zero count is written in its cell, row by row.
    assert _texts(ax) == [str(v) for v in counts[counts > 0]]
    assert ax.get_xlabel() == "predicted cluster"
    _png(ax, tmp_path / "contingency.png")


def test_contingency_normalisations():
    counts = fcm.contingency_matrix(TRUTH, PRED)[:, [2, 1, 0]]
    by_column = plot.plot_contingency(TRUTH, PRED, normalize="column").images[0].get_array()
    np.testing.assert_allclose(by_column, counts / counts.sum(axis=0, keepdims=True))
    raw = plot.plot_contingency(TRUTH, PRED, normalize=None, order="sorted").images[0]
    np.testing.assert_array_equal(raw.get_array(), fcm.contingency_matrix(TRUTH, PRED))
    assert raw.get_clim() == (0.0, 3.0)


def test_contingency_from_a_table_on_given_axes():
    table = fcm.Contingency.from_labels(TRUTH, PRED)
    figure = Figure()
    ax = figure.subplots()
    out = plot.plot_contingency(table, ax=ax, title="t", xlabel="x", ylabel="y", colorbar=False)
    assert out is ax
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("t", "x", "y")
    assert len(figure.axes) == 1  # no colour bar
    assert _texts(ax) == _texts(plot.plot_contingency(TRUTH, PRED))


def test_contingency_numbers_as_text_in_numeric_order():
    truth = np.array(["10", "2", "2", "1", "10"], dtype=object)
    pred = ["x", "y", "y", "z", "x"]
    ax = plot.plot_contingency(truth, pred, order="sorted")
    assert _ticks(ax.get_yticklabels()) == ["1", "2", "10"]


def test_contingency_large_table_not_annotated(tmp_path):
    rng = np.random.default_rng(0)
    truth, pred = rng.integers(0, 21, 3000), rng.integers(0, 20, 3000)  # 420 cells > 400
    ax = plot.plot_contingency(truth, pred)
    assert _texts(ax) == []
    assert ax.images[0].get_array().shape == (21, 20)
    assert len(plot.plot_contingency(truth, pred, annotate=True).texts) == np.count_nonzero(
        fcm.contingency_matrix(truth, pred)
    )
    _png(ax, tmp_path / "large.png")


def test_contingency_with_missing_labels():
    truth = np.array(["a", None, "b", "b"], dtype=object)
    ax = plot.plot_contingency(truth, [0, 0, 1, 1], missing="cluster", order="sorted")
    assert _ticks(ax.get_yticklabels()) == ["a", "b", "<NA>"]
    with pytest.raises(ValueError, match="missing labels"):
        plot.plot_contingency(truth, [0, 0, 1, 1])


def test_contingency_bad_arguments():
    table = fcm.Contingency.from_labels(TRUTH, PRED)
    with pytest.raises(ValueError, match="normalize"):
        plot.plot_contingency(TRUTH, PRED, normalize="all")
    with pytest.raises(ValueError, match="order"):
        plot.plot_contingency(TRUTH, PRED, order="size")
    with pytest.raises(ValueError, match="annotate"):
        plot.plot_contingency(TRUTH, PRED, annotate="yes")
    with pytest.raises(TypeError, match="without labels_pred"):
        plot.plot_contingency(table, PRED)
    with pytest.raises(TypeError, match="labels_pred"):
        plot.plot_contingency(TRUTH)


# --- scores against a parameter ---------------------------------------------------------------


def _runs():
    """Four classes; k-clusterings that merge them (k < 4) or split them (k > 4), with noise."""
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 4, 400)
    halves = rng.integers(0, 2, 400)
    exact = {
        2: truth // 2,
        3: np.minimum(truth, 2),
        4: truth,
        5: np.where((truth == 0) & (halves == 1), 4, truth),
        6: np.where((truth <= 1) & (halves == 1), truth + 4, truth),
    }
    noisy = rng.random(400) < 0.05  # the same samples mislabelled in every run
    wrong = rng.integers(0, 60, int(noisy.sum()))
    runs = {}
    for k, pred in exact.items():
        pred = pred.copy()
        pred[noisy] = wrong % k
        runs[k] = pred
    return truth, runs


def test_scores_curves_and_best(tmp_path):
    truth, runs = _runs()
    scores = fcm.compare_many(truth, runs)
    ax = plot.plot_scores(truth, runs, best="adjusted_mutual_info_score", xlabel="k")
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines)[:7] == ["ARI", "AMI", "NMI", "homogeneity", "completeness", "FMI", "purity"]
    np.testing.assert_array_equal(lines["ARI"].get_xdata(), [2, 3, 4, 5, 6])
    np.testing.assert_allclose(lines["AMI"].get_ydata(), scores["adjusted_mutual_info_score"])
    best = int(scores["adjusted_mutual_info_score"].idxmax())
    assert best == 4
    assert (
        ax.get_title() == f"best k = 4 by AMI ({scores.loc[4, 'adjusted_mutual_info_score']:.4g})"
    )
    star = [line for line in ax.get_lines() if line.get_marker() == "*"]
    assert [list(star[0].get_xdata()), list(star[0].get_ydata())] == [
        [4.0],
        [scores.loc[4, "adjusted_mutual_info_score"]],
    ]
    _png(ax, tmp_path / "scores.png")


def test_scores_from_a_frame_or_mapping():
    truth, runs = _runs()
    frame = fcm.compare_many(truth, runs, metrics=["rand_score", "purity_score"])
    frame.index.name = "resolution"
    ax = plot.plot_scores(frame)
    assert [line.get_label() for line in ax.get_lines()] == ["Rand", "purity"]
    assert ax.get_xlabel() == "resolution"
    evaluations = {k: fcm.evaluate(truth, pred, metrics=["rand_score"]) for k, pred in runs.items()}
    ax = plot.plot_scores(evaluations, metrics=["rand_score"])
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), frame["rand_score"])
    assert ax.get_xlabel() == "parameter"


def test_scores_with_names_as_categories():
    frame = pd.DataFrame(
        {"adjusted_rand_score": [0.2, 0.9, 0.5]}, index=["louvain", "leiden", "km"]
    )
    ax = plot.plot_scores(frame, best="adjusted_rand_score")
    assert _ticks(ax.get_xticklabels()) == ["louvain", "leiden", "km"]
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), [0, 1, 2])
    assert ax.get_title() == "best parameter = leiden by ARI (0.9)"


def test_scores_bad_arguments():
    frame = pd.DataFrame({"rand_score": [0.5]}, index=[1])
    with pytest.raises(ValueError, match="no scores for"):
        plot.plot_scores(frame, metrics=["purity_score"])
    with pytest.raises(ValueError, match="best="):
        plot.plot_scores(frame, best="purity_score")
    with pytest.raises(TypeError, match="DataFrame of scores"):
        plot.plot_scores([0.5, 0.6])


# --- pair confusion ---------------------------------------------------------------------------


def test_pair_confusion_counts(tmp_path):
    pairs = fcm.pair_confusion_matrix(TRUTH, PRED)
    ax = plot.plot_pair_confusion(TRUTH, PRED)
    numbers = [int(text.split("\n")[-2].replace(",", "")) for text in _texts(ax)]
    assert numbers == pairs.ravel().tolist()
    shares = ax.images[0].get_array()
    np.testing.assert_allclose(shares, pairs / pairs.sum(axis=1, keepdims=True))
    rand, ari = fcm.rand_score(TRUTH, PRED), fcm.adjusted_rand_score(TRUTH, PRED)
    assert ax.get_title() == f"pairs of samples: Rand {rand:.4f}, ARI {ari:.4f}"
    assert _ticks(ax.get_xticklabels()) == ["apart", "together"]
    _png(ax, tmp_path / "pairs.png")


def test_pair_confusion_of_a_large_table():
    n = 10**6
    truth = np.repeat(np.arange(4), n // 4)
    table = fcm.Contingency.from_labels(truth, truth % 2)
    ax = plot.plot_pair_confusion(table, title="big")
    assert ax.get_title() == "big"
    tn = table.pair_confusion_matrix()[0, 0]
    assert _texts(ax)[0].split("\n")[1] == f"{tn:.3g}"  # large counts in short form


# --- the module -------------------------------------------------------------------------------


def test_docstring_examples():
    result = doctest.testmod(plot, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 10
    assert result.failed == 0


def test_imports_are_lazy():
    code = (
        "import sys, fastcluster_metrics\n"
        "assert 'fastcluster_metrics.plot' not in sys.modules\n"
        "assert 'fastcluster_metrics._cli' not in sys.modules\n"
        "import fastcluster_metrics.plot, fastcluster_metrics._cli\n"
        "heavy = {'matplotlib', 'pandas', 'anndata', 'pyarrow', 'tqdm', 'sklearn'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
