"""What the pyarrow readers (CSV and TSV, Parquet, Arrow IPC) share: the file's schema, read
once and kept on the file, and the check of the columns' types before a row is counted."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from ..columns import refused_kind
from ..errors import LabelTypeError
from ..formats import _NEEDS
from .base import Reader
from .unpickling import refuse_pickled, refuse_unpickling, unpickling_refused_quietly

__all__ = ["ArrowReader"]


class ArrowReader(Reader):
    """A reader of a file that pyarrow reads, by its schema."""

    may_hold_pickles: ClassVar[bool] = True
    """Whether the format can hold columns of pickles (Parquet, Arrow IPC; CSV holds text
    only): then it is read only with a pyarrow that does not unpickle them."""

    def require(self) -> Any:
        library = super().require()
        if self.may_hold_pickles:
            kind = self.file.kind
            refuse_unpickling(library, kind, _NEEDS[kind][1], self.file.name)
        return library

    @abstractmethod
    def read_schema(self) -> Any:
        """The file's Arrow schema, read now (pyarrow imported)."""

    def schema(self) -> Any:
        """The file's Arrow schema (read once)."""
        if self.file._schema is None:
            self.require()
            with unpickling_refused_quietly():
                self.file._schema = self.read_schema()
        return self.file._schema

    def columns(self) -> list[str]:
        return [str(c) for c in self.schema().names]

    def check_types(self, schema: Any, columns: Sequence[str], lists: bool = False) -> None:
        """Refuses a column whose values cannot be labels (nor label sets, with ``lists``),
        before any row is read."""
        name = self.file.name
        for column in columns:
            with unpickling_refused_quietly():
                arrow_type = schema.field(column).type
            refuse_pickled(name, column, arrow_type)
            kind = refused_kind(arrow_type)
            if kind is not None and not (lists and kind == "list"):
                raise LabelTypeError(
                    f"{name}: column {column!r} holds {kind} values; label columns hold"
                    " text, numbers, booleans or categories"
                )
