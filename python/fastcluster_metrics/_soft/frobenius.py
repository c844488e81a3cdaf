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
from .._utils.params import scipy_module
from .._utils.public import public
from .memberships import CHUNK_ROWS, Memberships, check_same_samples, read_memberships

__all__ = [
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


def gram_of(p: Memberships, q: Memberships, w: NDArray[np.float64] | None) -> Any:
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
    gram[k, k] = total(p, w)
    return gram


def total(p: Memberships, w: NDArray[np.float64] | None) -> float:
    """``n = Σ w`` (the number of rows without weights)."""
    return float(p.n) if w is None else float(w.sum())


def checked_weights(
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


def read_pair(func: str, names: tuple[str, str], a: Any, b: Any) -> tuple[Memberships, Memberships]:
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
    p, q = read_pair(func, names, memberships_true, memberships_pred)
    w = checked_weights(func, sample_weight, p.n)
    if p.n == 0:
        return FrobeniusSums(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    if p.dense is not None and q.dense is not None:
        return FrobeniusSums.of_gram(_dense_gram(p, q, w), p.k, total(p, w))
    total_a, square_a, trace_a = _side(p, w)
    total_b, square_b, trace_b = _side(q, w)
    return FrobeniusSums(
        n=total(p, w),
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
