"""The file to read, :class:`DataFile`: it picks its format's reader (by the format
``formats.py`` tells) and answers for it; :func:`open_file` checks that the file is there and
tells its format."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..columns import Batch
from ..errors import ColumnTypeError, NoFileError
from ..formats import (
    _ANNDATA,
    _SEPARATORS,
    _TEXT,
    FORMAT_NAMES,
    check_encoding,
    file_format,
    is_store,
)
from ..progress import Progress
from .base import Reader
from .csv import CsvReader
from .h5ad import AnnDataReader
from .ipc import IpcReader
from .parquet import ParquetReader

__all__ = ["READERS", "DataFile", "check_batch_size", "open_file", "read_again"]


READERS: dict[str, type[Reader]] = {
    **dict.fromkeys(_TEXT, CsvReader),
    "parquet": ParquetReader,
    "ipc": IpcReader,
    **dict.fromkeys(_ANNDATA, AnnDataReader),
}
"""The reader of each format (each value of ``formats.FORMAT_NAMES``)."""


def open_file(
    path: str | os.PathLike[str],
    format: str | None = None,
    *,
    sep: str | None = None,
    choose: str | None = None,
    encoding: str = "utf-8",
) -> DataFile:
    """The :class:`DataFile` at ``path`` (refused if there is none), its format from
    ``format`` or its name (see :func:`file_format`); ``sep`` is the field separator of a CSV
    or TSV file (a comma, a tab by default), ``encoding`` its text encoding (see
    :func:`check_encoding`; binary formats ignore it)."""
    encoding = check_encoding(encoding)
    text = os.fspath(path)
    target = Path(text)
    if not target.exists():
        raise NoFileError(f"no such file: {text}")
    if target.is_dir():
        if format is None and is_store(target):
            format = "zarr"  # a zarr store by any name
        elif format is None or FORMAT_NAMES.get(str(format).lower()) != "zarr":
            raise NoFileError(f"{text} is a directory, not a file (nor a zarr store)")
    kind, compression = (
        file_format(text, format) if choose is None else file_format(text, format, choose)
    )
    if kind in _TEXT:
        sep = _SEPARATORS[kind] if sep is None else sep
    return DataFile(target, kind, compression, sep, str(target), encoding)


def check_batch_size(batch_size: object) -> None:
    if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool):
        raise TypeError(f"batch_size must be an int; got {batch_size!r}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1; got {batch_size}")


@dataclass
class DataFile:
    """A file to read: where it is (``name``, the path as messages name it), its format,
    compression, separator and text encoding (CSV, TSV; as :func:`check_encoding` names it).
    Holds no open file between calls (it pickles, to be read on another machine); its columns
    are kept once read. Read by the reader of its format (:data:`READERS`)."""

    path: Path
    kind: str
    compression: str | None = None
    sep: str | None = None
    name: str = ""
    encoding: str = "utf8"
    text: frozenset[str] = frozenset()
    """CSV and TSV columns read as text, whatever their first rows look like."""
    _schema: Any = field(default=None, repr=False, compare=False)
    _obs: list[str] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.name = self.name or str(self.path)

    def _reader(self) -> Reader:
        return READERS[self.kind](self)

    # columns

    def columns(self) -> list[str]:
        """The names of the file's columns (an AnnData file's: ``obs_names`` and ``obs``'s)."""
        return self._reader().columns()

    def check(self, columns: Iterable[str]) -> None:
        """Refuses a column the file does not have (exact names)."""
        self._reader().check(columns)

    def find(
        self, wanted: str | Iterable[str], what: str | None = None, *, patterns: bool = True
    ) -> list[str]:
        """Column names, shell-style patterns (``"leiden_*"``) expanded in column order, or
        the :class:`MissingColumnError` (``NAME: no {what} column 'x'; the columns are: ...``)
        of the first that is not there."""
        return self._reader().find(wanted, what, patterns=patterns)

    def num_row_groups(self) -> int:
        """The number of row groups of a Parquet file."""
        return ParquetReader(self).num_row_groups()

    @property
    def streamed(self) -> bool:
        """Whether the file is read in batches (not AnnData files: their obs comes whole)."""
        return READERS[self.kind].streamed

    def rows_before(self, row_group: int) -> int:
        """The number of rows of a Parquet file before one of its row groups."""
        return ParquetReader(self).rows_before(row_group)

    # batches

    def batches(
        self,
        columns: Sequence[str],
        batch_size: int,
        *,
        row_groups: Sequence[int] | None = None,
        progress: Progress | None = None,
        lists: bool = False,
    ) -> Iterator[Batch]:
        """The columns asked for (refused if one is not there), batch by batch, as
        ``{name: labels}``: Arrow arrays of about ``batch_size`` rows (pandas Series of every
        row for AnnData files); of some row groups only for Parquet. Under a progress bar (of
        rows, or of bytes for CSV and TSV) with ``progress``. With ``lists``, list columns
        (label sets: covers) are read too."""
        wanted = list(dict.fromkeys(columns))
        return self._reader().batches(
            wanted, int(batch_size), row_groups=row_groups, progress=progress, lists=lists
        )

    def as_text(self, column: str) -> DataFile:
        """This file, with ``column`` read as text (after a :class:`ColumnTypeError`)."""
        return replace(self, text=self.text | {column}, _schema=None)

    @property
    def label(self) -> str:
        """The file's name without its folder (the progress bar's)."""
        return self.path.name


def read_again(file: DataFile, error: ColumnTypeError) -> DataFile:
    """The file to read again after ``error``: with its column as text (raised again if the
    column was read as text already)."""
    if error.column in file.text:
        raise error
    return file.as_text(error.column)
