"""fastcluster_metrics.plot: each picture shows the numbers of the table, and renders to PNG."""

import doctest
import itertools
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.image  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import colors as plot_colors  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import fastcluster_metrics as fcm  # noqa: E402
from fastcluster_metrics import plot  # noqa: E402
from fastcluster_metrics._utils import natural as _natural  # noqa: E402
from fastcluster_metrics.plot import _heatmap, _score_plot  # noqa: E402
from fastcluster_metrics.plot._heatmap import MIXED  # noqa: E402

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


def _curves(ax):
    """The labels of the curves of ``ax`` (not of the best value's star and line)."""
    return [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]


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
    assert raw.get_clim() == (0.03, 3.0)  # log: two decades below the largest count
    assert raw.get_array().mask.tolist() == (fcm.contingency_matrix(TRUTH, PRED) == 0).tolist()
    linear = plot.plot_contingency(TRUTH, PRED, normalize=None, norm="linear").images[0]
    assert linear.get_clim() == (0.0, 3.0)
    with pytest.raises(ValueError, match="norm"):
        plot.plot_contingency(TRUTH, PRED, norm="cubic")


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


def _noise_clusters(n=20_000, seed=0):
    """Ten classes, each in its own cluster, and 31 % of the samples in ten clusters of noise
    (about 3 % of the samples each, drawn from every class): purity 0.74, ARI 0.6."""
    rng = np.random.default_rng(seed)
    classes = rng.integers(0, 10, n)
    truth = np.array([f"celltype_{c}" for c in classes], dtype=object)
    pred = np.array([f"c{c}" for c in classes], dtype=object)
    noise = rng.random(n) < 0.31
    pred[noise] = [f"noise_{k}" for k in rng.integers(0, 10, int(noise.sum()))]
    return truth, pred


def test_noise_clusters_show_under_the_default_colour_scale(tmp_path):
    truth, pred = _noise_clusters()
    ax = plot.plot_contingency(truth, pred)
    image = ax.images[0]
    names = _ticks(ax.get_xticklabels())
    # The ten clusters that no class holds half of come last, their labels in orange.
    assert names[:10] == [f"c{k}" for k in range(10)]
    assert sorted(names[10:]) == sorted(f"noise_{k}" for k in range(10))
    assert {plot_colors.to_hex(t.get_color()) for t in ax.get_xticklabels()[10:]} == {
        plot_colors.to_hex(MIXED)
    }
    shares = image.get_array()
    noise = np.asarray(shares[:, 10:])  # each about 3 % of its class
    assert 0.02 < noise.min() and noise.max() < 0.06
    # On the default (log) scale they sit a fifth of the way up or more, clearly not white;
    # a linear scale would put them within a twentieth of the bottom.
    assert float(image.norm(noise.min())) > 0.2
    linear = plot.plot_contingency(truth, pred, norm="linear").images[0]
    assert float(linear.norm(noise.max())) < 0.1
    tone = np.asarray(image.cmap(image.norm(noise.min())))[:3]
    assert np.abs(tone - 1.0).max() > 0.3  # far from the white of empty cells
    assert tuple(image.cmap.get_bad()[:3]) == (1.0, 1.0, 1.0)
    assert shares.mask[0, 1]  # an empty cell: drawn white
    _png(ax, tmp_path / "noise.png")


def test_marginal_bars_are_the_cluster_and_class_sizes():
    truth, pred = _noise_clusters(n=3000)
    table = fcm.Contingency.from_labels(truth, pred)
    ax = plot.plot_contingency(table)
    top, right = [a for a in ax.child_axes if a.patches][:2]
    columns = _ticks(ax.get_xticklabels())
    sizes = dict(zip(table.clusters.tolist(), table.cluster_sizes.tolist(), strict=True))
    assert [bar.get_height() for bar in top.patches] == [sizes[c] for c in columns]
    class_sizes = dict(zip(table.classes.tolist(), table.class_sizes.tolist(), strict=True))
    rows = _ticks(ax.get_yticklabels())
    assert [bar.get_width() for bar in right.patches] == [class_sizes[c] for c in rows]
    colours = [plot_colors.to_hex(bar.get_facecolor()) for bar in top.patches]
    assert colours[10:] == [plot_colors.to_hex(MIXED)] * 10
    assert plot_colors.to_hex(MIXED) not in colours[:10]
    bare = plot.plot_contingency(table, marginals=False, colorbar=False)
    assert bare.child_axes == []


def test_labels_in_natural_order_in_heatmaps_and_reports():
    truth, pred = _noise_clusters(n=3000)
    ax = plot.plot_contingency(truth, pred)
    assert _ticks(ax.get_yticklabels()) == [f"celltype_{k}" for k in range(10)]
    clusters = np.array(["0", "1", "10", "2", "11"], dtype=object)
    ax = plot.plot_contingency(["a", "b", "c", "d", "e"], clusters, order="sorted")
    assert _ticks(ax.get_xticklabels()) == ["0", "1", "2", "10", "11"]
    table = fcm.Contingency.from_labels(
        np.array(["type_10", "type_2", "type_1"], dtype=object), clusters[:3]
    )
    assert list(table.class_report().index) == ["type_1", "type_2", "type_10"]
    assert list(table.cluster_report().index) == ["0", "1", "10"]
    assert list(fcm.Contingency.from_labels(clusters, clusters).cluster_report().index) == [
        "0", "1", "2", "10", "11"
    ]  # fmt: skip


def test_demo_table_ticks_are_readable_at_the_default_size():
    from fastcluster_metrics._cli.demo import example

    truth, clusterings = example(100_000)
    ax = plot.plot_contingency(truth, clusterings["leiden_mid"])
    assert ax.images[0].get_array().shape == (33, 66)
    labels = ax.get_xticklabels() + ax.get_yticklabels()
    assert min(t.get_fontsize() for t in labels) >= 8
    assert len(ax.get_yticklabels()) == 33  # every class named
    # The largest share reaches the top of the scale (nothing is pale by construction).
    image = ax.images[0]
    assert image.norm.vmax == pytest.approx(float(image.get_array().max()))
    ax.figure.canvas.draw()
    _no_overlap(ax.get_xticklabels(), "x")
    _no_overlap(ax.get_yticklabels(), "y")


def _no_overlap(labels, axis):
    boxes = [t.get_window_extent() for t in labels if t.get_text()]
    spans = sorted((b.x0, b.x1) if axis == "x" else (b.y0, b.y1) for b in boxes)
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end - 0.5


def test_long_tables_have_their_tick_labels_thinned():
    rng = np.random.default_rng(3)
    truth, pred = rng.integers(0, 150, 30_000), rng.integers(0, 300, 30_000)
    ax = plot.plot_contingency(truth, pred)
    xs, ys = ax.get_xticklabels(), ax.get_yticklabels()
    assert 20 < len(xs) < 300 and 20 < len(ys) < 150  # every second (third, ...) one
    assert min(t.get_fontsize() for t in xs + ys) >= 8
    ax.figure.canvas.draw()
    _no_overlap(xs, "x")
    _no_overlap(ys, "y")


def test_counts_fit_their_cells():
    truth = np.repeat(np.arange(12), 15_080)
    pred = (truth + (np.arange(truth.size) % 5 == 0)) % 12
    figure = Figure(figsize=(5, 4), layout="constrained")
    FigureCanvasAgg(figure)
    ax = plot.plot_contingency(truth, pred, ax=figure.subplots())
    texts = _texts(ax)
    assert texts and all(len(t) <= 4 for t in texts)  # 12,064 and 3,016 as 12k and 3.0k
    assert "12k" in texts and "3.0k" in texts
    figure.canvas.draw()
    cell = ax.get_window_extent().width / 12
    assert max(t.get_window_extent().width for t in ax.texts) < cell
    assert min(t.get_fontsize() for t in ax.texts) >= 6
    roomy = plot.plot_contingency(truth[:3000], pred[:3000])
    assert "2,400" in _texts(roomy)  # written out where it fits


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
    assert _curves(ax) == ["Rand", "purity"]
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
    assert ax.get_title() == "best clustering = leiden by ARI (0.9)"


def test_scores_bad_arguments():
    frame = pd.DataFrame({"rand_score": [0.5]}, index=[1])
    with pytest.raises(ValueError, match="no scores for"):
        plot.plot_scores(frame, metrics=["purity_score"])
    with pytest.raises(ValueError, match="best="):
        plot.plot_scores(frame, best="purity_score")
    with pytest.raises(TypeError, match="DataFrame of scores"):
        plot.plot_scores([0.5, 0.6])


def _named_runs():
    truth, runs = _runs()
    names = {"leiden": runs[4], "louvain": runs[5], "kmeans": runs[2]}
    return truth, names


def test_unbounded_measures_get_their_own_panel(tmp_path):
    truth, runs = _named_runs()
    scores = fcm.compare_many(truth, runs)  # the ten default measures, MI in nats among them
    ax = plot.plot_scores(scores)
    panels = ax.figure.axes
    assert len(panels) == 2
    mi = panels[1]
    assert _curves(mi) == ["MI"] and mi.get_ylabel() == "nats"
    assert "MI" not in _curves(ax) and ax.get_ylabel() == "score"
    assert len(_curves(ax)) == 9
    assert ax.get_ylim()[1] < 1.1  # [0, 1] scores are not squashed under MI (about 1.3)
    assert scores["mutual_info_score"].max() > 1.1
    np.testing.assert_allclose(mi.get_lines()[0].get_ydata(), scores["mutual_info_score"])
    assert mi.get_shared_x_axes().joined(ax, mi)
    assert mi.get_xlabel() == "clustering" and ax.get_title().startswith("best clustering = ")
    _png(ax, tmp_path / "panels.png")


def test_unbounded_panel_cut_from_the_given_axes():
    truth, runs = _runs()
    scores = fcm.compare_many(truth, runs, metrics=["ARI", "VI", "Mirkin"])
    figure = Figure(figsize=(8, 6), layout="constrained")
    left, right = figure.subplots(1, 2)
    ax = plot.plot_scores(scores, ax=left)
    assert ax is left
    units = {a.get_ylabel(): _curves(a) for a in figure.axes if a is not right}
    assert units == {"score": ["ARI"], "nats": ["VI"], "ordered pairs": ["Mirkin"]}
    for panel in figure.axes:  # the panels stay in the place of ``left``
        if panel is not right:
            assert panel.get_position().x1 <= right.get_position().x0


def test_categorical_x_is_points_and_numeric_x_is_lines():
    truth, runs = _named_runs()
    scores = fcm.compare_many(truth, runs, metrics=["ARI", "AMI", "NMI"])
    ax = plot.plot_scores(scores)
    lines = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert [line.get_linestyle() for line in lines] == ["None"] * 3
    assert _ticks(ax.get_xticklabels()) == ["leiden", "louvain", "kmeans"]
    # The measures side by side within each slot, not on top of each other.
    xs = np.array([line.get_xdata() for line in lines])
    assert (np.diff(xs, axis=0) > 0).all() and (np.abs(xs - np.arange(3)) < 0.5).all()
    scores.index.name = "method"
    assert plot.plot_scores(scores).get_xlabel() == "method"
    numeric = plot.plot_scores(fcm.compare_many(*_runs(), metrics=["ARI"]))
    assert numeric.get_lines()[0].get_linestyle() == "-"


def test_names_ending_in_numbers_are_drawn_as_numbers():
    truth, runs = _runs()
    scores = fcm.compare_many(truth, {f"k{k}": runs[k] for k in (6, 2, 4)}, metrics=["ARI"])
    ax = plot.plot_scores(scores)
    assert ax.get_xlabel() == "k"
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), [2, 4, 6])  # sorted
    np.testing.assert_allclose(
        ax.get_lines()[0].get_ydata(), scores["adjusted_rand_score"].iloc[[1, 2, 0]]
    )
    assert ax.get_title().startswith("best k = 4 by ARI")
    leiden = {f"leiden_{r}": runs[k] for r, k in ((0.5, 2), (1.0, 4), (1.5, 6))}
    ax = plot.plot_scores(fcm.compare_many(truth, leiden, metrics=["ARI"]))
    assert ax.get_xlabel() == "leiden"
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), [0.5, 1.0, 1.5])


def test_every_curve_marks_its_best_value_and_same_curves_say_so():
    truth, runs = _runs()
    scores = fcm.compare_many(truth, runs, metrics=["ARI", "NMI", "V-measure", "VI"])
    ax = plot.plot_scores(scores)  # no best=: the first measure's best is starred
    stars = [line for line in ax.get_lines() if line.get_marker() == "*"]
    assert len(stars) == 1 and stars[0].get_xdata()[0] == scores["adjusted_rand_score"].idxmax()
    assert ax.get_title().startswith("best parameter = 4 by ARI")
    rings = [c for panel in ax.figure.axes for c in panel.collections]
    assert len(rings) == 4  # one per measure, at its best: the lowest VI
    vi = next(panel for panel in ax.figure.axes if panel.get_ylabel() == "nats")
    (ring,) = vi.collections
    assert ring.get_offsets()[0][0] == scores["variation_of_information"].idxmin()
    # The V-measure is NMI (arithmetic): drawn with another marker and line, and said so.
    assert _curves(ax) == ["ARI", "NMI", "V-measure (= NMI)"]
    nmi, v = ax.get_lines()[1:3]
    assert (nmi.get_marker(), nmi.get_linestyle()) != (v.get_marker(), v.get_linestyle())
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == _curves(ax)
    ax.figure.canvas.draw()  # the legend is beside the curves, not on them
    assert legend.get_window_extent().x0 >= ax.get_window_extent().x1


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


@pytest.mark.parametrize("module", [plot, _heatmap, _score_plot, _natural])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 2
    assert result.failed == 0


def test_imports_are_lazy():
    code = (
        "import sys, fastcluster_metrics\n"
        "assert 'fastcluster_metrics.plot' not in sys.modules\n"
        "assert 'fastcluster_metrics._cli.main' not in sys.modules\n"
        "import fastcluster_metrics.plot, fastcluster_metrics._cli.main\n"
        "heavy = {'matplotlib', 'pandas', 'anndata', 'pyarrow', 'tqdm', 'sklearn'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_two_random_models_side_by_side_mark_different_best_resolutions():
    """A sweep scored under the permutation model and under 'all1' (Gates and Ahn 2017): each
    curve rings its own best k, and here they differ (a random partition of 3,000 samples
    has about 480 clusters, so 'all1' favours k = 1000)."""
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 5, 3000)
    runs = {}
    for k in (5, 20, 100, 1000):
        runs[f"k{k}"] = np.where(
            rng.random(3000) < 0.6,
            truth * k // 5 + rng.integers(0, k // 5, 3000),
            rng.integers(0, k, 3000),
        )
    scores = fcm.compare_many(truth, runs, metrics=["AMI", "AMI_all1"])
    ax = plot.plot_scores(scores)
    assert ax.get_xlabel() == "k"
    rings = {tuple(c.get_edgecolor()[0]): c.get_offsets()[0][0] for c in ax.collections}
    best = {
        line.get_label(): rings[matplotlib.colors.to_rgba(line.get_color())]
        for line in ax.get_lines()
        if line.get_label() in ("AMI", "AMI_all1")
    }
    assert best == {"AMI": 5, "AMI_all1": 1000}, best


def test_a_log_axis_of_k_is_labelled_with_plain_numbers():
    """k over two decades is drawn on a log axis: its tick labels are the values drawn, as
    plain numbers, and no minor tick is labelled (they ran into one another)."""
    truth = np.repeat(np.arange(5), 200)
    rng = np.random.default_rng(1)
    runs = {f"k{k}": rng.integers(0, k, 1000) for k in (5, 20, 100, 1000)}
    ax = plot.plot_scores(fcm.compare_many(truth, runs, metrics=["ARI", "SRI"]))
    bottom = ax.figure.axes[-1] if ax.figure.axes[-1].get_xlabel() else ax
    bottom.figure.canvas.draw()
    assert bottom.get_xscale() == "log"
    assert [t.get_text() for t in bottom.get_xticklabels()] == ["5", "20", "100", "1000"]
    assert not any(t.get_text() for t in bottom.xaxis.get_minorticklabels())
