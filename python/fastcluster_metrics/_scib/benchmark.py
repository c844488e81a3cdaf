"""scIB's benchmark of several integrations of one AnnData, as scib-metrics' ``Benchmarker``
runs it (``prepare``, ``benchmark``, ``get_results``) in one call: :func:`scib_benchmark`.

Each embedding ``adata.obsm[key]`` is scored by the metrics of :mod:`.metrics` in their
order: the silhouettes on the embedding (this package's), the graph scores on its 90 nearest
neighbours (its first 15 for graph connectivity and Leiden, 50 for kBET, all 90 for the
LISIs), k-means on the embedding and PCR comparison against the pre-integration embedding;
then :mod:`.table` lays out the scores. Nothing is written into ``adata``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._embedding import knn as _neighbors
from .._embedding.pcr import pca_coordinates, pcr_comparison
from .._embedding.scib import bras, isolated_labels, silhouette_label
from .._embedding.validation import check_features, check_labelings
from .._graph import clisi_knn, graph_connectivity, ilisi_knn
from .._graph.kbet_diffusion import kbet_per_label
from .._io.anndata_embedding import _column, _slot
from .._measures.clusterings import nmi_ari_cluster_labels_kmeans, nmi_ari_cluster_labels_leiden
from .._utils.public import public
from .metrics import (
    BATCH_CORRECTION,
    BIO_CONSERVATION,
    GRAPH_NEIGHBORS,
    MAX_NEIGHBORS,
    BatchCorrection,
    BioConservation,
    selected,
)
from .table import results_table

__all__ = ["scib_benchmark"]

_FUNC = "scib_benchmark"


class _Embedding:
    """One embedding and what its metrics read: its cells, labels, batches, and its
    neighbours once asked for."""

    def __init__(
        self,
        x: NDArray[Any],
        labels: NDArray[np.int64],
        batches: NDArray[np.int64],
        find_neighbors: Callable[[], _neighbors.Neighbors],
    ) -> None:
        self.x = x
        self.labels = labels
        self.batches = batches
        self._find = find_neighbors
        self._found: _neighbors.Neighbors | None = None

    def graph(self, k: int) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
        """The first ``k`` neighbours of each cell (itself first)."""
        if self._found is None:
            self._found = self._find()
        indices, distances = self._found
        return np.ascontiguousarray(indices[:, :k]), np.ascontiguousarray(distances[:, :k])


def _score(name: str, emb: _Embedding, kwargs: dict[str, Any], pre: Any, computer: Any) -> Any:
    """One metric of one embedding, as Benchmarker's ``MetricAnnDataAPI`` calls it."""
    if name == "isolated_labels":
        return isolated_labels(emb.x, emb.labels, emb.batches, **kwargs)
    if name == "nmi_ari_cluster_labels_leiden":
        return nmi_ari_cluster_labels_leiden(emb.graph(GRAPH_NEIGHBORS[name]), emb.labels, **kwargs)
    if name == "nmi_ari_cluster_labels_kmeans":
        return nmi_ari_cluster_labels_kmeans(emb.x, emb.labels, **kwargs)
    if name == "silhouette_label":
        return silhouette_label(emb.x, emb.labels, **kwargs)
    if name == "clisi_knn":
        return clisi_knn(emb.graph(GRAPH_NEIGHBORS[name]), emb.labels, **kwargs)
    if name == "bras":
        return bras(emb.x, emb.labels, emb.batches, **kwargs)
    if name == "ilisi_knn":
        return ilisi_knn(emb.graph(GRAPH_NEIGHBORS[name]), emb.batches, **kwargs)
    if name == "kbet_per_label":
        indices, distances = emb.graph(GRAPH_NEIGHBORS[name])
        return kbet_per_label(
            indices, distances, emb.batches, emb.labels, **{"computer": computer, **kwargs}
        )
    if name == "graph_connectivity":
        return graph_connectivity(emb.graph(GRAPH_NEIGHBORS[name]), emb.labels, **kwargs)
    if name == "pcr_comparison":
        return pcr_comparison(pre(), emb.x, emb.batches, **{"categorical": True, **kwargs})
    raise AssertionError(f"no metric {name}")  # pragma: no cover - metrics.py's names


def _given(found: _neighbors.Neighbors) -> _neighbors.Neighbors:
    return found


def _codes(column: Any, n: int) -> NDArray[np.int64]:
    found = check_labelings(column, n, "raise")
    return np.ascontiguousarray(found.codes[0])


@public
def scib_benchmark(
    adata: Any,
    batch_key: str,
    label_key: str,
    embedding_obsm_keys: Sequence[str],
    bio_conservation_metrics: Any = BioConservation(),  # noqa: B008 - frozen, as scib-metrics'
    batch_correction_metrics: Any = BatchCorrection(),  # noqa: B008
    pre_integrated_embedding_obsm_key: str | None = None,
    n_jobs: int = 1,
    *,
    neighbors: Mapping[str, str] | None = None,
    neighbor_computer: str | Callable[..., Any] | None = None,
    min_max_scale: bool = False,
    clean_names: bool = True,
) -> Any:
    """scIB's score table of several integrations of an AnnData, as scib-metrics'
    ``Benchmarker`` gives it (``prepare()``, ``benchmark()``, then ``get_results()``).

    Each embedding ``adata.obsm[key]`` of ``embedding_obsm_keys`` is scored against the cell
    types ``adata.obs[label_key]`` and batches ``adata.obs[batch_key]`` by every metric
    ``bio_conservation_metrics`` and ``batch_correction_metrics`` select, each by
    scib-metrics' definition: :func:`isolated_labels`, :func:`silhouette_label` and
    :func:`bras` of the embedding; :func:`nmi_ari_cluster_labels_kmeans` and
    :func:`nmi_ari_cluster_labels_leiden` (off by default, as there; needs python-igraph);
    :func:`clisi_knn`, :func:`ilisi_knn` (90 neighbours), scib-metrics' ``kbet_per_label``
    (50, with its diffusion map) and :func:`graph_connectivity` (15) of the embedding's
    neighbour graph; :func:`pcr_comparison` against the pre-integration embedding
    ``adata.obsm[pre_integrated_embedding_obsm_key]`` (None: the first 50 principal
    components of ``adata.X``, as Benchmarker computes them with scanpy, but not written
    into ``adata``). Then each group's mean and ``Total = 0.6 bio + 0.4 batch``.

    Parameters
    ----------
    adata
        An AnnData in memory (anything with its ``.obs``, ``.obsm``, ``.obsp``, ``.X``).
    batch_key, label_key
        The ``obs`` columns of the batches and the cell types.
    embedding_obsm_keys
        The ``obsm`` keys of the embeddings to score, in the table's order.
    bio_conservation_metrics, batch_correction_metrics
        A :class:`BioConservation` / :class:`BatchCorrection` (scib-metrics' own too), or a
        mapping of metric names to ``True``, ``False`` or a dict of the metric's keyword
        arguments; None leaves the group out (not both).
    pre_integrated_embedding_obsm_key
        The ``obsm`` key of the embedding before integration, for PCR comparison.
    n_jobs
        Threads of the neighbour search.
    neighbors
        The ``obsp`` key of each embedding's own neighbour graph, by ``obsm`` key: a sparse
        distance matrix as scanpy's ``sc.pp.neighbors(adata, n_neighbors=90,
        use_rep=key)`` writes it, each row's 89 nearest read (the cell itself is the 90th).
        The embeddings not named get their neighbours from ``neighbor_computer``.
    neighbor_computer
        How the neighbours of the other embeddings are found: None or ``"exact"``, an exact
        search (scikit-learn's brute-force ``NearestNeighbors``); ``"pynndescent"``,
        Benchmarker's default, pynndescent's approximate search called as scib-metrics calls
        it (the same neighbours, after about a minute compiling pynndescent in each new
        process; then the per-label kBET's neighbours in the diffusion map are pynndescent's
        too); or a callable ``(X, k)`` returning a ``NeighborsResults``, as
        ``Benchmarker.prepare(neighbor_computer=...)`` takes.
    min_max_scale, clean_names
        As ``Benchmarker.get_results``: scale each metric to [0, 1] over the embeddings
        before the aggregates; name the columns as scib-metrics' table does.

    Returns
    -------
    pandas.DataFrame
        ``Benchmarker.get_results()``'s frame: a row an embedding, then ``"Metric Type"``
        (each column's group, ``"Aggregate score"`` for the aggregates); a column a metric,
        then ``"Batch correction"``, ``"Bio conservation"`` and ``"Total"``. Draw it with
        :func:`fastcluster_metrics.plot.plot_scib_table`.

    Notes
    -----
    Given the same neighbours (``neighbor_computer=`` the same callable, or the same graph),
    the silhouettes, LISIs, graph connectivity and PCR comparison equal Benchmarker's to
    float32 precision (about 1e-6), and the aggregates with them. Randomness makes the rest
    approximate: k-means here is scikit-learn's, the best of 10 starts (scib-metrics' own
    runs once in JAX from another random start), so KMeans NMI and ARI agree where both find
    the same clusters; the
    per-label kBET starts ARPACK from a fixed vector (scib-metrics: a random one) and
    searches the diffusion map exactly, so a cell's last neighbours there can differ, and a
    label's acceptance rate by a cell or two; Leiden is igraph's from the same seed, on
    connectivities equal to umap's but for one weight in about 1,000 (by one float32 unit
    in the last place).

    Examples
    --------
    >>> import types
    >>> import numpy as np
    >>> import pandas as pd
    >>> import fastcluster_metrics as fcm
    >>> rng = np.random.default_rng(0)
    >>> types_, batches = np.repeat([0, 1, 2], 100), np.tile([0, 1], 150)
    >>> centres = rng.normal(0, 6, (3, 8))
    >>> obsm = {
    ...     "X_pre": centres[types_] + 4 * batches[:, None] + rng.normal(0, 1, (300, 8)),
    ...     "X_mixed": centres[types_] + rng.normal(0, 1, (300, 8)),
    ... }
    >>> adata = types.SimpleNamespace(
    ...     obs=pd.DataFrame({"cell_type": types_, "batch": batches}), obsm=obsm, obsp={})
    >>> table = fcm.scib_benchmark(adata, "batch", "cell_type", ["X_pre", "X_mixed"],
    ...                            pre_integrated_embedding_obsm_key="X_pre")
    >>> table.loc["Metric Type"].value_counts().to_dict()
    {'Bio conservation': 5, 'Batch correction': 5, 'Aggregate score': 3}
    >>> table.drop("Metric Type").astype(float)[["Bio conservation", "Batch correction"]].round(2)
               Bio conservation  Batch correction
    Embedding
    X_pre                  0.91              0.14
    X_mixed                0.96              0.96
    """
    if bio_conservation_metrics is None and batch_correction_metrics is None:
        raise ValueError("Either batch or bio metrics must be defined.")
    groups = []
    if bio_conservation_metrics is not None:
        groups.append((BIO_CONSERVATION, selected(bio_conservation_metrics, BioConservation)))
    if batch_correction_metrics is not None:
        groups.append((BATCH_CORRECTION, selected(batch_correction_metrics, BatchCorrection)))
    keys = (
        [embedding_obsm_keys] if isinstance(embedding_obsm_keys, str) else list(embedding_obsm_keys)
    )
    if not keys:
        raise ValueError(f"{_FUNC}: embedding_obsm_keys names no embedding")
    graphs = dict(neighbors or {})
    stray = [k for k in graphs if k not in keys]
    if stray:
        raise ValueError(
            f"{_FUNC}: neighbors names {stray[0]!r}, which is not among embedding_obsm_keys"
        )
    labels = _column(adata, label_key, "labels", _FUNC)
    batches = _column(adata, batch_key, "batch", _FUNC)
    n = len(labels)
    label_codes = _codes(labels, n)
    batch_codes = _codes(batches, n)
    embeddings = {}
    for key in keys:
        x = check_features(_slot(adata, "obsm", key, _FUNC), sparse="densify", name=key)
        if x.shape[0] != n:
            raise ValueError(f"{_FUNC}: obsm[{key!r}] has {x.shape[0]} rows for {n} cells")
        find: Callable[[], _neighbors.Neighbors]
        if key in graphs:
            graph = _slot(adata, "obsp", graphs[key], _FUNC)
            find = functools.partial(
                _given, _neighbors.from_graph(graph, MAX_NEIGHBORS, graphs[key], n)
            )
        else:
            find = functools.partial(_neighbors.search, x, MAX_NEIGHBORS, neighbor_computer, n_jobs)
        embeddings[key] = _Embedding(x, label_codes, batch_codes, find)
    if pre_integrated_embedding_obsm_key is not None:
        pre_x = check_features(
            _slot(adata, "obsm", pre_integrated_embedding_obsm_key, _FUNC), sparse="densify"
        )
        if pre_x.shape[0] != n:
            raise ValueError(
                f"{_FUNC}: obsm[{pre_integrated_embedding_obsm_key!r}] has {pre_x.shape[0]}"
                f" rows for {n} cells"
            )
    cache: dict[str, Any] = {}

    def pre() -> Any:
        if pre_integrated_embedding_obsm_key is not None:
            return pre_x
        if "pca" not in cache:
            x = getattr(adata, "X", None)
            if x is None:
                raise ValueError(
                    f"{_FUNC}: PCR comparison needs pre_integrated_embedding_obsm_key, or"
                    " adata.X for its principal components"
                )
            cache["pca"] = pca_coordinates(x)
        return cache["pca"]

    scores: dict[str, dict[str, float]] = {}
    kinds: dict[str, str] = {}
    for group, metrics in groups:
        for name, kwargs in metrics:
            for key in keys:
                value = _score(name, embeddings[key], kwargs, pre, neighbor_computer)
                parts = value.items() if isinstance(value, dict) else [(None, value)]
                for part, v in parts:
                    row = name if part is None else f"{name}_{part}"
                    scores.setdefault(row, {})[key] = float(v)
                    kinds[row] = group
    return results_table(
        scores,
        kinds,
        keys,
        min_max_scale=min_max_scale,
        clean_names=clean_names,
        total=len(groups) == 2,
    )
