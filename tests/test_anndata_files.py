"""AnnData files in every layout anndata has written (h5ad: current, compressed, 0.7, before
0.7; zarr: format 2 and 3, a directory or a zip, the 0.7 layout) and in those of writers
outside anndata that anndata reads (the 0.7 layout without encoding attributes, MuDataSeurat's
with text as bytes) give the same labels to the command line (a subprocess), read_contingency
and evaluate_adata, and scikit-learn's scores on them (and on anndata's own reading of them);
only the obs columns asked for are read (never X); what is not an AnnData file is one clear
line naming it. A file is data, never code: what would make a reader run code or read
another file is refused, one line, before anything is decoded."""

import base64
import importlib.metadata
import json
import os
import pickle
import shutil
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from anndata_layouts import (
    write_h5ad_0_7,
    write_h5ad_before_0_7,
    write_h5ad_mudataseurat,
    write_h5ad_without_encoding,
    write_zarr_0_7,
    zarr_array,
)
from sklearn import metrics as sk

import fastcluster_metrics as fcm
from fastcluster_metrics._io import errors
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


def _anndata(minversion=None):
    """anndata; skipped without it, or before ``minversion`` (``"0.11"``)."""
    anndata = pytest.importorskip("anndata")
    have = importlib.metadata.version("anndata")  # (anndata.__version__ warns since 0.12)
    if minversion and _release(have) < _release(minversion):
        pytest.skip(f"anndata {have} here; this file is written with anndata {minversion} or later")
    return anndata


def _release(version):
    """A version's first two numbers (``"0.10.5.post1"``: ``(0, 10)``)."""
    return tuple(int(n) for n in version.split(".")[:2])


def _write_anndata(path, obs, **options):
    # (settings.override, allow_write_nullable_strings: anndata 0.11; zarr_write_format: 0.12)
    anndata = _anndata("0.11" if path.suffix == ".h5ad" else "0.12")
    if options.get("zarr_write_format") == 3:
        pytest.importorskip("zarr", minversion="3")
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
    "h5ad-no-encoding": lambda d, obs: write_h5ad_without_encoding(d / "cells.h5ad", obs),
    "h5ad-mudataseurat": lambda d, obs: write_h5ad_mudataseurat(d / "cells.h5ad", obs),
    "h5ad-mudataseurat-fixed": lambda d, obs: write_h5ad_mudataseurat(
        d / "cells.h5ad", obs, fixed=True
    ),
}
NEEDS_ZARR = {"zarr-v2", "zarr-v3", "zarr-zip", "zarr-0.7"}
OTHER_WRITERS = ("h5ad-no-encoding", "h5ad-mudataseurat", "h5ad-mudataseurat-fixed")
"""Layouts of writers outside anndata, which anndata reads."""
LEGACY = ("h5ad-0.7", "h5ad-before-0.7", "zarr-0.7", *OTHER_WRITERS)
"""Layouts without the columns only anndata 0.8 and later write."""


@pytest.fixture(scope="module", params=list(WRITERS))
def written(request, tmp_path_factory):
    """(the file, the obs it holds) for each layout."""
    if request.param in NEEDS_ZARR:
        pytest.importorskip("zarr")
    obs = _obs()
    path = WRITERS[request.param](tmp_path_factory.mktemp(request.param), obs)
    if request.param.startswith("h5ad-mudataseurat"):  # R's factor levels are text
        obs = obs.apply(lambda c: c.cat.rename_categories(str) if c.dtype == "category" else c)
    return path, obs if request.param in LEGACY else _nullable(obs)


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


def _cli(*args, cwd=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "fastcluster_metrics", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ, MPLBACKEND="Agg", **(env or {})),
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


# --- writers outside anndata: anndata is the oracle ----------------------------------------------


def _anndata_obs(path):
    """obs as anndata reads it (its warnings about old formats aside)."""
    anndata = _anndata()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anndata.read_h5ad(path).obs


def _as_text(values):
    """Labels as text: bytes (text anndata shows as ``b'B'``) decoded as UTF-8, missing as
    None."""
    return [
        None if pd.isna(v) else v.decode("utf-8") if isinstance(v, bytes) else str(v)
        for v in values
    ]


def _labels(values):
    """Labels for scikit-learn: missing ones one more label (``missing="cluster"``)."""
    return np.array(["<missing>" if v is None else v for v in _as_text(values)], dtype=object)


def _stamped(path, target):
    """A copy of a file of the 0.7 layout without encoding attributes, with them: anndata
    reads its categorical columns as categoricals (as anndata 0.7 read the file itself)."""
    shutil.copy(path, target)
    with h5py.File(target, "r+") as f:
        f["obs"].attrs.update({"encoding-type": "dataframe", "encoding-version": "0.1.0"})
    return target


@pytest.mark.parametrize("layout", OTHER_WRITERS)
def test_the_layouts_of_other_writers_are_read_as_anndata_reads_them(tmp_path, layout):
    obs = _obs()
    path = WRITERS[layout](tmp_path, obs)
    theirs = _anndata_obs(path)
    names = [str(c) for c in obs.columns]
    ours = next(_readers.open_file(path).batches(["obs_names", *names], 1))
    if layout == "h5ad-no-encoding":
        # anndata reads obs element by element: the cell names a column, categoricals their
        # codes; told it is a dataframe, it follows the categories' references
        assert _as_text(ours["obs_names"]) == _as_text(theirs["_index"])
        categorical = _anndata_obs(_stamped(path, tmp_path / "stamped.h5ad"))
        for name in names:
            assert _as_text(ours[name]) == _as_text(categorical[name]), name
            if isinstance(ours[name].dtype, pd.CategoricalDtype):
                assert ours[name].cat.codes.tolist() == theirs[name].tolist(), name
    else:  # MuDataSeurat's: text as bytes (variable-length; anndata decodes fixed-length)
        shown = theirs["cell_type"].cat.categories[0]
        assert isinstance(shown, bytes) == (layout == "h5ad-mudataseurat")
        assert _as_text(ours["obs_names"]) == _as_text(theirs.index)
        for name in names:
            assert _as_text(ours[name]) == _as_text(theirs[name]), name
            if isinstance(theirs[name].dtype, pd.CategoricalDtype):
                got = list(ours[name].cat.categories)
                assert got == _as_text(theirs[name].cat.categories), name
    # the scores: scikit-learn's of the columns as anndata reads them
    preds = ["leiden", "louvain", "phase", "n_genes"]
    truth = _labels(theirs["cell_type"])
    for pred in preds:
        labels = _labels(theirs[pred])
        table = fcm.read_contingency(path, "cell_type", pred, missing="cluster", progress=False)
        assert table.n == N
        assert table.adjusted_rand_score() == pytest.approx(
            sk.adjusted_rand_score(truth, labels), abs=1e-12
        )
        assert table.v_measure_score() == pytest.approx(
            sk.v_measure_score(truth, labels), abs=1e-12
        )
    frame = fcm.evaluate_adata(path, "cell_type", preds, ["ARI", "AMI"], missing="cluster")
    result = _cli(
        path,
        "--truth",
        "cell_type",
        *(a for p in preds for a in ("--pred", p)),
        *("--missing", "cluster", "--metrics", "ARI,AMI", "--format", "json"),
    )
    assert (result.returncode, result.stderr) == (0, "")
    doc = json.loads(result.stdout)["predictions"]
    for pred in preds:
        labels = _labels(theirs[pred])
        ari = sk.adjusted_rand_score(truth, labels)
        ami = sk.adjusted_mutual_info_score(truth, labels)
        assert frame.loc[pred, "adjusted_rand_score"] == pytest.approx(ari, abs=1e-12)
        assert frame.loc[pred, "adjusted_mutual_info_score"] == pytest.approx(ami, abs=1e-10)
        assert doc[pred]["scores"]["adjusted_rand_score"] == pytest.approx(ari, abs=1e-12)
        assert doc[pred]["scores"]["adjusted_mutual_info_score"] == pytest.approx(ami, abs=1e-10)


def _utf8_obs():
    """Labels beyond ASCII, as R writes them (UTF-8 bytes in strings it calls ASCII)."""
    return pd.DataFrame(
        {
            "cell_type": pd.Categorical(["Müller glia", "γδ T", "B", "γδ T", None, "B"]),
            "donor": ["Zoë", "Zoë", "Ana", "Ana", "Ana", "Zoë"],
            "leiden": pd.Categorical([0, 1, 1, 1, 2, 0]),
        },
        index=[f"c{i}" for i in range(6)],
    )


@pytest.mark.parametrize("fixed", [False, True], ids=["variable", "fixed"])
def test_text_as_bytes_is_read_as_utf8(tmp_path, fixed):
    obs = _utf8_obs()
    path = write_h5ad_mudataseurat(tmp_path / "cells.h5ad", obs, fixed=fixed)
    ours = next(_readers.open_file(path).batches(["cell_type", "donor"], 1))
    assert _as_text(ours["cell_type"]) == _as_text(obs["cell_type"])
    assert _as_text(ours["donor"]) == list(obs["donor"])
    assert list(ours["cell_type"].cat.categories) == ["B", "Müller glia", "γδ T"]
    if not fixed:  # anndata shows bytes (and cannot read fixed-length ones beyond ASCII)
        theirs = _anndata_obs(path)
        assert _as_text(ours["cell_type"]) == _as_text(theirs["cell_type"])
        assert _as_text(ours["donor"]) == _as_text(theirs["donor"])
    table = fcm.read_contingency(path, "cell_type", "donor", missing="drop")
    assert list(table.classes) == ["B", "Müller glia", "γδ T"]
    assert list(table.clusters) == ["Ana", "Zoë"]


# --- what cannot be read: one line that names the file and the column ------------------------


def _unreadable(root):
    """(file, the message after ``cannot read FILE as h5ad: ``) of files in the layouts of
    other writers that cannot be read."""
    cases = []
    obs = _obs().iloc[:6]
    path = write_h5ad_mudataseurat(root / "na_codes.h5ad", obs)
    with h5py.File(path, "r+") as f:  # R's NA as a code (MuDataSeurat before its fix)
        f["obs/cell_type"][3] = np.iinfo(np.int32).min
    cases.append(
        (
            "na_codes.h5ad",
            "obs column 'cell_type': a categorical code -2147483648, below -1 (the code of a"
            " missing label)",
        )
    )
    path = write_h5ad_mudataseurat(root / "latin1.h5ad", obs)
    with h5py.File(path, "r+") as f:
        del f["obs/phase"]
        text = h5py.string_dtype("ascii")
        f["obs"].create_dataset("phase", data=np.array([b"G\xe9"] * 6, dtype=object), dtype=text)
    cases.append(("latin1.h5ad", "obs column 'phase': text that is not UTF-8 ("))
    path = write_h5ad_without_encoding(root / "no_order.h5ad", obs)
    with h5py.File(path, "r+") as f:
        del f["obs"].attrs["column-order"]
    cases.append(
        (
            "no_order.h5ad",
            "obs is not a dataframe (a group without encoding attributes, and without"
            " 'column-order')",
        )
    )
    path = write_h5ad_without_encoding(root / "group.h5ad", obs)
    with h5py.File(path, "r+") as f:
        del f["obs/phase"]
        f["obs"].create_group("phase")["values"] = np.arange(6)
    cases.append(
        (
            "group.h5ad",
            "obs column 'phase': a group without an encoding; label columns are arrays,"
            " categoricals or nullable arrays",
        )
    )
    path = write_h5ad_without_encoding(root / "two_refs.h5ad", obs)
    with h5py.File(path, "r+") as f:
        ref = f["obs/__categories/cell_type"].ref
        f["obs/cell_type"].attrs["categories"] = np.array([ref, ref], dtype=h5py.ref_dtype)
    cases.append(
        ("two_refs.h5ad", "obs column 'cell_type': its categories attribute holds 2 references")
    )
    return cases


def test_what_other_writers_leave_unreadable_is_one_clear_line(tmp_path):
    for name, message in _unreadable(tmp_path):
        path = tmp_path / name
        pred = "cell_type" if "cell_type" not in message else "leiden"
        truth = "phase" if "'phase'" in message else "cell_type"
        result = _cli(name, "--truth", truth, "--pred", pred, cwd=tmp_path)
        assert result.returncode == 1, name
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert result.stderr.startswith(
            f"fastcluster-metrics: error: cannot read {name} as h5ad: {message}"
        ), result.stderr
        with pytest.raises(ValueError) as error:
            fcm.read_contingency(path, truth, pred, missing="drop", progress=False)
        assert str(error.value).startswith(f"cannot read {path} as h5ad: {message}"), error.value


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


# --- a file is data, never code ------------------------------------------------------------------


class _Payload:
    """Unpickled, it makes a directory: the proof that a reader ran code its file carried."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def _write_json(path, document):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))


def _zarr_v2(store, leiden, chunk, *, consolidated=None):
    """A zarr format 2 store written by hand: obs of three cells (encoding dataframe 0.2.0),
    ``cell_type`` plain fixed-width text, ``leiden`` of the metadata ``leiden`` with the chunk
    ``chunk``; ``consolidated``: a ``.zmetadata`` whose leiden is that metadata instead."""
    documents = {
        ".zgroup": {"zarr_format": 2},
        "obs/.zgroup": {"zarr_format": 2},
        "obs/.zattrs": {
            "encoding-type": "dataframe",
            "encoding-version": "0.2.0",
            "_index": "_index",
            "column-order": ["cell_type", "leiden"],
        },
    }
    chunks = {}
    for key, values in (("_index", ["c0", "c1", "c2"]), ("cell_type", ["B", "T", "B"])):
        array = np.array(values, dtype="<U2")
        documents[f"obs/{key}/.zarray"] = {
            **{"zarr_format": 2, "shape": [3], "chunks": [3], "dtype": array.dtype.str},
            **{"compressor": None, "filters": None, "fill_value": None, "order": "C"},
        }
        chunks[f"obs/{key}/0"] = array.tobytes()
    documents["obs/leiden/.zarray"] = {
        **{"zarr_format": 2, "shape": [3], "chunks": [3], "compressor": None, "filters": None},
        **{"fill_value": None, "order": "C", **leiden},
    }
    chunks["obs/leiden/0"] = chunk
    for key, document in documents.items():
        _write_json(store / key, document)
    for key, data in chunks.items():
        (store / key).write_bytes(data)
    if consolidated is not None:
        claimed = {**documents, "obs/leiden/.zarray": {**documents["obs/leiden/.zarray"]}}
        claimed["obs/leiden/.zarray"].update(consolidated)
        _write_json(store / ".zmetadata", {"zarr_consolidated_format": 1, "metadata": claimed})
    return store


def _zarr_v3(store, codecs, chunk):
    """A zarr format 3 store written by hand: obs of three cells, ``cell_type`` integers,
    ``leiden`` stored with ``codecs`` and the chunk ``chunk``."""
    _write_json(store / "zarr.json", {"zarr_format": 3, "node_type": "group", "attributes": {}})
    attributes = {
        "encoding-type": "dataframe",
        "encoding-version": "0.2.0",
        "_index": "_index",
        "column-order": ["cell_type", "leiden"],
    }
    _write_json(
        store / "obs/zarr.json",
        {"zarr_format": 3, "node_type": "group", "attributes": attributes},
    )
    little = [{"name": "bytes", "configuration": {"endian": "little"}}]
    for key, array_codecs, data in (
        ("_index", little, np.arange(3, dtype="<i8").tobytes()),
        ("cell_type", little, np.array([0, 1, 0], dtype="<i8").tobytes()),
        ("leiden", codecs, chunk),
    ):
        _write_json(
            store / f"obs/{key}/zarr.json",
            {
                **{"zarr_format": 3, "node_type": "array", "shape": [3], "data_type": "int64"},
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}},
                "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                **{"fill_value": 0, "codecs": array_codecs, "attributes": {}},
            },
        )
        (store / f"obs/{key}/c").mkdir()
        (store / f"obs/{key}/c/0").write_bytes(data)
    return store


def _hostile(name, store, marker):
    """A zarr store whose obs column leiden names numcodecs' pickle codec, its chunk (or its
    fill value) a pickle that makes ``marker``; and the codec as the store names it."""
    payload = pickle.dumps(_Payload(marker))
    encoded = base64.standard_b64encode(payload).decode()
    pickled = [{"id": "pickle", "protocol": 5}]
    honest = {"dtype": "<i8"}
    little = {"name": "bytes", "configuration": {"endian": "little"}}
    if name == "v2 object codec":  # object arrays: the object codec is the first filter
        return _zarr_v2(store, {"dtype": "|O", "filters": pickled}, payload), "pickle"
    if name == "v2 compressor":
        return _zarr_v2(store, {"dtype": "<i8", "compressor": pickled[0]}, payload), "pickle"
    if name == "v2 fill value":  # zarr 2 decodes it as it opens the array
        leiden = {"dtype": [["a", "|O"]], "filters": pickled, "fill_value": encoded}
        return _zarr_v2(store, leiden, payload), "pickle"
    if name == "v2 consolidated":  # the array's own metadata honest, the store's not
        data = np.array([0, 1, 1], dtype="<i8").tobytes()
        claimed = {"dtype": "|O", "filters": pickled}
        return _zarr_v2(store, honest, data, consolidated=claimed), "pickle"
    if name == "v2 zipped":
        _zarr_v2(store, {"dtype": "|O", "filters": pickled}, payload)
        return _zip(store, store.with_name("cells.zarr.zip")), "pickle"
    if name == "v3 codec":
        return _zarr_v3(store, [{"name": "numcodecs.pickle"}], payload), "numcodecs.pickle"
    assert name == "v3 shard"
    shard = {
        "name": "sharding_indexed",
        "configuration": {
            "chunk_shape": [3],
            "codecs": [little, {"name": "numcodecs.pickle", "configuration": {}}],
            "index_codecs": [little, {"name": "crc32c"}],
            "index_location": "end",
        },
    }
    return _zarr_v3(store, [shard], payload), "numcodecs.pickle"


HOSTILE = [
    "v2 object codec",
    "v2 compressor",
    "v2 fill value",
    "v2 consolidated",
    "v2 zipped",
    "v3 codec",
    "v3 shard",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_zarr_codec_that_runs_code_is_refused_before_decoding(tmp_path, monkeypatch, name):
    """Even where numcodecs would unpickle (before 0.15.2, and 0.16.0 to 0.16.5; here by its
    opt-in), the pickle codec is refused before zarr opens the array; nothing runs."""
    zarr = pytest.importorskip("zarr")
    numcodecs = pytest.importorskip("numcodecs")
    monkeypatch.setattr(numcodecs.pickles, "ALLOW_UNSAFE_PICKLE_DECODE", True, raising=False)
    marker = tmp_path / "the payload ran"
    path, codec = _hostile(name, tmp_path / "cells.zarr", marker)
    if name.startswith("v3") and zarr.__version__.startswith("2."):
        with pytest.raises(errors.UnreadableFileError, match="a zarr format 3 store, which zarr"):
            fcm.read_contingency(path, "cell_type", "leiden", progress=False)
        assert not marker.exists(), "the payload ran"
        pytest.skip(f"zarr {zarr.__version__} reads no zarr format 3 store (refused unread)")
    message = (
        f"{path}: obs column 'leiden' is stored with the codec {codec!r} (obs/leiden), which"
        " could run code when decoded; refusing to read it"
    )
    for read in (
        lambda: fcm.read_contingency(path, "cell_type", "leiden", progress=False),
        lambda: fcm.evaluate_adata(path, "cell_type", "leiden", ["ARI"]),
        lambda: next(_readers.open_file(path).batches(["leiden"], 1)),
    ):
        with pytest.raises(ValueError) as error:
            read()
        assert not marker.exists(), "the payload ran"
        assert isinstance(error.value, errors.UnsafeFileError)
        assert str(error.value) == message
    # the command line, with numcodecs' opt-in to unpickling set
    unsafe = {"NUMCODECS_ALLOW_UNSAFE_PICKLE_DECODE": "1"}
    result = _cli(path, "--truth", "cell_type", "--pred", "leiden", env=unsafe)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"fastcluster-metrics: error: {message}\n"
    assert not marker.exists()
    if name != "v2 consolidated":  # (zarr 3 parses all of it as it opens the store)
        # the columns not asked for are read
        assert fcm.read_contingency(path, "cell_type", "obs_names", progress=False).n == 3


# (zarr warns that numcodecs' codecs are not in the zarr format 3 specification)
@pytest.mark.filterwarnings("ignore:Numcodecs codecs are not in the Zarr version 3")
def test_the_codecs_zarr_users_choose_are_read(tmp_path):
    """Not every codec but pickle is refused: compressors, checksums and filters of zarr and
    numcodecs, sharded or not, are read."""
    zarr = pytest.importorskip("zarr", minversion="3.1")  # (zarr.codecs.numcodecs)
    numcodecs = pytest.importorskip("numcodecs")
    numbers = pytest.importorskip("zarr.codecs.numcodecs")
    obs = _obs()
    leiden = obs["leiden"].cat.codes.to_numpy().astype("i8")
    truth = obs["phase"].cat.codes.to_numpy()
    v2 = {
        "gzip": {"compressors": numcodecs.GZip(5), "filters": [numcodecs.Delta("<i8")]},
        "lz4": {"compressors": numcodecs.LZ4(), "filters": [numcodecs.Shuffle(8)]},
        "zlib": {"compressors": numcodecs.Zlib(1), "filters": None},
        "bz2": {"compressors": numcodecs.BZ2(), "filters": None},
    }
    v3 = {
        "gzip": {"compressors": zarr.codecs.GzipCodec(), "filters": None},
        "crc32c": {"compressors": [zarr.codecs.ZstdCodec(), zarr.codecs.Crc32cCodec()]},
        "numcodecs.zlib": {"compressors": numbers.Zlib(level=1), "filters": None},
        "shards": {"compressors": zarr.codecs.BloscCodec(), "shards": (200,), "chunks": (50,)},
    }
    for zarr_format, settings in ((2, v2), (3, v3)):
        for name, options in settings.items():
            path = tmp_path / f"v{zarr_format}-{name}.zarr"
            root = zarr.open_group(str(path), mode="w", zarr_format=zarr_format)
            group = root.create_group("obs")
            group.attrs.update(
                {
                    "encoding-type": "dataframe",
                    "encoding-version": "0.2.0",
                    "_index": "_index",
                    "column-order": ["phase", "leiden"],
                }
            )
            group.create_array("_index", data=np.arange(N))
            group.create_array("phase", data=truth)
            group.create_array("leiden", data=leiden, **options)
            table = fcm.read_contingency(path, "phase", "leiden", progress=False)
            assert table.adjusted_rand_score() == pytest.approx(
                sk.adjusted_rand_score(truth, leiden), abs=1e-12
            ), path.name


def _h5ad_vectors(root):
    """(file, its obs column, what the message says of it) of .h5ad files that would have a
    reader follow a reference out of obs, or read another file."""
    cases = []
    obs = _obs()
    with h5py.File(root / "other.h5", "w") as f:
        f["values"] = np.arange(N)
    np.arange(N, dtype="<i8").tofile(root / "raw.bin")

    def case(name, column, said, change):
        path = write_h5ad_0_7(root / name, obs)
        with h5py.File(path, "r+") as f:
            change(f)
        cases.append((name, column, said))

    def outside(f):  # categories that are not obs's: anndata would follow it anywhere
        f["uns/cell_type_categories"] = np.array([b"x", b"y", b"z", b"u", b"v"])
        f["obs/cell_type"].attrs["categories"] = f["uns/cell_type_categories"].ref

    case(
        "outside.h5ad",
        "cell_type",
        "refers to /uns/cell_type_categories for its categories, outside /obs; refusing to"
        " follow it",
        outside,
    )

    def region(f):
        categories = f["obs/__categories/cell_type"]
        f["obs/cell_type"].attrs["categories"] = categories.regionref[0:2]

    case(
        "region.h5ad",
        "cell_type",
        "has a region reference for its categories (anndata writes an object reference to an"
        " element of obs); refusing to follow it",
        region,
    )

    def external_link(f):
        del f["obs/n_genes"]
        f["obs/n_genes"] = h5py.ExternalLink("other.h5", "/values")

    case(
        "link.h5ad",
        "n_genes",
        "is a link to /values in another file (other.h5, from obs/n_genes); refusing to follow it",
        external_link,
    )

    def soft_link(f):  # to an external link: h5py would follow both
        f["elsewhere"] = h5py.ExternalLink("other.h5", "/values")
        del f["obs/n_genes"]
        f["obs/n_genes"] = h5py.SoftLink("/elsewhere")

    case(
        "soft.h5ad",
        "n_genes",
        "is in another file (…other.h5, from obs/n_genes); refusing to read it",
        soft_link,
    )

    def external_storage(f):
        del f["obs/n_genes"]
        f.create_dataset("obs/n_genes", (N,), "<i8", external=[("raw.bin", 0, 8 * N)])

    case(
        "external.h5ad",
        "n_genes",
        "keeps its data in other files (raw.bin, for obs/n_genes); refusing to read them",
        external_storage,
    )

    def virtual(f):
        layout = h5py.VirtualLayout(shape=(N,), dtype="<i8")
        layout[:] = h5py.VirtualSource("other.h5", "values", shape=(N,))
        del f["obs/n_genes"]
        f.create_virtual_dataset("obs/n_genes", layout)

    case(
        "virtual.h5ad",
        "n_genes",
        "is a virtual dataset (obs/n_genes: its data is mapped from other datasets or files);"
        " refusing to read it",
        virtual,
    )
    return cases


def _told(text, expected):
    """Whether ``text`` is ``expected``, where a ``…`` in it stands for any text (a path)."""
    start, _, end = expected.partition("…")
    return text.startswith(start) and text.endswith(end) if _ else text == expected


def test_an_h5ad_reference_or_link_out_of_obs_is_refused(tmp_path):
    for name, column, said in _h5ad_vectors(tmp_path):
        path = tmp_path / name
        other = "leiden" if column != "leiden" else "phase"
        with pytest.raises(ValueError) as error:
            fcm.read_contingency(path, column, other, missing="drop", progress=False)
        assert isinstance(error.value, errors.UnsafeFileError)
        assert _told(str(error.value), f"{path}: obs column {column!r} {said}"), error.value
        result = _cli(name, "--truth", other, "--pred", column, "--missing", "drop", cwd=tmp_path)
        assert (result.returncode, result.stdout) == (1, ""), name
        expected = f"fastcluster-metrics: error: {name}: obs column {column!r} {said}\n"
        assert _told(result.stderr, expected), result.stderr
        # the other columns are read
        assert fcm.read_contingency(path, "phase", other, progress=False).n == N


def test_a_zarr_categories_path_out_of_obs_is_refused(tmp_path):
    """The 0.7 layout in zarr: a categorical column's ``categories`` is a path from obs; one
    that leaves obs is not followed (zarr refuses ``..`` too, in its own words)."""
    zarr = pytest.importorskip("zarr")
    path = write_zarr_0_7(tmp_path / "cells.zarr", _obs())
    root = zarr.open_group(str(path), mode="r+")
    zarr_array(root.create_group("uns"), "cats", np.array(["x", "y", "z", "u", "v"]))
    root["obs/cell_type"].attrs["categories"] = "../uns/cats"
    with pytest.raises(errors.UnsafeFileError) as error:
        fcm.read_contingency(path, "cell_type", "leiden", missing="drop", progress=False)
    assert str(error.value) == (
        f"{path}: obs column 'cell_type' refers to '../uns/cats', which is not inside /obs;"
        " refusing to follow it"
    )
