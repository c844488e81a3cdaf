"""What every family of measures reads of a :class:`Contingency`, and the exact arithmetic they
share (the conventions are in the package's docstring, ``_measures/__init__.py``)."""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Real
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._table.weighted import WeightedTable
from .._utils.params import _fail, scipy_module
from .diagnostics import Diagnostics

if TYPE_CHECKING:
    from .._table.weighted import AnyTable

__all__ = ["TableMeasures"]

_NAN = float("nan")

_RMI_VARIANTS = ("dirichlet", "flat")
_RMI_NORMALIZATIONS = ("second", "first", "mean", "min", "max", "geometric", "none")


_SMI_MAX_N = 2**33
"""The most samples :meth:`Contingency.standardized_mutual_info_score` takes (hours, gigabytes)."""


def _ratio(num: float | Fraction, den: float | Fraction, degenerate: float) -> float:
    """``num / den`` rounded once, or ``degenerate`` when ``den`` is zero."""
    if den == 0:
        return degenerate
    return float(Fraction(num) / Fraction(den))


def _correlation(num: int, den_squared: int) -> float:
    """``num / sqrt(den_squared)`` (nan when ``den_squared`` is zero), clipped to [-1, 1]."""
    if den_squared == 0:
        return _NAN
    r = math.sqrt(float(Fraction(num * num, den_squared)))
    return math.copysign(min(r, 1.0), num) if num else 0.0


def _log_factor(func: str, base: object) -> float:
    """``1 / ln(base)``: the factor turning nats into units of ``base``."""
    if (
        not isinstance(base, Real)
        or isinstance(base, bool)
        or not 0 < float(base) < math.inf
        or float(base) == 1
    ):
        raise _fail("base", func, "a float in the range (0.0, inf) other than 1.0", base)
    return 1.0 / math.log(float(base))


def _exact_sum_of_products(*factors: NDArray[Any]) -> int | Fraction:
    """``sum_k prod_f factors[f][k]`` as an exact Python integer (int64 when it cannot overflow);
    for real factors (weights), their products' correctly rounded sum, as a Fraction."""
    if factors[0].size == 0:
        return 0
    if any(f.dtype.kind == "f" for f in factors):
        product_f = np.ones(factors[0].size)
        for f in factors:
            product_f = product_f * f
        return Fraction(math.fsum(product_f.tolist()))
    bound = factors[0].size
    for f in factors:
        bound *= int(f.max())
    if bound < 2**63:
        product = factors[0].copy()
        for f in factors[1:]:
            product *= f
        return int(product.sum())
    product_obj = factors[0].astype(object)
    for f in factors[1:]:
        product_obj = product_obj * f.astype(object)
    return int(product_obj.sum())


def _signed_sqrt_ratio(num: int, den: int) -> float:
    """``num / sqrt(den)`` for integers, rounded from the exact square ``num^2 / den``."""
    if den == 0:
        return _NAN
    return math.copysign(math.sqrt(float(Fraction(num * num, den))), num) if num else 0.0


def _plain(x: int | Fraction) -> int | float:
    """An exact count as a user gets it: an integer, or (from real cells) the nearest float."""
    return x if isinstance(x, int) else float(x)


def _total(values: NDArray[Any]) -> int | float:
    """The exact sum of integer values, or the correctly rounded sum of real ones."""
    if values.dtype.kind == "f":
        return math.fsum(values.tolist())
    return sum(int(x) for x in values.tolist())


def _linear_sum_assignment() -> Any:
    return scipy_module("optimize", "set-matching measures").linear_sum_assignment


class TableMeasures(Diagnostics):
    """The base of the measure families: what they read of the table."""

    __slots__ = ()

    if TYPE_CHECKING:

        @property
        def _cells(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]: ...

        _native_table: AnyTable

        @property
        def n(self) -> int: ...
        @property
        def class_sizes(self) -> NDArray[np.int64]: ...
        @property
        def cluster_sizes(self) -> NDArray[np.int64]: ...
        def to_numpy(self) -> NDArray[np.int64]: ...
        def mutual_info_score(self) -> float: ...
        def entropy_true(self) -> float: ...
        def entropy_pred(self) -> float: ...

    def _counts_only(
        self,
        func: str,
        counts: str = "couples of distinct sample pairs (or quadruples of samples)",
    ) -> None:
        """``ValueError`` on a table of weighted samples that are not all whole numbers, for a
        measure that ``counts`` what only whole numbers of samples make."""
        table = self._native_table
        if isinstance(table, WeightedTable) and not table.integral:
            raise ValueError(
                f"{func} is defined for counts only: it counts {counts}, which weights that are"
                " not whole numbers do not define. Use whole-number sample_weight and"
                " class_weight (each sample then counts that many times)"
            )
