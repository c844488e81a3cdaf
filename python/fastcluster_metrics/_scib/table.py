"""The score table of ``Benchmarker.get_results``: from each metric's scores (a row a metric,
a column an embedding, and the ``"Metric Type"`` column of its group), the frame laid out as
scib-metrics lays it out.

Its rows are the embeddings, then ``"Metric Type"``; its columns the metrics (by
:data:`~.metrics.CLEAN_NAMES` with ``clean_names``), then the aggregates: the mean of each
group's scores (``"Batch correction"``, ``"Bio conservation"``, in that order, NaN skipped),
and, where both groups ran, ``"Total" = 0.6 bio + 0.4 batch`` (scIB's weights), their
``"Metric Type"`` ``"Aggregate score"``. With ``min_max_scale`` each metric is first scaled
to [0, 1] over the embeddings, as scikit-learn's ``MinMaxScaler`` scales it (``x * s - min *
s`` with ``s = 1 / (max - min)``, 1 where the range is 0), and the aggregates are of the
scaled scores. The values are of object dtype, as scib-metrics' (the frame holds the group
names too).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .metrics import CLEAN_NAMES

__all__ = ["AGGREGATE_SCORE", "METRIC_TYPE", "results_table"]

METRIC_TYPE = "Metric Type"
AGGREGATE_SCORE = "Aggregate score"


def _min_max_scale(values: Any) -> Any:
    """scikit-learn's ``MinMaxScaler().fit_transform`` of a 2-D array, column by column."""
    x = np.asarray(values, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a metric NaN for every embedding
        low = np.nanmin(x, axis=0)
        span = np.nanmax(x, axis=0) - low
    span = np.where(span < 10 * np.finfo(np.float64).eps, 1.0, span)
    scale = 1.0 / span
    return x * scale + (0.0 - low * scale)


def results_table(
    scores: dict[str, dict[str, float]],
    groups: dict[str, str],
    embeddings: list[str],
    *,
    min_max_scale: bool = False,
    clean_names: bool = True,
    total: bool = True,
) -> Any:
    """The table of ``scores`` (metric row -> embedding -> score; ``groups``: each row's
    group), as ``Benchmarker.get_results(min_max_scale, clean_names)``; ``total``: whether
    both groups ran."""
    import pandas as pd

    rows = list(scores)
    results = pd.DataFrame(
        [[scores[row][key] for key in embeddings] + [groups[row]] for row in rows],
        index=rows,
        columns=[*embeddings, METRIC_TYPE],
        dtype=object,
    )
    df = results.transpose()
    df.index.name = "Embedding"
    df = df.loc[df.index != METRIC_TYPE]
    if min_max_scale:
        df = pd.DataFrame(_min_max_scale(df), columns=df.columns, index=df.index)
    if clean_names:
        df = df.rename(columns=CLEAN_NAMES)
    df = df.transpose()
    df[METRIC_TYPE] = results[METRIC_TYPE].values
    per_class_score = df.groupby(METRIC_TYPE).mean().transpose()
    if total:
        per_class_score["Total"] = (
            0.4 * per_class_score["Batch correction"] + 0.6 * per_class_score["Bio conservation"]
        )
    # object dtype before the group names join the scores (pandas upcasts there, with a
    # FutureWarning, for scib-metrics' frame)
    per_class_score = per_class_score.astype(object)
    df = pd.concat([df.transpose(), per_class_score], axis=1)
    df.loc[METRIC_TYPE, per_class_score.columns] = AGGREGATE_SCORE
    return df
