"""The samples of two covers grouped, and the subsets of each group's label sets counted: what
the Omega index (``omega.py``), extended BCubed (``bcubed.py``) and overlapping NMI
(``onmi.py``) are computed from, never from all pairs of samples.

Samples with the same set of labels on both sides are alike for every measure of two covers,
so the samples are first grouped by their pair ``(S, T)`` of label sets (``np.unique`` on the
padded sets). Pair counts then come from *subsets*: for a subset ``U`` of labels of the first
cover and ``V`` of the second, ``m(U, V)`` is the number of samples whose sets contain both,
summed over the groups that hold them. A group with ``a`` and ``b`` labels has ``2^(a + b)``
subsets: with up to 3 labels a side, 64 at most. Groups with many labels (where
``Σ 2^(a + b)`` would exceed the number of pairs of groups) are compared group with group
instead, by chunks of a product of their 0/1 matrices (:func:`_group_blocks`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .memberships import Cover, check_same_samples, read_cover

__all__ = ["NAMES", "Groups", "Subsets", "groups", "subsets"]

NAMES = ("cover_true", "cover_pred")
_KEY_LIMIT = 1 << 62


@dataclass(frozen=True)
class Groups:
    """The distinct pairs of label sets: group ``g`` holds ``count[g]`` samples whose labels
    are ``sets_a[g]`` and ``sets_b[g]`` (sorted, padded with -1)."""

    n: int
    k_a: int
    k_b: int
    sets_a: NDArray[np.int64]
    sets_b: NDArray[np.int64]
    count: NDArray[np.int64]
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """What the measures of one grouping share, made once (``covers._memo``)."""

    @property
    def size_a(self) -> NDArray[np.int64]:
        found: NDArray[np.int64] = (self.sets_a >= 0).sum(axis=1)
        return found

    @property
    def size_b(self) -> NDArray[np.int64]:
        found: NDArray[np.int64] = (self.sets_b >= 0).sum(axis=1)
        return found


def _padded(cover: Cover) -> NDArray[np.int64]:
    """Each sample's labels in a row, padded with -1 to the longest set."""
    sizes = cover.sizes
    width = int(sizes.max()) if cover.n else 0
    out = np.full((cover.n, width), -1, dtype=np.int64)
    rows = np.repeat(np.arange(cover.n), sizes)
    cols = np.arange(cover.labels.shape[0]) - cover.indptr[rows]
    out[rows, cols] = cover.labels
    return out


def _radix_keys(rows: NDArray[np.int64], radix: int) -> NDArray[np.int64] | None:
    """Each row of labels (-1 padded) as one int64 ``Σ (label + 1) radix^j``, or None when the
    keys could overflow."""
    if radix ** rows.shape[1] >= _KEY_LIMIT:
        return None
    key = np.zeros(rows.shape[0], dtype=np.int64)
    for j in range(rows.shape[1]):
        key = key * radix + (rows[:, j] + 1)
    return key


def _distinct_rows(
    rows: NDArray[np.int64], radix: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(distinct rows, counts)``: the rows as radix keys, sorted (no argsort) and decoded;
    ``np.unique(axis=0)`` when the keys could overflow."""
    key = _radix_keys(rows, radix)
    if key is None:
        distinct, counts = np.unique(rows, axis=0, return_counts=True)
        return distinct.astype(np.int64), counts.astype(np.int64)
    keys, counts = np.unique(key, return_counts=True)
    width = rows.shape[1]
    out = np.empty((keys.shape[0], width), dtype=np.int64)
    for j in range(width - 1, -1, -1):
        keys, digit = np.divmod(keys, radix)
        out[:, j] = digit - 1
    return out, counts.astype(np.int64)


def groups(func: str, cover_true: Any, cover_pred: Any) -> Groups:
    """Both covers read and checked (the one prepare step), their samples grouped."""
    a = read_cover(func, NAMES[0], cover_true)
    b = read_cover(func, NAMES[1], cover_pred)
    check_same_samples(func, NAMES, a.n, b.n)
    pa, pb = _padded(a), _padded(b)
    distinct, counts = _distinct_rows(np.concatenate([pa, pb], axis=1), max(a.k, b.k) + 1)
    width = pa.shape[1]
    sets_a = np.ascontiguousarray(distinct[:, :width])
    sets_b = np.ascontiguousarray(distinct[:, width:])
    return Groups(a.n, a.k, b.k, sets_a, sets_b, counts)


# --- subsets of each group's label sets and their counts ---------------------------------------


@dataclass(frozen=True)
class Subsets:
    """``m(U, V)`` for every pair of subsets ``(U, V)`` of some group's sets (``m``, with
    ``|U|`` and ``|V|`` in ``size_u``, ``size_v``), and for each class of groups with ``a`` and
    ``b`` labels the index of each group's ``(U, V)`` in ``m`` (``index[(a, b)]``: the groups
    and an array of shape (groups, 2^a, 2^b), masks over the sorted labels)."""

    m: NDArray[np.int64]
    size_u: NDArray[np.int64]
    size_v: NDArray[np.int64]
    index: dict[tuple[int, int], tuple[NDArray[np.intp], NDArray[np.intp]]]


def _masks(size: int, largest: int) -> list[int]:
    return [mask for mask in range(1 << size) if mask.bit_count() <= largest]


def _mask_keys(
    digits: NDArray[np.int64], masks: list[int], powers: list[int]
) -> list[NDArray[np.int64]]:
    """For each mask, each row's key of the labels the mask picks: the ``i``-th picked label
    (plus 1) times ``powers[i]``; the empty mask gives 0."""
    out = []
    for mask in masks:
        key = np.zeros(digits.shape[0], dtype=np.int64)
        picked = [j for j in range(digits.shape[1]) if mask >> j & 1]
        for i, j in enumerate(picked):
            key += digits[:, j] * powers[i]
        out.append(key)
    return out


def _sizes_of(
    keys: NDArray[np.int64], radix: int, width_a: int, width_b: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(|U|, |V|)`` of each key: its non-zero digits on each side."""
    size_u = np.zeros(keys.shape[0], dtype=np.int64)
    size_v = np.zeros(keys.shape[0], dtype=np.int64)
    for j in range(width_a + width_b - 1, -1, -1):
        keys, digit = np.divmod(keys, radix)
        (size_u if j < width_a else size_v)[:] += digit > 0
    return size_u, size_v


def subsets(g: Groups, largest: int = 64, *, index: bool = True) -> Subsets:
    """Every pair of subsets of at most ``largest`` labels a side, with its count of samples:
    each subset pair of each group is one int64 key (its labels as digits), and equal keys
    are summed (``np.unique``), so the work is ``Σ_g 2^(a_g + b_g)`` keys, not the pairs."""
    size_a, size_b = g.size_a, g.size_b
    width_a = min(int(size_a.max(initial=0)), largest)
    width_b = min(int(size_b.max(initial=0)), largest)
    radix = max(g.k_a, g.k_b) + 1
    if radix ** (width_a + width_b) >= _KEY_LIMIT:
        raise ValueError(
            "too many labels for one key: compare the groups pair by pair"
        )  # pragma: no cover - the callers choose the pairs then (_by_subsets)
    powers = [radix ** (width_a + width_b - 1 - j) for j in range(width_a + width_b)]
    keys: list[NDArray[np.int64]] = []
    weights: list[NDArray[np.int64]] = []
    shapes: dict[tuple[int, int], tuple[NDArray[np.intp], int, int, int]] = {}
    offset = 0
    classes = np.unique(np.stack([size_a, size_b], axis=1), axis=0).tolist()
    for a, b in classes:
        a, b = int(a), int(b)
        members = np.flatnonzero((size_a == a) & (size_b == b))
        masks_a, masks_b = _masks(a, largest), _masks(b, largest)
        keys_a = _mask_keys(g.sets_a[members, :a] + 1, masks_a, powers[:width_a])
        keys_b = _mask_keys(g.sets_b[members, :b] + 1, masks_b, powers[width_a:])
        count = g.count[members]
        for key_a in keys_a:
            for key_b in keys_b:
                keys.append(key_a + key_b)
                weights.append(count)
        shapes[(a, b)] = (members, offset, len(masks_a), len(masks_b))
        offset += members.size * len(masks_a) * len(masks_b)
    if not keys:
        empty = np.zeros(0, dtype=np.int64)
        return Subsets(empty, empty, empty, {})
    all_keys, all_weights = np.concatenate(keys), np.concatenate(weights)
    where: dict[tuple[int, int], tuple[NDArray[np.intp], NDArray[np.intp]]] = {}
    if not index and int(all_weights.sum()) <= 2 * all_keys.size:
        # each key once per sample: a sort and counts, no argsort (the groups are mostly
        # single samples, as in random covers)
        distinct, m = np.unique(np.repeat(all_keys, all_weights), return_counts=True)
    else:
        distinct, inverse = np.unique(all_keys, return_inverse=True)
        inverse = inverse.reshape(-1)
        m = np.bincount(inverse, weights=all_weights)
        for (a, b), (members, first, per_a, per_b) in shapes.items():
            # the keys were laid out mask pair by mask pair, each over the class's groups
            block = inverse[first : first + members.size * per_a * per_b]
            where[(a, b)] = (members, block.reshape(per_a, per_b, -1).transpose(2, 0, 1))
    size_u, size_v = _sizes_of(distinct, radix, width_a, width_b)
    return Subsets(m.astype(np.int64), size_u, size_v, where)


def _by_subsets(g: Groups) -> bool:
    """Whether the subsets are cheaper than comparing every pair of groups."""
    groups_count = float(g.count.size)
    width = int(g.size_a.max(initial=0)) + int(g.size_b.max(initial=0))
    if (max(g.k_a, g.k_b) + 1) ** width >= _KEY_LIMIT:
        return False
    return float(np.exp2(g.size_a + g.size_b).sum()) <= max(groups_count**2, 65536.0)


# --- groups compared group with group -------------------------------------------------------


def _group_blocks(g: Groups, rows: int) -> Iterator[tuple[slice, NDArray[Any], NDArray[Any]]]:
    """For chunks of groups: the labels they share with every group, on each side."""
    ind_a = _indicator(g.sets_a, g.k_a)
    ind_b = _indicator(g.sets_b, g.k_b)
    for start in range(0, g.count.size, rows):
        part = slice(start, min(start + rows, g.count.size))
        yield part, ind_a[part] @ ind_a.T, ind_b[part] @ ind_b.T


def _indicator(sets: NDArray[np.int64], k: int) -> NDArray[np.float64]:
    out = np.zeros((sets.shape[0], k + 1))
    out[np.arange(sets.shape[0])[:, None], sets] = 1.0  # -1 pads land in the last column
    out[:, k] = 0.0
    return out[:, :k]


def _chunk_rows(groups_count: int) -> int:
    return max(1, (1 << 22) // max(groups_count, 1))
