"""fastcluster_metrics.plot.plot_silhouette: each cluster's sorted silhouettes as one band, the
mean (scikit-learn's silhouette_score) dashed, labels of every type, a million samples fast;
and plot_embedding's colouring by silhouette, on -1 to 1 centred at 0."""

import doctest
import itertools
import time

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
sklearn_metrics = pytest.importorskip("sklearn.metrics")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import fastcluster_metrics as fcm  # noqa: E402
from fastcluster_metrics import plot  # noqa: E402
from fastcluster_metrics.plot import _embedding, _silhouette  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _blobs(n=240, seed=0):
    """Four blobs of unequal sizes, one of them overlapping another (negative silhouettes),
    and their labels 0..3."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0], [1.5, 1.0]])
    labels = rng.choice(4, size=n, p=[0.4, 0.3, 0.2, 0.1])
    return centres[labels] + rng.normal(size=(n, 2)), labels


def _bands(ax):
    """The bands' polygons (paths), top to bottom: one collection holds them all."""
    (bands,) = ax.collections
    return bands.get_paths()


def _ticks(axis):
    return [t.get_text() for t in axis.get_yticklabels()]


def _mean_line(ax):
    (line,) = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    return float(line.get_xdata()[0])


def _step_at(path, y, x):
    """Whether the band's polygon holds the point just inside ``x`` (towards 0) at height
    ``y`` and not the point just beyond it: its step at ``y`` ends at ``x``."""
    inward = 1e-6 * np.sign(x)
    return path.contains_point((x - inward, y)) and not path.contains_point((x + inward, y))


# --- the bands --------------------------------------------------------------------------------


def test_each_band_is_its_clusters_sorted_silhouettes():
    X, labels = _blobs()
    silhouettes = sklearn_metrics.silhouette_samples(X, labels)
    assert (silhouettes < 0).any()
    ax = plot.plot_silhouette(X, labels)
    bands = _bands(ax)
    assert len(bands) == 4
    sizes = np.bincount(labels)
    tops = []
    for j, path in enumerate(bands):
        expected = np.sort(silhouettes[labels == j])[::-1]
        xs, ys = path.vertices[:, 0], path.vertices[:, 1]
        np.testing.assert_allclose(xs.max(), max(expected[0], 0.0), rtol=1e-12)
        np.testing.assert_allclose(xs.min(), min(expected[-1], 0.0), rtol=1e-12)
        assert ys.max() - ys.min() == pytest.approx(sizes[j])  # a sample a unit of height
        top = ys.min()
        tops.append(top)
        # each sample's step, from the top down: the silhouettes in descending order
        assert all(_step_at(path, top + i + 0.5, x) for i, x in enumerate(expected))
    assert tops == sorted(tops)  # stacked top to bottom, apart
    assert ax.yaxis_inverted()
    assert _ticks(ax) == [f"{j} ({sizes[j]})" for j in range(4)]
    means = [f"{silhouettes[labels == j].mean():.2f}" for j in range(4)]
    assert _ticks(ax.child_axes[0]) == means


def test_the_mean_line_is_silhouette_score():
    X, labels = _blobs(seed=1)
    ax = plot.plot_silhouette(X, labels)
    score = sklearn_metrics.silhouette_score(X, labels)
    assert _mean_line(ax) == pytest.approx(score, rel=1e-12)
    assert ax.get_title() == f"silhouette of 4 clusters: mean {score:.3f} (240 samples)"
    assert ax.get_xlabel() == "silhouette coefficient"
    low, high = ax.get_xlim()
    assert high == 1.0
    assert -1.0 <= low <= min(-0.1, ax.collections[0].get_paths()[0].vertices[:, 0].min())
    assert _silhouette._left_end(-0.34) == pytest.approx(-0.4)
    assert _silhouette._left_end(0.2) == pytest.approx(-0.1)
    assert _silhouette._left_end(-1.0) == -1.0


def test_samples_given_draw_what_x_draws():
    X, labels = _blobs(seed=2)
    from_x = plot.plot_silhouette(X, labels)
    given = plot.plot_silhouette(samples=fcm.silhouette_samples(X, labels), labels=labels)
    for a, b in zip(_bands(from_x), _bands(given), strict=True):
        np.testing.assert_array_equal(a.vertices, b.vertices)
    assert _ticks(from_x) == _ticks(given)
    assert _mean_line(from_x) == _mean_line(given)
    assert from_x.get_title() == given.get_title()


def test_orders_of_the_bands():
    labels = np.array(["c10", "c2", "c2", "c1", "c1", "c1", "c10", "c10", "c10", "c10"])
    samples = np.array([0.1, 0.9, 0.8, 0.5, 0.4, 0.6, 0.2, 0.0, -0.2, 0.3])
    ax = plot.plot_silhouette(samples=samples, labels=labels)
    assert _ticks(ax) == ["c1 (3)", "c2 (2)", "c10 (5)"]  # natural order, top to bottom
    ax = plot.plot_silhouette(samples=samples, labels=labels, order="size")
    assert _ticks(ax) == ["c10 (5)", "c1 (3)", "c2 (2)"]
    ax = plot.plot_silhouette(samples=samples, labels=labels, order="score")
    assert _ticks(ax) == ["c2 (2)", "c1 (3)", "c10 (5)"]
    assert _ticks(ax.child_axes[0]) == ["0.85", "0.50", "0.08"]


@pytest.mark.parametrize(
    "labels",
    [
        ["b", "a", "b", "c", "a", "c"],
        np.array(["b", "a", "b", "c", "a", "c"], dtype=object),
        pd.Categorical(["b", "a", "b", "c", "a", "c"], categories=["c", "b", "a"]),
        pd.Series(["b", "a", "b", "c", "a", "c"], dtype="category"),
        pd.array(["b", "a", "b", "c", "a", "c"], dtype="string"),
    ],
    ids=["list", "object", "categorical", "category-series", "pandas-string"],
)
def test_labels_of_every_type(labels):
    samples = np.array([0.2, 0.5, 0.4, -0.3, 0.1, 0.7])
    ax = plot.plot_silhouette(samples=samples, labels=labels)
    assert _ticks(ax) == ["a (2)", "b (2)", "c (2)"]
    a, _, c = _bands(ax)
    assert a.vertices[:, 0].max() == 0.5
    assert c.vertices[:, 0].min() == -0.3
    assert _mean_line(ax) == pytest.approx(samples.mean())


def test_integer_and_boolean_labels():
    samples = np.array([0.2, 0.5, 0.4, 0.1])
    assert _ticks(plot.plot_silhouette(samples=samples, labels=[True, False, True, False])) == [
        "False (2)",
        "True (2)",
    ]
    assert _ticks(plot.plot_silhouette(samples=samples, labels=[10, 2, 10, 2])) == [
        "2 (2)",
        "10 (2)",
    ]


# --- samples without a silhouette, missing labels ---------------------------------------------


def test_nan_samples_are_left_out_and_said():
    samples = np.array([0.2, np.nan, 0.4, 0.1, np.nan, 0.7])
    ax = plot.plot_silhouette(samples=samples, labels=[0, 0, 0, 1, 1, 1])
    assert _ticks(ax) == ["0 (2)", "1 (2)"]
    assert _mean_line(ax) == pytest.approx(np.nanmean(samples))
    assert ax.get_xlabel().endswith("(2 samples without a silhouette (NaN) left out)")
    assert ax.get_title().endswith("(4 samples)")


def test_missing_labels():
    X, labels = _blobs(seed=3)
    partial = labels.astype(object)
    partial[:5] = None
    dropped = plot.plot_silhouette(X, partial, missing="drop")
    score = sklearn_metrics.silhouette_score(X[5:], labels[5:])
    assert _mean_line(dropped) == pytest.approx(score, rel=1e-12)
    assert "5 samples without a silhouette" in dropped.get_xlabel()
    # the result of missing="drop" (NaN where a label is missing), with the same labels
    values = fcm.silhouette_samples(X, partial, missing="drop")
    given = plot.plot_silhouette(samples=values, labels=partial)
    assert _ticks(given) == _ticks(dropped)
    clustered = plot.plot_silhouette(X, partial, missing="cluster")
    assert _ticks(clustered)[-1] == "<NA> (5)"
    with pytest.raises(ValueError, match="labels has missing labels: 5 of 240"):
        plot.plot_silhouette(samples=np.zeros(240), labels=partial)
    with pytest.raises(ValueError, match="missing labels"):
        plot.plot_silhouette(X, partial)


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"labels": [0, 1]}, "needs X .* or samples="),
        ({"samples": [0.1, 0.2]}, "needs the labels"),
        ({"X": [[0.0], [1.0]], "samples": [0.1, 0.2], "labels": [0, 1]}, "not both"),
        ({"samples": [0.1, 0.2, 0.3], "labels": [0, 1]}, "labels has 2 samples but samples has 3"),
        ({"samples": [0.1, 1.5], "labels": [0, 1]}, r"in \[-1, 1\].* got 1\.5 at index 1"),
        ({"samples": [-1.01, 0.5], "labels": [0, 1]}, r"got -1\.01 at index 0"),
        ({"samples": [0.1, np.inf], "labels": [0, 1]}, r"finite .* got inf at index 1"),
        ({"samples": ["a", "b"], "labels": [0, 1]}, "samples must be numbers"),
        ({"samples": [[0.1], [0.2]], "labels": [0, 1]}, r"1-D\); got \(2, 1\)"),
        ({"samples": [0.1, 0.2], "labels": [[0], [1]]}, r"one labeling \(1-D\)"),
        (
            {"samples": [np.nan, np.nan], "labels": [0, 1]},
            "no sample has both a silhouette and a label",
        ),
        ({"samples": [0.1, 0.2], "labels": [0, 1], "order": "name"}, "order must be one of"),
        ({"X": [[0.0], [1.0], [2.0]], "labels": [0, 1]}, "inconsistent numbers of samples"),
    ],
)
def test_bad_input_is_a_clear_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        plot.plot_silhouette(**kwargs)


def test_several_labelings_are_refused():
    X, labels = _blobs(60)
    with pytest.raises(ValueError, match="one labeling; got 2 labelings"):
        plot.plot_silhouette(X, [labels, labels[::-1]])
    with pytest.raises(ValueError, match="'missing' parameter"):
        plot.plot_silhouette(X, labels, missing="ignore")


# --- many samples, many clusters, the picture -------------------------------------------------


def test_a_million_samples_are_a_few_polygons(tmp_path):
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 30, 1_000_000)
    samples = np.clip(rng.normal(0.3, 0.25, 1_000_000), -1, 1)
    start = time.perf_counter()
    ax = plot.plot_silhouette(samples=samples, labels=labels)
    ax.figure.savefig(tmp_path / "million.png", dpi=40)
    assert time.perf_counter() - start < 30  # about 2 s on two cores
    bands = _bands(ax)
    assert len(bands) == 30
    vertices = [len(path.vertices) for path in bands]
    assert max(vertices) < 4 * _silhouette._VERTICES
    assert sum(vertices) < 4 * _silhouette._BUDGET + 30 * 4 * _silhouette._FEWEST
    for j, path in enumerate(bands[:3]):  # the ends are exact
        mine = samples[labels == j]
        xs = path.vertices[:, 0]
        assert (xs.max(), xs.min()) == (mine.max(), min(mine.min(), 0.0))
    assert _mean_line(ax) == pytest.approx(samples.mean())


def _overlapping(texts, renderer):
    boxes = sorted((t.get_window_extent(renderer) for t in texts), key=lambda b: b.y0)
    return any(b.y0 < a.y1 - 0.5 for a, b in itertools.pairwise(boxes))


def test_many_clusters_keep_their_labels_legible():
    rng = np.random.default_rng(6)
    labels = rng.integers(0, 200, 20_000) ** 2 // 200  # sizes from ~1,400 down to ~50
    samples = rng.uniform(-0.2, 0.8, 20_000)
    ax = plot.plot_silhouette(samples=samples, labels=labels)
    k = np.unique(labels).size
    assert len(_bands(ax)) == k
    figure = ax.figure
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    for axis in (ax, ax.child_axes[0]):
        shown = axis.get_yticklabels()
        assert 10 < len(shown) < k  # some names left out, the largest bands named
        assert all(t.get_fontsize() >= 8 for t in shown)
        assert not _overlapping(shown, renderer)
    assert _ticks(ax)[0] == f"0 ({np.count_nonzero(labels == 0):,})"
    assert ax.yaxis.get_major_ticks()[0].tick1line.get_markersize() > 0  # ticks point at them
    inside = figure.bbox
    for text in [*ax.get_yticklabels(), *ax.child_axes[0].get_yticklabels(), ax.title]:
        box = text.get_window_extent(renderer)
        assert inside.x0 <= box.x0 and box.x1 <= inside.x1 and box.y1 <= inside.y1


def test_few_clusters_name_every_band_without_ticks():
    X, labels = _blobs(seed=7)
    ax = plot.plot_silhouette(X, labels)
    assert len(ax.get_yticklabels()) == 4
    assert ax.yaxis.get_major_ticks()[0].tick1line.get_markersize() == 0


def test_draws_on_given_axes_and_colours():
    figure = Figure()
    FigureCanvasAgg(figure)
    ax = figure.subplots()
    X, labels = _blobs(seed=8)
    assert plot.plot_silhouette(X, labels, ax=ax, title="", cmap="Set2") is ax
    assert ax.get_title() == ""
    (bands,) = ax.collections
    np.testing.assert_allclose(bands.get_facecolor(), matplotlib.colormaps["Set2"](range(4)))
    figure.savefig(__import__("io").BytesIO(), format="png", dpi=40)
    # a cluster keeps its colour, whatever the order of the bands
    ax = plot.plot_silhouette(X, labels, order="size")
    first = [int(t.get_text().split()[0]) for t in ax.get_yticklabels()]
    tab10 = matplotlib.colormaps["tab10"](first)
    np.testing.assert_allclose(ax.collections[0].get_facecolor(), tab10)


# --- plot_embedding coloured by silhouette ----------------------------------------------------


class FakeAnnData:
    def __init__(self, obsm, obs):
        self.obsm = obsm
        self.obs = obs


def _range(ax):
    (bar,) = [other for other in ax.figure.axes if other is not ax]
    return tuple(float(end) for end in bar.get_ylim()), bar.get_ylabel()


def test_embedding_coloured_by_the_silhouette_that_silhouette_adata_wrote():
    X, labels = _blobs(seed=9)
    adata = FakeAnnData({"X_pca": X, "X_umap": X}, pd.DataFrame({"leiden": labels.astype(str)}))
    mean = fcm.silhouette_adata(adata, "leiden")
    assert "silhouette_leiden" in adata.obs.columns
    ax = plot.plot_embedding(adata, "silhouette")
    assert _range(ax) == ((-1.0, 1.0), "silhouette_leiden")
    (mappable,) = [a for a in ax.figure.axes if a is not ax]
    norm = mappable._colorbar.norm
    assert (norm.vmin, norm.vmax, float(norm(0.0))) == (-1.0, 1.0, 0.5)  # centred at 0
    cmap = mappable._colorbar.cmap
    red, blue = cmap(0.0), cmap(1.0)
    assert red[0] > red[2] and blue[2] > blue[0]  # diverging: red below 0, blue above
    below, above = np.asarray(cmap(0.499)), np.asarray(cmap(0.501))
    assert np.abs(below - above).max() > 0.1  # the sign shows
    grey = np.asarray(matplotlib.colors.to_rgba(_embedding.NO_SCORE))
    for near_zero in (below, above):  # neither white nor the grey of cells without a value
        assert np.abs(near_zero[:3] - 1.0).max() > 0.15
        assert np.abs(near_zero[:3] - grey[:3]).max() > 0.1
    assert mean == pytest.approx(sklearn_metrics.silhouette_score(X, labels))
    # the column by its name too, even with no negative silhouette
    adata.obs["silhouette_good"] = np.linspace(0.1, 0.9, len(labels))
    assert _range(plot.plot_embedding(adata, "silhouette_good"))[0] == (-1.0, 1.0)
    with pytest.raises(ValueError, match="could be any of the columns"):
        plot.plot_embedding(adata, "silhouette")


def test_embedding_signed_values_and_unchanged_others():
    coords = np.random.default_rng(10).normal(size=(50, 2))
    signed = np.linspace(-0.4, 0.8, 50)
    assert _range(plot.plot_embedding(coords, signed)) == ((-1.0, 1.0), "score")
    assert _range(plot.plot_embedding(coords, signed, vmin=-0.5)) == ((-0.5, 1.0), "score")
    assert _range(plot.plot_embedding(coords, np.linspace(0.1, 0.7, 50)))[0] == (0.0, 1.0)
    assert _range(plot.plot_embedding(coords, np.linspace(-1.5, 0.5, 50)))[0] == (-1.5, 0.5)
    ax = plot.plot_embedding(coords, signed, cmap="viridis")
    assert ax.figure.axes[-1]._colorbar.cmap.name == "viridis"
    adata = FakeAnnData({"X_umap": coords}, pd.DataFrame({"ecs": np.ones(50)}))
    with pytest.raises(KeyError, match=r"fastcluster_metrics\.silhouette_adata"):
        plot.plot_embedding(adata, "silhouette")


def test_docstring_examples():
    for module in (_silhouette, _embedding):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.attempted >= 5
        assert result.failed == 0
