"""Tables built chunk by chunk: an accumulator of label chunks, and readers that stream two
columns of a Parquet, CSV or Arrow IPC file through it in bounded memory.

Each chunk is counted in one Rust pass into a small table keyed by label value (a *partial*:
its row labels, column labels and non-zero cells). Partials merge by label value (sorted, a
missing label last), so chunks with different label sets give the table of their
concatenation. The accumulator merges pending partials in batches, only once they hold as
many cells as the merged table: each cell is touched an amortised constant number of times.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
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

__all__ = ["ContingencyAccumulator", "read_contingency"]

_MIN_MERGE_CELLS = 1 << 16
"""Pending cells below which the accumulator does not merge (small tables merge rarely)."""

_PROGRESS_DELAY = 2.0
"""Seconds before the progress bar appears: short streams show none."""


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

_FORMATS = {
    ".parquet": "parquet",
    ".parq": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".tsv": "csv",
    ".arrow": "ipc",
    ".arrows": "ipc",
    ".feather": "ipc",
    ".ipc": "ipc",
}
_ALIASES = {"parquet": "parquet", "csv": "csv", "ipc": "ipc", "arrow": "ipc", "feather": "ipc"}
_COMPRESSED = (".gz", ".bz2", ".zst", ".lz4")


def file_format(path: Path, format: str | None) -> str:
    if format is not None:
        if format.lower() not in _ALIASES:
            raise ValueError(
                f"unknown format {format!r}; choose from 'parquet', 'csv', 'ipc' (or 'arrow',"
                " 'feather')"
            )
        return _ALIASES[format.lower()]
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSED:
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in _FORMATS:
        return _FORMATS[suffixes[-1]]
    raise ValueError(
        f"cannot tell the format of {str(path)!r} from its suffix; pass format='parquet',"
        " 'csv' or 'ipc'"
    )


def _check_columns(names: Sequence[str], wanted: Sequence[str], path: Path) -> None:
    absent = [c for c in wanted if c not in names]
    if absent:
        raise KeyError(f"{str(path)!r} has no column {absent[0]!r}; its columns are {list(names)}")


def _parquet(
    path: Path, columns: list[str], batch_size: int, row_groups: Sequence[int] | None = None
) -> tuple[Iterator[Any], int | None]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    _check_columns(schema.names, columns, path)
    # String columns come straight from the Parquet dictionary pages as Arrow dictionaries:
    # their codes, not their strings, are what the counting pass reads.
    text = [
        c
        for c in columns
        if pa.types.is_string(schema.field(c).type)
        or pa.types.is_large_string(schema.field(c).type)
        or pa.types.is_binary(schema.field(c).type)
    ]
    # pre_buffer=False: the pre-buffering cache keeps every row group read until the file
    # closes (memory would grow with the file, not with the batch).
    file = pq.ParquetFile(path, read_dictionary=text or None, pre_buffer=False)

    def batches() -> Iterator[Any]:
        with file:
            yield from file.iter_batches(
                batch_size=batch_size, columns=columns, row_groups=row_groups
            )

    if row_groups is None:
        return batches(), file.metadata.num_rows
    return batches(), sum(file.metadata.row_group(i).num_rows for i in row_groups)


def _csv_block_size(path: Path, batch_size: int) -> int:
    """Bytes per CSV block to hold about ``batch_size`` rows, from the first 64 KiB."""
    bytes_per_row = 32.0
    if path.suffix.lower() not in _COMPRESSED:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
        if head.count(b"\n") > 1:
            bytes_per_row = len(head) / head.count(b"\n")
    return int(min(max(batch_size * bytes_per_row * 1.1, 1 << 16), 1 << 30))


def _csv(path: Path, columns: list[str], batch_size: int) -> tuple[Iterator[Any], int | None]:
    import pyarrow as pa

    tab = [s.lower() for s in path.suffixes if s.lower() not in _COMPRESSED][-1:] == [".tsv"]
    try:
        reader = _open_csv(path, columns, batch_size, tab)
    except pa.ArrowKeyError as e:
        absent = [c for c in columns if f"'{c}'" in str(e)][:1] or columns
        raise KeyError(f"{str(path)!r} has no column {absent[0]!r} ({e})") from e

    def batches() -> Iterator[Any]:
        with reader:
            yield from reader

    return batches(), None


def _open_csv(path: Path, columns: list[str], batch_size: int, tab: bool) -> Any:
    import pyarrow.csv as pv

    return pv.open_csv(
        path,
        read_options=pv.ReadOptions(block_size=_csv_block_size(path, batch_size)),
        parse_options=pv.ParseOptions(delimiter="\t" if tab else ","),
        convert_options=pv.ConvertOptions(
            include_columns=columns,
            # string labels arrive dictionary-encoded (codes, not strings, are counted);
            # empty and "NA"-like fields are missing labels, as pandas reads them
            auto_dict_encode=True,
            auto_dict_max_cardinality=2**31 - 1,
            strings_can_be_null=True,
        ),
    )


def _ipc(path: Path, columns: list[str]) -> tuple[Iterator[Any], int | None]:
    import pyarrow as pa
    import pyarrow.ipc as ipc

    source = pa.OSFile(str(path), "rb")  # read, not mapped: memory stays bounded
    try:
        reader = ipc.open_file(source)
    except pa.ArrowInvalid:
        source.seek(0)
        stream = ipc.open_stream(source)
        _check_columns(stream.schema.names, columns, path)

        def stream_batches() -> Iterator[Any]:
            with source, stream:
                yield from stream

        return stream_batches(), None
    _check_columns(reader.schema.names, columns, path)
    wanted = [reader.schema.get_field_index(c) for c in columns]
    reader = ipc.open_file(source, options=ipc.IpcReadOptions(included_fields=sorted(wanted)))

    def file_batches() -> Iterator[Any]:
        with source:
            for i in range(reader.num_record_batches):
                yield reader.get_batch(i)

    return file_batches(), None


def _progress(batches: Iterator[Any], total: int | None, desc: str) -> Iterator[Any]:
    """Batches, counted on a tqdm bar (rows) that appears only if the stream takes a while."""
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm comes with the io extra
        yield from batches
        return
    with tqdm(total=total, unit=" rows", unit_scale=True, desc=desc, delay=_PROGRESS_DELAY) as bar:
        for batch in batches:
            yield batch
            bar.update(batch.num_rows)


def read_contingency(
    path: str | os.PathLike[str],
    truth: str,
    pred: str,
    *,
    format: str | None = None,
    batch_size: int = 1 << 20,
    missing: str = "raise",
    progress: bool = True,
) -> Contingency:
    """The contingency table of two columns of a Parquet, CSV or Arrow IPC file, streamed in
    batches of about ``batch_size`` rows (memory bounded by a batch and the table).

    ``truth`` and ``pred`` name the columns (rows of the table are ``truth``'s labels).
    ``format`` is ``"parquet"``, ``"csv"`` or ``"ipc"`` (Arrow IPC file or stream, also
    ``.feather``); by default it follows the suffix (``.parquet``, ``.csv``, ``.tsv``,
    ``.arrow``, ``.arrows``, ``.feather``; CSV may be compressed, ``.csv.gz``). Only the two
    columns are read. String columns are read as Arrow dictionaries (from Parquet's
    dictionary pages; CSV with ``auto_dict_encode``), so each batch is counted from integer
    codes. In CSV, empty and ``NA``-like fields are missing labels; types are inferred from
    the first block. Arrow IPC files keep the batches they were written with. ``missing`` is
    as in every metric. A tqdm progress bar (counting rows) appears on streams that last more
    than two seconds unless ``progress=False``. Needs pyarrow (the ``io`` extra).

    The result equals ``Contingency.from_labels`` on the two whole columns.

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
    path = Path(path)
    kind = file_format(path, format)
    missing = check_missing("read_contingency", missing)
    check_batch_size(batch_size)
    return to_contingency(read_partial(path, kind, truth, pred, batch_size, missing, progress))


def check_batch_size(batch_size: object) -> None:
    if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool):
        raise TypeError(f"batch_size must be an int; got {batch_size!r}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1; got {batch_size}")


def read_partial(
    path: Path,
    kind: str,
    truth: str,
    pred: str,
    batch_size: int,
    missing: str,
    progress: bool = False,
    row_groups: Sequence[int] | None = None,
) -> Partial:
    """The merged partial table of two columns of a file (of some of its Parquet row groups)."""
    columns = list(dict.fromkeys([truth, pred]))
    if kind == "parquet":
        batches, total = _parquet(path, columns, int(batch_size), row_groups)
    elif kind == "csv":
        batches, total = _csv(path, columns, int(batch_size))
    else:
        batches, total = _ipc(path, columns)
    if progress:
        batches = _progress(batches, total, path.name)
    acc = ContingencyAccumulator(missing=missing)
    for batch in batches:
        acc.update(batch.column(truth), batch.column(pred))
    return acc._compact()
