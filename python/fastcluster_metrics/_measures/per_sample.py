"""Per-sample measures: one score for each sample, from the cell of the table it falls in.

For two partitions, a sample's element-centric similarity and its BCubed precision, recall
and F depend on three numbers only: the count ``c`` of its cell, the size ``a`` of its class
and the size ``b`` of its cluster (the catalogue's :attr:`Measure.per_sample` formulas, in
``matching.py``). So every sample's score costs the one counting pass, one value per cell,
and a second pass in the core that hands each sample its cell's value (``Table.gather``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._table.count import Table, count_samples
from .._utils.params import InvalidParameterError
from .._utils.public import public
from .catalogue import MEASURES, Measure
from .lookup import resolve

__all__ = ["cell_values", "per_sample_measure", "per_sample_score"]


def per_sample_measure(measure: object, func: str, param: str = "measure") -> Measure:
    """The catalogue's row of a measure that has a per-sample form; an error naming those
    that do for any other."""
    row = resolve(measure, func, param)
    if row.per_sample is None:
        have = ", ".join(repr(r.label) for r in MEASURES.values() if r.per_sample is not None)
        raise InvalidParameterError(
            f"{row.name!r} has no per-sample form: the {param!r} parameter of {func} must be"
            f" one of {have} (or their full names)"
        )
    return row


def cell_values(table: Table, row: Measure) -> NDArray[np.float64]:
    """The per-sample measure's value for each cell of the table, in the table's cell order."""
    assert row.per_sample is not None
    rows, cols, counts = table.cells()
    c = counts.astype(np.float64)
    a = table.row_sums().astype(np.float64)[rows]
    b = table.col_sums().astype(np.float64)[cols]
    values: NDArray[np.float64] = np.ascontiguousarray(row.per_sample(c, a, b), dtype=np.float64)
    return values


@public
def per_sample_score(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    measure: str = "ECS",
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """One score per sample: how well the sample's cluster agrees with its class.

    A sample of class ``i`` (``a`` samples) and cluster ``j`` (``b`` samples), with ``c``
    samples in both, scores

    - ``"ECS"`` (element-centric similarity [GWJA19]_): ``c / max(a, b)``, which is
      ``1 - L1 / 2`` between the sample's affinities, uniform over its class and over its
      cluster. It is clusim's ``element_sim_elscore`` of two partitions for every ``alpha``:
      there a sample's affinity is ``alpha`` spread uniformly over its cluster plus
      ``1 - alpha`` on itself; the second part is the same on both sides and cancels, and
      clusim divides the L1 distance of the first by ``2 alpha``;
    - ``"BCubed precision"``: ``c / b``; ``"BCubed recall"``: ``c / a`` [AGAV09]_;
    - ``"BCubed F"``: ``2 c / (a + b)``, the harmonic mean of the two.

    Their mean over the samples is :func:`element_centric_similarity`,
    :func:`bcubed_precision` and :func:`bcubed_recall`; the mean of the per-sample BCubed F is
    not :func:`bcubed_f_score`, which is the harmonic mean of the two means. Full names
    (``"element_centric_similarity"``, ...) work too, in any case.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        Any label type the metrics take.
    measure : str, default="ECS"
        The per-sample measure.
    missing : {"raise", "drop", "cluster"}, default="raise"
        As for every metric; a dropped sample's score is NaN, so that the result lines up
        with the input.
    sample_weight : array-like of shape (n_samples,), default=None
        ``c``, ``a`` and ``b`` become sums of weights; the weighted mean of the scores is
        then the weighted measure. A sample of weight 0 whose cell holds no weight scores NaN.

    Returns
    -------
    scores : ndarray of shape (n_samples,), float64

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> fcm.per_sample_score([0, 0, 0, 1], [0, 0, 1, 1]).tolist()
    [0.6666666666666666, 0.6666666666666666, 0.3333333333333333, 0.5]
    """
    func = "per_sample_score"
    row = per_sample_measure(measure, func)
    structure, table, true, pred, keep = count_samples(
        func, labels_true, labels_pred, missing, sample_weight
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        values = cell_values(table, row)
    absent = None if sample_weight is None else np.nan
    scores = structure.gather(true.codes, pred.codes, values, absent)
    if keep is None:
        return scores
    out = np.full(keep.shape[0], np.nan)
    out[keep] = scores
    return out
