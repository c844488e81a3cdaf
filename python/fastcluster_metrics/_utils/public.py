"""The public name of a class defined in a private module.

A class pickles by the module its ``__module__`` names. The public classes name the package
itself (``fastcluster_metrics.Contingency``), as NumPy's ``set_module`` does, so that a pickle
does not depend on which private module defines the class, and help() and reprs show the name
users import.
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["PACKAGE", "public"]

PACKAGE = "fastcluster_metrics"

T = TypeVar("T")


def public(obj: T) -> T:
    """Names ``obj`` (a class or function) as an attribute of the package."""
    obj.__module__ = PACKAGE
    return obj
