"""Scores against a parameter (:func:`plot_scores`, re-exported by
:mod:`fastcluster_metrics.plot`): one curve per measure, for model selection.

What the catalogue knows decides the picture: scores in [0, 1] and [-1, 1] share the top
Axes; unbounded measures (MI and the entropies in nats, chi-squared, pair counts) get a panel
of their own per unit below it, sharing its x axis. Numbers on the x axis (k, a resolution,
names such as ``k9``, ``leiden_0.5`` that end in one) are joined by lines; named clusterings
are points, side by side; the levels of :func:`score_levels` (an index named ``"level"``) are
joined by lines in their order, under their names. Each curve marks its best value with a
ring; the measure chosen by ``best=`` (the first one by default) with a star, a dashed line and
the title. matplotlib and pandas are imported when :func:`plot_scores` is first called.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._measures.catalogue import MEASURES, Measure
from .._measures.lookup import label, resolve

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_scores"]

_TREE_COLUMN = "n_clusters"
"""The column of :func:`score_dendrogram`'s scores that holds each cut's number of clusters."""

_LEVELS = "level"
"""The index name of :func:`score_levels`' rows: the levels of a hierarchy, coarse to fine, are
drawn in their order, joined by lines, under their own names."""

_MARKERS_UP_TO = 60
"""Curves of at most this many points are drawn with a marker at each."""

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
_LINES = ("-", "--", "-.", ":")
"""Each curve's marker and line style (with its colour), so that curves that lie on each
other (AMI, NMI and the V-measure often do) stay apart in the picture and the legend."""

_SAME = 1e-9
"""Curves that differ by no more than this share of their panel's span are the same measure
under two names, said so in the legend (``V-measure (= NMI)``)."""

_DODGE = 0.5
"""Named clusterings: the points of the measures are spread over this much of the slot."""

_NAME_NUMBER = re.compile(r"^(.*?)[_=\- ]?(-?\d+(?:\.\d*)?|-?\.\d+)$")


def _scores_frame(
    scores: Any, predictions: Any, metrics: Sequence[str] | None, missing: str
) -> Any:
    """The scores as a DataFrame: one row per parameter value, one column per measure."""
    import pandas as pd

    from .._many.compare import compare_many

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


def _row(name: object) -> Measure | None:
    """The catalogue's row of a column named by a measure's full name (None for others)."""
    measure = _measure_or_none(str(name))
    return measure if measure is not None and measure.name == name else None


def _axis_of(name: object, values: NDArray[np.float64]) -> str:
    """The panel of a column: "score" for measures with a range (and columns the catalogue
    does not know whose values lie in [-1, 1]), the unit of an unbounded measure, or the
    column's own name."""
    measure = _row(name)
    if measure is not None:
        return "score" if measure.range is not None else measure.unit or label(str(name))
    finite = values[np.isfinite(values)]
    return "score" if finite.size == 0 or np.abs(finite).max() <= 1 else str(name)


def _higher_is_better(name: object) -> bool:
    measure = _row(name)
    return measure is None or measure.greater_is_better


def _x_values(index: list[Any]) -> tuple[NDArray[np.float64] | None, str | None]:
    """The numbers of the x axis, and the name they come with: the index's values when all are
    numbers; the numbers ending names that share their start (``k9``, ``k10``: 9, 10 and
    "k"); None when the values are names (categories)."""
    if index and all(
        isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
        for x in index
    ):
        return np.asarray(index, dtype=float), None
    found = [_NAME_NUMBER.match(x) if isinstance(x, str) else None for x in index]
    if len(index) < 2 or any(m is None for m in found):
        return None, None
    starts = {m.group(1) for m in found if m is not None}
    numbers = [float(m.group(2)) for m in found if m is not None]
    if len(starts) != 1 or len(set(numbers)) < len(numbers):
        return None, None
    return np.array(numbers), starts.pop() or None


def _panels(ax: Axes | None, count: int, figsize: tuple[float, float]) -> list[Axes]:
    """``count`` Axes stacked, sharing the x axis: a new figure's, or ``ax`` cut into them (the
    first one twice as tall as each other). Without a grid to cut ``ax`` from, the other panels
    are twins of it (their own y axis on the right)."""
    ratios = [2.0] + [1.0] * (count - 1)
    if ax is None:
        import matplotlib.pyplot as plt

        _, made = plt.subplots(
            count, 1, sharex=True, squeeze=False, figsize=figsize, height_ratios=ratios,
            layout="constrained",
        )  # fmt: skip
        return list(made[:, 0])
    if count == 1:
        return [ax]
    spec = ax.get_subplotspec()
    if spec is None:
        return [ax] + [ax.twinx() for _ in range(count - 1)]
    grid = spec.subgridspec(count, 1, height_ratios=ratios, hspace=0.08)
    ax.set_subplotspec(grid[0])
    return [ax] + [ax.figure.add_subplot(grid[i], sharex=ax) for i in range(1, count)]


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
    """Scores against a parameter (k, a resolution) or named clusterings: one curve per
    measure, for model selection.

    Measures with a range ([0, 1], [-1, 1]) share the Axes returned; unbounded ones (MI and
    the entropies in nats, chi-squared, pair counts: the catalogue's ``range`` and ``unit``)
    are drawn in a panel per unit below it, sharing its x axis (cut from ``ax``'s place in its
    figure when ``ax`` is given). Numbers on the x axis are joined by lines; names are drawn
    as points, the measures side by side. Every curve marks its best value with a ring.

    Parameters
    ----------
    scores
        A DataFrame with one row per parameter value (its index) and one column per measure,
        as :func:`compare_many` returns; or a mapping of parameter value -> mapping of
        measure -> score (an :class:`Evaluation` is one). Or, with ``predictions``, the true
        labels. :func:`score_dendrogram`'s scores draw each measure against the number of
        clusters ``k`` (on a log axis when ``k`` spans two decades or more). Names that all
        end in a number after a common start (``k9``, ``k10``; ``leiden_0.5``,
        ``leiden_1.0``) are drawn as those numbers.
    predictions
        A mapping of parameter value -> predicted labels (or anything :func:`compare_many`
        takes); they are scored against ``scores`` (the truth) first.
    metrics
        The measures to draw (default: all columns of given scores; ARI, AMI, NMI,
        homogeneity, completeness, FMI and purity when scoring labels).
    best
        A measure (full or short name) whose best value is marked with a star and a dashed
        line, and named in the title with the parameter value that reaches it: the highest,
        or the lowest for a distance (VI, Mirkin, ...). Default: the first measure.
    xlabel
        The x axis label (default: the index's name; the common start of names ending in
        numbers, such as "k"; "clustering" for names; "parameter" for unnamed numbers).
    missing
        As the metrics' ``missing=``, when labels are given.
    ax
        The matplotlib Axes to draw on; a new figure when omitted.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes of the bounded scores (of the first panel when there are none), which holds
        the title; the other panels are in its figure.

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
    frame = _scores_frame(scores, predictions, metrics, missing)
    if best is None and len(frame.columns):
        best = str(frame.columns[0])
    if best is not None and best not in frame.columns:
        measure = _measure_or_none(best)
        if measure is None or measure.name not in frame.columns:
            raise ValueError(
                f"best={best!r} is not among the measures drawn: {list(frame.columns)}"
            )
        best = measure.name
    index = list(frame.index)
    levels = getattr(frame.index, "name", None) == _LEVELS and frame.index.nlevels == 1
    numbers, start = (None, None) if levels else _x_values(index)
    name = getattr(frame.index, "name", None)
    if xlabel is None and name is not None:
        xlabel = str(name)
    elif xlabel is None:
        xlabel = start or ("clustering" if numbers is None else "parameter")
    order = np.argsort(numbers, kind="stable") if numbers is not None else np.arange(len(index))
    x = numbers[order] if numbers is not None else np.arange(len(index), dtype=float)

    columns = list(frame.columns)
    values = {c: frame[c].to_numpy(dtype=float)[order] for c in columns}
    groups: dict[str, list[Any]] = {}
    for c in columns:
        groups.setdefault(_axis_of(c, values[c]), []).append(c)
    if "score" in groups:  # the bounded scores first, on the Axes returned
        groups = {"score": groups.pop("score"), **groups}
    height = 4.5 + 1.9 * (len(groups) - 1)
    panels = _panels(ax, len(groups), (7.5, height))
    top = panels[0]

    dots = len(index) <= _MARKERS_UP_TO
    categorical = numbers is None
    dodged = categorical and not levels and len(columns) > 1
    spread = _DODGE / max(len(columns), 1) if dodged else 0.0
    where = {c: k for k, c in enumerate(columns)}
    at_best: dict[Any, int] = {}
    for panel, (unit, names) in zip(panels, groups.items(), strict=True):
        drawn: list[tuple[str, NDArray[np.float64]]] = []
        span = _span([values[c] for c in names])
        for c in names:
            k = where[c]
            shown = label(str(c))
            for other, ys in drawn:
                if _same(values[c], ys, span):
                    shown = f"{shown} (= {other})"
                    break
            drawn.append((label(str(c)), values[c]))
            xs = x + (k - (len(columns) - 1) / 2) * spread
            line = panel.plot(
                xs, values[c], color=f"C{k % 10}",
                marker=_MARKERS[k % len(_MARKERS)] if dots or categorical else None,
                markersize=5,
                linestyle="None" if categorical and not levels else _LINES[k % len(_LINES)],
                linewidth=1.6, label=shown,
            )[0]  # fmt: skip
            ys = values[c]
            if not np.isnan(ys).all():
                i = int(np.nanargmax(ys) if _higher_is_better(c) else np.nanargmin(ys))
                at_best[c] = i
                panel.scatter(
                    [xs[i]], [ys[i]], s=110, facecolors="none", edgecolors=line.get_color(),
                    linewidths=1.5, zorder=3,
                )  # fmt: skip
        panel.set_ylabel(unit)
        panel.grid(True, alpha=0.3)
        panel.legend(
            fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
            frameon=False,
        )  # fmt: skip
    if best is not None and best in at_best:
        i = at_best[best]
        k = where[best]
        xs = x + (k - (len(columns) - 1) / 2) * spread
        panel = panels[list(groups).index(_axis_of(best, values[best]))]
        for each in panels:
            each.axvline(x[i], color="0.4", linestyle="--", linewidth=1)
        panel.plot(
            [xs[i]], [values[best][i]], marker="*", markersize=14, color="black",
            linestyle="none", zorder=4,
        )  # fmt: skip
        at = index[order[i]] if start is None or numbers is None else f"{x[i]:g}"
        top.set_title(f"best {xlabel} = {at} by {label(best)} ({values[best][i]:.4g})")
    log = numbers is not None and len(x) and x.min() > 0 and x.max() / x.min() >= 100
    if log:
        # Numbers of clusters over decades (every cut of a dendrogram): the few-cluster end,
        # where the choice is made, would be squeezed against the axis.
        top.set_xscale("log")
    bottom = panels[-1]
    if log:
        from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

        # Plain numbers (5, 20, 1000, not 10^3), at the values drawn when they are few; no
        # labels on the minor ticks (they ran into one another).
        if len(x) <= 12:
            bottom.set_xticks(x)
        else:
            bottom.xaxis.set_major_locator(LogLocator(base=10))
        bottom.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        bottom.xaxis.set_minor_formatter(NullFormatter())
    elif numbers is not None and bool(np.all(x == np.round(x))):
        from matplotlib.ticker import MaxNLocator

        bottom.xaxis.set_major_locator(MaxNLocator(integer=True))
    if categorical:
        long = len(index) > 6 or max((len(str(v)) for v in index), default=0) > 12
        bottom.set_xticks(x, [str(v) for v in index], rotation=30 if long else 0,
                          ha="right" if long else "center")  # fmt: skip
        bottom.set_xlim(-0.6, len(index) - 0.4)
    for panel in panels[:-1]:
        panel.tick_params(axis="x", labelbottom=False)
    bottom.set_xlabel(xlabel)
    return top


def _span(curves: list[NDArray[np.float64]]) -> float:
    finite = np.concatenate([c[np.isfinite(c)] for c in curves]) if curves else np.array([])
    return float(finite.max() - finite.min()) if finite.size else 0.0


def _same(a: NDArray[np.float64], b: NDArray[np.float64], span: float) -> bool:
    """Whether two curves would be drawn on each other (NaN where the other is NaN)."""
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return False
    both = ~np.isnan(a)
    return bool(both.any()) and bool(np.abs(a[both] - b[both]).max() <= _SAME * max(span, 1e-12))
