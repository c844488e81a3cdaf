"""One clustering scored against every level of a hierarchy of labels (``score_levels``): an
atlas's annotation levels (Azimuth's ``celltype.l1``/``l2``/``l3``, CellTypist's high and low
resolution) as columns, or the depths of a tree of labels (the Cell Ontology's is-a tree).

The finest labels are counted against the prediction once; each coarser level's table is that
table's rows added up the tree (a class's row into its coarse label's), never counted again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .._labels.codes import (
    Column,
    apply_missing,
    check_missing,
    encode,
    missing_advice,
    prepare,
)
from .._measures.catalogue import Measure
from .._measures.contingency import Contingency
from .._measures.lookup import resolve_all
from .._table.count import count_pair
from .._utils.params import check_array_like
from .._utils.public import public
from .compare import _named
from .hierarchy import Tree, read_tree

__all__ = ["score_levels"]

_FUNC = "score_levels"


def _many(labels_pred: Any) -> bool:
    """Several predictions: a mapping, a DataFrame, or a 2-D array (one per column)."""
    return (
        isinstance(labels_pred, Mapping)
        or (hasattr(labels_pred, "columns") and hasattr(labels_pred, "__getitem__"))
        or (isinstance(labels_pred, np.ndarray) and labels_pred.ndim == 2)
    )


def _sorted(labels: list[Any]) -> list[Any]:
    """Distinct labels in sorted order (as a table's classes), or as first seen when they do
    not compare (None, the missing label, among strings)."""
    distinct = list(dict.fromkeys(labels))
    try:
        return sorted(distinct)
    except TypeError:
        return distinct


def _is_missing(label: Any) -> bool:
    return label is None


# --- the labels, encoded once ----------------------------------------------------------------


class _Encoder:
    """Labelings validated and encoded once each (strings hashed once), of one length."""

    def __init__(self, missing: str) -> None:
        self.missing = missing
        self.shape: tuple[int, ...] | None = None

    def __call__(self, what: str, name: Any, labels: Any) -> Column:
        check_array_like(_FUNC, **{"labels_true" if what == "level" else "labels_pred": labels})
        prepared = prepare(labels, self.missing)
        shape = prepared.shape
        if len(shape) != 1:
            raise ValueError(f"{what} {name!r} must be 1D: shape is {shape!r}")
        if self.shape is not None and shape != self.shape:
            raise ValueError(
                "Found input variables with inconsistent numbers of samples:"
                f" [{self.shape[0]}, {shape[0]}] ({what} {name!r})"
            )
        self.shape = shape
        col = encode(prepared)
        if self.missing == "raise" and col.missing is not None:
            k = int(col.missing.sum())
            raise ValueError(f"{what} {name!r} has missing labels: {missing_advice(k, len(col))}")
        return col


def _table(true: Column, pred: Column, missing: str) -> Contingency:
    """The table of two encoded columns in one pass, in sorted label order."""
    t, p, _ = apply_missing(true, pred, missing)
    return Contingency._of_columns(count_pair(t, p, None, True, _FUNC), t, p)


# --- the levels of columns ---------------------------------------------------------------------


def _coarser(coarse: tuple[Any, Column], fine: tuple[Any, Column], missing: str) -> dict[Any, Any]:
    """Each label of the finer level to its label in the coarser one, read from the two
    columns' table (missing counted as a label, checked against ``missing``); ValueError when
    a fine label lies under two coarse labels."""
    (coarse_name, coarse_col), (fine_name, fine_col) = coarse, fine
    table = _table(fine_col, coarse_col, "cluster")
    rows, cols, counts = table.cells
    classes, clusters = table.classes.tolist(), table.clusters.tolist()
    per_row = np.bincount(rows, minlength=len(classes))
    bad = np.flatnonzero(per_row > 1)
    if bad.size:
        i = int(bad[0])
        under = [clusters[j] for j in cols[rows == i]]
        raise ValueError(
            f"level {coarse_name!r} is not coarser than level {fine_name!r}: label"
            f" {classes[i]!r} of {fine_name!r} lies under {len(under)} labels of"
            f" {coarse_name!r} ({', '.join(repr(x) for x in under[:5])}"
            f"{', ...' if len(under) > 5 else ''}); list the levels from coarse to fine"
        )
    mapping = {classes[int(r)]: clusters[int(c)] for r, c in zip(rows, cols, strict=True)}
    if missing == "drop":
        for r, c, k in zip(rows, cols, counts, strict=True):
            a, b = classes[int(r)], clusters[int(c)]
            if _is_missing(a) != _is_missing(b):
                has, lacks = (
                    (coarse_name, fine_name) if _is_missing(a) else (fine_name, coarse_name)
                )
                label = b if _is_missing(a) else a
                raise ValueError(
                    "with missing='drop', the levels must miss labels on the same samples:"
                    f" {int(k)} samples have a label in level {has!r} ({label!r}) and none in"
                    f" level {lacks!r}"
                )
    return mapping


def _column_levels(
    levels: Any, encoder: _Encoder
) -> tuple[list[Any], Column, list[dict[Any, Any]]]:
    """The levels' names, the finest labels encoded, and each level's map from the next finer
    one."""
    if isinstance(levels, Mapping) or hasattr(levels, "columns"):
        named = _named(dict(levels) if isinstance(levels, Mapping) else levels, "levels")
    elif isinstance(levels, np.ndarray) and levels.ndim == 2:
        named = _named(levels, "levels")
    else:
        raise TypeError(
            "score_levels takes levels as a DataFrame, a mapping of name -> labels or a 2-D"
            " array (one level per column), coarse to fine; or the fine labels with parents="
        )
    if not named:
        raise ValueError("score_levels needs at least one level; levels has none")
    columns = [(name, encoder("level", name, labels)) for name, labels in named]
    maps = [_coarser(columns[k], columns[k + 1], encoder.missing) for k in range(len(named) - 1)]
    return [name for name, _ in named], columns[-1][1], maps


def _column_rows(classes: list[Any], maps: list[dict[Any, Any]]) -> list[list[Any]]:
    """Each level's label of each finest class, coarse to fine (the finest: the classes)."""
    out = [classes]
    for mapping in reversed(maps):
        out.append([mapping[x] for x in out[-1]])
    return out[::-1]


def _tree_rows(classes: list[Any], tree: Tree, depths: int) -> list[list[Any]]:
    """Each depth's label of each finest class: its ancestor there, or itself when shallower."""
    return [[tree.at_depth(x, d) for x in classes] for d in range(depths)]


# --- the tables ------------------------------------------------------------------------------


def _merged(table: Contingency, labels: list[Any]) -> Contingency:
    """The table with the rows of classes sharing a label added into one row, in sorted label
    order: the same cells as counting that level, from the table's cells alone."""
    coarse = _sorted(labels)
    if len(coarse) == len(labels):  # no two classes share a label: the table as counted
        return (
            table
            if coarse == labels
            else Contingency._of(table._native_table, _array(labels), table.clusters)
        )
    where = {x: i for i, x in enumerate(coarse)}
    index = np.fromiter((where[x] for x in labels), dtype=np.int64, count=len(labels))
    rows, cols, counts = table.cells
    native = _native.table_from_cells(
        len(coarse), table.shape[1], index[rows], cols, counts.astype(np.int64)
    )
    return Contingency._of(native, _array(coarse), table.clusters)


def _array(labels: list[Any]) -> NDArray[Any]:
    """Labels as a 1-D array, kept as objects (tuples and mixed types too)."""
    values: NDArray[Any] = np.empty(len(labels), dtype=object)
    values[:] = labels
    return values


def _scores(table: Contingency, measures: list[Measure]) -> list[float]:
    return [m(table) for m in measures]


@public
def score_levels(
    levels: Any,
    labels_pred: Any,
    *,
    parents: Any = None,
    metrics: Iterable[str] | str | None = None,
    missing: str = "raise",
) -> Any:
    """Scores of a clustering against every level of a hierarchy of labels, coarse to fine, as
    a pandas DataFrame.

    A reference atlas annotates at several granularities (Azimuth's ``celltype.l1``, ``l2``,
    ``l3``; CellTypist's high and low resolution; the depths of the Cell Ontology); a
    clustering is judged against the level it resolves. The finest labels are counted against
    the prediction in one pass; each coarser level's table is that table with the rows of the
    classes that share a coarse label added together, so the values equal
    :func:`evaluate` of that level's labels, without counting them again.

    Parameters
    ----------
    levels
        The reference labels at each level, coarse to fine: a DataFrame (one level per column,
        named by it), a mapping of name -> labels, or a 2-D array (one level per column). Each
        level must be coarser than the next: a label of a finer level under two labels of the
        coarser one raises ``ValueError`` naming it. With ``parents``: the fine labels alone.
    labels_pred
        The predicted clusters; or several clusterings, as a mapping of name -> labels, a
        DataFrame or a 2-D array (one per column), as :func:`compare_many` takes them.
    parents
        A tree of labels: a mapping of child label -> parent label, or (child, parent) edges
        as a two-column DataFrame or an array of shape (n_edges, 2), of any depth. The levels
        are then the depths from the roots: level 0 the roots, level ``d`` each label's
        ancestor at depth ``d`` (a label on a shorter branch stays itself), the last level the
        labels themselves. Roots are the labels with no parent; a label the tree does not name
        is a root of its own (at every level itself). A label with two parents, or that is its
        own ancestor, raises ``ValueError`` naming it.
    metrics
        The measures (full or short names, ``"all"``), :func:`evaluate`'s defaults when None.
    missing
        ``"raise"`` (default), ``"drop"`` or ``"cluster"``, as every metric's ``missing=``.
        With ``"drop"``, the levels must miss labels on the same samples (else
        ``ValueError``): a sample dropped at one level is dropped at all of them. With
        ``"cluster"``, missing is one more label at each level, under the coarser level's
        missing label (or the one label its samples have there).

    Returns
    -------
    pandas.DataFrame
        One row per level, indexed by the level's name (its column, or the depth 0, 1, ...
        with ``parents``; the index is named ``"level"``), one column per measure. With
        several predictions, one row per (prediction, level), a two-level index named
        ``("prediction", "level")``: ``result.loc["leiden_1.0"]`` is one prediction's rows,
        ``result.xs(2, level="level")`` one level's, ``result[m].unstack()`` a prediction by
        level table of one measure. Needs pandas.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> levels = {"l1": ["T", "T", "T", "B"], "l2": ["CD4", "CD8", "CD8", "B"]}
    >>> fcm.score_levels(levels, [0, 0, 0, 1], metrics=["ARI", "homogeneity"])
           adjusted_rand_score  homogeneity_score
    level
    l1                1.000000           1.000000
    l2                0.333333           0.540852

    The same levels from a tree, and two clusterings at once:

    >>> parents = {"CD4": "T", "CD8": "T"}
    >>> fcm.score_levels(["CD4", "CD8", "CD8", "B"], {"k2": [0, 0, 0, 1], "k3": [0, 1, 1, 2]},
    ...                  parents=parents, metrics=["ARI"])
                      adjusted_rand_score
    prediction level
    k2         0                 1.000000
               1                 0.333333
    k3         0                 0.333333
               1                 1.000000
    """
    import pandas as pd

    measures = resolve_all(metrics, _FUNC)
    missing = check_missing(_FUNC, missing)
    encoder = _Encoder(missing)
    tree: Tree | None = None
    maps: list[dict[Any, Any]] = []
    if parents is None:
        names, finest, maps = _column_levels(levels, encoder)
    else:
        if isinstance(levels, Mapping) or hasattr(levels, "columns"):
            raise TypeError(
                "with parents=, levels is the fine labels (one column); got several columns:"
                " give the levels without parents=, or the finest level with them"
            )
        tree = read_tree(parents)
        finest = encoder("level", "labels", levels)
    many = _many(labels_pred)
    predictions = _named(labels_pred, "predictions") if many else [("labels_pred", labels_pred)]
    tables = [
        (name, _table(finest, encoder("prediction", name, pred), missing))
        for name, pred in predictions
    ]
    if tree is not None:
        deepest = max((tree.depth(x) for _, t in tables for x in t.classes.tolist()), default=0)
        names = list(range(deepest + 1))
    keys: list[Any] = []
    rows: list[list[float]] = []
    for name, table in tables:
        classes = table.classes.tolist()
        per_level = (
            _column_rows(classes, maps) if tree is None else _tree_rows(classes, tree, len(names))
        )
        for level, labels in zip(names, per_level, strict=True):
            keys.append(level if not many else (name, level))
            rows.append(_scores(_merged(table, labels), measures))
    if many:
        index = pd.MultiIndex.from_tuples(keys, names=["prediction", "level"])
    else:
        index = pd.Index(keys, name="level")
    return pd.DataFrame(rows, index=index, columns=[m.name for m in measures])
