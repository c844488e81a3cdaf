"""Dask: one table per partition on separate worker processes, merged as a tree, equals the
table and the scores computed in memory."""

import doctest
import gc
import warnings

import numpy as np
import pandas as pd
import pytest
from helpers import same

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import fastcluster_metrics as fcm  # noqa: E402
import fastcluster_metrics.dask as fcm_dask  # noqa: E402

CELL_TYPES = np.array(["B", "NK", "T", "mono", "DC", "pDC"])


@pytest.fixture(scope="module")
def client():
    """One cluster of two worker processes for the whole module, closed without leaks."""
    with (
        distributed.LocalCluster(
            processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client
    gc.collect()  # sockets and pipes of the cluster are closed by now, not left to the GC


def assert_same_table(got, want):
    np.testing.assert_array_equal(got.classes, want.classes)
    np.testing.assert_array_equal(got.clusters, want.clusters)
    for a, b in zip(got.cells, want.cells, strict=True):
        np.testing.assert_array_equal(a, b)


def assert_same_scores(got, labels_true, labels_pred, **kw):
    want = fcm.evaluate(labels_true, labels_pred, **kw)
    assert list(got) == list(want)
    for name in want:
        assert got[name] == pytest.approx(want[name], rel=1e-12, abs=1e-12), name
    assert got.n == want.n


def assert_equal_scores(got, want):
    """The same measures with the same values, to the last bit (NaN where ``want`` has NaN)."""
    assert list(got) == list(want)
    for name in want:
        assert same(got[name], want[name]), name
    assert got.n == want.n


@pytest.fixture(scope="module")
def labels():
    """Sorted by cell type: most partitions lack most classes; prediction 99 only at the end."""
    rng = np.random.default_rng(3)
    n = 30_000
    truth = np.sort(CELL_TYPES[rng.integers(0, 6, n)])
    pred = rng.integers(0, 15, n)
    pred[-50:] = 99
    return truth, pred


def test_arrays_with_other_chunks_and_absent_labels(client, labels):
    truth, pred = labels
    true_d = da.from_array(truth, chunks=2_000)  # 15 partitions: a two-level tree
    pred_d = da.from_array(pred, chunks=7_000)  # rechunked to match
    with distributed.get_task_stream(client) as stream:
        got = fcm_dask.contingency(true_d, pred_d, split_every=4)
    assert_same_table(got, fcm.Contingency.from_labels(truth, pred))
    assert got == fcm.Contingency.from_labels(truth, pred)
    names = [t["key"][0] if isinstance(t["key"], tuple) else t["key"] for t in stream.data]
    assert sum(str(k).startswith("_count-") for k in names) == 15
    assert sum(str(k).startswith("_merge-") for k in names) == 4 + 1
    workers = {t["worker"] for t in stream.data}
    assert len(workers) == 2
    assert_same_scores(fcm_dask.evaluate(true_d, pred_d), truth, pred)


def test_dataframe_columns_categorical_and_strings(client, labels):
    truth, pred = labels
    frame = pd.DataFrame({"cell_type": pd.Categorical(truth), "name": truth, "leiden": pred})
    ddf = dd.from_pandas(frame, npartitions=6)
    want = fcm.Contingency.from_labels(truth, pred)
    for column in ("cell_type", "name"):
        with distributed.get_task_stream(client) as stream:
            assert_same_table(fcm_dask.contingency(ddf[column], ddf["leiden"]), want)
        # columns of one frame: one task counts both columns of a partition
        keys = [str(t["key"][0] if isinstance(t["key"], tuple) else t["key"]) for t in stream.data]
        assert sum(k.startswith("_count_frame-") for k in keys) == 6
        assert not any(k.startswith("_count-") for k in keys)
    scores = fcm_dask.evaluate(ddf["leiden"], ddf["cell_type"], metrics=["purity_score"])
    assert_same_scores(scores, pred, truth, metrics=["purity_score"])


def test_series_of_different_partitions_are_aligned(client, labels):
    truth, pred = labels
    true_d = dd.from_pandas(pd.Series(truth), npartitions=5)
    pred_d = dd.from_pandas(pd.Series(pred), npartitions=3)
    assert_same_table(
        fcm_dask.contingency(true_d, pred_d), fcm.Contingency.from_labels(truth, pred)
    )


@pytest.mark.parametrize("missing", ["drop", "cluster"])
def test_missing_labels(client, labels, missing):
    truth, pred = labels
    truth = truth.astype(object)
    truth[::97] = None
    pred = pred.astype(float)
    pred[:3000] = np.nan  # the whole first partition
    true_d, pred_d = da.from_array(truth, chunks=3000), da.from_array(pred, chunks=3000)
    got = fcm_dask.contingency(true_d, pred_d, missing=missing)
    assert_same_table(got, fcm.Contingency.from_labels(truth, pred, missing=missing))
    scores = fcm_dask.evaluate(true_d, pred_d, missing=missing)
    assert_same_scores(scores, truth, pred, missing=missing)
    with pytest.raises(ValueError, match="labels are missing"):
        fcm_dask.contingency(true_d, pred_d)


def test_delayed_result(client, labels):
    truth, pred = labels
    true_d, pred_d = da.from_array(truth, chunks=9000), da.from_array(pred, chunks=9000)
    lazy = fcm_dask.contingency(true_d, pred_d, compute=False)
    assert lazy.compute() == fcm.Contingency.from_labels(truth, pred)


def test_bad_inputs():
    x = da.from_array(np.arange(10), chunks=5)
    with pytest.raises(TypeError, match="both be 1-D dask arrays or both dask DataFrame"):
        fcm_dask.contingency(x, np.arange(10))
    with pytest.raises(ValueError, match="labels_true must be 1D"):
        fcm_dask.contingency(da.zeros((4, 2), chunks=2), x)
    with pytest.raises(ValueError, match="inconsistent numbers of samples: \\[10, 9\\]"):
        fcm_dask.contingency(x, x[:9])
    with pytest.raises(ValueError, match="split_every"):
        fcm_dask.contingency(x, x, split_every=1)
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        fcm_dask.evaluate(x, x, metrics=["nope"])


def test_docstring_examples(client):
    result = doctest.testmod(fcm_dask, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_files_read_on_the_workers(client, labels, tmp_path):
    """Parquet files split by row groups, CSV files whole: one task each, on the workers."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    truth, pred = labels
    frame = pd.DataFrame({"cell_type": pd.Categorical(truth), "leiden": pred})
    parts = np.array_split(np.arange(len(truth)), 3)  # sorted truth: other classes per file
    for k, rows in enumerate(parts[:2]):
        table = pa.Table.from_pandas(frame.iloc[rows], preserve_index=False)
        pq.write_table(table, tmp_path / f"part{k}.parquet", row_group_size=1000)
    frame.iloc[parts[2]].to_csv(tmp_path / "part2.csv", index=False)
    want = fcm.Contingency.from_labels(truth, pred)
    with distributed.get_task_stream(client) as stream:
        got = fcm_dask.read_contingency(tmp_path, "cell_type", "leiden", row_groups_per_task=4)
    assert_same_table(got, want)
    keys = [str(t["key"][0] if isinstance(t["key"], tuple) else t["key"]) for t in stream.data]
    assert sum(k.startswith("_read_task-") for k in keys) == 3 + 3 + 1  # 10 row groups a file
    by_glob = fcm_dask.read_contingency(str(tmp_path / "part*.parquet"), "cell_type", "leiden")
    want = fcm.Contingency.from_labels(truth[: 2 * len(parts[0])], pred[: 2 * len(parts[0])])
    assert_same_table(by_glob, want)
    lazy = fcm_dask.read_contingency([tmp_path / "part2.csv"], "leiden", "cell_type", compute=False)
    want = fcm.Contingency.from_labels(pred[parts[2]], truth[parts[2]])
    assert_same_table(lazy.compute(), want)
    with pytest.raises(FileNotFoundError, match="no file matches"):
        fcm_dask.read_contingency(str(tmp_path / "*.feather"), "cell_type", "leiden")
    with pytest.raises(ValueError, match="row_groups_per_task"):
        fcm_dask.read_contingency(tmp_path, "cell_type", "leiden", row_groups_per_task=0)


def test_zarr_stores_are_files_to_the_workers(client, labels, tmp_path):
    """A zarr store is a directory read as one file; a folder of stores, each one; an empty
    folder is refused, not an empty table."""
    anndata = pytest.importorskip("anndata")
    pytest.importorskip("zarr")
    truth, pred = labels
    halves = np.array_split(np.arange(len(truth)), 2)
    folder = tmp_path / "stores"
    folder.mkdir()
    for k, rows in enumerate(halves):
        obs = pd.DataFrame(
            {"cell_type": pd.Categorical(truth[rows]), "leiden": pd.Categorical(pred[rows])},
            index=[f"cell{i}" for i in rows],
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # anndata's notices of its future defaults
            anndata.AnnData(obs=obs).write_zarr(folder / f"part{k}.zarr")
    want = fcm.Contingency.from_labels(truth[halves[0]], pred[halves[0]])
    assert_same_table(fcm_dask.read_contingency(folder / "part0.zarr", "cell_type", "leiden"), want)
    assert_same_table(
        fcm_dask.read_contingency(folder, "cell_type", "leiden"),
        fcm.Contingency.from_labels(truth, pred),
    )
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no file in the directory"):
        fcm_dask.read_contingency(tmp_path / "empty", "cell_type", "leiden")


def test_files_in_another_encoding(client, tmp_path):
    """encoding= reaches the workers: Latin-1 text is read as the in-memory labels."""
    truth = np.array(["Müller", "Groß", "Müller", "Çelik"] * 50)
    pred = np.arange(len(truth)) % 3
    frame = pd.DataFrame({"cell_type": truth, "leiden": pred})
    frame.to_csv(tmp_path / "latin.csv", index=False, encoding="latin-1")
    got = fcm_dask.read_contingency(
        tmp_path / "latin.csv", "cell_type", "leiden", encoding="latin-1"
    )
    assert_same_table(got, fcm.Contingency.from_labels(truth, pred))
    with pytest.raises(ValueError, match="not UTF-8"):
        fcm_dask.read_contingency(tmp_path / "latin.csv", "cell_type", "leiden")


# --- weights ---------------------------------------------------------------------------------


def _weights(n):
    rng = np.random.default_rng(12)
    return rng.random(n) * 10.0 ** rng.integers(-4, 5, n)


def test_weighted_arrays_and_series_equal_the_weighted_table_in_memory(client, labels):
    truth, pred = labels
    w = _weights(len(truth))
    want = fcm.Contingency.from_labels(truth, pred, sample_weight=w)
    # arrays: the weights rechunked to the truth's chunks
    got = fcm_dask.contingency(
        da.from_array(truth, chunks=2_000),
        da.from_array(pred, chunks=7_000),
        sample_weight=da.from_array(w, chunks=5_000),
        split_every=4,
    )
    assert got.weighted
    assert_same_table(got, want)
    assert got == want and got.n == want.n
    # columns of one DataFrame: one task per partition reads the weights too
    frame = pd.DataFrame({"cell_type": truth, "leiden": pred, "w": w})
    ddf = dd.from_pandas(frame, npartitions=6)
    with distributed.get_task_stream(client) as stream:
        got = fcm_dask.contingency(ddf["cell_type"], ddf["leiden"], sample_weight=ddf["w"])
    assert got == want
    keys = [str(t["key"][0] if isinstance(t["key"], tuple) else t["key"]) for t in stream.data]
    assert sum(k.startswith("_count_frame-") for k in keys) == 6
    # Series of different partitions
    got = fcm_dask.contingency(
        dd.from_pandas(pd.Series(truth), npartitions=5),
        dd.from_pandas(pd.Series(pred), npartitions=3),
        sample_weight=dd.from_pandas(pd.Series(w), npartitions=4),
    )
    assert got == want
    scores = fcm_dask.evaluate(ddf["cell_type"], ddf["leiden"], sample_weight=ddf["w"])
    assert_equal_scores(scores, fcm.evaluate(truth, pred, sample_weight=w))


def test_weighted_files_read_on_the_workers(client, labels, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    truth, pred = labels
    w = _weights(len(truth))
    frame = pd.DataFrame({"cell_type": truth, "leiden": pred, "w": w})
    parts = np.array_split(np.arange(len(truth)), 3)
    for k, rows in enumerate(parts[:2]):
        table = pa.Table.from_pandas(frame.iloc[rows], preserve_index=False)
        pq.write_table(table, tmp_path / f"part{k}.parquet", row_group_size=1000)
    frame.iloc[parts[2]].to_csv(tmp_path / "part2.csv", index=False)
    got = fcm_dask.read_contingency(
        tmp_path, "cell_type", "leiden", weights="w", row_groups_per_task=4
    )
    assert got == fcm.Contingency.from_labels(truth, pred, sample_weight=w)
    frame.loc[len(truth) - 3, "w"] = -1.0
    frame.iloc[parts[2]].to_csv(tmp_path / "part2.csv", index=False)
    with pytest.raises(ValueError, match=r"part2.csv: column 'w' holds the weight -1.0"):
        fcm_dask.read_contingency(tmp_path, "cell_type", "leiden", weights="w")


CLASS_WEIGHTS = ["balanced", {"B": 3, "T": 0.5, "pDC": 0}]


@pytest.mark.parametrize("class_weight", CLASS_WEIGHTS)
@pytest.mark.parametrize("weighted", [False, True])
def test_class_weights_scale_the_merged_table_as_in_memory(client, labels, class_weight, weighted):
    """Applied once to the merged table ("balanced": from the totals of all partitions, which
    hold one or two classes each), the class weights give the table and scores in memory."""
    truth, pred = labels
    w = _weights(len(truth)) if weighted else None
    want = fcm.Contingency.from_labels(truth, pred, sample_weight=w, class_weight=class_weight)
    got = fcm_dask.contingency(
        da.from_array(truth, chunks=2_000),
        da.from_array(pred, chunks=7_000),
        sample_weight=None if w is None else da.from_array(w, chunks=5_000),
        class_weight=class_weight,
        split_every=4,
    )
    assert got.weighted
    assert_same_table(got, want)
    assert got == want and got.n == want.n
    np.testing.assert_array_equal(got.class_sizes, want.class_sizes)
    frame = pd.DataFrame({"cell_type": truth, "leiden": pred, "w": 1.0 if w is None else w})
    ddf = dd.from_pandas(frame, npartitions=6)
    weights = None if w is None else ddf["w"]
    got = fcm_dask.contingency(
        ddf["cell_type"], ddf["leiden"], sample_weight=weights, class_weight=class_weight
    )
    assert got == want
    scores = fcm_dask.evaluate(
        ddf["cell_type"], ddf["leiden"], sample_weight=weights, class_weight=class_weight
    )
    assert_equal_scores(
        scores, fcm.evaluate(truth, pred, sample_weight=w, class_weight=class_weight)
    )


@pytest.mark.parametrize("class_weight", CLASS_WEIGHTS)
@pytest.mark.parametrize("weights", [None, "w"])
def test_class_weights_of_files_read_on_the_workers(
    client, labels, tmp_path, class_weight, weights
):
    import pyarrow as pa
    import pyarrow.parquet as pq

    truth, pred = labels
    w = _weights(len(truth))
    frame = pd.DataFrame({"cell_type": truth, "leiden": pred, "w": w})
    parts = np.array_split(np.arange(len(truth)), 3)
    for k, rows in enumerate(parts[:2]):
        table = pa.Table.from_pandas(frame.iloc[rows], preserve_index=False)
        pq.write_table(table, tmp_path / f"part{k}.parquet", row_group_size=1000)
    frame.iloc[parts[2]].to_csv(tmp_path / "part2.csv", index=False)
    got = fcm_dask.read_contingency(
        tmp_path,
        "cell_type",
        "leiden",
        weights=weights,
        class_weight=class_weight,
        row_groups_per_task=4,
    )
    want = fcm.Contingency.from_labels(
        truth, pred, sample_weight=None if weights is None else w, class_weight=class_weight
    )
    assert_same_table(got, want)
    assert got == want and got.n == want.n


@pytest.mark.parametrize("bad", ["balance", {"B": -1.0}, [1, 2]])
def test_bad_class_weights_are_refused_at_the_call(client, labels, tmp_path, bad):
    """Before any task runs (even of a lazy result), with the error of the call in memory."""
    truth, pred = labels
    true_d, pred_d = da.from_array(truth, chunks=9_000), da.from_array(pred, chunks=9_000)
    with pytest.raises(ValueError) as in_memory:
        fcm.Contingency.from_labels(truth, pred, class_weight=bad)
    message = str(in_memory.value).removeprefix("Contingency.from_labels: ")
    calls = {
        "contingency": lambda: fcm_dask.contingency(
            true_d, pred_d, class_weight=bad, compute=False
        ),
        "evaluate": lambda: fcm_dask.evaluate(true_d, pred_d, class_weight=bad),
        "read_contingency": lambda: fcm_dask.read_contingency(
            tmp_path, "a", "b", class_weight=bad, compute=False
        ),
    }
    with distributed.get_task_stream(client) as stream:
        for name, call in calls.items():
            with pytest.raises(ValueError) as got:
                call()
            assert str(got.value) == f"fastcluster_metrics.dask.{name}: {message}"
    assert stream.data == []


@pytest.mark.parametrize("unknown", [{"B": 2, "nope": 1}, {"NK": 2}])
def test_a_class_weight_of_no_class_is_refused_as_in_memory(client, labels, unknown):
    """A class that ``labels_true`` lacks (or whose samples all weigh 0), once the tables
    have merged: the error of the call in memory."""
    truth, pred = labels
    true_d, pred_d = da.from_array(truth, chunks=9_000), da.from_array(pred, chunks=9_000)
    w = np.ones(len(truth))
    w[truth == "NK"] = 0.0
    w_d = da.from_array(w, chunks=9_000)
    with pytest.raises(ValueError, match="class_weight names 1 class") as in_memory:
        fcm.Contingency.from_labels(truth, pred, sample_weight=w, class_weight=unknown)
    message = str(in_memory.value).removeprefix("Contingency.from_labels: ")
    lazy = fcm_dask.contingency(
        true_d, pred_d, sample_weight=w_d, class_weight=unknown, compute=False
    )
    with pytest.raises(ValueError) as got:
        lazy.compute()
    assert str(got.value) == f"fastcluster_metrics.dask.contingency: {message}"
    with pytest.raises(ValueError) as got:
        fcm_dask.evaluate(true_d, pred_d, sample_weight=w_d, class_weight=unknown)
    assert str(got.value) == f"fastcluster_metrics.dask.evaluate: {message}"
