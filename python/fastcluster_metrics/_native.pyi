"""The compiled core (``rust/python``): one-pass counting and the table's scores."""

from os import PathLike
from typing import Any, final

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "CPU_VAR",
    "MISSING",
    "THREADS_VAR",
    "NotFiniteError",
    "Table",
    "calinski_harabasz",
    "count",
    "count_columns",
    "count_one",
    "count_weighted",
    "cpu_info",
    "davies_bouldin",
    "dendrogram_cuts",
    "dendrogram_pair_cuts",
    "encode_arrow",
    "encode_arrow_views",
    "encode_fixed",
    "encode_objects",
    "gammaincc",
    "graph_components",
    "graph_kbet",
    "graph_lisi",
    "num_threads",
    "silhouette_precomputed",
    "silhouette_samples",
    "table_from_cells",
    "usable_memory",
]

CPU_VAR: str
MISSING: int
THREADS_VAR: str

class NotFiniteError(ValueError):
    """The samples hold NaN or infinity: the core's first pass over them found it, where
    the caller left that check to it (the caller finds which, for its message)."""

@final
class Table:
    """A sparse contingency table: rows are classes, columns clusters, in sorted label order.

    A table counted with ``count(..., cells=False)`` may hold its sums alone (all-singleton
    predictions): then ``col_keys``, ``col_sums`` and ``cells`` raise ``ValueError``, and every
    other method answers as usual."""

    @property
    def n(self) -> int: ...
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def nnz(self) -> int: ...
    @property
    def holds_cells(self) -> bool: ...
    def row_keys(self) -> NDArray[Any]: ...
    def col_keys(self) -> NDArray[Any]: ...
    def row_sums(self) -> NDArray[np.uint64]: ...
    def col_sums(self) -> NDArray[np.uint64]: ...
    def cells(self) -> tuple[NDArray[np.uint32], NDArray[np.uint32], NDArray[np.uint64]]: ...
    def gather(
        self,
        labels_true: NDArray[Any],
        labels_pred: NDArray[Any],
        values: NDArray[np.float64],
        absent: float | None = None,
    ) -> NDArray[np.float64]: ...
    def pair_sums(self) -> tuple[int, int, int, int]: ...
    def entropy_rows(self) -> float: ...
    def entropy_cols(self) -> float: ...
    def mutual_info(self) -> float: ...
    def expected_mutual_info(self) -> float: ...
    def ami_parts(self) -> tuple[float, float, float, float]: ...
    def purity(self) -> float: ...
    def mutual_info_variance(self) -> float: ...
    def reduced_parts(self, flat: bool) -> tuple[float, float, float, float]: ...
    def model_parts(
        self, model: str, emi: bool
    ) -> tuple[float, float, bool, bool, float | None]: ...

def count(
    labels_true: NDArray[Any],
    labels_pred: NDArray[Any],
    cells: bool = True,
    margins: bool = False,
) -> Table: ...
def count_one(labels: NDArray[Any]) -> Table: ...
def count_weighted(
    labels_true: NDArray[Any], labels_pred: NDArray[Any], weights: NDArray[Any]
) -> tuple[
    Table,
    tuple[
        NDArray[np.uint64],
        NDArray[np.uint64],
        NDArray[np.float64],
        NDArray[np.float64],
        NDArray[np.float64],
        float,
        NDArray[np.uint64],
    ]
    | None,
]: ...
def count_columns(labels_true: NDArray[Any], labels_pred: NDArray[Any]) -> list[Table]: ...
def table_from_cells(
    n_rows: int,
    n_cols: int,
    rows: NDArray[np.int64],
    cols: NDArray[np.int64],
    counts: NDArray[np.int64],
) -> Table: ...
def dendrogram_cuts(
    classes: NDArray[np.uint32],
    n_classes: int,
    merges: NDArray[np.uint64],
    order: NDArray[np.uint64],
    record: NDArray[np.uint64],
    emi: bool,
) -> dict[str, NDArray[Any]]: ...
def dendrogram_pair_cuts(
    n: int,
    merges1: NDArray[np.uint64],
    order1: NDArray[np.uint64],
    merges2: NDArray[np.uint64],
    order2: NDArray[np.uint64],
    steps1: NDArray[np.uint64],
    steps2: NDArray[np.uint64],
) -> dict[str, NDArray[Any]]: ...
def num_threads() -> int: ...
def cpu_info() -> tuple[list[str], str, str]: ...
def usable_memory(root: str | PathLike[str] | None = None) -> tuple[int, str] | None: ...
def encode_arrow(
    chunks: list[
        tuple[
            NDArray[np.int32] | NDArray[np.int64], NDArray[np.uint8], NDArray[np.uint8] | None, int
        ]
    ],
) -> tuple[NDArray[np.uint32], NDArray[np.uintp], int]: ...
def encode_arrow_views(
    chunks: list[tuple[NDArray[np.uint8], list[NDArray[np.uint8]], NDArray[np.uint8] | None, int]],
) -> tuple[NDArray[np.uint32], NDArray[np.uintp], int]: ...
def encode_fixed(
    data: NDArray[np.uint8], width: int, unicode: bool
) -> tuple[NDArray[np.uint32], NDArray[np.uintp], int]: ...
def encode_objects(
    labels: NDArray[np.object_], missing_values: tuple[object, ...]
) -> tuple[NDArray[np.uint32], NDArray[np.uintp], int] | None: ...
def silhouette_samples(
    x: NDArray[np.float32] | NDArray[np.float64],
    codes: NDArray[np.int64],
    n_labels: list[int],
    metric: str,
    between: str = "nearest",
    rows: tuple[int, int] | None = None,
) -> NDArray[np.float64]: ...
def silhouette_precomputed(
    d: NDArray[np.float32] | NDArray[np.float64],
    codes: NDArray[np.int64],
    n_labels: list[int],
    between: str = "nearest",
) -> NDArray[np.float64]: ...
def graph_lisi(
    n: int,
    k: int | None,
    offsets: NDArray[np.int64] | None,
    indices: NDArray[np.int32] | NDArray[np.int64],
    distances: NDArray[np.float32] | NDArray[np.float64],
    codes: NDArray[np.int64],
    n_labels: int,
    perplexity: float,
    tol: float,
) -> NDArray[np.float64]: ...
def graph_kbet(
    n: int,
    k: int | None,
    offsets: NDArray[np.int64] | None,
    indices: NDArray[np.int32] | NDArray[np.int64],
    distances: NDArray[np.float32] | NDArray[np.float64],
    codes: NDArray[np.int64],
    n_batches: int,
    with_self: bool,
) -> NDArray[np.float64]: ...
def graph_components(
    n: int,
    k: int | None,
    offsets: NDArray[np.int64] | None,
    indices: NDArray[np.int32] | NDArray[np.int64],
    distances: NDArray[np.float32] | NDArray[np.float64],
    codes: NDArray[np.int64],
    n_labels: int,
    strong: bool,
) -> NDArray[np.int64]: ...
def gammaincc(a: float, x: float) -> float: ...
def calinski_harabasz(
    x: NDArray[np.float32] | NDArray[np.float64], codes: NDArray[np.int64], n_labels: int
) -> float: ...
def davies_bouldin(
    x: NDArray[np.float32] | NDArray[np.float64], codes: NDArray[np.int64], n_labels: int
) -> float: ...
