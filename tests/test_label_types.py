"""Every label type users hold gives the same table and scores as its integer codes."""

import subprocess
import sys

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import cluster as sk

import fastcluster_metrics as fcm

NAMES = np.array(["b cell", "T cell", "NK", "mono", "é-type", "DC", "10", "2", "", "zz"])


def _codes(values):
    """Integer codes in sorted label order: the reference every representation must match."""
    return np.unique(np.asarray(values), return_inverse=True)[1].reshape(-1)


def padded_views(arr):
    """`arr` as a slice of a longer string_view array: its views and validity bits start past
    the buffers' start."""
    return pa.array(["x" * 20] * 3 + list(arr) + [None], type=pa.string_view()).slice(3, len(arr))


def _representations(values):
    """The same string labels in every container the library accepts."""
    arr = np.asarray(values, dtype=str)
    categories = list(np.random.default_rng(len(arr)).permutation(NAMES))  # unsorted, some unused
    yield "U", arr
    yield "S", np.char.encode(arr, "utf-8")
    yield "object", arr.astype(object)
    yield "list", list(arr)
    yield "tuple", tuple(arr)
    yield "pandas object Series", pd.Series(arr.astype(object))
    yield "pandas Categorical", pd.Categorical(arr, categories=categories)
    yield "pandas category Series", pd.Series(pd.Categorical(arr, categories=categories))
    yield "polars String", pl.Series(arr)
    yield "polars Categorical", pl.Series(arr).cast(pl.Categorical)
    yield "polars Enum", pl.Series(arr).cast(pl.Enum(categories))
    yield "arrow Array", pa.array(arr)
    yield "arrow DictionaryArray", pa.array(arr).dictionary_encode()
    yield "arrow large_string", pa.array(arr, type=pa.large_string())
    yield "arrow binary", pa.array(np.char.encode(arr, "utf-8"), type=pa.binary())
    yield "arrow string_view", pa.array(arr, type=pa.string_view())
    yield "arrow binary_view", pa.array(np.char.encode(arr, "utf-8"), type=pa.binary_view())
    yield "arrow string_view slice", padded_views(arr)
    # A slice of a longer array: its offsets and validity bits start past the buffers' start.
    padded = pa.array(["x"] * 3 + list(arr) + [None], type=pa.string())
    yield "arrow slice", padded.slice(3, len(arr))
    half = len(arr) // 2
    yield "arrow ChunkedArray", pa.chunked_array([pa.array(arr[:half]), pa.array(arr[half:])])
    yield (
        "arrow chunked dictionary",
        pa.chunked_array(
            [pa.array(arr[:half]).dictionary_encode(), pa.array(arr[half:]).dictionary_encode()]
        ),
    )


labelings = st.integers(1, 60).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from(list(NAMES)), min_size=n, max_size=n),
        st.lists(st.integers(0, 6), min_size=n, max_size=n),
    )
)


@given(labelings)
def test_every_container_matches_integer_codes(pair):
    true, pred = pair
    pred = np.asarray(pred)
    codes = _codes(true)
    want_cm = fcm.contingency_matrix(codes, pred)
    want = (
        fcm.adjusted_rand_score(codes, pred),
        fcm.adjusted_mutual_info_score(codes, pred),
        fcm.homogeneity_completeness_v_measure(codes, pred),
        fcm.purity_score(codes, pred),
    )
    assert (want_cm == sk.contingency_matrix(np.asarray(true), pred)).all()
    for name, labels in _representations(true):
        got = (
            fcm.adjusted_rand_score(labels, pred),
            fcm.adjusted_mutual_info_score(labels, pred),
            fcm.homogeneity_completeness_v_measure(labels, pred),
            fcm.purity_score(labels, pred),
        )
        assert got == want, name
        assert (fcm.contingency_matrix(labels, pred) == want_cm).all(), name
        # and as the predicted side
        assert (fcm.contingency_matrix(pred, labels) == want_cm.T).all(), name


@pytest.mark.parametrize(
    "labels",
    [
        pl.Series([3, 1, 2, 3], dtype=pl.Int16),
        pa.array(np.array([3, 1, 2, 3], dtype=np.uint32)),
        pa.chunked_array([[3, 1], [2, 3]]),
        pd.Series([3, 1, 2, 3], dtype="int8"),
        pd.Series([3.0, 1.0, 2.0, 3.0]),
        pl.Series([True, False, True, True]),
    ],
    ids=[
        "polars Int16",
        "arrow uint32",
        "arrow chunked int64",
        "pandas int8",
        "pandas float",
        "polars Boolean",
    ],
)
def test_integer_columns(labels):
    pred = [0, 0, 1, 1]
    values = np.asarray(labels.to_numpy() if hasattr(labels, "to_numpy") else labels)
    assert fcm.contingency_matrix(labels, pred).tolist() == (
        sk.contingency_matrix(values, pred).tolist()
    )


def test_categorical_unused_categories_do_not_appear():
    labels = pd.Categorical(["a", "c", "a"], categories=["d", "c", "b", "a"])
    assert fcm.contingency_matrix(labels, [0, 1, 1]).tolist() == [[1, 1], [0, 1]]
    assert fcm.contingency_matrix(labels, [0, 1, 1], sparse=True).shape == (2, 2)


def test_categorical_natsorted_clusters_keep_sorted_label_order():
    # scanpy numbers Leiden clusters "0".."10" in natural order; sklearn sorts them as strings.
    cats = [str(i) for i in range(11)]
    values = np.array(cats)[np.arange(44) % 11]
    leiden = pd.Categorical(values, categories=cats)
    truth = np.arange(44) % 4
    assert (fcm.contingency_matrix(truth, leiden) == sk.contingency_matrix(truth, values)).all()
    sparse = fcm.contingency_matrix(leiden, truth, sparse=True).toarray()
    assert (sparse == sk.contingency_matrix(values, truth)).all()


# --- missing labels ---------------------------------------------------------------------------

MISSING_INPUTS = {
    "Categorical NaN": lambda: pd.Categorical(["a", None, "b", "a", None, "b"]),
    "object None": lambda: np.array(["a", None, "b", "a", None, "b"], dtype=object),
    "object NaN": lambda: np.array(["a", np.nan, "b", "a", np.nan, "b"], dtype=object),
    "pandas NA": lambda: pd.Series(["a", pd.NA, "b", "a", pd.NA, "b"], dtype=object),
    "pandas string": lambda: pd.Series(["a", None, "b", "a", None, "b"], dtype="string"),
    "float NaN": lambda: np.array([0.0, np.nan, 1.0, 0.0, np.nan, 1.0]),
    "polars null": lambda: pl.Series(["a", None, "b", "a", None, "b"]),
    "polars Categorical null": lambda: (
        pl.Series(["zz", "b", "a", "a", None, "b", "a", None, "b"]).cast(pl.Categorical).slice(3)
    ),
    "polars Enum null": lambda: pl.Series(
        ["a", None, "b", "a", None, "b"], dtype=pl.Enum(["zz", "b", "unused", "a"])
    ),
    "arrow null": lambda: pa.array(["a", None, "b", "a", None, "b"]),
    "arrow float NaN": lambda: pa.chunked_array([[0.0, np.nan, 1.0], [0.0, None, 1.0]]),
    "arrow dictionary null": lambda: pa.array(["a", None, "b", "a", None, "b"]).dictionary_encode(),
    "pandas Int64 NA": lambda: pd.Series([-7, None, 2**40, -7, None, 2**40], dtype="Int64"),
    "pandas UInt8 NA": lambda: pd.array([3, None, 200, 3, None, 200], dtype="UInt8"),
    "pandas boolean NA": lambda: pd.Series([False, None, True, False, None, True], dtype="boolean"),
    "pandas int64[pyarrow] NA": lambda: pd.Series([1, None, 2, 1, None, 2], dtype="int64[pyarrow]"),
}
PRED = np.array([0, 1, 1, 0, 2, 1])


@pytest.mark.parametrize("make", MISSING_INPUTS.values(), ids=MISSING_INPUTS.keys())
def test_missing_labels_raise_by_default_with_a_count(make):
    with pytest.raises(ValueError, match="2 of 6 labels are missing; pass missing='drop'"):
        fcm.adjusted_rand_score(make(), PRED)
    with pytest.raises(ValueError, match="2 of 6 labels are missing"):
        fcm.adjusted_rand_score(PRED, make())


@pytest.mark.parametrize("make", MISSING_INPUTS.values(), ids=MISSING_INPUTS.keys())
def test_missing_drop_and_cluster(make):
    kept = [0, 2, 3, 5]
    # drop: the samples missing in either labeling are left out
    assert fcm.contingency_matrix(make(), PRED, missing="drop").tolist() == (
        sk.contingency_matrix([0, 1, 0, 1], PRED[kept]).tolist()
    )
    assert fcm.adjusted_mutual_info_score(make(), PRED, missing="drop") == (
        fcm.adjusted_mutual_info_score([0, 1, 0, 1], PRED[kept])
    )
    # cluster: missing is one more label, sorted after the others
    as_label = [0, 2, 1, 0, 2, 1]
    assert fcm.contingency_matrix(make(), PRED, missing="cluster").tolist() == (
        sk.contingency_matrix(as_label, PRED).tolist()
    )
    assert fcm.v_measure_score(make(), PRED, missing="cluster") == (
        fcm.v_measure_score(as_label, PRED)
    )
    assert fcm.entropy(make(), missing="cluster") == fcm.entropy(as_label)
    assert fcm.entropy(make(), missing="drop") == fcm.entropy([0, 1, 0, 1])


@pytest.mark.parametrize("dtype", ["Int8", "Int64", "UInt64", "boolean", "int32[pyarrow]"])
def test_nullable_columns_without_missing_are_their_values(dtype):
    rng = np.random.default_rng(5)
    values = rng.integers(0, 2 if dtype == "boolean" else 100, 100_000)
    series = pd.Series(values, dtype=dtype)
    pred = rng.integers(0, 7, values.size)
    want = fcm.Contingency.from_labels(values.astype(series.dtype.numpy_dtype), pred)
    got = fcm.Contingency.from_labels(series, pred)
    assert got == want
    assert got.classes.tolist() == want.classes.tolist()
    assert fcm.adjusted_rand_score(series, pred) == sk.adjusted_rand_score(values, pred)


@pytest.mark.parametrize("dtype", [np.int64, np.uint32, np.int16, np.float64])
def test_misaligned_buffers_are_read(dtype):
    # Arrays unpickled in another process (Dask workers) can sit at odd addresses.
    n = 1000
    raw = np.zeros(n * np.dtype(dtype).itemsize + 1, dtype=np.uint8)[1:].view(dtype)
    raw[:] = np.arange(n) % 7
    assert not raw.flags.aligned
    pred = np.arange(n) % 5
    want = fcm.Contingency.from_labels(np.arange(n) % 7, pred)
    assert fcm.Contingency.from_labels(raw, pred) == want
    assert fcm.adjusted_rand_score(pred, raw) == fcm.adjusted_rand_score(pred, np.arange(n) % 7)


def test_missing_drop_uses_both_sides():
    true = pd.Categorical(["a", None, "b", "b"])
    pred = pd.Categorical([None, "x", "y", "y"])
    assert fcm.contingency_matrix(true, pred, missing="drop").tolist() == [[2]]


def test_missing_keyword_is_validated():
    with pytest.raises(fcm.InvalidParameterError, match="The 'missing' parameter of rand_score"):
        fcm.rand_score([0], [0], missing="ignore")


# --- the rest ---------------------------------------------------------------------------------


def test_mixed_object_arrays_fail_as_sklearn_does():
    mixed = np.array([1, "a", 2], dtype=object)
    with pytest.raises(TypeError):
        sk.adjusted_rand_score(mixed, [0, 1, 1])
    with pytest.raises(TypeError):
        fcm.adjusted_rand_score(mixed, [0, 1, 1])
    ints = np.array([5, 1, 5], dtype=object)
    assert fcm.adjusted_rand_score(ints, [0, 1, 0]) == sk.adjusted_rand_score(ints, [0, 1, 0])


class _Name(str):
    """A subclass of ``str``: a label as any ``str`` is."""


@pytest.mark.parametrize("at", [0, 70_000, 199_999])
def test_object_arrays_read_in_blocks_are_their_strings(at):
    """Object arrays past a block of items (their bytes found under the GIL a block at a time,
    hashed on the pool's threads): ``str`` of every kind, subclasses and missing values give the
    table of the strings' codes; an item that is not a string, in any block, the general path's
    answer (an error, as for a small mixed array); a string that is not valid Unicode the
    answer of the same labels as a ``U`` array."""
    rng = np.random.default_rng(at)
    n = 200_000
    names = [f"cell type {i}" for i in range(30)] + ["é", "細胞", "a" * 40, ""]
    codes = rng.integers(0, len(names), n)
    pred = rng.integers(0, 50, n)
    labels = np.array([names[c] for c in codes], dtype=object)
    labels[at] = _Name(labels[at])
    want = fcm.contingency_matrix(codes, pred)
    order = np.argsort(np.array(names)[np.unique(codes)], kind="stable")
    assert np.array_equal(fcm.contingency_matrix(labels, pred), want[order])
    holes = labels.copy()
    holes[[at, (at + 1) % n]] = [None, np.nan]
    kept = np.ones(n, bool)
    kept[[at, (at + 1) % n]] = False
    assert fcm.adjusted_rand_score(holes, pred, missing="drop") == fcm.adjusted_rand_score(
        labels[kept], pred[kept]
    )
    mixed = labels.copy()
    mixed[at] = 7
    with pytest.raises(TypeError):
        fcm.adjusted_rand_score(mixed, pred)
    odd = labels.copy()
    odd[at] = "\ud800"
    assert fcm.adjusted_rand_score(odd, pred) == fcm.adjusted_rand_score(odd.astype(str), pred)


def test_importing_does_not_import_optional_libraries():
    code = (
        "import sys, fastcluster_metrics as fcm; fcm.adjusted_rand_score(['a', 'b'], [0, 1]);"
        "print(sorted(m for m in ('pandas', 'polars', 'pyarrow', 'scipy', 'sklearn')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_million_strings_as_every_container():
    rng = np.random.default_rng(5)
    n = 1_000_000
    types = np.array([f"celltype_{i:02d}" for i in range(33)])
    truth = types[rng.integers(0, 33, n)]
    pred = rng.integers(0, 60, n)
    codes = _codes(truth)
    want = fcm.contingency_matrix(codes, pred)
    assert want.sum() == n
    for labels in (
        truth,
        truth.astype(object),
        pd.Categorical(truth),
        pl.Series(truth).cast(pl.Categorical),
        pa.array(truth).dictionary_encode(),
        pa.array(truth),
        pa.chunked_array([pa.array(truth[:333_333]), pa.array(truth[333_333:])]),
        pa.array(truth, pa.large_string()).slice(0),
        pl.Series(truth),
    ):
        assert (fcm.contingency_matrix(labels, pred) == want).all()


def test_arrow_strings_with_nulls_in_slices_and_chunks():
    """Nulls in Arrow string chunks are found by their validity bits, also in slices that start
    mid-byte, and the labels come back in sorted order with the missing ones dropped."""
    rng = np.random.default_rng(3)
    n = 300_000
    words = np.array([f"w{i}" for i in rng.permutation(500)], dtype=object)
    values = words[rng.integers(0, 500, n)]
    values[rng.random(n) < 0.05] = None
    pred = rng.integers(0, 40, n)
    base = pa.array(np.concatenate([["pad"] * 5, values]), type=pa.large_string())
    labels = pa.chunked_array([base.slice(5, 100_003), base.slice(100_008, n - 100_003)])
    assert labels.null_count > 0
    present = values != None  # noqa: E711 (elementwise)
    want = fcm.Contingency.from_labels(values[present].astype(str), pred[present])
    got = fcm.Contingency.from_labels(labels, pred, missing="drop")
    assert got.classes.tolist() == want.classes.tolist() == sorted(set(values[present]))
    assert (got.to_numpy() == want.to_numpy()).all()
    with pytest.raises(ValueError, match="missing"):
        fcm.adjusted_rand_score(labels, pred)


def test_polars_strings_read_as_views_short_long_null_sliced_and_chunked():
    """polars hands its strings over as Arrow views without copying them: labels of up to 12
    bytes are held in their views, longer ones in the data buffers. Both kinds, nulls, a sliced
    Series and one of several chunks count as their integer codes do, in sorted label order."""
    rng = np.random.default_rng(5)
    n = 400_000
    words = [f"celltype_{i:02d}" for i in range(30)] + [
        f"a longer cell type name {i}" for i in range(30)
    ]
    words += ["", "é", "x" * 12, "x" * 13, "x" * 11 + "é"]
    values = np.array(words, dtype=object)[rng.integers(0, len(words), n)]
    values[rng.random(n) < 0.03] = None
    pred = rng.integers(0, 25, n)
    series = pl.Series(values.tolist(), dtype=pl.String)
    chunked = pl.concat([series[:123_457], series[123_457:]], rechunk=False)
    assert chunked.n_chunks() == 2
    present = values != None  # noqa: E711 (elementwise)
    for labels, keep in (
        (series, slice(None)),
        (chunked, slice(None)),
        (series[777:], slice(777, None)),
    ):
        mask = present[keep]
        want = fcm.Contingency.from_labels(values[keep][mask].astype(str), pred[keep][mask])
        got = fcm.Contingency.from_labels(labels, pred[keep], missing="drop")
        assert got.classes.tolist() == sorted(set(values[keep][mask]))
        assert (got.to_numpy() == want.to_numpy()).all()
    whole = series.fill_null("missing")
    assert fcm.adjusted_rand_score(whole, pred) == fcm.adjusted_rand_score(
        _codes(whole.to_numpy().astype(str)), pred
    )


def test_arrow_views_that_do_not_hold_their_items_are_refused():
    """A view pointing past its buffers (from the C data interface, unchecked) is refused."""
    from fastcluster_metrics import _native

    view = np.zeros((1, 16), dtype=np.uint8)
    view[0, :4] = np.frombuffer(np.uint32(20).tobytes(), np.uint8)  # 20 bytes: in a buffer
    data = np.zeros(20, dtype=np.uint8)
    codes, first, missing = _native.encode_arrow_views([(view, [data], None, 0)])
    assert first.tolist() == [0]
    assert codes.tolist() == [0] and missing == 0
    for buffers in ([], [data[:19]]):
        with pytest.raises(ValueError, match="buffers do not hold its items"):
            _native.encode_arrow_views([(view, buffers, None, 0)])
    with pytest.raises(ValueError, match="16 bytes"):
        _native.encode_arrow_views([(np.zeros((1, 8), np.uint8), [], None, 0)])


def test_arrow_buffers_that_do_not_hold_their_items_are_refused():
    """pyarrow refuses to build such arrays; buffers from elsewhere (the C data interface) reach
    the core as they are, which must refuse them, not read past them."""
    from fastcluster_metrics import _native

    data = np.frombuffer(b"abcdef", dtype=np.uint8)
    bits = np.array([0b11], dtype=np.uint8)
    for offsets, valid, first in (
        (np.array([0, 2, 99], dtype=np.int32), None, 0),
        (np.array([0, 4, 2], dtype=np.int64), None, 0),
        (np.array([0, 1, 2], dtype=np.int32), bits, 7),
    ):
        with pytest.raises(ValueError, match="buffers do not hold its items"):
            _native.encode_arrow([(offsets, data, valid, first)])
    mixed = [(np.array([0, 1], np.int32), data, None, 0), (np.array([0, 1]), data, None, 0)]
    with pytest.raises(ValueError, match="mix 32-bit and 64-bit offsets"):
        _native.encode_arrow(mixed)


def test_numpy_strings_short_long_and_wide_characters_keep_sorted_order():
    """`U` labels of at most 15 Latin-1 characters are hashed packed in one number and the
    others as their code points; `S` labels alike as bytes. Both kinds, mixed in one array and
    counted in parallel blocks, keep Python's order of the labels."""
    words = ["", "a", "a\x00b", "é", "ÿz", "Ā", "一", "😀", "celltype_000000", "celltype_0000001"]
    words += ["z" * 40, "celltype_00000\u0101"]
    rng = np.random.default_rng(9)
    n = 200_000
    labels = np.array(words)[rng.integers(0, len(words), n)]
    pred = rng.integers(0, 7, n)
    want = fcm.Contingency.from_labels(_codes(labels), pred).to_numpy()
    for arr in (labels, np.char.encode(labels, "utf-8")):
        got = fcm.Contingency.from_labels(arr, pred)
        assert got.classes.tolist() == sorted(set(arr.tolist()))
        assert (got.to_numpy() == want).all()
