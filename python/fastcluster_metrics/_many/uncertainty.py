"""Uncertainty of any measure: bootstrap confidence intervals and permutation p-values.

Both work on the contingency table alone, never on the labels again:

* **bootstrap**, resampling samples: resampling ``n`` samples with replacement gives a table
  whose cells are one multinomial draw with ``n`` trials over the observed non-zero cells
  (probabilities ``n_ij / n``), so each replicate is one ``Generator.multinomial`` call and
  one table built from its cells. Resampling **groups** (donors, batches, slides: the units
  that were sampled independently) takes one table per group, built once (for instance with
  :func:`group_tables`); each replicate draws as many groups with replacement and sums their
  tables.
* **permutation test**: a random permutation of one labeling keeps both labelings' sizes, and
  the table it gives is a random table with the observed row and column sums, drawn exactly
  (without permuting anything) row by row: row ``i`` takes ``a_i`` samples without
  replacement from the clusters' remaining sizes (``Generator.multivariate_hypergeometric``).
  ``p = (1 + #{null >= observed}) / (1 + n_resamples)``, never 0.

Measures are given by name (any name of the catalogue, full or short, as :func:`evaluate`
takes them) or as a function of a :class:`Contingency`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _native
from .._measures.contingency import Contingency
from .._measures.lookup import resolve
from .._table.merge import stack
from .._utils.params import _fail
from .._utils.public import public

__all__ = [
    "BootstrapResult",
    "PermutationResult",
    "bootstrap",
    "group_tables",
    "permutation_test",
]

_Measure = str | Callable[[Contingency], float]
_MAX_HYPERGEOMETRIC = 10**9  # numpy's limit on the population of one hypergeometric draw
_CHUNK = 64  # multinomial replicates drawn at once


@public
@dataclass(frozen=True)
class BootstrapResult:
    """A bootstrap percentile confidence interval of a measure."""

    estimate: float
    """The measure of the observed table."""
    low: float
    """Lower end of the percentile interval."""
    high: float
    """Upper end of the percentile interval."""
    standard_error: float
    """Standard deviation of the replicates (``ddof=1``)."""
    confidence_level: float
    replicates: NDArray[np.float64] = field(repr=False)
    """The measure of each resampled table (nan where it is undefined: those are left out of
    the interval and the standard error)."""

    def __repr__(self) -> str:
        return (
            f"BootstrapResult(estimate={self.estimate:.6g}, low={self.low:.6g},"
            f" high={self.high:.6g}, standard_error={self.standard_error:.6g},"
            f" confidence_level={self.confidence_level}, n_resamples={self.replicates.size})"
        )


@public
@dataclass(frozen=True)
class PermutationResult:
    """A Monte Carlo permutation test of a measure."""

    statistic: float
    """The measure of the observed table."""
    pvalue: float
    """``(1 + #{null >= statistic}) / (1 + n_resamples)`` (``<=`` for ``alternative="less"``)."""
    null_distribution: NDArray[np.float64] = field(repr=False)
    """The measure of each table drawn with the observed margins."""

    def __repr__(self) -> str:
        return (
            f"PermutationResult(statistic={self.statistic:.6g}, pvalue={self.pvalue:.6g},"
            f" n_resamples={self.null_distribution.size})"
        )


# --- parameters ----------------------------------------------------------------------------------


def _measure(func: str, measure: object) -> Callable[[Contingency], float]:
    if isinstance(measure, str):
        return resolve(measure, func, "measure")
    if callable(measure):
        return lambda table: float(measure(table))
    raise _fail("measure", func, "a measure name or a callable", measure)


def _n_resamples(func: str, value: object) -> int:
    if not isinstance(value, Integral) or isinstance(value, bool) or int(value) < 1:
        raise _fail("n_resamples", func, "an int in the range [1, inf)", value)
    return int(value)


def _confidence_level(func: str, value: object) -> float:
    if not isinstance(value, Real) or isinstance(value, bool) or not 0 < float(value) < 1:
        raise _fail("confidence_level", func, "a float in the range (0.0, 1.0)", value)
    return float(value)


def _replicate(template: Contingency, native: _native.Table) -> Contingency:
    return Contingency._of(native, template.classes, template.clusters)


def _evaluate_all(
    measure: Callable[[Contingency], float], tables: Iterable[Contingency]
) -> NDArray[np.float64]:
    return np.array([measure(t) for t in tables], dtype=np.float64)


def _check_counts(func: str, table: Contingency) -> None:
    """Resampling draws samples: a table of real-valued cells (sums of weights that are not
    whole numbers) has no samples to draw."""
    if table.weighted:
        raise ValueError(
            f"{func} resamples samples, so it needs a table of counts: this table's cells are"
            " sums of weights that are not whole numbers. Use whole-number sample_weight and"
            " class_weight (each sample then counts that many times)"
        )


# --- bootstrap -----------------------------------------------------------------------------------


def _aligned(tables: Sequence[Contingency]) -> tuple[Contingency, NDArray[np.int64], list[Any]]:
    """The sum of the tables, and for each of its cells the group it comes from: the cells of
    every group, in the summed table's row and column numbering."""
    if not tables:
        raise ValueError("bootstrap over groups needs at least one group table")
    for t in tables:
        if not isinstance(t, Contingency):
            raise TypeError(f"group tables must be Contingency objects, not {type(t).__name__}")
        _check_counts("bootstrap", t)
    cells = stack(tables)
    native = _native.table_from_cells(
        cells.classes.size, cells.clusters.size, cells.rows, cells.cols, cells.counts
    )
    total = Contingency._of(native, cells.classes, cells.clusters)
    return total, cells.part, [cells.rows, cells.cols, cells.counts]


def bootstrap(
    table: Contingency | Sequence[Contingency] | Mapping[Any, Contingency],
    measure: _Measure = "adjusted_rand_score",
    *,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int | np.random.Generator | None = None,
) -> BootstrapResult:
    """Bootstrap percentile confidence interval of ``measure``, from the table alone.

    ``table`` is a :class:`Contingency` to resample its samples, or a sequence (or mapping) of
    per-group tables to resample the groups (donors, batches: the units sampled independently;
    see :func:`group_tables`). ``measure`` is a measure's name (as :func:`evaluate` takes it) or a
    function of a :class:`Contingency`.

    * Samples: each replicate is a multinomial draw of ``n`` samples over the observed
      non-zero cells, with probabilities ``n_ij / n``: the table of ``n`` samples drawn with
      replacement, without touching the labels.
    * Groups: each replicate draws ``G`` of the ``G`` group tables with replacement (draw
      ``r`` is row ``r`` of ``rng.integers(0, G, size=(n_resamples, G))``) and sums them.

    The interval is the ``(1 - confidence_level) / 2`` and ``(1 + confidence_level) / 2``
    quantiles of the replicates (``numpy.quantile``'s linear interpolation); replicates where
    the measure is nan are left out. ``seed`` seeds ``numpy.random.default_rng``.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> c = fcm.Contingency.from_labels([0] * 50 + [1] * 50, [0] * 45 + [1] * 55)
    >>> ci = fcm.bootstrap(c, "adjusted_rand_score", n_resamples=200, seed=0)
    >>> round(ci.estimate, 4), bool(ci.low < ci.estimate < ci.high), ci.replicates.shape
    (0.8081, True, (200,))
    """
    func = "bootstrap"
    metric = _measure(func, measure)
    resamples = _n_resamples(func, n_resamples)
    level = _confidence_level(func, confidence_level)
    rng = np.random.default_rng(seed)
    if isinstance(table, Contingency):
        _check_counts(func, table)
        estimate = metric(table)
        replicates = _evaluate_all(metric, _cell_replicates(table, resamples, rng))
    else:
        groups = list(table.values()) if isinstance(table, Mapping) else list(table)
        total, group_of_cell, cells = _aligned(groups)
        estimate = metric(total)
        draws = rng.integers(0, len(groups), size=(resamples, len(groups)))
        replicates = _evaluate_all(
            metric, _group_replicates(total, group_of_cell, cells, draws, len(groups))
        )
    finite = replicates[~np.isnan(replicates)]
    if finite.size == 0:
        low = high = se = math.nan
    else:
        alpha = 1 - level
        low, high = (float(x) for x in np.quantile(finite, [alpha / 2, 1 - alpha / 2]))
        se = float(np.std(finite, ddof=1)) if finite.size > 1 else math.nan
    return BootstrapResult(float(estimate), low, high, se, level, replicates)


def _cell_replicates(
    table: Contingency, resamples: int, rng: np.random.Generator
) -> Iterable[Contingency]:
    rows, cols, counts = table.cells
    n = table.n
    if n == 0:
        raise ValueError("cannot bootstrap an empty contingency table")
    p = counts / n
    n_rows, n_cols = table.shape
    for start in range(0, resamples, _CHUNK):
        for draw in rng.multinomial(n, p, size=min(_CHUNK, resamples - start)):
            native = _native.table_from_cells(n_rows, n_cols, rows, cols, draw.astype(np.int64))
            yield _replicate(table, native)


def _group_replicates(
    total: Contingency,
    group_of_cell: NDArray[np.int64],
    cells: list[Any],
    draws: NDArray[np.int64],
    n_groups: int,
) -> Iterable[Contingency]:
    rows, cols, counts = cells
    n_rows, n_cols = total.shape
    for draw in draws:
        weight = np.bincount(draw, minlength=n_groups)
        native = _native.table_from_cells(
            n_rows, n_cols, rows, cols, counts * weight[group_of_cell]
        )
        yield _replicate(total, native)


def group_tables(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    groups: ArrayLike,
    *,
    missing: str = "raise",
) -> dict[Any, Contingency]:
    """One :class:`Contingency` per group (donor, batch, sample), by group label in sorted order,
    for :func:`bootstrap` over groups. Their sum is the table of all samples.

    Each group's labels are selected once (``numpy`` indexing) and counted in one pass;
    ``missing`` applies to ``labels_true`` and ``labels_pred`` (groups must not be missing).

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> tables = fcm.group_tables([0, 0, 1, 1], [0, 0, 1, 0], ["d1", "d1", "d2", "d2"])
    >>> {g: t.to_numpy().tolist() for g, t in tables.items()}
    {'d1': [[2]], 'd2': [[1, 1]]}
    """
    true, pred, group = (np.asarray(x) for x in (labels_true, labels_pred, groups))
    if not (true.ndim == pred.ndim == group.ndim == 1):
        raise ValueError("labels_true, labels_pred and groups must be 1-D")
    if not (true.shape == pred.shape == group.shape):
        raise ValueError(
            "labels_true, labels_pred and groups must have the same length; got"
            f" {true.shape[0]}, {pred.shape[0]} and {group.shape[0]}"
        )
    names, codes = np.unique(group, return_inverse=True)
    order = np.argsort(codes.reshape(-1), kind="stable")
    bounds = np.searchsorted(codes.reshape(-1)[order], np.arange(names.size + 1))
    out: dict[Any, Contingency] = {}
    for g, name in enumerate(names.tolist()):
        index = order[bounds[g] : bounds[g + 1]]
        out[name] = Contingency.from_labels(true[index], pred[index], missing=missing)
    return out


# --- permutation test ----------------------------------------------------------------------------


def _random_cells(
    class_sizes: NDArray[np.int64], cluster_sizes: NDArray[np.int64], rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The cells (rows, columns, counts, zeros included) of a table drawn uniformly among the
    tables of the samples' random permutations: row by row, ``a_i`` samples without replacement
    from the remaining cluster sizes; the last row takes what remains."""
    nonempty = np.flatnonzero(class_sizes)
    remaining = cluster_sizes.astype(np.int64).copy()
    n_cols = remaining.size
    counts = np.empty((nonempty.size, n_cols), dtype=np.int64)
    for k, i in enumerate(nonempty[:-1].tolist()):
        draw = rng.multivariate_hypergeometric(remaining, int(class_sizes[i]))
        counts[k] = draw
        remaining -= draw
    if nonempty.size:
        counts[-1] = remaining
    rows = np.repeat(nonempty.astype(np.int64), n_cols)
    cols = np.tile(np.arange(n_cols, dtype=np.int64), nonempty.size)
    return rows, cols, counts.reshape(-1)


def _null_tables(
    table: Contingency, resamples: int, rng: np.random.Generator
) -> Iterable[Contingency]:
    a, b = table.class_sizes, table.cluster_sizes
    n_rows, n_cols = table.shape
    for _ in range(resamples):
        native = _native.table_from_cells(n_rows, n_cols, *_random_cells(a, b, rng))
        yield _replicate(table, native)


def permutation_test(
    table: Contingency,
    measure: _Measure = "adjusted_rand_score",
    *,
    n_resamples: int = 999,
    alternative: str = "greater",
    seed: int | np.random.Generator | None = None,
) -> PermutationResult:
    """Monte Carlo permutation test of ``measure`` (is the agreement more than chance?).

    Under the null hypothesis the labelings are unrelated: ``labels_pred`` is as likely as any
    permutation of it. The table of a random permutation is a random table with the observed
    class and cluster sizes; each is drawn exactly, row by row, by multivariate hypergeometric
    draws from the clusters' remaining sizes (``Generator.multivariate_hypergeometric``), with
    no pass over the labels. ``p = (1 + #{null >= observed}) / (1 + n_resamples)`` for
    ``alternative="greater"`` (similarities such as ARI and AMI), ``<=`` for ``"less"``
    (distances such as the variation of information); as ``scipy.stats.permutation_test``,
    null values within ``100 eps |observed|`` of the observed one count as ties. Needs
    ``n < 10**9`` (numpy's hypergeometric sampler). ``seed`` seeds
    ``numpy.random.default_rng``.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> c = fcm.Contingency.from_labels([0] * 20 + [1] * 20, [0] * 18 + [1] * 22)
    >>> fcm.permutation_test(c, "adjusted_mutual_info_score", n_resamples=199, seed=0).pvalue
    0.005
    """
    func = "permutation_test"
    if not isinstance(table, Contingency):
        raise TypeError(f"{func} takes a Contingency, not {type(table).__name__}")
    _check_counts(func, table)
    metric = _measure(func, measure)
    resamples = _n_resamples(func, n_resamples)
    if alternative not in ("greater", "less"):
        raise _fail("alternative", func, "a str among {'greater', 'less'}", alternative)
    if table.n >= _MAX_HYPERGEOMETRIC:
        raise ValueError(f"{func} supports fewer than 10**9 samples; the table has {table.n}")
    rng = np.random.default_rng(seed)
    observed = metric(table)
    null = _evaluate_all(metric, _null_tables(table, resamples, rng))
    tie = 100 * np.finfo(np.float64).eps * abs(observed)
    if alternative == "greater":
        extreme = int(np.count_nonzero(null >= observed - tie))
    else:
        extreme = int(np.count_nonzero(null <= observed + tie))
    return PermutationResult(float(observed), (1 + extreme) / (1 + resamples), null)
