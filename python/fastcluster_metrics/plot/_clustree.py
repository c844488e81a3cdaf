"""The clustering tree (Zappia & Oshlack 2018, "Clustering trees: a visualization for evaluating
clusterings at multiple resolutions", GigaScience 7(7)): one row of nodes per resolution, an
edge between clusters of consecutive resolutions weighted by the samples they share, nodes
coloured by how they match a truth. Its edges are the contingency tables of consecutive
resolutions, one count each.

:func:`~fastcluster_metrics.plot.plot_clustree` draws it; matplotlib is imported when it is
first called.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._io.columns import find_columns
from .._measures.contingency import Contingency
from .._utils.natural import natural_key

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["by_resolution", "draw", "figure_size", "plot_clustree"]

_COLORS = ("purity", "majority")

_LABELLED_UP_TO = 24
"""Rows of at most this many nodes have their cluster labels written in the nodes."""

_PLAIN = (0.298, 0.447, 0.690, 1.0)
"""The fill of every node when no truth colours them."""

_LABEL_POINTS = 11.0
"""The smallest node (its width in points) that a cluster label is written in."""


@dataclass
class _Level:
    """One resolution's clusters: labels, sizes, positions and colour values."""

    name: str
    clusters: NDArray[Any]
    sizes: NDArray[np.float64]
    x: NDArray[np.float64]
    purity: NDArray[np.float64] | None = None
    majority: NDArray[Any] | None = None


def plot_clustree(
    runs: Any,
    columns: Any = None,
    *,
    labels_true: Any = None,
    color: str = "purity",
    min_share: float = 0.1,
    missing: str = "raise",
    ax: Axes | None = None,
) -> Axes:
    """The clustering tree of clusterings at several resolutions (Zappia & Oshlack 2018).

    One row of nodes per resolution, top to bottom; a node's area is its cluster's size. An
    edge joins a cluster to each cluster of the next resolution that takes at least
    ``min_share`` of its samples from it (the edge's share, drawn as its opacity; its width is
    the number of samples). Clusters of a row are placed under the clusters they come from.

    Parameters
    ----------
    runs
        A mapping of resolution -> labels (sorted by resolution when the keys are numbers), a
        pandas DataFrame of label columns, or an AnnData (its ``.obs`` is read). Columns whose
        names end in a number (``leiden_0.2``, ``leiden_1.0``) are sorted by that number.
    columns
        For a DataFrame or an AnnData: the label columns, by name or shell-style pattern
        (``"leiden_*"``); all columns but ``labels_true`` by default.
    labels_true
        The true labels (or, for a DataFrame or an AnnData, the name of their column): nodes
        are then coloured by ``color``. Without them, every node has one colour.
    color
        ``"purity"``: the share of the cluster's samples in its majority class (a colour bar
        from 0 to 1); ``"majority"``: the majority class itself (a legend).
    min_share
        Edges carrying less than this share of the lower cluster's samples are not drawn.
    missing
        As the metrics' ``missing=``.
    ax
        The matplotlib Axes to draw on; a new figure when omitted.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fastcluster_metrics.plot import plot_clustree
    >>> truth = ["B", "B", "T", "T", "NK", "NK"]
    >>> runs = {0.5: [0, 0, 1, 1, 1, 1], 1.0: [0, 0, 1, 1, 2, 2]}
    >>> ax = plot_clustree(runs, labels_true=truth)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['0.5', '1.0']
    """
    if color not in _COLORS:
        raise ValueError(f"color must be one of {', '.join(map(repr, _COLORS))}; got {color!r}")
    if not 0 <= min_share <= 1:
        raise ValueError(f"min_share must lie in [0, 1]; got {min_share!r}")
    named, truth = _runs(runs, columns, labels_true)
    edges, truths = _tables(named, truth, missing)
    return draw([name for name, _ in named], edges, truths, color, min_share, ax)


def draw(
    names: list[str],
    edges: list[Contingency],
    truths: list[Contingency] | None,
    color: str,
    min_share: float,
    ax: Axes | None,
) -> Axes:
    """The tree of resolutions ``names`` (in order) from their tables (:func:`_layout`): what
    :func:`plot_clustree` draws, and the command line's ``--clustree`` from the tables it
    counted."""
    levels = _layout(names, edges, truths)
    cells = [table.cells for table in edges[: len(levels) - 1]]
    return _draw(levels, cells, color if truths is not None else None, min_share, ax)


def _runs(runs: Any, columns: Any, labels_true: Any) -> tuple[list[tuple[str, Any]], Any]:
    """The (name, labels) of each resolution in order, and the truth's labels (or None)."""
    obs = getattr(runs, "obs", runs)
    if hasattr(obs, "columns") and hasattr(obs, "__getitem__"):
        truth = labels_true
        if isinstance(labels_true, str):
            (truth_name,) = find_columns(obs.columns, labels_true, "labels_true", patterns=False)
            truth = obs[truth_name]
        if columns is None:
            names = [str(c) for c in obs.columns if str(c) != labels_true]
        else:
            names = find_columns(obs.columns, columns, None)
        named = [(name, obs[name]) for name in names]
    elif isinstance(runs, Mapping):
        if columns is not None:
            raise TypeError(
                "plot_clustree takes columns= with a DataFrame or an AnnData only; pass the"
                " true labels as labels_true="
            )
        keys = list(runs)
        if all(isinstance(k, (int, float, np.integer, np.floating)) for k in keys):
            keys.sort()
        named = [(str(k), runs[k]) for k in keys]
        truth = labels_true
    else:
        raise TypeError(
            "plot_clustree takes a mapping of resolution -> labels, a DataFrame of label columns"
            f" or an AnnData; got {type(runs).__name__}"
        )
    if not named:
        raise ValueError("plot_clustree needs at least one clustering")
    return by_resolution(named), truth


def by_resolution(named: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """(name, value) pairs sorted by the number that ends every name, when every name ends in
    one (``leiden_0.2`` before ``leiden_1.0``); as given otherwise."""
    found = [re.search(r"(\d+(?:\.\d*)?|\.\d+)$", name) for name, _ in named]
    numbers = [float(m.group(1)) for m in found if m is not None]
    if len(numbers) < len(named):
        return named
    order = sorted(range(len(named)), key=numbers.__getitem__)
    return [named[i] for i in order]


def _tables(
    named: list[tuple[str, Any]], truth: Any, missing: str
) -> tuple[list[Contingency], list[Contingency] | None]:
    """The contingency tables of consecutive resolutions (of a single one with itself, for its
    sizes), and of the truth against each resolution."""
    pairs = list(itertools.pairwise(named)) or [(named[0], named[0])]
    edges = [
        Contingency.from_labels(upper, lower, missing=missing) for (_, upper), (_, lower) in pairs
    ]
    if truth is None:
        return edges, None
    return edges, [Contingency.from_labels(truth, labels, missing=missing) for _, labels in named]


def _layout(
    names: list[str], edges: list[Contingency], truths: list[Contingency] | None
) -> list[_Level]:
    """Each resolution's clusters placed under those they come from. ``edges[i]`` is the table
    of resolution ``i`` (rows) against ``i + 1`` (columns), or of a single resolution with
    itself; ``truths[i]`` the truth (rows) against resolution ``i`` (columns), which colours
    it."""
    levels: list[_Level] = []
    for i, name in enumerate(names):
        if i < len(edges):
            clusters, sizes = edges[i].classes, edges[i].class_sizes
        else:
            clusters, sizes = edges[-1].clusters, edges[-1].cluster_sizes
        level = _Level(name, np.asarray(clusters), sizes.astype(np.float64), np.zeros(len(sizes)))
        if truths is not None:
            _colour(level, truths[i])
        if i == 0:
            key = -level.sizes if level.purity is None else _first_order(level)
            level.x = _spread(np.argsort(np.argsort(key, kind="stable")))
        else:
            rows, cols, counts = edges[i - 1].cells
            above = levels[-1].x
            weight = np.bincount(cols, weights=counts, minlength=len(sizes))
            pulled = np.bincount(cols, weights=counts * above[rows], minlength=len(sizes))
            centre = pulled / np.maximum(weight, 1)
            level.x = _spread(np.argsort(np.argsort(centre, kind="stable")))
        levels.append(level)
    return levels


def _first_order(level: _Level) -> NDArray[Any]:
    """The top row by majority class (clusters of a class side by side), largest first."""
    _, rank = np.unique(np.asarray(level.majority).astype(str), return_inverse=True)
    order: NDArray[Any] = rank.reshape(-1) * (level.sizes.max() + 1) - level.sizes
    return order


def _spread(ranks: NDArray[Any]) -> NDArray[np.float64]:
    """Positions in [0, 1] spaced evenly by rank."""
    spread: NDArray[np.float64] = (ranks + 0.5) / max(ranks.size, 1)
    return spread


def _colour(level: _Level, table: Contingency) -> None:
    """Each cluster's purity and majority class against the truth (rows: classes)."""
    dense = table.to_numpy()
    order = np.searchsorted(table.clusters, level.clusters)
    best = dense.argmax(axis=0)
    level.purity = (dense.max(axis=0) / np.maximum(dense.sum(axis=0), 1))[order]
    level.majority = np.asarray(table.classes)[best][order]


def figure_size(levels: int, widest: int) -> tuple[float, float]:
    """The figure (inches) for ``levels`` resolutions of at most ``widest`` clusters."""
    return max(6.0, 0.3 * widest + 2.5), max(3.0, 0.85 * levels + 1.5)


def _draw(
    levels: list[_Level],
    edges: list[tuple[NDArray[Any], NDArray[Any], NDArray[Any]]],
    color: str | None,
    min_share: float,
    ax: Axes | None,
) -> Axes:
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

    widest = max(len(level.sizes) for level in levels)
    if ax is None:
        _, ax = plt.subplots(figsize=figure_size(len(levels), widest), layout="constrained")
    fig = ax.figure
    # Node areas: the largest cluster fills about nine tenths of its slot in the widest row.
    slot = ax.bbox.width / fig.dpi * 72 / widest
    largest = max(float(level.sizes.max()) for level in levels)
    area_max = min(900.0, (0.9 * slot) ** 2)
    biggest = max((float(c.max()) for _, _, c in edges if c.size), default=1.0)
    lines, widths, alphas = [], [], []
    for i, (rows, cols, counts) in enumerate(edges):
        upper, lower = levels[i], levels[i + 1]
        share = counts / lower.sizes[cols]
        keep = share >= min_share
        for r, c, n, s in zip(rows[keep], cols[keep], counts[keep], share[keep], strict=True):
            lines.append([(upper.x[r], -i), (lower.x[c], -i - 1)])
            widths.append(0.4 + 4.0 * float(n) / biggest)
            alphas.append(0.25 + 0.75 * float(s))
    if lines:
        rgba = np.zeros((len(lines), 4))
        rgba[:, 3] = alphas
        ax.add_collection(LineCollection(lines, linewidths=widths, colors=rgba, zorder=1))
    classes: list[Any] = []
    if color == "majority":
        found = {str(m) for level in levels for m in level.majority}  # type: ignore[union-attr]
        classes = sorted(found, key=natural_key)
    cmap = plt.get_cmap("viridis") if color != "majority" else plt.get_cmap("tab20")
    points = None
    for i, level in enumerate(levels):
        area = 20.0 + area_max * level.sizes / largest
        if color == "purity" and level.purity is not None:
            fills = cmap(level.purity)
        elif color == "majority":
            fills = np.array([cmap(classes.index(str(m)) % 20) for m in level.majority])  # type: ignore[union-attr]
        else:
            fills = np.tile(_PLAIN, (level.sizes.size, 1))
        drawn = ax.scatter(
            level.x, np.full(level.x.size, -i), s=area, c=fills, edgecolors="black",
            linewidths=0.5, zorder=2,
        )  # fmt: skip
        if color == "purity":
            drawn.set_cmap(cmap)
            drawn.set_array(level.purity)
            drawn.set_clim(0.0, 1.0)
            points = drawn
        if level.sizes.size <= _LABELLED_UP_TO:
            # A label inside a node too small to hold it would be a smudge; white on dark
            # fills, black on light ones.
            big = np.sqrt(area) >= _LABEL_POINTS
            light = fills[:, :3] @ np.array([0.299, 0.587, 0.114]) > 0.5
            for x, name, pale in zip(level.x[big], level.clusters[big], light[big], strict=True):
                ax.annotate(
                    str(name), (x, -i), xytext=(0, 0), textcoords="offset points",
                    ha="center", va="center", fontsize=7, zorder=3,
                    color="black" if pale else "white",
                )  # fmt: skip
    if points is not None:
        fig.colorbar(points, ax=ax, label="purity of the cluster", shrink=0.8)
    if color == "majority":
        from matplotlib.lines import Line2D

        handles = [
            Line2D([], [], marker="o", linestyle="none", markersize=7, label=name,
                   markerfacecolor=cmap(k % 20), markeredgecolor="black")
            for k, name in enumerate(classes)
        ]  # fmt: skip
        ax.legend(handles=handles, title="majority class", fontsize=7, loc="center left",
                  bbox_to_anchor=(1.01, 0.5), frameon=False)  # fmt: skip
    ax.set_yticks([-i for i in range(len(levels))], [level.name for level in levels])
    ax.set_ylim(-len(levels) + 0.5, 0.5)
    ax.set_xlim(0.0, 1.0)
    ax.set_xticks([])
    ax.set_ylabel("resolution")
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_title(f"clustering tree: {len(levels)} resolutions, edges of {min_share:.0%} or more")
    return ax
