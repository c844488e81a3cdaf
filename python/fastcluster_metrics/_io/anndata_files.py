"""Where an AnnData file is read: the ``obs`` columns of an .h5ad file or of a zarr store (a
directory, or a zip of one), in every layout anndata has written; never ``X``, never a column
that was not asked for.

The layouts, as anndata's own readers take them apart (``anndata/_io/specs/methods.py`` and,
for the old ones, ``anndata/_io/h5ad.py`` and ``anndata/compat``):

- anndata 0.8 and later: ``obs`` is a group of encoding ``dataframe`` 0.2.0 with attributes
  ``_index`` (the element of the cell names) and ``column-order``; each column an element of
  its own encoding: ``array`` or ``string-array`` (a dataset), ``categorical`` (a group of
  ``codes`` and ``categories``, attribute ``ordered``), ``nullable-integer``,
  ``nullable-boolean`` or ``nullable-string-array`` (a group of ``values`` and ``mask``).
- anndata 0.7: ``obs`` is a group of encoding ``dataframe`` 0.1.0; each column a dataset; a
  categorical column holds codes and an attribute ``categories``, an HDF5 object reference
  (in zarr, a path from ``obs``) to the dataset of its categories (``obs/__categories/NAME``).
- before anndata 0.7: ``obs`` is one compound HDF5 dataset whose first field holds the cell
  names; the categories of column ``NAME`` are the dataset ``uns/NAME_categories``.
- the 0.7 layout without its ``encoding-*`` attributes (only ``_index`` and ``column-order``),
  as writers outside anndata leave it: read as anndata 0.7 read it, which never looked at
  them (anndata 0.8 and later read such a group element by element, a categorical column as
  its codes). Text in any of these may be bytes (HDF5 strings of the ASCII character set, as R
  writers such as MuDataSeurat write them; anndata shows them as ``b'B'``): read as UTF-8.

A file is data, never code, and only this file: elements are opened through
``anndata_store.py``, which refuses what would do more than read this file's data (a zarr codec
that can run code, checked by ``anndata_codecs.py``; a reference out of ``obs``; another file):
:class:`UnsafeElementError` (``anndata_errors.py``). What the elements become is
``anndata_values.py``'s.

Read with h5py (.h5ad) and zarr (zarr stores), not through anndata itself: anndata reads a
whole ``obs`` (and, for the old layouts, every element but ``X``), pins pandas below 3, and
takes seconds to import. A column becomes a pandas Series: categorical columns a
``Categorical`` (counted by its codes), nullable ones pandas' masked arrays, text columns
``object`` arrays of ``str``. The cell names are the column ``obs_names`` (unless ``obs`` has
a column of that name).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .anndata_codecs import ZARR_V2_CODECS, ZARR_V3_CODECS
from .anndata_errors import NAMES, AnnDataError, UnsafeElementError, _reason
from .anndata_store import _attr, _Group, _is_group, _root, is_zarr_store
from .anndata_values import (
    _categorical,
    _codes_fit,
    _dataset,
    _legacy_categories,
    _length,
    _masked,
    _ordered,
    _reference,
    _text,
)

__all__ = [
    "NAMES",
    "ZARR_V2_CODECS",
    "ZARR_V3_CODECS",
    "AnnDataError",
    "UnsafeElementError",
    "is_zarr_store",
    "obs_columns",
    "read_obs",
]

_NULLABLE = ("nullable-integer", "nullable-boolean", "nullable-string-array")


def _obs(root: _Group) -> Any:
    if "obs" not in root:
        raise AnnDataError("no obs: not an AnnData file")
    try:
        return root["obs"]
    except UnsafeElementError as e:
        raise e.about("obs") from e


def _names(value: Any) -> list[str]:
    """An attribute that lists names (``column-order``): h5py gives an array (a float one when
    empty), zarr a list."""
    if value is None:
        return []
    return [v.decode() if isinstance(v, bytes) else str(v) for v in np.atleast_1d(value)]


def _layout(obs: Any) -> str:
    """``"compound"`` (before anndata 0.7), ``"0.1.0"`` (anndata 0.7, also without its
    encoding attributes) or ``"0.2.0"``."""
    if not _is_group(obs):
        if obs.dtype.names is None:
            raise AnnDataError("obs is neither a group nor a compound dataset")
        return "compound"
    kind, version = _attr(obs, "encoding-type"), _attr(obs, "encoding-version")
    if kind is None and version is None:  # the 0.7 layout as writers outside anndata leave it
        absent = [a for a in ("_index", "column-order") if a not in obs.attrs]
        if absent:
            raise AnnDataError(
                "obs is not a dataframe (a group without encoding attributes, and without"
                f" {' or '.join(repr(a) for a in absent)})"
            )
        return "0.1.0"
    if kind != "dataframe" or "_index" not in obs.attrs:
        raise AnnDataError(f"obs is not a dataframe (encoding {kind!r}, version {version!r})")
    return "0.1.0" if version == "0.1.0" else "0.2.0"


def obs_columns(path: Path, kind: str) -> tuple[list[str], int]:
    """The names of the columns of ``obs`` (``obs_names`` first, then ``obs``'s in order) and
    the number of cells."""
    with _root(path, kind) as root:
        obs = _obs(root)
        if _layout(obs) == "compound":
            names = list(obs.dtype.names[1:])
            n = int(obs.shape[0])
        else:
            names = _names(_attr(obs, "column-order"))
            try:
                n = int(_length(obs[_attr(obs, "_index")]))
            except UnsafeElementError as e:
                raise e.about(NAMES) from e
    return ([] if NAMES in names else [NAMES]) + names, n


def read_obs(path: Path, kind: str, columns: Sequence[str]) -> dict[str, Any]:
    """The columns of ``obs`` asked for (names from :func:`obs_columns`), as pandas Series."""
    import pandas as pd

    with _root(path, kind) as root:
        obs = _obs(root)
        layout = _layout(obs)
        out: dict[str, Any] = {}
        for name in columns:
            try:
                values = _column(root, obs, layout, name)
            except UnsafeElementError as e:
                raise e.about(f"obs column {name!r}") from e
            except AnnDataError as e:
                raise AnnDataError(f"obs column {name!r}: {e}") from e
            except (KeyError, ValueError, TypeError, OSError) as e:
                raise AnnDataError(
                    f"obs column {name!r} cannot be read: {_reason(e)} ({type(e).__name__})"
                ) from e
            out[name] = pd.Series(values, name=name, copy=False)
    return out


def _column(root: _Group, obs: Any, layout: str, name: str) -> Any:
    if layout == "compound":
        fields = obs.dtype.names
        field = fields[0] if name == NAMES and name not in fields else name
        values = _text(obs[field])
        categories = _legacy_categories(root, field)
        if categories is not None and _codes_fit(values, categories):
            return _categorical(values, categories, ordered=False)
        return values
    key = _attr(obs, "_index") if name == NAMES and name not in obs else name
    element = obs[key]
    if layout == "0.1.0" and not _is_group(element):
        values = _dataset(element)
        reference = element.attrs.get("categories")
        if reference is None:
            return values
        categories = obs.deref(_reference(reference))
        return _categorical(values, _dataset(categories), _ordered(categories))
    return _element(element)


def _element(element: Any) -> Any:
    """A column of the current layout, by its encoding."""
    kind = _attr(element, "encoding-type")
    if not _is_group(element):
        if kind not in (None, "array", "string-array"):
            raise AnnDataError(f"stored as {kind!r}, not as labels")
        return _dataset(element)
    if kind == "categorical":
        return _categorical(
            _dataset(element["codes"]), _dataset(element["categories"]), _ordered(element)
        )
    if kind in _NULLABLE:
        return _masked(kind, _dataset(element["values"]), _dataset(element["mask"]))
    if kind is None:
        raise AnnDataError(
            "a group without an encoding; label columns are arrays, categoricals or nullable arrays"
        )
    raise AnnDataError(
        f"stored as {kind!r}; label columns are arrays, categoricals or nullable arrays"
    )
