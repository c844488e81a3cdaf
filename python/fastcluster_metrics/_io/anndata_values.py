"""What the elements of an AnnData file's ``obs`` become: 1-D datasets as NumPy arrays (text as
``object`` arrays of ``str``, bytes read as UTF-8), categorical columns as pandas
``Categorical``, nullable ones as pandas' masked arrays; the categories of the old layouts.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from .anndata_errors import AnnDataError, _reason
from .anndata_store import _attr, _is_group


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
    try:
        if h5py is not None and h5py.check_string_dtype(element.dtype) is not None:
            # as UTF-8 whatever the character set says (R writers call UTF-8 text ASCII)
            return _text(element.asstr("utf-8")[()])
        return _text(np.asarray(element[...]))
    except UnicodeDecodeError as e:
        raise AnnDataError(f"text that is not UTF-8 ({_reason(e)})") from e


def _h5py_of(element: Any) -> Any:
    return importlib.import_module("h5py") if type(element).__module__.startswith("h5py") else None


def _text(values: Any) -> Any:
    """Bytes (fixed-length HDF5 strings, zarr's ``vlen-bytes``) as UTF-8 text, and NumPy's
    variable-width strings, as ``str``."""
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
    if codes.size and int(codes.min()) < -1:
        raise AnnDataError(
            f"a categorical code {int(codes.min())}, below -1 (the code of a missing label)"
        )
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


def _reference(value: Any) -> Any:
    """A ``categories`` attribute as one reference (or path): h5py gives a reference, zarr a
    path; an array of one is taken as its element."""
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise AnnDataError(f"its categories attribute holds {value.size} references, not one")
        value = value.reshape(-1)[0]
    return value


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
