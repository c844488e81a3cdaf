"""Tables built chunk by chunk: an accumulator of label chunks, and :func:`read_contingency`,
which streams two columns of a Parquet, CSV or Arrow IPC file through it in bounded memory
(the files are read by ``readers/``, as the command line reads them).

Each chunk is counted in one Rust pass into a small table keyed by label value (a *partial*:
its row labels, column labels and non-zero cells). Partials merge by label value (sorted, a
missing label last), so chunks with different label sets give the table of their
concatenation. The accumulator merges pending partials in batches, only once they hold as
many cells as the merged table: each cell is touched an amortised constant number of times.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .._labels.codes import check_missing
from .._labels.weights import check_class_weight, class_factors
from .._measures.contingency import Contingency
from .._measures.evaluate import Evaluation, scores
from .._measures.lookup import resolve_all
from .._table.count import Table, count_labels
from .._table.merge import merge as merge_tables
from .._table.weighted import UNIT, WeightedTable, from_units, scale_rows
from .._utils.public import public
from .columns import check_complete, weight_values
from .errors import ColumnTypeError
from .progress import Progress
from .readers import DataFile, check_batch_size, open_file, read_again, read_ahead

__all__ = ["ContingencyAccumulator", "read_contingency"]

_MIN_MERGE_CELLS = 1 << 16
"""Pending cells below which the accumulator does not merge (small tables merge rarely)."""

_PROGRESS_DELAY = 2.0
"""Seconds before :func:`read_contingency`'s progress bar appears: short streams show none."""


@dataclass(frozen=True)
class Partial:
    """A table keyed by label value: cell ``k`` counts ``counts[k]`` samples of class
    ``classes[rows[k]]`` and cluster ``clusters[cols[k]]``. Labels are unique, in any order.
    Weighted samples whose sums are not all whole numbers: ``counts`` are floats and ``units``
    each cell's exact sum in units of ``2**-64`` (Python ints), which merges sum."""

    classes: NDArray[Any]
    clusters: NDArray[Any]
    rows: NDArray[np.int64]
    cols: NDArray[np.int64]
    counts: NDArray[Any]
    units: NDArray[Any] | None = None
    squares: NDArray[Any] | None = None
    """With ``units``: each class's exact sum of its samples' squared weights, in units of
    ``2**-128``."""

    @property
    def n(self) -> int | float:
        if self.units is not None:
            return int(self.units.sum()) / UNIT
        return int(self.counts.sum())

    def _cell_units(self) -> NDArray[Any] | None:
        return self.units

    def _row_squares(self) -> NDArray[Any] | None:
        return self.squares

    @property
    def nnz(self) -> int:
        return int(self.counts.size)

    @property
    def cells(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        return self.rows, self.cols, self.counts


def partial(
    labels_true: Any,
    labels_pred: Any,
    missing: str,
    sample_weight: Any = None,
    func: str = "ContingencyAccumulator.update",
) -> Partial:
    """The partial table of one chunk of labels (and of its samples' weights), counted in one
    pass; a chunk whose weights are all 0 gives the empty table."""
    table, true, pred = count_labels(
        func,
        labels_true,
        labels_pred,
        missing,
        warn=False,
        sample_weight=sample_weight,
        allow_zero=True,
    )
    return _of_table(table, true.labels(table.row_keys()), pred.labels(table.col_keys()))


def _of_table(table: Table, classes: NDArray[Any], clusters: NDArray[Any]) -> Partial:
    rows, cols, counts = table.cells()
    units = table.units if isinstance(table, WeightedTable) else None
    squares = table.row_squares if isinstance(table, WeightedTable) else None
    return Partial(
        classes,
        clusters,
        rows.astype(np.int64),
        cols.astype(np.int64),
        counts if units is not None else counts.astype(np.int64),
        units,
        squares,
    )


def merge(parts: Sequence[Partial]) -> Partial:
    """One partial of the union of disjoint samples, classes and clusters sorted by value."""
    classes, clusters, table = merge_tables(parts)
    return _of_table(table, classes, clusters)


def to_contingency(
    part: Partial, class_weight: Any = None, func: str = "read_contingency"
) -> Contingency:
    """The public table of a merged partial (its labels sorted), its rows then scaled by the
    class weights (checked, ``_labels/weights.py``)."""
    shape = (int(part.classes.size), int(part.clusters.size))
    native: Table
    if part.units is not None and part.squares is not None:
        native = from_units(shape, part.rows, part.cols, part.units, part.squares)
    else:
        native = _native.table_from_cells(shape[0], shape[1], part.rows, part.cols, part.counts)
    classes, clusters = part.classes, part.clusters
    if class_weight is not None and shape[0]:
        factors = class_factors(func, class_weight, classes, native.row_sums())
        native = scale_rows(native, factors)
        classes, clusters = classes[native.row_keys()], clusters[native.col_keys()]
    return Contingency._of(native, classes, clusters)


@public
class ContingencyAccumulator:
    """The contingency table of labels given chunk by chunk.

    ``update(chunk_true, chunk_pred)`` counts one chunk (any label type the metrics take:
    numpy, pandas Categorical, Arrow arrays, ...) in one pass; :attr:`table` is then the
    :class:`Contingency` of the concatenation of all chunks, equal to
    ``Contingency.from_labels`` on it. Chunks may hold labels that others lack: tables merge
    by label value. ``missing`` is as in every metric, applied chunk by chunk. Accumulators
    of disjoint samples merge with ``a + b``, and pickle.

    ``update(..., sample_weight=w)`` weighs the chunk's samples as ``from_labels`` does; the
    sums of weights are kept exactly, so the table equals ``from_labels`` on the whole with
    its weights, however it was chunked. ``class_weight`` (as ``from_labels`` takes it) scales
    the rows of :attr:`table`, the table of every chunk (``"balanced"``: by the classes'
    totals over all chunks). An update that fails adds nothing.

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

    __slots__ = (
        "_class_weight",
        "_merged",
        "_missing",
        "_pending",
        "_pending_cells",
        "_table",
    )

    def __init__(self, *, missing: str = "raise", class_weight: Any = None) -> None:
        self._missing = check_missing("ContingencyAccumulator", missing)
        self._class_weight = check_class_weight("ContingencyAccumulator", class_weight)
        self._merged: Partial | None = None
        self._pending: list[Partial] = []
        self._pending_cells = 0
        self._table: Contingency | None = None

    def update(
        self, labels_true: Any, labels_pred: Any, *, sample_weight: Any = None
    ) -> ContingencyAccumulator:
        """Counts one chunk of samples (labels of the same samples, in the same order, and
        optionally their weights, one non-negative number per sample)."""
        self._add(partial(labels_true, labels_pred, self._missing, sample_weight))
        return self

    def _add(self, part: Partial) -> None:
        """Adds a partial: the state changes only once every step that can fail is done."""
        pending = [*self._pending, part]
        pending_cells = self._pending_cells + part.nnz
        merged = self._merged
        if pending_cells >= max(0 if merged is None else merged.nnz, _MIN_MERGE_CELLS):
            merged = merge(pending if merged is None else [merged, *pending])
            pending, pending_cells = [], 0
        self._merged, self._pending, self._pending_cells = merged, pending, pending_cells
        self._table = None

    def _compact(self) -> Partial:
        if self._pending or self._merged is None:
            parts = self._pending if self._merged is None else [self._merged, *self._pending]
            # One assignment: an interrupt leaves the parts either pending or merged.
            self._merged, self._pending, self._pending_cells = merge(parts), [], 0
        return self._merged

    @property
    def n(self) -> int | float:
        """Number of samples counted so far (with weights: their total, before class
        weights)."""
        if any(p.units is not None for p in self._pending) or (
            self._merged is not None and self._merged.units is not None
        ):
            return self._compact().n
        return sum(p.n for p in self._pending) + (0 if self._merged is None else self._merged.n)

    @property
    def table(self) -> Contingency:
        """The :class:`Contingency` of every sample counted so far."""
        if self._table is None:
            self._table = to_contingency(
                self._compact(), self._class_weight, "ContingencyAccumulator"
            )
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
        if other._class_weight != self._class_weight:
            raise ValueError(
                f"cannot merge accumulators with class_weight={self._class_weight!r} and"
                f" class_weight={other._class_weight!r}"
            )
        out = ContingencyAccumulator(missing=self._missing, class_weight=self._class_weight)
        out._add(merge([self._compact(), other._compact()]))
        return out

    def __repr__(self) -> str:
        return f"ContingencyAccumulator(n={self.n}, missing={self._missing!r})"

    def __getstate__(self) -> dict[str, Any]:
        # The table as plain arrays, not a Partial: a pickle names no private class.
        part = self._compact()
        return {
            "missing": self._missing,
            "class_weight": self._class_weight,
            "partial": {f.name: getattr(part, f.name) for f in fields(part)},
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(  # type: ignore[misc]
            missing=state["missing"], class_weight=state.get("class_weight")
        )
        part = state["partial"]
        # 0.1.0's pickles hold the Partial itself
        self._merged = part if isinstance(part, Partial) else Partial(**part)


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
    weights: str | None = None,
    class_weight: str | dict[Any, float] | None = None,
) -> Contingency:
    """The contingency table of two columns of a Parquet, CSV or Arrow IPC file, streamed in
    batches of about ``batch_size`` rows (memory bounded by two batches and the table: the next
    batch is decoded while this one is counted), or of the ``obs`` of an AnnData file.

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

    ``weights`` names a column of sample weights (numbers, read like the label columns):
    the result then equals ``from_labels(..., sample_weight=column)``, exactly, whatever the
    batches; a value in it that is missing, text, negative, NaN or infinite raises
    ``ValueError`` naming the file, the column and the row. ``class_weight`` (as
    ``from_labels`` takes it) scales the rows of the table of the whole file.

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
    class_weight = check_class_weight("read_contingency", class_weight)
    check_batch_size(batch_size)
    part = read_partial(file, truth, pred, batch_size, missing, progress, weights=weights)
    return to_contingency(part, class_weight)


def read_partial(
    file: DataFile,
    truth: str,
    pred: str,
    batch_size: int,
    missing: str,
    progress: bool = False,
    row_groups: Sequence[int] | None = None,
    weights: str | None = None,
) -> Partial:
    """The merged partial table of two columns of a file (of some of its Parquet row groups,
    in a run: their rows are numbered from the first's in the message of a missing label),
    its samples weighted by the column ``weights`` if given. A CSV column whose later rows do
    not fit the type of its first ones is read again as text, from the start."""
    while True:
        try:
            return _partial(file, truth, pred, batch_size, missing, progress, row_groups, weights)
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
    weights: str | None = None,
) -> Partial:
    offset = 0 if row_groups is None or not row_groups else file.rows_before(min(row_groups))
    batches = file.batches(
        [truth, pred] if weights is None else [truth, pred, weights],
        int(batch_size),
        row_groups=row_groups,
        progress=Progress(_PROGRESS_DELAY) if progress else None,
    )
    acc = ContingencyAccumulator(missing=missing)
    # The next batch is decoded while this one is counted.
    with closing(read_ahead(batches)) as ahead:
        for batch in ahead:
            w = (
                None
                if weights is None
                else weight_values(file.name, weights, batch[weights], offset)
            )
            if missing == "raise":  # the error that names the file, the column and the row
                check_complete(file.name, {truth: batch[truth], pred: batch[pred]}, offset)
            offset += len(batch[truth])
            acc.update(batch[truth], batch[pred], sample_weight=w)
    return acc._compact()
