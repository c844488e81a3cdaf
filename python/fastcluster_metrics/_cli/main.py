"""The command line: score label columns of CSV/TSV, Parquet, Arrow IPC or AnnData files.

``fastcluster-metrics FILE [FILE2] --truth COL --pred COL [--pred COL ...]`` prints the
measures of each predicted column against the true one; ``fastcluster-metrics`` alone (or
``fastcluster-metrics demo``) runs the built-in example of ``python -m fastcluster_metrics``.

Files are read by ``_io/readers/``, as :func:`read_contingency` reads them: CSV/TSV, Parquet
and Arrow IPC files in chunks (record batches), each chunk counted into a :class:`Contingency`,
and the tables merged by label value: memory is one chunk and the tables, whatever the length
of the file. Of an AnnData file (.h5ad, zarr), the ``obs`` columns asked for are read alone
(not ``X``). This module holds the arguments and the entry point; ``plan.py`` plans which
columns to read from which file (two files joined on an id column) and counts them,
``render.py`` scores and renders, ``per_sample.py`` writes each row's scores (``--per-sample``:
the label columns kept whole), ``soft.py`` scores membership matrices and covers (``--soft``),
``embedding.py`` an AnnData file's embedding and neighbour graph (``--embedding``, ``--graph``).

Exit status: 0 on success, 1 for a problem with the data (a missing file or column, an
unreadable file, a length mismatch, missing labels), 2 for a usage error. Errors are one line
on stderr, ``fastcluster-metrics: error: ...``, an error nobody foresaw too (naming the files);
``--debug`` shows Python's traceback instead.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from pathlib import Path

from .._io.formats import COMPRESSIONS, FORMAT_NAMES, FORMATS, check_encoding
from .._measures.catalogue import MEASURES
from .._measures.lookup import default_names, label
from ..plot._clustree import by_resolution
from .console import PROG, CliError, Parser
from .embedding import check_array_options, score_arrays, wants_arrays
from .per_sample import (
    SUFFIXES,
    check_per_sample_path,
    per_sample_labels,
    per_sample_measures,
    per_sample_scores,
    save_per_sample,
)
from .plan import Chunk, count_with, first_line, plan
from .render import (
    check_plot_path,
    note_counts_only,
    render,
    resolve_metrics,
    save_clustree,
    save_plot,
)
from .soft import score_soft

__all__ = ["DEMO_OPTIONS", "main", "parser", "score"]


DEMO_OPTIONS = ("--out", "-n", "--k-max", "--no-sklearn", "--no-plots")
"""Options that start the built-in example without naming it (``python -m fastcluster_metrics
--out DIR``)."""


def _epilog() -> str:
    return f"""\
examples:
  {PROG} cells.csv --truth cell_type --pred leiden_0.5 --pred leiden_1.0
  {PROG} cells.parquet --truth cell_type --pred 'leiden_*' --format json
  {PROG} adata.h5ad --truth cell_type --pred leiden --plot leiden.png
  {PROG} adata.zarr --truth cell_type --pred 'leiden_*'     (a zarr store: a directory)
  {PROG} adata.h5ad --truth cell_type --pred leiden --embedding X_pca --batch batch  (scIB)
  {PROG} cells.parquet --truth cell_type --pred 'leiden_*' --clustree tree.png
  {PROG} cells.csv --truth cell_type --pred 'leiden_*' --per-sample ecs.parquet
  {PROG} annotation.csv clusters.tsv --on cell_id --truth cell_type --pred cluster
  {PROG} cells.parquet --soft --truth cell_type --pred 'prob_*'     (FRI and FARI)
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
    from .. import __version__

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
        "--soft",
        action="store_true",
        help="soft and overlapping labelings: --truth and each --pred name one labeling, a"
        " pattern ('prob_*') the columns of a membership matrix (probabilities), a name one"
        " column of labels or, in Parquet and Arrow files, of label lists (a cover); prints"
        " FRI and FARI, or Omega, overlapping NMI and extended BCubed where a side is a cover",
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
    p.add_argument(
        "--embedding",
        metavar="KEY",
        help="of an AnnData file: score the embedding obsm[KEY] (X_pca): each prediction's"
        " silhouette and, with --batch, scIB's silhouette_label, silhouette_batch, bras and"
        " isolated_labels of --truth as cell types (every cell counts 1, whatever --weights)",
    )
    p.add_argument(
        "--graph",
        metavar="KEY",
        help="of an AnnData file: score the neighbour graph obsp[KEY] (distances, a CSR"
        " matrix): scIB's clisi_knn and graph_connectivity of --truth and, with --batch,"
        " ilisi_knn and kbet (its acceptance rate)",
    )
    p.add_argument(
        "--batch",
        metavar="COL",
        help="with --embedding or --graph: the obs column of batches, for scIB's scores",
    )
    p.add_argument(
        "--silhouette",
        choices=("exact", "approximate"),
        help="--embedding's silhouette of each prediction: exact (default; n²·d multiply-adds)"
        " or approximate (bluster's, O(n·k·d) for k clusters)",
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
        "--per-sample",
        metavar="FILE",
        help=f"write each row's scores to FILE ({', '.join(SUFFIXES[:-1])} or {SUFFIXES[-1]}):"
        " a column PRED:MEASURE per prediction and per-sample measure, those of --metrics"
        f" among {', '.join(per_sample_labels())}, else ECS; a row per row of the file, in its"
        " order (with --on: per joined row, in the first file's order, after the id column);"
        " empty (NaN in Parquet) where --missing drop left a row out. Holds the label"
        " columns whole",
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


def score(args: argparse.Namespace) -> int:
    """Score the files named by the parsed arguments; returns the exit status."""
    if args.chunk_rows < 1:
        raise CliError("--chunk-rows must be at least 1", 2)
    try:
        check_encoding(args.encoding)
    except ValueError as e:
        raise CliError(f"--encoding: {e}", 2) from e
    check_array_options(args)
    if args.soft:
        _write(score_soft(args), args.output)
        return 0
    metrics = resolve_metrics(args.metrics)
    plot_path = check_plot_path(args.plot) if args.plot else None
    tree_path = check_plot_path(args.clustree, "--clustree") if args.clustree else None
    rows_path = check_per_sample_path(args.per_sample) if args.per_sample else None
    work = plan(args)
    order = [i for _, i in by_resolution([(name, i) for i, name in enumerate(work.preds)])]
    pairs: list[tuple[int, int]] = []
    if tree_path is not None:
        pairs = list(itertools.pairwise(order)) or [(order[0], order[0])]
    kept: list[Chunk] | None = [] if rows_path is not None else None
    tables, between = count_with(work, args.missing, pairs, kept)
    note_counts_only(metrics, tables)
    arrays = score_arrays(args, work) if wants_arrays(args) else None
    text = render(args.format, work, metrics, tables, args, arrays)
    written = []
    if plot_path is not None:
        save_plot(plot_path, work, metrics, tables)
        written.append(f"plot: {plot_path}")
    if tree_path is not None:
        names = [work.preds[i] for i in order]
        save_clustree(tree_path, names, between, [tables[i] for i in order])
        written.append(f"clustering tree: {tree_path}")
    if rows_path is not None and kept is not None:
        measures = per_sample_measures(metrics)
        columns = per_sample_scores(work, kept, measures, args.missing)
        kept.clear()
        save_per_sample(rows_path, columns, work.ids)
        n_rows = len(next(iter(columns.values())))
        labels = ", ".join(m.label for m in measures)
        written.append(
            f"per-sample scores: {rows_path} ({n_rows:,} rows; {labels} of each prediction)"
        )
    if written and args.format == "table":
        text += "\n" + "".join(f"{line}\n" for line in written)
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
        raise CliError(f"cannot write {output}: {first_line(e)}") from e


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
            from .demo import demo

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
            print(f"{PROG}: error: {first_line(e)}", file=sys.stderr)
            return 1
        print(f"{PROG}: error: {_unexpected(e, inputs)}", file=sys.stderr)
        return 1
