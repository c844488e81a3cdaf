"""scIB's score table of several integrations against scib-metrics' own ``Benchmarker``, run
once on the same AnnData (600 cells: 5 cell types of 120, one of them in one batch only, 3
batches; 3 embeddings of 16 dimensions, from batches kept whole to batches almost removed).

Benchmarker is given the neighbours ours finds (an exact search, through its
``prepare(neighbor_computer=...)``) and the same exact search in its per-label kBET's
diffusion map (where it calls pynndescent, whose compiling would take a minute); its
``gc.collect()`` before each metric is skipped. Then the silhouettes, LISIs, graph
connectivity and PCR comparison agree to 1e-5; KBET (ARPACK from a random start there) and
Leiden (igraph from the same seed, on connectivities equal to umap's but for a last bit here
and there) to 0.02; k-means NMI and ARI (scib-metrics' JAX k-means from one start, scikit-learn's
best of ten here) to 0.05. The table's layout is Benchmarker's exactly. About 40 s on two cores,
nearly all of it Benchmarker's: importing JAX, scanpy and umap and compiling their code.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import fastcluster_metrics as fcm

anndata = pytest.importorskip("anndata")
pd = pytest.importorskip("pandas")
sp = pytest.importorskip("scipy.sparse")
pytest.importorskip("sklearn")

KEYS = ["X_pca", "X_half", "X_mixed"]
TYPES = 5
PER_TYPE = 120
BATCHES = 3
DIM = 16
GENES = 40

# Randomness makes these approximate (the module's note says why); the rest agree to 1e-5.
APPROXIMATE = {
    "KMeans NMI": 0.05,
    "KMeans ARI": 0.05,
    "Leiden NMI": 0.02,
    "Leiden ARI": 0.02,
    "KBET": 0.02,
    "Bio conservation": 0.03,
    "Total": 0.03,
}
EXACT = 1e-5


def _scib_metrics():
    try:
        with warnings.catch_warnings():
            # umap warns when TensorFlow is absent
            warnings.simplefilter("ignore")
            import scib_metrics
            import scib_metrics.benchmark
    except ImportError:
        pytest.skip("scib-metrics is not installed")
    return scib_metrics


def _has_igraph() -> bool:
    try:
        import igraph  # noqa: F401
    except ImportError:
        return False
    return True


def _make() -> anndata.AnnData:
    rng = np.random.default_rng(20_261_202)
    types = np.repeat(np.arange(TYPES), PER_TYPE)
    batches = np.tile(np.arange(BATCHES), TYPES * PER_TYPE // BATCHES)
    batches[types == 0] = 0  # an isolated label: found in one batch only
    n = types.size
    centres = rng.normal(0, 1.6, (TYPES, GENES))
    shifts = rng.normal(0, 1.5, (BATCHES, GENES))
    x = (centres[types] + shifts[batches] + rng.normal(0, 1, (n, GENES))).astype(np.float32)
    obs = pd.DataFrame(
        {
            "cell_type": pd.Categorical([f"type_{t}" for t in types]),
            "batch": pd.Categorical([f"batch_{b}" for b in batches]),
        },
        index=[f"cell_{i}" for i in range(n)],
    )
    adata = anndata.AnnData(x, obs=obs)
    xc = x - x.mean(axis=0)
    u, s, _ = np.linalg.svd(xc, full_matrices=False)
    adata.obsm["X_pca"] = (u[:, :DIM] * s[:DIM]).astype(np.float32)
    for key, kept in (("X_half", 0.5), ("X_mixed", 0.1)):
        e = centres[types][:, :DIM] + kept * shifts[batches][:, :DIM] + rng.normal(0, 1, (n, DIM))
        adata.obsm[key] = e.astype(np.float32)
    return adata


def _exact(x, k):
    from sklearn.neighbors import NearestNeighbors

    n = x.shape[0]
    dist, idx = NearestNeighbors(n_neighbors=k - 1, algorithm="brute").fit(x).kneighbors()
    indices = np.c_[np.arange(n), idx]
    distances = np.c_[np.zeros(n), dist].astype(np.float32)
    return indices, distances


@pytest.fixture(scope="module")
def adata():
    return _make()


@pytest.fixture(scope="module")
def bio():
    return {"nmi_ari_cluster_labels_leiden": _has_igraph()}


@pytest.fixture(scope="module")
def benchmarker(adata, bio):
    """scib-metrics' Benchmarker, run once: its results and its min-max scaled results."""
    scib_metrics = _scib_metrics()
    from scib_metrics.benchmark import _core
    from scib_metrics.nearest_neighbors import NeighborsResults
    from scib_metrics.utils import _diffusion_nn

    def computer(x, n_neighbors):
        return NeighborsResults(*_exact(np.asarray(x), n_neighbors))

    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mp.setattr(_diffusion_nn.nearest_neighbors, "pynndescent", computer)
        mp.setattr(_core.gc, "collect", lambda: 0)
        bench = scib_metrics.benchmark.Benchmarker(
            adata.copy(),
            "batch",
            "cell_type",
            KEYS,
            bio_conservation_metrics=scib_metrics.benchmark.BioConservation(**bio),
            pre_integrated_embedding_obsm_key="X_pca",
            progress_bar=False,
        )
        bench.prepare(neighbor_computer=computer)
        bench.benchmark()
        return bench.get_results(), bench.get_results(min_max_scale=True)


@pytest.fixture(scope="module")
def ours(adata, bio):
    args = (adata, "batch", "cell_type", KEYS, bio)
    return (
        fcm.scib_benchmark(*args, pre_integrated_embedding_obsm_key="X_pca"),
        fcm.scib_benchmark(*args, pre_integrated_embedding_obsm_key="X_pca", min_max_scale=True),
    )


def _numbers(table):
    return table.drop("Metric Type").astype(np.float64)


def _assert_scores_equal(got, want):
    diff = (_numbers(got) - _numbers(want)).abs().max()
    for column, worst in diff.items():
        assert worst <= APPROXIMATE.get(column, EXACT), (column, worst)


def test_the_table_is_laid_out_as_benchmarkers(benchmarker, ours):
    for got, want in zip(ours, benchmarker, strict=True):
        assert list(got.index) == list(want.index) == [*KEYS, "Metric Type"]
        assert got.index.name == want.index.name == "Embedding"
        assert list(got.columns) == list(want.columns)
        assert list(got.loc["Metric Type"]) == list(want.loc["Metric Type"])
        assert list(got.dtypes) == list(want.dtypes)


def test_every_score_is_benchmarkers(benchmarker, ours):
    got, want = ours[0], benchmarker[0]
    assert "Leiden NMI" in got.columns or not _has_igraph()
    _assert_scores_equal(got, want)
    # the embeddings span the scores: batches kept whole to almost removed
    scores = _numbers(got)
    assert scores["Isolated labels"].min() < 0.9 and scores["Leiden NMI"].min() < 0.9
    assert scores["iLISI"].min() < 0.1 < 0.7 < scores["iLISI"].max()


def test_min_max_scaled_scores_are_benchmarkers(benchmarker, ours):
    # a metric equal for every embedding scales to 0, as scikit-learn's MinMaxScaler has it
    got, want = ours[1], benchmarker[1]
    deterministic = [c for c in got.columns if c not in APPROXIMATE]
    diff = (_numbers(got)[deterministic] - _numbers(want)[deterministic]).abs().max()
    assert diff.max() <= EXACT, diff
    scaled = _numbers(got).drop(columns=["Batch correction", "Bio conservation", "Total"])
    spread = _numbers(ours[0])[scaled.columns].nunique() > 1
    assert np.allclose(scaled.min(), 0.0)
    assert np.allclose(scaled.max()[spread], 1.0) and np.allclose(scaled.max()[~spread], 0.0)


@pytest.mark.parametrize("which", [0, 1])
def test_the_aggregates_are_the_groups_means(ours, which):
    table = ours[which]
    kinds = table.loc["Metric Type"]
    scores = _numbers(table)
    bio = scores[kinds.index[kinds == "Bio conservation"]].mean(axis=1)
    batch = scores[kinds.index[kinds == "Batch correction"]].mean(axis=1)
    assert np.allclose(scores["Bio conservation"], bio)
    assert np.allclose(scores["Batch correction"], batch)
    assert np.allclose(scores["Total"], 0.6 * bio + 0.4 * batch)
    assert set(kinds[["Batch correction", "Bio conservation", "Total"]]) == {"Aggregate score"}


def test_connectivities_are_umaps(adata, benchmarker):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from umap.umap_ import fuzzy_simplicial_set
    from fastcluster_metrics._graph.umap import fuzzy_connectivities

    indices, distances = _exact(adata.obsm["X_half"], 15)
    want = fuzzy_simplicial_set(
        sp.coo_matrix(([], ([], [])), shape=(indices.shape[0], 1)),
        n_neighbors=15,
        random_state=None,
        metric=None,
        knn_indices=indices,
        knn_dists=distances,
    )[0].tocsr()
    got = fuzzy_connectivities(indices, distances)
    assert got.dtype == want.dtype == np.float32
    assert (got != want).nnz == 0 or np.abs((got - want).data).max() <= 2.5e-7


def test_the_functions_of_its_columns_are_scib_metrics(adata, benchmarker):
    scib_metrics = _scib_metrics()
    pre, post = adata.obsm["X_pca"], adata.obsm["X_half"]
    batch = np.asarray(adata.obs["batch"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = scib_metrics.pcr_comparison(pre, post, batch, categorical=True)
        unscaled = scib_metrics.pcr_comparison(pre, post, batch, scale=False, categorical=True)
        first = scib_metrics.utils.principal_component_regression(
            post, batch, categorical=True, n_components=4
        )
        numeric = scib_metrics.utils.principal_component_regression(post, np.arange(len(post)))
    assert fcm.pcr_comparison(pre, post, batch, categorical=True) == pytest.approx(want, 1e-5)
    got = fcm.pcr_comparison(pre, post, batch, scale=False, categorical=True)
    assert got == pytest.approx(unscaled, rel=1e-5)
    assert fcm.principal_component_regression(
        post, batch, categorical=True, n_components=4
    ) == pytest.approx(first, rel=1e-5)
    assert fcm.principal_component_regression(post, np.arange(len(post))) == pytest.approx(
        numeric, rel=1e-4, abs=1e-7
    )


def test_a_negative_comparison_warns_and_scores_zero(adata):
    pre, post = adata.obsm["X_mixed"], adata.obsm["X_pca"]
    with pytest.warns(UserWarning, match="PCR comparison score is negative"):
        assert fcm.pcr_comparison(pre, post, adata.obs["batch"], categorical=True) == 0.0


def test_without_a_pre_integration_embedding_pcr_compares_with_the_pca_of_x(adata):
    # scanpy's sc.tl.pca (Benchmarker's): 39 components here (40 genes), by ARPACK
    x = adata.X - adata.X.mean(axis=0)
    u, s, _ = np.linalg.svd(x.astype(np.float64), full_matrices=False)
    pca = u[:, :39] * s[:39]
    want = fcm.pcr_comparison(pca, adata.obsm["X_half"], adata.obs["batch"], categorical=True)
    table = fcm.scib_benchmark(
        adata, "batch", "cell_type", ["X_half"], {}, {"pcr_comparison": True}
    )
    assert list(table.columns) == [
        "Isolated labels", "KMeans NMI", "KMeans ARI", "Silhouette label", "cLISI", "BRAS",
        "iLISI", "KBET", "Graph connectivity", "PCR comparison", "Batch correction",
        "Bio conservation", "Total",
    ]  # fmt: skip
    assert table.loc["X_half", "PCR comparison"] == pytest.approx(want, rel=1e-6)
    # a sparse X (centred without being copied): the same components
    sparse = anndata.AnnData(sp.csr_matrix(adata.X), obs=adata.obs, obsm=dict(adata.obsm))
    again = fcm.scib_benchmark(sparse, "batch", "cell_type", ["X_half"], None)
    assert again.loc["X_half", "PCR comparison"] == pytest.approx(want, rel=1e-6)


def _scanpy_graph(indices, distances, n):
    """scanpy's obsp["distances"]: each cell's other neighbours, in column order."""
    rows = np.repeat(np.arange(n), indices.shape[1] - 1)
    graph = sp.csr_matrix((distances[:, 1:].ravel(), (rows, indices[:, 1:].ravel())), shape=(n, n))
    graph.sort_indices()
    return graph


def test_a_graph_in_obsp_gives_the_same_scores_as_the_search(adata, ours):
    a = adata.copy()
    for key in KEYS:
        indices, distances = _exact(a.obsm[key], 90)
        a.obsp[f"{key}_distances"] = _scanpy_graph(indices, distances, a.n_obs)
    graphs = {key: f"{key}_distances" for key in KEYS}
    got = fcm.scib_benchmark(
        a, "batch", "cell_type", KEYS, {"nmi_ari_cluster_labels_leiden": _has_igraph()},
        pre_integrated_embedding_obsm_key="X_pca", neighbors=graphs,
    )  # fmt: skip
    assert np.array_equal(_numbers(got), _numbers(ours[0]))


def test_a_neighbor_computer_is_used_as_benchmarker_uses_it(adata, ours):
    class Found:
        def __init__(self, x, k):
            self.indices, self.distances = _exact(x, k)

    got = fcm.scib_benchmark(
        adata, "batch", "cell_type", KEYS[:1], None, pre_integrated_embedding_obsm_key="X_pca",
        neighbor_computer=Found,
    )  # fmt: skip
    assert list(got.columns) == [
        "BRAS", "iLISI", "KBET", "Graph connectivity", "PCR comparison", "Batch correction",
    ]  # fmt: skip
    for column in got.columns[:-1]:
        assert got.loc["X_pca", column] == ours[0].loc["X_pca", column]


def test_the_metrics_take_scib_metrics_dataclasses_and_keyword_arguments(adata, ours):
    scib_metrics = _scib_metrics()
    got = fcm.scib_benchmark(
        adata, "batch", "cell_type", ["X_half"],
        scib_metrics.benchmark.BioConservation(
            isolated_labels=False, nmi_ari_cluster_labels_kmeans=False, clisi_knn=False,
            silhouette_label={"rescale": False},
        ),
        fcm.BatchCorrection(bras=False, ilisi_knn={"scale": False}, kbet_per_label=False,
                            graph_connectivity=False, pcr_comparison=False),
        clean_names=False,
    )  # fmt: skip
    assert list(got.columns) == [
        "silhouette_label", "ilisi_knn", "Batch correction", "Bio conservation", "Total",
    ]  # fmt: skip
    x, labels, batch = adata.obsm["X_half"], adata.obs["cell_type"], adata.obs["batch"]
    graph = _exact(x, 90)
    assert got.loc["X_half", "silhouette_label"] == fcm.silhouette_label(x, labels, rescale=False)
    assert got.loc["X_half", "ilisi_knn"] == fcm.ilisi_knn(graph, batch, scale=False)


def test_one_group_has_its_own_aggregate_only(adata):
    table = fcm.scib_benchmark(
        adata, "batch", "cell_type", KEYS[1:],
        {"isolated_labels": False, "nmi_ari_cluster_labels_kmeans": False, "clisi_knn": False},
        None,
    )  # fmt: skip
    assert list(table.columns) == ["Silhouette label", "Bio conservation"]
    assert table.loc["Metric Type", "Bio conservation"] == "Aggregate score"


def test_the_table_plots_as_benchmarkers(ours, benchmarker):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    from fastcluster_metrics import plot

    for table in (ours[0], benchmarker[0]):
        ax = plot.plot_scib_table(table)
        texts = [t.get_text() for t in ax.texts]
        best_first = list(_numbers(table).sort_values("Total", ascending=False).index)
        assert texts[1:4] == best_first
        assert {"Bio conservation", "Batch correction", "Aggregate score"} <= set(texts)
        assert len(ax.patches) == 3 * len(KEYS)  # the aggregates' bars
        width, height = ax.figure.get_size_inches()
        assert width == pytest.approx(len(table.columns) * 1.25)
        assert height == pytest.approx(3 + 0.3 * len(KEYS))
    plt.close("all")
    with pytest.raises(ValueError, match="Metric Type"):
        plot.plot_scib_table(_numbers(ours[0]))


def test_missing_keys_and_columns_are_named(adata):
    args = (adata, "batch", "cell_type")
    with pytest.raises(KeyError, match=r"no \.obsm\['X_umap'\].*'X_pca', 'X_half', 'X_mixed'"):
        fcm.scib_benchmark(*args, ["X_umap"])
    with pytest.raises(KeyError, match=r"no batch column 'sample'; the columns are: cell_type"):
        fcm.scib_benchmark(adata, "sample", "cell_type", KEYS)
    with pytest.raises(KeyError, match=r"no labels column 'celltype'"):
        fcm.scib_benchmark(adata, "batch", "celltype", KEYS)
    with pytest.raises(KeyError, match=r"no \.obsp\['X_pca_distances'\]"):
        fcm.scib_benchmark(*args, KEYS, neighbors={"X_pca": "X_pca_distances"})
    with pytest.raises(KeyError, match=r"no \.obsm\['X_pre'\]"):
        fcm.scib_benchmark(*args, KEYS, pre_integrated_embedding_obsm_key="X_pre")


def test_bad_arguments_are_refused(adata):
    args = (adata, "batch", "cell_type", KEYS)
    with pytest.raises(ValueError, match=r"Either batch or bio metrics must be defined\."):
        fcm.scib_benchmark(*args, None, None)
    with pytest.raises(ValueError, match="BioConservation has no metric 'silhouette_batch'"):
        fcm.scib_benchmark(*args, {"silhouette_batch": True})
    with pytest.raises(TypeError, match=r"BatchCorrection\.bras is True, False or a dict"):
        fcm.scib_benchmark(*args, None, {"bras": "yes"})
    with pytest.raises(ValueError, match="neighbors names 'X_umap'"):
        fcm.scib_benchmark(*args, neighbors={"X_umap": "distances"})
    with pytest.raises(ValueError, match="neighbor_computer is None or 'exact'"):
        fcm.scib_benchmark(*args, None, neighbor_computer="annoy")


def test_a_graph_with_too_few_neighbours_is_refused(adata):
    a = adata.copy()
    indices, distances = _exact(a.obsm["X_pca"], 15)
    a.obsp["distances"] = _scanpy_graph(indices, distances, a.n_obs)
    with pytest.raises(ValueError, match=r"holds 14 neighbours of cell 0; .*n_neighbors=90"):
        fcm.scib_benchmark(a, "batch", "cell_type", ["X_pca"], neighbors={"X_pca": "distances"})


def test_import_leaves_the_optional_dependencies_unimported():
    import subprocess
    import sys

    code = (
        "import sys, fastcluster_metrics; print([m for m in ('pandas', 'scanpy', 'igraph',"
        " 'pynndescent', 'matplotlib', 'scib_metrics', 'sklearn', 'scipy', 'umap')"
        " if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
