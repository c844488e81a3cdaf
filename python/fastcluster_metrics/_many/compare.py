"""Many clusterings at once: one truth against many (``compare_many``), and every pair among
several (``pairwise``: stability across seeds or resolutions, consensus between methods)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import _native
from .._labels.codes import (
    Column,
    apply_missing,
    check_missing,
    check_shapes,
    encode,
    missing_advice,
    prepare,
)
from .._labels.weights import check_sample_weight
from .._measures.contingency import Contingency
from .._measures.lookup import resolve, resolve_all
from .._table.count import count_many, count_pair
from .._table.weighted import WeightedTable
from .._utils.params import check_array_like

__all__ = ["compare_many", "pairwise"]


def _named(labelings: Any, what: str) -> list[tuple[Any, Any]]:
    """(name, labels) pairs from a dict, a DataFrame (columns) or a 2-D array (columns)."""
    if isinstance(labelings, dict):
        return list(labelings.items())
    if hasattr(labelings, "columns") and hasattr(labelings, "__getitem__"):
        return [(name, labelings[name]) for name in labelings.columns]
    arr = np.asarray(labelings)
    if arr.ndim != 2:
        raise ValueError(
            f"{what} must be a dict of name -> labels, a DataFrame, or a 2-D array"
            f" (n_samples, n_{what}); got an array of shape {arr.shape}"
        )
    return [(j, arr[:, j]) for j in range(arr.shape[1])]


def compare_many(
    labels_true: Any,
    predictions: Any,
    metrics: Iterable[str] | str | None = None,
    *,
    missing: str = "raise",
    sample_weight: Any = None,
    class_weight: str | dict[Any, float] | None = None,
) -> Any:
    """Scores of one truth against many predictions, as a pandas DataFrame.

    ``predictions`` is a dict of name -> labels, a DataFrame (one prediction per
    column) or a 2-D array of shape (n_samples, n_predictions). The truth is
    validated and encoded once (string labels are hashed once), and each
    prediction is counted against its codes in one pass. One row per prediction
    (indexed by its name or column), one column per metric (all of
    :func:`evaluate`'s, or the chosen ones). ``sample_weight`` and ``class_weight`` weigh
    the samples as in every measure (:meth:`Contingency.from_labels`). Needs pandas.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> truth = ["a", "a", "b", "b"]
    >>> fcm.compare_many(truth, {"good": [0, 0, 1, 1], "poor": [0, 1, 0, 1]},
    ...                  metrics=["adjusted_rand_score", "purity_score"])
          adjusted_rand_score  purity_score
    good                  1.0           1.0
    poor                 -0.5           0.5
    """
    import pandas as pd

    check_array_like("compare_many", labels_true=labels_true)
    measures = resolve_all(metrics, "compare_many")
    named = _named(predictions, "predictions")
    # A 2-D array goes as it is: count_many counts its integer columns in one pass over rows.
    columns = predictions if isinstance(predictions, np.ndarray) else [x for _, x in named]
    tables = count_many(
        labels_true,
        columns,
        missing=check_missing("compare_many", missing),
        sample_weight=sample_weight,
        class_weight=class_weight,
    )
    rows = [[m(Contingency._of(table)) for m in measures] for table in tables]
    return pd.DataFrame(rows, index=[name for name, _ in named], columns=[m.name for m in measures])


# --- pairwise --------------------------------------------------------------------------------


def _transpose(table: _native.Table | WeightedTable) -> _native.Table | WeightedTable:
    """The table with the roles of the labelings swapped (O(non-zero cells), no recount)."""
    if isinstance(table, WeightedTable):
        return table.transposed()
    rows, cols, counts = table.cells()
    n_rows, n_cols = table.shape
    return _native.table_from_cells(
        n_cols,
        n_rows,
        cols.astype(np.int64),
        rows.astype(np.int64),
        counts.astype(np.int64),
    )


def _self_table(sizes: Any) -> _native.Table:
    """The table of a labeling against itself: its class sizes on the diagonal."""
    k = int(sizes.size)
    diagonal = np.arange(k, dtype=np.int64)
    return _native.table_from_cells(k, k, diagonal, diagonal, np.asarray(sizes, dtype=np.int64))


def _encode(named: list[tuple[Any, Any]], missing: str) -> list[Column]:
    """Each labeling validated and encoded once (strings hashed once), lengths checked."""
    columns: list[Column] = []
    first: tuple[int, ...] | None = None
    for name, labels in named:
        check_array_like("pairwise", labels=labels)
        prepared = prepare(labels, missing)
        shape = prepared.shape
        check_shapes(shape if first is None else first, shape)
        first = shape if first is None else first
        col = encode(prepared)
        if missing == "raise" and col.missing is not None:
            k = int(col.missing.sum())
            advice = missing_advice(k, len(col))
            raise ValueError(f"labeling {name!r} has missing labels: {advice}")
        columns.append(col)
    return columns


def pairwise(
    labelings: Any,
    metric: str = "adjusted_rand_score",
    *,
    missing: str = "raise",
    sample_weight: Any = None,
) -> Any:
    """One measure between every pair of several labelings, as a labelled pandas DataFrame.

    ``labelings`` is a dict of name -> labels, a DataFrame (one labeling per column) or a
    2-D array of shape (n_samples, n_labelings). Entry ``[a, b]`` is ``metric`` with
    labeling ``a`` as ``labels_true`` and ``b`` as ``labels_pred``, exactly as the function
    of that name (or the :class:`Contingency` method of that name) computes it; the diagonal
    is each labeling against itself.

    Each labeling is validated and encoded once (string labels hashed once); each unordered
    pair is counted in one pass, and an asymmetric measure (``homogeneity_score``,
    ``purity_score``, ...) gets the reverse direction from the transposed table without a
    second pass. Symmetric measures (as the catalogue marks them) are computed once per pair.
    ``metric`` is any measure of the catalogue, by full or short name (``"ARI"``,
    ``"variation_of_information"``, ``"jaccard"``, ...). ``missing`` is applied pair by pair,
    as in the function of each pair. ``sample_weight`` (one non-negative number per sample)
    weighs every pair's samples, as the function of that name with ``sample_weight=``. Needs
    pandas.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> runs = {"seed0": [0, 0, 1, 1], "seed1": [1, 1, 0, 0], "seed2": [0, 1, 0, 1]}
    >>> fcm.pairwise(runs)
           seed0  seed1  seed2
    seed0    1.0    1.0   -0.5
    seed1    1.0    1.0   -0.5
    seed2   -0.5   -0.5    1.0
    >>> fcm.pairwise({"fine": [0, 1, 2, 3], "coarse": [0, 0, 1, 1]}, metric="purity_score")
            fine  coarse
    fine     1.0     0.5
    coarse   1.0     1.0
    """
    import pandas as pd

    missing = check_missing("pairwise", missing)
    measure = resolve(metric, "pairwise", "metric")

    def score(table: _native.Table | WeightedTable) -> Any:
        return measure.exact(Contingency._of(table))

    symmetric = measure.symmetric
    named = _named(labelings, "labelings")
    columns = _encode(named, missing)
    r = len(columns)
    weights = None
    if sample_weight is not None:
        n = len(columns[0]) if columns else 0
        weights = check_sample_weight("pairwise", sample_weight, n)
    out: list[list[Any]] = [[None] * r for _ in range(r)]
    sizes: list[Any] = [None] * r  # class sizes, for the diagonal
    for i in range(r):
        for j in range(i + 1, r):
            true, pred, w = apply_missing(columns[i], columns[j], missing, weights)
            table = count_pair(true, pred, w, True, "pairwise")
            out[i][j] = score(table)
            out[j][i] = out[i][j] if symmetric else score(_transpose(table))
            if missing != "drop":  # the margins are then the labelings' own class sizes
                sizes[i] = table.row_sums() if sizes[i] is None else sizes[i]
                sizes[j] = table.col_sums() if sizes[j] is None else sizes[j]
    for i, col in enumerate(columns):
        if weights is not None:  # the labeling against itself, weighted, counted
            same, _, w = apply_missing(col, col, missing, weights)
            out[i][i] = score(count_pair(same, same, w, True, "pairwise"))
            continue
        if sizes[i] is None:
            if col.missing is not None and missing == "drop":
                col = Column(col.codes[~col.missing], None)
            sizes[i] = _native.count_one(col.codes).row_sums()
        out[i][i] = score(_self_table(sizes[i]))
    names = [name for name, _ in named]
    return pd.DataFrame(out, index=names, columns=names)
