"""Arrow and polars columns: dictionary codes (Arrow's hashing, no Python loop) and their order.

Nothing here imports pyarrow or polars unless the caller already passed one of their objects.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["arrow_codes", "arrow_integers", "is_arrow_like"]


def is_arrow_like(labels: object) -> bool:
    module = type(labels).__module__
    return module.startswith(("pyarrow", "polars"))


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
        if pa.types.is_string_view(arr.type):
            arr = arr.cast(pa.large_string())
        arr = pc.dictionary_encode(arr)
    return arr.indices, arr.dictionary


def arrow_codes(
    labels: Any,
) -> tuple[NDArray[Any], NDArray[Any] | None, NDArray[Any], NDArray[Any]]:
    """(codes, missing mask or None, rank of each code in sorted label order, labels) of an
    Arrow Array/ChunkedArray/DictionaryArray or a polars Series (through Arrow, zero copy)."""
    import pyarrow.compute as pc

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


def arrow_integers(labels: Any) -> NDArray[Any] | None:
    """The values of an integer or boolean Arrow/polars column without nulls, as numpy (zero copy
    for a single chunk); None for any other column."""
    import pyarrow as pa

    arr = labels.to_arrow() if type(labels).__module__.startswith("polars") else labels
    if not (pa.types.is_integer(arr.type) or pa.types.is_boolean(arr.type)) or arr.null_count:
        return None
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    return np.asarray(arr.to_numpy(zero_copy_only=False))
