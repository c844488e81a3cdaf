"""Arrow and polars columns: string buffers hashed by the core, dictionary codes and their order.

Nothing here imports pyarrow or polars unless the caller already passed one of their objects.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native

__all__ = ["arrow_codes", "arrow_integers", "arrow_string_codes", "is_arrow_like"]


def is_arrow_like(labels: object) -> bool:
    module = type(labels).__module__
    return module.startswith(("pyarrow", "polars"))


def _string_chunks(arr: Any) -> list[Any] | None:
    """The chunks of an Arrow string, large_string, binary or large_binary array (or chunked
    array) as ``_native.encode_arrow`` reads them: (offsets from the chunk's first item, data,
    validity bitmap or None, the chunk's first bit), all viewing Arrow's buffers; None for
    other types."""
    import pyarrow as pa

    kind = arr.type
    if pa.types.is_string(kind) or pa.types.is_binary(kind):
        width: Any = np.int32
    elif pa.types.is_large_string(kind) or pa.types.is_large_binary(kind):
        width = np.int64
    else:
        return None
    chunks = []
    for chunk in arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]:
        if len(chunk) == 0:
            continue
        validity, offsets, data = chunk.buffers()
        start = chunk.offset
        # Buffers read from a file may sit at any address: aligned copies where they do not.
        offsets = np.require(np.frombuffer(offsets, dtype=width), requirements=["A"])
        values = np.frombuffer(data, dtype=np.uint8) if data is not None else np.empty(0, np.uint8)
        bits = np.frombuffer(validity, dtype=np.uint8) if chunk.null_count else None
        chunks.append((offsets[start : start + len(chunk) + 1], values, bits, start))
    return chunks


def _view_chunks(arr: Any) -> list[Any]:
    """The chunks of an Arrow string_view or binary_view array (or chunked array) as
    ``_native.encode_arrow_views`` reads them: (views from the chunk's first item, 16 bytes a
    row, the data buffers, validity bitmap or None, the chunk's first bit), all viewing
    Arrow's buffers."""
    import pyarrow as pa

    chunks = []
    for chunk in arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]:
        if len(chunk) == 0:
            continue
        validity, views, *data = chunk.buffers()
        start, end = chunk.offset, chunk.offset + len(chunk)
        rows = np.frombuffer(views, dtype=np.uint8, count=16 * end).reshape(end, 16)[start:]
        buffers = [np.frombuffer(b, dtype=np.uint8) for b in data if b is not None]
        bits = np.frombuffer(validity, dtype=np.uint8) if chunk.null_count else None
        chunks.append((rows, buffers, bits, start))
    return chunks


def _is_view(kind: Any) -> bool:
    """Whether an Arrow type is string_view or binary_view (pyarrow >= 16 has them)."""
    import pyarrow as pa

    if not hasattr(pa.types, "is_string_view"):
        return False
    return bool(pa.types.is_string_view(kind) or pa.types.is_binary_view(kind))


def _unviewed(arr: Any) -> Any:
    """A string_view or binary_view array cast (copied) to large_string or large_binary, for
    the pyarrow functions that have no kernel for views."""
    import pyarrow as pa

    return arr.cast(pa.large_binary() if pa.types.is_binary_view(arr.type) else pa.large_string())


def _polars_arrow(labels: Any) -> Any:
    """A polars Series as Arrow, without copying its strings where polars and pyarrow both
    know Arrow's string views (polars >= 1.1, pyarrow >= 16); as large_string otherwise."""
    import polars as pl
    import pyarrow as pa

    if hasattr(pl, "CompatLevel") and hasattr(pa, "string_view"):
        return labels.to_arrow(compat_level=pl.CompatLevel.newest())
    return labels.to_arrow()


def arrow_string_codes(labels: Any) -> tuple[NDArray[Any], NDArray[Any] | None, Any] | None:
    """(codes in sorted label order, missing mask or None, a callable giving the labels) of an
    Arrow string or binary column or a polars String column, hashed in place by the core; None
    for other columns."""
    arr = labels
    polars = type(labels).__module__.startswith("polars")
    if polars:
        import polars as pl

        if labels.dtype not in (pl.String, pl.Binary):
            return None
        arr = _polars_arrow(labels)
    import pyarrow as pa

    if not isinstance(arr, (pa.Array, pa.ChunkedArray)):
        return None
    view = _is_view(arr.type)
    if view:
        codes, first, n_missing = _native.encode_arrow_views(_view_chunks(arr))
    else:
        chunks = _string_chunks(arr)
        if chunks is None:
            return None
        codes, first, n_missing = _native.encode_arrow(chunks)
    missing = codes == _native.MISSING if n_missing else None

    def uniques() -> NDArray[Any]:
        if polars:
            return np.asarray(labels.gather(first).to_numpy())
        # pyarrow has no `take` for views: the array is cast first (copied), only here.
        source = _unviewed(arr) if view else arr
        return np.asarray(source.take(first).to_numpy(zero_copy_only=False))

    return codes, missing, uniques


def _dictionary_parts(arr: Any) -> tuple[Any, Any]:
    """(indices, dictionary) of an Arrow array or chunked array, dictionary-encoding if needed."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(arr, pa.ChunkedArray):
        if pa.types.is_dictionary(arr.type):
            arr = arr.unify_dictionaries()
            dictionary = arr.chunk(0).dictionary if arr.num_chunks else pa.array([])
            indices = pa.chunked_array(
                [c.indices for c in arr.chunks], type=arr.type.index_type
            ).combine_chunks()
            return indices, dictionary
        arr = arr.combine_chunks()
    if not pa.types.is_dictionary(arr.type):
        if pa.types.is_floating(arr.type):
            # NaN is a missing label, as in a numpy float array.
            arr = pc.if_else(pc.is_nan(arr), pa.scalar(None, arr.type), arr)
        if _is_view(arr.type):
            arr = _unviewed(arr)
        arr = pc.dictionary_encode(arr)
    return arr.indices, arr.dictionary


def arrow_codes(
    labels: Any,
) -> tuple[NDArray[Any], NDArray[Any] | None, NDArray[Any], NDArray[Any]]:
    """(codes, missing mask or None, rank of each code in sorted label order, labels) of an
    Arrow Array/ChunkedArray/DictionaryArray or a polars Series (through Arrow, zero copy)."""
    import pyarrow.compute as pc

    if type(labels).__module__.startswith("polars"):
        physical = _polars_physical(labels)
        if physical is not None:
            return physical
    arr = labels.to_arrow() if type(labels).__module__.startswith("polars") else labels
    indices, dictionary = _dictionary_parts(arr)
    has_missing = indices.null_count > 0
    codes = np.asarray(pc.fill_null(indices, -1) if has_missing else indices)
    codes = np.ascontiguousarray(codes)
    values = np.asarray(dictionary.to_numpy(zero_copy_only=False))
    order = np.argsort(values, kind="stable")
    rank = np.empty(order.size + 1, dtype=np.int64)
    rank[order] = np.arange(order.size)
    rank[-1] = order.size  # code -1 (missing) sorts last
    return codes, (codes < 0) if has_missing else None, rank, values


def _polars_physical(
    labels: Any,
) -> tuple[NDArray[Any], NDArray[Any] | None, NDArray[Any], NDArray[Any]] | None:
    """``arrow_codes`` of a polars (>= 1.32) Categorical or Enum Series from its physical
    codes (zero copy without nulls), which index the category strings; None for other columns."""
    import polars as pl

    dtype = labels.dtype
    if isinstance(dtype, pl.Enum):
        categories = dtype.categories
    elif isinstance(dtype, pl.Categorical) and hasattr(dtype.categories, "to_series"):
        categories = dtype.categories.to_series()  # indexed by physical code
    else:
        return None
    values = np.asarray(categories.to_numpy())
    physical = labels.to_physical()
    size = values.shape[0]
    has_missing = labels.null_count() > 0
    if has_missing:
        physical = physical.fill_null(size)  # one code past the categories: sorts last
    codes = np.ascontiguousarray(physical.to_numpy())
    # Physical codes a concurrent query reserved but has not named yet are None.
    present = np.array([v is not None for v in values]) if values.dtype == object else None
    if present is not None and not present.all():
        values = values.copy()
        values[~present] = ""
    order = np.argsort(values, kind="stable")
    rank = np.empty(size + 1, dtype=np.int64)
    rank[order] = np.arange(size)
    rank[-1] = size
    return codes, (codes == size) if has_missing else None, rank, values


def arrow_integers(labels: Any) -> NDArray[Any] | None:
    """The values of an integer or boolean Arrow/polars column without nulls, as numpy (zero copy
    for a single chunk); None for any other column."""
    if type(labels).__module__.startswith("polars"):
        import polars as pl

        dtype = labels.dtype
        if not (dtype.is_integer() or dtype == pl.Boolean) or labels.null_count():
            return None
        return np.asarray(labels.to_numpy())

    import pyarrow as pa

    arr = labels
    if not (pa.types.is_integer(arr.type) or pa.types.is_boolean(arr.type)) or arr.null_count:
        return None
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    return np.asarray(arr.to_numpy(zero_copy_only=False))
