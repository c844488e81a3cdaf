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

Read with h5py (.h5ad) and zarr (zarr stores), not through anndata itself: anndata reads a
whole ``obs`` (and, for the old layouts, every element but ``X``), pins pandas below 3, and
takes seconds to import. A column becomes a pandas Series: categorical columns a
``Categorical`` (counted by its codes), nullable ones pandas' masked arrays, text columns
``object`` arrays of ``str``. The cell names are the column ``obs_names`` (unless ``obs`` has
a column of that name).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["NAMES", "AnnDataError", "is_zarr_store", "obs_columns", "read_obs"]

NAMES = "obs_names"
"""The column of the cell names (``obs``'s index)."""

_NULLABLE = ("nullable-integer", "nullable-boolean", "nullable-string-array")


class AnnDataError(ValueError):
    """What cannot be read from an AnnData file, told without the file's name (the caller
    adds it)."""


def is_zarr_store(path: Path) -> bool:
    """Whether a directory is a zarr store (version 2 or 3)."""
    return (path / ".zgroup").is_file() or (path / "zarr.json").is_file()


# --- opening ---------------------------------------------------------------------------------


@contextmanager
def _root(path: Path, kind: str) -> Iterator[Any]:
    """The root group of an .h5ad file (``kind="h5ad"``) or a zarr store (``"zarr"``: a
    directory, or a zip of one), open for reading while in the block."""
    if kind == "h5ad":
        h5py = importlib.import_module("h5py")
        try:
            handle = h5py.File(path, "r")
        except OSError as e:
            raise AnnDataError(f"not an HDF5 file ({_reason(e)})") from e
        with handle:
            yield handle
        return
    zarr = importlib.import_module("zarr")
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
        raise AnnDataError(f"not a zarr store ({_reason(e)})") from e
    try:
        yield root
    finally:
        if store is not None:
            store.close()


def _reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


# --- obs -------------------------------------------------------------------------------------


def _obs(root: Any) -> Any:
    if "obs" not in root:
        raise AnnDataError("no obs: not an AnnData file")
    return root["obs"]


def _is_group(element: Any) -> bool:
    return not hasattr(element, "dtype")


def _attr(element: Any, name: str, default: Any = None) -> Any:
    value = element.attrs.get(name, default)
    return value.decode() if isinstance(value, bytes) else value


def _names(value: Any) -> list[str]:
    """An attribute that lists names (``column-order``): h5py gives an array (a float one when
    empty), zarr a list."""
    if value is None:
        return []
    return [v.decode() if isinstance(v, bytes) else str(v) for v in np.atleast_1d(value)]


def _layout(obs: Any) -> str:
    """``"compound"`` (before anndata 0.7), ``"0.1.0"`` (anndata 0.7) or ``"0.2.0"``."""
    if not _is_group(obs):
        if obs.dtype.names is None:
            raise AnnDataError("obs is neither a group nor a compound dataset")
        return "compound"
    kind, version = _attr(obs, "encoding-type"), _attr(obs, "encoding-version")
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
            index = obs[_attr(obs, "_index")]
            n = int(_length(index))
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
            except AnnDataError as e:
                raise AnnDataError(f"obs column {name!r}: {e}") from e
            except (KeyError, ValueError, TypeError, OSError) as e:
                raise AnnDataError(
                    f"obs column {name!r} cannot be read: {_reason(e)} ({type(e).__name__})"
                ) from e
            out[name] = pd.Series(values, name=name, copy=False)
    return out


def _column(root: Any, obs: Any, layout: str, name: str) -> Any:
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
        categories = _referenced(obs, reference)
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
    raise AnnDataError(
        f"stored as {kind!r}; label columns are arrays, categoricals or nullable arrays"
    )


# --- values ----------------------------------------------------------------------------------


def _length(element: Any) -> int:
    if _is_group(element):  # a nullable or categorical index
        inner = element["codes"] if "codes" in element else element["values"]
        return int(inner.shape[0])
    return int(element.shape[0])


def _dataset(element: Any) -> Any:
    """A 1-D dataset (h5py or zarr) as a NumPy array, text as ``object`` arrays of ``str``."""
    if _is_group(element):
        raise AnnDataError("a group where an array is expected")
    if len(element.shape) != 1:
        raise AnnDataError(f"an array of shape {tuple(element.shape)}, not one label per cell")
    h5py = _h5py_of(element)
    if h5py is not None and h5py.check_string_dtype(element.dtype) is not None:
        return _text(element.asstr()[()])
    return _text(np.asarray(element[...]))


def _h5py_of(element: Any) -> Any:
    return importlib.import_module("h5py") if type(element).__module__.startswith("h5py") else None


def _text(values: Any) -> Any:
    """Bytes (fixed-length HDF5 strings) and NumPy's variable-width strings as ``str``."""
    values = np.asarray(values)
    if values.dtype.kind == "S":
        return np.char.decode(values, "utf-8").astype(object)
    if values.dtype.kind in "UT":
        return values.astype(object)
    if values.dtype.kind == "O":
        return np.array([v.decode() if isinstance(v, bytes) else v for v in values], dtype=object)
    return values


def _ordered(element: Any) -> bool:
    return bool(_attr(element, "ordered", False))


def _categorical(codes: Any, categories: Any, ordered: bool) -> Any:
    import pandas as pd

    codes = np.asarray(codes)
    if codes.dtype.kind not in "iu":
        raise AnnDataError(f"categorical codes of type {codes.dtype}, not integers")
    categories = np.atleast_1d(categories)
    if codes.size and int(codes.max()) >= len(categories):
        raise AnnDataError(
            f"a categorical code {int(codes.max())} past its {len(categories)} categories"
        )
    return pd.Categorical.from_codes(codes, pd.Index(categories), ordered=ordered)


def _masked(kind: str, values: Any, mask: Any) -> Any:
    import pandas as pd

    mask = np.asarray(mask, dtype=bool)
    if kind == "nullable-integer":
        return pd.arrays.IntegerArray(np.asarray(values), mask)
    if kind == "nullable-boolean":
        return pd.arrays.BooleanArray(np.asarray(values, dtype=bool), mask)
    text = np.array(values, dtype=object)
    text[mask] = None
    return pd.array(text, dtype="string")


def _referenced(obs: Any, reference: Any) -> Any:
    """The categories dataset a 0.7 column refers to: an HDF5 object reference, or (zarr) a
    path from ``obs``."""
    if isinstance(reference, bytes):
        reference = reference.decode()
    try:
        return obs[reference]
    except (KeyError, ValueError, TypeError) as e:
        raise AnnDataError(f"its categories cannot be found ({_reason(e)})") from e


def _legacy_categories(root: Any, field: str) -> Any:
    """The categories of a column of a compound ``obs`` (``uns/NAME_categories``), or None."""
    key = f"{field}_categories"
    if "uns" not in root or key not in root["uns"]:
        return None
    element = root["uns"][key]
    if _is_group(element):
        return None
    return _text(np.atleast_1d(element[()]))


def _codes_fit(values: Any, categories: Any) -> bool:
    """anndata's test that ``uns`` categories belong to this column: integer codes below
    their number (a column of ``var`` may share the name)."""
    return values.dtype.kind in "iu" and (values.size == 0 or int(values.max()) < len(categories))
