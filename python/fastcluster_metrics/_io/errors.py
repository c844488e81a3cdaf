"""The errors of reading a file: each names the file (and the column), and is also the
built-in exception a caller expects (``KeyError`` for a missing column, ``ValueError`` for an
unknown format, ...). A message that suggests an option spells it as the caller passes it
(:meth:`FileError.describe`)."""

from __future__ import annotations

__all__ = [
    "ColumnTypeError",
    "CorruptFileError",
    "EncodingError",
    "FileError",
    "FormatError",
    "LabelTypeError",
    "MissingColumnError",
    "MissingDependencyError",
    "MissingLabelsError",
    "NoFileError",
    "UnreadableFileError",
    "UnsafeFileError",
    "WeightColumnError",
]


def _option(name: str, value: str, cli: bool) -> str:
    """An option as the caller passes it: ``--name value`` on the command line, ``name='value'``
    in Python."""
    return f"--{name} {value}" if cli else f"{name}={value!r}"


class FileError(Exception):
    """A problem with a file to read, told in a message that names it."""

    def describe(self, cli: bool = False) -> str:
        """The message, with any option it suggests spelled for the command line (``cli``) or
        for Python (``str(error)``)."""
        return str(self)


class FormatError(FileError, ValueError):
    """A format that is unknown, cannot be told from the file's name, or is not read
    compressed."""


class MissingColumnError(FileError, KeyError):
    """A column the file does not have (the message names the file, the column, and lists the
    columns there are)."""

    def __init__(self, message: str, file: str | None = None, column: str | None = None) -> None:
        super().__init__(message)
        self.file = file
        self.column = column

    def __str__(self) -> str:  # the message, not KeyError's repr of it
        return str(self.args[0])


class UnreadableFileError(FileError, ValueError):
    """A file read without error whose content cannot be labels (text that is not UTF-8, a ZIP
    archive of several files)."""


class UnsafeFileError(UnreadableFileError):
    """A file that asks its reader to do more than read its data (``NAME: obs column 'x' is
    stored with the codec 'pickle', which could run code when decoded; refusing to read
    it``): a codec that can run code, a reference or link that leads out of where it should,
    data kept in another file. Refused before anything is decoded."""


class EncodingError(UnreadableFileError):
    """Text that is not in the file's encoding (UTF-8 by default): ``what`` (a column, the
    header, the text) and where, with the option that names the encoding."""

    def __init__(
        self, file: str, encoding: str, what: str, detail: str = "", likely: str = "latin-1"
    ) -> None:
        super().__init__(file, encoding, what, detail, likely)  # (the arguments: it pickles)
        self.file, self.encoding, self.what, self.detail = file, encoding, what, detail
        self.likely = likely

    def describe(self, cli: bool = False) -> str:
        name = "UTF-8" if self.encoding == "utf8" else self.encoding
        detail = f" ({self.detail})" if self.detail else ""
        return (
            f"{self.file}: {self.what} is not {name} text{detail}; name the file's encoding,"
            f" such as {_option('encoding', self.likely, cli)}"
        )

    def __str__(self) -> str:
        return self.describe()


class CorruptFileError(FileError, OSError):
    """Compressed data that ends too soon or does not decompress."""


class ColumnTypeError(FileError, ValueError):
    """A CSV or TSV column whose later rows do not fit the type its first block gave it (as
    numbers, then text). Readers that meet it read the file again with :meth:`DataFile.as_text`
    of the column: the labels are its text."""

    def __init__(self, file: str, column: str, kind: str, value: str, row: int) -> None:
        super().__init__(file, column, kind, value, row)  # (the arguments: it pickles)
        self.file, self.column, self.kind, self.value, self.row = file, column, kind, value, row

    def __str__(self) -> str:
        return (
            f"{self.file}: column {self.column!r} was read as {self.kind} from its first rows;"
            f" after data row {self.row:,} it holds {self.value!r}"
        )


class LabelTypeError(FileError, TypeError):
    """A column whose values cannot be labels (nested values, bytes)."""


class MissingLabelsError(FileError, ValueError):
    """A column with missing labels, and the row of the first (``where``: ``data row``, the
    row of the file counted from 1 after the header, or ``joined row``), with the options
    that leave them out or count them."""

    def __init__(self, file: str | None, column: str, row: int, where: str = "data row") -> None:
        super().__init__(file, column, row, where)  # (the arguments: it pickles)
        self.file, self.column, self.row, self.where = file, column, row, where

    def describe(self, cli: bool = False) -> str:
        return (
            f"{self.file + ': ' if self.file else ''}column {self.column!r} has missing labels"
            f" (the first in {self.where} {self.row:,}); pass {_option('missing', 'drop', cli)}"
            f" to leave those rows out, or {_option('missing', 'cluster', cli)} to count missing"
            " as one more label"
        )

    def __str__(self) -> str:
        return self.describe()


class WeightColumnError(FileError, ValueError):
    """A column of sample weights with a value that is not a non-negative finite number (text,
    missing, negative, NaN, infinite), named with its row."""


class MissingDependencyError(FileError, ImportError):
    """The library that reads a format is not installed."""


class NoFileError(FileError, FileNotFoundError):
    """No file at the path (or a directory)."""
