"""The public contingency table: built once, every measure from it, mergeable by label value."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from . import _native
from . import _supervised as s
from ._labels import check_missing, count_columns, ordered_cells
from ._measures import Measures
from ._params import check_array_like, check_average_method, check_beta

__all__ = ["Contingency"]


class Contingency(Measures):
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

    __slots__ = ("_cells", "_native_table", "classes", "clusters")

    classes: NDArray[Any]
    clusters: NDArray[Any]

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
        native = s._given_table(table, strict=True)
        shape = native.shape
        self._set(
            _labels_or_range(classes, shape[0], "classes"),
            _labels_or_range(clusters, shape[1], "clusters"),
            native,
        )

    def _set(self, classes: NDArray[Any], clusters: NDArray[Any], native: _native.Table) -> None:
        self.classes = classes
        self.clusters = clusters
        self._native_table = native
        rows, cols, counts = native.cells()
        self._cells = (rows.astype(np.int64), cols.astype(np.int64), counts.astype(np.int64))

    @classmethod
    def from_labels(
        cls, labels_true: ArrayLike, labels_pred: ArrayLike, *, missing: str = "raise"
    ) -> Contingency:
        """The table of two labelings, in one pass over them (any label type the metrics take)."""
        check_array_like(
            "Contingency.from_labels", labels_true=labels_true, labels_pred=labels_pred
        )
        missing = check_missing("Contingency.from_labels", missing)
        table, true, pred = count_columns(labels_true, labels_pred, missing=missing, warn=False)
        rows, cols, counts, row_keys, col_keys = ordered_cells(table, true, pred)
        out = cls.__new__(cls)
        native = table
        if true.rank is not None or pred.rank is not None:
            native = _native.table_from_cells(
                table.shape[0],
                table.shape[1],
                np.ascontiguousarray(rows, dtype=np.int64),
                np.ascontiguousarray(cols, dtype=np.int64),
                counts.astype(np.int64),
            )
        out._set(true.labels(row_keys), pred.labels(col_keys), native)
        return out

    # --- the table ---------------------------------------------------------------------------

    @property
    def n(self) -> int:
        """Number of samples."""
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

    def to_numpy(self, dtype: DTypeLike = np.int64) -> NDArray[Any]:
        """The dense table (as ``contingency_matrix``)."""
        rows, cols, counts = self._cells
        s._check_dense_fits(self.shape, np.dtype(dtype))
        out = np.zeros(self.shape, dtype=dtype)
        out[rows, cols] = counts
        return out

    def to_scipy(self) -> Any:
        """The table as a scipy CSR matrix (needs scipy)."""
        rows, cols, counts = self._cells
        return s._csr(self.shape, rows, cols, counts, np.int64)

    def to_pandas(self) -> Any:
        """The dense table as a pandas DataFrame labelled by class (index) and cluster (columns)."""
        import pandas as pd

        return pd.DataFrame(
            self.to_numpy(),
            index=pd.Index(self.classes, name="labels_true"),
            columns=pd.Index(self.clusters, name="labels_pred"),
        )

    def __add__(self, other: object) -> Contingency:
        """The table of the union of two disjoint sets of samples, matched by label value."""
        if not isinstance(other, Contingency):
            return NotImplemented
        if self.n + other.n >= s._SAMPLES_LIMIT:
            raise ValueError(
                f"the merged table would hold {self.n + other.n} samples;"
                " at most 2**64 - 1 are supported"
            )
        classes, ra, rb = _union(self.classes, other.classes, "classes")
        clusters, ca, cb = _union(self.clusters, other.clusters, "clusters")
        (r1, c1, n1), (r2, c2, n2) = self._cells, other._cells
        native = _native.table_from_cells(
            classes.size,
            clusters.size,
            np.concatenate([ra[r1], rb[r2]]),
            np.concatenate([ca[c1], cb[c2]]),
            np.concatenate([n1, n2]),
        )
        if native.nnz and int(native.cells()[2].max()) > s._INT64_MAX:
            raise ValueError("a merged cell would count 2**63 samples or more (counts are int64)")
        out = Contingency.__new__(Contingency)
        out._set(classes, clusters, native)
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Contingency):
            return NotImplemented
        return (
            self.shape == other.shape
            and np.array_equal(self.classes, other.classes)
            and np.array_equal(self.clusters, other.clusters)
            and all(np.array_equal(x, y) for x, y in zip(self._cells, other._cells, strict=True))
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Contingency(n={self.n}, classes={self.shape[0]}, clusters={self.shape[1]})"

    def __getstate__(self) -> dict[str, Any]:
        return {
            "table": (self.shape, self._cells),
            "classes": self.classes,
            "clusters": self.clusters,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        (n_rows, n_cols), (rows, cols, counts) = state["table"]
        native = _native.table_from_cells(n_rows, n_cols, rows, cols, counts)
        self._set(state["classes"], state["clusters"], native)

    # --- measures ----------------------------------------------------------------------------

    def pair_confusion_matrix(self) -> NDArray[Any]:
        """As :func:`pair_confusion_matrix`."""
        return s._pair_confusion_matrix(self._native_table)

    def rand_score(self) -> float:
        """As :func:`rand_score`."""
        return s._rand(self._native_table)

    def adjusted_rand_score(self) -> float:
        """As :func:`adjusted_rand_score`."""
        return s._ari(self._native_table)

    def mutual_info_score(self) -> float:
        """As :func:`mutual_info_score`."""
        return s._mi(self._native_table)

    def normalized_mutual_info_score(self, *, average_method: str = "arithmetic") -> float:
        """As :func:`normalized_mutual_info_score`."""
        method = check_average_method("normalized_mutual_info_score", average_method)
        return s._nmi(self._native_table, method)

    def adjusted_mutual_info_score(self, *, average_method: str = "arithmetic") -> float:
        """As :func:`adjusted_mutual_info_score`."""
        method = check_average_method("adjusted_mutual_info_score", average_method)
        return s._ami(self._native_table, method)

    def homogeneity_completeness_v_measure(
        self, *, beta: float = 1.0
    ) -> tuple[float, float, float]:
        """As :func:`homogeneity_completeness_v_measure`."""
        beta = check_beta("homogeneity_completeness_v_measure", beta)
        return s._hcv(self._native_table, beta)

    def homogeneity_score(self) -> float:
        """As :func:`homogeneity_score`."""
        return s._hcv(self._native_table, 1.0)[0]

    def completeness_score(self) -> float:
        """As :func:`completeness_score`."""
        return s._hcv(self._native_table, 1.0)[1]

    def v_measure_score(self, *, beta: float = 1.0) -> float:
        """As :func:`v_measure_score`."""
        return s._hcv(self._native_table, check_beta("v_measure_score", beta))[2]

    def fowlkes_mallows_score(self) -> float:
        """As :func:`fowlkes_mallows_score`."""
        return s._fowlkes_mallows(self._native_table)

    def purity_score(self) -> float:
        """As :func:`purity_score`."""
        return self._native_table.purity()

    def entropy_true(self) -> float:
        """Entropy of ``labels_true`` (nats), as :func:`entropy`."""
        return self._native_table.entropy_rows()

    def entropy_pred(self) -> float:
        """Entropy of ``labels_pred`` (nats), as :func:`entropy`."""
        return self._native_table.entropy_cols()


def _sizes(sums: NDArray[np.uint64]) -> NDArray[np.int64]:
    """Row or column sums as int64; as uint64 when one reaches 2**63 (int64 would wrap)."""
    if sums.size and int(sums.max()) > s._INT64_MAX:
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


def _union(
    a: NDArray[Any], b: NDArray[Any], name: str
) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """The sorted union of two label arrays and where each input label lands in it."""
    try:
        union, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
    except TypeError as e:
        raise TypeError(f"cannot merge tables whose {name} cannot be sorted together: {e}") from e
    inverse = inverse.reshape(-1).astype(np.int64)
    return union, inverse[: a.size], inverse[a.size :]
