"""Extended BCubed precision, recall and F of two covers, each distinct group of samples'
(``cover_groups.py``) from the counts of the subsets of its labels, or group with group for
groups with many labels; never over pairs of samples.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._utils.public import public
from .cover_groups import Groups, _by_subsets, _chunk_rows, _group_blocks, groups, subsets

__all__ = ["extended_bcubed_precision_recall_f"]


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
