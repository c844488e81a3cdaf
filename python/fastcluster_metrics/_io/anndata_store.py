"""Where an AnnData file is opened: the root group of an .h5ad file or of a zarr store (a
directory, or a zip of one), whether a directory is a zarr store, and what the readers ask of an
element (a group or not, an attribute).

A file is data, never code, and only this file: an element is opened only once its storage
is known to be safe (:class:`_Group`). A zarr array is refused, before zarr parses it, if its
metadata (its own ``.zarray`` or ``zarr.json``, or the store's consolidated metadata) names a
codec outside :data:`ZARR_V2_CODECS` and :data:`ZARR_V3_CODECS` (``anndata_codecs.py``); an
HDF5 categories reference is followed only to an element of ``obs`` (never a region
reference); an HDF5 link to another file, a dataset whose data lies in other files (external
storage, a virtual dataset) are refused. The refusals are :class:`UnsafeElementError`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .anndata_codecs import _check_codecs, _parsed_metadata, _ZarrMetadata
from .anndata_errors import AnnDataError, UnsafeElementError, _reason

__all__ = ["is_zarr_store"]


def is_zarr_store(path: Path) -> bool:
    """Whether a directory is a zarr store (version 2 or 3)."""
    return (path / ".zgroup").is_file() or (path / "zarr.json").is_file()


@contextmanager
def _root(path: Path, kind: str) -> Iterator[_Group]:
    """The root group of an .h5ad file (``kind="h5ad"``) or a zarr store (``"zarr"``: a
    directory, or a zip of one), open for reading while in the block."""
    if kind == "h5ad":
        h5py = importlib.import_module("h5py")
        try:
            handle = h5py.File(path, "r")
        except OSError as e:
            raise AnnDataError(f"not an HDF5 file ({_reason(e)})") from e
        with handle:
            yield _Group(handle, "", None)
        return
    zarr = importlib.import_module("zarr")
    with _ZarrMetadata(path) as metadata:
        metadata.check_consolidated("obs")  # (zarr 3 parses all of it as it opens the store)
        store = None
        try:
            if path.is_dir():
                root = zarr.open_group(str(path), mode="r")
            else:
                store = zarr.storage.ZipStore(str(path), mode="r")
                root = zarr.open_group(store, mode="r")
        except Exception as e:
            if store is not None:
                store.close()
            if metadata.document("zarr.json") is not None and zarr.__version__[:2] == "2.":
                raise AnnDataError(
                    f"a zarr format 3 store, which zarr {zarr.__version__} does not read (zarr 3"
                    " does: pip install 'zarr>=3')"
                ) from e
            raise AnnDataError(f"not a zarr store ({_reason(e)})") from e
        try:
            yield _Group(root, "", metadata)
        finally:
            if store is not None:
                store.close()


class _Group:
    """A group of the file (h5py or zarr) whose elements are opened only once known to be
    this file's data, safe to decode: ``group[key]`` refuses a link to another file (HDF5), a
    zarr array whose metadata names a codec that is not allowed (checked in the store before
    zarr parses it, and in what zarr parsed), a key that leaves the group; ``deref`` follows a
    categories reference only into the group. Subgroups come wrapped; datasets and arrays
    as they are (checked)."""

    def __init__(self, group: Any, path: str, metadata: _ZarrMetadata | None) -> None:
        self._group, self._path, self._metadata = group, path, metadata

    @property
    def attrs(self) -> Any:
        return self._group.attrs

    def __contains__(self, key: str) -> bool:
        return key in self._group

    def keys(self) -> list[str]:
        """The names of the group's elements (not opened)."""
        return [str(k) for k in self._group.keys()]

    def __getitem__(self, key: str) -> Any:
        key = str(key)
        parts = key.split("/")
        if key.startswith("/") or any(part in ("", ".", "..") for part in parts):
            inside = f"/{self._path}" if self._path else "the root"
            raise UnsafeElementError(
                f"refers to {key!r}, which is not inside {inside}; refusing to follow it"
            )
        where = f"{self._path}/{key}" if self._path else key
        if self._metadata is None:  # h5py: each link on the way, then the element
            element, at = self._group, self._path
            for part in parts:
                at = f"{at}/{part}" if at else part
                _check_link(element, part, at)
                element = element[part]
            return self._checked(element, where)
        self._metadata.check(where)
        return self._checked(self._group[key], where)

    def deref(self, reference: Any) -> Any:
        """The element a 0.7 column's ``categories`` attribute refers to: an HDF5 object
        reference (to an element inside this group), or a path from this group (zarr)."""
        if isinstance(reference, bytes):
            reference = reference.decode()
        if isinstance(reference, str):
            return self[reference]
        h5py = importlib.import_module("h5py")
        if isinstance(reference, h5py.RegionReference):
            raise UnsafeElementError(
                "has a region reference for its categories (anndata writes an object reference"
                " to an element of obs); refusing to follow it"
            )
        if not isinstance(reference, h5py.Reference):
            raise AnnDataError(
                f"its categories attribute is {type(reference).__name__}, not a reference"
            )
        try:
            element = self._group[reference]
        except (KeyError, ValueError, TypeError, OSError) as e:
            raise AnnDataError(f"its categories cannot be found ({_reason(e)})") from e
        name = element.name
        if name is None or not name.startswith(f"/{self._path}/"):
            raise UnsafeElementError(
                f"refers to {name or 'an unnamed element'} for its categories, outside"
                f" /{self._path}; refusing to follow it"
            )
        return self._checked(element, name.lstrip("/"))

    def _checked(self, element: Any, where: str) -> Any:
        if self._metadata is None and element.file.filename != self._group.file.filename:
            raise UnsafeElementError(  # (a soft link to an external link, say)
                f"is in another file ({element.file.filename}, from {where}); refusing to read it"
            )
        if _is_group(element):
            return _Group(element, where, self._metadata)
        if self._metadata is not None:
            _check_codecs(_parsed_metadata(element), where)
        else:
            _check_storage(element, where)
        return element


def _check_link(group: Any, key: str, where: str) -> None:
    """Refuses an HDF5 link to another file (h5py would open it)."""
    h5py = importlib.import_module("h5py")
    link = group.get(key, getlink=True)
    if isinstance(link, h5py.ExternalLink):
        raise UnsafeElementError(
            f"is a link to {link.path} in another file ({link.filename}, from {where});"
            " refusing to follow it"
        )


def _check_storage(dataset: Any, where: str) -> None:
    """Refuses an HDF5 dataset whose data lies outside the file."""
    if getattr(dataset, "external", None):
        files = ", ".join(sorted({str(f[0]) for f in dataset.external}))
        raise UnsafeElementError(
            f"keeps its data in other files ({files}, for {where}); refusing to read them"
        )
    if getattr(dataset, "is_virtual", False):
        raise UnsafeElementError(
            f"is a virtual dataset ({where}: its data is mapped from other datasets or files);"
            " refusing to read it"
        )


def _is_group(element: Any) -> bool:
    return not hasattr(element, "dtype")


def _attr(element: Any, name: str, default: Any = None) -> Any:
    value = element.attrs.get(name, default)
    return value.decode() if isinstance(value, bytes) else value
