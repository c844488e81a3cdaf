"""The command line: score label columns of CSV/TSV, Parquet, Arrow IPC or AnnData files.

``fastcluster-metrics FILE [FILE2] --truth COL --pred COL [--pred COL ...]`` prints the
measures of each predicted column against the true one; ``fastcluster-metrics`` alone (or
``fastcluster-metrics demo``) runs the built-in example of ``python -m fastcluster_metrics``.

Files are read by :mod:`._readers`, as :func:`read_contingency` reads them: CSV/TSV, Parquet
and Arrow IPC files in chunks (record batches), each chunk counted into a :class:`Contingency`,
and the tables merged by label value: memory is one chunk and the tables, whatever the length
of the file. Of an AnnData file (.h5ad, zarr), the ``obs`` columns asked for are read alone
(not ``X``). This module plans which
columns to read from which file (two files joined on an id column), scores, and renders.

Exit status: 0 on success, 1 for a problem with the data (a missing file or column, an
unreadable file, a length mismatch, missing labels), 2 for a usage error. Errors are one line
on stderr, ``fastcluster-metrics: error: ...``, an error nobody foresaw too (naming the files);
``--debug`` shows Python's traceback instead.
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import json
import math
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ._catalogue import MEASURES, default_names, label, resolve_all
from ._clustree import by_resolution
from ._console import CliError, Parser, format_table
from ._contingency import Contingency
from ._params import InvalidParameterError
from ._readers import (
    COMPRESSIONS,
    FORMAT_NAMES,
    FORMATS,
    ColumnTypeError,
    DataFile,
    FileError,
    FormatError,
    MissingLabelsError,
    Progress,
    check_complete,
    check_encoding,
    missing_at,
    open_file,
    read_again,
    weight_values,
)

__all__ = ["main", "resolve_metrics"]

PROG = "fastcluster-metrics"

NA_LABEL = "<NA>"
"""The label of missing values with ``--missing cluster`` in chunked files (CSV fields
``<NA>`` are read as missing, as pandas reads them, so no label of a CSV file can be it)."""

DEMO_OPTIONS = ("--out", "-n", "--k-max", "--no-sklearn", "--no-plots")
"""Options that start the built-in example without naming it (``python -m fastcluster_metrics
--out DIR``)."""
_PROGRESS_DELAY = 1.0
"""Seconds before the progress bar shows (on a terminal): short inputs never show one."""


# --- measures -----------------------------------------------------------------------------------


def resolve_metrics(specs: Sequence[str] | None) -> list[str]:
    """Measure names from ``--metrics`` (comma-separated; full or short names, any case, or
    ``all``): the catalogue's full names, the default ones when none are given."""
    words = [w.strip() for spec in specs or () for w in spec.split(",") if w.strip()]
    if not words:
        return default_names()
    chosen: list[str] = []
    for word in words:
        try:
            names = [m.name for m in resolve_all(word, PROG, "--metrics")]
        except InvalidParameterError as e:
            raise CliError(str(e), 2) from e
        chosen.extend(n for n in names if n not in chosen)
    return chosen


def _score(table: Contingency, name: str) -> float:
    return MEASURES[name](table)


# --- reading (the files themselves are read by _readers) ---------------------------------------


def _stderr_is_tty() -> bool:
    return sys.stderr.isatty()


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{text[0] if text else ''} ({type(error).__name__})".strip()


@contextmanager
def _reading(file: DataFile) -> Iterator[None]:
    """A problem reading a file as a one-line error: the readers' own messages (which name
    the file, and the column) as they are (options spelled as on the command line), any other
    as ``cannot read FILE as FORMAT: ...``."""
    try:
        yield
    except (CliError, ColumnTypeError):  # (a column read again as text, by the caller)
        raise
    except FileError as e:
        raise CliError(e.describe(cli=True)) from e
    except Exception as e:
        raise CliError(f"cannot read {file.name} as {file.kind}: {_first_line(e)}") from e


def open_source(
    text: str, input_format: str | None, sep: str | None, encoding: str = "utf-8"
) -> DataFile:
    """The file at a path, its format from ``--input-format`` or its name."""
    try:
        return open_file(
            text, input_format, sep=sep, choose="pass --input-format", encoding=encoding
        )
    except FormatError as e:
        raise CliError(str(e), 2) from e
    except FileError as e:
        raise CliError(str(e)) from e


def _find(file: DataFile, wanted: str | list[str], what: str) -> list[str]:
    """Column names (patterns expanded), or the error that lists the columns there are."""
    with _reading(file):
        return file.find(wanted, what)


def _progress(show: bool) -> Progress | None:
    return Progress(_PROGRESS_DELAY, leave=False) if show else None


def _batches(file: DataFile, columns: list[str], rows: int, show: bool) -> Iterator[dict[str, Any]]:
    """The columns, chunk by chunk (Arrow arrays; pandas Series for AnnData files)."""
    with _reading(file):
        chunks = file.batches(columns, rows, progress=_progress(show))
    while True:
        with _reading(file):
            try:
                chunk = next(chunks)
            except StopIteration:
                return
        yield chunk


def _again(file: DataFile, error: ColumnTypeError) -> DataFile:
    """The file to read again, a column as text, said on stderr (or the error, as one line)."""
    try:
        again = read_again(file, error)
    except ColumnTypeError as e:
        raise CliError(str(e)) from e
    print(f"{PROG}: note: {error}; reading it again as text", file=sys.stderr)
    return again


def _frame(file: DataFile, columns: list[str], rows: int, show: bool) -> Any:
    """The columns, whole, as a pandas DataFrame."""
    while True:
        try:
            return _whole(file, columns, rows, show)
        except ColumnTypeError as e:
            file = _again(file, e)


def _whole(file: DataFile, columns: list[str], rows: int, show: bool) -> Any:
    import pandas as pd

    wanted = list(dict.fromkeys(columns))
    parts = [
        pd.DataFrame(
            {c: v if isinstance(v, pd.Series) else v.to_pandas() for c, v in chunk.items()}
        )
        for chunk in _batches(file, wanted, rows, show)
    ]
    if not parts:
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in wanted})
    if len(parts) == 1:
        return parts[0]
    return pd.concat(parts, ignore_index=True)


# --- labels, chunk by chunk ---------------------------------------------------------------------


def _as_text(values: Any) -> Any:
    """Labels as text with missing ones as :data:`NA_LABEL`, so that tables of chunks merge
    (``--missing cluster`` in CSV and Parquet files)."""
    if hasattr(values, "null_count"):
        import pyarrow as pa
        import pyarrow.compute as pc

        if pa.types.is_dictionary(values.type):
            values = values.dictionary_decode()
        if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
            values = pc.cast(values, pa.string())
        return pc.fill_null(values, NA_LABEL) if values.null_count else values
    return values.fillna(NA_LABEL)


Chunk = tuple[Any, list[Any], Any]
"""The truth, the predictions and the samples' weights (None: unweighted) of some rows."""


@dataclass
class Plan:
    """What to score: the truth, the predictions, and where their labels come from."""

    truth: str
    preds: list[str]
    sources: list[DataFile]
    chunks: Iterator[Chunk]
    streamed: bool
    """Whether the labels come in several chunks (merged by label value)."""
    again: Callable[[DataFile], Iterator[Chunk]] | None = None
    """The chunks of one file read again from the start (one source), or None."""
    weights: str | None = None
    """The column of sample weights (of the truth's file), or None."""


def _chunks(
    source: DataFile,
    truth: str,
    preds: list[str],
    missing: str,
    rows: int,
    show: bool,
    weights: str | None = None,
) -> Iterator[Chunk]:
    offset = 0
    text = missing == "cluster" and source.streamed
    columns = [truth, *preds] if weights is None else [truth, *preds, weights]
    for chunk in _batches(source, columns, rows, show):
        w = None
        with _reading(source):
            if weights is not None:
                w = weight_values(source.name, weights, chunk[weights], offset)
            if missing == "raise":
                check_complete(source.name, {c: chunk[c] for c in (truth, *preds)}, offset)
        if text:
            chunk = {name: _as_text(chunk[name]) for name in (truth, *preds)}
        offset += len(chunk[truth])
        yield chunk[truth], [chunk[p] for p in preds], w


def _joined(
    first: DataFile,
    second: DataFile,
    truth: str,
    preds: list[str],
    on: tuple[str, str] | None,
    args: Any,
    weights: str | None = None,
) -> Chunk:
    """The truth (and the weights) of one file and the predictions of another, matched by id
    or by position."""
    show = _show_progress(args)
    wanted = [truth] if weights is None else [truth, weights]
    left = _frame(first, wanted if on is None else [on[0], *wanted], args.chunk_rows, show)
    right = _frame(second, preds if on is None else [on[1], *preds], args.chunk_rows, show)
    if on is None:
        if len(left) != len(right):
            raise CliError(
                f"length mismatch: {first.name} has {len(left):,} rows and {second.name} has"
                f" {len(right):,}; pass --on COLUMN to join the files on an id column"
            )
        return left[truth], [right[p] for p in preds], _weights_of(first, left, weights)
    keys = []
    for source, frame, column in ((first, left, on[0]), (second, right, on[1])):
        absent = frame[column].isna().to_numpy()
        if absent.any():
            raise CliError(
                f"{source.name}: id column {column!r} has {int(absent.sum()):,} missing values (the"
                f" first in data row {int(absent.argmax()) + 1:,}); ids must be present to join"
                " on them"
            )
        ids = frame[column].astype(str)
        duplicated = ids.duplicated()
        if duplicated.any():
            example = ids[duplicated].iloc[0]
            raise CliError(
                f"{source.name}: id column {column!r} has {int(duplicated.sum()):,} repeated values"
                f" (such as {example!r}); ids must be unique to join on them"
            )
        keys.append(ids)
    left.index, right.index = keys[0].to_numpy(), keys[1].to_numpy()
    common = left.index.intersection(right.index, sort=False)
    if len(common) == 0:
        raise CliError(f"no ids in common: {first.name} and {second.name} share no {on[0]!r} value")
    if len(common) < max(len(left), len(right)):
        print(
            f"{PROG}: note: joined on ids: {len(common):,} in both files;"
            f" {len(left) - len(common):,} only in {first.name},"
            f" {len(right) - len(common):,} only in {second.name}",
            file=sys.stderr,
        )
    left, right = left.loc[common], right.loc[common]
    return left[truth], [right[p] for p in preds], _weights_of(first, left, weights, "joined row")


def _weights_of(source: DataFile, frame: Any, weights: str | None, where: str = "data row") -> Any:
    """The weight column of a file read whole, checked (None without one)."""
    if weights is None:
        return None
    with _reading(source):
        return weight_values(source.name, weights, frame[weights], 0, where)


def _show_progress(args: Any) -> bool:
    return not args.no_progress and _stderr_is_tty()


def plan(args: Any) -> Plan:
    if len(args.files) > 2:
        raise CliError(f"at most two files (truth, predictions); got {len(args.files)}", 2)
    if args.on is not None and len(args.files) != 2:
        raise CliError("--on joins two files; give two files", 2)
    sources = [open_source(f, args.input_format, args.sep, args.encoding) for f in args.files]
    first, second = sources[0], sources[-1]
    truths = _find(first, args.truth, "truth")
    if len(truths) != 1:
        raise CliError(f"--truth {args.truth} names {len(truths)} columns; give one", 2)
    truth = truths[0]
    preds = _find(second, args.pred, "pred")
    weights = None
    if args.weights is not None:
        found = _find(first, args.weights, "weights")
        if len(found) != 1:
            raise CliError(f"--weights {args.weights} names {len(found)} columns; give one", 2)
        weights = found[0]
    on = None
    if args.on is not None:
        left_id, _, right_id = args.on.partition("=")
        on = (_find(first, left_id, "id")[0], _find(second, right_id or left_id, "id")[0])
    if len(sources) == 1:

        def chunks(source: DataFile) -> Iterator[Chunk]:
            return _chunks(
                source, truth, preds, args.missing, args.chunk_rows, _show_progress(args), weights
            )

        return Plan(truth, preds, sources, chunks(first), first.streamed, chunks, weights)
    labels = _joined(first, second, truth, preds, on, args, weights)
    if args.missing == "raise":
        for name, values in ((truth, labels[0]), *zip(preds, labels[1], strict=True)):
            at = missing_at(values)
            if at is not None:
                error = MissingLabelsError(None, name, at + 1, "joined row")
                raise CliError(error.describe(cli=True))
    return Plan(truth, preds, sources, iter([labels]), False, weights=weights)


def count(plan: Plan, missing: str) -> list[Contingency]:
    """One table per prediction, merged over the chunks; the file read again with a column
    as text when its later rows do not fit the type of its first ones."""
    return count_with(plan, missing, ())[0]


def count_with(
    plan: Plan, missing: str, pairs: Sequence[tuple[int, int]]
) -> tuple[list[Contingency], list[Contingency]]:
    """As :func:`count`, and in the same pass the table of each pair of predictions in
    ``pairs`` (by index: the first one's clusters are the rows)."""
    while True:
        try:
            return _count(plan, missing, pairs)
        except ColumnTypeError as e:
            if plan.again is None:  # pragma: no cover - two files are read whole, by _frame
                raise CliError(str(e)) from e
            source = _again(plan.sources[0], e)
            plan = replace(plan, sources=[source], chunks=plan.again(source))


def _count(
    plan: Plan, missing: str, pairs: Sequence[tuple[int, int]]
) -> tuple[list[Contingency], list[Contingency]]:
    tables: dict[int, Contingency] = {}
    between: dict[int, Contingency] = {}
    rows = 0
    for truth, preds, weights in plan.chunks:
        rows += len(truth)
        if weights is not None and not weights.any():
            continue  # (rows that all weigh 0 add nothing)
        for i, (name, labels) in enumerate(zip(plan.preds, preds, strict=True)):
            try:
                table = Contingency.from_labels(
                    truth, labels, missing=missing, sample_weight=weights
                )
                tables[i] = tables[i] + table if i in tables else table
            except (ValueError, TypeError) as e:
                raise CliError(f"scoring {name!r} against {plan.truth!r}: {_first_line(e)}") from e
        for p, (a, b) in enumerate(pairs):
            try:
                table = Contingency.from_labels(
                    preds[a], preds[b], missing=missing, sample_weight=weights
                )
            except (ValueError, TypeError) as e:
                names = f"{plan.preds[a]!r} against {plan.preds[b]!r}"
                raise CliError(f"counting {names}: {_first_line(e)}") from e
            between[p] = between[p] + table if p in between else table
    files = " and ".join(s.name for s in plan.sources)
    for i, name in enumerate(plan.preds):
        if i not in tables or tables[i].n == 0:
            raise CliError(
                f"no samples to compare {name!r} with {plan.truth!r}"
                + (
                    (
                        " (every row has a missing label or weighs 0)"
                        if plan.weights is not None
                        else " (every row has a missing label)"
                    )
                    if rows
                    else f" ({files} {'has' if len(plan.sources) == 1 else 'have'} no rows)"
                )
            )
    return [tables[i] for i in range(len(plan.preds))], [between[p] for p in range(len(pairs))]


# --- output -------------------------------------------------------------------------------------


TABLE_WIDTH = 100
"""The width text tables are cut to (into blocks of columns) when the output is not a
terminal; on a terminal, its width."""


def _numbers(values: Sequence[float], bounded: bool) -> list[str]:
    """One measure's values, all in one format: integers with thousands separators when every
    value is one and the measure is not a bounded score (and not every value is 0); else 4
    decimals when every value is below 10,000 in size, else scientific with 4 significant
    digits (``2.813e+04``). NaN and infinity as Python writes them."""
    finite = [v for v in values if math.isfinite(v)]
    top = max((abs(v) for v in finite), default=0.0)
    if not bounded and 0 < top < 1e15 and all(v == int(v) for v in finite):
        return [f"{int(v):,}" if math.isfinite(v) else str(v) for v in values]
    spec = ".4f" if top < 1e4 else ".3e"
    return [format(v, spec) if math.isfinite(v) else str(v) for v in values]


def _table_width(output: str | None) -> int:
    if output is None and sys.stdout.isatty():
        return max(shutil.get_terminal_size((TABLE_WIDTH, 24)).columns, 40)
    return TABLE_WIDTH


def render(fmt: str, plan: Plan, metrics: list[str], tables: list[Contingency], args: Any) -> str:
    scores = [[_score(t, m) for m in metrics] for t in tables]
    if fmt == "json":
        doc = {
            "truth": plan.truth,
            "files": [s.name for s in plan.sources],
            "missing": args.missing,
            "metrics": metrics,
            "predictions": {
                name: {
                    "n": t.n,
                    "scores": {
                        m: (None if math.isnan(v) else v) for m, v in zip(metrics, row, strict=True)
                    },
                }
                for name, t, row in zip(plan.preds, tables, scores, strict=True)
            },
        }
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["prediction", "n", *metrics])
        for name, t, row in zip(plan.preds, tables, scores, strict=True):
            writer.writerow([name, t.n, *(repr(v) for v in row)])
        return buffer.getvalue()
    header = f"truth: {plan.truth} ({', '.join(s.name for s in plan.sources)})"
    counts = [f"{int(t.n):,}" if float(t.n).is_integer() else f"{t.n:,.1f}" for t in tables]
    columns = [
        _numbers([row[j] for row in scores], MEASURES[m].range is not None)
        for j, m in enumerate(metrics)
    ]
    width = _table_width(args.output)
    if args.transpose:
        body = format_table(
            "metric",
            plan.preds,
            [("n", counts), *((label(m), c) for m, c in zip(metrics, columns, strict=True))],
            width,
        )
    else:
        body = format_table(
            "prediction",
            ["n", *(label(m) for m in metrics)],
            [(name, [counts[i], *(c[i] for c in columns)]) for i, name in enumerate(plan.preds)],
            width,
        )
    return f"{header}\n\n{body}\n"


def _check_plot_path(text: str, flag: str = "--plot") -> Path:
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise CliError(
            f"{flag} needs matplotlib: pip install 'fastcluster-metrics[plot]' ({e})"
        ) from e
    path = Path(text)
    kinds = Figure().canvas.get_supported_filetypes()
    if path.suffix.lower().lstrip(".") not in kinds:
        raise CliError(
            f"{flag} {text}: the file name must end in one of"
            f" {', '.join('.' + k for k in sorted(kinds))}",
            2,
        )
    if not path.parent.is_dir():
        raise CliError(f"{flag} {text}: no such directory: {path.parent}")
    return path


def save_plot(path: Path, plan: Plan, metrics: list[str], tables: list[Contingency]) -> None:
    """The figure of :func:`summary_figure`, written to ``path``."""
    figure = summary_figure(plan.truth, plan.preds, metrics, tables)
    try:
        figure.savefig(path, dpi=110)
    except OSError as e:
        raise CliError(f"cannot write {path}: {_first_line(e)}") from e


def summary_figure(
    truth: str, preds: list[str], metrics: list[str], tables: list[Contingency]
) -> Any:
    """One figure: scores per prediction (when several: the first metric and the plotted
    ones), and the contingency heatmap and pair counts of the best one (by the first metric),
    side by side, each panel as wide as its labels need (constrained layout: nothing is cut)."""
    import pandas as pd
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    from .plot import plot_contingency, plot_pair_confusion, plot_scores

    first = metrics[0]
    scores = [_score(t, first) for t in tables]
    best = max(range(len(tables)), key=lambda i: -math.inf if math.isnan(scores[i]) else scores[i])
    table, name = tables[best], preds[best]
    several = len(tables) > 1
    n_rows, n_cols = table.shape
    # The heatmap: its cells, and room for the bars of sizes, the colour bar and the labels.
    width = min(2.5 + 0.2 * n_cols, 14.0) + 2.0
    height = min(max(5.0, 2.5 + 0.22 * n_rows), 12.0)
    ratios = [7.5, width, 4.5] if several else [width, 4.5]
    figure = Figure(
        figsize=(sum(ratios) + 0.5, height), layout=ConstrainedLayoutEngine(w_pad=0.1, wspace=0.05)
    )
    axes = figure.subplots(1, len(ratios), width_ratios=ratios)
    if several:
        curves = [m for m in metrics if MEASURES[m].plotted or m == first]
        frame = pd.DataFrame(
            [[_score(t, m) for m in curves] for t in tables], index=preds, columns=curves
        )
        plot_scores(frame, best=first, ax=axes[0])
    plot_contingency(
        table,
        xlabel=f"{name} (predicted cluster)",
        ylabel=f"{truth} (true class)",
        title=f"{name}: {label(first)} {scores[best]:.4f}",
        ax=axes[-2],
    )
    plot_pair_confusion(table, ax=axes[-1])
    return figure


def save_clustree(
    path: Path, names: list[str], edges: list[Contingency], truths: list[Contingency]
) -> None:
    """The clustering tree of the predictions (in resolution order) from their tables."""
    from matplotlib.figure import Figure

    from ._clustree import draw, figure_size

    widest = max(len(t.clusters) for t in truths)
    figure = Figure(figsize=figure_size(len(names), widest), layout="constrained")
    draw(names, edges, truths, "purity", 0.1, figure.subplots())
    try:
        figure.savefig(path, dpi=110)
    except OSError as e:
        raise CliError(f"cannot write {path}: {_first_line(e)}") from e


# --- main ---------------------------------------------------------------------------------------


def _epilog() -> str:
    return f"""\
examples:
  {PROG} cells.csv --truth cell_type --pred leiden_0.5 --pred leiden_1.0
  {PROG} cells.parquet --truth cell_type --pred 'leiden_*' --format json
  {PROG} adata.h5ad --truth cell_type --pred leiden --plot leiden.png
  {PROG} adata.zarr --truth cell_type --pred 'leiden_*'     (a zarr store: a directory)
  {PROG} cells.parquet --truth cell_type --pred 'leiden_*' --clustree tree.png
  {PROG} annotation.csv clusters.tsv --on cell_id --truth cell_type --pred cluster
  {PROG}                  (no arguments: the built-in example; see {PROG} demo --help)

measures (--metrics, comma-separated, full or short names in any case; default
{", ".join(label(m) for m in default_names())}), or 'all' of:
{_wrapped(", ".join(m.label for m in MEASURES.values()))}

exit status: 0 success, 1 a problem with the data, 2 a usage error."""


def _wrapped(text: str) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, 88, initial_indent="  ", subsequent_indent="  "))


def _version() -> str:
    """The installed package's version (``fastcluster_metrics.__version__`` reads it)."""
    from . import __version__

    return __version__


def parser() -> Parser:
    p = Parser(
        prog=PROG,
        description="Compare clusterings with a reference labeling: scikit-learn's\n"
        "cluster-comparison measures of label columns of CSV/TSV, Parquet, Arrow IPC or\n"
        "AnnData (.h5ad, .zarr) files.",
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help=f"a .csv, .tsv (also {', '.join(COMPRESSIONS)}), .parquet or .arrow/.feather file,"
        " or an AnnData .h5ad file or .zarr store (a directory, or .zarr.zip: its obs columns);"
        " with two files, --truth is read from the first, --pred from the second (every"
        f" suffix: {', '.join(FORMATS)})",
    )
    p.add_argument("--truth", required=True, metavar="COL", help="the column of true labels")
    p.add_argument(
        "--pred",
        required=True,
        action="append",
        metavar="COL",
        help="a column of predicted clusters (repeat for several; patterns like 'leiden_*')",
    )
    p.add_argument(
        "--metrics",
        action="append",
        metavar="NAMES",
        help="comma-separated measures (default: the ten of fastcluster_metrics.evaluate)",
    )
    p.add_argument(
        "--missing",
        choices=("raise", "drop", "cluster"),
        default="raise",
        help="missing labels: an error (default), leave those rows out, or one more label",
    )
    p.add_argument(
        "--weights",
        metavar="COL",
        help="a column of sample weights (of the truth's file): non-negative numbers, each row"
        " counted as that many samples (default: every row counts 1)",
    )
    p.add_argument(
        "--on",
        metavar="COL",
        help="with two files: the id column to join them on, or TRUTH_ID=PRED_ID when the names"
        " differ (default: rows match by position; an AnnData file's cell names are the column"
        " obs_names)",
    )
    p.add_argument(
        "--format",
        choices=("table", "json", "csv"),
        default="table",
        help="output: an aligned table (default), JSON or CSV",
    )
    p.add_argument(
        "--transpose",
        action="store_true",
        help="a table with the measures as rows and the predictions as columns (default:"
        " a row per prediction)",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE, not stdout")
    p.add_argument(
        "--plot",
        metavar="FILE.png",
        help="draw the scores, the contingency heatmap and the pair counts (needs matplotlib)",
    )
    p.add_argument(
        "--clustree",
        metavar="FILE.png",
        help="draw the clustering tree of the predictions, sorted by the number their names end"
        " in (leiden_0.2, leiden_1.0), its clusters coloured by purity (needs matplotlib)",
    )
    p.add_argument(
        "--input-format",
        choices=tuple(FORMAT_NAMES),
        help="the format of the files (default: from their names)",
    )
    p.add_argument("--sep", help="the field separator of CSV/TSV files")
    p.add_argument(
        "--encoding",
        default="utf-8",
        metavar="NAME",
        help="the text encoding of CSV/TSV files, as Python names it (default utf-8, a"
        " byte-order mark skipped; such as latin-1, cp1252, utf-16)",
    )
    p.add_argument(
        "--chunk-rows",
        type=int,
        default=1_000_000,
        metavar="N",
        help="rows read at a time from CSV/TSV, Parquet and Arrow IPC files (about as many"
        " for CSV/TSV; default 1000000)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    p.add_argument(
        "--debug",
        action="store_true",
        help="on an error, show Python's traceback (to report a bug) instead of one line",
    )
    return p


def _note_counts_only(metrics: Sequence[str], tables: Sequence[Contingency]) -> None:
    """One note on stderr for the measures that need counts, asked for with weights that make
    some cell non-integral (they are NaN then)."""
    if not any(t.weighted for t in tables):
        return
    names = [MEASURES[m].label for m in metrics if MEASURES[m].counts]
    if names:
        verb, defined = ("needs", "it is") if len(names) == 1 else ("need", "they are")
        print(
            f"{PROG}: note: {', '.join(names)} {verb} whole-number weights ({defined} defined"
            " for counts only): nan with these weights",
            file=sys.stderr,
        )


def score(args: argparse.Namespace) -> int:
    """Score the files named by the parsed arguments; returns the exit status."""
    if args.chunk_rows < 1:
        raise CliError("--chunk-rows must be at least 1", 2)
    try:
        check_encoding(args.encoding)
    except ValueError as e:
        raise CliError(f"--encoding: {e}", 2) from e
    metrics = resolve_metrics(args.metrics)
    plot_path = _check_plot_path(args.plot) if args.plot else None
    tree_path = _check_plot_path(args.clustree, "--clustree") if args.clustree else None
    work = plan(args)
    order = [i for _, i in by_resolution([(name, i) for i, name in enumerate(work.preds)])]
    pairs: list[tuple[int, int]] = []
    if tree_path is not None:
        pairs = list(itertools.pairwise(order)) or [(order[0], order[0])]
    tables, between = count_with(work, args.missing, pairs)
    _note_counts_only(metrics, tables)
    text = render(args.format, work, metrics, tables, args)
    if plot_path is not None:
        save_plot(plot_path, work, metrics, tables)
        if args.format == "table":
            text += f"\nplot: {plot_path}\n"
    if tree_path is not None:
        names = [work.preds[i] for i in order]
        save_clustree(tree_path, names, between, [tables[i] for i in order])
        if args.format == "table":
            text += f"{'' if plot_path else chr(10)}clustering tree: {tree_path}\n"
    _write(text, args.output)
    return 0


def _write(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as e:
        raise CliError(f"cannot write {output}: {_first_line(e)}") from e


def _is_debug(arg: str) -> bool:
    """``--debug``, or a prefix of it that argparse would take for it."""
    return len(arg) > 2 and "--debug".startswith(arg)


def _unexpected(error: Exception, inputs: str) -> str:
    """One line for an error nobody foresaw (a bug): what was being read, and the error."""
    lines = str(error).strip().splitlines()
    text = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
    if len(text) > 200:
        text = text[:197] + "..."
    return (
        f"unexpected error{inputs}: {text} (run again with --debug to see the traceback;"
        " please report it)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """The ``fastcluster-metrics`` command; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = any(_is_debug(a) for a in args)
    rest = [a for a in args if not _is_debug(a)]
    inputs = ""
    try:
        if not rest or rest[0] == "demo" or rest[0].split("=")[0] in DEMO_OPTIONS:
            from ._demo import demo

            inputs = " in the built-in example"
            if rest and rest[0] == "demo":
                args.remove("demo")
            return demo(args)
        options = parser().parse_args(args)
        inputs = " reading " + " and ".join(options.files)
        return score(options)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if debug:
            raise
        if isinstance(e, CliError):
            print(f"{PROG}: error: {e}", file=sys.stderr)
            return e.status
        if isinstance(e, BrokenPipeError):  # the output piped into a command that stopped reading
            return 1
        if isinstance(e, OSError):  # a file that cannot be read or written, a full disk
            print(f"{PROG}: error: {_first_line(e)}", file=sys.stderr)
            return 1
        print(f"{PROG}: error: {_unexpected(e, inputs)}", file=sys.stderr)
        return 1
