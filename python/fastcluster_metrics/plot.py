"""Pictures of a comparison: the contingency table, the pair counts, and scores against a
parameter (the number of clusters ``k``, a Leiden resolution) for model selection.

Needs matplotlib (``pip install 'fastcluster-metrics[plot]'``), imported when a function is
first called: ``import fastcluster_metrics.plot`` alone imports nothing heavy. Each function
takes the labels themselves (any label type the metrics take) or a :class:`Contingency`,
draws on ``ax=`` (a new figure when omitted) and returns the Axes. On a machine without a
display, use the Agg backend (``matplotlib.use("Agg")`` or ``MPLBACKEND=Agg``) or draw on the
axes of a :class:`matplotlib.figure.Figure` made directly, as the command line does.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from fastcluster_metrics import plot
>>> ax = plot.plot_contingency(["a", "a", "b", "b", "b"], [1, 1, 1, 2, 2])
>>> ax.get_xlabel(), [t.get_text() for t in ax.get_xticklabels()]
('predicted cluster', ['1', '2'])
>>> import io
>>> ax.figure.savefig(io.BytesIO(), format="png")
>>> import matplotlib.pyplot as plt
>>> plt.close("all")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ._catalogue import MEASURES, Measure, label, resolve
from ._clustree import plot_clustree
from ._contingency import Contingency

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_clustree", "plot_contingency", "plot_pair_confusion", "plot_scores"]

_ANNOTATE_CELLS = 400
"""``annotate="auto"`` writes the counts into tables with at most this many cells."""


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


def _natural_order(labels: NDArray[Any]) -> NDArray[np.intp]:
    """Label order, except that text labels that are all numbers ("2" < "10") sort as numbers."""
    if labels.dtype.kind in "OUS" and labels.size:
        try:
            values = np.array([float(x) for x in labels.tolist()])
        except (TypeError, ValueError):
            return np.arange(labels.size)
        order: NDArray[np.intp] = np.argsort(values, kind="stable")
        return order
    return np.arange(labels.size)


def _match_order(counts: NDArray[np.int64]) -> NDArray[np.intp]:
    """Columns ordered by the row (class) holding most of each, then by that share, descending:
    a good clustering shows as a block diagonal."""
    if counts.size == 0:
        return np.arange(counts.shape[1])
    best = counts.argmax(axis=0)
    sizes = np.maximum(counts.sum(axis=0), 1)
    share = counts[best, np.arange(counts.shape[1])] / sizes
    order: NDArray[np.intp] = np.lexsort((-share, best))
    return order


def _text(label: Any) -> str:
    return "<NA>" if label is None else str(label)


def plot_contingency(
    labels_true: Any,
    labels_pred: Any = None,
    *,
    normalize: str | None = "row",
    order: str = "match",
    annotate: bool | str = "auto",
    missing: str = "raise",
    cmap: str = "Blues",
    colorbar: bool = True,
    xlabel: str = "predicted cluster",
    ylabel: str = "true class",
    title: str | None = None,
    ax: Axes | None = None,
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
        clustering is a block diagonal; ``"sorted"``: clusters in label order. Classes are in
        label order (numbers written as text in numeric order).
    annotate
        Write each non-zero count in its cell: ``True``, ``False``, or ``"auto"`` (when the
        table has at most 400 cells).
    missing
        As the metrics' ``missing=``, when labels are given.
    cmap, colorbar, xlabel, ylabel, title
        Colour map, whether to draw a colour bar, axis labels and title.
    ax
        The matplotlib Axes to draw on; a new figure when omitted.

    Returns
    -------
    matplotlib.axes.Axes

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
    table = _table(labels_true, labels_pred, missing, "plot_contingency")
    counts = table.to_numpy()
    rows = _natural_order(table.classes)
    counts = counts[rows]
    if order == "match":
        cols = _match_order(counts)
    else:
        cols = _natural_order(table.clusters)
    counts = counts[:, cols]
    classes, clusters = table.classes[rows], table.clusters[cols]

    values: NDArray[np.float64]
    if normalize == "row":
        values = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        bar_label, vmax = "share of the class", 1.0
    elif normalize == "column":
        values = counts / np.maximum(counts.sum(axis=0, keepdims=True), 1)
        bar_label, vmax = "share of the cluster", 1.0
    else:
        values = counts.astype(np.float64)
        bar_label, vmax = "samples", max(float(values.max(initial=0.0)), 1.0)

    n_rows, n_cols = counts.shape
    if ax is None:
        ax = _new_axes((min(3.0 + 0.35 * n_cols, 16.0), min(2.5 + 0.3 * n_rows, 14.0)))
    image = ax.imshow(
        values, cmap=cmap, vmin=0.0, vmax=vmax, aspect="auto", interpolation="nearest"
    )
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label=bar_label, shrink=0.8)
    fontsize = 9 if max(n_rows, n_cols) <= 20 else 7 if max(n_rows, n_cols) <= 50 else 5
    if n_cols <= 100:
        ax.set_xticks(
            np.arange(n_cols),
            [_text(c) for c in clusters],
            rotation=90
            if n_cols > 12 or max((len(_text(c)) for c in clusters), default=0) > 3
            else 0,
            fontsize=fontsize,
        )
    else:
        ax.set_xticks([])
    if n_rows <= 100:
        ax.set_yticks(np.arange(n_rows), [_text(c) for c in classes], fontsize=fontsize)
    else:
        ax.set_yticks([])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title)
    if annotate is True or (annotate == "auto" and counts.size <= _ANNOTATE_CELLS):
        for i, j in zip(*np.nonzero(counts), strict=True):
            dark = values[i, j] / vmax > 0.55
            ax.text(
                j,
                i,
                _cell(counts[i, j]),
                ha="center",
                va="center",
                fontsize=fontsize - 1,
                color="white" if dark else "black",
            )
    return ax


def _scores_frame(
    scores: Any, predictions: Any, metrics: Sequence[str] | None, missing: str
) -> Any:
    """The scores as a DataFrame: one row per parameter value, one column per measure."""
    import pandas as pd

    from ._many import compare_many

    if predictions is not None:
        chosen = [m.name for m in MEASURES.values() if m.plotted] if metrics is None else metrics
        return compare_many(scores, predictions, chosen, missing=missing)
    if hasattr(scores, "columns") and hasattr(scores, "index"):
        frame = scores
    elif isinstance(scores, Mapping):
        frame = pd.DataFrame.from_dict(
            {key: dict(value) for key, value in scores.items()}, orient="index"
        )
    else:
        raise TypeError(
            "plot_scores takes a DataFrame of scores (as compare_many returns), a mapping of"
            " parameter value -> {measure: score}, or labels_true and predictions"
        )
    if _TREE_COLUMN in frame.columns and _measure_or_none(_TREE_COLUMN) is None:
        # score_dendrogram's scores: the number of clusters of each cut is no measure.
        frame = frame.drop(columns=_TREE_COLUMN)
    if metrics is not None:
        frame = frame[[_column_of(frame, m) for m in metrics]]
    return frame


_TREE_COLUMN = "n_clusters"
"""The column of :func:`score_dendrogram`'s scores that holds each cut's number of clusters."""

_MARKERS_UP_TO = 60
"""Curves of at most this many points are drawn with a marker at each."""


def _column_of(frame: Any, name: str) -> Any:
    """The column of the scores holding measure ``name`` (a column name, or a full or short
    name of a measure whose full name is a column)."""
    if name in frame.columns:
        return name
    measure = _measure_or_none(name)
    if measure is not None and measure.name in frame.columns:
        return measure.name
    raise ValueError(f"no scores for {name!r}; the scores have {list(frame.columns)}")


def _measure_or_none(name: object) -> Measure | None:
    try:
        return resolve(name, "plot_scores")
    except ValueError:
        return None


def plot_scores(
    scores: Any,
    predictions: Any = None,
    *,
    metrics: Sequence[str] | None = None,
    best: str | None = None,
    xlabel: str | None = None,
    missing: str = "raise",
    ax: Axes | None = None,
) -> Axes:
    """Scores against a parameter (k, a resolution): one curve per measure, for model selection.

    Parameters
    ----------
    scores
        A DataFrame with one row per parameter value (its index) and one column per measure,
        as :func:`compare_many` returns; or a mapping of parameter value -> mapping of
        measure -> score (an :class:`Evaluation` is one). Or, with ``predictions``, the true
        labels. :func:`score_dendrogram`'s scores draw each measure against the number of
        clusters ``k`` (on a log axis when ``k`` spans two decades or more), and mark the best
        ``k`` by the first measure unless ``best`` names another.
    predictions
        A mapping of parameter value -> predicted labels (or anything :func:`compare_many`
        takes); they are scored against ``scores`` (the truth) first.
    metrics
        The measures to draw (default: all columns of given scores; ARI, AMI, NMI,
        homogeneity, completeness, FMI and purity when scoring labels).
    best
        A measure (full or short name) whose best score is marked, with the parameter value
        that reaches it: the highest, or the lowest for a distance (VI, Mirkin, ...).
    xlabel
        The x axis label (default: the index name, or "parameter").
    missing
        As the metrics' ``missing=``, when labels are given.
    ax
        The matplotlib Axes to draw on; a new figure when omitted.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from fastcluster_metrics.plot import plot_scores
    >>> truth = [0, 0, 0, 1, 1, 1]
    >>> runs = {1: [0, 0, 0, 0, 0, 0], 2: [0, 0, 0, 1, 1, 1], 3: [0, 0, 1, 2, 2, 2]}
    >>> ax = plot_scores(truth, runs, metrics=["adjusted_rand_score", "purity_score"],
    ...                  best="adjusted_rand_score", xlabel="k")
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['ARI', 'purity']
    >>> ax.get_title()
    'best k = 2 by ARI (1)'
    """
    tree = (
        predictions is None
        and hasattr(scores, "columns")
        and _TREE_COLUMN in scores.columns
        and getattr(scores.index, "name", None) == "k"
    )
    frame = _scores_frame(scores, predictions, metrics, missing)
    if tree and best is None and len(frame.columns):
        best = str(frame.columns[0])
    if best is not None and best not in frame.columns:
        measure = _measure_or_none(best)
        if measure is None or measure.name not in frame.columns:
            raise ValueError(
                f"best={best!r} is not among the measures drawn: {list(frame.columns)}"
            )
        best = measure.name
    index = list(frame.index)
    numeric = all(
        isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
        for x in index
    )
    x: NDArray[Any] = np.asarray(index, dtype=float) if numeric else np.arange(len(index))
    if ax is None:
        ax = _new_axes((7.0, 4.5))
    dots = len(index) <= _MARKERS_UP_TO
    for name in frame.columns:
        ax.plot(
            x,
            frame[name].to_numpy(dtype=float),
            marker="o" if dots else None,
            markersize=4,
            label=label(str(name)),
        )
    if numeric and len(x) and x.min() > 0 and x.max() / x.min() >= 100:
        # Numbers of clusters over decades (every cut of a dendrogram): the few-cluster end,
        # where the choice is made, would be squeezed against the axis.
        ax.set_xscale("log")
    if not numeric:
        ax.set_xticks(x, [str(v) for v in index], rotation=30 if len(index) > 6 else 0)
    if best is not None and len(index):
        column = frame[best].to_numpy(dtype=float)
        if not np.isnan(column).all():
            measure = _measure_or_none(best)
            lower = measure is not None and measure.name == best and not measure.greater_is_better
            at = int(np.nanargmin(column) if lower else np.nanargmax(column))
            ax.axvline(x[at], color="0.4", linestyle="--", linewidth=1)
            ax.plot(
                [x[at]], [column[at]], marker="*", markersize=14, color="black", linestyle="none"
            )
            short = label(best)
            name = xlabel or getattr(frame.index, "name", None) or "parameter"
            ax.set_title(f"best {name} = {index[at]} by {short} ({column[at]:.4g})")
    ax.set_xlabel(xlabel or getattr(frame.index, "name", None) or "parameter")
    ax.set_ylabel(_ylabel(frame.columns))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    return ax


def _ylabel(columns: Any) -> str:
    """ "score" for measures with a range (scores in [0, 1] or [-1, 1]); the units of the
    unbounded ones (nats, pairs, ...) from the catalogue beside it."""
    units = []
    for name in columns:
        measure = _measure_or_none(str(name))
        unit = measure.unit if measure is not None and measure.name == name else ""
        if unit and unit not in units:
            units.append(unit)
    bounded = any(
        (m := _measure_or_none(str(n))) is None or m.name != n or m.range is not None
        for n in columns
    )
    return " / ".join((["score"] if bounded or not units else []) + units)


def _count(value: int | float) -> str:
    return f"{value:,.0f}" if value < 1e7 else f"{value:.3g}"


def _cell(value: Any) -> str:
    """A cell of the table as written in it: a count exactly, a sum of real weights to one
    decimal (to three significant digits from 1e7)."""
    if isinstance(value, (int, np.integer)):
        return f"{value:,}"
    return f"{value:,.1f}" if value < 1e7 else f"{value:.3g}"


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
    classes kept apart or put together. The
    default title gives the Rand index and the adjusted Rand index.

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
                fontsize=8,
                color="white" if shares[i, j] > 0.55 else "black",
            )
    ax.set_xticks([0, 1], ["apart", "together"])
    ax.set_yticks([0, 1], ["apart", "together"])
    ax.set_xlabel("pair in predicted clustering")
    ax.set_ylabel("pair in true classes")
    if title is None:
        rand, ari = table.rand_score(), table.adjusted_rand_score()
        title = f"pairs of samples: Rand {rand:.4f}, ARI {ari:.4f}"
    ax.set_title(title)
    return ax
