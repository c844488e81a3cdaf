"""AnnData files, .h5ad and zarr stores (a directory, or a ``.zarr.zip``): the ``obs`` columns
asked for (never ``X``), in every layout anndata has written or reads, by ``anndata_files.py``,
in one batch of pandas Series; the cell names are the column ``obs_names``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from ..columns import Batch
from ..errors import UnreadableFileError, UnsafeFileError
from ..progress import Progress
from .base import Reader

__all__ = ["AnnDataReader"]


class AnnDataReader(Reader):
    """An AnnData file's reader (.h5ad, zarr): its ``obs`` whole, in one batch."""

    streamed: ClassVar[bool] = False

    def _anndata(self) -> Any:
        """The AnnData reader, with errors that name the file."""
        self.require()
        from .. import anndata_files as _anndata_files

        return _anndata_files

    def columns(self) -> list[str]:
        """``obs_names`` and the names of ``obs``'s columns (read once)."""
        file = self.file
        if file._obs is None:
            reader = self._anndata()
            try:
                file._obs = reader.obs_columns(file.path, file.kind)[0]
            except reader.UnsafeElementError as e:
                raise UnsafeFileError(f"{file.name}: {e}") from e
            except reader.AnnDataError as e:
                raise UnreadableFileError(f"cannot read {file.name} as {file.kind}: {e}") from e
        return file._obs

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
        return iter([self._read_obs(columns)])

    def _read_obs(self, columns: list[str]) -> Batch:
        """Columns of an AnnData file's obs (never its X), as pandas Series."""
        file = self.file
        reader = self._anndata()
        try:
            return dict(reader.read_obs(file.path, file.kind, columns))
        except reader.UnsafeElementError as e:
            raise UnsafeFileError(f"{file.name}: {e}") from e
        except reader.AnnDataError as e:
            raise UnreadableFileError(f"cannot read {file.name} as {file.kind}: {e}") from e
