"""AnnData files in the layouts old anndata versions wrote, built with h5py (and zarr) the way
those versions wrote them and the way anndata still reads them (``anndata/_io/h5ad.py`` of
anndata 0.7.8 for the 0.7 layout; ``read_dataframe_legacy`` and ``compat._clean_uns`` for the
layout before 0.7), and in the layouts of writers outside anndata (R's MuDataSeurat; the 0.7
layout without its encoding attributes). Independent of the package's reader: they follow
the writers' code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd


def _x(n: int) -> np.ndarray:
    return np.arange(n * 3, dtype=np.float32).reshape(n, 3)


def write_h5ad_0_7(path: Path, obs: pd.DataFrame) -> Path:
    """The anndata 0.7 layout: ``obs`` a group of encoding ``dataframe`` 0.1.0, a categorical
    column its codes with an attribute ``categories`` that is an object reference to
    ``obs/__categories/NAME`` (anndata 0.7.8's ``write_dataframe`` and ``write_series``)."""
    import h5py

    with h5py.File(path, "w") as f:
        f["X"] = _x(len(obs))
        for key, frame in (("obs", obs), ("var", pd.DataFrame(index=["g0", "g1", "g2"]))):
            group = f.create_group(key)
            group.attrs["encoding-type"] = "dataframe"
            group.attrs["encoding-version"] = "0.1.0"
            group.attrs["column-order"] = [str(c) for c in frame.columns]
            group.attrs["_index"] = "_index"
            _series_0_7(group, "_index", pd.Series(frame.index.astype(str), dtype=object))
            for name, series in frame.items():
                _series_0_7(group, str(name), series)
    return path


def _series_0_7(group: Any, key: str, series: pd.Series) -> None:
    import h5py

    if isinstance(series.dtype, pd.CategoricalDtype):
        categories = series.cat.categories.to_numpy()
        category_key = f"__categories/{key}"
        if categories.dtype == object:
            group.create_dataset(category_key, data=categories, dtype=h5py.string_dtype())
        else:
            group[category_key] = categories
        group[key] = series.cat.codes.to_numpy()
        group[key].attrs["categories"] = group[category_key].ref
        group[category_key].attrs["ordered"] = bool(series.cat.ordered)
    elif series.dtype == object:
        group.create_dataset(key, data=series.to_numpy(), dtype=h5py.string_dtype())
    else:
        group[key] = series.to_numpy()


def write_h5ad_before_0_7(path: Path, obs: pd.DataFrame) -> Path:
    """The layout before anndata 0.7: ``obs`` one compound dataset (the cell names first, as
    fixed-length bytes; text as fixed-length bytes), the categories of column NAME in
    ``uns/NAME_categories`` (what ``read_dataframe_legacy`` and ``_clean_uns`` read)."""
    import h5py

    fields: list[tuple[str, Any]] = [("index", _fixed(obs.index.astype(str).to_numpy()))]
    categories: dict[str, np.ndarray] = {}
    for name, series in obs.items():
        if isinstance(series.dtype, pd.CategoricalDtype):
            fields.append((str(name), series.cat.codes.to_numpy()))
            values = series.cat.categories.to_numpy()
            categories[str(name)] = _fixed(values) if values.dtype == object else values
        elif series.dtype == object:
            fields.append((str(name), _fixed(series.to_numpy())))
        else:
            fields.append((str(name), series.to_numpy()))
    table = np.empty(len(obs), dtype=[(name, values.dtype) for name, values in fields])
    for name, values in fields:
        table[name] = values
    with h5py.File(path, "w") as f:
        f["X"] = _x(len(obs))
        f["obs"] = table
        var = np.empty(3, dtype=[("index", "S2")])
        var["index"] = [b"g0", b"g1", b"g2"]
        f["var"] = var
        uns = f.create_group("uns")
        for name, values in categories.items():
            uns[f"{name}_categories"] = values
        uns["something_colors"] = _fixed(np.array(["#1f77b4", "#ff7f0e"], dtype=object))
    return path


def _fixed(values: np.ndarray) -> np.ndarray:
    encoded = [str(v).encode("utf-8") for v in values]
    width = max([1, *(len(e) for e in encoded)])
    return np.array(encoded, dtype=f"S{width}")


def write_zarr_0_7(path: Path, obs: pd.DataFrame) -> Path:
    """The anndata 0.7 layout in a zarr (format 2) store: as in .h5ad, but a categorical
    column's attribute ``categories`` is the path of its categories from ``obs`` (anndata
    0.7.8's ``_io/zarr.py``). With zarr 2 (format 2 its only one) or zarr 3."""
    import zarr

    three = int(zarr.__version__.split(".")[0]) >= 3
    root = zarr.open_group(str(path), mode="w", **({"zarr_format": 2} if three else {}))
    zarr_array(root, "X", _x(len(obs)))
    group = root.create_group("obs")
    group.attrs.update(
        {
            "encoding-type": "dataframe",
            "encoding-version": "0.1.0",
            "column-order": [str(c) for c in obs.columns],
            "_index": "_index",
        }
    )
    zarr_array(group, "_index", obs.index.astype(str).to_numpy())
    for name, series in obs.items():
        if isinstance(series.dtype, pd.CategoricalDtype):
            zarr_array(group, f"__categories/{name}", series.cat.categories.to_numpy())
            zarr_array(group, str(name), series.cat.codes.to_numpy())
            group[str(name)].attrs["categories"] = f"__categories/{name}"
        else:
            zarr_array(group, str(name), series.to_numpy())
    return path


def zarr_array(group: Any, key: str, values: np.ndarray) -> None:
    """``values`` as the array ``key`` of a zarr group (zarr 3's ``create_array``, zarr 2's
    ``create_dataset``)."""
    if values.dtype == object:
        values = values.astype(str)
    create = getattr(group, "create_array", None) or group.create_dataset
    create(key, data=values)


def write_h5ad_without_encoding(path: Path, obs: pd.DataFrame) -> Path:
    """The anndata 0.7 layout without the ``encoding-type`` and ``encoding-version``
    attributes of ``obs`` and ``var``: only ``_index`` and ``column-order``, a categorical
    column its codes with a ``categories`` attribute that is an object reference to
    ``obs/__categories/NAME``. What writers outside anndata that copy the 0.7 layout (R
    converters, older tools) leave; anndata 0.7's ``read_dataframe`` read it by those two
    attributes alone, anndata 0.8 and later read the group element by element (``read_basic``:
    a categorical column as its codes)."""
    import h5py

    write_h5ad_0_7(path, obs)
    with h5py.File(path, "r+") as f:
        for key in ("obs", "var"):
            del f[key].attrs["encoding-type"]
            del f[key].attrs["encoding-version"]
    return path


def write_h5ad_mudataseurat(path: Path, obs: pd.DataFrame, *, fixed: bool = False) -> Path:
    """The layout of MuDataSeurat's ``WriteH5AD`` (``R/WriteUtils.R``: ``write_data_frame``,
    ``write_names``, ``finalize_anndata``; hdf5r underneath): a 512-byte user block that names
    the writer; ``obs`` a group of encoding ``dataframe`` 0.1.0 whose text (the cell names,
    text columns, the categories, ``column-order``) is variable-length strings of the ASCII
    character set, which anndata reads as bytes (``b'B'``); a factor its 32-bit codes (level
    less one, -1 for NA) with a ``categories`` attribute, an object reference to
    ``obs/__categories/NAME`` (whose ``ordered`` is R's logical, an HDF5 enum); ``var`` only
    its names, ``column-order`` an empty array of floats. ``fixed``: the categories as
    fixed-length byte strings instead."""
    import h5py

    text = h5py.string_dtype("ascii")  # hdf5r's character vectors (the bytes are UTF-8)
    logical = h5py.enum_dtype({"FALSE": 0, "TRUE": 1, "NA": 2}, basetype="i1")

    def strings(values: Any) -> np.ndarray:
        return np.array([str(v).encode("utf-8") for v in values], dtype=object)

    header = b"AnnData (format-version=0.1.0;creator=MuDataSeurat.r;creator-version=0.0.0.9000)"
    with h5py.File(path, "w", userblock_size=512) as f:
        f["X"] = _x(len(obs))
        group = f.create_group("obs")
        group.create_dataset("_index", data=strings(obs.index), dtype=text)
        for name, series in obs.items():
            if isinstance(series.dtype, pd.CategoricalDtype):
                levels = strings(series.cat.categories)
                codes = series.cat.codes.to_numpy().astype(np.int32)
                group.create_dataset(str(name), data=codes, dtype=np.int32)
                if fixed:
                    data = levels.astype(bytes)
                    level = group.create_dataset(f"__categories/{name}", data=data)
                else:
                    level = group.create_dataset(f"__categories/{name}", data=levels, dtype=text)
                level.attrs.create("ordered", 0, dtype=logical)
                group[str(name)].attrs["categories"] = level.ref
            elif series.dtype == object:
                group.create_dataset(str(name), data=strings(series), dtype=text)
            else:
                group[str(name)] = series.to_numpy()
        _attrs_0_1_0(group, np.array([str(c).encode() for c in obs.columns], dtype=object))
        var = f.create_group("var")
        var.create_dataset("_index", data=strings(["g0", "g1", "g2"]), dtype=text)
        _attrs_0_1_0(var, np.zeros(0, dtype=np.float64))
    with open(path, "r+b") as file:
        file.write(header)
    return path


def _attrs_0_1_0(group: Any, column_order: np.ndarray) -> None:
    import h5py

    text = h5py.string_dtype("ascii")
    group.attrs.create("_index", b"_index", dtype=text)
    group.attrs.create("encoding-type", b"dataframe", dtype=text)
    group.attrs.create("encoding-version", b"0.1.0", dtype=text)
    if column_order.dtype == object:
        group.attrs.create("column-order", column_order, dtype=text)
    else:
        group.attrs.create("column-order", column_order)
