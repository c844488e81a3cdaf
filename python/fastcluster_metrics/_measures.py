"""Measures beyond scikit-learn's, each a method of :class:`Contingency` (through this mixin)."""

from __future__ import annotations

__all__ = ["Measures"]


class Measures:
    """The catalogue of external measures, computed from the table alone."""

    __slots__ = ()
