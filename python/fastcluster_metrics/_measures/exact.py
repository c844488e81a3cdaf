"""One formula on one table or on arrays of tables' sums: the primitives the kernels are written
in, and :class:`Ints`, arrays of exact integers.

A kernel written with these runs on a table's Python numbers (ints, Fractions, floats) as it
always did, and unchanged on arrays, one element per table: :func:`score_dendrogram` reads
every cut of a dendrogram at once from the sums the core keeps (``_many/dendrogram.py``), to
the last bit what each cut's kernel gives alone (``tests/test_dendrogram.py``,
``tests/test_exact.py``). Conditions
are written with ``&`` and ``|`` (on Python bools as on NumPy's), branches with
:func:`choose` (both sides are computed: a side must not raise where it is not chosen), and
:func:`ratio` rounds a quotient of exact integers once, as ``float(Fraction(num, den))``.

:class:`Ints` keeps pair counts, their products and sums exact without Python's integers:
each value an unevaluated sum ``hi + lo`` of two float64 (``hi`` the value rounded, ``lo``
the rest), exact while values stay below ``2**100`` and every product has factors below
``2**53`` (two_prod, two_sum); beyond that, an object array of Python ints. A quotient is
refined from ``hi / hi`` by its exact remainder and is the correctly rounded one wherever the
remainder is farther than ``2**-30`` of half a unit in the last place from a tie; the rare
others are divided as Python ints. The primitives are typed for one table (a float); on
arrays they give arrays. ARI of every cut of a 1e6-sample tree takes about 0.3 s so, and
1 s to 2.5 s with the same arithmetic on object arrays of Python ints (2 cores, shared).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "Ints",
    "all_of",
    "as_float",
    "choose",
    "copysign",
    "is_array",
    "maximum",
    "minimum",
    "quotient",
    "ratio",
    "sqrt",
]

T = TypeVar("T")

_SPLIT = 134217729.0  # 2**27 + 1: Dekker's split of a float64 into two halves
_LIMIT = 2.0**100
"""The largest magnitude kept as ``hi + lo``: sums of the parts' roundings stay exact."""
_EXACT = 2.0**53
"""Integers up to this magnitude are float64 exactly."""
_ZERO = np.float64(0.0)
"""The ``lo`` part of values that are float64 exactly."""
_MARGIN = 2.0**-30
"""A remainder this close (relative) to half a unit in the last place is divided exactly."""


def _two_sum(a: NDArray[np.float64], b: NDArray[np.float64]) -> tuple[NDArray[Any], NDArray[Any]]:
    """``s + e == a + b`` exactly, ``s`` the rounded sum (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: NDArray[np.float64]) -> tuple[NDArray[Any], NDArray[Any]]:
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


def _two_prod(a: NDArray[np.float64], b: NDArray[np.float64]) -> tuple[NDArray[Any], NDArray[Any]]:
    """``p + e == a * b`` exactly, ``p`` the rounded product (Dekker)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


class Ints:
    """An array of exact integers: ``hi + lo`` in float64 (``obj`` None), or Python ints."""

    __slots__ = ("hi", "lo", "obj")

    def __init__(self, hi: Any, lo: Any, obj: Any = None) -> None:
        self.hi = hi
        self.lo = lo
        self.obj = obj

    @classmethod
    def of(cls, values: Any) -> Ints:
        """Integers: an Ints, a Python int, or a NumPy array of integers."""
        if isinstance(values, Ints):
            return values
        if isinstance(values, int):
            if abs(values) < _LIMIT:
                top = float(values)
                return cls(np.float64(top), np.float64(values - int(top)))
            return cls(None, None, np.array(values, dtype=object))
        arr = np.asarray(values)
        if arr.dtype == object:
            return cls(None, None, arr)
        largest = max(int(arr.max(initial=0)), -int(arr.min(initial=0)))
        if largest >= 2**62:
            return cls(None, None, arr.astype(object))
        if largest <= _EXACT:
            return cls(arr.astype(np.float64), _ZERO)
        wide = arr.astype(np.int64)
        hi = wide.astype(np.float64)
        return cls(hi, (wide - hi.astype(np.int64)).astype(np.float64))

    def objects(self) -> Any:
        """The values as an object array of Python ints."""
        if self.obj is not None:
            return self.obj
        whole = np.frompyfunc(int, 1, 1)
        return whole(self.hi) + whole(self.lo)

    def _checked(self) -> Ints:
        """Itself, or as Python ints where some value passed :data:`_LIMIT`."""
        if self.hi is not None and _largest(self.hi) >= _LIMIT:
            return Ints(None, None, self.objects())
        return self

    def __add__(self, other: Any) -> Ints:
        b = Ints.of(other)
        if self.obj is not None or b.obj is not None:
            return Ints(None, None, self.objects() + b.objects())
        if _whole(self.lo, b.lo) and _largest(self.hi) + _largest(b.hi) < _EXACT:
            return Ints(self.hi + b.hi, _ZERO)  # exact
        s, e = _two_sum(self.hi, b.hi)
        # Integers below 2**48 each: their sum is exact.
        return Ints(*_two_sum(s, e + self.lo + b.lo))._checked()

    __radd__ = __add__

    def __neg__(self) -> Ints:
        if self.obj is not None:
            return Ints(None, None, -self.obj)
        return Ints(-self.hi, -self.lo)

    def __sub__(self, other: Any) -> Ints:
        return self + -Ints.of(other)

    def __rsub__(self, other: Any) -> Ints:
        return Ints.of(other) + -self

    def __mul__(self, other: Any) -> Ints:
        if isinstance(other, int) and other > 0 and not other & (other - 1) and other < _LIMIT:
            if self.obj is None:  # a power of two: both parts scale exactly
                return Ints(self.hi * other, self.lo * other)._checked()
        b = Ints.of(other)
        if self.obj is not None or b.obj is not None or not _whole(self.lo, b.lo):
            return Ints(None, None, self.objects() * b.objects())
        if _largest(self.hi) * _largest(b.hi) < _EXACT:
            return Ints(self.hi * b.hi, _ZERO)  # exact
        return Ints(*_two_prod(self.hi, b.hi))._checked()

    __rmul__ = __mul__

    def __floordiv__(self, other: int) -> Ints:
        """Division by a power of two (``//`` of Python ints: exact halving where even)."""
        if self.obj is not None or other <= 0 or other & (other - 1):
            return Ints(None, None, self.objects() // other)
        hi, lo = self.hi / other, self.lo / other
        if np.all(np.floor(lo) == lo) and np.all(np.floor(hi) == hi):
            return Ints(*_two_sum(hi, lo))
        return Ints(None, None, self.objects() // other)

    def sign(self) -> Any:
        """-1.0, 0.0 or 1.0 for each value."""
        if self.obj is not None:
            return np.sign(self.obj).astype(np.float64)
        return np.sign(self.hi)

    def _compare(self, other: Any) -> Any:
        return (self - other).sign()

    def __eq__(self, other: object) -> Any:
        return self._compare(other) == 0

    def __ne__(self, other: object) -> Any:
        return self._compare(other) != 0

    def __lt__(self, other: Any) -> Any:
        return self._compare(other) < 0

    def __le__(self, other: Any) -> Any:
        return self._compare(other) <= 0

    def __gt__(self, other: Any) -> Any:
        return self._compare(other) > 0

    def __ge__(self, other: Any) -> Any:
        return self._compare(other) >= 0

    __hash__ = None  # type: ignore[assignment]

    def __float__(self) -> float:
        raise TypeError("Ints is an array: as_float gives its values as floats")

    def floats(self) -> Any:
        """Each value rounded once to float64."""
        if self.obj is not None:
            return self.obj.astype(np.float64)
        return np.asarray(self.hi, dtype=np.float64)  # ``hi`` is the value rounded

    def __truediv__(self, other: Any) -> Any:
        """Each quotient rounded once (never zero divisors)."""
        num, den = self, Ints.of(other)
        if num.obj is not None or den.obj is not None:
            return np.asarray(num.objects() / den.objects(), dtype=np.float64)
        nh, nl, dh, dl = num.hi, num.lo, den.hi, den.lo
        if _whole(nl, dl) and max(_largest(nh), _largest(dh)) <= _EXACT:
            return nh / dh  # exact operands
        q = nh / dh
        q = q + _remainder(num, den, q) / dh
        r = _remainder(num, den, q)
        # The quotient is q + r / den: the gap to q's neighbour on that side, halved, is a tie.
        up = r * dh >= 0
        gap = np.where(up, np.nextafter(q, np.inf) - q, q - np.nextafter(q, -np.inf))
        tie = np.abs(gap * dh) / 2
        unsure = np.flatnonzero(np.abs(r) >= tie * (1 - _MARGIN))
        if unsure.size:
            num_u, den_u = (
                Ints(*(np.broadcast_to(x, q.shape)[unsure] for x in pair)).objects()
                for pair in ((nh, nl), (dh, dl))
            )
            q[unsure] = (num_u / den_u).astype(np.float64)
        return q


def _largest(x: Any) -> float:
    return float(np.abs(x).max(initial=0))


def _whole(*parts: Any) -> bool:
    """Whether every ``lo`` part is zero: the values are float64 exactly."""
    return all(p is _ZERO or not np.any(p) for p in parts)


def _remainder(num: Ints, den: Ints, q: NDArray[np.float64]) -> Any:
    """``num - q den``, to about ``2**-44`` of half a unit in the last place of ``q`` times
    ``den``: ``nh - q dh`` is exact (Sterbenz), the rest are small."""
    p, pe = _two_prod(q, den.hi)
    p2, pe2 = _two_prod(q, den.lo)
    return (num.hi - p) + (((num.lo - pe) - p2) - pe2)


def is_array(*values: Any) -> bool:
    """Whether any of the values is an array (of floats, bools or :class:`Ints`)."""
    return any(isinstance(v, (np.ndarray, Ints)) for v in values)


def ratio(num: Any, den: Any, degenerate: float) -> float:
    """``num / den`` rounded once, or ``degenerate`` where ``den`` is zero."""
    if not is_array(num, den):
        if den == 0:
            return degenerate
        return float(Fraction(num) / Fraction(den))
    zero = Ints.of(den) == 0
    safe = Ints.of(den) + zero.astype(np.int64)
    with np.errstate(all="ignore"):
        # + 0.0: a zero quotient is +0.0, as a Fraction's
        return cast(float, np.where(zero, degenerate, Ints.of(num) / safe + 0.0))


def quotient(num: Any, den: Any) -> float:
    """``num / den`` of floats; NaN where ``den`` is zero (a side :func:`choose` drops)."""
    if not is_array(num, den):
        return num / den if den else math.nan
    with np.errstate(all="ignore"):
        return cast(float, np.divide(num, den))


def choose(cond: Any, a: T, b: T) -> T:
    """``a if cond else b``, element by element on arrays."""
    if not is_array(cond, a, b):
        return a if cond else b
    x: Any = a
    y: Any = b
    return cast(T, np.where(cond, x, y))


def all_of(cond: Any) -> bool:
    """Whether ``cond`` holds (everywhere, on an array)."""
    return bool(np.all(cond))


def minimum(a: T, b: T) -> T:
    """Python's ``min(a, b)`` (the first of equals, NaN as it falls), element by element."""
    x: Any = a
    y: Any = b
    if not is_array(x, y):
        return cast(T, min(x, y))
    return cast(T, np.where(y < x, y, x))


def maximum(a: T, b: T) -> T:
    """Python's ``max(a, b)``, element by element."""
    x: Any = a
    y: Any = b
    if not is_array(x, y):
        return cast(T, max(x, y))
    return cast(T, np.where(y > x, y, x))


def sqrt(x: Any) -> float:
    if not is_array(x):
        return math.sqrt(x)
    with np.errstate(invalid="ignore"):
        return cast(float, np.sqrt(x))


def copysign(x: Any, sign: Any) -> float:
    """``x`` with the sign of ``sign`` (a number, or :class:`Ints`)."""
    if not is_array(x, sign):
        return math.copysign(x, sign)
    return cast(float, np.copysign(x, sign.sign() if isinstance(sign, Ints) else sign))


def as_float(x: Any) -> float:
    """A value as a float, or an array as float64."""
    if isinstance(x, Ints):
        return cast(float, x.floats())
    if isinstance(x, np.ndarray):
        return cast(float, x.astype(np.float64, copy=False))
    return float(x)
