"""Where a file is read: the one set of file readers of :func:`read_contingency` (and its Dask
tasks) and of the command line.

A file's format follows its name (one table of suffixes, one of compressions) or a format
name (``csv``, ``tsv``, ``parquet``, ``ipc`` with its aliases ``arrow`` and ``feather``,
``h5ad``). :func:`open_file` checks that the file is there and tells its format;
:meth:`DataFile.columns` lists its columns; :meth:`DataFile.batches` yields the columns asked
for, batch by batch, as ``{name: labels}``, under a progress bar if asked; :func:`read_ahead`
reads the next batch on a thread of its own while the caller counts this one:

- CSV and TSV (also compressed: ``.gz``, ``.bz2``, ``.xz``, ``.zst``, ``.lz4``, ``.zip``) with
  pyarrow's streaming CSV reader, in blocks of about ``batch_size`` rows. String columns arrive
  as Arrow dictionaries (their codes, not their strings, are counted); types are inferred from
  the first block; the fields pandas reads as missing (empty, ``NA``, ``<NA>``, ``None``, ...)
  are missing labels. Text is UTF-8 (a byte-order mark is skipped) unless another encoding is
  named (pyarrow transcodes it); fields may be quoted, lines end in LF or CRLF.
- Parquet with pyarrow, by record batches of ``batch_size`` rows (string columns straight from
  the dictionary pages, as Arrow dictionaries), optionally of some row groups only.
- Arrow IPC (file or stream format) with pyarrow, in the batches it was written with.
- AnnData files, .h5ad and zarr stores (a directory, or a ``.zarr.zip``): the ``obs`` columns
  asked for (never ``X``), in every layout anndata has written or reads, by
  ``anndata_files.py``, in one batch of pandas Series; the cell names are the column
  ``obs_names``.

Label columns hold text, numbers, booleans or categories: a column of nested values (struct,
list, map, union) or of bytes is refused once its type is known, before it is counted.

Errors name the file (and the column): :class:`FileError` and its subclasses, which are also
the built-in exceptions a caller expects (``KeyError`` for a missing column, ``ValueError`` for
an unknown format, text that is not in the file's encoding, an empty file or missing labels,
``TypeError`` for a column of nested values, ``OSError`` for compressed data that is truncated
or corrupt, ``FileNotFoundError``, ``ImportError``). A message that suggests an option spells
it as the caller passes it (:meth:`FileError.describe`). pyarrow, tqdm, h5py and
zarr are imported only when a file is read.

A file is data, never code: what would have its reader run code or read another file (a
zarr codec such as numcodecs' ``pickle``, an HDF5 reference out of ``obs`` or link to another
file) is refused before anything is decoded, :class:`UnsafeFileError` (a ``ValueError``);
Parquet and Arrow IPC files are read only with a pyarrow that does not unpickle the
``arrow.py_extension_type`` columns a file may hold (14.0.1 or later, not told to by
``PyExtensionType.set_auto_load(True)``), and such a column is refused. CSV holds text only.
"""

from __future__ import annotations

import codecs
import importlib
import os
import re
import warnings
from collections.abc import Generator, Iterable, Iterator, Sequence
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .columns import Batch, find_columns, is_bytes, is_text, matches, refused_kind, text_labels
from .errors import (
    ColumnTypeError,
    CorruptFileError,
    EncodingError,
    FileError,
    LabelTypeError,
    MissingColumnError,
    MissingDependencyError,
    NoFileError,
    UnreadableFileError,
    UnsafeFileError,
)
from .formats import (
    _ANNDATA,
    _NEEDS,
    _SEPARATORS,
    _TEXT,
    FORMAT_NAMES,
    NULL_VALUES,
    check_encoding,
    file_format,
    is_store,
)
from .progress import Progress, progress_bar

__all__ = ["DataFile", "check_batch_size", "open_file", "read_again", "read_ahead"]


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


def _csv_block_size(path: Path, batch_size: int, compressed: bool) -> int:
    """Bytes per CSV block to hold about ``batch_size`` rows, from the first 64 KiB."""
    bytes_per_row = 32.0
    if not compressed:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
        if head.count(b"\n") > 1:
            bytes_per_row = len(head) / head.count(b"\n")
    return int(min(max(batch_size * bytes_per_row * 1.1, 1 << 16), 1 << 30))


@dataclass
class DataFile:
    """A file to read: where it is (``name``, the path as messages name it), its format,
    compression, separator and text encoding (CSV, TSV; as :func:`check_encoding` names it).
    Holds no open file between calls (it pickles, to be read on another machine); its columns
    are kept once read."""

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

    # columns

    def columns(self) -> list[str]:
        """The names of the file's columns (an AnnData file's: ``obs_names`` and ``obs``'s)."""
        if self.kind in _ANNDATA:
            return self._obs_columns()
        return [str(c) for c in self._arrow_schema().names]

    def check(self, columns: Iterable[str]) -> None:
        """Refuses a column the file does not have (exact names)."""
        self.find(list(columns), None, patterns=False)

    def find(
        self, wanted: str | Iterable[str], what: str | None = None, *, patterns: bool = True
    ) -> list[str]:
        """Column names, shell-style patterns (``"leiden_*"``) expanded in column order, or
        the :class:`MissingColumnError` (``NAME: no {what} column 'x'; the columns are: ...``)
        of the first that is not there."""
        names = [wanted] if isinstance(wanted, str) else list(wanted)
        columns = self.columns()
        try:
            return find_columns(columns, names, what, patterns=patterns)
        except KeyError as e:
            absent = next(
                n for n in names if n not in columns and not (patterns and matches(n, columns))
            )
            raise MissingColumnError(f"{self.name}: {e.args[0]}", self.name, absent) from None

    def num_row_groups(self) -> int:
        """The number of row groups of a Parquet file."""
        self._require()
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(self.path).metadata.num_row_groups)

    @property
    def streamed(self) -> bool:
        """Whether the file is read in batches (not AnnData files: their obs comes whole)."""
        return self.kind not in _ANNDATA

    def rows_before(self, row_group: int) -> int:
        """The number of rows of a Parquet file before one of its row groups."""
        self._require()
        import pyarrow.parquet as pq

        meta = pq.ParquetFile(self.path).metadata
        return sum(meta.row_group(i).num_rows for i in range(row_group))

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
        if self.kind not in _TEXT or self._schema is not None:
            self.check(wanted)  # (CSV: once open, below; not from a first block read apart)
        if self.kind in ("parquet", "ipc"):
            self._check_types(self._arrow_schema(), wanted, lists)
        if self.kind in _TEXT:
            return self._csv_batches(wanted, int(batch_size), progress)
        if self.kind == "parquet":
            return self._parquet_batches(wanted, int(batch_size), row_groups, progress)
        if self.kind == "ipc":
            return self._ipc_batches(wanted, progress)
        return iter([self._read_obs(wanted)])

    def _check_types(self, schema: Any, columns: Sequence[str], lists: bool = False) -> None:
        """Refuses a column whose values cannot be labels (nor label sets, with ``lists``),
        before any row is read."""
        for column in columns:
            with _unpickling_refused_quietly():
                arrow_type = schema.field(column).type
            if getattr(arrow_type, "extension_name", None) == _PICKLED:
                raise UnsafeFileError(
                    f"{self.name}: column {column!r} is of the extension type {_PICKLED}, a pickle"
                    " that could run code when decoded; refusing to read it"
                )
            kind = refused_kind(arrow_type)
            if kind is not None and not (lists and kind == "list"):
                raise LabelTypeError(
                    f"{self.name}: column {column!r} holds {kind} values; label columns hold"
                    " text, numbers, booleans or categories"
                )

    # pyarrow

    def _require(self) -> None:
        module, extra = _NEEDS[self.kind]
        try:
            library = importlib.import_module(module)
        except ImportError as e:
            raise MissingDependencyError(
                f"reading {self.kind} files needs {module}: pip install"
                f" 'fastcluster-metrics[{extra}]' ({e})"
            ) from e
        if self.kind in ("parquet", "ipc") and _release(library.__version__) < (14, 0, 1):
            # pyarrow before 14.0.1 unpickles the metadata of a column of the extension type
            # arrow.py_extension_type as it reads the schema: code the file carries
            raise MissingDependencyError(
                f"reading {self.kind} files needs pyarrow 14.0.1 or later (pyarrow"
                f" {library.__version__} runs code a file can carry, CVE-2023-47248): pip"
                f" install 'fastcluster-metrics[{extra}]'"
            )
        if self.kind in ("parquet", "ipc") and getattr(library.lib, _AUTO_LOAD, False):
            # pyarrow 14.0.1 to 20 unpickles them again once told to
            raise UnsafeFileError(
                f"{self.name}: pyarrow is set to unpickle the columns of the extension type"
                f" {_PICKLED} a {self.kind} file may hold (pyarrow.PyExtensionType.set_auto_load"
                "(True)), which runs code the file can carry; refusing to read it"
            )

    def _arrow_schema(self) -> Any:
        if self._schema is None:
            self._require()
            with _unpickling_refused_quietly():
                if self.kind == "parquet":
                    import pyarrow.parquet as pq

                    self._schema = pq.read_schema(self.path)
                elif self.kind == "ipc":
                    with ExitStack() as stack:
                        self._schema = self._open_ipc(stack, None)[0].schema
                else:
                    with ExitStack() as stack:  # the names, from a first block of 1 MiB
                        self._schema = self._open_csv(stack, None, 1 << 20)[0].schema
        return self._schema

    def _text_stream(self, stack: ExitStack) -> tuple[Any, Any]:
        """The text of a CSV or TSV file (decompressed), and the file whose position tells
        the bytes read."""
        import pyarrow as pa

        if self.compression in (None, "gzip", "bz2", "zstd", "lz4"):
            raw = stack.enter_context(pa.OSFile(str(self.path), "rb"))
            if self.compression is None:
                return raw, raw
            return stack.enter_context(pa.CompressedInputStream(raw, self.compression)), raw
        handle = stack.enter_context(open(self.path, "rb"))
        if self.compression == "xz":
            import lzma

            return stack.enter_context(lzma.LZMAFile(handle)), handle
        import zipfile

        archive = stack.enter_context(zipfile.ZipFile(handle))
        members = [m for m in archive.infolist() if not m.is_dir()]
        if len(members) != 1:
            raise UnreadableFileError(
                f"cannot read {self.name} as {self.kind}: a ZIP archive of one file is read;"
                f" this one holds {len(members)}"
            )
        return stack.enter_context(archive.open(members[0])), handle

    def _open_csv(self, stack: ExitStack, columns: list[str] | None, block_size: int) -> Any:
        """pyarrow's streaming CSV reader of the columns (all if None), in blocks of
        ``block_size`` bytes, and the raw file. An empty file, a header not in the file's
        encoding, and compressed data that ends too soon or does not decompress are refused."""
        try:
            reader, raw = self._start_csv(stack, columns, block_size)
            reader.schema.names  # noqa: B018 - the names decoded here, or refused
        except Exception as e:
            error = self._text_error(e, 0)
            if error is None:
                raise
            raise error from e
        return reader, raw

    def _start_csv(self, stack: ExitStack, columns: list[str] | None, block_size: int) -> Any:
        import pyarrow.csv as pv

        text, raw = self._text_stream(stack)
        # A Python stream (xz, zip, or text transcoded from another encoding) is read on this
        # thread: pyarrow's read-ahead thread, left reading one that had failed (truncated xz
        # data), aborted the interpreter at exit ("terminate called without an active
        # exception", 1 run in 40).
        native = self.compression not in ("xz", "zip") and self.encoding == "utf8"
        reader = pv.open_csv(
            text,
            read_options=pv.ReadOptions(
                block_size=block_size, encoding=self.encoding, use_threads=native
            ),
            parse_options=pv.ParseOptions(delimiter=self.sep or _SEPARATORS[self.kind]),
            convert_options=pv.ConvertOptions(
                include_columns=columns or [],
                column_types={c: text_labels() for c in self.text if c in (columns or [])},
                # string labels arrive dictionary-encoded (codes, not strings, are counted)
                auto_dict_encode=True,
                auto_dict_max_cardinality=2**31 - 1,
                strings_can_be_null=True,
                null_values=NULL_VALUES,
            ),
        )
        stack.enter_context(reader)
        return reader, raw

    def _csv_batches(
        self, columns: list[str], batch_size: int, progress: Progress | None
    ) -> Iterator[Batch]:
        import pyarrow as pa

        with ExitStack() as stack:
            block_size = _csv_block_size(self.path, batch_size, self.compression is not None)
            try:
                reader, raw = self._open_csv(stack, columns, block_size)
            except pa.ArrowKeyError:  # a column not there: the error that names it
                self.check(columns)
                raise
            undecoded = [c for c in columns if is_bytes(reader.schema.field(c).type)]
            if undecoded:  # text not in the encoding, in the first block: named with its row
                raise self._undecoded(reader, undecoded[0])
            self._check_types(reader.schema, columns)
            bar = stack.enter_context(
                closing(progress_bar(progress, _size(self.path), "B", self.label))
            )
            done = rows = 0
            batches = iter(reader)
            while True:
                try:
                    batch = next(batches)
                except StopIteration:
                    return
                except Exception as e:
                    error = self._text_error(e, rows) or self._type_change(e, rows)
                    if error is None:
                        raise
                    raise error from e
                position = raw.tell()
                bar.update(position - done)
                done = position
                rows += batch.num_rows
                yield {c: batch.column(c) for c in columns}

    def as_text(self, column: str) -> DataFile:
        """This file, with ``column`` read as text (after a :class:`ColumnTypeError`)."""
        from dataclasses import replace

        return replace(self, text=self.text | {column}, _schema=None)

    def _type_change(self, error: Exception, rows: int) -> ColumnTypeError | None:
        """The :class:`ColumnTypeError` of pyarrow's conversion error of a later block."""
        match = re.match(
            r"In CSV column #(\d+): CSV conversion error to (\w+): invalid value '(.*)'$",
            str(error),
            re.S,
        )
        if match is None:
            return None
        names = self.columns()
        index = int(match.group(1))
        if index >= len(names):  # pragma: no cover - pyarrow numbers the file's columns
            return None
        return ColumnTypeError(self.name, names[index], match.group(2), match.group(3), rows)

    def _utf16(self) -> EncodingError | None:
        """The error of UTF-16 text read as UTF-8 (told by its byte-order mark), or None."""
        if self.encoding != "utf8":
            return None
        try:
            with ExitStack() as stack:
                head = self._text_stream(stack)[0].read(2)
        except Exception:  # the file's own error is told instead
            return None
        if head not in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            return None
        return EncodingError(
            self.name,
            self.encoding,
            "the file",
            "it starts with a UTF-16 byte-order mark",
            "utf-16",
        )

    def _undecoded(self, reader: Any, column: str) -> EncodingError:
        """The error of a column read as bytes (text not in the file's encoding), with the
        first such label of the first block and its row."""
        import pyarrow as pa
        import pyarrow.compute as pc

        utf16 = self._utf16()
        if utf16 is not None:
            return utf16

        first = next(iter(reader), None)
        if first is None:  # pragma: no cover - a column read as bytes has a row
            return EncodingError(self.name, self.encoding, f"column {column!r}")
        values = first.column(column)
        indices = None
        if pa.types.is_dictionary(values.type):
            values, indices = values.dictionary, values.indices
        detail = ""
        for code, item in enumerate(values.to_pylist()):  # an error path: the labels once
            if item is None:
                continue
            try:
                item.decode(codecs.lookup(self.encoding).name)
            except UnicodeDecodeError:
                row = code if indices is None else pc.index(indices, code).as_py()
                detail = f"the first such label in data row {row + 1:,}: {item!r}"
                break
        return EncodingError(self.name, self.encoding, f"column {column!r}", detail)

    def _text_error(self, error: Exception, rows: int) -> FileError | None:
        """The clear error of a failure to read a CSV or TSV file (``rows`` read before it),
        or None for an error told as it is."""
        import lzma
        import zipfile
        import zlib

        import pyarrow as pa

        if isinstance(error, FileError):
            return None
        if isinstance(error, (UnicodeDecodeError, pa.ArrowInvalid)):
            utf16 = self._utf16()
            if utf16 is not None:
                return utf16
        text = str(error).strip().splitlines()[0] if str(error).strip() else ""
        if isinstance(error, UnicodeDecodeError):
            if self.encoding == "utf8":  # pyarrow reads UTF-8 itself: the header's names
                return EncodingError(
                    self.name, self.encoding, "the header", f"the name {error.object!r}"
                )
            bad = error.object[error.start : error.end]
            return EncodingError(self.name, self.encoding, "the file", f"the bytes {bad!r}")
        if isinstance(error, pa.ArrowInvalid):
            if text.startswith("Empty CSV file"):
                return UnreadableFileError(f"{self.name}: the file is empty (no header, no rows)")
            found = re.match(r"In CSV column #(\d+): .*invalid UTF8", text)
            if found:  # in a later block than the first (read as text)
                names = self.columns()
                index = int(found.group(1))
                column = names[index] if index < len(names) else f"#{index}"
                return EncodingError(
                    self.name,
                    self.encoding,
                    f"column {column!r}",
                    f"the first such label after data row {rows:,}",
                )
            return None
        broken = (EOFError, lzma.LZMAError, zipfile.BadZipFile, zlib.error)
        if self.compression is not None and (
            isinstance(error, broken) or (isinstance(error, OSError) and error.errno is None)
        ):
            return CorruptFileError(
                f"{self.name}: the {self.compression} data is truncated or corrupt"
                f" ({text or type(error).__name__})"
            )
        return None

    def _parquet_batches(
        self,
        columns: list[str],
        batch_size: int,
        row_groups: Sequence[int] | None,
        progress: Progress | None,
    ) -> Iterator[Batch]:
        import pyarrow.parquet as pq

        schema = self._arrow_schema()
        # String columns come straight from the Parquet dictionary pages as Arrow dictionaries:
        # their codes, not their strings, are what the counting pass reads.
        text = [c for c in columns if is_text(schema.field(c).type)]
        # pre_buffer=False: the pre-buffering cache keeps every row group read until the file
        # closes (memory would grow with the file, not with the batch).
        file = pq.ParquetFile(self.path, read_dictionary=text or None, pre_buffer=False)
        with file:
            meta = file.metadata
            total = (
                meta.num_rows
                if row_groups is None
                else sum(meta.row_group(i).num_rows for i in row_groups)
            )
            with closing(progress_bar(progress, total, " rows", self.label)) as bar:
                for batch in file.iter_batches(
                    batch_size=batch_size, columns=columns, row_groups=row_groups
                ):
                    bar.update(batch.num_rows)
                    yield {c: batch.column(c) for c in columns}

    def _open_ipc(self, stack: ExitStack, columns: list[str] | None) -> tuple[Any, bool]:
        """An Arrow IPC file reader (of the columns, all if None), or a stream reader; and
        whether it reads the file format."""
        import pyarrow as pa
        import pyarrow.ipc as ipc

        source = stack.enter_context(pa.OSFile(str(self.path), "rb"))  # read, not mapped
        try:
            reader = ipc.open_file(source)
        except pa.ArrowInvalid:
            source.seek(0)
            return stack.enter_context(ipc.open_stream(source)), False
        if columns is not None:
            wanted = sorted(reader.schema.get_field_index(c) for c in columns)
            reader = ipc.open_file(source, options=ipc.IpcReadOptions(included_fields=wanted))
        return reader, True

    def _ipc_batches(self, columns: list[str], progress: Progress | None) -> Iterator[Batch]:
        with ExitStack() as stack:
            reader, is_file = self._open_ipc(stack, columns)
            batches = (
                (reader.get_batch(i) for i in range(reader.num_record_batches))
                if is_file
                else iter(reader)
            )
            bar = stack.enter_context(closing(progress_bar(progress, None, " rows", self.label)))
            for batch in batches:
                bar.update(batch.num_rows)
                yield {c: batch.column(c) for c in columns}

    # anndata

    def _anndata(self) -> Any:
        """The AnnData reader, with errors that name the file."""
        self._require()
        from . import anndata_files as _anndata_files

        return _anndata_files

    def _obs_columns(self) -> list[str]:
        if self._obs is None:
            reader = self._anndata()
            try:
                self._obs = reader.obs_columns(self.path, self.kind)[0]
            except reader.UnsafeElementError as e:
                raise UnsafeFileError(f"{self.name}: {e}") from e
            except reader.AnnDataError as e:
                raise UnreadableFileError(f"cannot read {self.name} as {self.kind}: {e}") from e
        return self._obs

    def _read_obs(self, columns: list[str]) -> Batch:
        """Columns of an AnnData file's obs (never its X), as pandas Series."""
        reader = self._anndata()
        try:
            return dict(reader.read_obs(self.path, self.kind, columns))
        except reader.UnsafeElementError as e:
            raise UnsafeFileError(f"{self.name}: {e}") from e
        except reader.AnnDataError as e:
            raise UnreadableFileError(f"cannot read {self.name} as {self.kind}: {e}") from e

    @property
    def label(self) -> str:
        """The file's name without its folder (the progress bar's)."""
        return self.path.name


def read_ahead(items: Iterator[Any]) -> Generator[Any, None, None]:
    """``items``, each next one read on a thread of its own while the caller works on this
    one: pyarrow decodes without the GIL, and the count releases it, so a stream runs at the
    slower of the two, not at their sum (one more batch is held). The reader's exceptions are
    raised here, in order; once the caller stops (an error, an interrupt, ``close``), the
    reader stops after the item it is reading and closes ``items``."""
    import queue
    import threading

    handed: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def hand(last: bool, item: Any) -> None:
        while not stop.is_set():
            try:
                handed.put((last, item), timeout=0.05)
                return
            except queue.Full:
                continue

    def read() -> None:
        try:
            for item in items:
                hand(False, item)
                if stop.is_set():
                    return
        except BaseException as e:  # raised in the caller's thread
            hand(True, e)
            return
        finally:
            # A generator's files close now, on the thread that runs it.
            close = getattr(items, "close", None)
            if close is not None:
                close()
        hand(True, None)

    reader = threading.Thread(target=read, name="fastcluster_metrics read-ahead", daemon=True)
    reader.start()
    try:
        while True:
            last, item = handed.get()
            if last:
                if item is not None:
                    raise item
                return
            yield item
    finally:
        stop.set()
        reader.join()


def read_again(file: DataFile, error: ColumnTypeError) -> DataFile:
    """The file to read again after ``error``: with its column as text (raised again if the
    column was read as text already)."""
    if error.column in file.text:
        raise error
    return file.as_text(error.column)


_PICKLED = "arrow.py_extension_type"
"""pyarrow's extension type of pickled Python objects (CVE-2023-47248; gone in pyarrow 21)."""
_AUTO_LOAD = "_py_extension_type_auto_load"
"""pyarrow.lib's switch (14.0.1 to 20) that ``PyExtensionType.set_auto_load`` turns."""


@contextmanager
def _unpickling_refused_quietly() -> Iterator[None]:
    """pyarrow 14.0.1 to 20 warns, twice, each time it meets the type of a column of
    ``arrow.py_extension_type`` (which it no longer unpickles: an ``UnknownExtensionType``);
    the column is refused in one line of ours (:meth:`DataFile._check_types`) instead."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "pickle-based deserialization", RuntimeWarning)
        warnings.filterwarnings("ignore", "pyarrow.PyExtensionType is deprecated", FutureWarning)
        yield


def _release(version: str) -> tuple[int, ...]:
    """A version's first three numbers (``"14.0.1.dev2"``: ``(14, 0, 1)``)."""
    return tuple(int(n) for n in re.findall(r"\d+", version)[:3])


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:  # pragma: no cover - the file went away while read
        return None
