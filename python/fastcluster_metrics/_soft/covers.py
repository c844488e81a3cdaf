"""Measures of two covers (overlapping clusterings, multi-label annotations): the Omega index
(``omega.py``), overlapping NMI, LFK and MGH (``onmi.py``), and extended BCubed
(``bcubed.py``), from the distinct groups of samples and the counts of the subsets of their
labels (``cover_groups.py``), never from all pairs of samples.

Here: the public functions gathered, and the catalogue's kernels of covers, every measure from
one grouping, what several measures share made once per grouping.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .bcubed import _bcubed, extended_bcubed_precision_recall_f
from .cover_groups import Groups, groups
from .omega import _omega, omega_index
from .onmi import intersections, onmi, overlapping_normalized_mutual_info_score

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
