"""The Frobenius Rand and adjusted Rand indices of two membership matrices (Andrews, Browne &
Hvingelby 2022), from k x k sums: never an n x n matrix.

For memberships ``P`` (n x k1) and ``Q`` (n x k2) the authors compare the n x n *bonding
matrices* ``A = P Pᵀ`` and ``B = Q Qᵀ``, each scaled so that ``⟨N, N⟩ = sum(N)`` as for a 0/1
matrix: ``N_A = (sum(A) / ⟨A, A⟩) A``. Their R package (``fari``) computes

    FRI  = (⟨N_A, N_B⟩ + ⟨J - N_A, J - N_B⟩ - n) / (n (n - 1))

and FARI = (FRI - E) / (1 - E), E the same expression with ``⟨A, B⟩`` replaced by its mean
over the permutations of the samples of one side,

    E⟨A, B⟩ = sum(A) sum(B) / n² + (tr A - sum(A) / n) (tr B - sum(B) / n) / (n - 1).

Every term is a function of small sums: ``⟨A, B⟩ = ‖PᵀQ‖²_F``, ``⟨A, A⟩ = ‖PᵀP‖²_F``,
``sum(A) = ‖Pᵀ1‖²``, ``tr A = ‖P‖²_F``. One pass over the rows accumulates them: for two dense
matrices, each chunk of rows ``X = [P Q]`` gives all three k x k products in one symmetric
product ``XᵀX`` while the chunk is in cache (about the time of one ``P.T @ Q``).

Sample weights are frequencies, as everywhere in the package: a weight of 3 is the sample's row
three times in ``P`` and ``Q``, so each sum above weighs row ``i``'s contribution by ``w_i``
(``PᵀWQ``, ``PᵀWP``, ``Σ w_i p_i``, ``Σ w_i ‖p_i‖²``) and ``n = Σ w_i``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._labels.weights import check_sample_weight, zero_weights
from .._table.merge import union
from .._utils.params import scipy_module
from .._utils.public import public
from .memberships import CHUNK_ROWS, Memberships, check_same_samples, read_memberships

__all__ = [
    "FrobeniusAccumulator",
    "FrobeniusSums",
    "frobenius_adjusted_rand_score",
    "frobenius_rand_score",
    "sums",
]

NAMES = ("memberships_true", "memberships_pred")


@dataclass(frozen=True)
class FrobeniusSums:
    """The sums FRI and FARI are made of: ``n = Σ w``, ``cross = ⟨A, B⟩ = ‖PᵀWQ‖²_F``, and for
    each side ``total = sum(A) = ‖PᵀW1‖²``, ``square = ⟨A, A⟩ = ‖PᵀWP‖²_F``,
    ``trace = tr A = Σ w_i ‖p_i‖²``."""

    n: float
    cross: float
    total_a: float
    square_a: float
    trace_a: float
    total_b: float
    square_b: float
    trace_b: float

    def rand(self) -> float:
        """FRI, as the authors' ``fari()`` computes it; 1.0 for fewer than two samples."""
        n = self.n
        pairs = n * (n - 1.0)
        if pairs == 0:
            return 1.0
        alpha = self.total_a / self.square_a
        beta = self.total_b / self.square_b
        # ⟨N_A, N_B⟩ + ⟨J - N_A, J - N_B⟩ - n
        #   = n (n - 1) - (alpha sum A + beta sum B - 2 alpha beta ⟨A, B⟩)
        apart = alpha * self.total_a + beta * self.total_b - 2.0 * alpha * beta * self.cross
        return float(1.0 - apart / pairs)

    def expected_cross(self) -> float:
        """``E⟨A, B⟩`` over the permutations of the samples of one side."""
        n = self.n
        mean_a, mean_b = self.total_a / n, self.total_b / n
        return float(
            mean_a * mean_b + (self.trace_a - mean_a) * (self.trace_b - mean_b) / (n - 1.0)
        )

    def adjusted_rand(self) -> float:
        """FARI: ``(FRI - E) / (1 - E)``, divided out as ``2 (⟨A, B⟩ - E⟨A, B⟩) /
        (sum A ⟨B, B⟩ / sum B + sum B ⟨A, A⟩ / sum A - 2 E⟨A, B⟩)``; 1.0 where the
        denominator is 0 (fewer than two samples, or both sides one cluster or all
        singletons), as scikit-learn's ARI."""
        if self.n * (self.n - 1.0) == 0:
            return 1.0
        expected = self.expected_cross()
        denominator = (
            self.total_a * self.square_b / self.total_b
            + self.total_b * self.square_a / self.total_a
            - 2.0 * expected
        )
        if denominator == 0:
            return 1.0
        return float(2.0 * (self.cross - expected) / denominator)

    @classmethod
    def of_gram(cls, gram: NDArray[np.float64], k1: int, n: float) -> FrobeniusSums:
        """The sums of ``XᵀWX``, ``X = [P Q 1]`` (``P`` has ``k1`` columns): its blocks are
        ``PᵀWP``, ``PᵀWQ``, ``QᵀWQ`` and, in its last row, the column sums."""
        k = gram.shape[0] - 1
        colsum = gram[k, :k]
        return cls(
            n=n,
            cross=_square(np.ascontiguousarray(gram[:k1, k1:k])),
            total_a=float(colsum[:k1] @ colsum[:k1]),
            square_a=_square(np.ascontiguousarray(gram[:k1, :k1])),
            trace_a=float(np.trace(gram[:k1, :k1])),
            total_b=float(colsum[k1:] @ colsum[k1:]),
            square_b=_square(np.ascontiguousarray(gram[k1:k, k1:k])),
            trace_b=float(np.trace(gram[k1:k, k1:k])),
        )


# --- one side's products and the cross product, by the forms the memberships come in --------
#
# A product is kept in the form its inputs allow: a 1-D array for a diagonal (one-hot sides'
# PᵀWP: the class sizes), a SciPy sparse matrix, or a dense array.


def _entries(x: Any) -> NDArray[np.float64]:
    """The stored entries of a product in any form (those of a diagonal are its own)."""
    if isinstance(x, np.ndarray):
        flat: NDArray[np.float64] = x.reshape(-1)
        return flat
    return np.asarray(x.data)


def _trace(x: Any) -> float:
    if isinstance(x, np.ndarray):
        return float(x.sum() if x.ndim == 1 else np.trace(x))
    return float(x.diagonal().sum())


def _dense(x: Any) -> NDArray[np.float64]:
    if isinstance(x, np.ndarray):
        return np.diag(x) if x.ndim == 1 else x
    out: NDArray[np.float64] = x.toarray()
    return out


def _square(x: NDArray[np.float64]) -> float:
    flat = x.reshape(-1)
    return float(flat @ flat)


def _one_hot(m: Memberships) -> Any:
    """One-hot codes as a SciPy CSR matrix (for a product with a sparse side)."""
    assert m.codes is not None
    sparse = scipy_module("sparse", "sparse memberships")
    data = np.ones(m.n, dtype=np.float64)
    return sparse.csr_matrix((data, (np.arange(m.n), m.codes)), shape=(m.n, m.k))


def _as_sparse(m: Memberships) -> Any:
    return m.sparse if m.sparse is not None else _one_hot(m)


def _weighted_sparse(x: Any, w: NDArray[np.float64] | None) -> Any:
    if w is None:
        return x
    sparse = scipy_module("sparse", "sparse memberships")
    return sparse.diags(w) @ x


def _side_gram(m: Memberships, w: NDArray[np.float64] | None) -> tuple[Any, NDArray[np.float64]]:
    """``PᵀWP`` of one side (one-hot: its diagonal, the class sizes) and its column sums."""
    if m.codes is not None:
        sizes = np.bincount(m.codes, weights=w, minlength=m.k).astype(np.float64)
        return sizes, sizes
    if m.sparse is not None:
        xw = _weighted_sparse(m.sparse, w)
        return (m.sparse.T @ xw).tocsr(), np.asarray(xw.sum(axis=0)).reshape(-1)
    gram = np.zeros((m.k + 1, m.k + 1))
    x_all = np.empty((CHUNK_ROWS, m.k + 1))
    for start, block in m.chunks():
        x = x_all[: block.shape[0]]
        x[:, : m.k] = block
        x[:, m.k] = 1.0
        if w is not None:
            x *= np.sqrt(w[start : start + block.shape[0]])[:, None]
        gram += x.T @ x  # PᵀWP, with the column sums in its last row
    return np.ascontiguousarray(gram[: m.k, : m.k]), gram[m.k, : m.k].copy()


def _side(m: Memberships, w: NDArray[np.float64] | None) -> tuple[float, float, float]:
    """``(sum A, ⟨A, A⟩, tr A)`` of one side."""
    gram, colsum = _side_gram(m, w)
    entries = _entries(gram)
    return float(colsum @ colsum), float(entries @ entries), _trace(gram)


def _codes_keys(p: Memberships, q: Memberships) -> NDArray[np.int64]:
    assert p.codes is not None and q.codes is not None
    key: NDArray[np.int64] = p.codes.astype(np.int64) * q.k + q.codes
    return key


def _codes_table(p: Memberships, q: Memberships, w: NDArray[np.float64] | None) -> Any:
    """``PᵀWQ`` of two one-hot sides: their weighted contingency table, dense."""
    cells = np.bincount(_codes_keys(p, q), weights=w, minlength=p.k * q.k)
    return cells.astype(np.float64).reshape(p.k, q.k)


def _codes_dense(codes: Memberships, dense: Memberships, w: NDArray[np.float64] | None) -> Any:
    """``PᵀWQ`` of a one-hot side and a dense one: each chunk's rows summed by code."""
    assert codes.codes is not None
    table = np.zeros((codes.k, dense.k))
    for start, block in dense.chunks():
        c = codes.codes[start : start + block.shape[0]]
        if w is not None:
            block = block * w[start : start + block.shape[0], None]
        order = np.argsort(c, kind="stable")
        sorted_codes = c[order]
        starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
        table[sorted_codes[starts]] += np.add.reduceat(block[order], starts, axis=0)
    return table


def _sparse_table(p: Memberships, q: Memberships, w: NDArray[np.float64] | None) -> Any:
    """``PᵀWQ`` when a side is sparse: a sparse product, by chunks of rows where the other
    side is dense (so that no n x k weighted copy is made)."""
    if q.dense is None and p.dense is None:
        return (_as_sparse(p).T @ _weighted_sparse(_as_sparse(q), w)).tocsr()
    sparse_side, dense_side = (p, q) if q.dense is not None else (q, p)
    x = _as_sparse(sparse_side)
    table = np.zeros((sparse_side.k, dense_side.k))
    for start, block in dense_side.chunks(1 << 16):
        stop = start + block.shape[0]
        if w is not None:
            block = block * w[start:stop, None]
        table += np.asarray(x[start:stop].T @ block)
    return table if sparse_side is p else table.T


def _cross_table(p: Memberships, q: Memberships, w: NDArray[np.float64] | None) -> Any:
    """``PᵀWQ`` (k1 x k2), dense or sparse, of two sides not both dense."""
    if p.codes is not None and q.codes is not None:
        return _codes_table(p, q, w)
    if p.sparse is not None or q.sparse is not None:
        return _sparse_table(p, q, w)
    if p.codes is not None:
        return _codes_dense(p, q, w)
    return _codes_dense(q, p, w).T


def _cross(p: Memberships, q: Memberships, w: NDArray[np.float64] | None) -> float:
    """``‖PᵀWQ‖²_F``; of two one-hot sides too wide for a dense table, from their distinct
    cells."""
    if p.codes is not None and q.codes is not None and p.k * q.k > 1 << 22:
        _, inverse = np.unique(_codes_keys(p, q), return_inverse=True)
        cells = np.bincount(inverse.reshape(-1), weights=w).astype(np.float64)
        return float(cells @ cells)
    entries = _entries(_cross_table(p, q, w))
    return float(entries @ entries)


def _dense_gram(p: Memberships, q: Memberships, w: NDArray[np.float64] | None) -> Any:
    """Both sides dense: each chunk of rows ``X = [P Q 1]`` (scaled by √w) gives ``PᵀP``,
    ``PᵀQ``, ``QᵀQ``, the column sums and ``n`` as the blocks of one symmetric product ``XᵀX``
    (BLAS syrk; a separate ``1ᵀX`` costs more than the product)."""
    assert p.dense is not None and q.dense is not None
    k1, k2 = p.k, q.k
    k = k1 + k2
    gram = np.zeros((k + 1, k + 1))
    both = np.empty((CHUNK_ROWS, k + 1))
    both[:, k] = 1.0
    for (start, block_p), (_, block_q) in zip(p.chunks(), q.chunks(), strict=True):
        rows = block_p.shape[0]
        x = both[:rows]
        x[:, :k1] = block_p
        x[:, k1:k] = block_q
        if w is not None:
            x[:, k] = 1.0
            x *= np.sqrt(w[start : start + rows])[:, None]
        gram += x.T @ x
    return gram


def _gram(p: Memberships, q: Memberships, w: NDArray[np.float64] | None) -> Any:
    """``XᵀWX`` of ``X = [P Q 1]``, dense, whatever the sides' forms (an accumulator's sums)."""
    if p.dense is not None and q.dense is not None:
        return _dense_gram(p, q, w)
    k1, k = p.k, p.k + q.k
    gram = np.zeros((k + 1, k + 1))
    for m, part in ((p, slice(0, k1)), (q, slice(k1, k))):
        side, colsum = _side_gram(m, w)
        gram[part, part] = _dense(side)
        gram[k, part] = gram[part, k] = colsum
    gram[:k1, k1:k] = _dense(_cross_table(p, q, w))
    gram[k1:k, :k1] = gram[:k1, k1:k].T
    gram[k, k] = _total(p, w)
    return gram


def _total(p: Memberships, w: NDArray[np.float64] | None) -> float:
    """``n = Σ w`` (the number of rows without weights)."""
    return float(p.n) if w is None else float(w.sum())


def _weights(
    func: str, sample_weight: Any, n: int, allow_zero: bool = False
) -> NDArray[np.float64] | None:
    """Sample weights as float64, their values checked (non-negative, finite, and not all 0
    unless ``allow_zero``: a chunk of a stream may weigh nothing)."""
    if sample_weight is None:
        return None
    w = check_sample_weight(func, sample_weight, n).astype(np.float64)
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"{func}: sample_weight[{i}] is {w[i].item()!r}:"
            " weights must be non-negative and finite"
        )
    if n and not allow_zero and not (w > 0).any():
        raise zero_weights(func)
    return w


def _read_pair(
    func: str, names: tuple[str, str], a: Any, b: Any
) -> tuple[Memberships, Memberships]:
    p, q = read_memberships(func, names[0], a), read_memberships(func, names[1], b)
    check_same_samples(func, names, p.n, q.n)
    return p, q


def sums(
    func: str,
    memberships_true: Any,
    memberships_pred: Any,
    sample_weight: Any = None,
    names: tuple[str, str] = NAMES,
) -> FrobeniusSums:
    """The sums of two membership matrices, read and checked (the one prepare step);
    ``names`` are the inputs' names in the errors."""
    p, q = _read_pair(func, names, memberships_true, memberships_pred)
    w = _weights(func, sample_weight, p.n)
    if p.n == 0:
        return FrobeniusSums(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    if p.dense is not None and q.dense is not None:
        return FrobeniusSums.of_gram(_dense_gram(p, q, w), p.k, _total(p, w))
    total_a, square_a, trace_a = _side(p, w)
    total_b, square_b, trace_b = _side(q, w)
    return FrobeniusSums(
        n=_total(p, w),
        cross=_cross(p, q, w),
        total_a=total_a,
        square_a=square_a,
        trace_a=trace_a,
        total_b=total_b,
        square_b=square_b,
        trace_b=trace_b,
    )


_INPUTS_DOC = """
    Parameters
    ----------
    memberships_true, memberships_pred : array-like of shape (n_samples, n_clusters) or (n_samples,)
        Non-negative memberships, one row per sample: a dense array, a SciPy sparse matrix,
        or 1-D labels of any type (read as one-hot rows). The two may have different numbers
        of clusters. Rows are used as given (a probability row need not sum to 1; it is not
        rescaled). NaN, infinite or negative entries, rows of zeros and different numbers of
        rows raise ``ValueError`` naming the first bad row.
    sample_weight : array-like of shape (n_samples,), default=None
        Frequencies: a whole weight ``k`` gives exactly the score of the sample's row
        repeated ``k`` times; row ``i``'s terms of every sum are multiplied by ``w_i``.
"""


@public
def frobenius_rand_score(
    memberships_true: ArrayLike, memberships_pred: ArrayLike, *, sample_weight: Any = None
) -> float:
    """Frobenius Rand index (FRI) of two soft labelings.

    Andrews, Browne & Hvingelby (2022): the Rand index of the scaled bonding matrices
    ``N_A = (sum(A) / ⟨A, A⟩) A`` of ``A = P Pᵀ`` and ``B = Q Qᵀ``,

    ``FRI = (⟨N_A, N_B⟩ + ⟨J - N_A, J - N_B⟩ - n) / (n (n - 1))``,

    computed from k x k sums in one pass over the rows (no n x n matrix). On one-hot rows
    (hard labels) it is scikit-learn's :func:`rand_score`; a labeling compared with itself
    scores 1.
    {inputs}
    Returns
    -------
    float
        At most 1 (``⟨N_A, N_B⟩ ≤ (⟨N_A, N_A⟩ + ⟨N_B, N_B⟩) / 2``); 1.0 for fewer than two
        samples.

    Examples
    --------
    >>> import numpy as np
    >>> import fastcluster_metrics as fcm
    >>> fcm.frobenius_rand_score([0, 0, 1, 1], [0, 0, 1, 2]) == fcm.rand_score(
    ...     [0, 0, 1, 1], [0, 0, 1, 2])
    True
    >>> P = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.8]])
    >>> round(fcm.frobenius_rand_score(P, [0, 0, 1, 1]), 6)
    0.856
    """
    return sums("frobenius_rand_score", memberships_true, memberships_pred, sample_weight).rand()


@public
def frobenius_adjusted_rand_score(
    memberships_true: ArrayLike, memberships_pred: ArrayLike, *, sample_weight: Any = None
) -> float:
    """Frobenius adjusted Rand index (FARI) of two soft labelings.

    Andrews, Browne & Hvingelby (2022): ``(FRI - E[FRI]) / (1 - E[FRI])``, the expectation
    over the permutations of the samples of one side, where

    ``E⟨A, B⟩ = sum(A) sum(B) / n² + (tr A - sum(A) / n) (tr B - sum(B) / n) / (n - 1)``

    (see :func:`frobenius_rand_score`). Every term is a function of ``‖PᵀQ‖²_F``,
    ``‖PᵀP‖²_F``, ``‖QᵀQ‖²_F``, the column sums and ``‖P‖²_F``, ``‖Q‖²_F``, accumulated in
    one pass over the rows: O(n k1 k2) time and O(k1 k2) memory beyond the inputs. On one-hot
    rows it is scikit-learn's :func:`adjusted_rand_score`; a labeling compared with itself
    scores 1, soft or hard. The index is unchanged when all of ``P`` is multiplied by one
    number, not when one row is.
    {inputs}
    Returns
    -------
    float
        1.0 where the adjustment's denominator is 0 (fewer than two samples; both sides one
        cluster, or both all singletons), as scikit-learn's ARI.

    Examples
    --------
    >>> import numpy as np
    >>> import fastcluster_metrics as fcm
    >>> abs(fcm.frobenius_adjusted_rand_score([0, 0, 1, 1], [0, 0, 1, 2])
    ...     - fcm.adjusted_rand_score([0, 0, 1, 1], [0, 0, 1, 2])) < 1e-12
    True
    >>> P = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.8]])
    >>> fcm.frobenius_adjusted_rand_score(P, P)
    1.0
    >>> round(fcm.frobenius_adjusted_rand_score(P, [0, 0, 1, 1]), 6)
    0.705455
    """
    return sums(
        "frobenius_adjusted_rand_score", memberships_true, memberships_pred, sample_weight
    ).adjusted_rand()


for _f in (frobenius_rand_score, frobenius_adjusted_rand_score):
    _f.__doc__ = (_f.__doc__ or "").replace("    {inputs}", "\n" + _INPUTS_DOC.strip("\n") + "\n")
del _f


# --- streams -----------------------------------------------------------------------------------


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
        p, q = _read_pair(func, NAMES, memberships_true, memberships_pred)
        w = _weights(func, sample_weight, p.n, allow_zero=True)
        if p.n == 0:
            return self
        chunk = _Chunks(_gram(p, q, w), p.k, _total(p, w), (p.labels, q.labels))
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
