"""Tables built chunk by chunk: an accumulator of label chunks, and :func:`read_contingency`,
which streams two columns of a Parquet, CSV or Arrow IPC file through it in bounded memory
(the files are read by :mod:`._readers`, as the command line reads them).

Each chunk is counted in one Rust pass into a small table keyed by label value (a *partial*:
its row labels, column labels and non-zero cells). Partials merge by label value (sorted, a
missing label last), so chunks with different label sets give the table of their
concatenation. The accumulator merges pending partials in batches, only once they hold as
many cells as the merged table: each cell is touched an amortised constant number of times.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import _native
from ._catalogue import resolve_all
from ._contingency import Contingency
from ._evaluate import Evaluation, scores
from ._labels import check_missing, count_columns
from ._merge import merge as merge_tables
from ._params import check_array_like
from ._readers import (
    ColumnTypeError,
    DataFile,
    Progress,
    check_batch_size,
    check_complete,
    open_file,
    read_again,
)

__all__ = ["ContingencyAccumulator", "read_contingency"]

_MIN_MERGE_CELLS = 1 << 16
"""Pending cells below which the accumulator does not merge (small tables merge rarely)."""

_PROGRESS_DELAY = 2.0
"""Seconds before :func:`read_contingency`'s progress bar appears: short streams show none."""


@dataclass(frozen=True)
class Partial:
    """A table keyed by label value: cell ``k`` counts ``counts[k]`` samples of class
    ``classes[rows[k]]`` and cluster ``clusters[cols[k]]``. Labels are unique, in any order."""

    classes: NDArray[Any]
    clusters: NDArray[Any]
    rows: NDArray[np.int64]
    cols: NDArray[np.int64]
    counts: NDArray[np.int64]

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    @property
    def nnz(self) -> int:
        return int(self.counts.size)

    @property
    def cells(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        return self.rows, self.cols, self.counts


def partial(labels_true: Any, labels_pred: Any, missing: str) -> Partial:
    """The partial table of one chunk of labels, counted in one pass."""
    table, true, pred = count_columns(labels_true, labels_pred, missing=missing, warn=False)
    rows, cols, counts = table.cells()
    return Partial(
        true.labels(table.row_keys()),
        pred.labels(table.col_keys()),
        rows.astype(np.int64),
        cols.astype(np.int64),
        counts.astype(np.int64),
    )


def merge(parts: Sequence[Partial]) -> Partial:
    """One partial of the union of disjoint samples, classes and clusters sorted by value."""
    classes, clusters, table = merge_tables(parts)
    rows, cols, counts = table.cells()
    return Partial(
        classes, clusters, rows.astype(np.int64), cols.astype(np.int64), counts.astype(np.int64)
    )


def to_contingency(part: Partial) -> Contingency:
    """The public table of a merged partial (its labels sorted)."""
    native = _native.table_from_cells(
        int(part.classes.size), int(part.clusters.size), part.rows, part.cols, part.counts
    )
    return Contingency._of(native, part.classes, part.clusters)


class ContingencyAccumulator:
    """The contingency table of labels given chunk by chunk.

    ``update(chunk_true, chunk_pred)`` counts one chunk (any label type the metrics take:
    numpy, pandas Categorical, Arrow arrays, ...) in one pass; :attr:`table` is then the
    :class:`Contingency` of the concatenation of all chunks, equal to
    ``Contingency.from_labels`` on it. Chunks may hold labels that others lack: tables merge
    by label value. ``missing`` is as in every metric, applied chunk by chunk. Accumulators
    of disjoint samples merge with ``a + b``, and pickle.

    Examples
    --------
    >>> from fastcluster_metrics import ContingencyAccumulator
    >>> acc = ContingencyAccumulator()
    >>> acc.update(["a", "a", "b"], [0, 0, 1]).update(["c", "b"], [2, 1]).n
    5
    >>> acc.table.classes.tolist(), acc.table.to_numpy().tolist()
    (['a', 'b', 'c'], [[2, 0, 0], [0, 2, 0], [0, 0, 1]])
    >>> acc.table.adjusted_rand_score()
    1.0
    """

    __slots__ = ("_merged", "_missing", "_pending", "_pending_cells", "_table")

    def __init__(self, *, missing: str = "raise") -> None:
        self._missing = check_missing("ContingencyAccumulator", missing)
        self._merged: Partial | None = None
        self._pending: list[Partial] = []
        self._pending_cells = 0
        self._table: Contingency | None = None

    def update(self, labels_true: Any, labels_pred: Any) -> ContingencyAccumulator:
        """Counts one chunk of samples (labels of the same samples, in the same order)."""
        check_array_like(
            "ContingencyAccumulator.update", labels_true=labels_true, labels_pred=labels_pred
        )
        self._add(partial(labels_true, labels_pred, self._missing))
        return self

    def _add(self, part: Partial) -> None:
        self._table = None
        self._pending.append(part)
        self._pending_cells += part.nnz
        merged_cells = 0 if self._merged is None else self._merged.nnz
        if self._pending_cells >= max(merged_cells, _MIN_MERGE_CELLS):
            self._compact()

    def _compact(self) -> Partial:
        if self._pending or self._merged is None:
            parts = self._pending if self._merged is None else [self._merged, *self._pending]
            self._merged = merge(parts)
            self._pending, self._pending_cells = [], 0
        return self._merged

    @property
    def n(self) -> int:
        """Number of samples counted so far."""
        return sum(p.n for p in self._pending) + (0 if self._merged is None else self._merged.n)

    @property
    def table(self) -> Contingency:
        """The :class:`Contingency` of every sample counted so far."""
        if self._table is None:
            self._table = to_contingency(self._compact())
        return self._table

    def evaluate(self, metrics: Iterable[str] | None = None) -> Evaluation:
        """:func:`evaluate`'s scores (all, or the chosen ones) of the table so far."""
        return scores(self.table, resolve_all(metrics, "ContingencyAccumulator.evaluate"))

    def __add__(self, other: object) -> ContingencyAccumulator:
        if not isinstance(other, ContingencyAccumulator):
            return NotImplemented
        if other._missing != self._missing:
            raise ValueError(
                f"cannot merge accumulators with missing={self._missing!r} and"
                f" missing={other._missing!r}"
            )
        out = ContingencyAccumulator(missing=self._missing)
        out._add(merge([self._compact(), other._compact()]))
        return out

    def __repr__(self) -> str:
        return f"ContingencyAccumulator(n={self.n}, missing={self._missing!r})"

    def __getstate__(self) -> dict[str, Any]:
        return {"missing": self._missing, "partial": self._compact()}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(missing=state["missing"])  # type: ignore[misc]
        self._merged = state["partial"]


# --- files -----------------------------------------------------------------------------------


def read_contingency(
    path: str | os.PathLike[str],
    truth: str,
    pred: str,
    *,
    format: str | None = None,
    batch_size: int = 1 << 20,
    missing: str = "raise",
    progress: bool = True,
    encoding: str = "utf-8",
) -> Contingency:
    """The contingency table of two columns of a Parquet, CSV or Arrow IPC file, streamed in
    batches of about ``batch_size`` rows (memory bounded by a batch and the table), or of the
    ``obs`` of an AnnData file.

    ``truth`` and ``pred`` name the columns (rows of the table are ``truth``'s labels).
    ``format`` is ``"parquet"``, ``"csv"``, ``"tsv"``, ``"ipc"`` (Arrow IPC file or stream;
    also ``"arrow"``, ``"feather"``), ``"h5ad"`` or ``"zarr"`` (the two ``obs`` columns of an
    AnnData file or zarr store, a directory or a ``.zarr.zip``, in any layout anndata wrote);
    by default it follows the suffix (``.parquet``, ``.parq``, ``.pq``, ``.csv``, ``.tsv``,
    ``.tab``, ``.arrow``, ``.arrows``, ``.feather``, ``.ipc``, ``.h5ad``, ``.zarr``, or a
    directory that is a zarr store; CSV and TSV may be
    compressed: ``.gz``, ``.bz2``, ``.xz``, ``.zst``, ``.lz4``, ``.zip``). These are the files
    and formats the command line reads, read the same way. Only the two columns are read.
    String columns are read as Arrow dictionaries (from Parquet's dictionary pages; CSV with
    ``auto_dict_encode``), so each batch is counted from integer codes. In CSV, the fields
    pandas reads as missing (empty, ``NA``, ``<NA>``, ``None``, ...) are missing labels; types
    are inferred from the first block (a column whose later rows do not fit, such as numbers
    and then ``"7a"``, is read again as text, from the start). CSV text is UTF-8 (a
    byte-order mark is skipped; fields may be quoted, lines end in LF or CRLF) unless
    ``encoding`` names another (as Python names it: ``"latin-1"``, ``"cp1252"``,
    ``"utf-16"``, ...), which pyarrow transcodes; binary
    formats ignore it. Arrow IPC files keep the batches they were written with. Label columns
    hold text, numbers, booleans or categories. ``missing`` is as in every metric. A tqdm
    progress bar (of rows; of bytes for CSV) appears on streams that last more than two
    seconds unless ``progress=False``. Needs pyarrow (the ``io`` extra), or h5py and zarr
    for AnnData files (the ``h5ad`` extra).

    The result equals ``Contingency.from_labels`` on the two whole columns; a file with a
    header but no rows gives the empty table, as ``Contingency.from_labels([], [])`` does.

    Errors name the file (and the column): a file that is not there (or a directory) raises
    ``FileNotFoundError``, a column that is not in it a ``KeyError``, a format that cannot be
    told, an unknown ``encoding``, an empty file (0 bytes), text that is not in the file's
    encoding, or missing labels with ``missing="raise"`` (naming the first row that has one) a
    ``ValueError``; a column of nested values (struct, list, map) or of bytes a ``TypeError``;
    compressed data that is truncated or corrupt an ``OSError`` naming the compression.

    Examples
    --------
    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> from fastcluster_metrics import read_contingency
    >>> path = os.path.join(tempfile.mkdtemp(), "cells.parquet")
    >>> pq.write_table(pa.table({"cell_type": ["T", "T", "B", "NK"], "leiden": [0, 0, 1, 1]}),
    ...                path, row_group_size=2)
    >>> table = read_contingency(path, truth="cell_type", pred="leiden", batch_size=2)
    >>> table.classes.tolist(), table.to_numpy().tolist()
    (['B', 'NK', 'T'], [[0, 1], [0, 1], [2, 0]])
    """
    file = open_file(path, format, encoding=encoding)
    missing = check_missing("read_contingency", missing)
    check_batch_size(batch_size)
    return to_contingency(read_partial(file, truth, pred, batch_size, missing, progress))


def read_partial(
    file: DataFile,
    truth: str,
    pred: str,
    batch_size: int,
    missing: str,
    progress: bool = False,
    row_groups: Sequence[int] | None = None,
) -> Partial:
    """The merged partial table of two columns of a file (of some of its Parquet row groups,
    in a run: their rows are numbered from the first's in the message of a missing label).
    A CSV column whose later rows do not fit the type of its first ones is read again as
    text, from the start."""
    while True:
        try:
            return _partial(file, truth, pred, batch_size, missing, progress, row_groups)
        except ColumnTypeError as e:
            file = read_again(file, e)


def _partial(
    file: DataFile,
    truth: str,
    pred: str,
    batch_size: int,
    missing: str,
    progress: bool,
    row_groups: Sequence[int] | None,
) -> Partial:
    offset = 0 if row_groups is None or not row_groups else file.rows_before(min(row_groups))
    batches = file.batches(
        [truth, pred],
        int(batch_size),
        row_groups=row_groups,
        progress=Progress(_PROGRESS_DELAY) if progress else None,
    )
    acc = ContingencyAccumulator(missing=missing)
    for batch in batches:
        if missing == "raise":  # the error that names the file, the column and the row
            check_complete(file.name, batch, offset)
            offset += len(batch[truth])
        acc.update(batch[truth], batch[pred])
    return acc._compact()
