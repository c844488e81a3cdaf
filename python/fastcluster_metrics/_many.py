"""Many clusterings at once: one truth against many (``compare_many``), and every pair among
several (``pairwise``: stability across seeds or resolutions, consensus between methods)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from . import _native
from ._contingency import Contingency
from ._evaluate import ALL_METRICS, METRICS, check_metrics
from ._labels import (
    Column,
    _apply_missing,
    _as_array,
    _check_shapes,
    _column,
    _missing_advice,
    _shape,
    _special,
    check_missing,
    count_many,
)
from ._measures import Measures
from ._params import check_array_like

__all__ = ["SYMMETRIC_METRICS", "compare_many", "pairwise"]

SYMMETRIC_METRICS = frozenset(
    {
        # evaluate's metrics
        "adjusted_rand_score",
        "rand_score",
        "adjusted_mutual_info_score",
        "normalized_mutual_info_score",
        "mutual_info_score",
        "v_measure_score",
        "fowlkes_mallows_score",
        # their other normalisations
        "normalized_mutual_info_score_min",
        "normalized_mutual_info_score_geometric",
        "normalized_mutual_info_score_max",
        "normalized_mutual_info_score_joint",
        "adjusted_mutual_info_score_min",
        "adjusted_mutual_info_score_geometric",
        "adjusted_mutual_info_score_max",
        # Contingency measures (default parameters)
        "jaccard_index",
        "dice_index",
        "kulczynski_index",
        "mirkin_metric",
        "hubert_gamma",
        "rogers_tanimoto_index",
        "russel_rao_index",
        "sokal_sneath1_index",
        "sokal_sneath2_index",
        "phi_index",
        "pair_f_score",
        "joint_entropy",
        "variation_of_information",
        "normalized_variation_of_information",
        "information_distance",
        "normalized_information_distance",
        "chi_squared",
        "cramers_v",
        "purity_f_score",
        "bcubed_f_score",
        "element_centric_similarity",
        "hungarian_accuracy",
    }
)
"""Measures whose value does not change when the two labelings swap roles: :func:`pairwise`
computes them once per unordered pair."""


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
    metrics: Iterable[str] | None = None,
    *,
    missing: str = "raise",
) -> Any:
    """Scores of one truth against many predictions, as a pandas DataFrame.

    ``predictions`` is a dict of name -> labels, a DataFrame (one prediction per
    column) or a 2-D array of shape (n_samples, n_predictions). The truth is
    validated and encoded once (string labels are hashed once), and each
    prediction is counted against its codes in one pass. One row per prediction
    (indexed by its name or column), one column per metric (all of
    :func:`evaluate`'s, or the chosen ones). Needs pandas.

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
    names = check_metrics(metrics)
    named = _named(predictions, "predictions")
    # A 2-D array goes as it is: count_many counts its integer columns in one pass over rows.
    columns = predictions if isinstance(predictions, np.ndarray) else [x for _, x in named]
    tables = count_many(labels_true, columns, missing=check_missing("compare_many", missing))
    rows = [[float(ALL_METRICS[m](table)) for m in names] for table in tables]
    return pd.DataFrame(rows, index=[name for name, _ in named], columns=names)


# --- pairwise --------------------------------------------------------------------------------


def _measure_names() -> list[str]:
    """The Contingency measures that give one number and need no argument."""
    names = []
    for name, member in inspect.getmembers(Measures, inspect.isfunction):
        signature = inspect.signature(member)
        params = list(signature.parameters.values())[1:]
        if (
            not name.startswith("_")
            and signature.return_annotation in ("float", "int", float, int)
            and all(p.default is not inspect.Parameter.empty for p in params)
        ):
            names.append(name)
    return names


def _scorer(metric: object) -> Callable[[_native.Table], Any]:
    """The function of a native table that computes ``metric`` (a name)."""
    measures = _measure_names()
    more: dict[str, Any] = ALL_METRICS
    if isinstance(metric, str) and metric in METRICS:
        return METRICS[metric]
    if isinstance(metric, str) and metric in measures:

        def score(table: _native.Table) -> Any:
            # The measures read only the cells and margins: the label values are not needed.
            rows, cols = table.shape
            contingency = Contingency.__new__(Contingency)
            contingency._set(np.arange(rows), np.arange(cols), table)
            return getattr(contingency, metric)()

        return score
    if isinstance(metric, str) and metric in more:
        found: Callable[[_native.Table], Any] = more[metric]
        return found
    names = sorted({*measures, *more})
    raise ValueError(f"unknown metric {metric!r}; choose from {names}")


def _transpose(table: _native.Table) -> _native.Table:
    """The table with the roles of the labelings swapped (O(non-zero cells), no recount)."""
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
        arr = None if _special(labels) else _as_array(labels, missing)
        shape = _shape(labels, arr)
        _check_shapes(shape if first is None else first, shape)
        first = shape if first is None else first
        col = _column(labels, arr)
        if missing == "raise" and col.missing is not None:
            k = int(col.missing.sum())
            advice = _missing_advice(k, len(col))
            raise ValueError(f"labeling {name!r} has missing labels: {advice}")
        columns.append(col)
    return columns


def pairwise(
    labelings: Any,
    metric: str = "adjusted_rand_score",
    *,
    missing: str = "raise",
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
    second pass. Measures in :data:`SYMMETRIC_METRICS` are computed once per pair. ``metric``
    is any of :func:`evaluate`'s metric names or any :class:`Contingency` measure that takes
    no argument (``"variation_of_information"``, ``"jaccard_index"``, ...). ``missing`` is
    applied pair by pair, as in the function of each pair. Needs pandas.

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
    score = _scorer(metric)
    symmetric = metric in SYMMETRIC_METRICS
    named = _named(labelings, "labelings")
    columns = _encode(named, missing)
    r = len(columns)
    out: list[list[Any]] = [[None] * r for _ in range(r)]
    sizes: list[Any] = [None] * r  # class sizes, for the diagonal
    for i in range(r):
        for j in range(i + 1, r):
            true, pred = _apply_missing(columns[i], columns[j], missing)
            table = _native.count(true.codes, pred.codes)
            out[i][j] = score(table)
            out[j][i] = out[i][j] if symmetric else score(_transpose(table))
            if missing != "drop":  # the margins are then the labelings' own class sizes
                sizes[i] = table.row_sums() if sizes[i] is None else sizes[i]
                sizes[j] = table.col_sums() if sizes[j] is None else sizes[j]
    for i, col in enumerate(columns):
        if sizes[i] is None:
            if col.missing is not None and missing == "drop":
                col = Column(col.codes[~col.missing], None)
            sizes[i] = _native.count_one(col.codes).row_sums()
        out[i][i] = score(_self_table(sizes[i]))
    names = [name for name, _ in named]
    return pd.DataFrame(out, index=names, columns=names)
