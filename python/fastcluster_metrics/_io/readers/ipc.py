"""Arrow IPC files (the file format or the stream format; ``.arrow``, ``.feather``), with
pyarrow: in the batches they were written with."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, closing
from typing import Any

from ..columns import Batch
from ..progress import Progress, progress_bar
from .arrow import ArrowReader

__all__ = ["IpcReader"]


class IpcReader(ArrowReader):
    """An Arrow IPC file's reader."""

    def read_schema(self) -> Any:
        with ExitStack() as stack:
            return self._open(stack, None)[0].schema

    def _open(self, stack: ExitStack, columns: list[str] | None) -> tuple[Any, bool]:
        """An Arrow IPC file reader (of the columns, all if None), or a stream reader; and
        whether it reads the file format."""
        import pyarrow as pa
        import pyarrow.ipc as ipc

        source = stack.enter_context(pa.OSFile(str(self.file.path), "rb"))  # read, not mapped
        try:
            reader = ipc.open_file(source)
        except pa.ArrowInvalid:
            source.seek(0)
            return stack.enter_context(ipc.open_stream(source)), False
        if columns is not None:
            wanted = sorted(reader.schema.get_field_index(c) for c in columns)
            reader = ipc.open_file(source, options=ipc.IpcReadOptions(included_fields=wanted))
        return reader, True

    def batches(
        self,
        columns: list[str],
        batch_size: int,
        *,
        row_groups: Sequence[int] | None = None,
        progress: Progress | None = None,
        lists: bool = False,
    ) -> Iterator[Batch]:
        self.check(columns)
        self.check_types(self.schema(), columns, lists)
        return self._batches(columns, progress)

    def _batches(self, columns: list[str], progress: Progress | None) -> Iterator[Batch]:
        with ExitStack() as stack:
            reader, is_file = self._open(stack, columns)
            batches = (
                (reader.get_batch(i) for i in range(reader.num_record_batches))
                if is_file
                else iter(reader)
            )
            bar = stack.enter_context(closing(progress_bar(progress, None, " rows", self.label)))
            for batch in batches:
                bar.update(batch.num_rows)
                yield {c: batch.column(c) for c in columns}
