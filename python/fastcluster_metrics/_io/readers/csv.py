"""CSV and TSV files (also compressed: ``.gz``, ``.bz2``, ``.xz``, ``.zst``, ``.lz4``, ``.zip``),
with pyarrow's streaming CSV reader, in blocks of about ``batch_size`` rows. String columns
arrive as Arrow dictionaries (their codes, not their strings, are counted); types are inferred
from the first block; the fields pandas reads as missing (empty, ``NA``, ``<NA>``, ``None``,
...) are missing labels. Text is UTF-8 (a byte-order mark is skipped) unless another encoding
is named (pyarrow transcodes it); fields may be quoted, lines end in LF or CRLF.

A column whose later block does not parse as the type of the first is a
:class:`ColumnTypeError` (read again as text by the caller, :func:`read_again`); text not in
the file's encoding, an empty file and truncated or corrupt compressed data are told as such,
with the file's name (the column's, the row's)."""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any, ClassVar

from ..columns import Batch, is_bytes, text_labels
from ..errors import (
    ColumnTypeError,
    CorruptFileError,
    EncodingError,
    FileError,
    UnreadableFileError,
)
from ..formats import _SEPARATORS, NULL_VALUES
from ..progress import Progress, progress_bar
from .arrow import ArrowReader

__all__ = ["CsvReader"]


class CsvReader(ArrowReader):
    """A CSV or TSV file's reader."""

    may_hold_pickles: ClassVar[bool] = False

    def read_schema(self) -> Any:
        with ExitStack() as stack:  # the names, from a first block of 1 MiB
            return self._open(stack, None, 1 << 20)[0].schema

    def batches(
        self,
        columns: list[str],
        batch_size: int,
        *,
        row_groups: Sequence[int] | None = None,
        progress: Progress | None = None,
        lists: bool = False,
    ) -> Iterator[Batch]:
        if self.file._schema is not None:
            self.check(columns)  # (otherwise once open: not from a first block read apart)
        return self._batches(columns, batch_size, progress)

    def _text_stream(self, stack: ExitStack) -> tuple[Any, Any]:
        """The text of a CSV or TSV file (decompressed), and the file whose position tells
        the bytes read."""
        import pyarrow as pa

        file = self.file
        if file.compression in (None, "gzip", "bz2", "zstd", "lz4"):
            raw = stack.enter_context(pa.OSFile(str(file.path), "rb"))
            if file.compression is None:
                return raw, raw
            return stack.enter_context(pa.CompressedInputStream(raw, file.compression)), raw
        handle = stack.enter_context(open(file.path, "rb"))
        if file.compression == "xz":
            import lzma

            return stack.enter_context(lzma.LZMAFile(handle)), handle
        import zipfile

        archive = stack.enter_context(zipfile.ZipFile(handle))
        members = [m for m in archive.infolist() if not m.is_dir()]
        if len(members) != 1:
            raise UnreadableFileError(
                f"cannot read {file.name} as {file.kind}: a ZIP archive of one file is read;"
                f" this one holds {len(members)}"
            )
        return stack.enter_context(archive.open(members[0])), handle

    def _open(self, stack: ExitStack, columns: list[str] | None, block_size: int) -> Any:
        """pyarrow's streaming CSV reader of the columns (all if None), in blocks of
        ``block_size`` bytes, and the raw file. An empty file, a header not in the file's
        encoding, and compressed data that ends too soon or does not decompress are refused."""
        try:
            reader, raw = self._start(stack, columns, block_size)
            reader.schema.names  # noqa: B018 - the names decoded here, or refused
        except Exception as e:
            error = self._text_error(e, 0)
            if error is None:
                raise
            raise error from e
        return reader, raw

    def _start(self, stack: ExitStack, columns: list[str] | None, block_size: int) -> Any:
        import pyarrow.csv as pv

        file = self.file
        text, raw = self._text_stream(stack)
        # A Python stream (xz, zip, or text transcoded from another encoding) is read on this
        # thread: pyarrow's read-ahead thread, left reading one that had failed (truncated xz
        # data), aborted the interpreter at exit ("terminate called without an active
        # exception", 1 run in 40).
        native = file.compression not in ("xz", "zip") and file.encoding == "utf8"
        reader = pv.open_csv(
            text,
            read_options=pv.ReadOptions(
                block_size=block_size, encoding=file.encoding, use_threads=native
            ),
            parse_options=pv.ParseOptions(delimiter=file.sep or _SEPARATORS[file.kind]),
            convert_options=pv.ConvertOptions(
                include_columns=columns or [],
                column_types={c: text_labels() for c in file.text if c in (columns or [])},
                # string labels arrive dictionary-encoded (codes, not strings, are counted)
                auto_dict_encode=True,
                auto_dict_max_cardinality=2**31 - 1,
                strings_can_be_null=True,
                null_values=NULL_VALUES,
            ),
        )
        stack.enter_context(reader)
        return reader, raw

    def _batches(
        self, columns: list[str], batch_size: int, progress: Progress | None
    ) -> Iterator[Batch]:
        import pyarrow as pa

        file = self.file
        with ExitStack() as stack:
            block_size = _csv_block_size(file.path, batch_size, file.compression is not None)
            try:
                reader, raw = self._open(stack, columns, block_size)
            except pa.ArrowKeyError:  # a column not there: the error that names it
                self.check(columns)
                raise
            undecoded = [c for c in columns if is_bytes(reader.schema.field(c).type)]
            if undecoded:  # text not in the encoding, in the first block: named with its row
                raise self._undecoded(reader, undecoded[0])
            self.check_types(reader.schema, columns)
            bar = stack.enter_context(
                closing(progress_bar(progress, _size(file.path), "B", self.label))
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
        return ColumnTypeError(self.file.name, names[index], match.group(2), match.group(3), rows)

    def _utf16(self) -> EncodingError | None:
        """The error of UTF-16 text read as UTF-8 (told by its byte-order mark), or None."""
        file = self.file
        if file.encoding != "utf8":
            return None
        try:
            with ExitStack() as stack:
                head = self._text_stream(stack)[0].read(2)
        except Exception:  # the file's own error is told instead
            return None
        if head not in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            return None
        return EncodingError(
            file.name,
            file.encoding,
            "the file",
            "it starts with a UTF-16 byte-order mark",
            "utf-16",
        )

    def _undecoded(self, reader: Any, column: str) -> EncodingError:
        """The error of a column read as bytes (text not in the file's encoding), with the
        first such label of the first block and its row."""
        import pyarrow as pa
        import pyarrow.compute as pc

        file = self.file
        utf16 = self._utf16()
        if utf16 is not None:
            return utf16

        first = next(iter(reader), None)
        if first is None:  # pragma: no cover - a column read as bytes has a row
            return EncodingError(file.name, file.encoding, f"column {column!r}")
        values = first.column(column)
        indices = None
        if pa.types.is_dictionary(values.type):
            values, indices = values.dictionary, values.indices
        detail = ""
        for code, item in enumerate(values.to_pylist()):  # an error path: the labels once
            if item is None:
                continue
            try:
                item.decode(codecs.lookup(file.encoding).name)
            except UnicodeDecodeError:
                row = code if indices is None else pc.index(indices, code).as_py()
                detail = f"the first such label in data row {row + 1:,}: {item!r}"
                break
        return EncodingError(file.name, file.encoding, f"column {column!r}", detail)

    def _text_error(self, error: Exception, rows: int) -> FileError | None:
        """The clear error of a failure to read a CSV or TSV file (``rows`` read before it),
        or None for an error told as it is."""
        import lzma
        import zipfile
        import zlib

        import pyarrow as pa

        file = self.file
        if isinstance(error, FileError):
            return None
        if isinstance(error, (UnicodeDecodeError, pa.ArrowInvalid)):
            utf16 = self._utf16()
            if utf16 is not None:
                return utf16
        text = str(error).strip().splitlines()[0] if str(error).strip() else ""
        if isinstance(error, UnicodeDecodeError):
            if file.encoding == "utf8":  # pyarrow reads UTF-8 itself: the header's names
                return EncodingError(
                    file.name, file.encoding, "the header", f"the name {error.object!r}"
                )
            bad = error.object[error.start : error.end]
            return EncodingError(file.name, file.encoding, "the file", f"the bytes {bad!r}")
        if isinstance(error, pa.ArrowInvalid):
            if text.startswith("Empty CSV file"):
                return UnreadableFileError(f"{file.name}: the file is empty (no header, no rows)")
            found = re.match(r"In CSV column #(\d+): .*invalid UTF8", text)
            if found:  # in a later block than the first (read as text)
                names = self.columns()
                index = int(found.group(1))
                column = names[index] if index < len(names) else f"#{index}"
                return EncodingError(
                    file.name,
                    file.encoding,
                    f"column {column!r}",
                    f"the first such label after data row {rows:,}",
                )
            return None
        broken = (EOFError, lzma.LZMAError, zipfile.BadZipFile, zlib.error)
        if file.compression is not None and (
            isinstance(error, broken) or (isinstance(error, OSError) and error.errno is None)
        ):
            return CorruptFileError(
                f"{file.name}: the {file.compression} data is truncated or corrupt"
                f" ({text or type(error).__name__})"
            )
        return None


def _csv_block_size(path: Path, batch_size: int, compressed: bool) -> int:
    """Bytes per CSV block to hold about ``batch_size`` rows, from the first 64 KiB."""
    bytes_per_row = 32.0
    if not compressed:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
        if head.count(b"\n") > 1:
            bytes_per_row = len(head) / head.count(b"\n")
    return int(min(max(batch_size * bytes_per_row * 1.1, 1 << 16), 1 << 30))


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:  # pragma: no cover - the file went away while read
        return None
