"""The columns read from a file: found by name or pattern, their Arrow types checked (nested
values and bytes are not labels), missing labels found, weights read as numbers."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from typing import Any

import numpy as np

from .errors import MissingLabelsError, WeightColumnError

__all__ = [
    "Batch",
    "check_complete",
    "find_columns",
    "is_bytes",
    "is_text",
    "matches",
    "missing_at",
    "refused_kind",
    "text_labels",
    "weight_values",
]


Batch = dict[str, Any]
"""Some rows of the columns asked for: Arrow arrays (pandas Series for AnnData files), by
name."""


def find_columns(
    columns: Iterable[Any],
    wanted: str | Iterable[str],
    what: str | None,
    *,
    patterns: bool = True,
) -> list[str]:
    """The column names asked for, with shell-style patterns (``"leiden_*"``) expanded in
    column order (unless ``patterns=False``); refuses names that are not there, listing those
    that are (``no {what} column 'x'; the columns are: ...``, or ``no column 'x'; ...``)."""
    available = [str(c) for c in columns]
    names = [wanted] if isinstance(wanted, str) else list(wanted)
    found: list[str] = []
    for name in names:
        if name in available:
            found.append(name)
            continue
        matches = (
            fnmatch.filter(available, name) if patterns and any(ch in name for ch in "*?[") else []
        )
        if not matches:
            raise KeyError(
                f"no {what + ' ' if what else ''}column {name!r}; the columns are:"
                f" {', '.join(available)}"
            )
        found.extend(m for m in matches if m not in found)
    return found


def matches(pattern: str, columns: list[str]) -> bool:
    return any(c in pattern for c in "*?[") and bool(fnmatch.filter(columns, pattern))


def missing_at(values: Any) -> int | None:
    """Index of the first missing label (null, or NaN) of an Arrow array or pandas Series,
    None if none is."""
    if hasattr(values, "null_count"):
        import pyarrow as pa
        import pyarrow.compute as pc

        kind = values.type.value_type if pa.types.is_dictionary(values.type) else values.type
        if values.null_count == 0 and not pa.types.is_floating(kind):
            return None
        if pa.types.is_dictionary(values.type) and values.null_count == 0:
            values = values.dictionary_decode()
        mask = pc.is_null(values, nan_is_null=True)
        at = pc.index(mask, True).as_py()
        return None if at < 0 else int(at)
    mask = np.asarray(values.isna())
    return int(np.flatnonzero(mask)[0]) if mask.any() else None


def check_complete(
    file: str | None, batch: Batch, offset: int = 0, where: str = "data row"
) -> None:
    """Refuses a batch with a missing label: the :class:`MissingLabelsError` of its first
    column that has one, naming the file, the column and the row (``offset`` rows came
    before the batch)."""
    for name, values in batch.items():
        at = missing_at(values)
        if at is not None:
            raise MissingLabelsError(file, name, offset + at + 1, where)


def weight_values(
    file: str | None, column: str, values: Any, offset: int = 0, where: str = "data row"
) -> Any:
    """A column of sample weights (an Arrow array or pandas Series) as a NumPy array of
    numbers, or the :class:`WeightColumnError` of its first value that is not a non-negative
    finite number, naming the file, the column and the row (``offset`` rows came before)."""

    def refuse(at: int, what: str) -> WeightColumnError:
        return WeightColumnError(
            f"{file + ': ' if file else ''}column {column!r} holds {what} in {where}"
            f" {offset + at + 1:,}; sample weights are non-negative finite numbers"
        )

    at_missing = missing_at(values)
    if at_missing is not None:
        raise refuse(at_missing, "a missing weight")
    if hasattr(values, "null_count"):  # Arrow
        import pyarrow as pa

        numeric = values.type
        if pa.types.is_integer(numeric) or pa.types.is_floating(numeric):
            array = values.to_numpy(zero_copy_only=False)
        elif pa.types.is_boolean(numeric):
            array = values.to_numpy(zero_copy_only=False).astype(np.int64)
        else:
            array = _numbers(values.to_pylist(), refuse)
    else:  # pandas (an AnnData file's obs)
        array = np.asarray(values)
        if array.dtype.kind == "b":
            array = array.astype(np.int64)
        elif array.dtype.kind not in "iuf":
            array = _numbers(array.tolist(), refuse)
    bad = np.flatnonzero(~np.isfinite(array) | (array < 0)) if array.size else array
    if bad.size:
        raise refuse(int(bad[0]), f"the weight {array[int(bad[0])].item()!r}")
    return array


def _numbers(values: list[Any], refuse: Any) -> Any:
    """Text (or other values) as float64 weights, or ``refuse``'s error of the first that is
    not a number."""
    out = np.empty(len(values), dtype=np.float64)
    for i, value in enumerate(values):
        try:
            if isinstance(value, bool):
                raise TypeError
            out[i] = float(value)
        except (TypeError, ValueError):
            raise refuse(i, f"{value!r} (not a number)") from None
    return out


def refused_kind(arrow_type: Any) -> str | None:
    """What a column of this Arrow type holds, if it cannot be labels (None if it can)."""
    import pyarrow as pa

    t = arrow_type.value_type if pa.types.is_dictionary(arrow_type) else arrow_type
    if pa.types.is_map(t):
        return "map"
    if pa.types.is_struct(t):
        return "struct"
    if pa.types.is_union(t):
        return "union"
    if pa.types.is_nested(t):
        return "list"
    binary_view = getattr(pa.types, "is_binary_view", None)  # (pyarrow >= 16 has the type)
    if is_bytes(t) or pa.types.is_fixed_size_binary(t) or (binary_view and binary_view(t)):
        return "binary"
    return None


def is_text(arrow_type: Any) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    return bool(pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type))


def is_bytes(arrow_type: Any) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    return bool(pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type))


def text_labels() -> Any:
    """Text labels, as pyarrow reads them: dictionary-encoded (their codes are counted)."""
    import pyarrow as pa

    return pa.dictionary(pa.int32(), pa.string())
