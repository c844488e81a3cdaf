"""The catalogue's names looked up: a full or short name, in any case, to its row (with the
closest names suggested when it is no measure's), the defaults, the display names, and a row
added for the duration of a test.

>>> from fastcluster_metrics._measures.lookup import resolve
>>> resolve("ARI", "evaluate").name, resolve("v-measure", "evaluate").label
('adjusted_rand_score', 'V-measure')
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from .._utils.params import InvalidParameterError
from .catalogue import CATALOGUE, KINDS, MEASURES, OTHERS, TABLE, Measure

__all__ = [
    "default_names",
    "label",
    "register",
    "resolve",
    "resolve_all",
]


def default_names() -> list[str]:
    """The measures :func:`evaluate` computes when none are named."""
    return [row.name for row in _defaults()]


def _key(name: str) -> str:
    """A name as it is looked up: case, spaces, hyphens, underscores and quotes ignored."""
    return re.sub(r"[^a-z0-9+|]", "", name.lower())


_cache: dict[str, Any] = {}
"""The lookup index and the default rows, made from :data:`MEASURES` when first asked for and
made again after :func:`register` changes it."""


def _index() -> dict[str, Measure]:
    """Every full and short name, as written and as looked up (:func:`_key`), to its row."""
    if "index" not in _cache:
        index: dict[str, Measure] = {}
        for row in MEASURES.values():
            for name in (row.name, *row.short):
                index.setdefault(_key(name), row)
        # the names as written too, found without normalising them
        index.update({name: row for row in MEASURES.values() for name in (row.name, *row.short)})
        _cache["index"] = index
    found: dict[str, Measure] = _cache["index"]
    return found


def _other_index() -> dict[str, Measure]:
    """The measures of the other kinds, by every name as looked up."""
    if "others" not in _cache:
        _cache["others"] = {_key(n): row for row in OTHERS.values() for n in (row.name, *row.short)}
    found: dict[str, Measure] = _cache["others"]
    return found


def _defaults() -> list[Measure]:
    if "defaults" not in _cache:
        _cache["defaults"] = [row for row in MEASURES.values() if row.default]
    found: list[Measure] = _cache["defaults"]
    return found


def _spelled(row: Measure) -> str:
    return f"{row.name!r} ({row.label})" if row.short else repr(row.name)


def resolve(name: object, func: str, param: str = "metrics") -> Measure:
    """The row of a full or short name, in any case; an unknown name raises
    :class:`InvalidParameterError` that suggests the closest names."""
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"The {param!r} parameter of {func} must be a measure name (str); got {name!r}"
        )
    index = _index()
    found = index.get(name) or index.get(_key(name))
    if found is not None:
        return found
    other = _other_index().get(_key(name))
    if other is not None:
        call = other.function_name or other.name
        options = "".join(f", {k}={v!r}" for k, v in other.options.items())
        raise InvalidParameterError(
            f"{name!r} for {func} is a measure of {KINDS[other.kind]}, not of two labelings'"
            f" table; call fastcluster_metrics.{call}(...{options}) instead"
        )
    close = difflib.get_close_matches(_key(name), list(index), n=8, cutoff=0.6)
    rows = list({index[k].name: index[k] for k in reversed(close)}.values())[::-1][:3]
    if rows:
        hint = "did you mean " + " or ".join(_spelled(r) for r in rows) + "?"
    else:
        hint = (
            "no measure has a close name; give a full name or a short name such as 'ARI',"
            " 'AMI', 'NMI' or 'purity' (or 'all' for every measure)"
        )
    where = f"{func} ({param})" if param.startswith("-") else f"{func} ({param}=...)"
    raise InvalidParameterError(f"unknown metric {name!r} for {where}; {hint}")


def resolve_all(
    names: Iterable[str] | str | None, func: str, param: str = "metrics"
) -> list[Measure]:
    """The rows asked for: None gives the defaults, ``"all"`` every measure, a string one
    measure, an iterable each of its names (repeats kept once)."""
    if names is None:
        return list(_defaults())
    if isinstance(names, str):
        if _key(names) == "all":
            return list(MEASURES.values())
        names = [names]
    rows: dict[str, Measure] = {}
    for n in names:
        row = resolve(n, func, param)
        rows.setdefault(row.name, row)
    return list(rows.values())


def label(name: str) -> str:
    """The display name of a measure's full name (the name itself when it is no measure)."""
    row = _index().get(name)
    return row.label if row is not None and row.name == name else name


@contextmanager
def register(row: Measure) -> Iterator[Measure]:
    """Adds ``row`` to the catalogue for the duration of a ``with`` block (for tests)."""
    if row.name in CATALOGUE:
        raise ValueError(f"a measure named {row.name!r} is already in the catalogue")
    rows = MEASURES if row.kind == TABLE else OTHERS
    rows[row.name] = row
    CATALOGUE[row.name] = row
    _cache.clear()
    try:
        yield row
    finally:
        del rows[row.name]
        del CATALOGUE[row.name]
        _cache.clear()
