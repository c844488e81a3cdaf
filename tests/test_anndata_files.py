"""AnnData files in every layout anndata has written (h5ad: current, compressed, 0.7, before
0.7; zarr: format 2 and 3, a directory or a zip, the 0.7 layout) give the same labels to the
command line (a subprocess), read_contingency and evaluate_adata, and scikit-learn's scores on
them; only the obs columns asked for are read (never X); what is not an AnnData file is one
clear line naming it."""

import json
import os
import shutil
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from anndata_layouts import write_h5ad_0_7, write_h5ad_before_0_7, write_zarr_0_7
from sklearn import metrics as sk

import fastcluster_metrics as fcm
from fastcluster_metrics._io import readers as _readers

h5py = pytest.importorskip("h5py")

N = 400
CELL_TYPES = np.array(["B cell", "CD4+ T", "NK", "CD14+ Monocyte", "Dendritic"])


def _obs():
    """Cell annotations as scanpy leaves them: categorical cell types (some missing), Leiden
    clusters with integer categories, Louvain clusters with text categories, numbers."""
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 5, N)
    leiden = np.where(rng.random(N) < 0.8, truth, rng.integers(0, 7, N))
    cell_type = pd.Categorical(CELL_TYPES[truth])
    cell_type[[3, 77, 250]] = np.nan
    return pd.DataFrame(
        {
            "cell_type": cell_type,
            "leiden": pd.Categorical(leiden),
            "louvain": pd.Categorical((leiden // 2).astype(str)),
            "n_genes": rng.integers(200, 205, N),
            "phase": pd.Categorical(rng.choice(["G1", "S", "G2M"], N)),
        },
        index=pd.Index([f"AAAC{i:05d}-1" for i in range(N)]),
    )


def _nullable(obs):
    """More columns that only anndata 0.8 and later write: nullable text, integers, booleans."""
    rng = np.random.default_rng(12)
    out = obs.copy()
    batch = pd.array(rng.choice(["b1", "b2", "b3"], N), dtype="string")
    batch[[5, 6]] = pd.NA
    out["batch"] = batch
    donor = pd.array(rng.integers(1, 4, N), dtype="Int64")
    donor[9] = pd.NA
    out["donor"] = donor
    flag = pd.array(rng.random(N) < 0.5, dtype="boolean")
    flag[0] = pd.NA
    out["flag"] = flag
    # text with a value per cell stays text (anndata makes categories of repeated text)
    out["barcode"] = [f"BC{i:04d}" for i in range(N)]
    out["note"] = pd.array([f"n{i}" for i in range(N)], dtype="string")  # (with NA: categories)
    return out


def _anndata():
    return pytest.importorskip("anndata")


def _write_anndata(path, obs, **options):
    anndata = _anndata()
    adata = anndata.AnnData(X=np.ones((len(obs), 2), dtype=np.float32), obs=obs)
    settings = {k: options.pop(k) for k in list(options) if k.startswith("zarr")}
    with (
        warnings.catch_warnings(),
        anndata.settings.override(allow_write_nullable_strings=True, **settings),
    ):
        warnings.simplefilter("ignore")  # anndata's own warnings about its settings
        if path.suffix == ".h5ad":
            adata.write_h5ad(path, **options)
        else:
            adata.write_zarr(path)
    return path


def _zip(store, path):
    with zipfile.ZipFile(path, "w") as archive:
        for file in sorted(store.rglob("*")):
            if file.is_file():
                archive.write(file, file.relative_to(store).as_posix())
    return path


WRITERS = {
    "h5ad": lambda d, obs: _write_anndata(d / "cells.h5ad", _nullable(obs)),
    "h5ad-gzip": lambda d, obs: _write_anndata(
        d / "cells.h5ad", _nullable(obs), compression="gzip"
    ),
    "zarr-v2": lambda d, obs: _write_anndata(d / "cells.zarr", _nullable(obs), zarr_write_format=2),
    "zarr-v3": lambda d, obs: _write_anndata(d / "cells.zarr", _nullable(obs), zarr_write_format=3),
    "zarr-zip": lambda d, obs: _zip(
        _write_anndata(d / "store.zarr", _nullable(obs), zarr_write_format=3), d / "cells.zarr.zip"
    ),
    "h5ad-0.7": lambda d, obs: write_h5ad_0_7(d / "cells.h5ad", obs),
    "h5ad-before-0.7": lambda d, obs: write_h5ad_before_0_7(d / "cells.h5ad", obs),
    "zarr-0.7": lambda d, obs: write_zarr_0_7(d / "cells.zarr", obs),
}
NEEDS_ZARR = {"zarr-v2", "zarr-v3", "zarr-zip", "zarr-0.7"}


@pytest.fixture(scope="module", params=list(WRITERS))
def written(request, tmp_path_factory):
    """(the file, the obs it holds) for each layout."""
    if request.param in NEEDS_ZARR:
        pytest.importorskip("zarr")
    obs = _obs()
    path = WRITERS[request.param](tmp_path_factory.mktemp(request.param), obs)
    return path, obs if request.param in ("h5ad-0.7", "h5ad-before-0.7", "zarr-0.7") else _nullable(
        obs
    )


def _present(truth, pred):
    """The labels of the rows where neither is missing, as text (missing="drop")."""
    keep = ~(pd.isna(truth) | pd.isna(pred))
    return np.asarray(truth[keep], dtype=str), np.asarray(pred[keep], dtype=str)


def test_the_columns_and_labels_of_every_layout(written):
    path, obs = written
    file = _readers.open_file(path)
    assert file.columns() == ["obs_names", *obs.columns]
    names = list(file.columns())
    got = next(file.batches(names, 1))
    assert list(got["obs_names"]) == list(obs.index)
    for name in obs.columns:
        expected = obs[name]
        assert got[name].isna().tolist() == expected.isna().tolist(), name
        kept = ~expected.isna().to_numpy()
        assert [str(v) for v in got[name][kept]] == [str(v) for v in expected[kept]], name
        if isinstance(expected.dtype, pd.CategoricalDtype):  # names, not codes
            assert list(got[name].cat.categories) == list(expected.cat.categories), name


@pytest.mark.parametrize("pred", ["leiden", "louvain", "phase", "n_genes"])
def test_read_contingency_gives_sklearn_scores(written, pred):
    path, obs = written
    table = fcm.read_contingency(path, "cell_type", pred, missing="drop")
    truth, labels = _present(obs["cell_type"], obs[pred])
    expected = fcm.Contingency.from_labels(truth, labels)
    assert table.n == len(truth) == N - 3
    assert [str(c) for c in table.classes] == sorted(set(truth))  # names, not codes
    assert table.to_numpy().sum() == expected.to_numpy().sum()
    assert table.adjusted_rand_score() == pytest.approx(
        sk.adjusted_rand_score(truth, labels), abs=1e-12
    )
    assert table.normalized_mutual_info_score() == pytest.approx(
        sk.normalized_mutual_info_score(truth, labels), abs=1e-12
    )


def test_missing_labels_are_an_error_naming_the_column(written):
    path, _ = written
    with pytest.raises(ValueError, match="missing"):
        fcm.read_contingency(path, "cell_type", "leiden")


def test_evaluate_adata_given_the_path(written):
    path, obs = written
    got = fcm.evaluate_adata(path, "cell_type", "l*", ["ARI", "AMI", "purity"], missing="drop")
    expected = fcm.evaluate_adata(obs, "cell_type", "l*", ["ARI", "AMI", "purity"], missing="drop")
    pd.testing.assert_frame_equal(got, expected)
    assert list(got.index) == ["leiden", "louvain"]


def _cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "fastcluster_metrics", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ, MPLBACKEND="Agg"),
        timeout=120,
    )


def test_the_command_line_gives_sklearn_scores(written):
    path, obs = written
    more = ["batch", "donor", "flag", "barcode", "note"]
    preds = ["leiden", "louvain", "phase"] + (more if "batch" in obs else [])
    result = _cli(
        path,
        "--truth",
        "cell_type",
        *(a for p in preds for a in ("--pred", p)),
        "--missing",
        "drop",
        "--metrics",
        "ARI,AMI,V",
        "--format",
        "json",
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    doc = json.loads(result.stdout)
    for pred in preds:
        truth, labels = _present(obs["cell_type"], obs[pred])
        scores = doc["predictions"][pred]["scores"]
        assert doc["predictions"][pred]["n"] == len(truth)
        assert scores["adjusted_rand_score"] == pytest.approx(
            sk.adjusted_rand_score(truth, labels), abs=1e-12
        )
        assert scores["adjusted_mutual_info_score"] == pytest.approx(
            sk.adjusted_mutual_info_score(truth, labels), abs=1e-10
        )
        assert scores["v_measure_score"] == pytest.approx(
            sk.v_measure_score(truth, labels), abs=1e-12
        )


def test_missing_labels_on_the_command_line(written):
    path, _ = written
    result = _cli(path, "--truth", "cell_type", "--pred", "leiden")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "'cell_type' has missing labels" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_every_encoding_of_a_column_is_written(tmp_path):
    """The files anndata writes here hold every encoding of an obs column there is."""
    path = _write_anndata(tmp_path / "cells.h5ad", _nullable(_obs()))
    with h5py.File(path, "r") as f:
        encodings = {f["obs"][c].attrs["encoding-type"] for c in f["obs"]}
    assert encodings == {
        "array",
        "string-array",
        "categorical",
        "nullable-integer",
        "nullable-boolean",
        "nullable-string-array",
    }


def test_anndata_reads_the_old_layouts_as_written(tmp_path):
    """The legacy fixtures follow anndata's reader: anndata itself reads back the obs."""
    anndata = _anndata()
    obs = _obs()
    for write in (write_h5ad_0_7, write_h5ad_before_0_7):
        path = write(tmp_path / f"{write.__name__}.h5ad", obs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            back = anndata.read_h5ad(path).obs
        assert list(back.index) == list(obs.index)
        for name in obs.columns:
            assert back[name].astype(str).tolist() == obs[name].astype(str).tolist(), name
            if isinstance(obs[name].dtype, pd.CategoricalDtype):
                assert isinstance(back[name].dtype, pd.CategoricalDtype), name


# --- only what is asked for --------------------------------------------------------------------


def _poisoned(tmp_path):
    """A current .h5ad file whose X would take terabytes to read and whose louvain column is
    broken (a code past its categories): scoring other columns must touch neither."""
    path = _write_anndata(tmp_path / "cells.h5ad", _obs())
    with h5py.File(path, "r+") as f:
        del f["X"]
        f.create_dataset("X", shape=(N, 10**9), dtype="f4", chunks=(1, 1024))  # never written
        codes = f["obs/louvain/codes"]
        codes[0] = 100
    return path


def test_neither_x_nor_other_columns_are_read(tmp_path):
    path = _poisoned(tmp_path)
    assert path.stat().st_size < 1 << 20
    table = fcm.read_contingency(path, "cell_type", "leiden", missing="drop")
    assert table.n == N - 3
    result = _cli(path, "--truth", "cell_type", "--pred", "leiden", "--missing", "drop")
    assert result.returncode == 0, result.stderr
    broken = _cli(path, "--truth", "cell_type", "--pred", "louvain", "--missing", "drop")
    assert broken.returncode == 1
    assert broken.stderr.strip() == (
        f"fastcluster-metrics: error: cannot read {path} as h5ad: obs column 'louvain': a"
        " categorical code 100 past its 4 categories"
    )


# --- not AnnData files -------------------------------------------------------------------------


def _bad_files(root):
    """(file, the start of the message that names the problem, after the file's name) for
    files that are not AnnData files."""
    cases = []
    (root / "noise.h5ad").write_bytes(b"\x00\x01 not an hdf5 file")
    cases.append(("noise.h5ad", "cannot read {} as h5ad: not an HDF5 file ("))
    with h5py.File(root / "no_obs.h5ad", "w") as f:
        f["X"] = np.ones((3, 3))
    cases.append(("no_obs.h5ad", "cannot read {} as h5ad: no obs: not an AnnData file"))
    with h5py.File(root / "wide.h5ad", "w") as f:
        obs = f.create_group("obs")
        obs.attrs.update({"encoding-type": "dataframe", "encoding-version": "0.2.0"})
        obs.attrs["_index"] = "_index"
        obs.attrs["column-order"] = ["cell_type", "leiden"]
        obs["_index"] = np.array([b"a", b"b"])
        obs["cell_type"] = np.array([b"x", b"y"])
        obs["leiden"] = np.ones((2, 2))
    cases.append(
        (
            "wide.h5ad",
            "cannot read {} as h5ad: obs column 'leiden': an array of shape (2, 2), not one label"
            " per cell",
        )
    )
    (root / "empty.zarr").mkdir()
    cases.append(("empty.zarr", "cannot read {} as zarr: not a zarr store ("))
    (root / "folder").mkdir()
    cases.append(("folder", "{} is a directory, not a file (nor a zarr store)"))
    return cases


def test_what_is_not_an_anndata_file_is_one_clear_line(tmp_path):
    pytest.importorskip("zarr")
    for name, message in _bad_files(tmp_path):
        result = _cli(name, "--truth", "cell_type", "--pred", "leiden", cwd=tmp_path)
        assert result.returncode == 1, name
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert result.stderr.startswith("fastcluster-metrics: error: " + message.format(name)), (
            result.stderr
        )
        with pytest.raises((ValueError, FileNotFoundError)) as error:
            fcm.read_contingency(tmp_path / name, "cell_type", "leiden", progress=False)
        assert str(error.value).startswith(message.format(tmp_path / name)), error.value


def test_a_zarr_store_by_any_name(tmp_path):
    pytest.importorskip("zarr")
    store = _write_anndata(tmp_path / "cells.zarr", _obs(), zarr_write_format=2)
    renamed = tmp_path / "annotated"
    shutil.move(store, renamed)
    table = fcm.read_contingency(renamed, "cell_type", "leiden", missing="drop")
    assert table.n == N - 3


# --- scanpy's own example ----------------------------------------------------------------------

SCANPY_FILE = "scanpy/datasets/10x_pbmc68k_reduced.h5ad"


@pytest.fixture(scope="module")
def pbmc68k_reduced(tmp_path_factory):
    """scanpy's bundled pbmc68k_reduced.h5ad (written by anndata before 0.7), from the scanpy
    wheel that pip downloads (kept in ~/.cache/fastcluster-metrics between runs); skipped,
    saying why, when it cannot be downloaded."""
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "fastcluster-metrics"
    path = cache / "10x_pbmc68k_reduced.h5ad"
    if path.is_file():
        return path
    folder = tmp_path_factory.mktemp("scanpy")
    try:  # pip, as configured on this machine (its index or mirror, its proxy)
        done = subprocess.run(
            [
                *(sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"),
                *("--disable-pip-version-check", "--quiet", "--dest", str(folder), "scanpy"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"the scanpy wheel cannot be downloaded here ({e})")
    wheels = list(folder.glob("scanpy-*.whl"))
    if done.returncode != 0 or not wheels:
        reason = (done.stderr.strip().splitlines() or ["no wheel"])[-1]
        pytest.skip(f"the scanpy wheel cannot be downloaded here (pip download: {reason})")
    target = wheels[0]
    with zipfile.ZipFile(target) as archive:
        data = archive.read(SCANPY_FILE)
    cache.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(path)
    return path


def _pbmc_obs(path):
    """The labels of pbmc68k_reduced, read as anndata's legacy reader reads them: the compound
    obs dataset and the categories in uns (h5py alone, independent of the package)."""
    with h5py.File(path, "r") as f:
        obs = f["obs"][()]
        labels = {}
        for name in ("bulk_labels", "louvain", "phase"):
            categories = np.char.decode(f[f"uns/{name}_categories"][()], "utf-8")
            labels[name] = categories[obs[name]]
    return labels


def test_scanpys_pbmc68k_reduced(pbmc68k_reduced):
    labels = _pbmc_obs(pbmc68k_reduced)
    assert len(labels["louvain"]) == 700
    result = _cli(
        pbmc68k_reduced,
        "--truth",
        "bulk_labels",
        "--pred",
        "louvain",
        "--pred",
        "phase",
        "--format",
        "json",
        "--metrics",
        "ARI,NMI,purity",
    )
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    for pred in ("louvain", "phase"):
        scores = doc["predictions"][pred]["scores"]
        assert scores["adjusted_rand_score"] == pytest.approx(
            sk.adjusted_rand_score(labels["bulk_labels"], labels[pred]), abs=1e-12
        )
        assert scores["normalized_mutual_info_score"] == pytest.approx(
            sk.normalized_mutual_info_score(labels["bulk_labels"], labels[pred]), abs=1e-12
        )
    table = fcm.read_contingency(pbmc68k_reduced, "bulk_labels", "louvain")
    assert list(table.classes) == sorted(set(labels["bulk_labels"]))  # names, not codes
    assert "CD14+ Monocyte" in list(table.classes)
    assert table.n == 700
    frame = fcm.evaluate_adata(pbmc68k_reduced, "bulk_labels", ["louvain", "phase"], ["ARI"])
    assert frame.loc["louvain", "adjusted_rand_score"] == pytest.approx(
        sk.adjusted_rand_score(labels["bulk_labels"], labels["louvain"]), abs=1e-12
    )


def test_a_file_of_no_cells(tmp_path):
    """No cells: read_contingency gives the empty table (as of a CSV file with a header and no
    rows); the command line says the file has no rows, not that labels are missing."""
    obs = _obs().iloc[:0]
    path = write_h5ad_0_7(tmp_path / "none.h5ad", obs)
    table = fcm.read_contingency(path, "cell_type", "leiden")
    assert (table.n, table.shape) == (0, (0, 0))
    result = _cli(path, "--truth", "cell_type", "--pred", "leiden")
    assert result.returncode == 1
    assert result.stderr == (
        f"fastcluster-metrics: error: no samples to compare 'leiden' with 'cell_type' ({path} has"
        " no rows)\n"
    )


def test_nullable_text_with_missing_values(tmp_path):
    """A nullable-string-array column with masked values (what anndata's spec allows; anndata
    itself writes text with missing values as categories): masked values are missing labels."""
    path = tmp_path / "cells.h5ad"
    with h5py.File(path, "w") as f:
        obs = f.create_group("obs")
        obs.attrs.update({"encoding-type": "dataframe", "encoding-version": "0.2.0"})
        obs.attrs["_index"] = "_index"
        obs.attrs["column-order"] = ["cell_type", "donor"]
        obs.create_dataset("_index", data=["c0", "c1", "c2", "c3"], dtype=h5py.string_dtype())
        cell_type = obs.create_group("cell_type")
        cell_type.attrs.update(
            {"encoding-type": "nullable-string-array", "encoding-version": "0.1.0"}
        )
        cell_type.create_dataset("values", data=["B", "", "T", "T"], dtype=h5py.string_dtype())
        cell_type["mask"] = np.array([False, True, False, False])
        obs["donor"] = np.array([1, 1, 2, 2])
    labels = next(_readers.open_file(path).batches(["cell_type"], 1))["cell_type"]
    assert labels.isna().tolist() == [False, True, False, False]
    table = fcm.read_contingency(path, "cell_type", "donor", missing="drop")
    assert (list(table.classes), table.to_numpy().tolist()) == (["B", "T"], [[1, 0], [0, 2]])
