"""Which columns of which files the command line reads, and their tables: a file or two joined
on an id column, read chunk by chunk (``_io/readers/``, as :func:`read_contingency` reads),
each chunk counted into a :class:`Contingency` and the tables merged by label value."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from .._io.columns import check_complete, missing_at, weight_values
from .._io.errors import ColumnTypeError, FileError, FormatError, MissingLabelsError
from .._io.progress import Progress
from .._io.readers import DataFile, open_file, read_again
from .._measures.contingency import Contingency
from .console import PROG, CliError

__all__ = [
    "NA_LABEL",
    "PROGRESS_DELAY",
    "Chunk",
    "Plan",
    "count",
    "count_with",
    "first_line",
    "open_source",
    "plan",
    "stderr_is_tty",
    "weights_column",
]


NA_LABEL = "<NA>"
"""The label of missing values with ``--missing cluster`` in chunked files (CSV fields
``<NA>`` are read as missing, as pandas reads them, so no label of a CSV file can be it)."""


PROGRESS_DELAY = 1.0
"""Seconds before the progress bar shows (on a terminal): short inputs never show one."""


def stderr_is_tty() -> bool:
    return sys.stderr.isatty()


def first_line(error: BaseException) -> str:
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
        raise CliError(f"cannot read {file.name} as {file.kind}: {first_line(e)}") from e


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


def weights_column(file: DataFile, spec: str | None) -> str | None:
    """The one column ``--weights`` names (None without the option)."""
    if spec is None:
        return None
    found = _find(file, spec, "weights")
    if len(found) != 1:
        raise CliError(f"--weights {spec} names {len(found)} columns; give one", 2)
    return found[0]


def _progress(show: bool) -> Progress | None:
    return Progress(PROGRESS_DELAY, leave=False) if show else None


def _batches(
    file: DataFile, columns: list[str], rows: int, show: bool, lists: bool = False
) -> Iterator[dict[str, Any]]:
    """The columns, chunk by chunk (Arrow arrays; pandas Series for AnnData files); with
    ``lists``, list columns too."""
    with _reading(file):
        chunks = file.batches(columns, rows, progress=_progress(show), lists=lists)
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


def _frame(file: DataFile, columns: list[str], rows: int, show: bool, lists: bool = False) -> Any:
    """The columns, whole, as a pandas DataFrame (with ``lists``, list columns too)."""
    while True:
        try:
            return _whole(file, columns, rows, show, lists)
        except ColumnTypeError as e:
            file = _again(file, e)


def _whole(file: DataFile, columns: list[str], rows: int, show: bool, lists: bool) -> Any:
    import pandas as pd

    wanted = list(dict.fromkeys(columns))
    parts = [
        pd.DataFrame(
            {c: v if isinstance(v, pd.Series) else v.to_pandas() for c, v in chunk.items()}
        )
        for chunk in _batches(file, wanted, rows, show, lists)
    ]
    if not parts:
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in wanted})
    if len(parts) == 1:
        return parts[0]
    return pd.concat(parts, ignore_index=True)


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
    ids: tuple[str, Any] | None = None
    """Two files joined on ids (``--on``): the first file's id column and the ids of the
    joined rows, in the order they are scored; else None."""


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
    return not args.no_progress and stderr_is_tty()


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
    weights = weights_column(first, args.weights)
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
    ids = None if on is None else (on[0], labels[0].index.to_numpy())
    return Plan(truth, preds, sources, iter([labels]), False, weights=weights, ids=ids)


def count(plan: Plan, missing: str) -> list[Contingency]:
    """One table per prediction, merged over the chunks; the file read again with a column
    as text when its later rows do not fit the type of its first ones."""
    return count_with(plan, missing, ())[0]


def count_with(
    plan: Plan,
    missing: str,
    pairs: Sequence[tuple[int, int]],
    kept: list[Chunk] | None = None,
) -> tuple[list[Contingency], list[Contingency]]:
    """As :func:`count`, and in the same pass the table of each pair of predictions in
    ``pairs`` (by index: the first one's clusters are the rows). With ``kept``, the chunks
    counted are added to it, in order (the label columns whole, for ``--per-sample``)."""
    while True:
        if kept is not None:
            kept.clear()  # (a file read again starts over)
        try:
            return _count(plan, missing, pairs, kept)
        except ColumnTypeError as e:
            if plan.again is None:  # pragma: no cover - two files are read whole, by _frame
                raise CliError(str(e)) from e
            source = _again(plan.sources[0], e)
            plan = replace(plan, sources=[source], chunks=plan.again(source))


def _count(
    plan: Plan, missing: str, pairs: Sequence[tuple[int, int]], kept: list[Chunk] | None
) -> tuple[list[Contingency], list[Contingency]]:
    tables: dict[int, Contingency] = {}
    between: dict[int, Contingency] = {}
    rows = 0
    for chunk in plan.chunks:
        if kept is not None:
            kept.append(chunk)
        truth, preds, weights = chunk
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
                raise CliError(f"scoring {name!r} against {plan.truth!r}: {first_line(e)}") from e
        for p, (a, b) in enumerate(pairs):
            try:
                table = Contingency.from_labels(
                    preds[a], preds[b], missing=missing, sample_weight=weights
                )
            except (ValueError, TypeError) as e:
                names = f"{plan.preds[a]!r} against {plan.preds[b]!r}"
                raise CliError(f"counting {names}: {first_line(e)}") from e
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
