"""The catalogue shown to users: :func:`~fastcluster_metrics.measures` (every measure as a
DataFrame, with the works each is from) and the README's Markdown table."""

from __future__ import annotations

import re
import sys
from typing import Any

from .catalogue import CATALOGUE, MEASURES, Measure, of_kind

__all__ = [
    "markdown_table",
    "measures",
]

_CITATION = re.compile(r"\[([A-Za-z]+[0-9]+[a-z]?)\]_")

_cache: dict[str, Any] = {}
"""The references of the measures page, read from it when first asked for."""


def _bibliography() -> dict[str, str]:
    """The references of the measures' docstrings: ``.. [KEY] text`` in the package's
    measures page (``_measures/__init__.py``), by key."""
    if "bibliography" not in _cache:
        from . import __doc__ as page

        found: dict[str, str] = {}
        key = ""
        for line in (page or "").splitlines():
            m = re.match(r"\.\. \[(\w+)\] (.*)", line)
            if m:
                key = m.group(1)
                found[key] = m.group(2).strip()
            elif key and line.startswith("   ") and line.strip():
                found[key] += " " + line.strip()
            else:
                key = ""
        _cache["bibliography"] = found
    known: dict[str, str] = _cache["bibliography"]
    return known


def reference(row: Measure) -> str:
    """The works a measure's docstrings cite (its kernel's and its function's), as the
    measures page lists them; empty where they cite none."""
    # the package is imported by now (its measures() is the caller); named, not imported here
    package = sys.modules[__name__.split(".")[0]]
    texts = [row.kernel.__doc__ or ""]
    if row.function_name is not None:
        texts.append(getattr(getattr(package, row.function_name, None), "__doc__", None) or "")
    keys = dict.fromkeys(k for t in texts for k in _CITATION.findall(t))
    known = _bibliography()
    return "; ".join(known[k] for k in keys if k in known)


def measures(kind: str | None = None) -> Any:
    """Every public measure of the library, as a :class:`pandas.DataFrame` indexed by full
    name: its short names, what it reads (``kind``), its family, its range (or its unit where
    it is unbounded), which direction is better, whether it is adjusted for chance and
    symmetric, the public function computing it (with fixed options) and the works it is
    from. ``kind=`` keeps one kind: ``"table"`` (two hard labelings, the measures of
    :func:`evaluate`), ``"memberships"``, ``"covers"``, ``"embedding"`` or ``"graph"``.

    Needs pandas (``pip install 'fastcluster-metrics[pandas]'``).

    >>> import fastcluster_metrics as fcm
    >>> table = fcm.measures()
    >>> table.loc["adjusted_rand_score", ["short_names", "kind", "range", "better"]].tolist()
    [('ARI',), 'table', (-1.0, 1.0), 'higher']
    >>> fcm.measures("covers").index.tolist()[:2]
    ['omega_index', 'overlapping_normalized_mutual_info_score']
    """
    try:
        import pandas as pd
    except ImportError as e:  # pragma: no cover - the tests install pandas
        raise ImportError(
            "measures() returns a pandas DataFrame: pip install 'fastcluster-metrics[pandas]'"
        ) from e
    rows = list(CATALOGUE.values()) if kind is None else of_kind(kind)
    frame = pd.DataFrame(
        {
            "short_names": [row.short for row in rows],
            "kind": [row.kind for row in rows],
            "family": [row.family for row in rows],
            "range": [row.range for row in rows],
            "unit": [row.unit for row in rows],
            "better": ["higher" if row.greater_is_better else "lower" for row in rows],
            "adjusted": [row.adjusted for row in rows],
            "symmetric": [row.symmetric for row in rows],
            "function": [row.function_name for row in rows],
            "options": [dict(row.options) for row in rows],
            "reference": [reference(row) for row in rows],
        },
        index=pd.Index([row.name for row in rows], name="name"),
    )
    return frame


def markdown_table() -> str:
    """The catalogue as the Markdown table of README.md (between its ``measures`` markers)."""

    lines = [
        "| measure | short names | family | symmetric | range | better | adjusted for chance |",
        "|---|---|---|:-:|---|:-:|:-:|",
    ]
    for row in MEASURES.values():
        name = f"`{row.name}`"
        if row.options:
            options = ", ".join(f"{k}={v!r}" for k, v in row.options.items())
            name += f" (`{row.function_name}`, {options})"
        elif row.function_name is None:
            name += " (`Contingency` method)"
        lo_hi = row.range
        span = f"[{lo_hi[0]:g}, {lo_hi[1]:g}]" if lo_hi is not None else row.unit
        lines.append(
            f"| {name} | {', '.join(row.short)} | {row.family} |"
            f" {'yes' if row.symmetric else ''} | {span} |"
            f" {'higher' if row.greater_is_better else 'lower'} | {'yes' if row.adjusted else ''} |"
        )
    return "\n".join(lines) + "\n"
