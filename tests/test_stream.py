"""Chunked and streamed tables equal the table of the whole labels, computed in one call."""

import doctest
import itertools
import pickle

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastcluster_metrics as fcm
from fastcluster_metrics._io import stream as _stream
from fastcluster_metrics._measures import lookup as _lookup

METRICS = _lookup.default_names()
CELL_TYPES = np.array(["B", "NK", "T", "mono", "DC", "pDC"])


def assert_same_table(got, want):
    """Exactly the same table: labels (in order) and every cell."""
    np.testing.assert_array_equal(got.classes, want.classes)
    np.testing.assert_array_equal(got.clusters, want.clusters)
    assert got.shape == want.shape
    for a, b in zip(got.cells, want.cells, strict=True):
        np.testing.assert_array_equal(a, b)
    assert got.n == want.n


def assert_same_scores(table, labels_true, labels_pred, **kw):
    for name in METRICS:
        want = getattr(fcm, name)(labels_true, labels_pred, **kw)
        assert getattr(table, name)() == pytest.approx(want, rel=1e-12, abs=1e-12), name


def chunked(n_chunks, *arrays):
    return zip(*(np.array_split(a, n_chunks) for a in arrays), strict=True)


# --- the accumulator -------------------------------------------------------------------------

FORMS = {
    "numpy": lambda x: x,
    "list": lambda x: x.tolist(),
    "categorical": lambda x: pd.Categorical(x),
    "series": lambda x: pd.Series(x),
    "arrow": lambda x: pa.array(x),
    "arrow dictionary": lambda x: pa.array(x).dictionary_encode(),
}

streams = st.integers(1, 80).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 5), min_size=n, max_size=n),
        st.lists(st.integers(-2, 6), min_size=n, max_size=n),
        st.lists(st.integers(0, n), max_size=6),  # chunk boundaries
        st.lists(st.sampled_from(sorted(FORMS)), min_size=7, max_size=7),
        st.booleans(),  # sort by truth: chunks then hold disjoint classes
    )
)


@given(streams)
def test_chunks_in_any_form_equal_one_call(stream):
    true_codes, pred, cuts, forms, by_truth = stream
    labels_true, labels_pred = CELL_TYPES[true_codes], np.asarray(pred)
    if by_truth:
        order = np.argsort(labels_true, kind="stable")
        labels_true, labels_pred = labels_true[order], labels_pred[order]
    acc = fcm.ContingencyAccumulator()
    bounds = [0, *sorted(cuts), len(labels_true)]
    for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        form = FORMS[forms[k]]
        acc.update(form(labels_true[lo:hi]), form(labels_pred[lo:hi]))
    want = fcm.Contingency.from_labels(labels_true, labels_pred)
    assert_same_table(acc.table, want)
    assert acc.table == want
    assert acc.n == len(labels_true)
    assert_same_scores(acc.table, labels_true, labels_pred)
    got = acc.evaluate()
    for name, value in fcm.evaluate(labels_true, labels_pred).items():
        assert got[name] == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), name


@pytest.mark.parametrize("missing", ["drop", "cluster"])
def test_missing_labels_across_chunks(missing):
    rng = np.random.default_rng(5)
    labels_true = CELL_TYPES[rng.integers(0, 6, 3000)].astype(object)
    labels_true[rng.random(3000) < 0.05] = None
    labels_pred = rng.integers(0, 9, 3000).astype(float)
    labels_pred[rng.random(3000) < 0.05] = np.nan
    labels_pred[:1000] = np.nan  # one chunk has every prediction missing
    acc = fcm.ContingencyAccumulator(missing=missing)
    for k, (t, p) in enumerate(chunked(6, labels_true, labels_pred)):
        # each chunk in another form: None, pandas NaN in a Categorical, Arrow nulls
        acc.update(pd.Categorical(t) if k % 3 == 1 else pa.array(t) if k % 3 == 2 else t, p)
    want = fcm.Contingency.from_labels(labels_true, labels_pred, missing=missing)
    assert_same_table(acc.table, want)
    assert_same_scores(acc.table, labels_true, labels_pred, missing=missing)
    if missing == "cluster":
        assert acc.table.classes[-1] is None and np.isnan(acc.table.clusters[-1])


def test_missing_labels_are_refused_by_default():
    acc = fcm.ContingencyAccumulator()
    acc.update(["a", "b"], [0, 1])
    with pytest.raises(ValueError, match="1 of 3 labels are missing"):
        acc.update(np.array(["a", None, "b"], dtype=object), [0, 0, 1])
    with pytest.raises(fcm.InvalidParameterError, match="'missing' parameter"):
        fcm.ContingencyAccumulator(missing="ignore")
    with pytest.raises(ValueError, match="inconsistent numbers of samples: \\[2, 3\\]"):
        acc.update([0, 1], [0, 1, 1])
    assert acc.n == 2  # a refused chunk counts nothing


def test_merges_are_batched(monkeypatch):
    """Partial tables wait and merge in batches: each chunk's cells are merged an amortised
    constant number of times, not the whole table once per chunk."""
    monkeypatch.setattr(_stream, "_MIN_MERGE_CELLS", 8)
    merged_cells = []
    merge = _stream.merge

    def counting_merge(parts):
        merged_cells.append(sum(p.nnz for p in parts))
        return merge(parts)

    monkeypatch.setattr(_stream, "merge", counting_merge)
    rng = np.random.default_rng(1)
    labels_true, labels_pred = rng.integers(0, 30, 200_000), rng.integers(0, 40, 200_000)
    acc = fcm.ContingencyAccumulator()
    chunk_cells = 0
    for t, p in chunked(400, labels_true, labels_pred):
        acc.update(t, p)
        chunk_cells += fcm.Contingency.from_labels(t, p).nnz
    table = acc.table
    assert table == fcm.Contingency.from_labels(labels_true, labels_pred)
    assert len(merged_cells) < 400 / 2
    # a per-chunk merge of the growing table would touch ~ 400 x 1200 cells
    assert sum(merged_cells) <= 3 * chunk_cells


def test_accumulators_add_and_pickle():
    rng = np.random.default_rng(2)
    labels_true = CELL_TYPES[rng.integers(0, 6, 1000)]
    labels_pred = rng.integers(0, 5, 1000)
    a = fcm.ContingencyAccumulator().update(labels_true[:300], labels_pred[:300])
    b = fcm.ContingencyAccumulator().update(labels_true[300:], labels_pred[300:])
    b = pickle.loads(pickle.dumps(b))
    assert (a + b).table == fcm.Contingency.from_labels(labels_true, labels_pred)
    assert (a + b).n == 1000
    assert repr(a) == "ContingencyAccumulator(n=300, missing='raise')"
    with pytest.raises(ValueError, match="missing='raise' and missing='drop'"):
        a + fcm.ContingencyAccumulator(missing="drop")


def test_unlike_labels_never_merge_as_equal():
    acc = fcm.ContingencyAccumulator().update([1, 2], [0, 0]).update(["1", "2"], [0, 0])
    with pytest.raises(TypeError, match="classes cannot be sorted together"):
        _ = acc.table
    big = np.array([2**63 + 1], dtype=np.uint64)
    acc = fcm.ContingencyAccumulator().update(big, [0]).update(np.array([2**62]), [0])
    assert acc.table.classes.tolist() == [2**62, 2**63 + 1]


def test_an_empty_accumulator_is_the_empty_table():
    acc = fcm.ContingencyAccumulator()
    assert acc.n == 0
    assert acc.table == fcm.Contingency.from_labels([], [])
    acc.update([], [])
    assert acc.table.shape == (0, 0)


# --- files -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cells():
    """Labels sorted by cell type: row groups and batches hold different label sets; a
    nullable integer column with missing values."""
    rng = np.random.default_rng(11)
    n = 20_000
    truth = np.sort(CELL_TYPES[rng.integers(0, 6, n)])
    leiden = rng.integers(0, 12, n)
    louvain = pd.array(rng.integers(0, 7, n), dtype="Int64")
    louvain[rng.random(n) < 0.02] = pd.NA
    return pd.DataFrame(
        {
            "cell_type": truth,
            "cell_type_cat": pd.Categorical(truth),
            "leiden": leiden,
            "louvain": louvain,
            "score": rng.random(n),
        }
    )


def write(frame, path):
    table = pa.Table.from_pandas(frame, preserve_index=False)
    name = path.name
    if name.endswith(".parquet"):
        pq.write_table(table, path, row_group_size=3000)
    elif name.endswith((".csv", ".csv.gz", ".tsv")):
        plain = frame.assign(cell_type_cat=frame["cell_type_cat"].astype(str))
        plain.to_csv(path, index=False, sep="\t" if name.endswith(".tsv") else ",")
    elif name.endswith(".arrows"):
        with ipc.new_stream(path, table.schema) as writer:
            writer.write_table(table, max_chunksize=2500)
    else:
        feather.write_feather(table, path, chunksize=2500)
    return path


FILES = ["cells.parquet", "cells.csv", "cells.csv.gz", "cells.tsv", "cells.arrow", "cells.arrows"]


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize(("truth", "pred"), [("cell_type", "leiden"), ("cell_type_cat", "leiden")])
def test_files_equal_the_columns_in_memory(tmp_path, cells, name, truth, pred):
    path = write(cells, tmp_path / name)
    got = fcm.read_contingency(path, truth=truth, pred=pred, batch_size=1000, progress=False)
    want = fcm.Contingency.from_labels(cells[truth], cells[pred])
    assert_same_table(got, want)
    assert_same_scores(got, cells[truth], cells[pred])


@pytest.mark.parametrize("name", ["cells.parquet", "cells.csv", "cells.arrow"])
@pytest.mark.parametrize("missing", ["drop", "cluster"])
def test_files_with_missing_labels(tmp_path, cells, name, missing):
    path = write(cells, tmp_path / name)
    got = fcm.read_contingency(path, "louvain", "cell_type", batch_size=4096, missing=missing)
    # Arrow reads the nullable column as int64 with nulls: the missing label is None, as for
    # that Arrow column in memory (a pandas Int64 column would make it NaN).
    louvain = pa.Table.from_pandas(cells)["louvain"]
    want = fcm.Contingency.from_labels(louvain, cells["cell_type"], missing=missing)
    assert_same_table(got, want)
    assert_same_scores(got, cells["louvain"], cells["cell_type"], missing=missing)
    # the file's column and the row of its first missing label (counted from 1 after a header)
    first = int(np.flatnonzero(cells["louvain"].isna())[0]) + 1
    message = (
        f"{path}: column 'louvain' has missing labels (the first in data row {first:,}); pass"
        " missing='drop' to leave those rows out, or missing='cluster' to count missing as one"
        " more label"
    )
    with pytest.raises(ValueError) as error:
        fcm.read_contingency(path, "louvain", "cell_type", batch_size=4096)
    assert str(error.value) == message


def test_parquet_strings_arrive_dictionary_encoded_in_bounded_batches(tmp_path, cells, monkeypatch):
    seen = []
    partial = _stream.partial

    def spy(labels_true, labels_pred, *rest):
        seen.append((labels_true.type, len(labels_true)))
        return partial(labels_true, labels_pred, *rest)

    monkeypatch.setattr(_stream, "partial", spy)
    path = write(cells, tmp_path / "cells.parquet")
    fcm.read_contingency(path, "cell_type", "leiden", batch_size=1000)
    assert len(seen) == 20  # 20,000 rows in batches of 1,000
    assert all(pa.types.is_dictionary(t) and n <= 1000 for t, n in seen)
    seen.clear()
    fcm.read_contingency(
        write(cells, tmp_path / "cells.csv"), "cell_type", "leiden", batch_size=500
    )
    assert len(seen) >= 10  # blocks sized to about 500 rows
    assert all(pa.types.is_dictionary(t) for t, _ in seen)


def test_progress_bar_and_switching_it_off(tmp_path, cells, monkeypatch, capsys):
    monkeypatch.setattr(_stream, "_PROGRESS_DELAY", 0.0)
    path = write(cells, tmp_path / "cells.parquet")
    fcm.read_contingency(path, "cell_type", "leiden", batch_size=5000)
    err = capsys.readouterr().err
    assert "cells.parquet" in err
    assert "20.0k/20.0k" in err
    fcm.read_contingency(path, "cell_type", "leiden", batch_size=5000, progress=False)
    assert capsys.readouterr().err == ""


def test_format_by_name_and_bad_arguments(tmp_path, cells):
    path = write(cells, tmp_path / "cells.parquet")
    renamed = path.rename(tmp_path / "cells.data")
    want = fcm.Contingency.from_labels(cells["cell_type"], cells["leiden"])
    assert fcm.read_contingency(renamed, "cell_type", "leiden", format="parquet") == want
    with pytest.raises(ValueError, match="cannot tell the format"):
        fcm.read_contingency(renamed, "cell_type", "leiden")
    with pytest.raises(ValueError, match="unknown format 'xlsx'"):
        fcm.read_contingency(renamed, "cell_type", "leiden", format="xlsx")
    with pytest.raises(KeyError, match="no column 'cluster'"):
        fcm.read_contingency(renamed, "cell_type", "cluster", format="parquet")
    with pytest.raises(ValueError, match="batch_size must be at least 1"):
        fcm.read_contingency(renamed, "cell_type", "leiden", format="parquet", batch_size=0)
    csv = write(cells, tmp_path / "cells.csv")
    with pytest.raises(KeyError, match="no column 'cluster'"):
        fcm.read_contingency(csv, "cell_type", "cluster")
    arrow = write(cells, tmp_path / "cells.feather")
    with pytest.raises(KeyError, match="no column 'cluster'"):
        fcm.read_contingency(arrow, "cluster", "leiden")


def test_same_column_twice(tmp_path, cells):
    path = write(cells, tmp_path / "cells.arrow")
    got = fcm.read_contingency(path, "leiden", "leiden", batch_size=999)
    assert got == fcm.Contingency.from_labels(cells["leiden"], cells["leiden"])


def test_a_csv_column_that_changes_type_is_read_again_as_text(tmp_path):
    """Types are inferred from the first block; a column whose later rows do not fit (numbers,
    then "x") is read again as text from the start: the labels of the whole file, not an
    error (it was pyarrow's ArrowInvalid)."""
    path = tmp_path / "late.csv"
    path.write_text("a,b\n" + "1,0\n2,1\n" * 25_000 + "x,0\n")  # 200 kB: several blocks
    got = fcm.read_contingency(path, "a", "b", batch_size=100)
    frame = pd.read_csv(path, dtype=str)
    assert got == fcm.Contingency.from_labels(frame["a"], frame["b"].astype(int))
    assert list(got.classes) == ["1", "2", "x"]
    both = tmp_path / "both.csv"
    both.write_text("a,b\n" + "1,0\n2,1\n" * 25_000 + "x,y\n")  # both columns, in turn
    got = fcm.read_contingency(both, "a", "b", batch_size=100)
    frame = pd.read_csv(both, dtype=str)
    assert got == fcm.Contingency.from_labels(frame["a"], frame["b"])


def test_docstring_examples():
    result = doctest.testmod(_stream, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


# --- weights ---------------------------------------------------------------------------------


def _weights(n, seed=5):
    """Real weights of magnitudes far apart: float sums of rounded chunk sums would differ."""
    rng = np.random.default_rng(seed)
    return rng.random(n) * 10.0 ** rng.integers(-6, 7, n)


@pytest.mark.parametrize("n_chunks", [1, 2, 7, 50])
@pytest.mark.parametrize("class_weight", [None, "balanced", {"B": 3, "T": 0.5}])
def test_weighted_chunks_equal_one_weighted_call(n_chunks, class_weight):
    rng = np.random.default_rng(n_chunks)
    n = 2000
    t, p, w = CELL_TYPES[rng.integers(0, 6, n)], rng.integers(0, 9, n), _weights(n)
    acc = fcm.ContingencyAccumulator(class_weight=class_weight)
    for ct, cp, cw in chunked(n_chunks, t, p, w):
        acc.update(ct, cp, sample_weight=cw)
    want = fcm.Contingency.from_labels(t, p, sample_weight=w, class_weight=class_weight)
    assert acc.table.weighted
    assert_same_table(acc.table, want)
    assert acc.table == want
    np.testing.assert_array_equal(acc.table.class_sizes, want.class_sizes)
    if class_weight is None:
        assert acc.n == want.n


def test_weighted_and_unweighted_chunks_and_merged_accumulators():
    rng = np.random.default_rng(3)
    n = 900
    t, p = rng.integers(0, 4, n), rng.integers(0, 5, n)
    w = np.ones(n)
    w[300:600] = _weights(300)
    a = fcm.ContingencyAccumulator().update(t[:300], p[:300])  # counts
    a.update(t[300:600], p[300:600], sample_weight=w[300:600])
    b = fcm.ContingencyAccumulator().update(t[600:], p[600:], sample_weight=np.zeros(300))
    b.update(t[600:], p[600:], sample_weight=w[600:])  # the zero chunk added nothing
    b = pickle.loads(pickle.dumps(b))
    want = fcm.Contingency.from_labels(t, p, sample_weight=w)
    assert (a + b).table == want
    assert (b + a).table == want
    with pytest.raises(ValueError, match="class_weight"):
        a + fcm.ContingencyAccumulator(class_weight="balanced")


def test_a_failed_update_adds_nothing(monkeypatch):
    monkeypatch.setattr(_stream, "_MIN_MERGE_CELLS", 0)  # every update merges
    acc = fcm.ContingencyAccumulator().update([1, 2, 2], [0, 0, 1], sample_weight=[0.5, 1, 2])
    before = acc.table
    with pytest.raises(ValueError, match="sample_weight"):
        acc.update([1, 2], [0, 1], sample_weight=[1.0, -1.0])
    with pytest.raises(TypeError, match="cannot be sorted"):  # fails in the merge
        acc.update(["w", "x", "y", "z"], [0, 1, 2, 3], sample_weight=[1.0] * 4)
    assert acc.table == before
    assert acc.n == 3.5
    acc.update([2], [1], sample_weight=[0.25])
    want = fcm.Contingency.from_labels([1, 2, 2, 2], [0, 0, 1, 1], sample_weight=[0.5, 1, 2, 0.25])
    assert acc.table == want


@pytest.mark.parametrize("name", ["cells.parquet", "cells.csv", "cells.arrow"])
@pytest.mark.parametrize("batch_size", [700, 20_000])
@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_files_with_a_weight_column(tmp_path, cells, name, batch_size, class_weight):
    frame = cells.assign(weight=_weights(len(cells)))
    path = write(frame, tmp_path / name)
    got = fcm.read_contingency(
        path,
        "cell_type",
        "leiden",
        weights="weight",
        batch_size=batch_size,
        class_weight=class_weight,
        progress=False,
    )
    want = fcm.Contingency.from_labels(
        frame["cell_type"],
        frame["leiden"],
        sample_weight=frame["weight"],
        class_weight=class_weight,
    )
    assert got.weighted
    assert_same_table(got, want)
    assert got == want


def test_weight_column_with_missing_labels_dropped(tmp_path, cells):
    frame = cells.assign(weight=_weights(len(cells)))
    path = write(frame, tmp_path / "cells.parquet")
    got = fcm.read_contingency(
        path,
        "cell_type",
        "louvain",
        weights="weight",
        missing="drop",
        batch_size=999,
        progress=False,
    )
    want = fcm.Contingency.from_labels(
        frame["cell_type"], frame["louvain"], sample_weight=frame["weight"], missing="drop"
    )
    assert got == want


@pytest.mark.parametrize(
    ("value", "what"),
    [(-1.0, "the weight -1.0"), (float("nan"), "a missing weight"), ("heavy", "'heavy'")],
)
@pytest.mark.parametrize("name", ["cells.csv", "cells.parquet"])
def test_bad_weights_name_the_file_the_column_and_the_row(tmp_path, value, what, name):
    frame = pd.DataFrame({"t": ["a", "b"] * 50, "p": [0, 1] * 50, "w": [1.5] * 100}).astype(
        {"w": object}
    )
    frame.loc[60, "w"] = value
    if name.endswith(".parquet"):
        frame = frame.astype({"w": str if isinstance(value, str) else float})
    path = tmp_path / name
    frame.to_csv(path, index=False) if name.endswith(".csv") else frame.to_parquet(path)
    with pytest.raises(ValueError) as e:
        fcm.read_contingency(path, "t", "p", weights="w", batch_size=16, progress=False)
    message = str(e.value)
    assert message.startswith(f"{path}: column 'w' holds {what}")
    assert "data row 61" in message
