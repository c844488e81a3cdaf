"""The contingency table and the pair counts as heatmaps (:func:`plot_contingency`,
:func:`plot_pair_confusion`, re-exported by :mod:`fastcluster_metrics.plot`).

The colour of a cell tells the truth about small shares: a log scale by default (a cluster
holding 3 % of a class is a mid tone, not white), empty cells white and every other cell at
least a light tone; the scale ends at the table's largest value. Cluster and class sizes are
bars along the top and the right, clusters that no class holds half of (noise, mixtures) come
last with their bars in orange, labels are in natural order (``type_2`` before ``type_10``),
and tick labels stay at 8 points or more, every second (third, ...) one shown when they would
not fit. matplotlib is imported when a function is first called.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from .._measures.contingency import Contingency
from .._utils.natural import natural_order

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap, Normalize

__all__ = ["plot_contingency", "plot_pair_confusion"]

_ANNOTATE_CELLS = 400
"""``annotate="auto"`` writes the counts into tables with at most this many cells."""

NORMS = ("log", "sqrt", "linear")
"""The colour scales of :func:`plot_contingency` (``norm=``)."""

_DECADES = 2.0
"""The log scale spans this many decades below the largest value (smaller values take its
lightest tone, and the colour bar says so with a triangle)."""

_LIGHTEST = 0.2
"""Where on the colour map the smallest non-zero value sits (0 would be white, as empty cells
are)."""

TICK_POINTS = 8.0
"""The smallest tick label (points)."""

_CELL_POINTS = 6.0
"""The smallest count written in a cell (points)."""

MIXED = "tab:orange"
"""The bars of clusters that no class holds half of."""

_BAR = "0.55"
"""The bars of the other clusters and of the classes."""

_MARGIN_INCHES = 0.65
"""The depth of the bars of sizes along the top and the right."""

_GAP_INCHES = 0.06
"""The gap between the heatmap and its bars of sizes."""


def _table(labels_true: Any, labels_pred: Any, missing: str, func: str) -> Contingency:
    if isinstance(labels_true, Contingency):
        if labels_pred is not None:
            raise TypeError(f"{func}: pass a Contingency alone, without labels_pred")
        return labels_true
    if labels_pred is None:
        raise TypeError(f"{func}: pass labels_true and labels_pred, or a Contingency")
    return Contingency.from_labels(labels_true, labels_pred, missing=missing)


def _new_axes(figsize: tuple[float, float]) -> Axes:
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _inches(ax: Axes) -> tuple[float, float]:
    """The size of ``ax`` in inches, as placed now (before the layout shrinks it a little)."""
    box = ax.get_window_extent()
    dpi = ax.figure.dpi
    return float(box.width / dpi), float(box.height / dpi)


def _laid_out(ax: Axes) -> tuple[float, float]:
    """The size of ``ax`` in inches once its figure's layout engine (constrained layout) has
    placed it with everything drawn so far; as placed now without one."""
    from matplotlib.figure import Figure

    root = ax.figure if isinstance(ax.figure, Figure) else ax.figure.figure
    engine = root.get_layout_engine()
    if engine is not None:
        engine.execute(root)
    return _inches(ax)


def _beyond(ax: Axes, side: str) -> Any:
    """Coordinates of the room right of (or above) ``ax``: inches from its right (top) edge
    one way, its own fraction the other way; what is placed in them keeps its size in inches
    whatever the layout does to ``ax``."""
    from matplotlib.transforms import Affine2DBase, ScaledTranslation, blended_transform_factory

    corner = cast(Affine2DBase, ax.transAxes)  # (a BboxTransformTo: affine)
    if side == "right":
        inches = ax.figure.dpi_scale_trans + ScaledTranslation(1.0, 0.0, corner)
        return blended_transform_factory(inches, ax.transAxes)
    inches = ax.figure.dpi_scale_trans + ScaledTranslation(0.0, 1.0, corner)
    return blended_transform_factory(ax.transAxes, inches)


def _match_order(counts: NDArray[Any]) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    """Columns ordered by the row (class) holding most of each, then by that share, descending
    (a good clustering is a block diagonal); columns that no row holds half of last, largest
    first. Also which columns (in that order) are such mixtures."""
    n_cols = counts.shape[1]
    if counts.size == 0:
        return np.arange(n_cols), np.zeros(n_cols, dtype=bool)
    best = counts.argmax(axis=0)
    sizes = counts.sum(axis=0)
    share = counts[best, np.arange(n_cols)] / np.maximum(sizes, 1)
    mixed = (share < 0.5) & (sizes > 0)
    order: NDArray[np.intp] = np.lexsort((-share, np.where(mixed, -sizes, 0), best, mixed))
    return order, mixed[order]


def _text(label: Any) -> str:
    return "<NA>" if label is None else str(label)


def _cmap(cmap: str | Colormap) -> Colormap:
    """The colour map from its lightest non-white tone up, empty (masked) cells white."""
    import matplotlib
    from matplotlib.colors import ListedColormap

    base = matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap
    tones = base(np.linspace(_LIGHTEST, 1.0, 256))
    return ListedColormap(tones, name=f"{base.name}_cells").with_extremes(
        bad="white", under=tones[0]
    )


def _norm(norm: str | Normalize, values: NDArray[np.float64]) -> Normalize:
    """The colour scale, up to the largest value; a log scale spans the two decades below it."""
    from matplotlib.colors import LogNorm, Normalize, PowerNorm

    if isinstance(norm, Normalize):
        return norm
    positive = values[values > 0]
    top = float(positive.max()) if positive.size else 1.0
    if norm == "log":
        return LogNorm(vmin=top * 10**-_DECADES, vmax=top)
    if norm == "sqrt":
        return PowerNorm(0.5, vmin=0.0, vmax=top)
    return Normalize(vmin=0.0, vmax=top)


def tick_step(count: int, room_points: float, fontsize: float) -> int:
    """Label every ``step``-th of ``count`` ticks spread over ``room_points`` so that labels of
    ``fontsize`` points (a line and a quarter each) do not overlap."""
    if count <= 1:
        return 1
    return max(1, math.ceil(1.3 * fontsize * count / max(room_points, 1.0)))


def _ticks(
    ax: Axes, axis: str, labels: list[str], room_points: float, fontsize: float, rotate: bool
) -> None:
    step = tick_step(len(labels), room_points, fontsize)
    at = np.arange(0, len(labels), step)
    shown = [labels[i] for i in at]
    if axis == "x":
        ax.set_xticks(at, shown, rotation=90 if rotate else 0, fontsize=fontsize)
    else:
        ax.set_yticks(at, shown, fontsize=fontsize)


def compact(value: float) -> str:
    """A count in at most four characters and a suffix: 15,080 as 15k, 2,500,000 as 2.5M."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            scaled = value / size
            return f"{scaled:.0f}{suffix}" if abs(scaled) >= 9.95 else f"{scaled:.1f}{suffix}"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def _fitting(
    texts: list[str], width: float, height: float, largest: float
) -> tuple[list[str], float] | None:
    """The cell texts and a font size (points) at which each fits a cell of ``width`` x
    ``height`` points (a digit is about 0.6 of the size wide): written out when that fits at
    7 points or more, else in the short form (:func:`compact`) if that is larger; None when
    neither fits at the smallest size (6 points)."""
    forms = (texts, [compact(float(t.replace(",", ""))) for t in texts])
    sizes = []
    for form in forms:
        chars = max((len(t) for t in form), default=1)
        sizes.append(min(largest, 0.85 * width / (0.6 * chars), 0.8 * height))
    if sizes[0] >= _CELL_POINTS + 1 or sizes[0] >= sizes[1]:
        pick = 0
    else:
        pick = 1
    return (forms[pick], sizes[pick]) if sizes[pick] >= _CELL_POINTS else None


def plot_contingency(
    labels_true: Any,
    labels_pred: Any = None,
    *,
    normalize: str | None = "row",
    order: str = "match",
    annotate: bool | str = "auto",
    missing: str = "raise",
    cmap: str | Colormap = "Blues",
    colorbar: bool = True,
    xlabel: str = "predicted cluster",
    ylabel: str = "true class",
    title: str | None = None,
    ax: Axes | None = None,
    norm: str | Normalize = "log",
    marginals: bool = True,
) -> Axes:
    """The contingency table as a heatmap: true classes in rows, predicted clusters in columns.

    Parameters
    ----------
    labels_true, labels_pred
        The two labelings (any label type the metrics take), or a :class:`Contingency`
        alone.
    normalize
        ``"row"`` (default): colour is the share of each class in each cluster (rows sum to
        1); ``"column"``: the share of each cluster from each class; ``None``: the counts.
    order
        ``"match"`` (default): clusters ordered by the class holding most of each, so a good
        clustering is a block diagonal, and the clusters that no class holds half of (noise,
        mixtures) last, largest first; ``"sorted"``: clusters in natural label order. Classes
        are in natural label order (the numbers in labels read as numbers: ``type_2`` before
        ``type_10``, ``"2"`` before ``"10"``).
    annotate
        Write each non-zero count in its cell: ``True``, ``False``, or ``"auto"`` (when the
        table has at most 400 cells and the counts fit their cells, written out or as
        ``15k``).
    missing
        As the metrics' ``missing=``, when labels are given.
    cmap, colorbar, xlabel, ylabel, title
        Colour map, whether to draw a colour bar, axis labels and title. Empty cells are
        white; the others start from a light tone of the map.
    ax
        The matplotlib Axes to draw on; a new figure when omitted.
    norm
        The colour scale, up to the table's largest value: ``"log"`` (default; two decades
        below it, smaller values in its lightest tone, so that small shares such as a noise
        cluster's show), ``"sqrt"``, ``"linear"``, or a :class:`matplotlib.colors.Normalize`.
    marginals
        Bars of the cluster sizes along the top and of the class sizes along the right
        (default); the bars of clusters that no class holds half of are orange.

    Returns
    -------
    matplotlib.axes.Axes
        The heatmap's Axes (the bars and the colour bar are inset Axes of it).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fastcluster_metrics.plot import plot_contingency
    >>> ax = plot_contingency([0, 0, 1, 1], ["x", "y", "y", "y"], normalize="column")
    >>> [t.get_text() for t in ax.texts]
    ['1', '1', '2']
    """
    if normalize not in ("row", "column", None):
        raise ValueError(f"normalize must be 'row', 'column' or None; got {normalize!r}")
    if order not in ("match", "sorted"):
        raise ValueError(f"order must be 'match' or 'sorted'; got {order!r}")
    if annotate not in (True, False, "auto"):
        raise ValueError(f"annotate must be True, False or 'auto'; got {annotate!r}")
    if isinstance(norm, str) and norm not in NORMS:
        raise ValueError(f"norm must be one of {', '.join(map(repr, NORMS))}; got {norm!r}")
    table = _table(labels_true, labels_pred, missing, "plot_contingency")
    counts = table.to_numpy()
    rows = natural_order(table.classes)
    counts = counts[rows]
    if order == "match":
        cols, mixed = _match_order(counts)
    else:
        cols = natural_order(table.clusters)
        sizes = counts.sum(axis=0)
        mixed = (counts.max(axis=0, initial=0) < 0.5 * sizes) & (sizes > 0)
        mixed = mixed[cols]
    counts = counts[:, cols]
    classes, clusters = table.classes[rows], table.clusters[cols]

    values: NDArray[np.float64]
    if normalize == "row":
        values = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        bar_label = "share of the class"
    elif normalize == "column":
        values = counts / np.maximum(counts.sum(axis=0, keepdims=True), 1)
        bar_label = "share of the cluster"
    else:
        values = counts.astype(np.float64)
        bar_label = "samples"

    n_rows, n_cols = counts.shape
    if ax is None:
        extra = 1.0 if marginals else 0.0
        ax = _new_axes(
            (min(3.5 + 0.3 * n_cols, 16.0) + extra, min(2.5 + 0.28 * n_rows, 13.0) + extra)
        )
    colours, scale = _cmap(cmap), _norm(norm, values)
    image = ax.imshow(
        np.ma.masked_equal(values, 0.0),
        cmap=colours,
        norm=scale,
        aspect="auto",
        interpolation="nearest",
    )
    fontsize = 9.0 if max(n_rows, n_cols) <= 20 else TICK_POINTS
    names = [_text(c) for c in clusters]
    rotate = n_cols > 12 or max(map(len, names), default=0) > 3
    rows_text = [_text(c) for c in classes]
    # Every label first, for the layout to make room for the longest; then as many as fit.
    ax.set_xticks(np.arange(n_cols), names, rotation=90 if rotate else 0, fontsize=fontsize)
    ax.set_yticks(np.arange(n_rows), rows_text, fontsize=fontsize)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if marginals:
        _marginals(ax, counts, mixed)
    if colorbar:
        _colorbar(ax, image, bar_label, marginals)
    if title is not None:
        ax.set_title(title)  # (matplotlib puts it above the bars, inset Axes of ``ax``)
    width, height = _laid_out(ax)
    _ticks(ax, "x", names, 72 * width, fontsize, rotate)
    _ticks(ax, "y", rows_text, 72 * height, fontsize, False)
    for tick, at in zip(ax.get_xticklabels(), ax.get_xticks(), strict=True):
        if mixed[int(at)]:
            tick.set_color(MIXED)
    if annotate is True or (annotate == "auto" and counts.size <= _ANNOTATE_CELLS):
        _annotate(ax, counts, values, colours, scale, 72 * width / max(n_cols, 1),
                  72 * height / max(n_rows, 1), forced=annotate is True)  # fmt: skip
    return ax


def _marginals(ax: Axes, counts: NDArray[Any], mixed: NDArray[np.bool_]) -> tuple[Axes, Axes]:
    """Bars of the cluster sizes above ``ax`` and of the class sizes right of it (inset Axes
    sharing its columns and rows)."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    top = ax.inset_axes(
        (0.0, _GAP_INCHES, 1.0, _MARGIN_INCHES), transform=_beyond(ax, "top"), sharex=ax
    )
    right = ax.inset_axes(
        (_GAP_INCHES, 0.0, _MARGIN_INCHES, 1.0), transform=_beyond(ax, "right"), sharey=ax
    )
    n_rows, n_cols = counts.shape
    colors = [MIXED if m else _BAR for m in mixed]
    top.bar(np.arange(n_cols), counts.sum(axis=0), width=0.8, color=colors)
    right.barh(np.arange(n_rows), counts.sum(axis=1), height=0.8, color=_BAR)
    top.set_ylabel("size", fontsize=TICK_POINTS)
    right.set_xlabel("size", fontsize=TICK_POINTS)
    short = FuncFormatter(lambda value, _: compact(value))
    top.tick_params(axis="y", labelsize=TICK_POINTS, length=2)
    right.tick_params(axis="x", labelsize=TICK_POINTS, length=2)
    top.tick_params(axis="x", labelbottom=False, length=0)
    right.tick_params(axis="y", labelleft=False, length=0)
    for panel, axis in ((top, top.yaxis), (right, right.xaxis)):
        axis.set_major_locator(MaxNLocator(2, integer=True))
        axis.set_major_formatter(short)
        for spine in ("top", "right"):
            panel.spines[spine].set_visible(False)
    if mixed.any():
        # Under the x axis label, clear of the title above the bars; a text of the bars' Axes,
        # so that the heatmap's texts are its counts.
        top.annotate(
            "orange: clusters that no class holds half of", xy=(0.5, 0.0),
            xycoords=ax.xaxis.label, xytext=(0.0, -2.0), textcoords="offset points",
            ha="center", va="top", fontsize=TICK_POINTS, color=MIXED,
        )  # fmt: skip
    return top, right


def _colorbar(ax: Axes, image: Any, label: str, beside_bars: bool) -> None:
    """The colour bar, right of the heatmap (right of its bars of class sizes): an inset Axes
    of the heatmap's, so that it stays by it in a figure of several panels. A log scale has
    its ticks at 1, 2 and 5 times powers of ten, written plainly."""
    from matplotlib.colors import LogNorm

    start = _GAP_INCHES + (_MARGIN_INCHES + 0.2 if beside_bars else 0.1)
    cax = ax.inset_axes((start, 0.1, 0.15, 0.8), transform=_beyond(ax, "right"))
    scale = image.norm
    data = image.get_array()
    below = (
        data is not None and scale.vmin is not None and bool((data.compressed() < scale.vmin).any())
    )
    bar = ax.figure.colorbar(image, cax=cax, extend="min" if below else "neither")
    bar.set_label(f"{label} (white: none)", fontsize=TICK_POINTS + 1)
    bar.ax.tick_params(labelsize=TICK_POINTS)
    if isinstance(scale, LogNorm) and scale.vmin is not None and scale.vmax is not None:
        low, high = float(scale.vmin), float(scale.vmax)
        steps = [
            m * 10.0**e
            for e in range(math.floor(math.log10(low)), 1 + math.ceil(math.log10(high)))
            for m in (1, 2, 5)
        ]
        ticks = [t for t in steps if low * 0.999 <= t <= high * 1.001]
        bar.set_ticks(ticks, labels=[f"{t:g}" for t in ticks])
        bar.ax.minorticks_off()


def _annotate(
    ax: Axes,
    counts: NDArray[Any],
    values: NDArray[np.float64],
    colours: Colormap,
    scale: Normalize,
    width: float,
    height: float,
    forced: bool,
) -> None:
    """Each non-zero count in its cell, white on dark tones, in short form when the count
    written out would not fit (and, unless ``forced``, none when even that would not)."""
    cells = list(zip(*np.nonzero(counts), strict=True))
    texts = [_cell(counts[i, j]) for i, j in cells]
    found = _fitting(texts, width, height, 9.0)
    if found is None:
        if not forced:
            return
        found = [compact(float(t.replace(",", ""))) for t in texts], _CELL_POINTS
    shown, size = found
    tones = colours(scale(np.array([values[i, j] for i, j in cells], dtype=np.float64)))
    dark = np.asarray(tones)[:, :3] @ np.array([0.299, 0.587, 0.114]) < 0.5 if cells else []
    for (i, j), text, on_dark in zip(cells, shown, dark, strict=True):
        ax.text(j, i, text, ha="center", va="center", fontsize=size,
                color="white" if on_dark else "black")  # fmt: skip


def _count(value: int | float) -> str:
    return f"{value:,.0f}" if value < 1e7 else f"{value:.3g}"


def _cell(value: Any) -> str:
    """A cell of the table as written in it: a count exactly, a sum of real weights to one
    decimal (to three significant digits from 1e7)."""
    if isinstance(value, (int, np.integer)):
        return f"{value:,}"
    return f"{value:,.1f}" if value < 1e7 else f"{value:.3g}"


def _fit_title(ax: Axes, title: str, fontsize: float = 12.0) -> str:
    """The title on two lines (after its colon) when one would be wider than ``ax``."""
    width, _ = _inches(ax)
    if 0.55 * fontsize * len(title) > 72 * width and ": " in title:
        return title.replace(": ", ":\n", 1)
    return title


def plot_pair_confusion(
    labels_true: Any,
    labels_pred: Any = None,
    *,
    missing: str = "raise",
    cmap: str = "Blues",
    title: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """The pair confusion matrix: for every pair of samples, together or apart in each labeling.

    Cells hold :func:`pair_confusion_matrix`'s counts (ordered pairs, as scikit-learn) and
    their share of the row; the colour is that share. The bottom row shows the pairs of one
    true class kept together (recall over pairs) or split; the top row, the pairs of two
    classes kept apart or put together. The default title gives the Rand index and the
    adjusted Rand index (on two lines when one would be wider than the Axes).

    Parameters
    ----------
    labels_true, labels_pred
        The two labelings, or a :class:`Contingency` alone.
    missing
        As the metrics' ``missing=``, when labels are given.
    cmap, title
        Colour map and title.
    ax
        The matplotlib Axes to draw on; a new figure when omitted.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fastcluster_metrics.plot import plot_pair_confusion
    >>> ax = plot_pair_confusion([0, 0, 1, 2], [0, 0, 1, 1])
    >>> ax.get_title()
    'pairs of samples: Rand 0.8333, ARI 0.5714'
    >>> [t.get_text().split()[:2] for t in ax.texts]
    [['apart', 'in'], ['together', 'only'], ['together', 'only'], ['together', 'in']]
    """
    table = _table(labels_true, labels_pred, missing, "plot_pair_confusion")
    pairs = [[int(v) for v in row] for row in table.pair_confusion_matrix().tolist()]
    totals = [max(sum(row), 1) for row in pairs]
    shares = np.array([[v / totals[i] for v in row] for i, row in enumerate(pairs)])
    if ax is None:
        ax = _new_axes((5.0, 4.2))
    ax.imshow(shares, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    names = [
        ["apart in both", "together only\nin predicted"],
        ["together only\nin true", "together in both"],
    ]
    for i in range(2):
        for j in range(2):
            ax.text(
                j,
                i,
                f"{names[i][j]}\n{_count(pairs[i][j])}\n{shares[i, j]:.1%} of row",
                ha="center",
                va="center",
                fontsize=TICK_POINTS,
                color="white" if shares[i, j] > 0.55 else "black",
            )
    ax.set_xticks([0, 1], ["apart", "together"])
    ax.set_yticks([0, 1], ["apart", "together"])
    ax.set_xlabel("pair in predicted clustering")
    ax.set_ylabel("pair in true classes")
    if title is None:
        rand, ari = table.rand_score(), table.adjusted_rand_score()
        title = _fit_title(ax, f"pairs of samples: Rand {rand:.4f}, ARI {ari:.4f}")
    ax.set_title(title)
    return ax
