"""Scoring the columns of an AnnData's ``.obs`` (cell annotations against clusterings).

Nothing here imports anndata: an AnnData is read through its ``.obs`` DataFrame, and a
DataFrame (``adata.obs`` itself, or any table of labels) is taken as is. Category columns
(what scanpy writes for Leiden and Louvain clusterings, and ``.h5ad`` files load) are read
through their integer codes, without touching the labels.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from typing import Any

from ._many import compare_many

__all__ = ["evaluate_adata", "obs_columns"]


def _obs(adata: Any) -> Any:
    obs = getattr(adata, "obs", adata)
    if not (hasattr(obs, "columns") and hasattr(obs, "__getitem__")):
        raise TypeError(
            "evaluate_adata takes an AnnData (its .obs is read) or a pandas DataFrame;"
            f" got {type(adata).__name__}"
        )
    return obs


def obs_columns(
    columns: Iterable[Any],
    wanted: str | Iterable[str],
    what: str | None,
    *,
    patterns: bool = True,
) -> list[str]:
    """The column names asked for, with shell-style patterns (``"leiden_*"``) expanded in
    column order (unless ``patterns=False``); refuses names that are not there, listing those
    that are (``no {what} column 'x'; the columns are: ...``, or ``no column 'x'; ...``)."""
    available = [str(c) for c in columns]
    names = [wanted] if isinstance(wanted, str) else list(wanted)
    found: list[str] = []
    for name in names:
        if name in available:
            found.append(name)
            continue
        matches = (
            fnmatch.filter(available, name) if patterns and any(ch in name for ch in "*?[") else []
        )
        if not matches:
            raise KeyError(
                f"no {what + ' ' if what else ''}column {name!r}; the columns are:"
                f" {', '.join(available)}"
            )
        found.extend(m for m in matches if m not in found)
    return found


def evaluate_adata(
    adata: Any,
    truth: str,
    pred: str | Iterable[str],
    metrics: Iterable[str] | None = None,
    *,
    missing: str = "raise",
) -> Any:
    """Scores of ``adata.obs`` columns against a reference column, as a pandas DataFrame.

    Parameters
    ----------
    adata
        An AnnData (only ``adata.obs`` is read) or a pandas DataFrame of labels.
    truth
        The column of reference labels (cell types, an annotation).
    pred
        The column(s) of predicted clusters: a name, or several; shell-style patterns such as
        ``"leiden_*"`` select every matching column.
    metrics
        The measures (names as :func:`evaluate`); all by default.
    missing
        ``"raise"`` (default), ``"drop"`` or ``"cluster"``, as every metric's ``missing=``.

    Returns
    -------
    pandas.DataFrame
        One row per predicted column (indexed by its name), one column per measure: the
        values :func:`compare_many` gives.

    Raises
    ------
    KeyError
        A column that ``adata.obs`` does not have (the message lists those it has).

    Examples
    --------
    >>> import pandas as pd
    >>> import fastcluster_metrics as fcm
    >>> obs = pd.DataFrame({
    ...     "cell_type": pd.Categorical(["B", "B", "T", "T", "NK", "NK"]),
    ...     "leiden_0.5": pd.Categorical(["0", "0", "1", "1", "1", "1"]),
    ...     "leiden_1.0": pd.Categorical(["0", "0", "1", "1", "2", "2"]),
    ... })
    >>> fcm.evaluate_adata(obs, truth="cell_type", pred="leiden_*",
    ...                    metrics=["adjusted_rand_score", "purity_score"]).round(4)
                adjusted_rand_score  purity_score
    leiden_0.5               0.4444        0.6667
    leiden_1.0               1.0000        1.0000
    """
    obs = _obs(adata)
    if not isinstance(truth, str):
        raise TypeError(f"truth is the name of one column; got {truth!r}")
    (truth_name,) = obs_columns(obs.columns, truth, "truth")
    names = obs_columns(obs.columns, pred, "pred")
    return compare_many(
        obs[truth_name], {name: obs[name] for name in names}, metrics, missing=missing
    )
