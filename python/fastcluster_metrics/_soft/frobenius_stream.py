"""The Frobenius Rand and adjusted Rand indices of membership matrices given chunk by chunk: the
sums ``XᵀWX`` of ``X = [P Q 1]`` of each chunk (``frobenius.py``) added up, the columns of a side
of 1-D labels matched by label value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._table.merge import union
from .._utils.public import public
from .frobenius import NAMES, FrobeniusSums, checked_weights, gram_of, read_pair, total

__all__ = ["FrobeniusAccumulator"]


@dataclass(frozen=True)
class _Chunks:
    """The sums of some chunks: ``gram = XᵀWX`` of ``X = [P Q 1]`` (``P``: ``k1`` columns),
    ``n = Σ w``, and for each side given as 1-D labels the label of each of its columns."""

    gram: NDArray[np.float64]
    k1: int
    n: float
    labels: tuple[NDArray[Any] | None, NDArray[Any] | None]

    @property
    def widths(self) -> tuple[int, int]:
        return self.k1, self.gram.shape[0] - 1 - self.k1


def _plus(a: _Chunks, b: _Chunks) -> _Chunks:
    """The sums of the samples of both: matrix columns matched by position, label columns by
    label value (a label one side lacks adds a column of zeros to it)."""
    at_a: list[NDArray[np.int64]] = []
    at_b: list[NDArray[np.int64]] = []
    labels: list[NDArray[Any] | None] = []
    widths: list[int] = []
    width = 0
    for side, name in enumerate(NAMES):
        labels_a, labels_b = a.labels[side], b.labels[side]
        k_a, k_b = a.widths[side], b.widths[side]
        if (labels_a is None) != (labels_b is None):
            raise ValueError(
                f"FrobeniusAccumulator: {name} is 1-D labels in some chunks and a matrix in"
                " others: give each side in one form in every chunk"
            )
        if labels_a is None or labels_b is None:
            if k_a != k_b:
                raise ValueError(
                    f"FrobeniusAccumulator: {name} has {k_b} columns in this chunk and {k_a}"
                    " in the chunks before: a matrix's columns are the same clusters in every"
                    " chunk"
                )
            merged, places = None, [np.arange(k_a), np.arange(k_b)]
        else:
            merged, places = union([labels_a, labels_b], name)
        at_a.append(width + places[0])
        at_b.append(width + places[1])
        labels.append(merged)
        widths.append(k_a if merged is None else int(merged.size))
        width += widths[-1]
    gram = np.zeros((width + 1, width + 1))
    for part, at in ((a, at_a), (b, at_b)):
        index = np.concatenate([*at, [width]])
        gram[np.ix_(index, index)] += part.gram
    return _Chunks(gram, widths[0], a.n + b.n, (labels[0], labels[1]))


@public
class FrobeniusAccumulator:
    """FRI and FARI of membership matrices given chunk by chunk.

    ``update(chunk_true, chunk_pred)`` adds one chunk of rows (any input
    :func:`frobenius_adjusted_rand_score` takes: dense, SciPy sparse, or 1-D labels as
    one-hot rows); :meth:`frobenius_rand_score` and :meth:`frobenius_adjusted_rand_score`
    are then those of the concatenation of all chunks. The state is the sums FARI is made
    of, ``XᵀWX`` of ``X = [P Q 1]``, which add up over chunks: ``(k1 + k2 + 1)²`` numbers,
    whatever the number of rows (for hard labels of many clusters,
    :class:`ContingencyAccumulator` keeps only the non-zero cells). A matrix side must have
    the same columns in every chunk; a side of 1-D labels may have labels that other chunks
    lack (columns are matched by label value). ``sample_weight`` weighs the chunk's rows as
    the functions do; a chunk may weigh nothing. Accumulators of disjoint samples merge
    with ``a + b``, and pickle. An update that fails adds nothing.

    Examples
    --------
    >>> import numpy as np
    >>> from fastcluster_metrics import FrobeniusAccumulator, frobenius_adjusted_rand_score
    >>> P = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.8]])
    >>> truth = ["B", "B", "T", "T"]
    >>> acc = FrobeniusAccumulator().update(P[:3], truth[:3]).update(P[3:], truth[3:])
    >>> acc.n
    4.0
    >>> whole = frobenius_adjusted_rand_score(P, truth)
    >>> abs(acc.frobenius_adjusted_rand_score() - whole) < 1e-12
    True
    """

    __slots__ = ("_chunks",)

    def __init__(self) -> None:
        self._chunks: _Chunks | None = None

    def update(
        self, memberships_true: Any, memberships_pred: Any, *, sample_weight: Any = None
    ) -> FrobeniusAccumulator:
        """Adds one chunk of rows (the same samples on both sides, in the same order, and
        optionally their weights)."""
        func = "FrobeniusAccumulator.update"
        p, q = read_pair(func, NAMES, memberships_true, memberships_pred)
        w = checked_weights(func, sample_weight, p.n, allow_zero=True)
        if p.n == 0:
            return self
        chunk = _Chunks(gram_of(p, q, w), p.k, total(p, w), (p.labels, q.labels))
        self._chunks = chunk if self._chunks is None else _plus(self._chunks, chunk)
        return self

    @property
    def n(self) -> float:
        """The number of rows added so far (with weights: their total)."""
        return 0.0 if self._chunks is None else self._chunks.n

    def _sums(self) -> FrobeniusSums:
        c = self._chunks
        if c is None:
            return FrobeniusSums(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        return FrobeniusSums.of_gram(c.gram, c.k1, c.n)

    def frobenius_rand_score(self) -> float:
        """:func:`frobenius_rand_score` of every row added so far."""
        return self._sums().rand()

    def frobenius_adjusted_rand_score(self) -> float:
        """:func:`frobenius_adjusted_rand_score` of every row added so far."""
        return self._sums().adjusted_rand()

    def __add__(self, other: object) -> FrobeniusAccumulator:
        if not isinstance(other, FrobeniusAccumulator):
            return NotImplemented
        out = FrobeniusAccumulator()
        a, b = self._chunks, other._chunks
        out._chunks = a if b is None else b if a is None else _plus(a, b)
        return out

    def __repr__(self) -> str:
        return f"FrobeniusAccumulator(n={self.n})"

    def __getstate__(self) -> dict[str, Any]:
        # plain values, not the private _Chunks: a pickle names no private class
        c = self._chunks
        if c is None:
            return {"gram": None}
        return {"gram": c.gram, "k1": c.k1, "n": c.n, "labels": c.labels}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._chunks = None if state["gram"] is None else _Chunks(**state)
