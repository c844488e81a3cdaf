"""``--soft``: soft and overlapping labelings of one file's columns (``_soft/``).

``--truth`` and each ``--pred`` name one labeling: a pattern (``'prob_*'``) the columns of a
membership matrix, in the file's order; a name one column, of labels (one-hot rows) or, in
Parquet and Arrow files, of label lists (a cover: each sample's set of labels). Two matrices
or label columns give the Frobenius Rand and adjusted Rand indices; a pair with a cover gives
Omega, overlapping NMI (MGH and LFK) and extended BCubed. The columns asked for are read once,
whole (the cover measures group all the samples at once).
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._io.columns import missing_at
from .._measures.catalogue import COVERS, MEMBERSHIPS, of_kind
from .._soft.covers import groups as cover_groups
from .._soft.frobenius import sums as frobenius_sums
from .console import CliError, format_table
from .plan import (
    _find,
    _frame,
    _show_progress,
    _weights_of,
    first_line,
    open_source,
    weights_column,
)

__all__ = ["MEASURES", "score_soft"]

MEASURES = {row.name: row.label for row in (*of_kind(MEMBERSHIPS), *of_kind(COVERS))}
"""The measures ``--soft`` prints, by full name, with their short names (table headers): the
catalogue's measures of membership matrices and of covers."""

_REFUSED = (
    ("metrics", "--metrics"),
    ("plot", "--plot"),
    ("clustree", "--clustree"),
    ("per_sample", "--per-sample"),
)


@dataclass(frozen=True)
class Side:
    """One labeling: its option's text and the columns it names (a matrix: a pattern)."""

    spec: str
    columns: list[str]
    matrix: bool


def _side(file: Any, spec: str, what: str) -> Side:
    return Side(spec, _find(file, spec, what), any(ch in spec for ch in "*?["))


def _check(args: Any) -> None:
    for attr, flag in _REFUSED:
        if getattr(args, attr):
            raise CliError(f"{flag} does not apply to --soft", 2)
    if len(args.files) != 1:
        raise CliError("--soft reads one file", 2)
    if args.missing == "cluster":
        raise CliError("--soft takes --missing raise or drop: a missing membership is no label", 2)


def _is_cover(values: Any) -> bool:
    """Whether a column holds label lists (Parquet and Arrow list columns)."""
    if values.dtype != object:
        return False
    present = values.dropna()
    return bool(len(present)) and isinstance(present.iloc[0], (list, tuple, set, np.ndarray))


def _rows_kept(frame: Any, columns: list[str], name: str, missing: str) -> Any:
    """The rows without a missing value in ``columns`` (``--missing drop``), or the error that
    names the first column with one (``raise``)."""
    if missing == "drop":
        return frame[~frame[columns].isna().any(axis=1)]
    for column in columns:
        at = missing_at(frame[column])
        if at is not None:
            raise CliError(
                f"{name}: column {column!r} has missing values (the first in data row"
                f" {at + 1:,}); pass --missing drop to leave those rows out"
            )
    return frame


def _values(frame: Any, side: Side) -> Any:
    if side.matrix:
        return frame[side.columns].to_numpy()
    return frame[side.columns[0]]


def _scores(file: str, frame: Any, truth: Side, pred: Side, weights: Any) -> dict[str, float]:
    a, b = _values(frame, truth), _values(frame, pred)
    names = (f"--truth {truth.spec}", f"--pred {pred.spec}")
    covers = any(not s.matrix and _is_cover(v) for s, v in ((truth, a), (pred, b)))
    try:
        if covers:
            if weights is not None:
                raise CliError("--weights applies to membership matrices; covers take none", 2)
            g = cover_groups(file, a, b)
            return {row.name: row.kernel(g, **row.options) for row in of_kind(COVERS)}
        found = frobenius_sums(file, a, b, weights, names=names)
    except (ValueError, TypeError) as e:
        raise CliError(f"scoring {pred.spec!r} against {truth.spec!r}: {first_line(e)}") from e
    return {row.name: row.kernel(found) for row in of_kind(MEMBERSHIPS)}


def score_soft(args: Any) -> str:
    """The text ``--soft`` prints: each prediction's measures against the truth."""
    _check(args)
    file = open_source(args.files[0], args.input_format, args.sep, args.encoding)
    truth = _side(file, args.truth, "truth")
    preds = [_side(file, spec, "pred") for spec in args.pred]
    weights = weights_column(file, args.weights)
    wanted = [*truth.columns, *(c for p in preds for c in p.columns)]
    frame = _frame(
        file,
        [*wanted, *([weights] if weights else [])],
        args.chunk_rows,
        _show_progress(args),
        lists=True,
    )
    results: list[tuple[float, dict[str, float]]] = []
    for pred in preds:
        rows = _rows_kept(
            frame, list(dict.fromkeys([*truth.columns, *pred.columns])), file.name, args.missing
        )
        if not len(rows):
            raise CliError(
                f"no samples to compare {pred.spec!r} with {truth.spec!r} (every row has a"
                " missing value)"
            )
        w = (
            None
            if weights is None
            else np.asarray(_weights_of(file, rows, weights), dtype=np.float64)
        )
        results.append(
            (
                float(len(rows)) if w is None else float(w.sum()),
                _scores(file.name, rows, truth, pred, w),
            )
        )
    return _render(args, file.name, truth, preds, results)


def _render(
    args: Any,
    name: str,
    truth: Side,
    preds: list[Side],
    results: list[tuple[float, dict[str, float]]],
) -> str:
    measures = [m for m in MEASURES if any(m in s for _, s in results)]
    if args.format == "json":
        doc = {
            "truth": truth.spec,
            "truth_columns": truth.columns,
            "files": [name],
            "missing": args.missing,
            "predictions": {
                p.spec: {"columns": p.columns, "n": _count(n), "scores": s}
                for p, (n, s) in zip(preds, results, strict=True)
            },
        }
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    if args.format == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["prediction", "n", *measures])
        for p, (n, s) in zip(preds, results, strict=True):
            writer.writerow([p.spec, _count(n), *(repr(s[m]) if m in s else "" for m in measures)])
        return buffer.getvalue()
    counts = [f"{_count(n):,}" if float(n).is_integer() else f"{n:,.1f}" for n, _ in results]
    cells = [[_number(s.get(m)) for m in measures] for _, s in results]
    heads = ["n", *(MEASURES[m] for m in measures)]
    names = [p.spec for p in preds]
    if args.transpose:
        rows = [
            (h, [counts[i] if j == 0 else cells[i][j - 1] for i in range(len(preds))])
            for j, h in enumerate(heads)
        ]
        body = format_table("metric", names, rows)
    else:
        body = format_table(
            "prediction", heads, [(p, [counts[i], *cells[i]]) for i, p in enumerate(names)]
        )
    what = f"{len(truth.columns)} columns of {name}" if truth.matrix else name
    return f"truth: {truth.spec} ({what})\n\n{body}\n"


def _count(n: float) -> int | float:
    return int(n) if float(n).is_integer() else n


def _number(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.4f}" if math.isfinite(value) else str(value)
