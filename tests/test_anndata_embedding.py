"""An AnnData's embedding and neighbour graph scored by its obs columns: the results equal
the functions called on the arrays, and the per-cell values land in ``.obs``."""

from __future__ import annotations

import numpy as np
import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics._measures import catalogue as _catalogue

anndata = pytest.importorskip("anndata")
pd = pytest.importorskip("pandas")
neighbors = pytest.importorskip("sklearn.neighbors")


@pytest.fixture(scope="module")
def adata():
    rng = np.random.default_rng(3)
    n = 600
    types = rng.integers(0, 4, n)
    batch = rng.integers(0, 3, n)
    x = rng.normal(0, 3, (4, 10))[types] + 0.5 * batch[:, None] + rng.normal(size=(n, 10))
    obs = pd.DataFrame(
        {
            "cell_type": pd.Categorical(np.array(["B", "T", "NK", "mono"])[types]),
            "batch": pd.Categorical([f"b{b}" for b in batch]),
        },
        index=[f"c{i}" for i in range(n)],
    )
    a = anndata.AnnData(obs=obs, obsm={"X_pca": x.astype(np.float32)})
    # scanpy's graph: each cell's 14 nearest others, the cell itself not stored
    a.obsp["distances"] = neighbors.kneighbors_graph(x, 14, mode="distance").tocsr()
    return a


def test_silhouette_adata_writes_each_cells_silhouette(adata) -> None:
    x, labels = adata.obsm["X_pca"], adata.obs["cell_type"]
    score = fcm.silhouette_adata(adata, "cell_type")
    assert score == pytest.approx(fcm.silhouette_score(x, labels), rel=1e-6)
    np.testing.assert_array_equal(
        adata.obs["silhouette_cell_type"].to_numpy(), fcm.silhouette_samples(x, labels)
    )
    fcm.silhouette_adata(adata, "cell_type", metric="cosine", key="sil_cos")
    np.testing.assert_array_equal(
        adata.obs["sil_cos"].to_numpy(), fcm.silhouette_samples(x, labels, metric="cosine")
    )


def test_lisi_adata_writes_each_cells_lisi(adata) -> None:
    values = fcm.lisi_adata(adata, "batch")
    want = fcm.lisi_knn(adata.obsp["distances"], adata.obs["batch"])
    np.testing.assert_array_equal(values, want)
    np.testing.assert_array_equal(adata.obs["LISI_batch"].to_numpy(), want)
    assert ((values >= 1) & (values <= 3)).all()


def test_scib_scores_adata_equals_each_function(adata) -> None:
    x, graph = adata.obsm["X_pca"], adata.obsp["distances"]
    labels, batch = adata.obs["cell_type"], adata.obs["batch"]
    scores = fcm.scib_scores_adata(adata, "cell_type", "batch")
    assert scores == {
        "silhouette_label": fcm.silhouette_label(x, labels),
        "silhouette_batch": fcm.silhouette_batch(x, labels, batch),
        "bras": fcm.bras(x, labels, batch),
        "isolated_labels": fcm.isolated_labels(x, labels, batch),
        "ilisi_knn": fcm.ilisi_knn(graph, batch),
        "clisi_knn": fcm.clisi_knn(graph, labels),
        "kbet": fcm.kbet(graph, batch)[0],
        "graph_connectivity": fcm.graph_connectivity(graph, labels),
    }
    assert all(0.0 <= v <= 1.0 for v in scores.values())
    # the scores of scIB's table are the catalogue's rows marked so, in its order
    assert list(scores) == [row.name for row in _catalogue.CATALOGUE.values() if row.in_scib]
    no_graph = fcm.scib_scores_adata(adata, "cell_type", "batch", graph=None)
    assert list(no_graph) == list(scores)[:4]


def test_errors_name_what_is_there(adata) -> None:
    with pytest.raises(KeyError, match=r"no \.obsm\['X_umap'\].*'X_pca'"):
        fcm.silhouette_adata(adata, "cell_type", embedding="X_umap")
    with pytest.raises(KeyError, match=r"no \.obsp\['connectivities'\].*'distances'"):
        fcm.lisi_adata(adata, "batch", graph="connectivities")
    with pytest.raises(KeyError, match="leiden"):
        fcm.scib_scores_adata(adata, "leiden", "batch")
    with pytest.raises(TypeError, match="AnnData in memory"):
        fcm.silhouette_adata(adata.obs, "cell_type")
