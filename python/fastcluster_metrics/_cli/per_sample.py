"""``--per-sample FILE``: each row's score, a column per prediction and per-sample measure.

The scores need every row: the chunks the counting pass reads are kept as they come (Arrow
arrays, text labels as dictionary codes but under ``--missing cluster``: a file of millions
of rows holds its label columns, not its text), then scored whole by
:func:`per_sample_score`, a column ``{pred}:{label}`` (``leiden_0.5:ECS``) for each
prediction and each measure of ``--metrics`` that has a per-sample form (the catalogue's
:attr:`Measure.per_sample`), ECS when none has. The rows are the file's, in its order; of
two files joined on ids (``--on``), the joined rows in the order they are scored (the first
file's), the id column first. A row left out by ``--missing drop`` scores NaN: an empty
field in CSV/TSV, NaN in Parquet.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._measures.catalogue import MEASURES, Measure
from .._measures.per_sample import per_sample_measure, per_sample_score
from .console import PROG, CliError
from .plan import Chunk, Plan, first_line

__all__ = [
    "SUFFIXES",
    "check_per_sample_path",
    "per_sample_labels",
    "per_sample_measures",
    "per_sample_scores",
    "save_per_sample",
]

SUFFIXES = (".csv", ".tsv", ".parquet")
"""The file names ``--per-sample`` writes, by their suffix."""


def per_sample_labels() -> list[str]:
    """The short names of the measures that have a per-sample form, in catalogue order."""
    return [m.label for m in MEASURES.values() if m.per_sample is not None]


def check_per_sample_path(text: str) -> Path:
    """The path to write, refused before any row is read: a suffix not in :data:`SUFFIXES`
    (status 2), Parquet without pyarrow, a folder that is not there."""
    path = Path(text)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise CliError(
            f"--per-sample {text}: the file name must end in {', '.join(SUFFIXES[:-1])} or"
            f" {SUFFIXES[-1]}",
            2,
        )
    if suffix == ".parquet":
        try:
            import pyarrow.parquet  # noqa: F401
        except ImportError as e:
            raise CliError(
                f"--per-sample {text}: writing Parquet needs pyarrow: pip install"
                f" 'fastcluster-metrics[io]' ({e})"
            ) from e
    if not path.parent.is_dir():
        raise CliError(f"--per-sample {text}: no such directory: {path.parent}")
    if path.is_dir():
        raise CliError(f"--per-sample {text}: a directory, not a file")
    return path


def per_sample_measures(metrics: Sequence[str]) -> list[Measure]:
    """The measures of ``--metrics`` that have a per-sample form; ECS when none has."""
    rows = [MEASURES[m] for m in metrics if MEASURES[m].per_sample is not None]
    return rows or [per_sample_measure("ECS", PROG, "--per-sample")]


def _whole(parts: list[Any]) -> Any:
    """A column from its chunks: the one chunk itself, or the Arrow arrays of a file read in
    chunks as one chunked array (their dictionaries need not agree)."""
    if len(parts) == 1:
        return parts[0]
    import pyarrow as pa

    return pa.chunked_array(parts)


def per_sample_scores(
    plan: Plan, chunks: list[Chunk], measures: Sequence[Measure], missing: str
) -> dict[str, NDArray[np.float64]]:
    """The scores of every row of ``chunks`` (the chunks counted), by column name."""
    truth = _whole([t for t, _, _ in chunks])
    weights = None
    if plan.weights is not None:
        weights = np.concatenate([np.asarray(w, dtype=np.float64) for _, _, w in chunks])
    columns: dict[str, NDArray[np.float64]] = {}
    for i, name in enumerate(plan.preds):
        labels = _whole([preds[i] for _, preds, _ in chunks])
        for row in measures:
            try:
                columns[f"{name}:{row.label}"] = per_sample_score(
                    truth, labels, measure=row.name, missing=missing, sample_weight=weights
                )
            except (ValueError, TypeError) as e:
                raise CliError(
                    f"per-sample {row.label} of {name!r} against {plan.truth!r}: {first_line(e)}"
                ) from e
    return columns


def save_per_sample(
    path: Path, columns: dict[str, NDArray[np.float64]], ids: tuple[str, Any] | None = None
) -> None:
    """The scores written to ``path`` (CSV, TSV or Parquet, by its suffix), after the id
    column ``ids`` (its name and values) if given."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            _parquet(path, columns, ids)
        else:
            _text(path, columns, ids, "\t" if suffix == ".tsv" else ",")
    except OSError as e:
        raise CliError(f"cannot write {path}: {first_line(e)}") from e


def _parquet(
    path: Path, columns: dict[str, NDArray[np.float64]], ids: tuple[str, Any] | None
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {} if ids is None else {ids[0]: pa.array(np.asarray(ids[1]), pa.string())}
    arrays.update((name, pa.array(values)) for name, values in columns.items())  # NaN kept
    pq.write_table(pa.table(arrays), path)


def _text(
    path: Path, columns: dict[str, NDArray[np.float64]], ids: tuple[str, Any] | None, sep: str
) -> None:
    """A header (quoted where needed), then the rows: each float in a shortest form that
    reads back exactly, NaN as an empty field (``""`` when it is the row's only one); with
    pyarrow's CSV writer (about 15 times faster than pandas'), or pandas' without pyarrow."""
    names = ([] if ids is None else [ids[0]]) + list(columns)
    header = io.StringIO()
    csv.writer(header, delimiter=sep, lineterminator="\n").writerow(names)
    try:
        import pyarrow as pa
        import pyarrow.csv as pv
    except ImportError:
        import pandas as pd

        frame = pd.DataFrame(columns)
        if ids is not None:
            frame.insert(0, ids[0], np.asarray(ids[1], dtype=str))
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(header.getvalue())
            frame.to_csv(f, sep=sep, index=False, header=False, lineterminator="\n")
        return
    import pyarrow.compute as pc

    arrays = [] if ids is None else [pa.array(np.asarray(ids[1]), pa.string())]
    arrays += [pa.array(values, from_pandas=True) for values in columns.values()]  # NaN: null
    if len(arrays) == 1 and arrays[0].null_count:
        # A row of one empty field would be a blank line, which readers skip: "" (as Python's
        # csv module and pandas write it), each value and its newline joined by pyarrow.
        text = pc.fill_null(pc.cast(arrays[0], pa.large_string()), '""')
        lines = pc.binary_join_element_wise(
            text, *(pa.scalar(s, pa.large_string()) for s in ("", "\n"))
        )
        _, offsets, data = lines.buffers()
        ends = np.frombuffer(offsets, np.int64)[lines.offset :][[0, len(lines)]]
        with pa.OSFile(str(path), "wb") as sink:
            sink.write(header.getvalue().encode("utf-8"))
            sink.write(data[int(ends[0]) : int(ends[1])])
        return
    table = pa.Table.from_arrays(arrays, [f"c{i}" for i in range(len(arrays))])
    # pyarrow quotes every text field or none: ids in quotes only when one needs them.
    special = f'["\\r\\n{sep}]'  # (sep: a comma or a tab)
    quoted = ids is not None and pc.any(pc.match_substring_regex(arrays[0], special)).as_py()
    options = pv.WriteOptions(
        include_header=False, delimiter=sep, quoting_style="needed" if quoted else "none"
    )
    with pa.OSFile(str(path), "wb") as sink:
        sink.write(header.getvalue().encode("utf-8"))
        pv.write_csv(table, sink, options)
