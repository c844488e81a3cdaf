"""The contingency table of weighted samples whose cells are not all whole numbers.

Counting with whole-number weights gives the core's integer table (each sample counted as
many times as its weight); otherwise the cells are real numbers and the table is a
:class:`WeightedTable`: the same methods as ``_native.Table`` (so every measure reads it
alike), its cells and sums as floats, its scores from them in NumPy. Sums over cells are
``math.fsum`` (correctly rounded) up to 2**16 terms and NumPy's pairwise sums beyond, over the
cells in row-major order: a table's scores depend neither on the order of the samples nor on
the thread count (the core sums each cell's weights exactly). The expected mutual information
is defined for counts only: asking a real-valued table for it raises ``ValueError``.

Pair counts sum ``w(x) w(y)`` over unordered pairs of distinct samples. A whole-number weight
``k`` stands for ``k`` samples of weight 1 (so whole weights give the pairs of the repeated
samples), any other weight ``w`` for one sample of weight ``w``: a cell of weight ``c`` whose
samples' squares sum to ``s`` holds ``(c**2 - s) / 2`` pairs, never a negative number. A
table holds each row's ``s`` exactly (:attr:`WeightedTable.row_squares`), and its pair sums
are exact fractions of its exact cells.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _native

__all__ = [
    "NOT_COUNTS",
    "SQUARE",
    "UNIT",
    "AnyTable",
    "WeightedTable",
    "from_units",
    "pairs",
    "scale_rows",
]

UNIT = 1 << 64
"""The core sums weights exactly in units of ``2**-64``: a count ``c`` is ``c * UNIT`` units."""

SQUARE = UNIT * UNIT
"""Sums of squared weights are exact in units of ``2**-128``."""

NOT_COUNTS = (
    "is defined for counts only: the expected mutual information under the permutation"
    " model sums over the tables of whole numbers with the given margins, and these weights"
    " make some cells non-integral. Use whole-number sample_weight and class_weight (each"
    " sample then counts that many times)"
)


class WeightedTable:
    """A sparse table of weighted cells, rows and columns in sorted label order, its label
    keys held here. Its cells are floats, or whole numbers (int64) when class weights that
    are whole numbers scaled a table of counts: every score of such a table is then the core
    table's of the same cells, exactly."""

    __slots__ = (
        "_col_keys",
        "_col_sums",
        "_cols",
        "_core",
        "_n",
        "_pairs",
        "_row_keys",
        "_row_sums",
        "_rows",
        "_shape",
        "_square_sum",
        "_squares",
        "_units",
        "_values",
        "row_factors",
    )

    def __init__(
        self,
        shape: tuple[int, int],
        cells: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[Any]],
        sums: tuple[NDArray[Any], NDArray[Any], float | int],
        keys: tuple[NDArray[Any], NDArray[Any]],
        units: NDArray[Any] | tuple[NDArray[np.uint64], NDArray[np.uint64]] | None = None,
        squares: NDArray[Any] | int | Fraction | None = None,
    ) -> None:
        self._shape = shape
        # Each row's exact sum of its samples' squares in units of SQUARE (an object array),
        # or only their total (a transposed table); None for a table of counts.
        self._squares: NDArray[Any] | None = None
        self._square_sum: int | Fraction | None = None
        if isinstance(squares, np.ndarray):
            self._squares = squares
            self._square_sum = sum(squares.tolist())
        elif squares is not None:
            self._square_sum = squares
        self._pairs: tuple[Fraction, Fraction, Fraction, Fraction] | None = None
        # Python ints (an object array), or the core's (high, low) halves until asked for.
        self._units = units
        self._rows, self._cols, self._values = cells
        self._row_sums, self._col_sums, self._n = sums
        self._row_keys, self._col_keys = keys
        self.row_factors: NDArray[Any] | None = None
        """The class weights that scaled each row (:func:`scale_rows`), else None."""
        self._core: _native.Table | None = None
        if self._values.dtype.kind in "iu":
            self._core = _native.table_from_cells(
                shape[0], shape[1], self._rows, self._cols, self._values.astype(np.int64)
            )

    @classmethod
    def counted(cls, structure: _native.Table, sums: tuple[Any, ...]) -> WeightedTable:
        """The table of the core's weighted count: its cells' places and keys from
        ``structure``, their sums from ``sums`` (as ``_native.count_weighted`` returns them)."""
        rows, cols, _ = structure.cells()
        hi, lo, values, row_sums, col_sums, n, limbs = sums
        squares = np.zeros(structure.shape[0], dtype=object)
        for k, limb in enumerate(limbs.reshape(-1, 4).T):
            squares += limb.astype(object) << (64 * k)
        return cls(
            structure.shape,
            (rows.astype(np.int64), cols.astype(np.int64), values),
            (row_sums, col_sums, float(n)),
            (structure.row_keys(), structure.col_keys()),
            (hi, lo),
            squares,
        )

    @property
    def units(self) -> NDArray[Any] | None:
        """Each cell's exact sum of weights in units of ``2**-64`` (Python ints, an object
        array), for a table the core counted and merges of such tables; None for a table
        scaled by class weights (which does not merge). Made from the core's halves when
        first asked for (merges ask; measures never do)."""
        if isinstance(self._units, tuple):
            hi, lo = self._units
            self._units = hi.astype(object) * UNIT + lo.astype(object)
        return self._units  # type: ignore[return-value]

    def _units_in(self, order: NDArray[Any]) -> Any:
        """The units (in whichever form they are held) of the cells in ``order``."""
        if self._units is None:
            return None
        if isinstance(self._units, tuple):
            return (self._units[0][order], self._units[1][order])
        return self._units[order]

    @property
    def row_squares(self) -> NDArray[Any] | None:
        """Each row's exact sum of its samples' squared weights in units of ``2**-128`` (a
        whole weight ``k`` counting ``k``), as merges and class weights need them; None for a
        transposed table and a table of counts."""
        return self._squares

    @property
    def squares(self) -> NDArray[Any] | int | Fraction | None:
        """The squares as the constructor takes them: :attr:`row_squares`, else their total."""
        return self._squares if self._squares is not None else self._square_sum

    def square_sum(self) -> Fraction:
        """The exact sum of every sample's squared weight (``n`` for a table of counts)."""
        if self._square_sum is None:
            return Fraction(self._n)
        return Fraction(self._square_sum, SQUARE)

    @property
    def integral(self) -> bool:
        """Whether the cells are whole numbers (scores are then the core's, exactly)."""
        return self._core is not None

    # --- the interface of ``_native.Table`` -------------------------------------------------

    @property
    def n(self) -> Any:
        return self._n

    @property
    def shape(self) -> tuple[int, int]:
        return self._shape

    @property
    def nnz(self) -> int:
        return int(self._values.size)

    def row_keys(self) -> NDArray[Any]:
        return self._row_keys

    def col_keys(self) -> NDArray[Any]:
        return self._col_keys

    def row_sums(self) -> NDArray[Any]:
        return self._row_sums

    def col_sums(self) -> NDArray[Any]:
        return self._col_sums

    def cells(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[Any]]:
        return self._rows, self._cols, self._values

    def pair_sums(self) -> tuple[Any, Any, Any, Any]:
        """(n, sum of squared cells, of squared row sums, of squared column sums): the core's
        integers, or exact fractions of the exact cells (from their units, or as
        :func:`scale_rows` made them)."""
        if self._core is not None:
            return self._core.pair_sums()
        if self._pairs is None:
            units = self.units
            if units is None:
                raise RuntimeError("a real-valued table without exact cells")
            self._pairs = _exact_pair_sums(self._shape, self._rows, self._cols, units, UNIT)
        return self._pairs

    def entropy_rows(self) -> float:
        if self._core is not None:
            return self._core.entropy_rows()
        return _entropy(self._row_sums, self._n)

    def entropy_cols(self) -> float:
        if self._core is not None:
            return self._core.entropy_cols()
        return _entropy(self._col_sums, self._n)

    def mutual_info(self) -> float:
        """``sum (c / n) log(c n / (a b))``, at least 0."""
        if self._core is not None:
            return self._core.mutual_info()
        n = self._n
        if n == 0 or self._values.size == 0:
            return 0.0
        c = self._values
        log_ab = np.log(self._row_sums[self._rows]) + np.log(self._col_sums[self._cols])
        return max(0.0, _sum(c * (np.log(c) - log_ab)) / n + math.log(n))

    def purity(self) -> float:
        """``(1/n) sum_j max_i c_ij``."""
        if self._core is not None:
            return self._core.purity()
        if self._n == 0:
            return 1.0
        best = np.zeros(self._shape[1])
        np.maximum.at(best, self._cols, self._values)
        return _sum(best) / self._n

    def expected_mutual_info(self) -> float:
        if self._core is not None:
            return self._core.expected_mutual_info()
        raise ValueError(f"the expected mutual information {NOT_COUNTS}")

    def ami_parts(self) -> tuple[float, float, float, float]:
        if self._core is not None:
            return self._core.ami_parts()
        raise ValueError(f"adjusted_mutual_info_score {NOT_COUNTS}")

    def mutual_info_variance(self) -> float:
        if self._core is not None:
            return self._core.mutual_info_variance()
        raise ValueError(f"the variance of the mutual information {NOT_COUNTS}")

    def model_parts(self, model: str, emi: bool) -> tuple[float, float, bool, bool, float | None]:
        if self._core is not None:
            return self._core.model_parts(model, emi)
        raise ValueError(
            f"random_model={model!r} is defined for counts only: it draws partitions of the"
            " samples, which weights that are not whole numbers do not define"
        )

    def reduced_parts(self, flat: bool) -> tuple[float, float, float, float]:
        if self._core is not None:
            return self._core.reduced_parts(flat)
        raise ValueError("reduced_mutual_info_score is defined for counts only")

    # --- changed copies ---------------------------------------------------------------------

    def reordered(self, row_order: NDArray[Any], col_order: NDArray[Any]) -> WeightedTable:
        """The table with its rows in ``row_order`` and its columns in ``col_order``
        (permutations: new row ``k`` is old row ``row_order[k]``), cells row-major."""
        row_at = np.empty(row_order.size, dtype=np.int64)
        row_at[row_order] = np.arange(row_order.size)
        col_at = np.empty(col_order.size, dtype=np.int64)
        col_at[col_order] = np.arange(col_order.size)
        rows, cols = row_at[self._rows], col_at[self._cols]
        order = np.lexsort((cols, rows))
        out = WeightedTable(
            self._shape,
            (rows[order], cols[order], self._values[order]),
            (self._row_sums[row_order], self._col_sums[col_order], self._n),
            (self._row_keys[row_order], self._col_keys[col_order]),
            self._units_in(order),
            self._squares[row_order] if self._squares is not None else self._square_sum,
        )
        out._pairs = self._pairs
        if self.row_factors is not None:
            out.row_factors = self.row_factors[row_order]
        return out

    def transposed(self) -> WeightedTable:
        """The table with the roles of rows and columns swapped, cells row-major."""
        order = np.lexsort((self._rows, self._cols))
        out = WeightedTable(
            (self._shape[1], self._shape[0]),
            (self._cols[order], self._rows[order], self._values[order]),
            (self._col_sums, self._row_sums, self._n),
            (self._col_keys, self._row_keys),
            self._units_in(order),
            self._square_sum,
        )
        if self._pairs is not None:
            n, cells_sq, rows_sq, cols_sq = self._pairs
            out._pairs = (n, cells_sq, cols_sq, rows_sq)
        return out

    def __repr__(self) -> str:
        return f"WeightedTable(n={self._n!r}, shape={self._shape}, nnz={self.nnz})"


def _sum(x: NDArray[np.float64]) -> float:
    """The sum of ``x``: correctly rounded up to 2**16 terms, NumPy's pairwise sum beyond (a
    list of floats for ``math.fsum`` costs more than the count of a wide table)."""
    if x.size <= 1 << 16:
        return math.fsum(x.tolist())
    return float(np.sum(x))


def _exact_pair_sums(
    shape: tuple[int, int],
    rows: NDArray[np.int64],
    cols: NDArray[np.int64],
    cells: NDArray[Any],
    unit: int,
) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """(n, sum of squared cells, of squared row sums, of squared column sums), exactly, of
    cells given as Python ints in units of ``1 / unit``."""
    exact = np.asarray(cells, dtype=object)
    row_sums = np.zeros(shape[0], dtype=object)
    col_sums = np.zeros(shape[1], dtype=object)
    np.add.at(row_sums, rows, exact)
    np.add.at(col_sums, cols, exact)
    square = unit * unit

    def squares(x: NDArray[Any]) -> Fraction:
        return Fraction(sum(v * v for v in x.tolist()), square)

    return (
        Fraction(sum(row_sums.tolist()), unit),
        squares(exact),
        squares(row_sums),
        squares(col_sums),
    )


def _entropy(sizes: NDArray[np.float64], n: float) -> float:
    """``-sum (s/n) log(s/n) = log n - sum s log s / n`` over the non-zero sizes, at least 0."""
    s = sizes[sizes > 0]
    if s.size <= 1:
        return 0.0
    return max(0.0, math.log(n) - _sum(s * np.log(s)) / n)


def from_units(
    shape: tuple[int, int],
    rows: NDArray[np.int64],
    cols: NDArray[np.int64],
    units: NDArray[Any],
    squares: NDArray[Any],
) -> _native.Table | WeightedTable:
    """The table of cells given by their exact sums of weights (``units``, Python ints in units
    of ``2**-64``; cells row-major, non-zero, each place once) and each row's exact sum of its
    samples' squares (``squares``, in units of ``2**-128``): each cell, row and column sum and
    the total rounded once to the nearest float; the core's table of counts when every cell
    is a whole number that fits int64 and each row's squares sum to its size (every pair
    count is then the counts'). Keys are the row and column numbers."""
    units = np.asarray(units, dtype=object)
    exact = units.tolist()
    row_units = np.zeros(shape[0], dtype=object)
    np.add.at(row_units, rows, units)
    counts_like = all(
        s == r * UNIT for s, r in zip(squares.tolist(), row_units.tolist(), strict=True)
    )
    if counts_like and all(u % UNIT == 0 for u in exact) and max(exact, default=0) < 2**63 * UNIT:
        counts = np.asarray([u // UNIT for u in exact], dtype=np.int64)
        return _native.table_from_cells(shape[0], shape[1], rows, cols, counts)
    col_units = np.zeros(shape[1], dtype=object)
    np.add.at(col_units, cols, units)
    return WeightedTable(
        shape,
        (rows, cols, _rounded(units)),
        (_rounded(row_units), _rounded(col_units), int(row_units.sum()) / UNIT),
        (np.arange(shape[0]), np.arange(shape[1])),
        units,
        np.asarray(squares, dtype=object),
    )


def _rounded(units: NDArray[Any]) -> NDArray[np.float64]:
    """Sums in units of ``2**-64`` as the nearest floats (Python's int division rounds
    correctly)."""
    return np.asarray([u / UNIT for u in units.tolist()], dtype=np.float64)


def scale_rows(table: _native.Table | WeightedTable, factors: list[float | int]) -> WeightedTable:
    """The table with row ``i`` multiplied by ``factors[i]`` (class weights); rows weighted 0
    leave the table (as a class whose samples all weigh 0). Whole-number factors of a table
    of counts give a table of counts. A whole factor ``f`` repeats each sample ``f`` times
    (its row's squares times ``f``), any other multiplies each sample's weight (times
    ``f**2``); the pair sums are exact fractions of the exact scaled cells."""
    exact_cells, unit, base_squares = _exact_cells(table)
    rows, cols, counts = table.cells()
    rows = rows.astype(np.int64)
    cols = cols.astype(np.int64)
    keep_rows = np.asarray([f != 0 for f in factors], dtype=bool)
    integral = counts.dtype.kind in "iu" and all(isinstance(f, (int, np.integer)) for f in factors)
    if integral:
        exact = [
            int(c) * int(factors[r]) for r, c in zip(rows.tolist(), counts.tolist(), strict=True)
        ]
        integral = sum(exact) < 2**63
    if integral:
        values: NDArray[Any] = np.asarray(exact, dtype=np.int64)
        row_sums: NDArray[Any] = np.asarray(
            [int(s) * int(f) for s, f in zip(table.row_sums().tolist(), factors, strict=True)],
            dtype=np.int64,
        )
    else:
        f = np.asarray([float(x) for x in factors], dtype=np.float64)
        values = counts.astype(np.float64) * f[rows]
        row_sums = table.row_sums().astype(np.float64) * f
    # Renumber the rows that stay.
    new_row = np.cumsum(keep_rows) - 1
    keep = keep_rows[rows]
    rows, cols, values = new_row[rows[keep]], cols[keep], values[keep]
    n_rows = int(keep_rows.sum())
    if integral:
        exact_cols = np.zeros(table.shape[1], dtype=object)
        np.add.at(exact_cols, cols, values.astype(object))
        col_sums: NDArray[Any] = exact_cols.astype(np.int64)
        n: float | int = int(sum(row_sums[keep_rows].tolist()))
    else:
        col_sums = np.bincount(cols, weights=values, minlength=table.shape[1])
        n = math.fsum(row_sums[keep_rows].tolist())
    # Columns left empty leave too.
    keep_cols = col_sums > 0
    new_col = np.cumsum(keep_cols) - 1
    ratios = [Fraction(f) for f in factors]
    squares = np.asarray(
        [
            s * (f if f.denominator == 1 else f * f)
            for s, f, kept in zip(base_squares, ratios, keep_rows.tolist(), strict=True)
            if kept
        ],
        dtype=object,
    )
    shape = (n_rows, int(keep_cols.sum()))
    out = WeightedTable(
        shape,
        (rows, new_col[cols], values),
        (row_sums[keep_rows], col_sums[keep_cols], n),
        (table.row_keys()[keep_rows], table.col_keys()[keep_cols]),
        None,
        None if integral else squares,
    )
    if not integral:
        # The factors over one common denominator: each scaled cell an exact integer.
        denominator = math.lcm(*(f.denominator for f in ratios))
        numerators = [int(f * denominator) for f in ratios]
        scaled = [
            x * numerators[r] for x, r in zip(exact_cells, table.cells()[0].tolist(), strict=True)
        ]
        kept = np.asarray(scaled, dtype=object)[keep]
        out._pairs = _exact_pair_sums(shape, rows, new_col[cols], kept, unit * denominator)
    out.row_factors = np.asarray(factors, dtype=object)[keep_rows]
    return out


def _exact_cells(table: _native.Table | WeightedTable) -> tuple[list[int], int, list[int]]:
    """A table's cells as exact integers in units of ``1 / unit``, and each row's sum of its
    samples' squares in units of ``2**-128``."""
    _, _, counts = table.cells()
    if isinstance(table, WeightedTable) and not table.integral:
        units, squares = table.units, table.row_squares
        if units is None or squares is None:
            raise RuntimeError("a table scaled by class weights is scaled once")
        return units.tolist(), UNIT, squares.tolist()
    return counts.tolist(), 1, [int(s) * SQUARE for s in table.row_sums().tolist()]


def pairs(table: _native.Table | WeightedTable) -> tuple[Any, Any, Any, Any]:
    """(N, P, Q, T): the unordered pairs of distinct samples, those within a class, within a
    cluster and within both, as exact integers. Weighted samples: sums of ``w(x) w(y)`` over
    the pairs, a whole weight ``k`` standing for ``k`` samples of weight 1 (exact Fractions:
    ``(c**2 - s) / 2`` for a cell, class, cluster or total ``c`` whose samples' squares sum
    to ``s``). A table of every cut of a dendrogram gives arrays of exact integers, which
    take the integers' path."""
    n, cells_sq, rows_sq, cols_sq = table.pair_sums()
    if not isinstance(table, WeightedTable) or all(
        isinstance(x, int) for x in (n, cells_sq, rows_sq, cols_sq)
    ):
        return n * (n - 1) // 2, (rows_sq - n) // 2, (cols_sq - n) // 2, (cells_sq - n) // 2
    s = table.square_sum()
    return (n * n - s) / 2, (rows_sq - s) / 2, (cols_sq - s) / 2, (cells_sq - s) / 2


AnyTable = _native.Table | WeightedTable
"""A counted table: of counts (the core's), or of weighted samples whose cells are not all
whole numbers."""
