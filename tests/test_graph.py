"""scIB's scores over a neighbour graph (``_graph/``): LISI, kBET and graph connectivity against
NumPy references written here from scib-metrics' definitions, against scib-metrics and
harmonypy where installed, in every form of the graph, with every bad input refused, and the
same to the last bit for one thread and two."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

import numpy as np
import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics import _native

sp = pytest.importorskip("scipy.sparse")
special = pytest.importorskip("scipy.special")


def random_graph(
    n: int, k: int, seed: int, dtype: type = np.float64
) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, distances)`` of ``n`` cells, ``k`` neighbours each, the cell itself first at
    distance 0, the others distinct and sorted by distance."""
    rng = np.random.default_rng(seed)
    idx = np.empty((n, k), dtype=np.int64)
    idx[:, 0] = np.arange(n)
    shift = rng.integers(1, n, size=(n, k - 1))
    idx[:, 1:] = (np.arange(n)[:, None] + shift) % n
    dist = np.sort(rng.random((n, k)) * 3, axis=1).astype(dtype)
    dist[:, 0] = 0
    return idx, dist


def to_csr(idx: np.ndarray, dist: np.ndarray) -> sp.csr_matrix:
    """scanpy's form of the same graph: the self column dropped."""
    n, k = idx.shape
    return sp.csr_matrix(
        (dist[:, 1:].ravel(), idx[:, 1:].ravel(), np.arange(0, n * (k - 1) + 1, k - 1)),
        shape=(n, n),
    )


class Neighbors:
    """A NeighborsResults-like object."""

    def __init__(self, indices: np.ndarray, distances: np.ndarray) -> None:
        self.indices = indices
        self.distances = distances


# --- references, from scib-metrics' definitions ------------------------------------------


def ref_lisi(idx: Any, dist: Any, codes: np.ndarray, perplexity: float) -> np.ndarray:
    """Each row's LISI; ``idx`` and ``dist`` a row each (ragged rows allowed)."""
    n_labels = int(codes.max()) + 1
    out = np.empty(len(idx))
    for i in range(len(idx)):
        d = np.asarray(dist[i], dtype=np.float64)
        mask = np.asarray(idx[i]) != i

        def hbeta(
            beta: float, d: np.ndarray = d, mask: np.ndarray = mask
        ) -> tuple[float, np.ndarray]:
            p = np.where(mask, np.exp(-d * beta), 0.0)
            s = p.sum()
            if s == 0:
                return 0.0, np.zeros_like(p)
            return float(np.log(s) + beta * (d * p).sum() / s), p / s

        beta, lo, hi = 1.0, -np.inf, np.inf
        h, p = hbeta(beta)
        diff = h - np.log(perplexity)
        tries = 0
        while abs(diff) >= 1e-5 and tries < 50:
            if diff > 0:
                lo = beta
                beta = beta * 2 if hi == np.inf else (beta + hi) / 2
            else:
                hi = beta
                beta = beta / 2 if lo == -np.inf else (beta + lo) / 2
            h, p = hbeta(beta)
            diff = h - np.log(perplexity)
            tries += 1
        sums = np.bincount(codes[idx[i]], weights=p, minlength=n_labels)
        out[i] = -1.0 if h == 0 else 1.0 / float(sums @ sums)
    return out


def ref_kbet(idx: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    nb = int(codes.max()) + 1
    freq = np.bincount(codes, minlength=nb) / codes.size
    counts = np.stack([np.bincount(codes[row], minlength=nb) for row in idx])
    e = freq * idx.shape[1]
    stat = ((counts - e) ** 2 / e).sum(axis=1)
    return stat, special.gammaincc((nb - 1) / 2, stat / 2)


def ref_connectivity(idx: np.ndarray, labels: np.ndarray) -> float:
    from scipy.sparse.csgraph import connected_components

    n, k = idx.shape
    g = sp.csr_matrix((np.ones(n * k), idx.ravel(), np.arange(0, n * k + 1, k)), shape=(n, n))
    # scipy 1.17's strong components do not return on a row with a neighbour twice.
    g.sum_duplicates()
    shares = []
    for lab in np.unique(labels):
        m = labels == lab
        _, comp = connected_components(g[m][:, m], connection="strong")
        shares.append(np.bincount(comp).max() / m.sum())
    return float(np.mean(shares))


# --- values ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lisi_equals_the_reference(dtype: type) -> None:
    idx, dist = random_graph(300, 30, 1, dtype)
    labels = np.random.default_rng(2).integers(0, 4, 300)
    ours = fcm.lisi_knn((idx, dist), labels, perplexity=10)
    want = ref_lisi(idx, dist, labels, 10)
    np.testing.assert_allclose(ours, want, rtol=1e-12)
    assert ours.dtype == np.float64 and ours.shape == (300,)


def test_lisi_default_perplexity_and_scaled_summaries() -> None:
    idx, dist = random_graph(400, 30, 3)
    labels = np.random.default_rng(4).integers(0, 3, 400)
    lisi = ref_lisi(idx, dist, labels, 10)  # 30 // 3
    np.testing.assert_allclose(fcm.lisi_knn((idx, dist), labels), lisi, rtol=1e-12)
    med = np.nanmedian(lisi)
    assert fcm.ilisi_knn((idx, dist), labels) == pytest.approx((med - 1) / 2, rel=1e-12)
    assert fcm.ilisi_knn((idx, dist), labels, scale=False) == pytest.approx(med, rel=1e-12)
    assert fcm.clisi_knn((idx, dist), labels) == pytest.approx((3 - med) / 2, rel=1e-12)
    assert fcm.clisi_knn((idx, dist), labels, scale=False) == pytest.approx(med, rel=1e-12)


def test_kbet_equals_the_reference() -> None:
    idx, dist = random_graph(500, 20, 5)
    batches = np.random.default_rng(6).integers(0, 4, 500)
    acc, stat, p = fcm.kbet((idx, dist), batches)
    want_stat, want_p = ref_kbet(idx, batches)
    np.testing.assert_allclose(stat, want_stat, rtol=1e-12)
    np.testing.assert_allclose(p, want_p, rtol=0, atol=1e-12)
    assert acc == np.mean(want_p >= 0.05)
    assert fcm.kbet((idx, dist), batches, alpha=0.5)[0] == np.mean(want_p >= 0.5)


@pytest.mark.parametrize("a", [0.5, 1.0, 1.5, 2.0, 4.5, 10.0, 49.5, 200.0])
def test_the_chi_square_tail_matches_scipy(a: float) -> None:
    for x in [0.0, 1e-8, 0.01, 0.3, 1.0, a * 0.9, a, a + 1, a * 1.1 + 3, 50.0, 300.0, 1e3]:
        assert abs(_native.gammaincc(a, x) - special.gammaincc(a, x)) < 1e-12, (a, x)


def test_graph_connectivity_equals_the_reference() -> None:
    rng = np.random.default_rng(7)
    for k in (2, 3, 5):
        idx, dist = random_graph(300, k, int(rng.integers(1000)))
        labels = rng.integers(0, 5, 300)
        assert fcm.graph_connectivity((idx, dist), labels) == pytest.approx(
            ref_connectivity(idx, labels), abs=1e-15
        )


def test_graph_connectivity_of_one_piece_per_label_is_one() -> None:
    idx, dist = random_graph(200, 30, 8)
    assert fcm.graph_connectivity((idx, dist), np.zeros(200, dtype=int)) == 1.0


def test_kbet_per_label_skips_scores_and_falls_apart_as_defined() -> None:
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(9)
    n = 600
    idx, dist = random_graph(n, 15, 10)
    labels = np.repeat(np.array(["a", "b", "c"]), n // 3)
    batches = rng.integers(0, 2, n)
    batches[labels == "c"] = 0  # one batch: skipped
    score, df = fcm.kbet_per_label((idx, dist), batches, labels, return_df=True, diffusion=False)
    assert isinstance(df, pd.DataFrame) and list(df["cluster"]) == ["a", "b", "c"]
    assert np.isnan(df["kBET"][2])
    # A label of one piece: kBET over each cell's neighbours within the label.
    for j, lab in enumerate(["a", "b"]):
        m = np.flatnonzero(labels == lab)
        local = -np.ones(n, dtype=np.int64)
        local[m] = np.arange(m.size)
        b = batches[m]
        freq = np.bincount(b, minlength=2) / m.size
        p = []
        for i in m:
            row = local[idx[i]]
            row = row[row >= 0]
            c = np.bincount(b[row], minlength=2)
            e = freq * row.size
            p.append(special.gammaincc(0.5, ((c - e) ** 2 / e).sum() / 2))
        assert df["kBET"][j] == pytest.approx(np.mean(np.array(p) >= 0.05), abs=1e-15)
    assert score == pytest.approx(np.nanmean(df["kBET"]))
    assert fcm.kbet_per_label((idx, dist), batches, labels, diffusion=False) == score


def test_kbet_per_label_is_the_benchmarks_kbet_column_on_every_form_of_the_graph() -> None:
    """By default, scib-metrics' definition (the diffusion map of each label's UMAP
    connectivities): the KBET column of scib_benchmark on the same graph, whether the graph
    is given as arrays or as scanpy's sparse distances; each label's score in the frame."""
    pytest.importorskip("scipy")
    pytest.importorskip("sklearn")
    pd = pytest.importorskip("pandas")
    from scipy import sparse

    from fastcluster_metrics._graph import kbet_diffusion

    rng = np.random.default_rng(21)
    n = 500
    # 49 distinct neighbours a cell (a sparse matrix would sum repeated ones), itself first
    others = np.argsort(rng.random((n, n)) + np.eye(n), axis=1)[:, :49]
    idx = np.concatenate([np.arange(n)[:, None], others], axis=1)
    dist = np.concatenate([np.zeros((n, 1)), np.sort(rng.random((n, 49)) * 3, axis=1)], axis=1)
    labels = np.repeat(np.array(["t0", "t1", "t2", "t3"]), n // 4)
    batches = rng.integers(0, 3, n)
    batches[labels == "t3"] = 1  # one batch: skipped
    score, df = fcm.kbet_per_label((idx, dist), batches, labels, return_df=True)
    codes = np.unique(labels, return_inverse=True)[1]
    want = kbet_diffusion.label_scores(idx, dist.astype(np.float32), batches, codes)
    np.testing.assert_array_equal(df["kBET"].to_numpy(), want)
    assert list(df["cluster"]) == ["t0", "t1", "t2", "t3"] and np.isnan(want[3])
    assert score == kbet_diffusion.kbet_per_label(idx, dist.astype(np.float32), batches, codes)
    assert 0.0 < score <= 1.0 and isinstance(df, pd.DataFrame)
    # scanpy's form: the same neighbours but the cell itself, stored in any order
    rows = np.repeat(np.arange(n), 49)
    flip = rng.permutation(n * 49)
    csr = sparse.csr_matrix(
        (dist[:, 1:].ravel()[flip], (rows[flip], idx[:, 1:].ravel()[flip])), shape=(n, n)
    )
    assert fcm.kbet_per_label(csr, batches, labels) == score
    # a ragged graph has no k nearest of each cell: refused, with the way out named
    ragged = csr.tolil()
    ragged[0, ragged.rows[0][0]] = 0
    ragged = ragged.tocsr()
    ragged.eliminate_zeros()
    with pytest.raises(ValueError, match=r"cell 0 has 48 neighbours .*diffusion=False"):
        fcm.kbet_per_label(ragged, batches, labels)
    assert 0.0 <= fcm.kbet_per_label(ragged, batches, labels, diffusion=False) <= 1.0


def test_kbet_per_label_scores_zero_where_the_label_falls_apart() -> None:
    # Every neighbour of another label: each cell a piece of its own, smaller than 3 k0.
    n = 400
    idx = np.stack([np.arange(n), (np.arange(n) + 1) % n, (np.arange(n) + 3) % n], axis=1)
    dist = np.tile([0.0, 1.0, 2.0], (n, 1))
    labels = np.arange(n) % 2
    batches = (np.arange(n) // 2) % 2
    assert fcm.kbet_per_label((idx, dist), batches, labels) == 0.0
    assert fcm.kbet_per_label((idx, dist), batches, labels, diffusion=False) == 0.0


# --- the forms of the graph --------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_form_gives_the_same_scores(dtype: type) -> None:
    idx, dist = random_graph(300, 12, 11, dtype)
    labels = np.random.default_rng(12).integers(0, 3, 300)
    forms = [
        (idx, dist),
        Neighbors(idx, dist),
        (idx.astype(np.int32), dist),
        (idx.tolist(), dist.tolist()),
        to_csr(idx, dist),
    ]
    first = None
    for form in forms:
        got = (
            fcm.lisi_knn(form, labels),
            fcm.ilisi_knn(form, labels),
            fcm.clisi_knn(form, labels),
            fcm.kbet(form, labels),
            fcm.graph_connectivity(form, labels),
        )
        if first is None:
            first = got
            continue
        np.testing.assert_allclose(
            got[0], first[0], rtol=1e-14
        )  # the labels summed in another order
        assert got[4] == first[4]
        np.testing.assert_array_equal(got[3][1], first[3][1])


def test_a_sparse_graph_with_rows_of_different_lengths() -> None:
    idx, dist = random_graph(200, 10, 13)
    keep = np.ones_like(idx, dtype=bool)
    keep[::3, 5:] = False  # every third cell keeps 5 neighbours (itself among them)
    rows, cols = np.nonzero(keep & (idx != np.arange(200)[:, None]))
    g = sp.csr_matrix((dist[rows, cols], (rows, idx[rows, cols])), shape=(200, 200))
    labels = np.random.default_rng(14).integers(0, 3, 200)
    got = fcm.kbet(g, labels)[2]
    freq = np.bincount(labels, minlength=3) / 200
    for i in range(200):
        row = np.append(g.indices[g.indptr[i] : g.indptr[i + 1]], i)
        c = np.bincount(labels[row], minlength=3)
        e = freq * row.size
        assert got[i] == pytest.approx(
            special.gammaincc(1, ((c - e) ** 2 / e).sum() / 2), abs=1e-12
        )
    lisi = fcm.lisi_knn(g, labels)  # perplexity 10 // 3 = 3 (the longest row, 9, plus the cell)
    rows = [g.indices[g.indptr[i] : g.indptr[i + 1]] for i in range(200)]
    dists = [g.data[g.indptr[i] : g.indptr[i + 1]] for i in range(200)]
    np.testing.assert_allclose(lisi, ref_lisi(rows, dists, labels, 3), rtol=1e-12)


def test_a_sparse_graph_that_stores_each_cell_itself() -> None:
    # scikit-learn's kneighbors_graph(..., include_self=True) stores each cell at distance 0
    # in its own row: the same graph as scanpy's, which leaves it out, and the same scores.
    idx, dist = random_graph(300, 12, 21)
    n, k = idx.shape
    with_self = sp.csr_matrix((dist.ravel(), idx.ravel(), np.arange(0, n * k + 1, k)), shape=(n, n))
    assert with_self.nnz == n * k and (with_self.diagonal() == 0).all()
    rng = np.random.default_rng(22)
    batches, labels = rng.integers(0, 3, n), rng.integers(0, 4, n)
    for form in (to_csr(idx, dist), (idx, dist)):
        assert fcm.kbet_per_label(with_self, batches, labels) == fcm.kbet_per_label(
            form, batches, labels
        )
        assert fcm.kbet_per_label(
            with_self, batches, labels, diffusion=False
        ) == fcm.kbet_per_label(form, batches, labels, diffusion=False)
        assert fcm.graph_connectivity(with_self, labels) == fcm.graph_connectivity(form, labels)
        np.testing.assert_array_equal(fcm.kbet(with_self, batches)[2], fcm.kbet(form, batches)[2])
        np.testing.assert_allclose(
            fcm.lisi_knn(with_self, batches, perplexity=4),
            fcm.lisi_knn(form, batches, perplexity=4),
            rtol=1e-14,
        )


@pytest.mark.parametrize(
    "labels",
    [
        lambda a: a,
        lambda a: a.astype(str),
        lambda a: list(a.astype(str)),
        lambda a: __import__("pandas").Categorical(a.astype(str)),
        lambda a: __import__("pandas").Series(a * 7 - 3),
    ],
)
def test_every_label_type(labels: object) -> None:
    idx, dist = random_graph(150, 10, 15)
    codes = np.random.default_rng(16).integers(0, 3, 150)
    want = fcm.lisi_knn((idx, dist), codes)
    np.testing.assert_array_equal(fcm.lisi_knn((idx, dist), labels(codes)), want)  # type: ignore[operator]
    assert fcm.kbet((idx, dist), labels(codes))[0] == fcm.kbet((idx, dist), codes)[0]  # type: ignore[operator]


# --- bad input ---------------------------------------------------------------------------


def test_bad_graphs_are_refused_one_clear_error_each() -> None:
    idx, dist = random_graph(20, 4, 17)
    labels = np.arange(20) % 2
    bad = idx.copy()
    bad[3, 2] = 20
    with pytest.raises(ValueError, match="cell 3 has the neighbour index 20, not a cell"):
        fcm.lisi_knn((bad, dist), labels)
    bad[3, 2] = -1
    with pytest.raises(ValueError, match="neighbour index -1"):
        fcm.kbet((bad, dist), labels)
    for value in (-0.5, np.nan, np.inf):
        d = dist.copy()
        d[5, 1] = value
        for f in (fcm.lisi_knn, fcm.graph_connectivity):
            with pytest.raises(
                ValueError, match=r"cell 5 has the distance .* finite and non-negative"
            ):
                f((idx, d), labels)
    with pytest.raises(ValueError, match="rows of different lengths"):
        fcm.lisi_knn(([[0, 1], [1]], [[0.0, 1.0], [0.0]]), labels[:2])
    with pytest.raises(ValueError, match="inconsistent numbers of samples: \\[20, 19\\]"):
        fcm.kbet((idx, dist), labels[:19])
    with pytest.raises(ValueError, match="same shape"):
        fcm.lisi_knn((idx, dist[:, :3]), labels)
    with pytest.raises(ValueError, match="must be square"):
        fcm.graph_connectivity(sp.csr_matrix((20, 21)), labels)
    with pytest.raises(ValueError, match="2-D"):
        fcm.lisi_knn((idx.ravel(), dist.ravel()), labels)
    with pytest.raises(TypeError, match="NeighborsResults"):
        fcm.kbet(idx, labels)
    with pytest.raises(ValueError, match="perplexity"):
        fcm.lisi_knn((idx, dist), labels, perplexity=0)
    with pytest.raises(ValueError, match="integers"):
        fcm.lisi_knn((idx.astype(float), dist), labels)
    with pytest.raises(ValueError, match="missing"):
        fcm.lisi_knn((idx, dist), np.where(labels == 0, np.nan, 1.0))


# --- against scib-metrics and harmonypy ---------------------------------------------------


def test_kbet_per_label_equals_scib_metrics() -> None:
    """Each label's score as scib-metrics' (whose ARPACK start is random and whose search is
    approximate: a cell's last neighbour or two may differ, so to 0.02)."""
    sm = pytest.importorskip("scib_metrics")
    from scib_metrics.nearest_neighbors import NeighborsResults
    from sklearn.neighbors import NearestNeighbors

    rng = np.random.default_rng(0)
    n = 1500
    labels, batches = rng.integers(0, 4, n), rng.integers(0, 3, n)
    x = rng.normal(size=(n, 10))
    x[:, 0] += labels * 4.0
    x[:, 1] += batches * 0.3
    dist, idx = NearestNeighbors(n_neighbors=50).fit(x).kneighbors(x)
    graph = NeighborsResults(indices=idx, distances=dist.astype(np.float32))
    ours, ours_df = fcm.kbet_per_label(graph, batches, labels, return_df=True)
    theirs, theirs_df = sm.kbet_per_label(graph, batches, labels, return_df=True)
    np.testing.assert_allclose(ours_df["kBET"], theirs_df["kBET"], rtol=0, atol=0.02)
    assert ours == pytest.approx(theirs, abs=0.02)


def test_equals_scib_metrics() -> None:
    sm = pytest.importorskip("scib_metrics")
    from scib_metrics.nearest_neighbors import NeighborsResults

    idx, dist = random_graph(1000, 30, 18, np.float32)
    rng = np.random.default_rng(19)
    batches, labels = rng.integers(0, 3, 1000), rng.integers(0, 5, 1000)
    nn = NeighborsResults(indices=idx, distances=dist)
    ours = fcm.lisi_knn((idx, dist), batches)
    theirs = sm.lisi_knn(nn, batches)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)
    assert fcm.ilisi_knn(nn, batches) == pytest.approx(sm.ilisi_knn(nn, batches), rel=1e-4)
    assert fcm.clisi_knn(nn, labels) == pytest.approx(sm.clisi_knn(nn, labels), rel=1e-4)
    acc, stat, p = fcm.kbet(nn, batches)
    acc2, stat2, p2 = sm.kbet(nn, batches)
    np.testing.assert_allclose(stat, stat2, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(p, p2, atol=1e-5)
    assert acc == pytest.approx(acc2, abs=2e-3)
    assert fcm.graph_connectivity(nn, labels) == sm.graph_connectivity(nn, labels)
    idx2, dist2 = random_graph(1000, 3, 20, np.float32)
    nn2 = NeighborsResults(indices=idx2, distances=dist2)
    assert fcm.graph_connectivity(nn2, labels) == pytest.approx(
        sm.graph_connectivity(nn2, labels), abs=1e-15
    )


def test_lisi_equals_harmonypy() -> None:
    harmonypy = pytest.importorskip("harmonypy")
    pd = pytest.importorskip("pandas")
    from sklearn.neighbors import NearestNeighbors

    rng = np.random.default_rng(21)
    x = rng.normal(size=(600, 5))
    batch = rng.integers(0, 3, 600)
    want = harmonypy.compute_lisi(x, pd.DataFrame({"b": batch.astype(str)}), ["b"], perplexity=10)
    dist, idx = NearestNeighbors(n_neighbors=31).fit(x).kneighbors(x)
    ours = fcm.lisi_knn((idx, dist), batch, perplexity=10)
    np.testing.assert_allclose(ours, want[:, 0], rtol=1e-6)


# --- threads and size --------------------------------------------------------------------

_CHILD = """
import sys, numpy as np, fastcluster_metrics as fcm
rng = np.random.default_rng(0)
n, k = 50_000, 15
idx = (np.arange(n)[:, None] + rng.integers(0, n, (n, k))) % n
idx[:, 0] = np.arange(n)
dist = np.sort(rng.random((n, k)), axis=1); dist[:, 0] = 0
b = rng.integers(0, 4, n); lab = rng.integers(0, 6, n)
g = (idx, dist)
out = [fcm.lisi_knn(g, b), fcm.kbet(g, b)[1], fcm.kbet(g, b)[2],
       np.array([fcm.graph_connectivity(g, lab), fcm.kbet_per_label(g, b, lab, diffusion=False)])]
sys.stdout.write(b"".join(a.tobytes() for a in out).hex())
"""


def test_one_thread_and_two_give_the_same_bits() -> None:
    runs = []
    for threads in ("1", "2"):
        env = {**os.environ, "FASTCLUSTER_METRICS_NUM_THREADS": threads}
        done = subprocess.run(
            [sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True
        )
        runs.append(done.stdout)
    assert runs[0] == runs[1] and len(runs[0]) > 1000


def test_a_million_cells_of_thirty_neighbours() -> None:
    n, k = 1_000_000, 30
    rng = np.random.default_rng(22)
    idx = rng.integers(0, n, (n, k), dtype=np.int64)
    idx[:, 0] = np.arange(n)
    dist = rng.random((n, k), dtype=np.float32)
    dist[:, 0] = 0
    batches = rng.integers(0, 4, n)
    start = time.perf_counter()
    acc, stat, p = fcm.kbet((idx, dist), batches)
    conn = fcm.graph_connectivity((idx, dist), batches)
    lisi = fcm.lisi_knn((idx, dist), batches)
    took = time.perf_counter() - start
    assert 0 <= acc <= 1 and stat.shape == p.shape == lisi.shape == (n,)
    assert 0.99 < conn <= 1  # 30 random neighbours: each batch nearly one piece
    assert np.all((lisi >= 1 - 1e-9) & (lisi <= 4 + 1e-9))
    assert took < 60, took
