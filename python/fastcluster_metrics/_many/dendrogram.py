"""Every cut of a dendrogram scored against a truth (``score_dendrogram``).

A cut into ``k`` clusters is scipy's ``fcluster(Z, k, "maxclust")``: the clusters below the
lowest height at which at most ``k`` remain. Merges are applied in the order of their
heights (scipy's ``maxdists``: a merge never sits below those it joins), and the core updates
the sums of the cut's table merge by merge (``_native.dendrogram_cuts``). The measures that
follow from those sums (catalogue rows with ``merges=True``) are read from them for every
``k`` at once: their kernels run on :class:`_Every`, whose sums are arrays over the cuts
(``_measures/exact.py``), and give what each cut's :class:`_Cut` gives, to the last bit. ARI
and NMI of every cut of a 1e6-sample tree take about 0.3 s so, where a cut at a time took
9 µs a cut (9 s; benches/README.md). The others are computed on each requested cut's own
table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .._labels.codes import (
    check_missing,
    check_shapes,
    encode,
    missing_advice,
    prepare,
)
from .._measures.contingency import Contingency
from .._measures.exact import Ints, choose, maximum, ratio
from .._measures.lookup import resolve_all
from .._utils.params import InvalidParameterError, check_array_like

__all__ = ["score_dendrogram"]

_NO_CLASS = np.uint32(2**32 - 1)
"""The class of a sample whose label is missing (``missing="drop"``): counted nowhere."""


def score_dendrogram(
    labels_true: Any,
    linkage: Any,
    *,
    metrics: Iterable[str] | str | None = None,
    ks: Iterable[int] | None = None,
    missing: str = "raise",
) -> Any:
    """Scores of every cut of a dendrogram against ``labels_true``, as a pandas DataFrame.

    ``linkage`` is scipy's linkage matrix (``scipy.cluster.hierarchy.linkage``: n - 1 rows
    of two joined nodes, a height and a size) or scikit-learn's ``children_`` (n - 1 rows of
    two joined nodes, from ``AgglomerativeClustering(compute_full_tree=True)``, merged in
    their order), over the ``n`` samples of ``labels_true``: node ``i < n`` is sample ``i``
    and node ``n + m`` the cluster that row ``m`` formed.

    One row per number of clusters ``k`` (every ``k`` from 1 to ``n``, or those in ``ks``),
    indexed by ``k``; a column ``n_clusters`` and one column per measure (all of
    :func:`evaluate`'s, or those named). The cut for ``k`` is scipy's
    ``fcluster(linkage, k, criterion="maxclust")``: the clusters below the lowest height at
    which at most ``k`` remain. Where merges tie in height no cut has exactly ``k`` clusters
    for some ``k``; that row then holds the cut with fewer, as scipy's does, and
    ``n_clusters`` says how many. Heights that decrease (centroid and median linkage) are
    read as scipy reads them, through each merge's highest height below it (``maxdists``).
    ``children_`` has no heights: its cut for ``k`` applies its first ``n - k`` merges.

    The cut's table is updated merge by merge: two clusters that merge change only their
    columns, and the smaller column's cells are added into the larger's, so every cut costs
    about ``n log n`` cell updates in all. The measures that follow from the sums those
    updates keep (pair counts, entropies, mutual information, expected mutual information,
    purity) are computed for every ``k`` from them and agree with scoring each cut to about
    ``1e-12``: scikit-learn's measures and purity, the other averages of NMI and AMI, the
    entropies, and every pair-counting measure but MARI. The others are computed on each
    requested cut's table, a pass over the labels per ``k`` (name ``ks`` for them on large
    trees). ``missing="drop"`` leaves the
    samples whose truth is missing out of every table (they stay in the tree). Needs pandas.

    Examples
    --------
    >>> import numpy as np
    >>> import fastcluster_metrics as fcm
    >>> truth = [0, 0, 1, 1]
    >>> children = np.array([[0, 1], [2, 3], [4, 5]])  # scikit-learn's children_
    >>> fcm.score_dendrogram(truth, children, metrics=["ARI", "purity"]).round(3)
       n_clusters  adjusted_rand_score  purity_score
    k
    1           1                0.000           0.5
    2           2                1.000           1.0
    3           3                0.571           1.0
    4           4                0.000           1.0
    """
    import pandas as pd

    func = "score_dendrogram"
    check_array_like(func, labels_true=labels_true)
    missing = check_missing(func, missing)
    rows = resolve_all(metrics, func)
    classes, n_classes = _classes(labels_true, missing)
    n = classes.shape[0]
    merges, heights = _tree(linkage, n)
    order, reachable = _order(merges, heights, n)
    wanted = _ks(ks, n)
    # The cut for k: the fewest merges that leave at most k clusters (scipy's maxclust).
    steps = reachable[np.searchsorted(reachable, np.maximum(n - wanted, 0))]
    ordered = np.sort(steps, kind="stable")  # one run (descending) for every k: O(n)
    first = np.ones(ordered.size, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    record = ordered[first]  # np.unique would hash a million steps
    sums = _native.dendrogram_cuts(
        classes,
        n_classes,
        merges,
        order.astype(np.uint64),
        record.astype(np.uint64),
        any(row.name.startswith("adjusted_mutual_info") for row in rows),
    )
    at = np.searchsorted(record, steps)
    entropy_true = _native.count_one(classes[classes != _NO_CLASS]).entropy_rows()
    row_sums = np.bincount(classes[classes != _NO_CLASS], minlength=n_classes)
    base = _Base(int(row_sums.sum()), int(np.count_nonzero(row_sums)), entropy_true, row_sums)
    columns: dict[str, Any] = {"n_clusters": n - record[at]}
    per_cut = [row for row in rows if not row.merges]
    by_sums = [row for row in rows if row.merges]
    values = {row.name: np.empty(record.size) for row in rows}
    if by_sums:
        every = Contingency._of(_Every(base, sums))  # type: ignore[arg-type]
        for row in by_sums:
            values[row.name] = _column(row.exact(every), record.size)
    if per_cut:
        labels_of = _Cuts(merges, order, n)
        truth = np.where(classes == _NO_CLASS, -1, classes.astype(np.int64))
        for r, step in enumerate(record):
            cut = labels_of(int(step))
            keep = truth >= 0
            table = Contingency.from_labels(truth[keep], cut[keep])
            for row in per_cut:
                values[row.name][r] = row(table)
    for row in rows:
        columns[row.name] = values[row.name][at]
    frame = pd.DataFrame(columns, index=pd.Index(wanted, name="k"))
    return frame


def _column(value: Any, size: int) -> NDArray[np.float64]:
    """A kernel's value on :class:`_Every` (an array, or one value for every cut) as floats."""
    return np.broadcast_to(np.asarray(value, dtype=np.float64), (size,))


def _classes(labels_true: Any, missing: str) -> tuple[NDArray[np.uint32], int]:
    """Each sample's class, numbered in sorted label order (``_NO_CLASS`` where missing)."""
    prepared = prepare(labels_true, missing)
    check_shapes(prepared.shape, prepared.shape)
    col = encode(prepared.flat())
    codes = col.codes
    present = slice(None) if col.missing is None else ~col.missing
    if col.missing is not None and missing == "raise":
        what = "Input contains NaN." if col.nan else "labels_true has missing labels:"
        raise ValueError(f"{what} {missing_advice(int(col.missing.sum()), len(col))}")
    uniques, dense = np.unique(codes[present], return_inverse=True)
    classes = np.full(codes.shape[0], _NO_CLASS, dtype=np.uint32)
    classes[present] = dense.reshape(-1)
    return classes, int(uniques.size)


def _tree(linkage: Any, n: int) -> tuple[NDArray[np.uint64], NDArray[np.float64] | None]:
    """The merges (n - 1 rows of two node ids) and their heights (None for ``children_``)."""
    z = np.asarray(linkage)
    expect = f"n - 1 = {n - 1} rows" if n > 0 else "no rows"
    if z.ndim != 2 or z.shape[1] not in (2, 4) or z.shape[0] != max(n - 1, 0):
        raise ValueError(
            "linkage must be scipy's linkage matrix (n - 1 rows of 4) or scikit-learn's"
            f" children_ (n - 1 rows of 2) over the {n} samples of labels_true ({expect});"
            f" got an array of shape {z.shape}"
        )
    if z.dtype.kind not in "iuf":
        raise ValueError(f"linkage must hold numbers; got dtype {z.dtype}")
    nodes = z[:, :2]
    if z.dtype.kind == "f":
        if not np.isfinite(z).all():
            raise ValueError("linkage holds NaN or infinite values")
        if (nodes != np.trunc(nodes)).any():
            raise ValueError("linkage's first two columns must be node ids (whole numbers)")
    if (nodes < 0).any() or (nodes >= 2 * n - 1).any():
        raise ValueError(f"linkage's node ids must lie in [0, {2 * n - 1})")
    merges = np.ascontiguousarray(nodes, dtype=np.uint64)
    heights = z[:, 2].astype(np.float64) if z.shape[1] == 4 else None
    return merges, heights


def _order(
    merges: NDArray[np.uint64], heights: NDArray[np.float64] | None, n: int
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The order the merges are applied in, and the numbers of merges after which a cut
    exists (all of them without heights; where heights tie, only after the whole tie)."""
    m = merges.shape[0]
    if heights is None:
        return np.arange(m), np.arange(m + 1)
    if (np.diff(heights) >= 0).all():
        highest = heights
    else:
        # scipy's maxdists: a merge's height or the highest below it.
        highest = heights.copy()
        for i in range(m):
            for child in merges[i]:
                below = int(child) - n
                if 0 <= below < i:
                    highest[i] = max(highest[i], highest[below])
    order = np.argsort(highest, kind="stable")
    ordered = highest[order]
    ends = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
    reachable = np.concatenate([[0], ends, [m]]).astype(np.intp)
    # Ascending already; 0 and m are one step when there are no merges (np.unique would
    # hash a million steps).
    return order, reachable[np.concatenate([[True], np.diff(reachable) > 0])]


def _ks(ks: Iterable[int] | None, n: int, func: str = "score_dendrogram") -> NDArray[np.int64]:
    if ks is None:
        return np.arange(1, n + 1, dtype=np.int64)
    try:
        wanted = np.asarray(list(ks))
    except TypeError:
        raise InvalidParameterError(
            f"The 'ks' parameter of {func} must be None or an iterable of numbers of"
            f" clusters; got {ks!r}"
        ) from None
    if wanted.ndim != 1 or wanted.dtype.kind not in "iu" or (wanted < 1).any():
        raise InvalidParameterError(
            f"The 'ks' parameter of {func} must hold whole numbers of clusters >= 1; got {ks!r}"
        )
    return wanted.astype(np.int64)


class _Base:
    """What every cut shares: the counted samples and the truth's classes."""

    def __init__(self, n: int, rows: int, entropy_rows: float, row_sums: NDArray[Any]) -> None:
        self.n = n
        self.rows = rows
        self.entropy_rows = entropy_rows
        self.rows_sq = int(np.dot(row_sums.astype(object), row_sums.astype(object)))
        nonzero = row_sums[row_sums > 1].astype(np.float64)
        self.rows_xlnx = math.fsum(nonzero * np.log(nonzero))


class _Sums:
    """A cut's table as the measures of pair counts and entropies read it, from the sums the
    core keeps merge by merge; ``_rows_xlnx`` is ``Σ a_i ln a_i`` over its rows."""

    n: int
    shape: tuple[int, int]
    _cells_sq: int
    _rows_sq: int
    _cols_sq: int
    _cells_xlnx: float
    _rows_xlnx: float
    _cols_xlnx: float

    def pair_sums(self) -> tuple[int, int, int, int]:
        return self.n, self._cells_sq, self._rows_sq, self._cols_sq

    def entropy_cols(self) -> float:
        return _entropy(self.n, self.shape[1], self._cols_xlnx)

    def mutual_info(self) -> float:
        n = self.n
        if n == 0:
            return 0.0
        rows, cols = self.shape
        joint = self._cells_xlnx - self._rows_xlnx - self._cols_xlnx
        return choose((rows <= 1) | (cols <= 1), 0.0, maximum(math.log(n) + joint / n, 0.0))


def _entropy(n: int, parts: Any, xlnx: Any) -> float:
    """The entropy of ``parts`` sizes summing to ``n`` whose ``Σ x ln x`` is ``xlnx`` (or of
    each, on arrays)."""
    if n == 0:
        return 1.0
    value: float = maximum(math.log(n) - xlnx / n, 0.0)
    return choose(parts <= 1, 0.0, value)


class _Cut(_Sums):
    """One cut's table as the measures read it (the core table's sums, from the merges)."""

    def __init__(self, base: _Base, sums: dict[str, NDArray[Any]], r: int) -> None:
        self._base = base
        self.n = base.n
        self.shape = (base.rows, int(sums["clusters"][r]))
        self._cells_sq = int(sums["cells_sq"][r])
        self._rows_sq = base.rows_sq
        self._cols_sq = int(sums["cols_sq"][r])
        self._cells_xlnx = float(sums["cells_xlnx"][r])
        self._rows_xlnx = base.rows_xlnx
        self._cols_xlnx = float(sums["cols_xlnx"][r])
        self._majority = int(sums["majority"][r])
        self._emi = float(sums["emi"][r])

    def entropy_rows(self) -> float:
        return self._base.entropy_rows

    def ami_parts(self) -> tuple[float, float, float, float]:
        return self.mutual_info(), self._emi, self.entropy_rows(), self.entropy_cols()

    def purity(self) -> float:
        return ratio(self._majority, self.n, 1.0)


class _Every(_Cut):
    """Every recorded cut's table at once: its sums are arrays over the cuts (pair sums as
    exact :class:`Ints`), which the measures' kernels read as they read one cut's."""

    def __init__(self, base: _Base, sums: dict[str, NDArray[Any]]) -> None:
        self._base = base
        self.n = base.n
        self.shape = (base.rows, sums["clusters"].astype(np.int64))  # type: ignore[assignment]
        self._cells_sq = Ints.of(sums["cells_sq"])  # type: ignore[assignment]
        self._rows_sq = base.rows_sq
        self._cols_sq = Ints.of(sums["cols_sq"])  # type: ignore[assignment]
        self._cells_xlnx = sums["cells_xlnx"]  # type: ignore[assignment]
        self._rows_xlnx = base.rows_xlnx
        self._cols_xlnx = sums["cols_xlnx"]  # type: ignore[assignment]
        self._majority = Ints.of(sums["majority"])  # type: ignore[assignment]
        self._emi = sums["emi"]  # type: ignore[assignment]


class _Cuts:
    """The clusters of each sample after a number of merges, for the measures computed on
    each cut's own table: each merge points its two nodes at the cluster it forms, and a
    sample's cluster is the last node it reaches."""

    def __init__(self, merges: NDArray[np.uint64], order: NDArray[np.intp], n: int) -> None:
        self._merges = merges.astype(np.int64)
        self._order = order
        self._n = n

    def __call__(self, step: int) -> NDArray[np.int64]:
        n = self._n
        parent = np.arange(n + self._merges.shape[0], dtype=np.int64)
        done = self._order[:step]
        parent[self._merges[done, 0]] = n + done
        parent[self._merges[done, 1]] = n + done
        # Pointer jumping: log2(depth) passes, however deep the tree.
        while True:
            grand = parent[parent]
            if (grand == parent).all():
                return parent[:n]
            parent = grand
