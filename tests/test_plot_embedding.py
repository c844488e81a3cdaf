"""fastcluster_metrics.plot.plot_embedding: an embedding coloured by a per-sample score, its
colour bar on the score's range, the lowest values on top, samples without a score in grey."""

import doctest
import io

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.image  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import colors as plot_colors  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

import fastcluster_metrics as fcm  # noqa: E402
from fastcluster_metrics import plot  # noqa: E402
from fastcluster_metrics.plot import _embedding  # noqa: E402

GREY = plot_colors.to_rgba(_embedding.NO_SCORE)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


class FakeAnnData:
    """As much of an AnnData as plot_embedding reads: ``.obsm`` and ``.obs``."""

    def __init__(self, obsm, obs):
        self.obsm = obsm
        self.obs = obs


def _points(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 2)), rng.random(n)


def _drawn(ax):
    """The points of ``ax`` in the order they are drawn (by zorder, then as added): their
    positions (k, 2) and colours (k, 4)."""
    artists = [
        a
        for a in ax.get_children()
        if isinstance(a, (Line2D, PathCollection)) and a.get_rasterized()
    ]
    artists.sort(key=lambda a: a.get_zorder())  # stable, as matplotlib sorts them
    xy, rgba = [], []
    for artist in artists:
        if isinstance(artist, Line2D):
            where = np.column_stack([artist.get_xdata(), artist.get_ydata()])
            colour = np.tile(plot_colors.to_rgba(artist.get_markerfacecolor()), (len(where), 1))
        else:
            artist.update_scalarmappable()  # the colours of the values, as when drawn
            where = np.asarray(artist.get_offsets())
            colour = np.broadcast_to(artist.get_facecolor(), (len(where), 4))
        xy.append(where)
        rgba.append(colour)
    return np.concatenate(xy), np.concatenate(rgba)


def _colour_bar(ax):
    (bar,) = [other for other in ax.figure.axes if other is not ax]
    return bar


def _range(ax):
    return tuple(float(end) for end in _colour_bar(ax).get_ylim())


def _order_of(drawn_xy, coords):
    """The index in ``coords`` of each drawn point (every position is unique)."""
    index = {tuple(p): i for i, p in enumerate(np.asarray(coords, dtype=float))}
    return np.array([index[tuple(p)] for p in drawn_xy])


# --- the colour bar ---------------------------------------------------------------------------


def test_scores_are_shown_on_zero_to_one():
    coords, _ = _points(500)
    values = np.linspace(0.2, 0.7, 500)  # a score: its range, not its span
    ax = plot.plot_embedding(coords, values)
    assert _range(ax) == (0.0, 1.0)
    assert _colour_bar(ax).get_ylabel() == "score"
    xy, rgba = _drawn(ax)
    expected = matplotlib.colormaps["viridis"](values[_order_of(xy, coords)])
    np.testing.assert_allclose(rgba, expected)


@pytest.mark.parametrize(
    ("values", "expected"),
    [(np.linspace(-3, 5, 400), (-3.0, 5.0)), (np.linspace(0, 2, 400), (0.0, 2.0))],
)
def test_other_values_are_shown_on_their_span(values, expected):
    coords, _ = _points(400)
    ax = plot.plot_embedding(coords, values, label="log counts")
    assert _range(ax) == expected
    assert _colour_bar(ax).get_ylabel() == "log counts"


def test_vmin_and_vmax_are_honoured_and_values_beyond_them_said():
    coords, _ = _points(300)
    values = np.linspace(0.0, 1.0, 300)
    ax = plot.plot_embedding(coords, values, vmin=0.25, vmax=0.75, cmap="magma")
    assert _range(ax) == (0.25, 0.75)
    assert _colour_bar(ax)._colorbar.extend == "both"
    xy, rgba = _drawn(ax)
    shown = np.clip((values[_order_of(xy, coords)] - 0.25) / 0.5, 0, 1)
    np.testing.assert_allclose(rgba, matplotlib.colormaps["magma"](shown))
    # one end given: the other from the values
    assert _range(plot.plot_embedding(coords, values, vmax=0.5)) == (0.0, 0.5)
    assert _range(plot.plot_embedding(coords, values * 4, vmin=1.0)) == (1.0, 4.0)
    assert _colour_bar(plot.plot_embedding(coords, values))._colorbar.extend == "neither"
    with pytest.raises(ValueError, match="vmin must not exceed vmax"):
        plot.plot_embedding(coords, values, vmin=0.8, vmax=0.2)


# --- the order --------------------------------------------------------------------------------


def test_the_lowest_values_are_drawn_last():
    coords, values = _points(2000)
    ax = plot.plot_embedding(coords, values)
    xy, _ = _drawn(ax)
    order = _order_of(xy, coords)
    assert sorted(order) == list(range(2000))  # every point, once
    assert order[-1] == np.argmin(values)
    assert order[0] == np.argmax(values)
    assert np.all(np.diff(values[order]) <= 0)


@pytest.mark.parametrize("n", [50, 5000])  # few runs of one colour; too many (a scatter)
def test_without_lowest_on_top_the_points_keep_their_order(n):
    coords, values = _points(n, seed=3)
    ax = plot.plot_embedding(coords, values, lowest_on_top=False)
    xy, rgba = _drawn(ax)
    np.testing.assert_array_equal(xy, coords)
    np.testing.assert_allclose(rgba, matplotlib.colormaps["viridis"](values))
    many = any(isinstance(c, PathCollection) for c in ax.collections)
    assert many == (n == 5000)


def test_many_points_are_drawn_as_runs_of_one_colour():
    """Sorted, the points of one colour are consecutive: one marker line per colour of the map
    (which matplotlib draws by stamping one marker), not a scatter that colours each point."""
    coords, values = _points(200_000)
    ax = plot.plot_embedding(coords, values)
    assert not ax.collections
    assert len(ax.get_lines()) <= matplotlib.colormaps["viridis"].N
    assert sum(len(line.get_xdata()) for line in ax.get_lines()) == 200_000
    assert all(line.get_rasterized() and line.get_markeredgewidth() == 0 for line in ax.lines)


# --- samples without a score ------------------------------------------------------------------


def test_samples_without_a_score_are_grey_beneath_the_rest():
    coords, values = _points(1000)
    values[::10] = np.nan
    values[5] = np.inf
    ax = plot.plot_embedding(coords, values * 0.5 + 0.1)
    xy, rgba = _drawn(ax)
    order = _order_of(xy, coords)
    missing = ~np.isfinite(values)
    assert set(order[:101]) == set(np.flatnonzero(missing))  # first, beneath
    np.testing.assert_allclose(rgba[:101], np.tile(GREY, (101, 1)))
    assert not np.isclose(rgba[101:], GREY).all(axis=1).any()
    assert _range(ax) == (0.0, 1.0)
    (text,) = [t.get_text() for t in ax.get_legend().get_texts()]
    assert text == "no score (101)"


def test_no_legend_when_every_sample_has_a_score():
    coords, values = _points(100)
    assert plot.plot_embedding(coords, values).get_legend() is None


def test_samples_dropped_by_per_sample_score():
    truth = np.array(["a", "a", "b", "b", None], dtype=object)
    scores = fcm.per_sample_score(truth, [0, 0, 1, 0, 1], missing="drop")
    assert np.isnan(scores[4])
    coords = np.arange(10.0).reshape(5, 2)
    ax = plot.plot_embedding(coords, scores)
    xy, rgba = _drawn(ax)
    assert _order_of(xy, coords)[0] == 4
    np.testing.assert_allclose(rgba[0], GREY)


def test_no_sample_with_a_score():
    coords, _ = _points(20)
    ax = plot.plot_embedding(coords, np.full(20, np.nan))
    assert _range(ax) == (0.0, 1.0)
    assert len(_drawn(ax)[0]) == 20
    ax.figure.savefig(io.BytesIO(), format="png")


# --- an AnnData -------------------------------------------------------------------------------


def _adata(n=300):
    coords, values = _points(n, seed=4)
    obs = pd.DataFrame({"ecs": values, "cell_type": ["B"] * n})
    obsm = {"X_umap": np.column_stack([coords, np.zeros(n)]), "X_tsne": coords[:, ::-1]}
    return FakeAnnData(obsm, obs), coords, values


def test_an_anndata_and_a_column_of_obs():
    adata, coords, values = _adata()
    ax = plot.plot_embedding(adata, "ecs")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("UMAP1", "UMAP2")
    assert _colour_bar(ax).get_ylabel() == "ecs"
    xy, _ = _drawn(ax)
    assert _order_of(xy, coords)[-1] == np.argmin(values)  # the first two columns, sorted

    ax = plot.plot_embedding(adata, values, basis="X_tsne", title="t-SNE")
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("tSNE1", "tSNE2", "t-SNE")
    assert _colour_bar(ax).get_ylabel() == "score"
    np.testing.assert_array_equal(np.sort(_drawn(ax)[0], axis=0), np.sort(coords[:, ::-1], 0))


def test_nullable_columns_hold_missing_values():
    adata, _, _ = _adata(6)
    adata.obs["partial"] = pd.array([0.5, None, 1.0, 0.25, None, 0.0], dtype="Float64")
    ax = plot.plot_embedding(adata, "partial")
    assert ax.get_legend().get_texts()[0].get_text() == "no score (2)"


def test_a_missing_basis_or_column_names_what_there_is():
    adata, _, _ = _adata()
    with pytest.raises(KeyError, match=r"no embedding 'X_pca' in \.obsm; it holds \['X_umap'"):
        plot.plot_embedding(adata, "ecs", basis="X_pca")
    with pytest.raises(KeyError, match=r"no column 'leiden' in \.obs; it has \['ecs', 'cell"):
        plot.plot_embedding(adata, "leiden")


def test_axis_names_follow_the_basis():
    coords, values = _points(10)
    for basis, x in [("X_umap", "UMAP1"), ("X_pca", "PC1"), ("X_scVI", "scVI1"), ("fa", "fa1")]:
        assert plot.plot_embedding(coords, values, basis=basis).get_xlabel() == x


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("coords", "values", "message"),
    [
        (np.zeros(5), np.zeros(5), r"coords must be an \(n, 2\) array .* got shape \(5,\)"),
        (np.zeros((5, 1)), np.zeros(5), r"coords must be an \(n, 2\) array .*\(5, 1\)"),
        (np.zeros((5, 2, 2)), np.zeros(5), r"got shape \(5, 2, 2\)"),
        ([["a", "b"]], [1.0], r"coords must be an \(n, 2\) array of numbers"),
        (np.zeros((5, 2)), np.zeros(4), "values has 4 numbers but coords has 5 points"),
        (np.zeros((2, 2)), np.zeros((2, 2)), r"values must be one number per point .*\(2, 2\)"),
        (np.zeros((2, 2)), ["B", "T"], "values must be numbers .* such as 'B'"),
        (np.zeros((2, 2)), pd.Categorical(["B", "T"]), "values must be numbers"),
        (np.zeros((2, 2)), np.array([1 + 1j, 2]), "values must be numbers"),
        (np.zeros((2, 2)), "ecs", "names a column of .obs, but coords is no AnnData"),
    ],
)
def test_bad_input(coords, values, message):
    with pytest.raises(ValueError, match=message):
        plot.plot_embedding(coords, values)


def test_numbers_of_other_types():
    coords = np.arange(8.0).reshape(4, 2)
    for values in ([1, 0, None, 1], pd.Series([True, False, True, False]), [3, 1, 2, 0]):
        ax = plot.plot_embedding(coords, values)
        assert len(_drawn(ax)[0]) == 4
    assert _range(ax) == (0.0, 3.0)


# --- the picture ------------------------------------------------------------------------------


def test_point_size_shrinks_with_the_number_of_points():
    assert _embedding.default_point_size(1_000) == 20.0
    assert _embedding.default_point_size(60_000) == 2.0
    assert _embedding.default_point_size(10**8) == 0.05
    coords, values = _points(60_000)
    (size,) = {line.get_markersize() ** 2 for line in plot.plot_embedding(coords, values).lines}
    assert size == pytest.approx(2.0)
    (size,) = {line.get_markersize() ** 2 for line in
               plot.plot_embedding(coords, values, point_size=7).lines}  # fmt: skip
    assert size == pytest.approx(7.0)


def test_equal_axes_without_ticks_on_given_axes():
    figure = Figure()
    ax = figure.subplots()
    coords, values = _points(100)
    assert plot.plot_embedding(coords * [10, 1], values, ax=ax) is ax
    assert ax.get_aspect() == 1.0
    assert len(ax.get_xticks()) == 0
    assert len(ax.get_yticks()) == 0
    assert len(figure.axes) == 2  # and the colour bar


def test_png_and_a_light_pdf(tmp_path):
    coords, values = _points(100_000)
    values[:100] = np.nan
    ax = plot.plot_embedding(coords, values, title="ECS")
    path = tmp_path / "embedding.png"
    ax.figure.savefig(path, dpi=60)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = matplotlib.image.imread(path)
    assert pixels.shape[0] > 200
    assert pixels.shape[1] > 200
    assert pixels[..., :3].std() > 0.05
    pdf = io.BytesIO()
    ax.figure.savefig(pdf, format="pdf", dpi=60)
    # the points are one image (the colour bar the other), not 100,000 paths
    assert pdf.getvalue().count(b"/Subtype /Image") == 2
    assert len(pdf.getvalue()) < 400_000


def test_docstring_examples():
    result = doctest.testmod(_embedding, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 5
    assert result.failed == 0
