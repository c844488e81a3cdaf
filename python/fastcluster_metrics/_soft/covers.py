"""Measures of two covers (overlapping clusterings, multi-label annotations): the Omega index,
overlapping NMI (LFK and MGH) and extended BCubed, from the distinct groups of samples, never
from all pairs of samples.

Samples with the same set of labels on both sides are alike for every measure here, so the
samples are first grouped by their pair ``(S, T)`` of label sets (``np.unique`` on the padded
sets). Pair counts then come from *subsets*: for a subset ``U`` of labels of the first cover and
``V`` of the second, ``m(U, V)`` is the number of samples whose sets contain both, summed over
the groups that hold them; by inclusion and exclusion the pairs of samples sharing exactly
``s`` labels of the first cover and ``t`` of the second are

    N(s, t) = Σ_{|U| ≥ s, |V| ≥ t} (-1)^(|U| - s + |V| - t) C(|U|, s) C(|V|, t) C(m(U, V), 2),

and by Vandermonde's identity the pairs on which the two covers agree are
``Σ_t N(t, t) = Σ_{U, V} (-1)^(|U| + |V|) C(|U| + |V|, |U|) C(m(U, V), 2)``. A group with
``a`` and ``b`` labels has ``2^(a + b)`` subsets: with up to 3 labels a side, 64 at most. Groups
with many labels (where ``Σ 2^(a + b)`` would exceed the number of pairs of groups) are
compared group with group instead, by chunks of a product of their 0/1 matrices.

Overlapping NMI needs the clusters' sizes and the sizes of their pairwise intersections (the
subsets of one label each), then one entropy per pair of clusters, by chunks of rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._utils.params import InvalidParameterError
from .._utils.public import public
from .memberships import Cover, check_same_samples, read_cover

__all__ = [
    "Groups",
    "bcubed_f_of",
    "bcubed_precision_of",
    "bcubed_recall_of",
    "extended_bcubed_precision_recall_f",
    "groups",
    "omega_index",
    "omega_of",
    "onmi_of",
    "overlapping_normalized_mutual_info_score",
]

NAMES = ("cover_true", "cover_pred")
VARIANTS = ("MGH", "LFK")
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
    """What the measures of one grouping share, made once (:func:`_memo`)."""

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


# --- the Omega index ---------------------------------------------------------------------------


def _pairs(m: NDArray[np.int64]) -> NDArray[np.int64]:
    return m * (m - 1) // 2


def _signed_sum(values: NDArray[np.int64], coefficients: NDArray[np.int64]) -> int:
    """``Σ coefficient * value`` exactly, in Python integers by coefficient."""
    total = 0
    for c in np.unique(coefficients):
        if c:
            total += int(c) * int(values[coefficients == c].sum(dtype=np.int64))
    return total


def _omega_counts_by_subsets(g: Groups) -> tuple[int, list[int], list[int]]:
    """Pairs on which the covers agree, and pairs sharing exactly ``t`` labels on each side."""
    s = subsets(g, index=False)
    pairs = _pairs(s.m)
    sign = 1 - 2 * ((s.size_u + s.size_v) % 2)
    agree = _signed_sum(pairs, sign * _comb(s.size_u + s.size_v, s.size_u))
    side_a = _exactly(pairs, s.size_u, s.size_v == 0, int(g.size_a.max(initial=0)))
    side_b = _exactly(pairs, s.size_v, s.size_u == 0, int(g.size_b.max(initial=0)))
    return agree, side_a, side_b


def _comb(n: NDArray[np.int64], k: NDArray[np.int64]) -> NDArray[np.int64]:
    """``C(n, k)`` elementwise, for the small ``n`` of subset sizes."""
    top = int(n.max(initial=0))
    table = np.array([[math.comb(i, j) for j in range(top + 1)] for i in range(top + 1)])
    found: NDArray[np.int64] = table[n, k].astype(np.int64)
    return found


def _exactly(
    pairs: NDArray[np.int64], size: NDArray[np.int64], keep: NDArray[np.bool_], largest: int
) -> list[int]:
    """Pairs sharing exactly ``t`` labels of one side, ``t = 0..largest``, from the subsets of
    that side alone (``keep``)."""
    pairs, size = pairs[keep], size[keep]
    out = []
    for t in range(largest + 1):
        sign = np.where((size - t) % 2 == 0, 1, -1)
        coef = np.where(size >= t, sign * _comb(size, np.minimum(size, t)), 0)
        out.append(_signed_sum(pairs, coef.astype(np.int64)))
    return out


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


def _omega_counts_by_pairs(g: Groups) -> tuple[int, list[int], list[int]]:
    """The same counts, group with group (for groups with many labels)."""
    count = g.count.astype(np.float64)
    top = int(max(g.size_a.max(initial=0), g.size_b.max(initial=0)))
    agree = 0.0
    side_a = np.zeros(top + 1)
    side_b = np.zeros(top + 1)
    for part, shared_a, shared_b in _group_blocks(g, _chunk_rows(g.count.size)):
        w = count[part][:, None] * count[None, :]
        agree += float(w[shared_a == shared_b].sum())
        side_a += np.bincount(shared_a.astype(np.int64).ravel(), w.ravel(), minlength=top + 1)
        side_b += np.bincount(shared_b.astype(np.int64).ravel(), w.ravel(), minlength=top + 1)
    # ordered pairs of groups count each sample with itself once: take those out, then halve
    size_a, size_b = g.size_a, g.size_b
    agree -= float(g.count[size_a == size_b].sum())
    side_a -= np.bincount(size_a, g.count, minlength=top + 1)
    side_b -= np.bincount(size_b, g.count, minlength=top + 1)
    return (
        round(agree) // 2,
        [round(x) // 2 for x in side_a],
        [round(x) // 2 for x in side_b],
    )


def omega_counts(g: Groups, by_subsets: bool | None = None) -> tuple[int, list[int], list[int]]:
    """Agreeing pairs and each side's pairs by shared labels, by subsets or by pairs of
    groups (whichever is cheaper unless ``by_subsets`` says)."""
    if by_subsets is None:
        by_subsets = _by_subsets(g)
    return _omega_counts_by_subsets(g) if by_subsets else _omega_counts_by_pairs(g)


@public
def omega_index(cover_true: ArrayLike, cover_pred: ArrayLike) -> float:
    """Omega index of two covers (Collins & Dent 1988): the adjusted Rand index of
    overlapping clusterings.

    A pair of samples is counted as an agreement when the two covers put it together in the
    same number of clusters (0, 1, 2, ...). With ``M = C(n, 2)`` pairs, ``A`` agreeing pairs
    and ``t_k(X)`` the pairs sharing exactly ``k`` clusters of cover ``X``,

    ``ω_u = A / M``, ``ω_e = Σ_k t_k(X) t_k(Y) / M²``, ``Omega = (ω_u - ω_e) / (1 - ω_e)``,

    as clusim's ``omega_index``. On partitions (one label per sample) it is the adjusted
    Rand index. The counts are exact integers from the distinct groups of samples (see the
    module's notes), divided once: O(n log n) plus the groups, never the pairs.

    Parameters
    ----------
    cover_true, cover_pred
        Each sample's labels: a sequence of label sets (lists, tuples, sets; labels of any
        type), a 0/1 matrix (dense or SciPy sparse, a column per label) or 1-D labels (one
        label per sample). Every sample needs a label.

    Returns
    -------
    float
        1.0 where ``ω_e = 1`` (fewer than two samples, or every pair in the same situation
        on both sides), as scikit-learn's ARI.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> fcm.omega_index([{"a"}, {"a", "b"}, {"b"}, {"c"}], [{1}, {1, 2}, {2}, {2}])
    0.4
    >>> fcm.omega_index([0, 0, 1, 1], [0, 0, 1, 2]) == fcm.adjusted_rand_score(
    ...     [0, 0, 1, 1], [0, 0, 1, 2])
    True
    """
    g = groups("omega_index", cover_true, cover_pred)
    return _omega(g)


def _omega(g: Groups, by_subsets: bool | None = None) -> float:
    total = g.n * (g.n - 1) // 2
    if total == 0:
        return 1.0
    agree, side_a, side_b = omega_counts(g, by_subsets)
    expected = sum(x * y for x, y in zip(side_a, side_b, strict=False))
    # (ω_u - ω_e) / (1 - ω_e) with ω_u = A / M, ω_e = E / M², in integers: (A M - E) / (M² - E)
    denominator = total * total - expected
    if denominator == 0:
        return 1.0
    return (agree * total - expected) / denominator


# --- extended BCubed ---------------------------------------------------------------------------


def _coefficients(size: int) -> NDArray[np.int64]:
    """``(-1)^(|U| - s) C(|U|, s)`` for each mask ``U`` of ``size`` positions and ``s``."""
    out = np.zeros((1 << size, size + 1), dtype=np.int64)
    for mask in range(1 << size):
        u = mask.bit_count()
        for s in range(u + 1):
            out[mask, s] = (-1) ** (u - s) * math.comb(u, s)
    return out


def _bcubed_by_subsets(g: Groups) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each group's mean precision and recall over the samples it shares a cluster (a class)
    with, itself included."""
    s = subsets(g)
    precision = np.zeros(g.count.size)
    recall = np.zeros(g.count.size)
    for (a, b), (members, index) in s.index.items():
        # shared[g, t, u]: samples sharing exactly t labels of the first cover, u of the second
        shared = np.einsum(
            "gxy,xt,yu->gtu", s.m[index].astype(np.float64), _coefficients(a), _coefficients(b)
        )
        precision[members], recall[members] = _bcubed_of(shared)
    return precision, recall


def _bcubed_of(shared: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Mean multiplicity precision and recall of each row of ``shared[g, t, u]`` (samples
    sharing ``t`` true and ``u`` predicted labels with the group's)."""
    t = np.arange(shared.shape[1])[:, None]
    u = np.arange(shared.shape[2])[None, :]
    least = np.minimum(t, u).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        on_pred = np.where(u >= 1, least / u, 0.0)
        on_true = np.where(t >= 1, least / t, 0.0)
    in_pred = shared[:, :, 1:].sum(axis=(1, 2))
    in_true = shared[:, 1:, :].sum(axis=(1, 2))
    precision = (shared * on_pred).sum(axis=(1, 2)) / in_pred
    recall = (shared * on_true).sum(axis=(1, 2)) / in_true
    return precision, recall


def _bcubed_by_pairs(g: Groups) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    count = g.count.astype(np.float64)
    top_a = int(g.size_a.max(initial=0))
    top_b = int(g.size_b.max(initial=0))
    precision = np.zeros(g.count.size)
    recall = np.zeros(g.count.size)
    for part, shared_a, shared_b in _group_blocks(g, _chunk_rows(g.count.size)):
        rows = shared_a.shape[0]
        cell = shared_a.astype(np.int64) * (top_b + 1) + shared_b.astype(np.int64)
        cell += (np.arange(rows) * (top_a + 1) * (top_b + 1))[:, None]
        shared = np.bincount(
            cell.ravel(),
            np.broadcast_to(count, cell.shape).ravel(),
            minlength=rows * (top_a + 1) * (top_b + 1),
        )
        precision[part], recall[part] = _bcubed_of(
            shared.reshape(rows, top_a + 1, top_b + 1).astype(np.float64)
        )
    return precision, recall


@public
def extended_bcubed_precision_recall_f(
    cover_true: ArrayLike, cover_pred: ArrayLike
) -> tuple[float, float, float]:
    """Extended BCubed precision, recall and F of two covers (Amigó, Gonzalo, Artiles &
    Verdejo 2009).

    For samples ``e`` and ``e'`` sharing ``t`` true labels and ``u`` predicted ones, the
    multiplicity precision is ``min(t, u) / u`` (where ``u ≥ 1``) and the multiplicity
    recall ``min(t, u) / t`` (where ``t ≥ 1``). BCubed precision is the mean over the samples
    ``e`` of the mean precision over the ``e'`` (``e`` itself included) that share a
    predicted label with ``e``; recall likewise over the true labels; F is their harmonic
    mean. On partitions they are :func:`bcubed_precision`, :func:`bcubed_recall` and
    :func:`bcubed_f_score`. Computed for each distinct group of samples from the counts of
    the subsets of its labels (see :func:`omega_index`), never over pairs of samples.

    Parameters
    ----------
    cover_true, cover_pred
        As for :func:`omega_index`: label sets, a 0/1 matrix, or 1-D labels.

    Returns
    -------
    (float, float, float)
        Precision, recall and F; all 1.0 for no samples.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> p, r, f = fcm.extended_bcubed_precision_recall_f([{0}, {0, 1}, {1}], [{0}, {0}, {1}])
    >>> round(p, 4), round(r, 4), round(f, 4)
    (1.0, 0.6667, 0.8)
    """
    g = groups("extended_bcubed_precision_recall_f", cover_true, cover_pred)
    return _bcubed(g)


def _bcubed(g: Groups, by_subsets: bool | None = None) -> tuple[float, float, float]:
    if g.n == 0:
        return 1.0, 1.0, 1.0
    if by_subsets is None:
        by_subsets = _by_subsets(g)
    each_p, each_r = _bcubed_by_subsets(g) if by_subsets else _bcubed_by_pairs(g)
    precision = float(g.count @ each_p / g.n)
    recall = float(g.count @ each_r / g.n)
    f = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, float(f)


# --- overlapping NMI ---------------------------------------------------------------------------


def _h(p: NDArray[np.float64]) -> NDArray[np.float64]:
    """``-p log2 p``, 0 at 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out: NDArray[np.float64] = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return out


@dataclass(frozen=True)
class Intersections:
    """Cluster sizes of each cover and the sizes of the non-empty intersections of a cluster
    of the first with one of the second (a sparse table: ``rows``, ``cols``, ``count``)."""

    n: int
    size_a: NDArray[np.int64]
    size_b: NDArray[np.int64]
    rows: NDArray[np.int64]
    cols: NDArray[np.int64]
    count: NDArray[np.int64]


def intersections(g: Groups) -> Intersections:
    """From the groups: each (label, label) pair of a group adds the group's samples."""
    s = subsets(g, largest=1)
    # masks of at most one label, in order: none, then the first label, the second, ...
    size_a = np.zeros(g.k_a, dtype=np.int64)
    size_b = np.zeros(g.k_b, dtype=np.int64)
    rows_l: list[NDArray[np.int64]] = []
    cols_l: list[NDArray[np.int64]] = []
    counts_l: list[NDArray[np.int64]] = []
    for (a, b), (members, index) in s.index.items():
        sa, sb = g.sets_a[members, :a], g.sets_b[members, :b]
        for x in range(a):
            at = index[:, 1 + x, 0]
            size_a[sa[:, x]] = s.m[at]
            for y in range(b):
                cell = index[:, 1 + x, 1 + y]
                rows_l.append(sa[:, x])
                cols_l.append(sb[:, y])
                counts_l.append(s.m[cell])
        for y in range(b):
            size_b[sb[:, y]] = s.m[index[:, 0, 1 + y]]
    if rows_l:
        key = np.concatenate(rows_l) * max(g.k_b, 1) + np.concatenate(cols_l)
        key, first = np.unique(key, return_index=True)
        count = np.concatenate(counts_l)[first]
    else:
        key = count = np.zeros(0, dtype=np.int64)
    return Intersections(
        g.n, size_a, size_b, key // max(g.k_b, 1), key % max(g.k_b, 1), count.astype(np.int64)
    )


def _conditional(
    n: int,
    size_x: NDArray[np.int64],
    size_y: NDArray[np.int64],
    rows: NDArray[np.int64],
    cols: NDArray[np.int64],
    count: NDArray[np.int64],
) -> NDArray[np.float64]:
    """``H(X_i | Y)`` for each cluster ``X_i``: the least ``H(X_i, Y_j) - H(Y_j)`` over the
    ``Y_j`` that pass LFK's test ``h(P11) + h(P00) > h(P01) + h(P10)``, else ``H(X_i)``; by
    chunks of rows of the dense table of intersections."""
    k_x, k_y = size_x.shape[0], size_y.shape[0]
    px, py = size_x / n, size_y / n
    entropy_x = _h(px) + _h(1.0 - px)
    entropy_y = _h(py) + _h(1.0 - py)
    out = entropy_x.copy()
    order = np.argsort(rows, kind="stable")
    rows, cols, count = rows[order], cols[order], count[order]
    step = max(1, (1 << 20) // max(k_y, 1))
    for start in range(0, k_x, step):
        stop = min(start + step, k_x)
        table = np.zeros((stop - start, k_y), dtype=np.int64)
        lo, hi = np.searchsorted(rows, [start, stop])
        table[rows[lo:hi] - start, cols[lo:hi]] = count[lo:hi]
        a = size_x[start:stop, None]
        p11 = table / n
        p10 = (a - table) / n
        p01 = (size_y[None, :] - table) / n
        p00 = (n - a - size_y[None, :] + table) / n
        h11, h10, h01, h00 = _h(p11), _h(p10), _h(p01), _h(p00)
        passes = h11 + h00 > h01 + h10
        given = h11 + h10 + h01 + h00 - entropy_y[None, :]
        best = np.where(passes, given, np.inf).min(axis=1, initial=np.inf)
        out[start:stop] = np.minimum(best, entropy_x[start:stop])
    return out


def _identical(t: Intersections) -> bool:
    """Whether the covers have the same clusters (as sets of samples)."""
    same = (t.count == t.size_a[t.rows]) & (t.count == t.size_b[t.cols])
    return bool(
        np.isin(np.arange(t.size_a.shape[0]), t.rows[same]).all()
        and np.isin(np.arange(t.size_b.shape[0]), t.cols[same]).all()
    )


def onmi(t: Intersections, variant: str) -> float:
    if t.n == 0 or _identical(t):
        return 1.0
    n = t.n
    x_given_y = _conditional(n, t.size_a, t.size_b, t.rows, t.cols, t.count)
    y_given_x = _conditional(n, t.size_b, t.size_a, t.cols, t.rows, t.count)
    px, py = t.size_a / n, t.size_b / n
    entropy_x = _h(px) + _h(1.0 - px)
    entropy_y = _h(py) + _h(1.0 - py)
    if variant == "LFK":
        with np.errstate(divide="ignore", invalid="ignore"):
            nx = np.where(entropy_x > 0, x_given_y / entropy_x, 1.0)
            ny = np.where(entropy_y > 0, y_given_x / entropy_y, 1.0)
        return float(1.0 - 0.5 * (nx.mean() + ny.mean()))
    hx, hy = float(entropy_x.sum()), float(entropy_y.sum())
    mutual = 0.5 * (hx - float(x_given_y.sum()) + hy - float(y_given_x.sum()))
    top = max(hx, hy)
    return 1.0 if top == 0 else mutual / top


@public
def overlapping_normalized_mutual_info_score(
    cover_true: ArrayLike, cover_pred: ArrayLike, *, variant: str = "MGH"
) -> float:
    """Overlapping normalized mutual information of two covers.

    Each cluster ``X_i`` is a binary variable (is a sample in it?), of entropy
    ``H(X_i) = h(p) + h(1 - p)``, ``h(p) = -p log2 p``. Of the clusters ``Y_j`` of the other
    cover that pass Lancichinetti, Fortunato & Kertész's test
    ``h(P11) + h(P00) > h(P01) + h(P10)`` (the joint probabilities of being in ``X_i`` and
    ``Y_j``), the best gives ``H(X_i | Y) = min_j H(X_i, Y_j) - H(Y_j)``; ``H(X_i)`` when none
    passes. Then

    - ``"LFK"`` (Lancichinetti, Fortunato & Kertész 2009):
      ``1 - (mean_i H(X_i | Y) / H(X_i) + mean_j H(Y_j | X) / H(Y_j)) / 2``;
    - ``"MGH"`` (McDaid, Greene & Hurley 2011, the default of their reference code):
      ``I / max(H(X), H(Y))`` with ``H(X) = Σ_i H(X_i)``, ``H(X | Y) = Σ_i H(X_i | Y)`` and
      ``I = (H(X) - H(X | Y) + H(Y) - H(Y | X)) / 2``.

    As cdlib's ``onmi`` (whose authors checked it against McDaid's C++ code). clusim 0.4's
    ``onmi`` is meant as LFK but takes ``P00`` as ``1 - P11``; it agrees with ``"LFK"`` only
    on identical covers. From the cluster sizes and the sparse table of cluster
    intersections, then one entropy per pair of clusters: O(n log n + k1 k2).

    Parameters
    ----------
    cover_true, cover_pred
        As for :func:`omega_index`: label sets, a 0/1 matrix, or 1-D labels.
    variant : {"MGH", "LFK"}, default="MGH"

    Returns
    -------
    float
        1.0 for covers with the same clusters (and for no samples). A cluster holding every
        sample has no entropy; under LFK its normalised term is 1 (cdlib's convention).

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> a = [{0}, {0}, {0, 1}, {1}, {1}, {2}]
    >>> b = [{0}, {0}, {0}, {1}, {1}, {1}]
    >>> round(fcm.overlapping_normalized_mutual_info_score(a, b), 4)
    0.4648
    >>> round(fcm.overlapping_normalized_mutual_info_score(a, b, variant="LFK"), 4)
    0.5269
    """
    func = "overlapping_normalized_mutual_info_score"
    if not isinstance(variant, str) or variant not in VARIANTS:
        among = "{" + ", ".join(repr(v) for v in VARIANTS) + "}"
        raise InvalidParameterError(
            f"The 'variant' parameter of {func} must be a str among {among}."
            f" Got {variant!r} instead."
        )
    g = groups(func, cover_true, cover_pred)
    return onmi(intersections(g), variant)


# --- every measure from one grouping (the catalogue's kernels of covers) ------------------------


def _memo(g: Groups, key: str, make: Callable[[], Any]) -> Any:
    """What several measures of one grouping share (the intersections, BCubed's three values),
    made once per grouping."""
    if key not in g.memo:
        g.memo[key] = make()
    return g.memo[key]


def omega_of(g: Groups) -> float:
    """The Omega index of a grouping."""
    return _omega(g)


def onmi_of(g: Groups, *, variant: str = "MGH") -> float:
    """The overlapping NMI of a grouping, under ``variant``; its intersections made once."""
    return onmi(_memo(g, "intersections", lambda: intersections(g)), variant)


def _bcubed_memo(g: Groups) -> tuple[float, float, float]:
    found: tuple[float, float, float] = _memo(g, "bcubed", lambda: _bcubed(g))
    return found


def bcubed_precision_of(g: Groups) -> float:
    """Extended BCubed precision of a grouping."""
    return _bcubed_memo(g)[0]


def bcubed_recall_of(g: Groups) -> float:
    """Extended BCubed recall of a grouping."""
    return _bcubed_memo(g)[1]


def bcubed_f_of(g: Groups) -> float:
    """Extended BCubed F of a grouping."""
    return _bcubed_memo(g)[2]
