"""An AnnData's embedding (``.obsm``) and neighbour graph (``.obsp``) scored by its ``.obs``
columns: the silhouette per cell, LISI per cell, and scIB's scores of one integration.

Nothing here imports anndata: an AnnData in memory is read through its ``.obs``,
``.obsm`` and ``.obsp`` mappings (what scanpy writes: ``obsm["X_pca"]``, ``obsm["X_scVI"]``,
``obsp["distances"]``), and per-cell values are written into its ``.obs``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._embedding.scib import bras, isolated_labels, silhouette_batch, silhouette_label
from .._embedding.silhouette import silhouette_samples
from .._graph import clisi_knn, graph_connectivity, ilisi_knn, kbet, lisi_knn
from .._utils.public import public
from .columns import find_columns

__all__ = ["lisi_adata", "scib_scores_adata", "silhouette_adata"]


def _slot(adata: Any, slot: str, key: str, func: str) -> Any:
    """``adata.<slot>[key]``, or one clear error naming the keys there are."""
    mapping = getattr(adata, slot, None)
    if mapping is None or not hasattr(mapping, "keys"):
        raise TypeError(
            f"{func} takes an AnnData in memory (its .obs, .{slot}); got {type(adata).__name__}"
        )
    if not isinstance(key, str) or key not in mapping.keys():
        found = ", ".join(repr(k) for k in mapping.keys()) or "none"
        raise KeyError(f"{func}: no .{slot}[{key!r}] in this AnnData; its .{slot} keys: {found}")
    return mapping[key]


def _column(adata: Any, name: str, role: str, func: str) -> Any:
    obs = getattr(adata, "obs", None)
    if obs is None or not hasattr(obs, "columns"):
        raise TypeError(f"{func} takes an AnnData in memory; got {type(adata).__name__}")
    (found,) = find_columns(obs.columns, [name], role, patterns=False)
    return obs[found]


def _write(adata: Any, key: str, values: NDArray[np.floating[Any]]) -> None:
    if not isinstance(key, str):
        raise TypeError(f"key is the name of the obs column to write; got {key!r}")
    adata.obs[key] = values


@public
def silhouette_adata(
    adata: Any,
    labels: str,
    *,
    embedding: str = "X_pca",
    metric: str = "euclidean",
    key: str | None = None,
    missing: str = "raise",
) -> float:
    """The silhouette of ``adata.obs[labels]`` in ``adata.obsm[embedding]``, each cell's
    written into ``adata.obs[key]`` (``"silhouette_{labels}"`` by default).

    :func:`silhouette_samples` per cell (exact, without the n x n matrix); returns their
    mean, :func:`silhouette_score`. Colour the embedding by them with
    :func:`fastcluster_metrics.plot.plot_embedding`.

    Examples
    --------
    >>> import types
    >>> import numpy as np
    >>> import pandas as pd
    >>> import fastcluster_metrics as fcm
    >>> adata = types.SimpleNamespace(
    ...     obs=pd.DataFrame({"cell_type": list("BBTT")}),
    ...     obsm={"X_pca": np.array([[0.0], [1.0], [5.0], [6.0]])},
    ... )
    >>> round(fcm.silhouette_adata(adata, "cell_type"), 4), list(adata.obs.columns)
    (0.798, ['cell_type', 'silhouette_cell_type'])
    """
    func = "silhouette_adata"
    x = _slot(adata, "obsm", embedding, func)
    column = _column(adata, labels, "labels", func)
    values = silhouette_samples(x, column, metric=metric, missing=missing)
    _write(adata, f"silhouette_{labels}" if key is None else key, values)
    return float(np.nanmean(values))


@public
def lisi_adata(
    adata: Any,
    labels: str,
    *,
    graph: str = "distances",
    perplexity: float | None = None,
    key: str | None = None,
) -> NDArray[np.float64]:
    """Each cell's LISI of ``adata.obs[labels]`` over the neighbour graph
    ``adata.obsp[graph]`` (scanpy's ``"distances"`` by default), written into
    ``adata.obs[key]`` (``"LISI_{labels}"`` by default) and returned.

    :func:`lisi_knn` of scanpy's graph: each row's stored neighbours, the cell itself not
    among them; the perplexity defaults to ``n_neighbors // 3``, ``n_neighbors`` counting
    the cell itself, as scanpy does.

    Examples
    --------
    >>> import types
    >>> import numpy as np
    >>> import pandas as pd
    >>> import scipy.sparse as sp
    >>> import fastcluster_metrics as fcm
    >>> ring = sp.csr_matrix(np.roll(np.eye(6), 1, axis=1) + np.roll(np.eye(6), -1, axis=1))
    >>> adata = types.SimpleNamespace(obs=pd.DataFrame({"batch": [0, 1] * 3}),
    ...                               obsp={"distances": ring})
    >>> fcm.lisi_adata(adata, "batch", perplexity=2).tolist(), list(adata.obs.columns)
    ([1.0, 1.0, 1.0, 1.0, 1.0, 1.0], ['batch', 'LISI_batch'])
    """
    func = "lisi_adata"
    distances = _slot(adata, "obsp", graph, func)
    column = _column(adata, labels, "labels", func)
    values = lisi_knn(distances, column, perplexity=perplexity)
    _write(adata, f"LISI_{labels}" if key is None else key, values)
    return values


@public
def scib_scores_adata(
    adata: Any,
    labels: str,
    batch: str,
    *,
    embedding: str = "X_pca",
    graph: str | None = "distances",
) -> dict[str, float]:
    """scIB's scores of one integration of an AnnData, as scib-metrics computes each.

    From the embedding ``adata.obsm[embedding]``: :func:`silhouette_label`,
    :func:`silhouette_batch`, :func:`bras` and :func:`isolated_labels` of the cell types
    ``adata.obs[labels]`` and batches ``adata.obs[batch]``; from the neighbour graph
    ``adata.obsp[graph]`` (None leaves them out): :func:`ilisi_knn`, :func:`clisi_knn`,
    :func:`kbet` (its acceptance rate) and :func:`graph_connectivity`. Each is in [0, 1],
    higher better.

    Returns
    -------
    dict
        By scib-metrics' function names, in that order.

    Examples
    --------
    >>> import types
    >>> import numpy as np
    >>> import pandas as pd
    >>> import fastcluster_metrics as fcm
    >>> rng = np.random.default_rng(0)
    >>> adata = types.SimpleNamespace(
    ...     obs=pd.DataFrame({"cell_type": np.repeat(list("BT"), 50), "batch": [0, 1] * 50}),
    ...     obsm={"X_pca": np.r_[rng.normal(0, 1, (50, 5)), rng.normal(8, 1, (50, 5))]},
    ... )
    >>> scores = fcm.scib_scores_adata(adata, "cell_type", "batch", graph=None)
    >>> {name: round(value, 2) for name, value in scores.items()}
    {'silhouette_label': 0.92, 'silhouette_batch': 0.88, 'bras': 0.84, 'isolated_labels': 0.92}
    """
    func = "scib_scores_adata"
    x = _slot(adata, "obsm", embedding, func)
    cell_types = _column(adata, labels, "labels", func)
    batches = _column(adata, batch, "batch", func)
    scores = {
        "silhouette_label": silhouette_label(x, cell_types),
        "silhouette_batch": silhouette_batch(x, cell_types, batches),
        "bras": bras(x, cell_types, batches),
        "isolated_labels": isolated_labels(x, cell_types, batches),
    }
    if graph is not None:
        distances = _slot(adata, "obsp", graph, func)
        scores["ilisi_knn"] = ilisi_knn(distances, batches)
        scores["clisi_knn"] = clisi_knn(distances, cell_types)
        scores["kbet"] = float(kbet(distances, batches)[0])
        scores["graph_connectivity"] = graph_connectivity(distances, cell_types)
    return scores
