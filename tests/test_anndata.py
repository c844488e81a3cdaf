"""evaluate_adata: AnnData .obs columns (or a DataFrame) scored as compare_many scores them."""

import doctest

import numpy as np
import pandas as pd
import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics._io import anndata as _anndata
from fastcluster_metrics._measures import lookup as _lookup

anndata = pytest.importorskip("anndata")

N = 500


def _obs():
    rng = np.random.default_rng(3)
    cell_type = rng.choice(["B", "CD4 T", "CD8 T", "NK", "mono"], N)
    fine = pd.Series(cell_type).map({"B": 0, "CD4 T": 1, "CD8 T": 1, "NK": 2, "mono": 3})
    noisy = rng.random(N) < 0.15
    fine[noisy] = rng.integers(0, 6, int(noisy.sum()))
    # scanpy writes clusters as categories "0", "1", ..., "10" (not in sorted string order).
    categories = [str(i) for i in range(12)]
    return pd.DataFrame(
        {
            "cell_type": pd.Categorical(cell_type),
            "leiden_0.5": pd.Categorical(fine.astype(str), categories=categories),
            "leiden_1.0": pd.Categorical(rng.integers(0, 12, N).astype(str), categories=categories),
            "n_genes": rng.integers(200, 3000, N),
        },
        index=[f"AAAC{i:05d}-1" for i in range(N)],
    )


@pytest.fixture(scope="module")
def adata():
    return anndata.AnnData(obs=_obs())


def _plain(obs, truth, preds, **kw):
    """The same comparison from plain string arrays (no Categorical fast path)."""
    return fcm.compare_many(
        np.asarray(obs[truth], dtype=object),
        {p: np.asarray(obs[p], dtype=object) for p in preds},
        **kw,
    )


def test_scores_obs_columns(adata):
    got = fcm.evaluate_adata(adata, truth="cell_type", pred=["leiden_0.5", "leiden_1.0"])
    assert list(got.index) == ["leiden_0.5", "leiden_1.0"]
    assert list(got.columns) == _lookup.default_names()
    want = _plain(adata.obs, "cell_type", ["leiden_0.5", "leiden_1.0"])
    pd.testing.assert_frame_equal(got, want, rtol=1e-12)
    assert got.loc["leiden_0.5", "adjusted_rand_score"] > 0.5
    assert abs(got.loc["leiden_1.0", "adjusted_rand_score"]) < 0.05


def test_a_dataframe_a_single_name_and_chosen_metrics(adata):
    got = fcm.evaluate_adata(adata.obs, "cell_type", "leiden_0.5", ["purity_score"])
    assert got.shape == (1, 1)
    want = fcm.purity_score(adata.obs["cell_type"], adata.obs["leiden_0.5"])
    assert got.loc["leiden_0.5", "purity_score"] == want


def test_patterns_select_columns_in_order(adata):
    got = fcm.evaluate_adata(adata, "cell_type", "leiden_*", metrics=["adjusted_rand_score"])
    assert list(got.index) == ["leiden_0.5", "leiden_1.0"]
    both = fcm.evaluate_adata(adata, "cell_type", ["leiden_1.0", "leiden_*"])
    assert list(both.index) == ["leiden_1.0", "leiden_0.5"]  # no column twice


def test_numeric_obs_columns(adata):
    got = fcm.evaluate_adata(adata, "n_genes", "n_genes", ["adjusted_rand_score"])
    assert got.loc["n_genes", "adjusted_rand_score"] == 1.0


def test_missing_column_lists_the_columns(adata):
    with pytest.raises(KeyError, match="no pred column 'louvain'; the columns are: cell_type,"):
        fcm.evaluate_adata(adata, "cell_type", "louvain")
    with pytest.raises(KeyError, match="no truth column 'celltype'"):
        fcm.evaluate_adata(adata, "celltype", "leiden_0.5")
    with pytest.raises(KeyError, match="no pred column 'louvain_\\*'"):
        fcm.evaluate_adata(adata, "cell_type", "louvain_*")


def test_bad_arguments(adata):
    with pytest.raises(TypeError, match="AnnData"):
        fcm.evaluate_adata([1, 2, 3], "a", "b")
    with pytest.raises(TypeError, match="one column"):
        fcm.evaluate_adata(adata, ["cell_type"], "leiden_0.5")
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        fcm.evaluate_adata(adata, "cell_type", "leiden_0.5", ["nope"])


def test_missing_labels():
    obs = _obs()
    obs.loc[obs.index[:7], "leiden_0.5"] = np.nan  # unassigned cells: Categorical code -1
    with pytest.raises(ValueError, match="7 of 500 labels are missing"):
        fcm.evaluate_adata(obs, "cell_type", "leiden_0.5")
    for policy in ("drop", "cluster"):
        got = fcm.evaluate_adata(obs, "cell_type", "leiden_0.5", missing=policy)
        want = _plain(obs, "cell_type", ["leiden_0.5"], missing=policy)
        pd.testing.assert_frame_equal(got, want, rtol=1e-12)
    dropped = fcm.evaluate_adata(obs, "cell_type", "leiden_0.5", missing="drop")
    kept = obs.iloc[7:]
    want = fcm.adjusted_rand_score(kept["cell_type"], kept["leiden_0.5"])
    assert dropped.loc["leiden_0.5", "adjusted_rand_score"] == pytest.approx(want, rel=1e-12)


def test_h5ad_round_trip(adata, tmp_path):
    path = tmp_path / "cells.h5ad"
    adata.write_h5ad(path)
    back = anndata.read_h5ad(path)
    assert isinstance(back.obs["leiden_0.5"].dtype, pd.CategoricalDtype)
    pd.testing.assert_frame_equal(
        fcm.evaluate_adata(back, "cell_type", "leiden_*"),
        fcm.evaluate_adata(adata, "cell_type", "leiden_*"),
    )


def test_docstring_examples():
    result = doctest.testmod(_anndata, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


# --- weights ---------------------------------------------------------------------------------


def _weighted_adata():
    obs = _obs()
    rng = np.random.default_rng(8)
    obs["size"] = rng.random(N) * 10.0 ** rng.integers(-3, 4, N)  # metacell sizes, say
    return anndata.AnnData(obs=obs)


def test_weights_column_scores_as_sample_weight(tmp_path):
    adata = _weighted_adata()
    want = fcm.compare_many(
        adata.obs["cell_type"],
        {p: adata.obs[p] for p in ["leiden_0.5", "leiden_1.0"]},
        sample_weight=adata.obs["size"].to_numpy(),
    )
    unweighted = fcm.evaluate_adata(adata, "cell_type", "leiden_*")
    for source in (adata, adata.obs):
        got = fcm.evaluate_adata(source, "cell_type", "leiden_*", weights="size")
        pd.testing.assert_frame_equal(got, want)
    assert not got.equals(unweighted)
    assert got["adjusted_mutual_info_score"].isna().all()  # real weights: no AMI
    path = tmp_path / "weighted.h5ad"
    adata.write_h5ad(path)
    pd.testing.assert_frame_equal(
        fcm.evaluate_adata(path, "cell_type", "leiden_*", weights="size"), want
    )


def test_whole_weights_are_repeated_cells():
    obs = _obs()
    obs["copies"] = np.random.default_rng(1).integers(0, 4, N)
    got = fcm.evaluate_adata(obs, "cell_type", "leiden_0.5", weights="copies")
    repeated = obs.loc[obs.index.repeat(obs["copies"])]
    want = fcm.evaluate_adata(repeated.reset_index(drop=True), "cell_type", "leiden_0.5")
    pd.testing.assert_frame_equal(got, want)


def test_bad_weights_column():
    obs = _obs().assign(size=1.0)
    obs.loc[obs.index[7], "size"] = -3.0
    with pytest.raises(ValueError, match=r"column 'size' holds the weight -3.0 in data row 8"):
        fcm.evaluate_adata(obs, "cell_type", "leiden_0.5", weights="size")
    with pytest.raises(
        ValueError, match=r"column 'cell_type' holds 'mono' \(not a number\) in data row 1"
    ):
        fcm.evaluate_adata(obs, "cell_type", "leiden_0.5", weights="cell_type")
    with pytest.raises(KeyError, match="no weights column 'sizes'"):
        fcm.evaluate_adata(obs, "cell_type", "leiden_0.5", weights="sizes")
    with pytest.raises(TypeError, match="weights is the name of one column"):
        fcm.evaluate_adata(obs, "cell_type", "leiden_0.5", weights=["size"])


# --- soft_scores_adata: membership matrices of obsm -------------------------------------------


def _soft_adata():
    import scipy.sparse as sp

    obs = _obs()
    rng = np.random.default_rng(12)
    codes = obs["cell_type"].cat.codes.to_numpy()
    probabilities = 0.7 * np.eye(5)[codes] + 0.3 * rng.dirichlet(np.ones(5), N)
    adata = anndata.AnnData(obs=obs)
    adata.obsm["probabilities"] = probabilities
    adata.obsm["top2"] = sp.csr_matrix(np.where(probabilities >= 0.2, probabilities, 0.0))
    adata.obs["size"] = rng.integers(1, 5, N).astype(float)
    return adata


@pytest.mark.parametrize(
    ("truth", "pred"),
    [("cell_type", "probabilities"), ("probabilities", "top2"), ("leiden_0.5", "cell_type")],
)
def test_soft_scores_of_obsm_and_obs_keys(truth, pred):
    adata = _soft_adata()

    def value(key):
        return adata.obsm[key] if key in adata.obsm else adata.obs[key]

    got = fcm.soft_scores_adata(adata, truth, pred)
    assert list(got) == ["frobenius_rand_score", "frobenius_adjusted_rand_score"]
    for name, score in got.items():
        assert score == getattr(fcm, name)(value(truth), value(pred))
    weighted = fcm.soft_scores_adata(adata, truth, pred, weights="size")
    want = fcm.frobenius_adjusted_rand_score(
        value(truth), value(pred), sample_weight=adata.obs["size"].to_numpy()
    )
    assert weighted["frobenius_adjusted_rand_score"] == pytest.approx(want, rel=1e-12)


def test_soft_scores_on_hard_labels_are_rand_and_ari():
    adata = _soft_adata()
    got = fcm.soft_scores_adata(adata, "cell_type", "leiden_0.5")
    obs = adata.obs
    assert got["frobenius_adjusted_rand_score"] == pytest.approx(
        fcm.adjusted_rand_score(obs["cell_type"], obs["leiden_0.5"]), rel=1e-12
    )
    assert got["frobenius_rand_score"] == pytest.approx(
        fcm.rand_score(obs["cell_type"], obs["leiden_0.5"]), rel=1e-12
    )


def test_soft_scores_errors_name_the_key():
    adata = _soft_adata()
    bad = adata.obsm["probabilities"].copy()
    bad[7, 2] = -0.5
    adata.obsm["bad"] = bad
    with pytest.raises(ValueError, match=r"soft_scores_adata: obsm\['bad'\] has a negative entry"):
        fcm.soft_scores_adata(adata, "cell_type", "bad")
    with pytest.raises(KeyError, match=r"pred 'umap' is neither a key of obsm \(which has"):
        fcm.soft_scores_adata(adata, "cell_type", "umap")
    with pytest.raises(TypeError, match="truth is the key of obsm or obs"):
        fcm.soft_scores_adata(adata, ["cell_type"], "probabilities")
    with pytest.raises(TypeError, match="takes an AnnData in memory"):
        fcm.soft_scores_adata("cells.h5ad", "cell_type", "probabilities")
