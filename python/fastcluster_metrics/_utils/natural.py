"""Labels in natural order: the numbers in a label read as numbers, so ``celltype_2`` comes
before ``celltype_10`` and the text ``"2"`` before ``"10"``. The reports, the heatmaps, the
clustering tree and the command line's figure all sort labels by it.

>>> natural_sorted(["celltype_10", "celltype_2", "celltype_1", "B", "a"])
['a', 'B', 'celltype_1', 'celltype_2', 'celltype_10']
>>> natural_sorted(["10", "-1", "2.5", "2"])
['-1', '2', '2.5', '10']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["natural_key", "natural_order", "natural_sorted"]

_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")

Key = tuple[tuple[int, float, str, str], ...]


def natural_key(label: Any) -> Key:
    """The sort key of a label: its text cut into numbers (compared as numbers) and words
    (compared ignoring case, then as written). None (a missing label) sorts last."""
    if label is None:
        return ((2, 0.0, "", ""),)
    text = str(label)
    parts = []
    for i, part in enumerate(_NUMBER.split(text)):
        if i % 2:
            parts.append((0, float(part), "", ""))
        elif part:
            parts.append((1, 0.0, part.casefold(), part))
    return tuple(parts)


def natural_order(labels: NDArray[Any]) -> NDArray[np.intp]:
    """The order (indices) that sorts ``labels`` naturally. Arrays of numbers keep the
    numeric order (their own); text labels that are all numbers (``"-1"``, ``"2.5"``) sort as
    numbers; other labels by :func:`natural_key`. Stable."""
    labels = np.asarray(labels)
    if labels.dtype.kind in "biuf" or labels.size < 2:
        order: NDArray[np.intp] = np.argsort(labels, kind="stable")
        return order
    values = labels.tolist()
    try:
        numbers = [float(x) for x in values]
    except (TypeError, ValueError):
        keys = [natural_key(x) for x in values]
        return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)
    order = np.argsort(np.array(numbers), kind="stable")
    return order


def natural_sorted(labels: Iterable[Any]) -> list[Any]:
    """The labels as a list in natural order."""
    values = list(labels)
    return [values[i] for i in natural_order(np.array(values, dtype=object))]
