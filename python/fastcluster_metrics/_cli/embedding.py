"""The scores of an AnnData file's embedding and neighbour graph on the command line
(``--embedding KEY``, ``--graph KEY``, ``--batch COL``, ``--silhouette``): read by
``_io/anndata_arrays.py``, scored by the library's functions, and the rows and fields they
add to each output format (``render.py`` calls :func:`json_fields`, :func:`csv_fields` and
:func:`table_parts`)."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._measures.catalogue import EMBEDDING, GRAPH, of_kind
from .console import PROG, CliError, format_table
from .plan import NA_LABEL, Plan, _find, _frame, _show_progress, first_line, open_source

__all__ = [
    "EXACT_NOTE_CELLS",
    "ArrayScores",
    "check_array_options",
    "csv_fields",
    "json_fields",
    "score_arrays",
    "table_parts",
    "wants_arrays",
]

EXACT_NOTE_CELLS = 200_000
"""Above this many cells, an exact silhouette (n² d multiply-adds) is announced on stderr
before it starts, naming ``--silhouette approximate``."""

EMBEDDING_SCORES = tuple(row.name for row in of_kind(EMBEDDING) if row.in_scib)
"""scIB's scores of the embedding (with ``--batch``), as scib-metrics names them."""

GRAPH_SCORES = tuple(row.name for row in of_kind(GRAPH) if row.in_scib)
"""scIB's scores of the neighbour graph (``ilisi_knn`` and ``kbet`` with ``--batch`` only)."""


@dataclass
class ArrayScores:
    """What ``--embedding`` and ``--graph`` add: each prediction's silhouette in the
    embedding, and scIB's scores of the truth (cell types) and batches."""

    truth: str
    embedding: str | None
    graph: str | None
    batch: str | None
    method: str
    silhouettes: dict[str, float] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)


def wants_arrays(args: Any) -> bool:
    return bool(args.embedding or args.graph)


def check_array_options(args: Any) -> None:
    """Usage errors (status 2) of ``--embedding``, ``--graph``, ``--batch`` and
    ``--silhouette``, before anything is read."""
    given = [
        flag
        for flag, value in (
            ("--embedding", args.embedding),
            ("--graph", args.graph),
            ("--batch", args.batch),
            ("--silhouette", args.silhouette),
        )
        if value is not None
    ]
    if not given:
        return
    flags, s = " and ".join(given), "s" if len(given) == 1 else ""
    if not wants_arrays(args):
        raise CliError(f"{flags} need{s} --embedding KEY or --graph KEY", 2)
    if args.silhouette is not None and not args.embedding:
        raise CliError("--silhouette chooses how --embedding's silhouettes are computed", 2)
    if args.soft:
        raise CliError(f"{flags} score{s} hard labels; not with --soft", 2)
    if len(args.files) != 1:
        raise CliError(f"{flags} read{s} one AnnData file; give one file", 2)
    source = open_source(args.files[0], args.input_format, args.sep, args.encoding)
    if source.kind not in ("h5ad", "zarr"):
        raise CliError(
            f"{flags} read{s} the obsm and obsp of an AnnData file (.h5ad, .zarr);"
            f" {source.name} is {source.kind}",
            2,
        )


def _read(source: Any, slot: str, key: str) -> Any:
    from .._io import anndata_arrays as arrays
    from .._io.anndata_errors import AnnDataError

    read = arrays.read_obsm if slot == "obsm" else arrays.read_obsp
    try:
        return read(source.path, source.kind, key)
    except AnnDataError as e:  # (UnsafeElementError too: it tells what it refused)
        raise CliError(f"{source.name}: {e}") from e
    except ImportError as e:
        raise CliError(str(e)) from e


def _labels(values: Any, missing: str) -> Any:
    """Labels with missing ones as :data:`NA_LABEL` (``--missing cluster``)."""
    absent = values.isna().to_numpy()
    if missing != "cluster" or not absent.any():
        return values
    return np.where(absent, NA_LABEL, values.astype(str).to_numpy()).astype(object)


def _note_exact(n: int, d: int, preds: int, method: str, batch: bool) -> None:
    if n <= EXACT_NOTE_CELLS:
        return
    exact = (preds if method == "exact" else 0) + (2 if batch else 0)
    if not exact:
        return
    what = []
    if method == "exact":
        what.append(f"{preds} prediction{'s' if preds != 1 else ''}")
    if batch:
        what.append("scIB's silhouette_label and bras")
    hint = (
        "; --silhouette approximate scores the predictions in O(n·k·d)" if method == "exact" else ""
    )
    print(
        f"{PROG}: note: exact silhouettes of {n:,} cells in {d} dimensions: about"
        f" {float(n) * n * d * exact:.1e} multiply-adds (n²·d each, for {' and '.join(what)})"
        + hint,
        file=sys.stderr,
    )


def _scored(name: str, func: Any, *values: Any) -> float:
    try:
        return float(func(*values))
    except (ValueError, TypeError) as e:
        raise CliError(f"{name}: {first_line(e)}") from e


def score_arrays(args: Any, work: Plan) -> ArrayScores:
    """Each prediction's silhouette in ``obsm[--embedding]`` and scIB's scores of
    ``--truth`` (and ``--batch``) in it and in ``obsp[--graph]``."""
    import fastcluster_metrics as fcm

    source = work.sources[0]
    batch = None
    if args.batch is not None:
        found = _find(source, args.batch, "batch")
        if len(found) != 1:
            raise CliError(f"--batch {args.batch} names {len(found)} columns; give one", 2)
        batch = found[0]
    method = args.silhouette or "exact"
    out = ArrayScores(work.truth, args.embedding, args.graph, batch, method)
    x = _read(source, "obsm", args.embedding) if args.embedding else None
    graph = _read(source, "obsp", args.graph) if args.graph else None
    columns = [work.truth, *work.preds] + ([] if batch is None else [batch])
    frame = _frame(source, columns, args.chunk_rows, _show_progress(args))
    if x is not None:
        _note_exact(len(x), x.shape[1], len(work.preds), method, batch is not None)
        silhouette = fcm.silhouette_score if method == "exact" else fcm.approximate_silhouette_score
        for name in work.preds:
            try:
                value = float(silhouette(x, frame[name], missing=args.missing))
            except ValueError as e:
                print(f"{PROG}: note: no silhouette of {name!r}: {first_line(e)}", file=sys.stderr)
                value = math.nan
            out.silhouettes[name] = value
    truth = frame[work.truth]
    present = truth.notna().to_numpy()
    batches = None
    if batch is not None:
        absent = frame[batch].isna().to_numpy()
        if absent.any() and args.missing == "raise":
            raise CliError(
                f"{source.name}: batch column {batch!r} has {int(absent.sum()):,} missing values"
                f" (the first in row {int(absent.argmax()) + 1:,}); pass --missing drop or"
                " cluster"
            )
        present &= ~absent
        batches = _labels(frame[batch], args.missing)
    cell_types = _labels(truth, args.missing)
    if args.missing == "drop" and not present.all():
        keep = np.flatnonzero(present)
        cell_types = np.asarray(cell_types)[keep]
        batches = None if batches is None else np.asarray(batches)[keep]
        x = None if x is None else x[keep]
        graph = None if graph is None else graph[keep][:, keep]
    if x is not None and batches is not None:
        out.scores["silhouette_label"] = _scored(
            "silhouette_label", fcm.silhouette_label, x, cell_types
        )
        for name in EMBEDDING_SCORES[1:]:
            out.scores[name] = _scored(name, getattr(fcm, name), x, cell_types, batches)
    if graph is not None:
        if batches is not None:
            out.scores["ilisi_knn"] = _scored("ilisi_knn", fcm.ilisi_knn, graph, batches)
        out.scores["clisi_knn"] = _scored("clisi_knn", fcm.clisi_knn, graph, cell_types)
        if batches is not None:
            out.scores["kbet"] = _scored("kbet", lambda g, b: fcm.kbet(g, b)[0], graph, batches)
        out.scores["graph_connectivity"] = _scored(
            "graph_connectivity", fcm.graph_connectivity, graph, cell_types
        )
    return out


def _value(v: float) -> float | None:
    return None if math.isnan(v) else v


def json_fields(doc: dict[str, Any], arrays: ArrayScores) -> None:
    """Adds to the JSON document: each prediction's ``silhouette``, and ``embedding``,
    ``graph`` (their keys) and ``batch``, and ``scib`` (scIB's scores)."""
    for name, value in arrays.silhouettes.items():
        doc["predictions"][name]["silhouette"] = _value(value)
    if arrays.embedding is not None:
        doc["embedding"] = {"obsm": arrays.embedding, "silhouette": arrays.method}
    if arrays.graph is not None:
        doc["graph"] = {"obsp": arrays.graph}
    doc["batch"] = arrays.batch
    doc["scib"] = {name: _value(v) for name, v in arrays.scores.items()}


def csv_fields(arrays: ArrayScores) -> tuple[list[str], dict[str, list[str]]]:
    """The columns the CSV output gains: ``silhouette`` (each prediction's), then scIB's
    scores (the same on every row), and their values by prediction."""
    names = (["silhouette"] if arrays.embedding is not None else []) + list(arrays.scores)
    common = [repr(v) for v in arrays.scores.values()]
    values = {p: [repr(v), *common] for p, v in arrays.silhouettes.items()}
    return names, values


def table_parts(arrays: ArrayScores, width: int) -> tuple[list[float] | None, str]:
    """The silhouettes of the predictions (a column of the table; None without
    ``--embedding``), and the table of scIB's scores to print under it ("" if none)."""
    silhouettes = list(arrays.silhouettes.values()) if arrays.embedding is not None else None
    if not arrays.scores:
        return silhouettes, ""
    where = [f"obsm[{arrays.embedding!r}]"] if arrays.embedding else []
    where += [f"obsp[{arrays.graph!r}]"] if arrays.graph else []
    title = f"scIB scores of {' and '.join(where)} (cell types: {arrays.truth}" + (
        f", batches: {arrays.batch})" if arrays.batch else ")"
    )
    rows = [(name, [_number(v)]) for name, v in arrays.scores.items()]
    return silhouettes, f"{title}\n\n{format_table('score', ['value'], rows, width)}\n"


def _number(v: float) -> str:
    return format(v, ".4f") if math.isfinite(v) else str(v)
