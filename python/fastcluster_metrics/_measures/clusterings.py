"""The NMI and ARI of an embedding's clusterings against its cell types, as scib-metrics'
``nmi_ari_cluster_labels_kmeans`` and ``nmi_ari_cluster_labels_leiden`` define them.

k-means: as many clusters as cell types, k-means++ starts, 300 iterations at most. Here
scikit-learn's ``KMeans`` (``random_state=0``) where scib-metrics runs its own in JAX (seed
0, one start): the same algorithm from other random starts. Where the data hold more than
one local optimum, one start ends in any of them, and its NMI can be far from another
start's: on the tests' PCA of 600 cells, scikit-learn's single start from seeds 0 to 5 gave
NMI 0.67 to 0.91, and scib-metrics' 1.0. So the best of 10 starts (least inertia) is kept
here, which finds the clusters k-means can find whenever scib-metrics' one start does; the
scores agree then, and otherwise scib-metrics' start fell short.

Leiden: igraph's (``objective_function="modularity"``), as scib-metrics calls it, on UMAP's
connectivities of the 15-neighbour graph (``_graph/umap.py``) made a directed graph and
back with each edge twice; ten resolutions 0.2, 0.4, ..., 2.0 each from seed 42, the one of
highest NMI kept. Needs python-igraph (``pip install 'fastcluster-metrics[leiden]'``).

The NMI (arithmetic mean) and ARI are this package's, scikit-learn's to the last digits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._embedding.validation import check_features, check_labelings
from .._graph.umap import fuzzy_connectivities
from .._utils.public import public
from .supervised import adjusted_rand_score, normalized_mutual_info_score

__all__ = ["nmi_ari_cluster_labels_kmeans", "nmi_ari_cluster_labels_leiden"]


def _codes(labels: Any, n: int) -> NDArray[np.int64]:
    found = check_labelings(labels, n, "raise")
    if found.many:
        raise ValueError("one labeling of the cells is expected, not several")
    return np.ascontiguousarray(found.codes[0])


def _scores(labels: NDArray[np.int64], clusters: NDArray[Any]) -> dict[str, float]:
    return {
        "nmi": normalized_mutual_info_score(labels, clusters, average_method="arithmetic"),
        "ari": adjusted_rand_score(labels, clusters),
    }


_STARTS = 10
"""k-means' starts, the best kept (the module's note says why not scib-metrics' one)."""


def kmeans_clusters(x: NDArray[Any], n_clusters: int) -> NDArray[np.int32]:
    """k-means of ``x`` into ``n_clusters`` clusters: the best of 10 k-means++ starts, seed
    0."""
    try:
        from sklearn.cluster import KMeans
    except ImportError as e:  # pragma: no cover - scikit-learn is in the scib extra
        raise ImportError(
            "k-means needs scikit-learn (pip install 'fastcluster-metrics[scib]')"
        ) from e
    found = KMeans(n_clusters, init="k-means++", n_init=_STARTS, max_iter=300, random_state=0).fit(
        x
    )
    clusters: NDArray[np.int32] = found.labels_
    return clusters


@public
def nmi_ari_cluster_labels_kmeans(X: Any, labels: Any) -> dict[str, float]:
    """NMI and ARI between the k-means clusters of an embedding and its labels, as
    scib-metrics' ``nmi_ari_cluster_labels_kmeans``.

    k-means with as many clusters as labels (scikit-learn's, the best of 10 k-means++ starts,
    seed 0), then :func:`normalized_mutual_info_score` (arithmetic mean) and
    :func:`adjusted_rand_score` against the labels. scib-metrics runs its own k-means in JAX
    from one other random start: the scores agree where both find the same clusters.

    Parameters
    ----------
    X
        Array of shape (n_cells, n_features): the embedding.
    labels
        Array of shape (n_cells,): the cell types, any label type of the package.

    Returns
    -------
    dict
        ``{"nmi": ..., "ari": ...}``.

    Examples
    --------
    >>> import numpy as np
    >>> import fastcluster_metrics as fcm
    >>> x = np.r_[np.zeros((5, 2)), np.full((5, 2), 9.0)] + np.arange(10)[:, None] / 100
    >>> fcm.nmi_ari_cluster_labels_kmeans(x, list("aaaaabbbbb"))
    {'nmi': 1.0, 'ari': 1.0}
    """
    x = check_features(X, sparse="refuse")
    codes = _codes(labels, x.shape[0])
    return _scores(codes, kmeans_clusters(x, int(codes.max()) + 1))


def leiden_clusters(conn: Any, resolution: float, seed: int) -> NDArray[np.int64]:
    """igraph's Leiden clustering of the connectivities ``conn``, as scib-metrics runs it."""
    import random

    try:
        import igraph
    except ImportError as e:
        raise ImportError(
            "Leiden clustering needs python-igraph (pip install 'fastcluster-metrics[leiden]')"
        ) from e
    igraph.set_random_number_generator(random.Random(seed))
    try:
        graph = igraph.Graph.Weighted_Adjacency(conn, mode="directed")
        graph.to_undirected(mode="each")
        found = graph.community_leiden(
            objective_function="modularity", weights="weight", resolution=resolution
        )
    finally:
        igraph.set_random_number_generator(random)  # igraph's own default
    return np.asarray(found.membership, dtype=np.int64)


def _graph_arrays(X: Any) -> tuple[NDArray[Any], NDArray[Any]]:
    if hasattr(X, "indices") and hasattr(X, "distances"):
        return np.asarray(X.indices), np.asarray(X.distances)
    if isinstance(X, tuple) and len(X) == 2:
        return np.asarray(X[0]), np.asarray(X[1])
    raise TypeError(
        "X must be a NeighborsResults (an object with .indices and .distances) or an"
        f" (indices, distances) tuple of (n_cells, n_neighbors) arrays, not {type(X).__name__}"
    )


@public
def nmi_ari_cluster_labels_leiden(
    X: Any,
    labels: Any,
    optimize_resolution: bool = True,
    resolution: float = 1.0,
    n_jobs: int = 1,
    seed: int = 42,
) -> dict[str, float]:
    """NMI and ARI between the Leiden clusters of a neighbour graph and its labels, as
    scib-metrics' ``nmi_ari_cluster_labels_leiden``.

    UMAP's connectivities of the graph, clustered by igraph's Leiden (modularity) at the
    resolutions 0.2, 0.4, ..., 2.0 (``optimize_resolution``; the one of highest NMI is kept)
    or at ``resolution``, each from ``seed``; then :func:`normalized_mutual_info_score`
    (arithmetic) and :func:`adjusted_rand_score`. Needs python-igraph.

    Parameters
    ----------
    X
        The neighbour graph: a ``NeighborsResults`` or an ``(indices, distances)`` tuple of
        ``(n_cells, n_neighbors)`` arrays, each cell first among its own neighbours.
    labels
        Array of shape (n_cells,): the cell types, any label type of the package.
    optimize_resolution
        Search the ten resolutions; else cluster at ``resolution``.
    resolution
        The resolution, when not searched.
    n_jobs
        Accepted for scib-metrics' signature (its joblib workers); the resolutions run in turn.
    seed
        The seed of igraph's random numbers, for each resolution.

    Returns
    -------
    dict
        ``{"nmi": ..., "ari": ...}``.
    """
    del n_jobs
    indices, distances = _graph_arrays(X)
    codes = _codes(labels, indices.shape[0])
    conn = fuzzy_connectivities(indices, distances)
    if not optimize_resolution:
        return _scores(codes, leiden_clusters(conn, resolution, seed))
    found = [_scores(codes, leiden_clusters(conn, 2 * x / 10, seed)) for x in range(1, 11)]
    best = int(np.argmax([f["nmi"] for f in found]))
    return found[best]
