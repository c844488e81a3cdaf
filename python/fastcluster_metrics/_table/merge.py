"""Tables merged by label value: the one merge behind ``a + b``, the accumulator, the streams,
Dask and the group bootstrap.

A part is anything with ``classes`` and ``clusters`` (label arrays, unique, in any order) and
``cells`` (row indices into ``classes``, column indices into ``clusters``, counts). Parts may
hold labels that other parts lack; a missing label (None or NaN, from ``missing="cluster"``)
sorts last. Merged tables hold at most 2**64 - 1 samples and int64 cells, checked before the
core sums them.

Tables of weighted samples merge exactly: a part's ``_cell_units()`` gives each cell's exact sum
of weights in units of ``2**-64`` (None for counts, whose cell ``c`` is ``c * 2**64`` units);
the merged cells are summed as Python integers and rounded once, so the table of the whole
equals, to the last bit, the merge of the tables of any split of its samples in any order.
A table scaled by class weights has no such sums and refuses to merge.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from .. import _native
from .given import SAMPLES_LIMIT
from .weighted import UNIT, WeightedTable, from_units

__all__ = ["Cells", "Part", "merge", "stack", "union"]

_INT64_MAX = 2**63 - 1


class Part(Protocol):
    """A table keyed by label value."""

    @property
    def classes(self) -> NDArray[Any]: ...
    @property
    def clusters(self) -> NDArray[Any]: ...
    @property
    def cells(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[Any]]: ...
    @property
    def n(self) -> int | float: ...
    def _cell_units(self) -> NDArray[Any] | None: ...
    def _row_squares(self) -> NDArray[Any] | None: ...


@dataclass(frozen=True)
class Cells:
    """The cells of several parts in one numbering: cell ``k`` counts ``counts[k]`` samples of
    class ``classes[rows[k]]`` and cluster ``clusters[cols[k]]``, from part ``part[k]``
    (cells are not summed: a cell of two parts appears twice)."""

    classes: NDArray[Any]
    clusters: NDArray[Any]
    rows: NDArray[np.int64]
    cols: NDArray[np.int64]
    counts: NDArray[np.int64]
    part: NDArray[np.int64]
    row_maps: tuple[NDArray[np.int64], ...] = ()
    """Each part's classes' positions in ``classes``."""


def _is_missing_label(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _missing_mask(labels: NDArray[Any]) -> NDArray[np.bool_]:
    """Which labels are the missing label (None or NaN): at most one per part."""
    if labels.dtype.kind == "f":
        nan: NDArray[np.bool_] = np.isnan(labels)
        return nan
    if labels.dtype.kind == "O" and labels.size:
        mask: NDArray[np.bool_] = np.frompyfunc(_is_missing_label, 1, 1)(labels).astype(bool)
        return mask
    return np.zeros(labels.shape, dtype=bool)


def _concatenate(arrays: list[NDArray[Any]]) -> NDArray[Any]:
    """Label arrays joined without lossy promotion: numbers and strings (or signed and
    unsigned integers) meet as Python objects, so unlike labels never compare equal."""
    kinds = {a.dtype.kind for a in arrays}
    mixed_text = len(kinds) > 1 and bool(kinds & set("USO"))
    if mixed_text or {"i", "u"} <= kinds:
        arrays = [a.astype(object) for a in arrays]
    return np.concatenate(arrays)


def union(arrays: Sequence[NDArray[Any]], name: str) -> tuple[NDArray[Any], list[NDArray[Any]]]:
    """The sorted union of label arrays (a missing label last) and where each input label
    lands in it; ``name`` ("classes" or "clusters") words the error for unsortable labels."""
    present = [a for a in arrays if a.size]
    if not present:
        return np.empty(0), [np.empty(0, dtype=np.int64) for _ in arrays]
    labels = _concatenate(present)
    missing = _missing_mask(labels)
    try:
        if missing.any():
            uniques, inverse = np.unique(labels[~missing], return_inverse=True)
            position = np.empty(labels.size, dtype=np.int64)
            position[~missing] = inverse.reshape(-1)
            position[missing] = uniques.size
            filler = next((v for v in labels[missing] if v is None), labels[missing][0])
            merged = np.append(uniques.astype(labels.dtype), np.array([filler], labels.dtype))
        else:
            merged, inverse = np.unique(labels, return_inverse=True)
            position = inverse.reshape(-1).astype(np.int64)
    except TypeError as e:
        raise TypeError(f"cannot merge tables whose {name} cannot be sorted together: {e}") from e
    bounds = np.cumsum([a.size for a in arrays])[:-1]
    return merged, np.split(position, bounds)


def stack(parts: Sequence[Part]) -> Cells:
    """The cells of every part, renumbered into the union of their labels (not summed)."""
    total = sum(p.n for p in parts)
    if total >= SAMPLES_LIMIT:
        raise ValueError(
            f"the merged table would hold {total} samples; at most 2**64 - 1 are supported"
        )
    classes, row_maps = union([p.classes for p in parts], "classes")
    clusters, col_maps = union([p.clusters for p in parts], "clusters")
    rows, cols, counts, part = [], [], [], []
    for k, (p, row_map, col_map) in enumerate(zip(parts, row_maps, col_maps, strict=True)):
        r, c, n = p.cells
        rows.append(row_map[r])
        cols.append(col_map[c])
        counts.append(n)
        part.append(np.full(n.size, k, dtype=np.int64))
    empty = np.empty(0, dtype=np.int64)
    # One copy each, cast as it is made (real-valued counts are summed from their units).
    flat = [
        np.concatenate([empty, *x], dtype=np.int64, casting="unsafe")
        for x in (rows, cols, counts, part)
    ]
    return Cells(classes, clusters, flat[0], flat[1], flat[2], flat[3], tuple(row_maps))


def merge(
    parts: Sequence[Part],
) -> tuple[NDArray[Any], NDArray[Any], _native.Table | WeightedTable]:
    """(classes, clusters, table) of the union of disjoint samples, cells summed, classes and
    clusters sorted by value; a table of weighted cells when a part has real-valued cells."""
    units = [p._cell_units() for p in parts]
    cells = stack(parts)
    if any(u is not None for u in units):
        return cells.classes, cells.clusters, _merge_units(parts, units, cells)
    table = _native.table_from_cells(
        int(cells.classes.size), int(cells.clusters.size), cells.rows, cells.cols, cells.counts
    )
    if table.nnz and int(table.cells()[2].max()) > _INT64_MAX:
        raise ValueError("a merged cell would count 2**63 samples or more (counts are int64)")
    return cells.classes, cells.clusters, table


def _merge_units(
    parts: Sequence[Part], units: list[NDArray[Any] | None], cells: Cells
) -> _native.Table | WeightedTable:
    """The table of the stacked cells summed exactly in units of ``2**-64``, rounded once."""
    exact = [
        p.cells[2].astype(object) * UNIT if u is None else u
        for p, u in zip(parts, units, strict=True)
    ]
    shape = (int(cells.classes.size), int(cells.clusters.size))
    key = cells.rows * max(shape[1], 1) + cells.cols
    places, where = np.unique(key, return_inverse=True)
    summed = np.zeros(places.size, dtype=object)
    np.add.at(summed, where.reshape(-1), np.concatenate([np.empty(0, dtype=object), *exact]))
    rows, cols = np.divmod(places, max(shape[1], 1))
    keep = summed != 0
    # Each class's sum of its samples' squares (a part of counts: its sizes, weight 1 each).
    squares = np.zeros(shape[0], dtype=object)
    for p, row_map in zip(parts, cells.row_maps, strict=True):
        own = p._row_squares()
        if own is None:
            rows_of, _, counts = p.cells
            own = np.zeros(row_map.size, dtype=object)
            np.add.at(own, rows_of, counts.astype(object) * (UNIT * UNIT))
        np.add.at(squares, row_map, own)
    return from_units(
        shape, rows[keep].astype(np.int64), cols[keep].astype(np.int64), summed[keep], squares
    )


def no_units(what: str) -> ValueError:
    """The refusal to merge a table scaled by class weights (``what`` names it)."""
    return ValueError(
        f"cannot merge {what} made with class_weight: its rows are scaled after counting, so"
        " the merge would not be the table of the merged samples; merge the tables counted"
        " without class_weight (sample_weight merges exactly) and weigh the classes of the"
        " merged table"
    )
