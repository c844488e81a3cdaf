"""Contingency tables and scores of Dask collections (the ``dask`` extra).

Each partition is counted in one Rust pass, on the worker that holds it, into a small table
keyed by label value; the tables merge by label value in a tree (``split_every`` at a time),
so partitions with different label sets give the table of the whole column, equal to the one
computed in memory. Only the tables (classes x clusters cells) travel, never the labels.

The silhouette of a Dask array (:func:`silhouette_samples`, :func:`silhouette_score`) scores
each row block on a worker against all samples, each value equal to the in-memory one to the
last bit (:mod:`._embedding.distributed`).

``import fastcluster_metrics.dask`` explicitly; ``import fastcluster_metrics`` never imports
Dask.

Examples
--------
>>> import numpy as np, dask.array as da
>>> import fastcluster_metrics.dask as fcm_dask
>>> truth = da.from_array(np.array(["a", "a", "b", "b", "c", "c"]), chunks=2)
>>> leiden = da.from_array(np.array([0, 0, 1, 1, 1, 1]), chunks=3)
>>> table = fcm_dask.contingency(truth, leiden)
>>> table.classes.tolist(), table.to_numpy().tolist()
(['a', 'b', 'c'], [[2, 0], [0, 2], [0, 2]])
>>> fcm_dask.evaluate(truth, leiden, metrics=["purity_score"]).to_dict()
{'purity_score': 0.6666666666666666}
"""

from __future__ import annotations

import functools
import glob
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ._embedding.distributed import silhouette_samples, silhouette_score
from ._io.formats import is_store
from ._io.readers import check_batch_size, open_file
from ._io.stream import Partial, merge, partial, read_partial, to_contingency
from ._labels.codes import check_missing
from ._labels.weights import check_class_weight
from ._measures.contingency import Contingency
from ._measures.evaluate import Evaluation, scores
from ._measures.lookup import resolve_all

__all__ = [
    "contingency",
    "evaluate",
    "read_contingency",
    "silhouette_samples",
    "silhouette_score",
]


def _readable(labels: Any) -> Any:
    """One partition's labels as the counting pass reads them fastest.

    A pandas Series backed by Arrow (Dask's default ``string[pyarrow]``) goes as its Arrow
    array, hashed by the core from its buffers (no Python strings). Numbers that arrive from
    another process can sit in a misaligned buffer: they are copied once, aligned.
    """
    if type(labels).__name__ == "Series":
        import pandas as pd

        dtype = labels.dtype
        if isinstance(dtype, pd.StringDtype) and "pyarrow" in str(dtype.storage):
            return labels.array.__arrow_array__()
        if isinstance(dtype, np.dtype):
            labels = labels.to_numpy()
    if isinstance(labels, np.ndarray) and not labels.flags.aligned:
        return np.array(labels)
    return labels


def _count(labels_true: Any, labels_pred: Any, missing: str, weights: Any = None) -> Partial:
    """The table of one partition, its samples weighted by ``weights`` if given (runs on a
    worker)."""
    w = None if weights is None else _readable(weights)
    return partial(
        _readable(labels_true),
        _readable(labels_pred),
        missing,
        w,
        "fastcluster_metrics.dask.contingency",
    )


def _count_frame(frame: Any, missing: str) -> Partial:
    """The table of one partition of a two-column DataFrame, and its column of weights if it
    has one (runs on a worker)."""
    weights = frame["weights"] if "weights" in frame.columns else None
    return _count(frame["labels_true"], frame["labels_pred"], missing, weights)


def _merge(*parts: Partial) -> Partial:
    return merge(parts)


def _co_aligned(labels_true: Any, labels_pred: Any) -> bool:
    """Whether two dask Series come from one DataFrame (modulo row-wise operations)."""
    try:
        from dask.dataframe.dask_expr import _expr
    except ImportError:  # pragma: no cover - a dask without dask-expr
        return False
    check: Any = getattr(_expr, "are_co_aligned", None)
    return check is not None and bool(check(labels_true.expr, labels_pred.expr))


def _partition_tables(
    labels_true: Any, labels_pred: Any, missing: str, weights: Any = None
) -> list[Any]:
    """One delayed partial table per partition."""
    import dask.dataframe as dd
    from dask.delayed import delayed

    if (
        isinstance(labels_true, dd.Series)
        and isinstance(labels_pred, dd.Series)
        and _co_aligned(labels_true, labels_pred)
        and (
            weights is None
            or (isinstance(weights, dd.Series) and _co_aligned(labels_true, weights))
        )
    ):
        # Columns of one DataFrame: one task reads both (one Parquet read per partition, and
        # no column travels between workers).
        true: Any = labels_true
        frame = true.to_frame(name="labels_true").assign(labels_pred=labels_pred)
        if weights is not None:
            frame = frame.assign(weights=weights)
        return [delayed(_count_frame, pure=True)(part, missing) for part in frame.to_delayed()]
    pairs = _partitions(labels_true, labels_pred)
    if weights is None:
        return [delayed(_count, pure=True)(t, p, missing) for t, p in pairs]
    matched = _partitions(labels_true, weights, "sample_weight")
    return [
        delayed(_count, pure=True)(t, p, missing, w)
        for (t, p), (_, w) in zip(pairs, matched, strict=True)
    ]


def _partitions(
    labels_true: Any, labels_pred: Any, other: str = "labels_pred"
) -> list[tuple[Any, Any]]:
    """Matching partitions of the two collections, as pairs of delayed objects (``other``
    names the second in the errors)."""
    import dask.array as da
    import dask.dataframe as dd

    true: Any = labels_true  # (dask's own annotations are partial: Any from here)
    pred: Any = labels_pred
    if isinstance(labels_true, da.Array) and isinstance(labels_pred, da.Array):
        for name, x in (("labels_true", true), (other, pred)):
            if x.ndim != 1:
                raise ValueError(f"{name} must be 1D: shape is {x.shape!r}")
        n_true, n_pred = true.shape[0], pred.shape[0]
        if n_true == n_true and n_pred == n_pred and n_true != n_pred:  # both known (not NaN)
            raise ValueError(
                f"Found input variables with inconsistent numbers of samples: [{n_true}, {n_pred}]"
            )
        if pred.chunks != true.chunks:
            pred = pred.rechunk(true.chunks)
        return list(zip(true.to_delayed().ravel(), pred.to_delayed().ravel(), strict=True))
    if isinstance(labels_true, dd.Series) and isinstance(labels_pred, dd.Series):
        if true.npartitions != pred.npartitions or true.divisions != pred.divisions:
            if not (true.known_divisions and pred.known_divisions):
                raise ValueError(
                    f"labels_true and {other} have different partitions"
                    f" ({true.npartitions} and {pred.npartitions}) and unknown divisions:"
                    " take both from one DataFrame, or repartition them alike"
                )
            pred = pred.repartition(divisions=true.divisions)
        return list(zip(true.to_delayed(), pred.to_delayed(), strict=True))
    raise TypeError(
        f"labels_true and {other} must both be 1-D dask arrays or both dask DataFrame"
        f" columns (Series); got {type(labels_true).__name__} and {type(labels_pred).__name__}"
    )


def contingency(
    labels_true: Any,
    labels_pred: Any,
    *,
    missing: str = "raise",
    split_every: int = 8,
    compute: bool = True,
    sample_weight: Any = None,
    class_weight: str | dict[Any, float] | None = None,
) -> Any:
    """The :class:`~fastcluster_metrics.Contingency` of two Dask collections.

    ``labels_true`` and ``labels_pred`` are 1-D dask arrays (``labels_pred`` is rechunked to
    ``labels_true``'s chunks if they differ) or dask DataFrame columns (Series). Columns of
    one DataFrame are read together, one task per partition (a Parquet partition is read
    once, and no column travels between workers); Series of different origins are matched
    partition by partition, ``labels_pred`` repartitioned to ``labels_true``'s divisions if
    both are known and differ. Any label type the metrics take, per partition: pandas
    Categorical codes and Arrow strings go through their fast paths. ``missing`` is as in
    every metric. Partition tables merge ``split_every`` at a time. ``sample_weight`` (a
    collection of the same kind, one non-negative number per sample, partitioned alike or
    matched as ``labels_pred`` is) weighs the samples; weighted tables merge exactly, so the
    result equals ``Contingency.from_labels(..., sample_weight=...)`` in memory.
    ``class_weight`` (as ``from_labels`` takes it: ``"balanced"`` or a dict) scales the rows
    of the merged table, once, after the partition tables merge (``"balanced"``: by the
    classes' totals over all partitions), so the result equals ``from_labels(...,
    class_weight=...)`` in memory; it is checked before anything is computed, and a class it
    names that ``labels_true`` lacks raises ``ValueError`` when the table is computed.

    Returns the computed table (with the current scheduler: a ``distributed.Client`` if one
    is active), or with ``compute=False`` a ``dask.delayed`` object that computes it.
    """
    return _contingency(
        "fastcluster_metrics.dask.contingency",
        labels_true,
        labels_pred,
        missing,
        split_every,
        compute,
        sample_weight,
        class_weight,
    )


def _contingency(
    func: str,
    labels_true: Any,
    labels_pred: Any,
    missing: str,
    split_every: int,
    compute: bool,
    sample_weight: Any,
    class_weight: Any,
) -> Any:
    """:func:`contingency` for the call ``func`` (which its errors name)."""
    missing = check_missing(func, missing)
    class_weight = check_class_weight(func, class_weight)
    _check_split_every(split_every)
    tables = _partition_tables(labels_true, labels_pred, missing, sample_weight)
    return _reduce(tables, split_every, compute, class_weight, func)


def _check_split_every(split_every: object) -> None:
    if not isinstance(split_every, int) or isinstance(split_every, bool) or split_every < 2:
        raise ValueError(f"split_every must be an int of at least 2; got {split_every!r}")


def _reduce(
    parts: list[Any],
    split_every: int,
    compute: bool,
    class_weight: str | dict[Any, float | int] | None,
    func: str,
) -> Any:
    """The partial tables merged as a tree, then the public table (computed, or delayed),
    its rows scaled by the class weights (checked) once the tables have merged."""
    from dask.delayed import delayed

    if not parts:
        empty = Contingency.from_labels([], [], class_weight=class_weight)
        return empty if compute else delayed(empty)
    if len(parts) == 1:  # a merge sorts the labels, even of one partition
        parts = [delayed(_merge, pure=True)(parts[0])]
    while len(parts) > 1:
        parts = [
            delayed(_merge, pure=True)(*parts[i : i + split_every])
            for i in range(0, len(parts), split_every)
        ]
    # The class weights go bound to the function, so Dask passes them as they are (it would
    # unpack a dict argument into a task of its own and look into it for keys).
    finish = functools.partial(to_contingency, class_weight=class_weight, func=func)
    table = delayed(finish, pure=True)(parts[0])
    return table.compute() if compute else table


def _files(paths: Any) -> list[Path]:
    """Files from a path, a directory (its files and zarr stores, sorted; a zarr store is one
    file), a glob pattern, or a list of them."""
    if isinstance(paths, (str, os.PathLike)):
        text = os.fspath(paths)
        if any(c in text for c in "*?["):
            found = sorted(Path(p) for p in glob.glob(text))
            if not found:
                raise FileNotFoundError(f"no file matches {text!r}")
            return found
        path = Path(text)
        if path.is_dir() and not is_store(path):
            found = sorted(
                p
                for p in path.iterdir()
                if (p.is_file() or is_store(p)) and not p.name.startswith(".")
            )
            if not found:
                raise FileNotFoundError(f"no file in the directory {text}")
            return found
        return [path]
    return [f for p in paths for f in _files(p)]


def _read_task(
    path: str,
    kind: str,
    encoding: str,
    truth: str,
    pred: str,
    batch_size: int,
    missing: str,
    row_groups: list[int] | None,
    weights: str | None = None,
) -> Partial:
    """The table of two columns of one file or of some of its row groups, weighted by the
    column ``weights`` if given (runs on a worker)."""
    file = open_file(path, kind, encoding=encoding)
    return read_partial(file, truth, pred, batch_size, missing, False, row_groups, weights)


def read_contingency(
    paths: Any,
    truth: str,
    pred: str,
    *,
    format: str | None = None,
    row_groups_per_task: int = 16,
    batch_size: int = 1 << 20,
    missing: str = "raise",
    split_every: int = 8,
    compute: bool = True,
    encoding: str = "utf-8",
    weights: str | None = None,
    class_weight: str | dict[Any, float] | None = None,
) -> Any:
    """The :class:`~fastcluster_metrics.Contingency` of two columns of many files, each read
    and counted on the workers with pyarrow, in bounded memory.

    ``paths`` is a file, a directory (its files), a glob pattern, or a list of them, on a
    file system that every worker can read. One task per file; a Parquet file is split into
    tasks of ``row_groups_per_task`` row groups (its footer is read here to plan them). Each
    task streams its part as :func:`~fastcluster_metrics.read_contingency` does
    (``format``, ``batch_size``, ``missing`` and ``encoding`` as there) and returns a small
    table; the tables merge ``split_every`` at a time. No DataFrame is built, and only tables
    travel. ``weights`` names a column of sample weights, read as
    :func:`~fastcluster_metrics.read_contingency` reads it; ``class_weight`` scales the rows
    of the merged table of all the files, once, as in :func:`contingency`.

    Returns the computed table, or with ``compute=False`` a ``dask.delayed`` object.
    """
    from dask.delayed import delayed

    func = "fastcluster_metrics.dask.read_contingency"
    missing = check_missing(func, missing)
    class_weight = check_class_weight(func, class_weight)
    check_batch_size(batch_size)
    _check_split_every(split_every)
    if not isinstance(row_groups_per_task, int) or row_groups_per_task < 1:
        raise ValueError(f"row_groups_per_task must be a positive int; got {row_groups_per_task!r}")
    tasks = []
    for path in _files(paths):
        file = open_file(path, format, encoding=encoding)
        pieces: list[list[int] | None] = [None]
        if file.kind == "parquet":
            n = file.num_row_groups()
            pieces = [
                list(range(i, min(i + row_groups_per_task, n)))
                for i in range(0, n, row_groups_per_task)
            ]
        for groups in pieces:
            task = delayed(_read_task, pure=True)
            tasks.append(
                task(
                    file.name,
                    file.kind,
                    file.encoding,
                    truth,
                    pred,
                    int(batch_size),
                    missing,
                    groups,
                    weights,
                )
            )
    return _reduce(tasks, split_every, compute, class_weight, func)


def evaluate(
    labels_true: Any,
    labels_pred: Any,
    metrics: Iterable[str] | str | None = None,
    *,
    missing: str = "raise",
    split_every: int = 8,
    sample_weight: Any = None,
    class_weight: str | dict[Any, float] | None = None,
) -> Evaluation:
    """:func:`~fastcluster_metrics.evaluate`'s scores (all, or the chosen ones) of two Dask
    collections, from :func:`contingency` (``sample_weight`` and ``class_weight`` as there):
    the same values as in memory."""
    func = "fastcluster_metrics.dask.evaluate"
    measures = resolve_all(metrics, func)
    table = _contingency(
        func, labels_true, labels_pred, missing, split_every, True, sample_weight, class_weight
    )
    return scores(table, measures)
