"""Tables with many cells (metacells, over-clustering, two fine clusterings, a million labels
a side), counted by partitions of their cells: the same cells as NumPy's ``np.unique`` of
the combined keys, bit for bit on one and two threads, at 1e7 labels; and the measures of a
table kept as it was counted (its pair sums, margins and expected mutual information without
its cells) those of the reference counts.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score as sk_ari

import fastcluster_metrics as fcm

N = 10_000_000

SHAPES = """
import numpy as np

def shape(name, n):
    rng = np.random.default_rng(len(name))
    if name == "random 50 x 2e5":
        return rng.integers(0, 50, n), rng.integers(0, 200_000, n)
    if name == "metacells":
        p = rng.integers(0, 130_000, n)
        t = rng.integers(0, 33, 130_000)[p]
        noise = rng.random(n) < 0.05
        t[noise] = rng.integers(0, 33, int(noise.sum()))
        return t, p
    if name == "fine 2e4 x 2e4":
        return rng.integers(0, 20_000, n), rng.integers(0, 20_000, n)
    if name == "sparse 1e6 x 1e6":
        return rng.integers(-500_000, 500_000, n), rng.integers(0, 1_000_000, n).astype(np.uint32)
    raise ValueError(name)
"""
NAMES = ["random 50 x 2e5", "metacells", "fine 2e4 x 2e4", "sparse 1e6 x 1e6"]

CHILD = (
    SHAPES
    + """
import hashlib, sys
import fastcluster_metrics as fcm
t, p = shape(sys.argv[1], int(sys.argv[2]))
m = fcm.contingency_matrix(t, p, sparse=True).tocoo()
digest = hashlib.sha256()
for x in (m.row, m.col, m.data):
    digest.update(np.ascontiguousarray(x, dtype=np.int64).tobytes())
print(fcm.num_threads(), m.shape[0], m.shape[1], m.nnz, digest.hexdigest(),
      repr(fcm.adjusted_rand_score(t, p)), repr(fcm.mutual_info_score(t, p)),
      repr(fcm.adjusted_mutual_info_score(t, p)), int(fcm.pair_confusion_matrix(t, p).sum()))
"""
)


def _shape(name: str, n: int):
    space: dict = {}
    exec(SHAPES, space)
    return space["shape"](name, n)


def _reference(t, p) -> tuple[int, int, int, str]:
    """The table's shape and cells from np.unique of the combined keys (row-major order)."""
    n_rows, n_cols, keys, counts = _cells(t, p)
    digest = hashlib.sha256()
    for x in (keys // n_cols, keys % n_cols, counts):
        digest.update(np.ascontiguousarray(x, dtype=np.int64).tobytes())
    return n_rows, n_cols, keys.size, digest.hexdigest()


def _cells(t, p) -> tuple[int, int, np.ndarray, np.ndarray]:
    """The table's shape, its cells' row-major numbers and their counts, by np.unique."""
    rows, r = np.unique(t, return_inverse=True)
    cols, c = np.unique(p, return_inverse=True)
    keys, counts = np.unique(r.astype(np.int64) * cols.size + c, return_counts=True)
    return rows.size, cols.size, keys, counts


def _exact_ari(t, p) -> Fraction:
    """ARI of the reference counts, in exact rationals (Hubert and Arabie's formula)."""
    _, _, _, counts = _cells(t, p)
    n = t.size

    def pairs(x: np.ndarray) -> int:
        x = x.astype(object)
        return int((x * (x - 1) // 2).sum())

    index = pairs(counts)
    rows = pairs(np.unique(t, return_counts=True)[1])
    cols = pairs(np.unique(p, return_counts=True)[1])
    expected = Fraction(rows * cols, n * (n - 1) // 2)
    return (index - expected) / (Fraction(rows + cols, 2) - expected)


@pytest.mark.parametrize("name", NAMES)
def test_wide_tables_match_numpy_on_one_and_two_threads(name):
    outs = []
    for threads in ("1", "2"):
        env = dict(os.environ, FASTCLUSTER_METRICS_NUM_THREADS=threads)
        out = subprocess.run(
            [sys.executable, "-c", CHILD, name, str(N)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        ).stdout.split()
        assert out[0] == threads
        outs.append(out[1:])
    assert outs[0] == outs[1], "one and two threads differ"
    t, p = _shape(name, N)
    n_rows, n_cols, nnz, digest = _reference(t, p)
    assert outs[0][:4] == [str(n_rows), str(n_cols), str(nnz), digest]
    # ARI from the pair sums of the table kept as counted, against the exact value (rounded
    # once: within an ulp or two of it), and the pairs it counts.
    assert float(outs[0][4]) == pytest.approx(float(_exact_ari(t, p)), rel=1e-13, abs=1e-15)
    assert int(outs[0][7]) == N * (N - 1)
    # Many cells hold one sample or none: the table is truly wide.
    assert nnz > 100_000


@pytest.mark.parametrize("name", NAMES)
def test_wide_tables_score_like_scikit_learn(name):
    t, p = _shape(name, 200_000)
    assert fcm.adjusted_rand_score(t, p) == pytest.approx(sk_ari(t, p), rel=1e-9, abs=1e-15)


def _cases():
    rng = np.random.default_rng(5)
    n = 300_000
    a = rng.integers(0, 40_000, n)
    b = rng.integers(0, 40_000, n)
    yield "sorted by class", np.sort(a), b
    yield "wide only at the end", np.where(np.arange(n) < n - 5000, a % 7, a), b % 11
    yield "gaps in the keys", a * 3 - 7, (b * 5).astype(np.uint32)
    yield "narrow types", (a % 120).astype(np.int8), b.astype(np.uint16)
    yield "unsigned keys near the top", a, b.astype(np.uint64) + np.uint64(2**64 - 40_000)
    yield "negative and wide", -a - 2**40, b


CASES = list(_cases())


@pytest.mark.parametrize(("name", "t", "p"), CASES, ids=[name for name, _, _ in CASES])
def test_awkward_wide_inputs_match_numpy(name, t, p):
    m = fcm.contingency_matrix(t, p, sparse=True).tocoo()
    n_rows, n_cols, nnz, digest = _reference(t, p)
    assert m.shape == (n_rows, n_cols)
    ours = hashlib.sha256()
    for x in (m.row, m.col, m.data):
        ours.update(np.ascontiguousarray(x, dtype=np.int64).tobytes())
    assert (m.nnz, ours.hexdigest()) == (nnz, digest)


@pytest.mark.parametrize("name", NAMES)
def test_a_table_counted_for_its_margins_answers_as_the_whole_table(name):
    """A count for the pair counts alone (``margins``: ARI, Rand, FMI) keeps a wide table's
    partition, not its cells: its sums are those of the table, and asked for its cells or a
    measure of them after all, it counts them again, the same cells bit for bit."""
    from fastcluster_metrics import _native

    t, p = _shape(name, 2_000_000)
    whole = _native.count(t, p)
    kept = _native.count(t, p, False, True)
    for question in ("n", "shape", "nnz"):
        assert getattr(kept, question) == getattr(whole, question)
    for question in ("pair_sums", "entropy_rows", "entropy_cols", "expected_mutual_info"):
        assert getattr(kept, question)() == getattr(whole, question)(), question
    for question in ("row_keys", "col_keys", "row_sums", "col_sums"):
        assert np.array_equal(getattr(kept, question)(), getattr(whole, question)()), question
    # The measures of the cells, then the cells themselves, counted again.
    assert kept.mutual_info() == pytest.approx(whole.mutual_info(), rel=1e-13)
    assert kept.purity() == whole.purity()
    for ours, theirs in zip(kept.cells(), whole.cells(), strict=True):
        assert np.array_equal(ours, theirs)


def test_pair_counting_measures_read_no_cells_of_a_table_counted_for_its_pair_counts():
    """Every measure the catalogue says reads the pair counts alone (``Measure.pairs``) leaves
    a wide table counted for them without its cells, and gives what it gives on the whole
    table; a measure of the cells then has them counted."""
    from fastcluster_metrics import _native
    from fastcluster_metrics._measures.catalogue import MEASURES
    from fastcluster_metrics._measures.contingency import Contingency

    t, p = _shape("fine 2e4 x 2e4", 2_000_000)
    whole = Contingency._of(_native.count(t, p))
    pairs = [m for m in MEASURES.values() if m.pairs]
    assert {"adjusted_rand_score", "rand_score", "jaccard_index"} <= {m.name for m in pairs}
    table = _native.count(t, p, False, True)
    kept = Contingency._of(table)
    for m in pairs:
        assert m.exact(kept) == m.exact(whole), m.name
        assert not table.holds_cells, m.name
    assert fcm.Contingency._of(table).mutual_info_score() == pytest.approx(
        whole.mutual_info_score(), rel=1e-13
    )
    assert table.holds_cells


@pytest.mark.parametrize(
    ("metrics", "cells", "margins"),
    [
        (["ARI", "jaccard_index", "pair_f_score"], False, True),
        (["ARI", "AMI"], False, False),
        (["MARI"], True, False),
        (None, False, False),
    ],
)
def test_evaluate_counts_for_the_pair_counts_alone_when_it_needs_no_more(
    monkeypatch, metrics, cells, margins
):
    """``evaluate`` with measures of the pair counts alone counts a wide table for them (its
    cells not kept), and the same answers."""
    from fastcluster_metrics._table import count as _labels

    seen = []
    count = _labels._native.count

    def spy(true, pred, cells=True, margins=False):
        table = count(true, pred, cells, margins)
        seen.append((cells, margins, table))
        return table

    t, p = _shape("fine 2e4 x 2e4", 1_000_000)
    want = fcm.evaluate(t, p, metrics=metrics)
    monkeypatch.setattr(_labels._native, "count", spy)
    got = fcm.evaluate(t, p, metrics=metrics)
    assert got == want
    [(asked, kept, table)] = seen
    assert (asked, kept) == (cells, margins)
    assert table.holds_cells != margins
