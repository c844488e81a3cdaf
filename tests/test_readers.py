"""One set of file readers (_io/) for read_contingency (and its Dask tasks) and the command
line: the same formats, compressions and format names, the same tables of the same file, and
the same errors, naming the file and the column."""

import bz2
import contextlib
import csv
import gzip
import io
import json
import lzma
import os
import pickle
import re
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics._cli import main as _cli
from fastcluster_metrics._cli import plan as cli_plan
from fastcluster_metrics._io import errors, formats, progress
from fastcluster_metrics._io import readers as _readers
from fastcluster_metrics._measures import lookup as _lookup

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
feather = pytest.importorskip("pyarrow.feather")
ipc = pytest.importorskip("pyarrow.ipc")

N = 5_000
CELL_TYPES = np.array(["B", "NK", "T", "mono", "DC", "pDC"])


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(3)
    truth = np.sort(CELL_TYPES[rng.integers(0, 6, N)])  # batches hold different classes
    return pd.DataFrame(
        {
            "cell": [f"cell{i:05d}" for i in range(N)],
            "cell_type": truth,
            "leiden": rng.integers(0, 9, N),
            "louvain": rng.integers(0, 4, N),
        }
    )


def _text(frame, sep):
    return frame.to_csv(index=False, sep=sep).encode()


def write(frame, path):
    """``frame`` in the format and compression that ``path``'s name tells."""
    name = path.name
    table = pa.Table.from_pandas(frame, preserve_index=False)
    sep = "\t" if any(s in name for s in (".tsv", ".tab")) else ","
    if name.endswith((".csv", ".tsv", ".tab")):
        path.write_bytes(_text(frame, sep))
    elif name.endswith(".gz"):
        path.write_bytes(gzip.compress(_text(frame, sep)))
    elif name.endswith(".bz2"):
        path.write_bytes(bz2.compress(_text(frame, sep)))
    elif name.endswith(".xz"):
        path.write_bytes(lzma.compress(_text(frame, sep)))
    elif name.endswith((".zst", ".lz4")):
        codec = "zstd" if name.endswith(".zst") else "lz4"
        with pa.CompressedOutputStream(str(path), codec) as out:
            out.write(_text(frame, sep))
    elif name.endswith(".zip"):
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr(name[: -len(".zip")], _text(frame, sep))
    elif name.endswith((".parquet", ".pq", ".parq")):
        pq.write_table(table, path, row_group_size=700)
    elif name.endswith(".arrows"):
        with ipc.new_stream(path, table.schema) as writer:
            writer.write_table(table, max_chunksize=900)
    elif name.endswith(".h5ad"):
        anndata = pytest.importorskip("anndata")
        obs = frame.set_index("cell")
        anndata.AnnData(obs=obs.astype({"cell_type": "category"})).write_h5ad(path)
    else:
        feather.write_feather(table, path, chunksize=900)
    return path


def cli_tables(path, truth, preds, *options):
    """The tables the command line counts (one per prediction), as it counts them."""
    args = _cli.parser().parse_args(
        [str(path), "--truth", truth, *(a for p in preds for a in ("--pred", p)), *options]
    )
    return cli_plan.count(cli_plan.plan(args), args.missing)


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "fastcluster_metrics", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
    )


# Every suffix and compression of the one table, in files of each format.
NAMES = [
    "cells.csv",
    "cells.tsv",
    "cells.tab",
    "cells.csv.gz",
    "cells.tsv.gz",
    "cells.csv.bz2",
    "cells.csv.xz",
    "cells.csv.zst",
    "cells.csv.lz4",
    "cells.csv.zip",
    "cells.parquet",
    "cells.pq",
    "cells.parq",
    "cells.arrow",
    "cells.arrows",
    "cells.feather",
    "cells.ipc",
]


def test_one_table_of_suffixes_and_compressions():
    assert set(formats.FORMATS.values()) == {"csv", "tsv", "parquet", "ipc", "h5ad", "zarr"}
    assert set(formats.FORMAT_NAMES.values()) <= set(formats.FORMAT_NAMES)
    # the command line offers every format name read_contingency takes
    action = next(a for a in _cli.parser()._actions if a.dest == "input_format")
    assert list(action.choices) == list(formats.FORMAT_NAMES)
    named = {n.split(".", 1)[1].split(".")[0] for n in NAMES}
    assert {"." + s for s in named} == set(formats.FORMATS) - {".h5ad", ".zarr"}
    compressed = {"." + n.rsplit(".", 1)[1] for n in NAMES if n.count(".") == 2}
    assert compressed == set(formats.COMPRESSIONS)


@pytest.mark.parametrize("name", NAMES)
def test_cli_and_read_contingency_give_the_same_table(tmp_path, frame, name):
    path = write(frame, tmp_path / name)
    # small batches: tables of several chunks are merged
    got = fcm.read_contingency(path, "cell_type", "leiden", batch_size=600, progress=False)
    want = fcm.Contingency.from_labels(frame["cell_type"], frame["leiden"])
    assert got == want
    np.testing.assert_array_equal(got.clusters, want.clusters)  # ints, as in memory
    leiden, louvain = cli_tables(path, "cell_type", ["leiden", "louvain"], "--chunk-rows", "600")
    assert leiden == got
    assert louvain == fcm.read_contingency(path, "cell_type", "louvain", progress=False)


def test_h5ad_obs_read_alike(tmp_path, frame):
    path = write(frame, tmp_path / "cells.h5ad")
    got = fcm.read_contingency(path, "cell_type", "leiden")
    assert got == fcm.Contingency.from_labels(frame["cell_type"], frame["leiden"])
    assert cli_tables(path, "cell_type", ["leiden"]) == [got]
    names = fcm.read_contingency(path, "obs_names", "cell_type", format="h5ad")
    assert names.n == N and names.shape == (N, 6)


@pytest.mark.parametrize(
    ("format", "name"),
    [
        ("csv", "cells.txt"),
        ("tsv", "cells.txt"),
        ("parquet", "cells.bin"),
        ("ipc", "cells.bin"),
        ("arrow", "cells.bin"),
        ("feather", "cells.bin"),
    ],
)
def test_the_same_format_names(tmp_path, frame, format, name):
    written = {"csv": "x.csv", "tsv": "x.tsv", "parquet": "x.parquet"}.get(format, "x.arrow")
    path = write(frame, tmp_path / written).rename(tmp_path / name)
    got = fcm.read_contingency(path, "cell_type", "leiden", format=format.upper())
    assert got == fcm.Contingency.from_labels(frame["cell_type"], frame["leiden"])
    assert cli_tables(path, "cell_type", ["leiden"], "--input-format", format) == [got]


def test_both_read_through_the_readers(tmp_path, frame, monkeypatch):
    seen = []
    batches = _readers.DataFile.batches

    def spy(self, columns, *args, **kw):
        seen.append((self.name, self.kind, list(columns)))
        return batches(self, columns, *args, **kw)

    monkeypatch.setattr(_readers.DataFile, "batches", spy)
    path = write(frame, tmp_path / "cells.tsv.gz")
    fcm.read_contingency(path, "cell_type", "leiden")
    cli_tables(path, "cell_type", ["leiden"])
    assert seen == [(str(path), "tsv", ["cell_type", "leiden"])] * 2


@pytest.mark.parametrize("name", ["cells.csv", "cells.tsv.gz", "cells.parquet", "cells.arrow"])
def test_missing_columns_named_with_their_file(tmp_path, frame, name):
    path = write(frame, tmp_path / name)
    columns = "cell, cell_type, leiden, louvain"
    with pytest.raises(KeyError) as error:
        fcm.read_contingency(path, "cell_type", "cluster")
    assert str(error.value) == f"{path}: no column 'cluster'; the columns are: {columns}"
    assert isinstance(error.value, errors.MissingColumnError)
    assert (error.value.file, error.value.column) == (str(path), "cluster")
    out = cli(path, "--truth", "cell_type", "--pred", "cluster")
    assert out.returncode == 1
    assert out.stderr == (
        f"fastcluster-metrics: error: {path}: no pred column 'cluster'; the columns are:"
        f" {columns}\n"
    )


def test_missing_files_and_unknown_formats_refused_alike(tmp_path, frame):
    missing = tmp_path / "nofile.csv"
    with pytest.raises(FileNotFoundError, match=re.escape(f"no such file: {missing}")):
        fcm.read_contingency(missing, "a", "b")
    out = cli(missing, "--truth", "a", "--pred", "b")
    assert (out.returncode, out.stderr) == (
        1,
        f"fastcluster-metrics: error: no such file: {missing}\n",
    )
    with pytest.raises(FileNotFoundError, match="is a directory, not a file"):
        fcm.read_contingency(tmp_path, "a", "b")
    unknown = write(frame, tmp_path / "cells.csv").rename(tmp_path / "cells.dat")
    with pytest.raises(
        ValueError, match=re.escape(f"cannot tell the format of {unknown} from its name")
    ):
        fcm.read_contingency(unknown, "cell_type", "leiden")
    out = cli(unknown, "--truth", "cell_type", "--pred", "leiden")
    assert out.returncode == 2
    assert f"cannot tell the format of {unknown} from its name" in out.stderr
    gz = tmp_path / "cells.parquet.gz"
    gz.write_bytes(gzip.compress(b"not read"))
    with pytest.raises(ValueError, match="only CSV and TSV files are read compressed"):
        fcm.read_contingency(gz, "cell_type", "leiden")
    out = cli(gz, "--truth", "cell_type", "--pred", "leiden")
    assert out.returncode == 2
    assert "only CSV and TSV files are read compressed" in out.stderr


def test_missing_fields_read_alike(tmp_path):
    """The fields pandas reads as missing (<NA> and None among them) are missing labels."""
    path = tmp_path / "na.csv"
    path.write_text("t,p\na,1\na,NA\nb,<NA>\nb,None\nc,\n<NA>,2\nc,2\n")
    got = fcm.read_contingency(path, "t", "p", missing="drop")
    assert got == fcm.Contingency.from_labels(["a", "c"], [1, 2])
    assert cli_tables(path, "t", ["p"], "--missing", "drop") == [got]
    # one wording, naming the file's column and row, options spelled as each caller passes them
    with pytest.raises(errors.MissingLabelsError) as error:
        fcm.read_contingency(path, "t", "p")
    assert str(error.value) == (
        f"{path}: column 't' has missing labels (the first in data row 6); pass missing='drop'"
        " to leave those rows out, or missing='cluster' to count missing as one more label"
    )
    assert isinstance(error.value, ValueError)
    out = cli(path, "--truth", "t", "--pred", "p")
    assert (out.returncode, out.stderr) == (
        1,
        f"fastcluster-metrics: error: {path}: column 't' has missing labels (the first in data"
        " row 6); pass --missing drop to leave those rows out, or --missing cluster to count"
        " missing as one more label\n",
    )


def test_text_that_is_not_utf8_refused_alike(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes("t,p\ncaf\u00e9,1\nthé,2\n".encode("latin-1"))
    message = (
        f"{path}: column 't' is not UTF-8 text (the first such label in data row 1:"
        " b'caf\\xe9'); name the file's encoding, such as"
    )
    with pytest.raises(ValueError) as error:
        fcm.read_contingency(path, "t", "p")
    assert str(error.value) == f"{message} encoding='latin-1'"
    out = cli(path, "--truth", "t", "--pred", "p")
    assert (out.returncode, out.stderr) == (
        1,
        f"fastcluster-metrics: error: {message} --encoding latin-1\n",
    )


def test_a_zip_of_several_files_is_refused(tmp_path):
    path = tmp_path / "two.csv.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.csv", "t,p\na,1\n")
        archive.writestr("b.csv", "t,p\nb,1\n")
    with pytest.raises(ValueError, match="a ZIP archive of one file is read; this one holds 2"):
        fcm.read_contingency(path, "t", "p")


def test_files_pickle_and_errors_cross_processes(tmp_path, frame):
    """What a Dask task takes and raises travels between processes."""
    path = write(frame, tmp_path / "cells.parquet")
    file = _readers.open_file(path)
    assert file.columns() == ["cell", "cell_type", "leiden", "louvain"]
    again = pickle.loads(pickle.dumps(file))
    assert (again.path, again.kind, again.name) == (file.path, "parquet", str(path))
    assert again.num_row_groups() == 8
    try:
        file.check(["nope"])
    except KeyError as e:
        error = pickle.loads(pickle.dumps(e))
    assert isinstance(error, errors.MissingColumnError)
    assert (
        str(error) == f"{path}: no column 'nope'; the columns are: cell, cell_type, leiden, louvain"
    )


def test_dask_reads_through_the_readers(tmp_path, frame):
    fcm_dask = pytest.importorskip("fastcluster_metrics.dask")
    pytest.importorskip("dask")
    for k, rows in enumerate(np.array_split(np.arange(N), 3)):
        name = ("part0.tsv.gz", "part1.arrows", "part2.parquet")[k]
        write(frame.iloc[rows], tmp_path / name)
    got = fcm_dask.read_contingency(tmp_path, "cell_type", "leiden", row_groups_per_task=2)
    assert got == fcm.Contingency.from_labels(frame["cell_type"], frame["leiden"])
    with pytest.raises(KeyError, match=re.escape("part0.tsv.gz: no column 'cluster'")):
        fcm_dask.read_contingency(tmp_path / "part0.tsv.gz", "cell_type", "cluster")


def test_csv_progress_counts_bytes(tmp_path, frame, capsys):
    tqdm = pytest.importorskip("tqdm")
    path = write(frame, tmp_path / "cells.csv.gz")
    file = _readers.open_file(path)
    for _ in file.batches(["leiden"], 100, progress=progress.Progress(0.0)):
        pass
    err = capsys.readouterr().err
    size = tqdm.tqdm.format_sizeof(path.stat().st_size)
    assert "cells.csv.gz" in err
    assert f"{size}/{size} [" in err  # the whole file, in bytes
    assert "B/s]" in err


def test_no_heavy_import():
    code = (
        "import sys, fastcluster_metrics._io.readers, fastcluster_metrics._io.stream,"
        " fastcluster_metrics._cli.main\n"
        "heavy = {'pandas', 'pyarrow', 'anndata', 'tqdm', 'h5py', 'matplotlib'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# --- real files from the field: scikit-learn's scores, or one line naming the file -----------


def sklearn_scores(labels_true, labels_pred):
    """scikit-learn's scores of the measures it has among the command line's defaults."""
    from sklearn import metrics

    names = [n for n in _lookup.default_names() if hasattr(metrics, n)]
    return {n: getattr(metrics, n)(labels_true, labels_pred) for n in names}


def assert_sklearn_scores(path, labels_true, labels_pred, *options, truth="cell_type", **kw):
    """read_contingency's table and the command line's JSON (a subprocess) both score the file
    as scikit-learn scores the labels."""
    want = sklearn_scores(labels_true, labels_pred)
    assert want
    table = fcm.read_contingency(path, truth, "leiden", progress=False, **kw)
    assert table.n == len(labels_true)
    for name, value in want.items():
        assert getattr(table, name)() == pytest.approx(value, rel=1e-12, abs=1e-12), name
    out = cli(path, "--truth", truth, "--pred", "leiden", "--format", "json", *options)
    assert (out.returncode, out.stderr) == (0, "")
    doc = json.loads(out.stdout)["predictions"]["leiden"]
    assert doc["n"] == len(labels_true)
    for name, value in want.items():
        assert doc["scores"][name] == pytest.approx(value, rel=1e-12, abs=1e-12), name
    return table


def assert_refused(
    path, error, message, *options, truth="cell_type", pred="leiden", cli_message=None, **kw
):
    """read_contingency raises ``error`` with ``message``; the command line (a subprocess)
    prints it (or ``cli_message``, its options spelled for the command line) as one line and
    exits 1."""
    with pytest.raises(error) as raised:
        fcm.read_contingency(path, truth, pred, progress=False, **kw)
    assert str(raised.value) == message
    out = cli(path, "--truth", truth, "--pred", pred, *options)
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr == f"fastcluster-metrics: error: {cli_message or message}\n"


@pytest.fixture(scope="module")
def awkward():
    """Labels with separators, quotes and non-ASCII letters inside."""
    rng = np.random.default_rng(5)
    n = 3_000
    kinds = np.array(["B, naive", 'T "CD4", memory', "NK\tbright", "Müller glia", "mono"])
    return pd.DataFrame(
        {"cell_type": kinds[rng.integers(0, 5, n)], "leiden": rng.integers(0, 7, n)}
    )


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("bom.csv", {"encoding": "utf-8-sig"}),  # the first name must not carry the BOM
        ("crlf.csv", {"lineterminator": "\r\n"}),
        ("bom_crlf.tsv", {"encoding": "utf-8-sig", "lineterminator": "\r\n"}),
        ("bom_crlf.csv.gz", {"encoding": "utf-8-sig", "lineterminator": "\r\n"}),
        ("quoted.csv", {"quoting": csv.QUOTE_ALL}),
    ],
)
def test_csv_dialects_score_as_sklearn(tmp_path, awkward, name, options):
    path = tmp_path / name
    awkward.to_csv(path, index=False, sep="\t" if ".tsv" in name else ",", **options)
    if "utf-8-sig" in options.values():  # pandas wrote the byte-order mark
        head = gzip.open(path).read(3) if name.endswith(".gz") else path.read_bytes()[:3]
        assert head == b"\xef\xbb\xbf"
    table = assert_sklearn_scores(path, awkward["cell_type"], awkward["leiden"])
    # separators, quotes and tabs inside quoted labels are part of the labels
    assert sorted(table.classes) == sorted(set(awkward["cell_type"]))
    assert table == fcm.Contingency.from_labels(awkward["cell_type"], awkward["leiden"])


@pytest.mark.parametrize("name", ["empty.csv", "empty.tsv", "empty.csv.gz"])
def test_an_empty_file_is_refused(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(gzip.compress(b"") if name.endswith(".gz") else b"")
    assert_refused(path, ValueError, f"{path}: the file is empty (no header, no rows)")


@pytest.mark.parametrize("name", ["header.csv", "header.csv.bz2", "header.parquet"])
def test_a_header_without_rows_is_the_empty_table(tmp_path, name):
    """read_contingency gives the table of no labels, as Contingency.from_labels([], []);
    the command line has nothing to score: one line, exit 1."""
    frame = pd.DataFrame(
        {"cell_type": pd.Series([], dtype=str), "leiden": pd.Series([], dtype="int64")}
    )
    path = tmp_path / name
    if name.endswith(".parquet"):
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False)
    assert path.stat().st_size > 0
    table = fcm.read_contingency(path, "cell_type", "leiden")
    assert table == fcm.Contingency.from_labels([], [])
    assert (table.n, table.shape) == (0, (0, 0))
    out = cli(path, "--truth", "cell_type", "--pred", "leiden")
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr == (
        "fastcluster-metrics: error: no samples to compare 'leiden' with 'cell_type'"
        f" ({path} has no rows)\n"
    )


def _compressed(data, name):
    """``data`` compressed as ``name``'s suffix tells, by the real writers."""
    if name.endswith(".gz"):
        return gzip.compress(data)
    if name.endswith(".bz2"):
        return bz2.compress(data)
    if name.endswith(".xz"):
        return lzma.compress(data)
    if name.endswith(".zip"):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(name[: -len(".zip")], data)
        return buffer.getvalue()
    buffer = pa.BufferOutputStream()  # zstd, lz4 (frame): pyarrow's writer
    with pa.CompressedOutputStream(buffer, "zstd" if name.endswith(".zst") else "lz4") as out:
        out.write(data)
    return buffer.getvalue().to_pybytes()


COMPRESSED = {
    "cells.csv.gz": "gzip",
    "cells.csv.bz2": "bz2",
    "cells.csv.xz": "xz",
    "cells.csv.zst": "zstd",
    "cells.csv.lz4": "lz4",
    "cells.tsv.zip": "zip",
}


@pytest.mark.parametrize("name", COMPRESSED)
def test_compressed_files_score_as_sklearn(tmp_path, frame, name):
    path = tmp_path / name
    path.write_bytes(_compressed(_text(frame, "\t" if ".tsv" in name else ","), name))
    assert_sklearn_scores(path, frame["cell_type"], frame["leiden"], "--chunk-rows", "700")


@pytest.mark.parametrize(("name", "compression"), COMPRESSED.items())
def test_truncated_compressed_files_are_refused(tmp_path, frame, name, compression):
    whole = _compressed(_text(frame, "\t" if ".tsv" in name else ","), name)
    path = tmp_path / name
    path.write_bytes(whole[: len(whole) // 2])  # cut in the middle
    with pytest.raises(OSError) as raised:
        fcm.read_contingency(path, "cell_type", "leiden", batch_size=500)
    message = str(raised.value)
    assert message.startswith(f"{path}: the {compression} data is truncated or corrupt (")
    assert isinstance(raised.value, errors.CorruptFileError)
    out = cli(path, "--truth", "cell_type", "--pred", "leiden", "--chunk-rows", "500")
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr == f"fastcluster-metrics: error: {message}\n"


def test_a_file_that_is_not_what_its_compression_says(tmp_path, frame):
    path = tmp_path / "plain.csv.gz"
    path.write_bytes(_text(frame, ","))
    assert_refused(
        path,
        OSError,
        f"{path}: the gzip data is truncated or corrupt (zlib inflate failed: incorrect header"
        " check)",
    )


def test_a_directory_is_not_a_file(tmp_path):
    folder = tmp_path / "cells.csv"
    folder.mkdir()
    assert_refused(
        folder, FileNotFoundError, f"{folder} is a directory, not a file (nor a zarr store)"
    )


# --- text encodings ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def german():
    rng = np.random.default_rng(8)
    n = 2_000
    kinds = np.array(["Müller glia", "Stäbchen", "Zapfen", "B"])
    return pd.DataFrame({"Zelltyp": kinds[rng.integers(0, 4, n)], "leiden": rng.integers(0, 5, n)})


def test_text_that_is_not_utf8_names_the_column_the_row_and_the_option(tmp_path, german):
    path = tmp_path / "zellen.csv"
    german.to_csv(path, index=False, encoding="latin-1")
    row = int(np.flatnonzero(german["Zelltyp"].str.contains("[äü]"))[0]) + 1
    label = german["Zelltyp"].iloc[row - 1].encode("latin-1")
    message = (
        f"{path}: column 'Zelltyp' is not UTF-8 text (the first such label in data row {row:,}:"
        f" {label!r}); name the file's encoding, such as"
    )
    with pytest.raises(ValueError) as raised:
        fcm.read_contingency(path, "Zelltyp", "leiden")
    assert str(raised.value) == f"{message} encoding='latin-1'"
    out = cli(path, "--truth", "Zelltyp", "--pred", "leiden")
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr == f"fastcluster-metrics: error: {message} --encoding latin-1\n"


@pytest.mark.parametrize(
    ("name", "encoding"),
    [
        ("zellen.csv", "latin-1"),
        ("zellen.tsv", "cp1252"),
        ("zellen.csv.gz", "ISO-8859-1"),
        ("zellen.csv.zip", "latin_1"),
        ("zellen.csv.xz", "utf-16"),
        ("zellen.csv", "utf-8"),
    ],
)
def test_a_named_encoding_is_transcoded(tmp_path, german, name, encoding):
    path = tmp_path / name
    text = german.to_csv(index=False, sep="\t" if ".tsv" in name else ",")
    data = text.encode(encoding)
    path.write_bytes(data if name.endswith((".csv", ".tsv")) else _compressed(data, name))
    table = assert_sklearn_scores(
        path,
        german["Zelltyp"],
        german["leiden"],
        "--encoding",
        encoding,
        truth="Zelltyp",
        encoding=encoding,
    )
    assert sorted(table.classes) == ["B", "Müller glia", "Stäbchen", "Zapfen"]


def test_a_header_that_is_not_utf8(tmp_path, german):
    path = tmp_path / "kopf.csv"
    frame = german.rename(columns={"Zelltyp": "Zelltyp_ü"})
    frame.to_csv(path, index=False, encoding="cp1252")
    message = (
        f"{path}: the header is not UTF-8 text (the name b'Zelltyp_\\xfc'); name the file's"
        " encoding, such as"
    )
    assert_refused(
        path,
        ValueError,
        f"{message} encoding='latin-1'",
        truth="Zelltyp",
        cli_message=f"{message} --encoding latin-1",
    )
    assert_sklearn_scores(
        path,
        frame["Zelltyp_ü"],
        frame["leiden"],
        "--encoding",
        "cp1252",
        truth="Zelltyp_ü",
        encoding="cp1252",
    )


def test_text_not_in_the_named_encoding(tmp_path, german):
    path = tmp_path / "zellen.csv"
    german.to_csv(path, index=False, encoding="latin-1")
    first = next(c for c in german.to_csv(index=False) if not c.isascii()).encode("latin-1")
    message = (
        f"{path}: the file is not ascii text (the bytes {first!r}); name the file's encoding,"
        " such as"
    )
    with pytest.raises(ValueError) as raised:
        fcm.read_contingency(path, "Zelltyp", "leiden", encoding="ascii")
    assert str(raised.value) == f"{message} encoding='latin-1'"
    out = cli(path, "--truth", "Zelltyp", "--pred", "leiden", "--encoding", "ascii")
    assert (out.returncode, out.stderr) == (
        1,
        f"fastcluster-metrics: error: {message} --encoding latin-1\n",
    )


def test_text_that_is_not_utf8_after_the_first_block(tmp_path):
    """Read as text from the first block, the column fails in a later one: named, and the
    rows before that block."""
    path = tmp_path / "late.csv"
    path.write_bytes(("t,p\n" + "T,1\n" * 40_000 + "Müller,2\n").encode("latin-1"))
    with pytest.raises(ValueError) as raised:
        fcm.read_contingency(path, "t", "p", batch_size=1000)
    message = str(raised.value)
    assert re.fullmatch(
        rf"{re.escape(str(path))}: column 't' is not UTF-8 text \(the first such label after"
        r" data row [\d,]+\); name the file's encoding, such as encoding='latin-1'",
        message,
    )
    out = cli(path, "--truth", "t", "--pred", "p", "--chunk-rows", "1000")
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1
    assert "column 't' is not UTF-8 text (the first such label after data row" in out.stderr
    got = fcm.read_contingency(path, "t", "p", batch_size=1000, encoding="latin-1")
    assert got == fcm.Contingency.from_labels(["T"] * 40_000 + ["Müller"], [1] * 40_000 + [2])


@pytest.mark.parametrize("encoding", ["latin-9x", "base64", ""])
def test_an_unknown_encoding_is_a_usage_error(tmp_path, frame, encoding):
    path = write(frame, tmp_path / "cells.csv")
    message = (
        f"unknown encoding {encoding!r}; text encodings are named as in Python, such as"
        " 'utf-8', 'latin-1', 'cp1252', 'utf-16'"
    )
    with pytest.raises(ValueError) as raised:
        fcm.read_contingency(path, "cell_type", "leiden", encoding=encoding)
    assert str(raised.value) == message
    out = cli(path, "--truth", "cell_type", "--pred", "leiden", "--encoding", encoding)
    assert (out.returncode, out.stderr) == (
        2,
        f"fastcluster-metrics: error: --encoding: {message}\n",
    )
    with pytest.raises(TypeError, match="encoding must be a str"):
        fcm.read_contingency(path, "cell_type", "leiden", encoding=None)
    # binary formats take the option (two files may differ) and ignore it
    parquet = write(frame, tmp_path / "cells.parquet")
    got = fcm.read_contingency(parquet, "cell_type", "leiden", encoding="latin-1")
    assert got == fcm.Contingency.from_labels(frame["cell_type"], frame["leiden"])


def test_the_encoding_option_is_in_the_help():
    text = _cli.parser().format_help()
    assert "--encoding NAME" in text
    assert "the text encoding of CSV/TSV files" in text


# --- Parquet columns of every kind, and columns that cannot be labels ---------------------------


@pytest.fixture(scope="module")
def labels():
    rng = np.random.default_rng(21)
    n = 10_000
    return CELL_TYPES[rng.integers(0, 6, n)], rng.integers(0, 8, n)


def _parquet_cases(truth, pred):
    t = pa.array(truth)
    return {
        "dictionary strings": ({"cell_type": t, "leiden": pred}, {}),
        "plain strings": ({"cell_type": t, "leiden": pred}, {"use_dictionary": False}),
        "large strings": ({"cell_type": t.cast(pa.large_string()), "leiden": pred}, {}),
        "categories": ({"cell_type": t.dictionary_encode(), "leiden": pred}, {}),
        "1000 row groups of 10 rows": ({"cell_type": t, "leiden": pred}, {"row_group_size": 10}),
        "int32 classes": ({"cell_type": pred.astype(np.int32), "leiden": truth}, {}),
        "float clusters": ({"cell_type": t, "leiden": pred.astype(np.float64)}, {}),
        "boolean clusters": ({"cell_type": t, "leiden": pred % 2 == 0}, {}),
    }


@pytest.mark.parametrize("case", list(_parquet_cases(np.array(["a"]), np.array([0]))))
def test_parquet_columns_score_as_sklearn(tmp_path, labels, case):
    columns, options = _parquet_cases(*labels)[case]
    path = tmp_path / "cells.parquet"
    table = pa.table(columns)
    pq.write_table(table, path, **options)
    if "row_group_size" in options:
        assert pq.ParquetFile(path).metadata.num_row_groups == 1000
    truth, pred = (table[c].to_numpy() for c in ("cell_type", "leiden"))
    assert_sklearn_scores(path, truth, pred, "--chunk-rows", "777", batch_size=777)


@pytest.fixture(scope="module")
def with_nulls(labels):
    truth, pred = labels
    rng = np.random.default_rng(4)
    truth = truth.astype(object)
    truth[rng.random(truth.size) < 0.03] = None
    pred = pd.array(pred, dtype="Int64")
    pred[rng.random(pred.size) < 0.03] = pd.NA
    return pd.DataFrame({"cell_type": truth, "leiden": pred})


@pytest.mark.parametrize("name", ["nulls.parquet", "nulls.csv", "nulls.arrow"])
def test_missing_labels_dropped_counted_or_refused(tmp_path, with_nulls, name):
    path = tmp_path / name
    write(with_nulls, path)
    frame = with_nulls
    both = frame["cell_type"].notna() & frame["leiden"].notna()
    kept = frame[both]
    assert_sklearn_scores(
        path,
        kept["cell_type"].to_numpy(),
        kept["leiden"].to_numpy(int),
        "--missing",
        "drop",
        missing="drop",
    )
    # missing counted as one more label: scikit-learn's scores with a label of its own
    counted = frame.assign(
        cell_type=frame["cell_type"].fillna("missing"), leiden=frame["leiden"].fillna(-1)
    )
    assert_sklearn_scores(
        path,
        counted["cell_type"].to_numpy(),
        counted["leiden"].to_numpy(int),
        "--missing",
        "cluster",
        missing="cluster",
    )
    row = int(np.flatnonzero(frame["cell_type"].isna())[0]) + 1
    message = f"{path}: column 'cell_type' has missing labels (the first in data row {row:,}); pass"
    assert_refused(
        path,
        ValueError,
        f"{message} missing='drop' to leave those rows out, or missing='cluster' to count"
        " missing as one more label",
        cli_message=f"{message} --missing drop to leave those rows out, or --missing cluster"
        " to count missing as one more label",
    )


def test_nan_in_a_float_column_is_a_missing_label_named_with_its_row(tmp_path):
    path = tmp_path / "nan.parquet"
    pq.write_table(pa.table({"cell_type": ["B", "T", "T"], "leiden": [0.5, np.nan, 1.0]}), path)
    message = f"{path}: column 'leiden' has missing labels (the first in data row 2); pass"
    assert_refused(
        path,
        ValueError,
        f"{message} missing='drop' to leave those rows out, or missing='cluster' to count"
        " missing as one more label",
        cli_message=f"{message} --missing drop to leave those rows out, or --missing cluster"
        " to count missing as one more label",
    )
    got = fcm.read_contingency(path, "cell_type", "leiden", missing="drop")
    assert got == fcm.Contingency.from_labels(["B", "T"], [0.5, 1.0])


REFUSED = {
    "struct": pa.array([{"a": 1}, {"a": 2}, {"a": 1}]),
    "list": pa.array([[1], [2, 3], []]),
    "map": pa.array([[("k", 1)], [("k", 2)], []], pa.map_(pa.string(), pa.int64())),
    "binary": pa.array([b"x", b"y", b"x"]),
    "large binary": pa.array([b"x", b"y", b"x"], pa.large_binary()),
    "fixed-size binary": pa.array([b"xy", b"yz", b"xy"], pa.binary(2)),
    "large list": pa.array([[1], [2], [1]], pa.large_list(pa.int64())),
}


@pytest.mark.parametrize("suffix", [".parquet", ".arrow", ".arrows"])
@pytest.mark.parametrize("kind", REFUSED)
def test_columns_that_cannot_be_labels_are_refused_up_front(tmp_path, kind, suffix):
    path = tmp_path / f"cells{suffix}"
    table = pa.table({"cell_type": ["B", "T", "B"], "x": REFUSED[kind]})
    if suffix == ".parquet":
        pq.write_table(table, path)
    elif suffix == ".arrows":
        with ipc.new_stream(path, table.schema) as writer:
            writer.write_table(table)
    else:
        feather.write_feather(table, path)
    said = kind.split()[-1] if kind != "large list" else "list"
    message = (
        f"{path}: column 'x' holds {said} values; label columns hold text, numbers, booleans"
        " or categories"
    )
    for truth, pred in (("x", "cell_type"), ("cell_type", "x")):
        with pytest.raises(TypeError) as raised:
            fcm.read_contingency(path, truth, pred)
        assert str(raised.value) == message
        assert isinstance(raised.value, errors.LabelTypeError)
    # refused by the readers before a batch is read, for every caller
    with pytest.raises(errors.LabelTypeError):
        _readers.open_file(path).batches(["cell_type", "x"], 2)
    status, err = _in_process(path, "--truth", "cell_type", "--pred", "x")
    assert (status, err) == (1, f"fastcluster-metrics: error: {message}\n")


def test_a_struct_column_through_the_interpreter(tmp_path):
    """Once a pyarrow traceback: one line, exit 1."""
    path = tmp_path / "cells.parquet"
    pq.write_table(pa.table({"cell_type": ["B", "T"], "x": REFUSED["struct"][:2]}), path)
    out = cli(path, "--truth", "x", "--pred", "cell_type")
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr == (
        f"fastcluster-metrics: error: {path}: column 'x' holds struct values; label columns"
        " hold text, numbers, booleans or categories\n"
    )


def _in_process(*args):
    """The command in this process: (exit status, stderr)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = _cli.main([str(a) for a in args])
    return status, err.getvalue()


@pytest.mark.parametrize("name", ["zellen.csv", "zellen.csv.gz"])
def test_utf16_text_read_as_utf8_suggests_utf16(tmp_path, german, name):
    path = tmp_path / name
    data = german.to_csv(index=False).encode("utf-16")  # with its byte-order mark
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    message = (
        f"{path}: the file is not UTF-8 text (it starts with a UTF-16 byte-order mark); name"
        " the file's encoding, such as"
    )
    assert_refused(
        path,
        ValueError,
        f"{message} encoding='utf-16'",
        truth="Zelltyp",
        cli_message=f"{message} --encoding utf-16",
    )


def test_read_ahead_reads_the_next_item_while_the_caller_holds_this_one():
    import threading

    asked = [threading.Event() for _ in range(4)]
    closed = threading.Event()

    def items():
        try:
            for i in range(3):
                asked[i].set()
                yield i
            asked[3].set()
        finally:
            closed.set()

    got = []
    with contextlib.closing(_readers.read_ahead(items())) as ahead:
        for i in ahead:
            # While the caller holds item i, the reader has asked for the next one (waits
            # for it for at most 30 s: the test fails if it never comes, not if it is slow).
            assert asked[i + 1].wait(30), i
            got.append(i)
    assert got == [0, 1, 2]
    assert closed.is_set()


def test_read_ahead_raises_the_readers_error_in_order_and_stops_with_its_caller():
    import threading

    def failing():
        yield 1
        yield 2
        raise ValueError("bad block")

    got = []
    with pytest.raises(ValueError, match="bad block"):
        for item in _readers.read_ahead(failing()):
            got.append(item)
    assert got == [1, 2]
    # A caller that stops early (an error of its own) stops the reader of an endless
    # stream: the reader's thread ends once its current item is handed, and closes it.
    finished = threading.Event()

    def endless():
        try:
            n = 0
            while True:
                n += 1
                yield n
        finally:
            finished.set()

    ahead = _readers.read_ahead(endless())
    assert next(ahead) == 1
    ahead.close()
    assert not any(t.name == "fastcluster_metrics read-ahead" for t in threading.enumerate())
    assert finished.is_set()  # the stream was closed (its files with it)


# --- a file is data, never code ------------------------------------------------------------------


class _Payload:
    """Unpickled, it makes a directory: the proof that a reader ran code its file carried."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


@pytest.mark.parametrize("suffix", [".parquet", ".arrow", ".arrows"])
def test_a_pickled_arrow_extension_type_is_never_unpickled(tmp_path, suffix):
    """A column of pyarrow's old extension type ``arrow.py_extension_type`` carries a pickle
    in its field's metadata, which pyarrow before 14.0.1 unpickled as it read the schema
    (CVE-2023-47248). pyarrow unpickles only the extension types registered in the process:
    since 14.0.1 that one is not (it refuses it, and since 21 it is gone: the column is read as
    its storage). Nothing runs, even where pyarrow 14.0.1 to 20 is told to unpickle it."""
    marker = tmp_path / "the payload ran"
    metadata = {
        b"ARROW:extension:name": b"arrow.py_extension_type",
        b"ARROW:extension:metadata": pickle.dumps(_Payload(marker)),
    }
    truth, pred = ["B", "T", "B", "NK", "T"], [0, 1, 0, 2, 1]
    schema = pa.schema(
        [pa.field("cell_type", pa.string()), pa.field("leiden", pa.int64(), metadata=metadata)]
    )
    table = pa.table([pa.array(truth), pa.array(pred)], schema=schema)
    path = tmp_path / f"cells{suffix}"
    if suffix == ".parquet":
        pq.write_table(table, path)
    elif suffix == ".arrows":
        with ipc.new_stream(path, table.schema) as writer:
            writer.write_table(table)
    else:
        feather.write_feather(table, path)
    if hasattr(pa, "PyExtensionType"):  # pyarrow 14.0.1 to 20: refused, one line
        out = cli(path, "--truth", "cell_type", "--pred", "leiden")
        assert (out.returncode, len(out.stderr.strip().splitlines())) == (1, 1), out.stderr
        assert "'leiden' is of the extension type arrow.py_extension_type" in out.stderr
        pa.PyExtensionType.set_auto_load(True)  # its opt-in to unpickling
        try:
            with pytest.raises(errors.UnsafeFileError, match=r"set_auto_load\(True\)"):
                fcm.read_contingency(path, "cell_type", "leiden", progress=False)
        finally:
            pa.PyExtensionType.set_auto_load(False)
    else:
        assert_sklearn_scores(path, truth, pred)
    assert not marker.exists()


def test_a_pyarrow_that_unpickles_is_refused(tmp_path, frame, monkeypatch):
    """Parquet and Arrow IPC files are not read with a pyarrow before 14.0.1 (it unpickles the
    ``arrow.py_extension_type`` columns a file may hold); CSV, text only, is."""
    monkeypatch.setattr(pa, "__version__", "14.0.0")
    for name, kind in (("cells.parquet", "parquet"), ("cells.arrow", "ipc")):
        path = write(frame, tmp_path / name)
        with pytest.raises(ImportError) as error:
            fcm.read_contingency(path, "cell_type", "leiden", progress=False)
        assert isinstance(error.value, errors.MissingDependencyError)
        assert str(error.value) == (
            f"reading {kind} files needs pyarrow 14.0.1 or later (pyarrow 14.0.0 runs code a"
            " file can carry, CVE-2023-47248): pip install 'fastcluster-metrics[io]'"
        )
    path = write(frame, tmp_path / "cells.csv")
    assert fcm.read_contingency(path, "cell_type", "leiden", progress=False).n == N


def test_csv_text_that_looks_like_code_is_text(tmp_path):
    """A CSV file holds text only: labels that other programs would run (spreadsheet
    formulas, Python, YAML tags, templates) are labels, as scikit-learn takes them."""
    marker = tmp_path / "the payload ran"
    code = np.array(
        [
            "=cmd|' /C calc'!A0",
            f"__import__('os').mkdir('{marker}')",
            f"!!python/object/apply:os.mkdir ['{marker}']",
            "{{7*7}}",
            "$(touch x)",
        ]
    )
    rng = np.random.default_rng(9)
    frame = pd.DataFrame(
        {"cell_type": CELL_TYPES[rng.integers(0, 6, 400)], "leiden": code[rng.integers(0, 5, 400)]}
    )
    path = tmp_path / "cells.csv"
    frame.to_csv(path, index=False)
    assert_sklearn_scores(path, frame["cell_type"], frame["leiden"])
    assert not marker.exists()
