"""The command line's ``--embedding`` and ``--graph`` of AnnData files written by anndata
(.h5ad and zarr): the scores printed equal the library's functions on the same arrays, in
every output format; the errors and their exit statuses; the note before a large exact
silhouette. Without the options the output is unchanged (``test_cli.py``)."""

from __future__ import annotations

import csv
import io
import json
import math
import warnings

import numpy as np
import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics._cli import embedding as cli_embedding
from fastcluster_metrics._cli import main as _cli
from fastcluster_metrics._io.anndata_arrays import read_obsm, read_obsp
from fastcluster_metrics._io.anndata_errors import AnnDataError

anndata = pytest.importorskip("anndata")
pd = pytest.importorskip("pandas")
sp = pytest.importorskip("scipy.sparse")
neighbors = pytest.importorskip("sklearn.neighbors")

N = 400
SCIB = ("silhouette_label", "silhouette_batch", "bras", "isolated_labels")
GRAPH = ("ilisi_knn", "clisi_knn", "kbet", "graph_connectivity")


def _adata():
    rng = np.random.default_rng(11)
    types = rng.integers(0, 4, N)
    batch = rng.integers(0, 2, N)
    x = rng.normal(0, 3, (4, 8))[types] + 0.5 * batch[:, None] + rng.normal(size=(N, 8))
    noisy = np.where(rng.random(N) < 0.2, rng.integers(0, 5, N), types)
    obs = pd.DataFrame(
        {
            "cell_type": pd.Categorical(np.array(["B", "T", "NK", "mono"])[types]),
            "batch": pd.Categorical([f"b{b}" for b in batch]),
            "leiden_a": pd.Categorical(noisy.astype(str)),
            "leiden_b": pd.Categorical(rng.integers(0, 3, N).astype(str)),
        },
        index=[f"c{i}" for i in range(N)],
    )
    a = anndata.AnnData(obs=obs, obsm={"X_pca": x, "X_bad": x[:, :1].repeat(3, 1)})
    a.obsm["X_bad"][5, 0] = np.nan
    a.obsm["X_frame"] = pd.DataFrame({"u": x[:, 0]}, index=obs.index)
    a.obsp["distances"] = neighbors.kneighbors_graph(x, 15, mode="distance").tocsr()
    return a


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("embedding")
    a = _adata()
    a.write_h5ad(root / "cells.h5ad")
    for name, version in (("cells.zarr", 2), ("cells3.zarr", 3)):
        with warnings.catch_warnings(), anndata.settings.override(zarr_write_format=version):
            warnings.simplefilter("ignore")  # anndata's own warnings about zarr formats
            a.write_zarr(root / name)
    a.obs.to_csv(root / "cells.csv")
    return root, a


@pytest.fixture
def cli(files, capsys, monkeypatch):
    monkeypatch.chdir(files[0])

    def call(*args):
        status = _cli.main([str(a) for a in args])
        out, err = capsys.readouterr()
        return status, out, err

    return call


def _expected(a, method="exact"):
    x, graph = a.obsm["X_pca"], a.obsp["distances"]
    types, batch = a.obs["cell_type"], a.obs["batch"]
    silhouette = fcm.silhouette_score if method == "exact" else fcm.approximate_silhouette_score
    preds = {p: silhouette(x, a.obs[p]) for p in ("leiden_a", "leiden_b")}
    scores = {
        name: getattr(fcm, name)(x, types, *([] if name == SCIB[0] else [batch])) for name in SCIB
    }
    scores["ilisi_knn"] = fcm.ilisi_knn(graph, batch)
    scores["clisi_knn"] = fcm.clisi_knn(graph, types)
    scores["kbet"] = fcm.kbet(graph, batch)[0]
    scores["graph_connectivity"] = fcm.graph_connectivity(graph, types)
    return preds, scores


BOTH = ("--embedding", "X_pca", "--graph", "distances", "--batch", "batch")


@pytest.mark.parametrize("name", ["cells.h5ad", "cells.zarr", "cells3.zarr"])
def test_json_equals_the_library(files, cli, name):
    _, a = files
    status, out, err = cli(
        name, "--truth", "cell_type", "--pred", "leiden_*", *BOTH, "--format", "json"
    )
    assert status == 0, err
    doc = json.loads(out)
    preds, scores = _expected(a)
    for p, value in preds.items():
        assert doc["predictions"][p]["silhouette"] == pytest.approx(value, rel=1e-9)
    assert list(doc["scib"]) == [*SCIB, *GRAPH]
    for key, value in scores.items():
        assert doc["scib"][key] == pytest.approx(value, rel=1e-9), key
    assert doc["embedding"] == {"obsm": "X_pca", "silhouette": "exact"}
    assert doc["graph"] == {"obsp": "distances"}
    assert doc["batch"] == "batch"
    assert err == ""


def test_csv_and_tables(files, cli):
    _, a = files
    preds, scores = _expected(a, "approximate")
    status, out, _ = cli(
        "cells.h5ad", "--truth", "cell_type", "--pred", "leiden_*", *BOTH,
        "--silhouette", "approximate", "--format", "csv", "--metrics", "ari",
    )  # fmt: skip
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["prediction", "n", "adjusted_rand_score", "silhouette", *SCIB, *GRAPH]
    for row in rows:
        assert float(row["silhouette"]) == pytest.approx(preds[row["prediction"]], rel=1e-9)
        for key, value in scores.items():
            assert float(row[key]) == pytest.approx(value, rel=1e-9)
    status, out, _ = cli(
        "cells.h5ad", "--truth", "cell_type", "--pred", "leiden_*", *BOTH, "--metrics", "ari"
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[2].split() == ["prediction", "n", "ARI", "silhouette"]
    exact, _ = _expected(a)
    assert float(lines[4].split()[-1]) == pytest.approx(exact["leiden_a"], abs=1e-4)
    assert (
        "scIB scores of obsm['X_pca'] and obsp['distances'] (cell types: cell_type, batches: batch)"
        in out
    )
    shown = {
        line.split()[0]: float(line.split()[1])
        for line in lines
        if line.split()[:1] and line.split()[0] in scores
    }
    assert shown == pytest.approx(scores, abs=1e-4)
    status, out, _ = cli(
        "cells.h5ad", "--truth", "cell_type", "--pred", "leiden_a", "--embedding", "X_pca",
        "--metrics", "ari", "--transpose",
    )  # fmt: skip
    assert status == 0
    assert out.splitlines()[-1].split()[0] == "silhouette"
    assert "scIB" not in out


def test_graph_without_batch(cli, files):
    _, a = files
    status, out, _ = cli(
        "cells.zarr",
        "--truth",
        "cell_type",
        "--pred",
        "leiden_a",
        "--graph",
        "distances",
        "--format",
        "json",
    )
    assert status == 0
    doc = json.loads(out)
    graph = a.obsp["distances"]
    assert doc["scib"] == pytest.approx(
        {
            "clisi_knn": fcm.clisi_knn(graph, a.obs["cell_type"]),
            "graph_connectivity": fcm.graph_connectivity(graph, a.obs["cell_type"]),
        }
    )
    assert "silhouette" not in doc["predictions"]["leiden_a"]


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (
            ("cells.h5ad", "--embedding", "X_umap"),
            1,
            "cells.h5ad: no obsm['X_umap']; the obsm keys are: 'X_bad', 'X_frame', 'X_pca'",
        ),
        (("cells.zarr", "--graph", "connectivities"), 1, "keys are: 'distances'"),
        (
            ("cells.h5ad", "--embedding", "X_bad"),
            1,
            "obsm['X_bad'] holds 1 of its 1,200 values not finite",
        ),
        (("cells.h5ad", "--embedding", "X_frame"), 1, "obsm['X_frame'] is a dataframe"),
        (("cells.h5ad", "--embedding", "X_pca", "--batch", "sample"), 1, "no batch column"),
        (("cells.csv", "--embedding", "X_pca"), 2, "--embedding reads the obsm and obsp"),
        (("cells.h5ad", "cells.h5ad", "--graph", "distances"), 2, "--graph reads one AnnData file"),
        (("cells.h5ad", "--batch", "batch"), 2, "--batch needs --embedding KEY or --graph KEY"),
        (("cells.h5ad", "--graph", "distances", "--silhouette", "exact"), 2, "--silhouette"),
        (("cells.h5ad", "--embedding", "X_pca", "--soft"), 2, "not with --soft"),
    ],
)
def test_errors(cli, args, status, message):
    code, out, err = cli(*args, "--truth", "cell_type", "--pred", "leiden_a")
    assert code == status
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_rows_must_match_the_cells(tmp_path):
    x = np.zeros((4, 2))
    a = anndata.AnnData(
        obs=pd.DataFrame({"c": list("abcd")}, index=list("wxyz")), obsm={"X_pca": x}
    )
    a.obsp["distances"] = sp.csr_matrix(np.eye(4))
    a.write_h5ad(tmp_path / "a.h5ad")
    import h5py

    with h5py.File(tmp_path / "a.h5ad", "r+") as f:
        del f["obsm/X_pca"]
        f["obsm/X_pca"] = np.zeros((3, 2))
        f["obsp/distances"].attrs["shape"] = (4, 5)
        f["obsm/X_1d"] = np.zeros(4)
    with pytest.raises(AnnDataError, match=r"has 3 rows, not one per cell \(4 in obs\)"):
        read_obsm(tmp_path / "a.h5ad", "h5ad", "X_pca")
    with pytest.raises(AnnDataError, match="not 2-D"):
        read_obsm(tmp_path / "a.h5ad", "h5ad", "X_1d")
    with pytest.raises(AnnDataError, match=r"has shape \(4, 5\), not cells x cells"):
        read_obsp(tmp_path / "a.h5ad", "h5ad", "distances")
    with h5py.File(tmp_path / "a.h5ad", "r+") as f:
        f["obsp/distances"].attrs["shape"] = (4, 4)
        f["obsp/distances/indices"][0] = 9
    with pytest.raises(AnnDataError, match="an index outside its 4 columns"):
        read_obsp(tmp_path / "a.h5ad", "h5ad", "distances")


def test_arrays_read_as_stored(files):
    root, a = files
    for name, kind in (("cells.h5ad", "h5ad"), ("cells.zarr", "zarr"), ("cells3.zarr", "zarr")):
        np.testing.assert_array_equal(read_obsm(root / name, kind, "X_pca"), a.obsm["X_pca"])
        graph = read_obsp(root / name, kind, "distances")
        assert isinstance(graph, sp.csr_matrix)
        assert (graph != a.obsp["distances"]).nnz == 0


def test_note_before_a_large_exact_silhouette(cli, monkeypatch):
    monkeypatch.setattr(cli_embedding, "EXACT_NOTE_CELLS", 100)
    status, _, err = cli(
        "cells.h5ad", "--truth", "cell_type", "--pred", "leiden_*", "--embedding", "X_pca"
    )
    assert status == 0
    (line,) = err.splitlines()
    assert (
        f"exact silhouettes of {N} cells in 8 dimensions: about {2 * N * N * 8:.1e} multiply-adds"
        in line
    )
    assert "--silhouette approximate" in line
    status, _, err = cli(
        "cells.h5ad", "--truth", "cell_type", "--pred", "leiden_a", "--embedding", "X_pca",
        "--silhouette", "approximate",
    )  # fmt: skip
    assert (status, err) == (0, "")
    monkeypatch.setattr(cli_embedding, "EXACT_NOTE_CELLS", N)
    assert (
        cli("cells.h5ad", "--truth", "cell_type", "--pred", "leiden_a", "--embedding", "X_pca")[2]
        == ""
    )


def test_a_single_cluster_has_no_silhouette(tmp_path, cli):
    a = _adata()
    a.obs["one"] = pd.Categorical(["0"] * N)
    a.write_h5ad(tmp_path / "one.h5ad")
    status, out, err = cli(
        tmp_path / "one.h5ad",
        "--truth",
        "cell_type",
        "--pred",
        "one",
        "--embedding",
        "X_pca",
        "--format",
        "json",
    )
    assert status == 0
    assert json.loads(out)["predictions"]["one"]["silhouette"] is None
    assert "no silhouette of 'one'" in err


def test_missing_batches(tmp_path, cli):
    a = _adata()
    a.obs["batch"] = a.obs["batch"].astype(object)
    a.obs.loc[a.obs.index[:5], "batch"] = np.nan
    a.obs["batch"] = pd.Categorical(a.obs["batch"])
    a.write_h5ad(tmp_path / "m.h5ad")
    args = (
        tmp_path / "m.h5ad",
        "--truth",
        "cell_type",
        "--pred",
        "leiden_a",
        *BOTH,
        "--format",
        "json",
    )
    status, _, err = cli(*args)
    assert status == 1
    assert "batch column 'batch' has 5 missing values (the first in row 1)" in err
    status, out, _ = cli(*args, "--missing", "drop")
    assert status == 0
    keep = np.arange(5, N)
    x, graph = a.obsm["X_pca"][keep], a.obsp["distances"][keep][:, keep]
    types, batch = a.obs["cell_type"].to_numpy()[keep], a.obs["batch"].to_numpy()[keep]
    scib = json.loads(out)["scib"]
    assert scib["silhouette_batch"] == pytest.approx(fcm.silhouette_batch(x, types, batch))
    assert scib["kbet"] == pytest.approx(fcm.kbet(graph, batch)[0])
    status, out, _ = cli(*args, "--missing", "cluster")
    assert status == 0
    assert all(not math.isnan(v) for v in json.loads(out)["scib"].values())
