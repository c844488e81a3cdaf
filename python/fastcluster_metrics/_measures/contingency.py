"""The public contingency table: built once, every measure from it, mergeable by label value."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from .. import _native
from .._labels.codes import Column
from .._table import given
from .._table.count import Table, count_labels, label_order, ordered_cells
from .._table.merge import merge, no_units
from .._table.weighted import AnyTable, WeightedTable
from .._utils.params import check_average_method, check_beta, check_random_model
from .._utils.public import public
from . import scores as sc
from .information import InformationMeasures
from .matching import MatchingMeasures
from .pairs import PairMeasures

__all__ = ["Contingency"]


@public
class Contingency(PairMeasures, InformationMeasures, MatchingMeasures):
    """A contingency table of two labelings of the same samples.

    Cell ``(i, j)`` counts the samples in class ``i`` of ``labels_true`` and
    cluster ``j`` of ``labels_pred``; classes and clusters are in sorted label
    order (as :func:`contingency_matrix`), and only non-zero cells are stored.
    Every measure of this package is a method, computed from the table alone.

    Build one from labels in one pass with :meth:`from_labels`, or from a given
    table (dense array, scipy sparse matrix, or labelled pandas DataFrame) with
    the constructor. Tables of disjoint samples merge with ``a + b``, matched by
    label value. Tables pickle.

    Examples
    --------
    >>> from fastcluster_metrics import Contingency
    >>> c = Contingency.from_labels(["a", "a", "b", "b"], [0, 0, 0, 1])
    >>> c.classes.tolist(), c.clusters.tolist(), c.to_numpy().tolist()
    (['a', 'b'], [0, 1], [[2, 0], [1, 1]])
    >>> round(c.adjusted_rand_score(), 6)
    0.0
    >>> (c + c).to_numpy().tolist()
    [[4, 0], [2, 2]]
    """

    __slots__ = ("_cells_cache", "_classes", "_clusters", "_memo", "_native_table")

    def __init__(
        self,
        table: Any,
        classes: ArrayLike | None = None,
        clusters: ArrayLike | None = None,
    ) -> None:
        if hasattr(table, "index") and hasattr(table, "columns") and hasattr(table, "to_numpy"):
            if classes is None:
                classes = np.asarray(table.index)
            if clusters is None:
                clusters = np.asarray(table.columns)
            table = table.to_numpy()
        native = given.given_table(table, strict=True)
        shape = native.shape
        self._init(
            native,
            _labels_or_range(classes, shape[0], "classes"),
            _labels_or_range(clusters, shape[1], "clusters"),
        )

    def _init(
        self,
        native: Table,
        classes: NDArray[Any] | None = None,
        clusters: NDArray[Any] | None = None,
    ) -> None:
        self._native_table = native
        self._classes = classes
        self._clusters = clusters
        self._cells_cache: tuple[NDArray[Any], ...] | None = None
        self._memo: dict[tuple[str, float], Any] | None = None

    @classmethod
    def _of(
        cls,
        native: Table,
        classes: NDArray[Any] | None = None,
        clusters: NDArray[Any] | None = None,
    ) -> Contingency:
        """The one constructor from native parts: the core's table, and the labels of its rows
        and columns (None: numbered 0, 1, ...). Trusted, not checked; the cells are read from
        the core when first asked for."""
        out = cls.__new__(cls)
        out._init(native, classes, clusters)
        return out

    @classmethod
    def from_labels(
        cls,
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        *,
        missing: str = "raise",
        sample_weight: ArrayLike | None = None,
        class_weight: str | dict[Any, float] | None = None,
    ) -> Contingency:
        """The table of two labelings, in one pass over them (any label type the metrics take).

        ``sample_weight`` (one non-negative number per sample) makes each cell the sum of its
        samples' weights, read as frequencies: whole-number weights give exactly the table of
        the samples repeated that many times. ``class_weight`` multiplies each true class's
        row: ``"balanced"`` gives every class the same total, ``n / K`` (Maan et al.'s balanced
        measures), a dict gives the named classes its weights (the others 1). See
        :ref:`weights <weights>` in the README for what each measure does with real cells.
        """
        return cls._counted(
            "Contingency.from_labels",
            labels_true,
            labels_pred,
            missing,
            sample_weight,
            class_weight,
        )

    @classmethod
    def _counted(
        cls,
        func: str,
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        missing: object,
        sample_weight: ArrayLike | None = None,
        class_weight: str | dict[Any, float] | None = None,
    ) -> Contingency:
        """:meth:`from_labels` for the call ``func`` (which its errors name)."""
        table, true, pred = count_labels(
            func,
            labels_true,
            labels_pred,
            missing,
            warn=False,
            sample_weight=sample_weight,
            class_weight=class_weight,
        )
        return cls._of_columns(table, true, pred)

    @classmethod
    def _of_columns(cls, table: Table, true: Column, pred: Column) -> Contingency:
        """The table counted from two encoded columns, rows and columns in sorted label order."""
        if isinstance(table, WeightedTable):
            if true.rank is not None or pred.rank is not None:
                table = table.reordered(
                    label_order(table.row_keys(), true.rank),
                    label_order(table.col_keys(), pred.rank),
                )
            return cls._of(table, true.labels(table.row_keys()), pred.labels(table.col_keys()))
        rows, cols, counts, row_keys, col_keys = ordered_cells(table, true, pred)
        native = table
        if true.rank is not None or pred.rank is not None:
            native = _native.table_from_cells(
                table.shape[0],
                table.shape[1],
                np.ascontiguousarray(rows, dtype=np.int64),
                np.ascontiguousarray(cols, dtype=np.int64),
                counts.astype(np.int64),
            )
        return cls._of(native, true.labels(row_keys), pred.labels(col_keys))

    @property
    def classes(self) -> NDArray[Any]:
        """The class labels (of ``labels_true``), in sorted order: the table's rows."""
        if self._classes is None:
            self._classes = np.arange(self.shape[0])
        return self._classes

    @property
    def clusters(self) -> NDArray[Any]:
        """The cluster labels (of ``labels_pred``), in sorted order: the table's columns."""
        if self._clusters is None:
            self._clusters = np.arange(self.shape[1])
        return self._clusters

    @property
    def _cells(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        if self._cells_cache is None:
            rows, cols, counts = self._native_table.cells()
            self._cells_cache = (
                rows.astype(np.int64),
                cols.astype(np.int64),
                counts if counts.dtype.kind == "f" else counts.astype(np.int64),
            )
        return self._cells_cache  # type: ignore[return-value]

    @property
    def weighted(self) -> bool:
        """Whether the cells are real numbers (sums of weights that are not all whole): the
        sizes, cells and ``n`` are then floats, and the measures that need counts (the
        adjusted mutual information) raise ``ValueError``."""
        return isinstance(self._native_table, WeightedTable) and not self._native_table.integral

    def _cell_units(self) -> NDArray[Any] | None:
        """The cells' exact sums of weights in units of ``2**-64`` (None for counts), as merges
        sum them; ``ValueError`` for a table scaled by class weights."""
        table = self._native_table
        if not isinstance(table, WeightedTable):
            return None
        if table.units is None:
            raise no_units("a Contingency")
        return table.units

    def _row_squares(self) -> NDArray[Any] | None:
        """Each class's exact sum of its samples' squared weights in units of ``2**-128`` (None
        for counts), as merges sum them."""
        table = self._native_table
        return table.row_squares if isinstance(table, WeightedTable) else None

    # --- the table ---------------------------------------------------------------------------

    @property
    def n(self) -> int:
        """Number of samples (with weights: their total, a float when not whole)."""
        return self._native_table.n

    @property
    def shape(self) -> tuple[int, int]:
        """(number of classes, number of clusters)."""
        return self._native_table.shape

    @property
    def nnz(self) -> int:
        """Number of non-zero cells."""
        return self._native_table.nnz

    @property
    def class_sizes(self) -> NDArray[np.int64]:
        """Samples per class (row sums; uint64 if one reaches 2**63)."""
        return _sizes(self._native_table.row_sums())

    @property
    def cluster_sizes(self) -> NDArray[np.int64]:
        """Samples per cluster (column sums; uint64 if one reaches 2**63)."""
        return _sizes(self._native_table.col_sums())

    @property
    def cells(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """The non-zero cells as (row indices, column indices, counts), row-major."""
        return self._cells

    def to_numpy(self, dtype: DTypeLike | None = None) -> NDArray[Any]:
        """The dense table (as ``contingency_matrix``): int64, or float64 for a table of real
        cells (:attr:`weighted`), whose cells an integer ``dtype`` would truncate (refused)."""
        rows, cols, counts = self._cells
        if dtype is None:
            dtype = counts.dtype if counts.dtype.kind == "f" else np.int64
        elif counts.dtype.kind == "f" and np.dtype(dtype).kind in "iub":
            raise ValueError(
                "the table's cells are sums of weights that are not whole numbers:"
                f" dtype={np.dtype(dtype)} would truncate them; use a float dtype"
            )
        given.check_dense_fits(self.shape, np.dtype(dtype))
        out = np.zeros(self.shape, dtype=dtype)
        out[rows, cols] = counts
        return out

    def to_scipy(self) -> Any:
        """The table as a scipy CSR matrix (needs scipy): int64, or float64 for real cells."""
        rows, cols, counts = self._cells
        return given.csr(self.shape, rows, cols, counts, counts.dtype)

    def to_pandas(self) -> Any:
        """The dense table as a pandas DataFrame labelled by class (index) and cluster (columns)."""
        import pandas as pd

        return pd.DataFrame(
            self.to_numpy(),
            index=pd.Index(self.classes, name="labels_true"),
            columns=pd.Index(self.clusters, name="labels_pred"),
        )

    def __add__(self, other: object) -> Contingency:
        """The table of the union of two disjoint sets of samples, matched by label value; sums
        of weights are summed exactly, then rounded once (as counting the union would). Tables
        made with ``class_weight`` do not merge (``ValueError``)."""
        if not isinstance(other, Contingency):
            return NotImplemented
        classes, clusters, native = merge([self, other])
        return Contingency._of(native, classes, clusters)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Contingency):
            return NotImplemented
        return (
            self.shape == other.shape
            and np.array_equal(self.classes, other.classes)
            and np.array_equal(self.clusters, other.clusters)
            and all(np.array_equal(x, y) for x, y in zip(self._cells, other._cells, strict=True))
            # Equal cells of different samples (two of weight 1/2, one of weight 1) differ in
            # their pairs.
            and _square_sum(self._native_table) == _square_sum(other._native_table)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Contingency(n={self.n}, classes={self.shape[0]}, clusters={self.shape[1]})"

    def __getstate__(self) -> dict[str, Any]:
        state: dict[str, Any] = {
            "table": (self.shape, self._cells),
            "classes": self.classes,
            "clusters": self.clusters,
        }
        table = self._native_table
        if isinstance(table, WeightedTable):
            state["sums"] = (table.row_sums(), table.col_sums(), table.n)
            if table.units is not None:
                state["units"] = table.units
            if not table.integral:
                state["squares"] = table.squares
                state["pairs"] = table.pair_sums()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        (n_rows, n_cols), (rows, cols, counts) = state["table"]
        native: Table
        if "sums" in state:
            n_keys = (np.arange(n_rows), np.arange(n_cols))
            native = WeightedTable(
                (n_rows, n_cols),
                (rows, cols, counts),
                state["sums"],
                n_keys,
                state.get("units"),
                state.get("squares"),
            )
            native._pairs = state.get("pairs")
        else:
            native = _native.table_from_cells(n_rows, n_cols, rows, cols, counts)
        self._init(native, state["classes"], state["clusters"])

    # --- measures ----------------------------------------------------------------------------

    def pair_confusion_matrix(self) -> NDArray[Any]:
        """As :func:`pair_confusion_matrix`."""
        return sc.pair_confusion_matrix(self._native_table)

    def rand_score(self) -> float:
        """As :func:`rand_score`."""
        return sc.rand(self._native_table)

    def adjusted_rand_score(self, *, random_model: str = "perm") -> float:
        """As :func:`adjusted_rand_score`."""
        model = check_random_model("adjusted_rand_score", random_model)
        return sc.ari(self._native_table, model)

    def mutual_info_score(self) -> float:
        """As :func:`mutual_info_score`."""
        return sc.mi(self._native_table)

    def normalized_mutual_info_score(self, *, average_method: str = "arithmetic") -> float:
        """As :func:`normalized_mutual_info_score`."""
        method = check_average_method("normalized_mutual_info_score", average_method)
        return sc.nmi(self._native_table, method)

    def adjusted_mutual_info_score(
        self, *, average_method: str = "arithmetic", random_model: str = "perm"
    ) -> float:
        """As :func:`adjusted_mutual_info_score`."""
        method = check_average_method("adjusted_mutual_info_score", average_method)
        model = check_random_model("adjusted_mutual_info_score", random_model)
        return sc.ami(self._native_table, method, model)

    def homogeneity_completeness_v_measure(
        self, *, beta: float = 1.0
    ) -> tuple[float, float, float]:
        """As :func:`homogeneity_completeness_v_measure`."""
        beta = check_beta("homogeneity_completeness_v_measure", beta)
        return self._hcv(beta)

    def homogeneity_score(self) -> float:
        """As :func:`homogeneity_score`."""
        return self._hcv(1.0)[0]

    def completeness_score(self) -> float:
        """As :func:`completeness_score`."""
        return self._hcv(1.0)[1]

    def v_measure_score(self, *, beta: float = 1.0) -> float:
        """As :func:`v_measure_score`."""
        return self._hcv(check_beta("v_measure_score", beta))[2]

    def _hcv(self, beta: float) -> tuple[float, float, float]:
        """Homogeneity, completeness and V-measure, computed once per table and ``beta``
        (``evaluate`` asks for all three)."""
        key = ("hcv", beta)
        memo = self._memo
        if memo is None:
            memo = self._memo = {}
        if key not in memo:
            memo[key] = sc.hcv(self._native_table, beta)
        found: tuple[float, float, float] = memo[key]
        return found

    def fowlkes_mallows_score(self) -> float:
        """As :func:`fowlkes_mallows_score`."""
        return sc.fowlkes_mallows(self._native_table)

    def purity_score(self) -> float:
        """As :func:`purity_score`."""
        return sc.purity(self._native_table)

    def entropy_true(self) -> float:
        """Entropy of ``labels_true`` (nats), as :func:`entropy`."""
        return self._native_table.entropy_rows()

    def entropy_pred(self) -> float:
        """Entropy of ``labels_pred`` (nats), as :func:`entropy`."""
        return self._native_table.entropy_cols()


def _sizes(sums: NDArray[Any]) -> NDArray[np.int64]:
    """Row or column sums as int64; as uint64 when one reaches 2**63 (int64 would wrap); real
    sums (of weights) as they are."""
    if sums.dtype.kind == "f":
        return sums
    if sums.size and int(sums.max()) > sc.INT64_MAX:
        big: Any = sums.astype(np.uint64)
        return big  # type: ignore[no-any-return]
    return sums.astype(np.int64)


def _labels_or_range(labels: ArrayLike | None, size: int, name: str) -> NDArray[Any]:
    if labels is None:
        return np.arange(size)
    out = np.asarray(labels)
    if out.shape != (size,):
        raise ValueError(f"{name} has shape {out.shape}; the table needs {size} of them")
    return out


def _square_sum(table: AnyTable) -> Fraction | int:
    """The samples' squared weights summed (``n`` for a table of counts)."""
    return table.square_sum() if isinstance(table, WeightedTable) else table.n
