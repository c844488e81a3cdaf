"""Scoring the columns of an AnnData's ``.obs`` (cell annotations against clusterings).

Nothing here imports anndata: an AnnData is read through its ``.obs`` DataFrame, and a
DataFrame (``adata.obs`` itself, or any table of labels) is taken as is. A path to an AnnData
file (.h5ad, zarr store) is read by the file readers: the columns asked for, not the rest of
the file. Category columns (what scanpy writes for Leiden and Louvain clusterings, and
``.h5ad`` files load) are read through their integer codes, without touching the labels.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._many.compare import compare_many
from .._many.consistency import element_agreement, element_consistency
from .._measures.catalogue import MEMBERSHIPS, of_kind
from .._measures.per_sample import per_sample_measure, per_sample_score
from .._soft.frobenius import sums as frobenius_sums
from .._utils.public import public
from .columns import find_columns, weight_values
from .readers import open_file

__all__ = [
    "element_agreement_adata",
    "element_consistency_adata",
    "evaluate_adata",
    "per_sample_adata",
    "score_levels_adata",
    "soft_scores_adata",
]


def _obs(adata: Any, func: str = "evaluate_adata") -> Any:
    obs = getattr(adata, "obs", adata)
    if not (hasattr(obs, "columns") and hasattr(obs, "__getitem__")):
        if func != "evaluate_adata":
            raise TypeError(
                f"{func} takes an AnnData in memory (the result is written into its .obs) or a"
                f" pandas DataFrame; got {type(adata).__name__}"
            )
        raise TypeError(
            "evaluate_adata takes an AnnData (its .obs is read), a pandas DataFrame or the"
            f" path to an .h5ad file or zarr store; got {type(adata).__name__}"
        )
    return obs


def _from_file(
    path: str | os.PathLike[str], truth: str, pred: str | Iterable[str], weights: str | None
) -> Any:
    """The truth column, the prediction columns and the weights (checked; None without a
    column) of an AnnData file's obs."""
    file = open_file(path)
    if file.streamed:
        raise ValueError(
            f"evaluate_adata reads AnnData files (.h5ad, .zarr); {file.name} is {file.kind}:"
            " use read_contingency or compare_many"
        )
    (truth_name,) = file.find(truth, "truth")
    names = file.find(pred, "pred")
    wanted = [truth_name, *names]
    if weights is not None:
        (weights,) = file.find(weights, "weights", patterns=False)
        wanted.append(weights)
    columns = next(file.batches(wanted, 1))
    w = None if weights is None else weight_values(file.name, weights, columns[weights])
    return columns[truth_name], {name: columns[name] for name in names}, w


def evaluate_adata(
    adata: Any,
    truth: str,
    pred: str | Iterable[str],
    metrics: Iterable[str] | None = None,
    *,
    missing: str = "raise",
    weights: str | None = None,
) -> Any:
    """Scores of ``adata.obs`` columns against a reference column, as a pandas DataFrame.

    Parameters
    ----------
    adata
        An AnnData (only ``adata.obs`` is read), a pandas DataFrame of labels, or the path
        of an AnnData file (.h5ad, or a zarr store: a directory or ``.zarr.zip``), of which
        only the columns asked for are read (never ``X``), in any layout anndata has written.
    truth
        The column of reference labels (cell types, an annotation).
    pred
        The column(s) of predicted clusters: a name, or several; shell-style patterns such as
        ``"leiden_*"`` select every matching column.
    metrics
        The measures (names as :func:`evaluate`); all by default.
    missing
        ``"raise"`` (default), ``"drop"`` or ``"cluster"``, as every metric's ``missing=``.
    weights
        The column of sample weights (such as a metacell's size), as ``sample_weight=`` of
        every measure; a value that is missing, text, negative or not finite raises
        ``ValueError`` naming the column and the row.

    Returns
    -------
    pandas.DataFrame
        One row per predicted column (indexed by its name), one column per measure: the
        values :func:`compare_many` gives.

    Raises
    ------
    KeyError
        A column that ``adata.obs`` does not have (the message lists those it has).
    FileNotFoundError, ValueError
        A path with no file, or a file that is not an AnnData file (the message names it).

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
    if not isinstance(truth, str):
        raise TypeError(f"truth is the name of one column; got {truth!r}")
    if weights is not None and not isinstance(weights, str):
        raise TypeError(f"weights is the name of one column; got {weights!r}")
    if isinstance(adata, (str, os.PathLike)):
        labels, predictions, w = _from_file(adata, truth, pred, weights)
        return compare_many(labels, predictions, metrics, missing=missing, sample_weight=w)
    obs = _obs(adata)
    (truth_name,) = find_columns(obs.columns, truth, "truth")
    names = find_columns(obs.columns, pred, "pred")
    w = None
    if weights is not None:
        (weights,) = find_columns(obs.columns, [weights], "weights", patterns=False)
        w = weight_values(None, weights, obs[weights])
    return compare_many(
        obs[truth_name],
        {name: obs[name] for name in names},
        metrics,
        missing=missing,
        sample_weight=w,
    )


def _write(obs: Any, key: str, values: NDArray[np.float64]) -> NDArray[np.float64]:
    if not isinstance(key, str):
        raise TypeError(f"key is the name of the obs column to write; got {key!r}")
    obs[key] = values
    return values


@public
def per_sample_adata(
    adata: Any,
    truth: str,
    pred: str,
    *,
    measure: str = "ECS",
    key: str | None = None,
    missing: str = "raise",
) -> NDArray[np.float64]:
    """:func:`per_sample_score` of two ``adata.obs`` columns, written into ``adata.obs[key]``.

    ``key`` defaults to ``"{measure}_{pred}"`` with the measure's short name
    (``"ECS_leiden"``). Returns the scores too; colour an embedding by them with
    :func:`fastcluster_metrics.plot.plot_embedding`.

    Examples
    --------
    >>> import pandas as pd
    >>> import fastcluster_metrics as fcm
    >>> obs = pd.DataFrame({"cell_type": list("BBTT"), "leiden": list("0011")})
    >>> fcm.per_sample_adata(obs, "cell_type", "leiden").tolist(), list(obs.columns)
    ([1.0, 1.0, 1.0, 1.0], ['cell_type', 'leiden', 'ECS_leiden'])
    """
    func = "per_sample_adata"
    obs = _obs(adata, func)
    row = per_sample_measure(measure, func)
    (truth_name,) = find_columns(obs.columns, [truth], "truth", patterns=False)
    (pred_name,) = find_columns(obs.columns, [pred], "pred", patterns=False)
    scores = per_sample_score(obs[truth_name], obs[pred_name], measure=row.name, missing=missing)
    return _write(obs, f"{row.label}_{pred_name}" if key is None else key, scores)


@public
def element_agreement_adata(
    adata: Any,
    reference: str,
    pred: str | Iterable[str],
    *,
    key: str = "element_agreement",
    weights: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """:func:`element_agreement` of ``adata.obs`` columns with a reference column, written
    into ``adata.obs[key]``.

    ``pred`` names the labelings: a column, several, or shell-style patterns such as
    ``"leiden_*"`` (every clustering of a resolution sweep); ``weights``, one per column
    found, in the order found. Returns the values too.
    """
    func = "element_agreement_adata"
    obs = _obs(adata, func)
    (ref_name,) = find_columns(obs.columns, [reference], "reference", patterns=False)
    names = find_columns(obs.columns, pred, "pred")
    values = element_agreement(obs[ref_name], {n: obs[n] for n in names}, weights=weights)
    return _write(obs, key, values)


@public
def element_consistency_adata(
    adata: Any,
    pred: str | Iterable[str],
    *,
    key: str = "element_consistency",
    weights: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """:func:`element_consistency` of ``adata.obs`` columns, written into ``adata.obs[key]``.

    ``pred`` names the labelings: columns, or shell-style patterns such as ``"leiden_*"``
    (the runs of several seeds or resolutions); ``weights``, one per column found, in the
    order found. Returns the values too.

    Examples
    --------
    >>> import pandas as pd
    >>> import fastcluster_metrics as fcm
    >>> obs = pd.DataFrame({"leiden_1": list("0011"), "leiden_2": list("0001")})
    >>> fcm.element_consistency_adata(obs, "leiden_*").tolist()
    [0.6666666666666666, 0.6666666666666666, 0.3333333333333333, 0.5]
    >>> obs["element_consistency"].tolist()[:2]
    [0.6666666666666666, 0.6666666666666666]
    """
    func = "element_consistency_adata"
    obs = _obs(adata, func)
    names = find_columns(obs.columns, pred, "pred")
    values = element_consistency({n: obs[n] for n in names}, weights=weights)
    return _write(obs, key, values)


@public
def score_levels_adata(
    adata: Any,
    levels: Iterable[str],
    pred: str | Iterable[str],
    *,
    metrics: Iterable[str] | str | None = None,
    missing: str = "raise",
) -> Any:
    """:func:`score_levels` of ``adata.obs`` columns: annotation levels against clusterings.

    Parameters
    ----------
    adata
        An AnnData (only ``adata.obs`` is read), a pandas DataFrame of labels, or the path of
        an AnnData file (.h5ad, zarr store), of which only the columns asked for are read.
    levels
        The columns of the reference levels, coarse to fine (``["celltype.l1",
        "celltype.l2", "celltype.l3"]``); each must be coarser than the next.
    pred
        The column of predicted clusters; or several: a list of names, or shell-style patterns
        such as ``"leiden_*"``.
    metrics, missing
        As :func:`score_levels`.

    Returns
    -------
    pandas.DataFrame
        For one column named (no pattern), one row per level, indexed by the level's column;
        for a list or a pattern (even one that matches one column), one row per (prediction,
        level), as :func:`score_levels` gives for several predictions.

    Examples
    --------
    >>> import pandas as pd
    >>> import fastcluster_metrics as fcm
    >>> obs = pd.DataFrame({
    ...     "celltype.l1": ["T", "T", "T", "B"],
    ...     "celltype.l2": ["CD4 T", "CD8 T", "CD8 T", "B"],
    ...     "leiden": pd.Categorical(["0", "1", "1", "2"]),
    ... })
    >>> fcm.score_levels_adata(obs, ["celltype.l1", "celltype.l2"], "leiden", metrics="ARI")
                 adjusted_rand_score
    level
    celltype.l1             0.333333
    celltype.l2             1.000000
    """
    from .._many.levels import score_levels

    func = "score_levels_adata"
    if isinstance(levels, str):
        raise TypeError(
            f"{func} takes levels as a list of column names, coarse to fine; got {levels!r}"
        )
    one = isinstance(pred, str) and not any(ch in pred for ch in "*?[")
    if isinstance(adata, (str, os.PathLike)):
        file = open_file(adata)
        if file.streamed:
            raise ValueError(
                f"{func} reads AnnData files (.h5ad, .zarr); {file.name} is {file.kind}:"
                " read its columns and use score_levels"
            )
        level_names = file.find(list(levels), "levels", patterns=False)
        names = file.find(pred, "pred")
        columns = next(file.batches(list(dict.fromkeys([*level_names, *names])), 1))
    else:
        obs = getattr(adata, "obs", adata)
        if not (hasattr(obs, "columns") and hasattr(obs, "__getitem__")):
            raise TypeError(
                f"{func} takes an AnnData (its .obs is read), a pandas DataFrame or the path"
                f" to an .h5ad file or zarr store; got {type(adata).__name__}"
            )
        level_names = find_columns(obs.columns, list(levels), "levels", patterns=False)
        names = find_columns(obs.columns, pred, "pred")
        columns = {name: obs[name] for name in dict.fromkeys([*level_names, *names])}
    truth = {name: columns[name] for name in level_names}
    predictions: Any = columns[names[0]] if one else {name: columns[name] for name in names}
    return score_levels(truth, predictions, metrics=metrics, missing=missing)


def _memberships_of(adata: Any, key: str, role: str, func: str) -> tuple[Any, str]:
    """The membership matrix ``adata.obsm[key]``, else the labels ``adata.obs[key]``, with
    the name the errors give it."""
    if not isinstance(key, str):
        raise TypeError(f"{func}: {role} is the key of obsm or obs to read; got {key!r}")
    obsm = getattr(adata, "obsm", None)
    if obsm is not None and key in obsm:
        return obsm[key], f"obsm[{key!r}]"
    obs = getattr(adata, "obs", None)
    if obs is None or not hasattr(obs, "columns"):
        raise TypeError(f"{func} takes an AnnData in memory; got {type(adata).__name__}")
    if key in obs.columns:
        return obs[key], f"obs[{key!r}]"
    keys = list(obsm.keys()) if obsm is not None else []
    raise KeyError(
        f"{func}: {role} {key!r} is neither a key of obsm (which has {keys}) nor a column"
        f" of obs (which has {list(obs.columns)})"
    )


@public
def soft_scores_adata(
    adata: Any, truth: str, pred: str, *, weights: str | None = None
) -> dict[str, float]:
    """:func:`frobenius_rand_score` and :func:`frobenius_adjusted_rand_score` of two soft
    labelings of an AnnData's cells.

    ``truth`` and ``pred`` each name a key of ``adata.obsm`` (a membership matrix, cells x
    clusters: a classifier's probabilities, dense, SciPy sparse or a DataFrame) or, failing
    that, a column of ``adata.obs`` (hard labels, read as one-hot rows). ``weights`` names an
    ``obs`` column of sample weights (such as a metacell's size), checked as
    :func:`evaluate_adata` checks it. The matrices are read once, for both scores; errors
    name the key (``obsm['probabilities'] has NaN in row 12``).

    Returns
    -------
    dict
        ``{"frobenius_rand_score": FRI, "frobenius_adjusted_rand_score": FARI}``.

    Examples
    --------
    An AnnData is read through its ``obs`` and ``obsm`` alone (here, a stand-in with both):

    >>> from types import SimpleNamespace
    >>> import numpy as np, pandas as pd
    >>> import fastcluster_metrics as fcm
    >>> P = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.8]])
    >>> adata = SimpleNamespace(obs=pd.DataFrame({"cell_type": list("BBTT")}),
    ...                         obsm={"probabilities": P})
    >>> scores = fcm.soft_scores_adata(adata, "cell_type", "probabilities")
    >>> round(scores["frobenius_adjusted_rand_score"], 4)
    0.7055
    """
    func = "soft_scores_adata"
    a, name_a = _memberships_of(adata, truth, "truth", func)
    b, name_b = _memberships_of(adata, pred, "pred", func)
    w = None
    if weights is not None:
        obs = adata.obs
        (weights,) = find_columns(obs.columns, [weights], "weights", patterns=False)
        w = weight_values(None, weights, obs[weights])
    found = frobenius_sums(func, a, b, w, names=(name_a, name_b))
    return {row.name: row.kernel(found) for row in of_kind(MEMBERSHIPS)}
