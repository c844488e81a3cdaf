"""One truth against many clusterings (Leiden at several resolutions, several methods, seeds)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ._evaluate import METRICS, check_metrics
from ._labels import check_missing, count_many
from ._params import check_array_like

__all__ = ["compare_many"]


def _named_predictions(predictions: Any) -> list[tuple[Any, Any]]:
    """(name, labels) pairs from a dict, a DataFrame (columns) or a 2-D array (columns)."""
    if isinstance(predictions, dict):
        return list(predictions.items())
    if hasattr(predictions, "columns") and hasattr(predictions, "__getitem__"):
        return [(name, predictions[name]) for name in predictions.columns]
    arr = np.asarray(predictions)
    if arr.ndim != 2:
        raise ValueError(
            "predictions must be a dict of name -> labels, a DataFrame, or a 2-D array"
            f" (n_samples, n_predictions); got an array of shape {arr.shape}"
        )
    return [(j, arr[:, j]) for j in range(arr.shape[1])]


def compare_many(
    labels_true: Any,
    predictions: Any,
    metrics: Iterable[str] | None = None,
    *,
    missing: str = "raise",
) -> Any:
    """Scores of one truth against many predictions, as a pandas DataFrame.

    ``predictions`` is a dict of name -> labels, a DataFrame (one prediction per
    column) or a 2-D array of shape (n_samples, n_predictions). The truth is
    validated and encoded once (string labels are hashed once), and each
    prediction is counted against its codes in one pass. One row per prediction
    (indexed by its name or column), one column per metric (all of
    :func:`evaluate`'s, or the chosen ones). Needs pandas.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> truth = ["a", "a", "b", "b"]
    >>> fcm.compare_many(truth, {"good": [0, 0, 1, 1], "poor": [0, 1, 0, 1]},
    ...                  metrics=["adjusted_rand_score", "purity_score"])
          adjusted_rand_score  purity_score
    good                  1.0           1.0
    poor                 -0.5           0.5
    """
    import pandas as pd

    check_array_like("compare_many", labels_true=labels_true)
    names = check_metrics(metrics)
    named = _named_predictions(predictions)
    tables = count_many(
        labels_true,
        [labels for _, labels in named],
        missing=check_missing("compare_many", missing),
    )
    rows = [[float(METRICS[m](table)) for m in names] for table in tables]
    return pd.DataFrame(rows, index=[name for name, _ in named], columns=names)
