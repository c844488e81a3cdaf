"""scIB's results table (:func:`plot_scib_table`, re-exported by
:mod:`fastcluster_metrics.plot`), drawn as scib-metrics' ``Benchmarker.plot_results_table``
draws it with plottable, in plain matplotlib: a row an embedding, best ``Total`` first; each
metric's score written in a circle coloured by PRGn (purple low, green high, the colours
spread over the column's median ± 2.5 standard deviations), under its group's name; each
aggregate as a bar of YlGnBu, its length the score (0 to 1), written beside it. matplotlib
is imported when :func:`plot_scib_table` is first called.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_scib_table"]

METRIC_TYPE = "Metric Type"
AGGREGATE_SCORE = "Aggregate score"

_METHOD_WIDTH = 1.5
"""The embeddings' column is this many metric columns wide (plottable's widths)."""
_NUM_STDS = 2.5
_DARK_TEXT_BELOW = 150
"""A cell whose colour is darker than this (plottable's luminance, 0 to 256) has white
text."""
_HEADER = 1.3
"""Rows of the header above the first embedding: the groups' names over their rule, then the
two-line column titles."""


def _text_colour(rgba: tuple[float, ...]) -> str:
    r, g, b = rgba[:3]
    return "black" if 256 * (0.299 * r + 0.587 * g + 0.114 * b) > _DARK_TEXT_BELOW else "white"


def _sort_column(columns: list[str]) -> str:
    for name in ("Total", "Batch correction", "Bio conservation"):
        if name in columns:
            return name
    raise ValueError(
        "the table has no aggregate score (Total, Batch correction or Bio conservation):"
        " give scib_benchmark's (or Benchmarker.get_results()') frame"
    )


def plot_scib_table(results: Any, *, ax: Axes | None = None, title: str | None = None) -> Axes:
    """Draw scIB's results table: :func:`~fastcluster_metrics.scib_benchmark`'s frame (or
    scib-metrics' ``Benchmarker.get_results()``), as ``Benchmarker.plot_results_table``
    draws it.

    The embeddings are sorted by ``Total`` (or the one aggregate there is), best first. Each
    metric's score is written in a circle of PRGn, coloured over its column's median ± 2.5
    standard deviations (the middle colour when the column has one value); the aggregates are
    bars of YlGnBu from 0 to 1 with their value. The metrics stand under their group's name
    (``Bio conservation``, ``Batch correction``), the aggregates under ``Aggregate score``,
    apart by a line. Returns the Axes; a new figure (as wide as plottable's: 1.25 inch a
    column) when ``ax`` is None.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from fastcluster_metrics import plot
    >>> table = pd.DataFrame(
    ...     {"cLISI": [0.9, 0.8, "Bio conservation"], "iLISI": [0.2, 0.6, "Batch correction"],
    ...      "Batch correction": [0.2, 0.6, "Aggregate score"],
    ...      "Bio conservation": [0.9, 0.8, "Aggregate score"],
    ...      "Total": [0.62, 0.72, "Aggregate score"]},
    ...     index=pd.Index(["X_pca", "X_scVI", "Metric Type"], name="Embedding"))
    >>> ax = plot.plot_scib_table(table)
    >>> [t.get_text() for t in ax.texts[:3]]
    ['Method', 'X_scVI', 'X_pca']
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    import matplotlib.pyplot as plt
    from matplotlib import colormaps
    from matplotlib.colors import Normalize
    from matplotlib.patches import Rectangle

    if not hasattr(results, "index") or METRIC_TYPE not in results.index:
        raise ValueError(
            f"plot_scib_table takes scib_benchmark's frame, with its {METRIC_TYPE!r} row"
        )
    kinds = results.loc[METRIC_TYPE]
    columns = [str(c) for c in results.columns]
    scores = [c for c, kind in zip(columns, kinds, strict=True) if kind != AGGREGATE_SCORE]
    aggregates = [c for c, kind in zip(columns, kinds, strict=True) if kind == AGGREGATE_SCORE]
    frame = results.drop(METRIC_TYPE).astype(np.float64)
    frame.columns = columns
    frame = frame.sort_values(by=_sort_column(aggregates), ascending=False)
    names = [str(i) for i in frame.index]
    n = len(names)
    if ax is None:
        _, ax = plt.subplots(figsize=(len(columns) * 1.25, 3 + 0.3 * n))
    purple_green = colormaps["PRGn"]
    blues = colormaps["YlGnBu"]
    left = [0.0] + [_METHOD_WIDTH + j for j in range(len(columns))]  # each column's left edge
    width = _METHOD_WIDTH + len(columns)
    fontsize = 10

    ax.text(0.05, -0.5, "Method", ha="left", va="center", fontsize=fontsize, weight="bold")
    for row, name in enumerate(names):
        ax.text(0.05, row + 0.5, name, ha="left", va="center", fontsize=fontsize, weight="bold")
    # column titles, and each group's name over its columns
    groups: dict[str, list[int]] = {}
    for j, col in enumerate(columns):
        x = left[j + 1] + 0.5
        # a point smaller than the cells: "connectivity" beside "comparison" keeps a gap
        ax.text(x, -0.5, col.replace(" ", "\n", 1), ha="center", va="center", fontsize=fontsize - 1)
        groups.setdefault(str(kinds.iloc[j]), []).append(j)
    for group, members in groups.items():
        start, end = left[members[0] + 1], left[members[-1] + 1] + 1.0
        ax.text(
            (start + end) / 2, -_HEADER + 0.1, group, ha="center", va="bottom", fontsize=fontsize
        )
        ax.plot([start + 0.1, end - 0.1], [-_HEADER + 0.2] * 2, color="0.8", lw=1)
    for col in scores:
        values = frame[col].to_numpy()
        finite = values[np.isfinite(values)]
        spread = float(np.std(finite, ddof=1)) if finite.size > 1 else math.nan
        centre = float(np.median(finite)) if finite.size else 0.0
        norm = (
            Normalize(centre - _NUM_STDS * spread, centre + _NUM_STDS * spread)
            if spread > 0
            else None
        )
        x = left[columns.index(col) + 1] + 0.5
        for row, value in enumerate(values):
            if not np.isfinite(value):
                ax.text(x, row + 0.5, "nan", ha="center", va="center", fontsize=fontsize)
                continue
            rgba = purple_green(float(norm(value)) if norm is not None else 0.5)
            ax.text(
                x,
                row + 0.5,
                f"{value:.2f}",
                ha="center",
                va="center",
                fontsize=fontsize,
                color=_text_colour(rgba),
                bbox={"boxstyle": "circle", "pad": 0.25, "facecolor": rgba, "linewidth": 0},
            )
    for col in aggregates:
        x0 = left[columns.index(col) + 1] + 0.05
        span = 0.9
        for row, value in enumerate(frame[col].to_numpy()):
            if not np.isfinite(value):
                continue
            length = span * float(np.clip(value, 0.0, 1.0))
            rgba = blues(float(value))
            ax.add_patch(Rectangle((x0, row + 0.2), length, 0.6, facecolor=rgba, lw=0))
            inside = value >= 0.5
            tx = x0 + length + (-0.025 if inside else 0.025) * span
            ax.text(
                tx,
                row + 0.5,
                f"{value:.2f}",
                ha="right" if inside else "left",
                va="center",
                fontsize=fontsize,
                color=_text_colour(rgba) if inside else "black",
            )
    # the header's rule, the rows' dotted dividers, the footer, the aggregates' border
    ax.plot([0, width], [0, 0], color="black", lw=1)
    for row in range(1, n):
        ax.plot([0, width], [row, row], color="black", lw=1, ls=(0, (1, 5)))
    ax.plot([0, width], [n, n], color="black", lw=1)
    if aggregates:
        border = left[columns.index(aggregates[0]) + 1]
        ax.plot([border, border], [0, n], color="black", lw=1)
    ax.set_xlim(0, width)
    ax.set_ylim(n + 0.05, -_HEADER - 0.4)
    ax.axis("off")
    if title is not None:
        ax.set_title(title)
    return ax
