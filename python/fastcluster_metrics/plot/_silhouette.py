"""The silhouette plot (:func:`plot_silhouette`, re-exported by :mod:`fastcluster_metrics.plot`),
as Rousseeuw drew it (1987, "Silhouettes: a graphical aid to the interpretation and validation
of cluster analysis", J. Comput. Appl. Math. 20) and R's ``cluster::plot.silhouette`` and
scikit-learn's silhouette analysis example draw it: each cluster's silhouettes sorted, one
horizontal band per cluster, the mean (``silhouette_score``) dashed.

Made for millions of samples: a band is one polygon, a step curve through at most
``_VERTICES`` evenly spaced order statistics of its sorted values (the first and last among
them, so that its ends are exact), not a bar per sample; a million samples in 30 clusters go
to a PNG in well under a second. Labels are the library's (``_labels/codes.py``), named as the
heatmaps name them, in natural order. matplotlib is imported when :func:`plot_silhouette` is
first called.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._embedding.silhouette import silhouette_samples
from .._labels.codes import check_missing, encode, missing_advice, prepare
from .._utils.natural import natural_order
from ._embedding import _numbers
from ._heatmap import TICK_POINTS, _laid_out, _text

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap

__all__ = ["plot_silhouette"]

ORDERS = ("label", "size", "score")
"""The orders of the bands, top to bottom (``order=``)."""

_VERTICES = 2000
"""A band of more samples than this is drawn through at most this many of its sorted values
(evenly spaced order statistics, the largest and the smallest among them): finer than the
pixels of any band ..."""

_BUDGET = 20_000
"""... and the bands share this many between them by size (each at least ``_FEWEST``): 30
bands of a million samples take 667 each, and render in a tenth of a second."""

_FEWEST = 64

_GAPS = 0.15
"""The gaps between bands take at most this share of the height ..."""

_GAP = 0.012
"""... and each at most this share of the samples' height (sklearn's example: 10 of 1,797)."""

_MEAN = "0.15"
"""The colour of the dashed line at the mean."""


def _silhouettes(x: Any, samples: Any, labels: Any, metric: Any, missing: str) -> Any:
    """The silhouette of each sample: given (``samples=``), checked in [-1, 1], or computed
    by :func:`~fastcluster_metrics.silhouette_samples`."""
    if labels is None:
        raise ValueError("plot_silhouette needs the labels: plot_silhouette(X, labels)")
    if x is None and samples is None:
        raise ValueError(
            "plot_silhouette needs X (the embedding) and labels, or samples= (the"
            " silhouette of each sample, as silhouette_samples gives them) and labels"
        )
    if x is not None and samples is not None:
        raise ValueError("pass X (computed here) or samples= (precomputed), not both")
    if samples is None:
        values = silhouette_samples(x, labels, metric=metric, missing=missing)
        if values.ndim != 1:
            raise ValueError(f"plot_silhouette draws one labeling; got {values.shape[0]} labelings")
        return values
    values = _numbers(samples, "samples", "one silhouette per sample")
    if values.ndim != 1:
        raise ValueError(f"samples must be one silhouette per sample (1-D); got {values.shape}")
    bad = np.flatnonzero(np.isinf(values) | (np.abs(values) > 1.0))
    if bad.size:
        at = int(bad[0])
        raise ValueError(
            "samples must be silhouettes: finite numbers in [-1, 1] (NaN for none); got"
            f" {float(values[at])!r} at index {at} ({bad.size:,} of {values.size:,} are not)"
        )
    return values


def _clusters(
    labels: Any, values: NDArray[np.float64], missing: str
) -> tuple[list[NDArray[np.float64]], NDArray[Any], float]:
    """The silhouettes of each cluster, sorted from the largest down, the cluster's label,
    and the mean of them all (summed as ``silhouette_score`` sums them). Kept are the
    samples with a silhouette (not NaN) and, unless ``missing="cluster"`` counts them as one
    more cluster, a label."""
    prepared = prepare(labels, "drop")  # missing labels are marked here, refused below
    shape = prepared.shape
    if len(shape) != 1:
        raise ValueError(f"labels must be one labeling (1-D); got shape {shape}")
    if shape[0] != values.shape[0]:
        raise ValueError(
            f"labels has {shape[0]:,} samples but samples has {values.shape[0]:,} silhouettes"
        )
    column = encode(prepared)
    keep = ~np.isnan(values)
    if column.missing is not None and missing != "cluster":
        stray = column.missing & keep  # (none when computed: the policy is applied)
        if missing == "raise" and stray.any():
            k = int(column.missing.sum())
            raise ValueError(f"labels has missing labels: {missing_advice(k, len(column))}")
        keep &= ~column.missing
    if not keep.any():
        raise ValueError("no sample has both a silhouette and a label: nothing to draw")
    codes = column.codes[keep]
    # One sort groups the samples by cluster and finds the clusters (the codes there are).
    by = np.argsort(codes, kind="stable")
    grouped = codes[by]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    ends = [*starts[1:].tolist(), grouped.size]
    kept = values[keep]
    mean = float(kept.mean())
    kept = kept[by]
    bands = [np.sort(kept[a:b])[::-1] for a, b in zip(starts.tolist(), ends, strict=True)]
    return bands, column.labels(grouped[starts]), mean


def _colours(cmap: str | Colormap | None, k: int) -> NDArray[np.float64]:
    """One colour per band: a qualitative map's colours in turn (tab10 up to 10 clusters,
    else tab20), a continuous map's evenly spaced."""
    import matplotlib
    from matplotlib.colors import ListedColormap

    if cmap is None:
        cmap = "tab10" if k <= 10 else "tab20"
    colours = matplotlib.colormaps[cmap] if isinstance(cmap, str) else cmap
    if isinstance(colours, ListedColormap) and colours.N <= 20:
        return np.asarray(colours(np.arange(k) % colours.N), dtype=np.float64)
    return np.asarray(colours(np.linspace(0.0, 1.0, k)), dtype=np.float64)


def _band(sorted_desc: NDArray[np.float64], start: float, n: int) -> NDArray[np.float64]:
    """The polygon of one band (of ``n`` samples in all), from 0 out to a step curve: the
    band runs from ``start`` down (a sample a unit of height), and each step is a sampled
    silhouette, from its sample's top to the next sampled one's; at most ``_VERTICES``
    steps, the band's share of ``_BUDGET``."""
    m = sorted_desc.shape[0]
    steps = min(_VERTICES, max(_FEWEST, -(-_BUDGET * m // n)))
    at = np.arange(m) if m <= steps else np.round(np.linspace(0, m - 1, steps))
    at = at.astype(np.intp)
    tops = start + np.append(at, m).astype(np.float64)
    xs = np.concatenate([[0.0], np.repeat(sorted_desc[at], 2), [0.0]])
    ys = np.concatenate([tops[:1], np.column_stack([tops[:-1], tops[1:]]).ravel(), tops[-1:]])
    return np.column_stack([xs, ys])


def _left_end(lowest: float) -> float:
    """The x axis' left end: -0.1 (0 and a margin), or further, in tenths, to the lowest."""
    return max(-1.0, min(-0.1, float(np.floor((lowest - 0.02) * 10.0) / 10.0)))


def _shown(centres: NDArray[np.float64], sizes: NDArray[Any], room: float) -> NDArray[np.intp]:
    """The bands whose labels are written: the largest first, each unless its centre lies
    within ``room`` (data units) of one already written."""
    chosen: list[int] = []
    placed: list[float] = []  # the centres written, in order
    for j in np.argsort(-sizes, kind="stable").tolist():
        centre = float(centres[j])
        i = bisect.bisect(placed, centre)
        if (i == 0 or centre - placed[i - 1] >= room) and (
            i == len(placed) or placed[i] - centre >= room
        ):
            placed.insert(i, centre)
            chosen.append(j)
    return np.sort(np.array(chosen, dtype=np.intp))


def plot_silhouette(
    X: Any = None,
    labels: Any = None,
    *,
    samples: Any = None,
    metric: Any = "euclidean",
    missing: str = "raise",
    order: str = "label",
    cmap: str | Colormap | None = None,
    title: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """The silhouette plot: each cluster's silhouettes sorted from the largest down, one
    horizontal band per cluster, the mean silhouette (``silhouette_score``) dashed.

    A band's height is its cluster's size and its outline the sorted silhouettes of its
    samples: a wide band is a compact, well separated cluster; what reaches left of 0 is
    samples closer to another cluster than to their own. Bands are stacked top to bottom
    with small gaps, each named on the left with its size (``3 (178)``) and its mean
    silhouette on the right; when bands are too thin for every label, the largest bands are
    named first and the names that would overlap are left out (the named bands then get a
    tick). The x axis runs from -0.1 (or the lowest silhouette, in tenths, down to -1) to 1.

    Parameters
    ----------
    X
        The embedding, as :func:`~fastcluster_metrics.silhouette_samples` takes it (the
        silhouettes are computed with ``metric`` and ``missing``); or None with ``samples``.
    labels
        The cluster of each sample: any label type the metrics take (strings, numbers, a
        pandas Categorical, ...). One labeling.
    samples
        The silhouette of each sample, precomputed (``silhouette_samples``' result, or
        ``approximate_silhouette_samples``' at millions of samples), instead of ``X``: numbers
        in [-1, 1], NaN for a sample without one.
    metric
        The distance, when computed from ``X``.
    missing
        As the metrics' ``missing=``: ``"drop"`` leaves out the samples without a label (with
        ``samples``, those whose silhouette is NaN are left out whatever it says),
        ``"cluster"`` draws them as one more cluster, ``"<NA>"``.
    order
        The bands, top to bottom: ``"label"`` (natural label order: ``c2`` before ``c10``),
        ``"size"`` (the largest first) or ``"score"`` (the highest mean silhouette first).
    cmap
        The bands' colours: a colour map, whose colours are taken in turn when it has at most
        20 (tab10, the default up to ten clusters, then tab20), else evenly spaced.
    title
        The Axes' title; by default the mean and the numbers of clusters and samples
        (``""`` for none).
    ax
        The matplotlib Axes to draw on; a new figure when omitted.

    Samples without a silhouette (NaN, as ``missing="drop"`` leaves them) are left out of
    the bands and the mean, and the x axis' label says how many.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fastcluster_metrics.plot import plot_silhouette
    >>> X = [[0.0], [1.0], [2.0], [7.0], [8.0], [12.0]]
    >>> ax = plot_silhouette(X, ["a", "a", "a", "b", "b", "b"])
    >>> ax.get_title()
    'silhouette of 2 clusters: mean 0.705 (6 samples)'
    >>> [t.get_text() for t in ax.get_yticklabels()]  # top to bottom
    ['a (3)', 'b (3)']
    >>> mean = ax.get_lines()[-1]
    >>> round(float(mean.get_xdata()[0]), 3), mean.get_linestyle()
    (0.705, '--')
    >>> [float(end) for end in ax.get_xlim()]
    [-0.1, 1.0]
    """
    func = "plot_silhouette"
    missing = check_missing(func, missing)
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(map(repr, ORDERS))}; got {order!r}")
    values = _silhouettes(X, samples, labels, metric, missing)
    values = np.asarray(values, dtype=np.float64)
    bands, names, mean = _clusters(labels, values, missing)
    sizes = np.array([b.shape[0] for b in bands], dtype=np.int64)
    n, k = int(sizes.sum()), len(bands)
    means = np.array([float(b.mean()) for b in bands])
    if order == "label":
        rows = natural_order(names)
    elif order == "size":
        rows = np.argsort(-sizes, kind="stable")
    else:
        rows = np.argsort(-means, kind="stable")

    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6.4, min(4.2 + 0.04 * k, 9.0)), layout="constrained")
    from matplotlib.collections import PolyCollection

    # A cluster's colour follows its label's rank, whatever the order of the bands.
    colours = _colours(cmap, k)[np.argsort(natural_order(names), kind="stable")]
    gap = n * min(_GAP, _GAPS / max(k - 1, 1))
    starts = np.zeros(k)
    polygons = []
    at = 0.0
    for row, j in enumerate(rows):
        polygons.append(_band(bands[j], at, n))
        starts[row] = at
        at += sizes[j] + gap
    total = at - gap
    # One collection of k polygons (thousands of bands stay fast), not snapped to pixels
    # (a thin band's steps would be stripes).
    ax.add_collection(
        PolyCollection(
            polygons, facecolors=colours[rows], edgecolors="none", linewidths=0, snap=False,
            label="clusters",
        ),
        autolim=False,
    )  # fmt: skip
    pad = max(gap / 2.0, 0.004 * total)
    ax.axvline(0.0, color="0.3", linewidth=0.8)
    ax.axvline(mean, color=_MEAN, linestyle="--", linewidth=1.2, label=f"mean {mean:.3f}")

    ax.set_xlim(_left_end(min(float(b[-1]) for b in bands)), 1.0)
    ax.set_ylim(total + pad, -pad)  # the first band at the top
    xlabel = "silhouette coefficient"
    dropped = int(values.shape[0] - n)
    if dropped:
        xlabel += f"\n({dropped:,} samples without a silhouette (NaN) left out)"
    ax.set_xlabel(xlabel)
    ax.set_ylabel("cluster (samples)")
    if title is None:
        title = f"silhouette of {k:,} clusters: mean {mean:.3f} ({n:,} samples)"
    if title:
        ax.set_title(title)
    _label_bands(ax, rows, names, sizes, means, starts, k)
    return ax


def _label_bands(
    ax: Axes,
    rows: NDArray[np.intp],
    names: NDArray[Any],
    sizes: NDArray[Any],
    means: NDArray[np.float64],
    starts: NDArray[np.float64],
    k: int,
) -> None:
    """Each band's name and size on the left, its mean silhouette on the right: the longest
    labels first, for the layout to make room for them (all of them would take seconds at
    200 bands); then those that fit."""
    fontsize = 9.0 if k <= 20 else TICK_POINTS
    heights = sizes[rows].astype(np.float64)
    centres = starts + heights / 2.0
    left = [f"{_text(names[j])} ({int(sizes[j]):,})" for j in rows]
    right = [f"{means[j]:.2f}" for j in rows]
    mirror = ax.secondary_yaxis("right")
    for axis, texts in ((ax, left), (mirror, right)):
        longest = int(np.argmax([len(t) for t in texts]))
        axis.set_yticks([centres[longest]], [texts[longest]], fontsize=fontsize)
    mirror.set_ylabel("cluster mean")
    _, height = _laid_out(ax)
    low, high = ax.get_ylim()
    per_point = abs(low - high) / max(72.0 * height, 1.0)
    shown = _shown(centres, heights, 1.25 * fontsize * per_point)
    every = shown.size == k
    for axis, texts in ((ax, left), (mirror, right)):
        axis.set_yticks(centres[shown], [texts[i] for i in shown], fontsize=fontsize)
        axis.tick_params(axis="y", length=0 if every else 2.5)
