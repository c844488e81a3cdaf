"""What every file reader answers: the file's columns, and the columns asked for batch by
batch; the library it needs, and the errors that name the file and the column.

A reader is made for one read of one :class:`~fastcluster_metrics._io.readers.DataFile` (the
:class:`File` it is given) and holds nothing of its own: what it learns once (an Arrow
schema, an AnnData file's columns) is kept on the file, which pickles."""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol

from ..columns import Batch, find_columns, matches
from ..errors import MissingColumnError, MissingDependencyError
from ..formats import _NEEDS
from ..progress import Progress

__all__ = ["File", "Reader"]


class File(Protocol):
    """The file a reader reads (a :class:`DataFile`): where it is (``name``, the path as
    messages name it), its format, compression, separator and text encoding, the CSV and TSV
    columns read as text; and what is kept once read (``_schema``, ``_obs``)."""

    path: Path
    kind: str
    compression: str | None
    sep: str | None
    name: str
    encoding: str
    text: frozenset[str]
    _schema: Any
    _obs: list[str] | None


class Reader(ABC):
    """One format's reader of one file."""

    streamed: ClassVar[bool] = True
    """Whether the file is read in batches (not AnnData files: their obs comes whole)."""

    def __init__(self, file: File) -> None:
        self.file = file

    @abstractmethod
    def columns(self) -> list[str]:
        """The names of the file's columns."""

    @abstractmethod
    def batches(
        self,
        columns: list[str],
        batch_size: int,
        *,
        row_groups: Sequence[int] | None = None,
        progress: Progress | None = None,
        lists: bool = False,
    ) -> Iterator[Batch]:
        """The columns asked for (refused if one is not there: before the first batch is
        asked for, where the format tells its columns without reading rows), batch by batch,
        as ``{name: labels}``; see :meth:`DataFile.batches`."""

    def require(self) -> Any:
        """The library that reads the format, imported now (or the
        :class:`MissingDependencyError` that says how to install it)."""
        kind = self.file.kind
        module, extra = _NEEDS[kind]
        try:
            return importlib.import_module(module)
        except ImportError as e:
            raise MissingDependencyError(
                f"reading {kind} files needs {module}: pip install"
                f" 'fastcluster-metrics[{extra}]' ({e})"
            ) from e

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
            name = self.file.name
            raise MissingColumnError(f"{name}: {e.args[0]}", name, absent) from None

    def check(self, columns: Iterable[str]) -> None:
        """Refuses a column the file does not have (exact names)."""
        self.find(list(columns), None, patterns=False)

    @property
    def label(self) -> str:
        """The file's name without its folder (the progress bar's)."""
        return self.file.path.name
