"""A 2-D embedding (a UMAP, a t-SNE) coloured by one number per sample
(:func:`plot_embedding`, re-exported by :mod:`fastcluster_metrics.plot`): made for
:func:`~fastcluster_metrics.per_sample_score`, to see where a clustering and the truth disagree.

Made for millions of cells. The points are sorted by value and cut into runs of one colour (at
most one per entry of the colour map, 256 for viridis), each drawn as one rasterised marker
line: matplotlib then stamps one pre-drawn marker per point. A million points go to a PNG in
0.8 s, against 3.4 s for a scatter that colours each point (which is still what draws points
left in their given order, ``lowest_on_top=False``); a PDF or SVG holds them as one image.
Points shrink as they get more numerous, have no edges, and the lowest values are drawn last,
so that the few cells that disagree are not buried under the many that agree. The colour bar
tells the truth: scores in [0, 1] are shown on 0 to 1, not stretched over their own span, and
signed scores (a silhouette: an ``.obs`` column that
:func:`~fastcluster_metrics.silhouette_adata` wrote, or values in [-1, 1] with some below 0)
on -1 to 1, in a diverging map centred at 0. matplotlib is imported when
:func:`plot_embedding` is first called.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap, Normalize

__all__ = ["plot_embedding"]

_ZORDER = 0.5
"""The points lie below the Axes' other artists, and are drawn as one image with everything
else below ``_ZORDER + 0.05`` (the Axes' rasterization zorder, unless one is set)."""

_MAX_RUNS = 1024
"""More runs of one colour than this (points in a given order, not sorted by value) are drawn
as a scatter that colours each point."""

NO_SCORE = "0.82"
"""The colour of the samples without a value (NaN: dropped by ``missing="drop"``)."""

_SIZE_AREA = 120_000.0
"""The default point size (points squared) is this over the number of points, as scanpy's."""

_SIZE_RANGE = (0.05, 20.0)
"""... clipped to this range."""

SILHOUETTE = "silhouette"
"""``values="silhouette"`` names the ``.obs`` column that
:func:`~fastcluster_metrics.silhouette_adata` wrote (``silhouette_<labels>``), when it is the
only one; such columns, and one named ``silhouette``, are signed scores."""

_SIGNED_CUT = 0.1
"""The signed scores' map is RdBu (red below 0, blue above) without its palest ``2 *
_SIGNED_CUT`` around the middle: a silhouette near 0 (a cell between two clusters) stays
visible on the white background and apart from the grey of the cells without a value, and
the sign shows as a step from light red to light blue."""

_AXIS_NAMES = {
    "umap": "UMAP",
    "tsne": "tSNE",
    "pca": "PC",
    "diffmap": "DC",
    "phate": "PHATE",
    "draw_graph_fa": "FA",
    "draw_graph_fr": "FR",
}
"""The axis names of scanpy's bases (``X_umap``: UMAP1 and UMAP2); others use their own name."""


def _axis_name(basis: str) -> str:
    name = basis[2:] if basis.startswith("X_") else basis
    return _AXIS_NAMES.get(name.lower(), name)


def _is_anndata(coords: Any) -> bool:
    return hasattr(coords, "obsm") and not isinstance(coords, np.ndarray)


def _positions(coords: Any, basis: str) -> NDArray[np.float64]:
    """The first two columns of the embedding, as an (n, 2) float array."""
    if _is_anndata(coords):
        obsm = coords.obsm
        keys = [str(k) for k in obsm.keys()]
        if basis not in keys:
            raise KeyError(f"no embedding {basis!r} in .obsm; it holds {keys}")
        coords = obsm[basis]
    try:
        array = np.asarray(coords, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"coords must be an (n, 2) array of numbers: {error}") from None
    if array.ndim != 2 or array.shape[1] < 2:
        raise ValueError(
            f"coords must be an (n, 2) array of positions (or an AnnData with .obsm[{basis!r}]);"
            f" got shape {array.shape}"
        )
    return array[:, :2]


def _numbers(
    values: Any, name: str = "values", what: str = "one score per sample"
) -> NDArray[np.float64]:
    """The values as floats, missing ones (None, pandas' NA) as NaN; a ValueError for text
    (``name`` must be numbers (``what``))."""
    kind = getattr(getattr(values, "dtype", None), "kind", None)
    if hasattr(values, "to_numpy") and kind is not None and kind in "biuf":
        # pandas, nullable dtypes too (Float64, Int64, boolean hold pd.NA)
        return np.asarray(values.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)
    array = np.asarray(values)
    if array.dtype.kind in "biuf":
        return array.astype(np.float64, copy=False)
    if array.dtype.kind == "O":
        try:
            return np.array(array, dtype=np.float64)
        except (TypeError, ValueError):
            pass
    first = array.flat[0] if array.size else None
    first = first.item() if isinstance(first, np.generic) else first
    raise ValueError(
        f"{name} must be numbers ({what}); got {array.dtype} values"
        + (f" such as {first!r}" if array.size else "")
    )


def is_silhouette(name: str) -> bool:
    """Whether an ``.obs`` column's name is a silhouette's: ``silhouette``, or
    ``silhouette_<labels>`` as :func:`~fastcluster_metrics.silhouette_adata` names them."""
    return name == SILHOUETTE or name.startswith(f"{SILHOUETTE}_")


def _column(obs: Any, values: str) -> str:
    """The ``.obs`` column that ``values`` names: itself, or for ``"silhouette"`` the one
    column ``silhouette_<labels>`` there is."""
    columns = [str(c) for c in obs.columns]
    if values in obs.columns:
        return values
    if values == SILHOUETTE:
        found = [c for c in columns if is_silhouette(c)]
        if len(found) == 1:
            return found[0]
        if found:
            raise ValueError(
                f"values='silhouette' could be any of the columns {found} of .obs; name one"
            )
        raise KeyError(
            "no column 'silhouette' in .obs, nor a 'silhouette_<labels>' that"
            f" fastcluster_metrics.silhouette_adata(adata, labels) writes; it has {columns}"
        )
    raise KeyError(f"no column {values!r} in .obs; it has {columns}")


def _scores(coords: Any, values: Any, n: int) -> tuple[NDArray[np.float64], str]:
    """One float per point, and the colour bar's default label (an ``.obs`` column's name,
    else "score")."""
    name = "score"
    if isinstance(values, str):
        if not _is_anndata(coords):
            raise ValueError(
                f"values={values!r} names a column of .obs, but coords is no AnnData; pass the"
                " values themselves (one number per point)"
            )
        obs = coords.obs
        name = _column(obs, values)
        values = obs[name]
    scores = _numbers(values)
    if scores.ndim != 1:
        raise ValueError(f"values must be one number per point (1-D); got shape {scores.shape}")
    if scores.shape[0] != n:
        raise ValueError(f"values has {scores.shape[0]} numbers but coords has {n} points")
    return scores, name


def is_signed(finite: NDArray[np.float64], named: bool) -> bool:
    """Whether the values are a signed score in [-1, 1], such as a silhouette: ``named`` so
    (:func:`is_silhouette`), or every value in [-1, 1] and some below 0."""
    if named:
        return True
    return bool(finite.size) and -1.0 <= float(finite.min()) < 0.0 and float(finite.max()) <= 1.0


def signed_cmap() -> Colormap:
    """The map of signed scores: RdBu, centred at 0, without its palest middle
    (``_SIGNED_CUT``)."""
    import matplotlib
    from matplotlib.colors import ListedColormap

    half = np.linspace(0.0, 0.5 - _SIGNED_CUT, 128)
    tones = matplotlib.colormaps["RdBu"](np.concatenate([half, 1.0 - half[::-1]]))
    return ListedColormap(tones, name="RdBu_signed")


def colour_range(
    finite: NDArray[np.float64], vmin: float | None, vmax: float | None, signed: bool = False
) -> tuple[float, float]:
    """The colour bar's ends: those given; else -1 and 1 for a signed score (``signed``), 0
    and 1 when every value lies in [0, 1] (a score's range, not the data's span), else the
    data's smallest and largest value."""
    if signed:
        low, high = -1.0, 1.0
    elif finite.size == 0:
        low, high = 0.0, 1.0
    else:
        low, high = float(finite.min()), float(finite.max())
        if low >= 0.0 and high <= 1.0:
            low, high = 0.0, 1.0
    low = low if vmin is None else float(vmin)
    high = high if vmax is None else float(vmax)
    if low > high:
        raise ValueError(f"vmin must not exceed vmax; got vmin={low!r}, vmax={high!r}")
    return low, high


def default_point_size(n: int) -> float:
    """The default marker area (points squared) for ``n`` points: smaller as they are more."""
    return float(np.clip(_SIZE_AREA / max(n, 1), *_SIZE_RANGE))


def plot_embedding(
    coords: Any,
    values: Any,
    *,
    basis: str = "X_umap",
    ax: Axes | None = None,
    cmap: str | Colormap | None = None,
    vmin: float | None = None,
    vmax: float | None = None,
    label: str | None = None,
    title: str | None = None,
    point_size: float | None = None,
    lowest_on_top: bool = True,
) -> Axes:
    """A 2-D embedding (a UMAP) coloured by one number per sample, such as
    :func:`~fastcluster_metrics.per_sample_score`: where a clustering and the truth disagree.

    The points are rasterised (one image in vector formats, light at millions of points),
    without edges, on equal axes without ticks. With ``lowest_on_top`` the points are drawn
    from the highest value to the lowest, so that the cells of low agreement lie on top (and
    fast: each run of one colour is one marker line, below the Axes' other artists).
    Samples without a value (NaN, such as those that ``missing="drop"`` drops; infinite values
    too) are drawn first, in light grey, and named "no score" in a legend below the Axes.

    Parameters
    ----------
    coords
        The positions: an (n, 2) array-like (further columns are ignored), or an AnnData (any
        object with ``.obsm``), whose ``.obsm[basis]`` is read.
    values
        One number per point; or, with an AnnData, the name of a column of its ``.obs``
        (``"silhouette"``: the column ``silhouette_<labels>`` that
        :func:`~fastcluster_metrics.silhouette_adata` wrote, when there is one).
    basis
        The embedding of an AnnData (``"X_umap"``, ``"X_tsne"``, ...); it also names the axes
        (UMAP1 and UMAP2, tSNE1, PC1, or the basis' own name and 1 and 2).
    ax
        The matplotlib Axes to draw on; a new figure when omitted.
    cmap
        The colour map. Default: viridis; for signed scores, a diverging map centred at 0
        (RdBu without its palest middle: red below 0, blue above).
    vmin, vmax
        The ends of the colour bar. Default: -1 and 1 for signed scores (a silhouette: an
        ``.obs`` column named ``silhouette`` or ``silhouette_<labels>``, or values in [-1, 1]
        with some below 0); 0 and 1 when every value lies in [0, 1] (a score, shown on its
        whole range); else the smallest and largest finite value. Values beyond them take
        the end colours, and the colour bar ends in a triangle.
    label
        The colour bar's label. Default: the ``.obs`` column's name, or "score".
    title
        The Axes' title (none by default).
    point_size
        The marker area in points squared. Default: 120,000 / n, within [0.05, 20].
    lowest_on_top
        Draw the lowest values last (on top); otherwise the points are drawn in their order,
        as a scatter that colours each point (four times slower at a million points).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> import fastcluster_metrics as fcm
    >>> from fastcluster_metrics.plot import plot_embedding
    >>> truth = ["B", "B", "B", "T", "T", "T"]
    >>> clusters = [0, 0, 1, 1, 1, 1]
    >>> umap = np.array([[0, 0], [0, 1], [1, 0], [5, 5], [5, 6], [6, 5]])
    >>> ax = plot_embedding(umap, fcm.per_sample_score(truth, clusters))
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('UMAP1', 'UMAP2')
    >>> bar = ax.figure.axes[-1]  # the colour bar: a score's whole range
    >>> [float(end) for end in bar.get_ylim()], bar.get_ylabel()
    ([0.0, 1.0], 'score')
    >>> lowest = ax.get_lines()[-1]  # drawn last, on top: the cell that cluster 1 took from B
    >>> lowest.get_xdata().tolist(), lowest.get_ydata().tolist()
    ([1.0], [0.0])

    Silhouettes are shown on -1 to 1, centred at 0:

    >>> ax = plot_embedding(umap, fcm.silhouette_samples(umap, clusters), label="silhouette")
    >>> bar = ax.figure.axes[-1]
    >>> [float(end) for end in bar.get_ylim()], bar.get_ylabel()
    ([-1.0, 1.0], 'silhouette')
    """
    positions = _positions(coords, basis)
    n = positions.shape[0]
    scores, name = _scores(coords, values, n)
    finite = np.isfinite(scores)
    signed = is_signed(scores[finite], isinstance(values, str) and is_silhouette(name))
    low, high = colour_range(scores[finite], vmin, vmax, signed)
    size = default_point_size(n) if point_size is None else float(point_size)

    import matplotlib
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    if cmap is None:
        colours = signed_cmap() if signed else matplotlib.colormaps["viridis"]
    else:
        colours = matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap
    scale = Normalize(low, high)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(5.6, 4.6), layout="constrained")
    missing = int(n - np.count_nonzero(finite))
    if missing:
        _dots(ax, positions[~finite], NO_SCORE, size, _ZORDER - 0.1)
    shown = np.flatnonzero(finite)
    if lowest_on_top:
        # highest first, lowest last (on top); a stable sort keeps ties in the given order
        shown = shown[np.argsort(-scores[shown], kind="stable")]
    _draw(ax, positions[shown], scores[shown], colours, scale, size)
    if ax.get_rasterization_zorder() is None:
        ax.set_rasterization_zorder(_ZORDER + 0.05)  # the points as one image in PDF, SVG

    drawn = scores[finite]
    below, above = bool((drawn < low).any()), bool((drawn > high).any())
    extend = {(False, False): "neither", (True, False): "min", (False, True): "max"}
    bar = ax.figure.colorbar(
        ScalarMappable(norm=scale, cmap=colours), ax=ax, shrink=0.85, pad=0.02,
        extend=extend.get((below, above), "both"),
    )  # fmt: skip
    bar.set_label(name if label is None else label)
    if missing:
        from matplotlib.lines import Line2D

        grey = Line2D(
            [], [], marker="o", linestyle="none", markersize=6, markerfacecolor=NO_SCORE,
            markeredgewidth=0, label=f"no score ({missing:,})",
        )  # fmt: skip
        ax.legend(
            handles=[grey], loc="upper left", bbox_to_anchor=(0.0, 0.0), fontsize=8,
            frameon=False, handletextpad=0.2, borderaxespad=0.2,
        )  # fmt: skip
    axis = _axis_name(basis)
    ax.set_xlabel(f"{axis}1")
    ax.set_ylabel(f"{axis}2")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_aspect("equal", adjustable="datalim")
    if title is not None:
        ax.set_title(title)
    return ax


def _dots(ax: Axes, xy: NDArray[np.float64], colour: Any, size: float, zorder: float) -> None:
    """Points of one colour: one marker line, which matplotlib draws by stamping one marker."""
    ax.plot(
        xy[:, 0], xy[:, 1], linestyle="none", marker="o", markersize=float(np.sqrt(size)),
        markeredgewidth=0, color=colour, rasterized=True, zorder=zorder,
    )  # fmt: skip


def _draw(
    ax: Axes,
    xy: NDArray[np.float64],
    scores: NDArray[np.float64],
    colours: Colormap,
    scale: Normalize,
    size: float,
) -> None:
    """The points in the order given, coloured by score: each run of one colour as one marker
    line (the colours of sorted scores make at most one run per entry of the colour map); a
    scatter that colours each point when there would be more than ``_MAX_RUNS`` runs."""
    if scores.size == 0:
        return
    rgba = np.asarray(colours(scale(scores)))
    starts = np.flatnonzero((rgba[1:] != rgba[:-1]).any(axis=1)) + 1
    if starts.size >= _MAX_RUNS:
        ax.scatter(
            xy[:, 0], xy[:, 1], c=scores, cmap=colours, norm=scale, s=size, marker="o",
            linewidths=0, edgecolors="none", rasterized=True, zorder=_ZORDER,
        )  # fmt: skip
        return
    bounds = [0, *starts.tolist(), scores.size]
    for first, end in itertools.pairwise(bounds):
        _dots(ax, xy[first:end], tuple(rgba[first]), size, _ZORDER)
