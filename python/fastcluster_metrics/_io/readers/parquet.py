"""Parquet files, with pyarrow: by record batches of ``batch_size`` rows (string columns straight
from the dictionary pages, as Arrow dictionaries), optionally of some row groups only."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import closing
from typing import Any

from ..columns import Batch, is_text
from ..progress import Progress, progress_bar
from .arrow import ArrowReader

__all__ = ["ParquetReader"]


class ParquetReader(ArrowReader):
    """A Parquet file's reader."""

    def read_schema(self) -> Any:
        import pyarrow.parquet as pq

        return pq.read_schema(self.file.path)

    def num_row_groups(self) -> int:
        """The number of row groups of the file."""
        self.require()
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(self.file.path).metadata.num_row_groups)

    def rows_before(self, row_group: int) -> int:
        """The number of rows of the file before one of its row groups."""
        self.require()
        import pyarrow.parquet as pq

        meta = pq.ParquetFile(self.file.path).metadata
        return sum(meta.row_group(i).num_rows for i in range(row_group))

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
        return self._batches(columns, batch_size, row_groups, progress)

    def _batches(
        self,
        columns: list[str],
        batch_size: int,
        row_groups: Sequence[int] | None,
        progress: Progress | None,
    ) -> Iterator[Batch]:
        import pyarrow.parquet as pq

        schema = self.schema()
        # String columns come straight from the Parquet dictionary pages as Arrow dictionaries:
        # their codes, not their strings, are what the counting pass reads.
        text = [c for c in columns if is_text(schema.field(c).type)]
        # pre_buffer=False: the pre-buffering cache keeps every row group read until the file
        # closes (memory would grow with the file, not with the batch).
        file = pq.ParquetFile(self.file.path, read_dictionary=text or None, pre_buffer=False)
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
