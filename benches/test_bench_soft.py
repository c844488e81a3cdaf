"""Soft and overlapping labelings: FARI against one NumPy product, Omega and overlapping NMI
against clusim.

Timing run:  FCM_BENCH_FULL=1 pytest benches/test_bench_soft.py --benchmark-only
Report:      python benches/report.py soft.json   (with --benchmark-json=soft.json)

Groups (sizes with ``FCM_BENCH_FULL=1``; a plain run uses 1e4 rows and runs each case once):

- ``FARI``: ``frobenius_adjusted_rand_score`` of two dense membership matrices, 1e6 x 30
  each (Dirichlet(1) rows; the second shares 60 % of the first's), against ``floor``: one
  ``P.T @ Q`` of the same arrays (the floor of any method that reads both). Checked first
  against the value from the whole products.
- ``covers``: ``omega_index``, ``overlapping_normalized_mutual_info_score`` (MGH and LFK) and
  ``extended_bcubed_precision_recall_f`` of two random covers of 1e6 samples with 1 to 3 of
  30 labels each (about 2e6 labels a side), given as SciPy CSR 0/1 matrices. Checked first:
  a cover against itself scores 1; ONMI against a dense NumPy computation from ``XᵀY``.
- ``clusim``: Omega at 2e4 samples (clusim's ``omega_index`` takes about 45 s there; 3e3 in a
  plain run), ours against clusim 0.4 on the same covers, values checked equal first; and
  clusim's ``onmi`` at the covers' full size (it computes a different quantity, see
  ``docs/guide/soft.md``; timed for scale only).
"""

from __future__ import annotations

import functools
import math
import os
import warnings

import numpy as np
import pytest

import fastcluster_metrics as fcm

FULL = os.environ.get("FCM_BENCH_FULL", "") not in ("", "0")
N = 10**6 if FULL else 10**4
N_CLUSIM = 20_000 if FULL else 3_000
K = 30
SEED = 20_251_128


@functools.cache
def _memberships() -> tuple[np.ndarray, np.ndarray]:
    # Q shares 60 % of P's memberships (columns reversed), so that FARI is far from 0 and a
    # relative tolerance means something
    rng = np.random.default_rng(SEED)
    p = rng.dirichlet(np.ones(K), N)
    return p, 0.6 * p[:, ::-1] + 0.4 * rng.dirichlet(np.ones(K), N)


def _cover(rng: np.random.Generator, n: int):
    import scipy.sparse as sp

    sizes = rng.integers(1, 4, n)
    rows = np.repeat(np.arange(n), sizes)
    labels = rng.integers(0, K, sizes.sum())
    matrix = sp.csr_matrix((np.ones(rows.size), (rows, labels)), shape=(n, K))
    matrix.data[:] = 1.0  # a label drawn twice is one label
    return matrix


@functools.cache
def _covers(n: int):
    pytest.importorskip("scipy")
    rng = np.random.default_rng(SEED + n)
    return _cover(rng, n), _cover(rng, n)


def _fari_from_products(p: np.ndarray, q: np.ndarray) -> float:
    n = p.shape[0]
    s, a, b = p.T @ q, p.T @ p, q.T @ q
    cross, square_a, square_b = np.sum(s * s), np.sum(a * a), np.sum(b * b)
    total_a, total_b = np.sum(p.sum(0) ** 2), np.sum(q.sum(0) ** 2)
    trace_a, trace_b = np.trace(a), np.trace(b)
    e = total_a * total_b / n**2 + (trace_a - total_a / n) * (trace_b - total_b / n) / (n - 1)
    denominator = total_a * square_b / total_b + total_b * square_a / total_a - 2 * e
    return float(2 * (cross - e) / denominator)


@pytest.mark.parametrize("case", ["ours", "floor"])
def test_fari(benchmark, case):
    p, q = _memberships()
    benchmark.group = f"FARI {N:.0e} x {K} x {K}"
    if case == "floor":
        benchmark(lambda: p.T @ q)
        return
    want = _fari_from_products(p, q)
    assert math.isclose(fcm.frobenius_adjusted_rand_score(p, q), want, rel_tol=1e-9)
    benchmark(fcm.frobenius_adjusted_rand_score, p, q)


def _h(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)


def _onmi_dense(x, y, variant: str) -> float:
    """Overlapping NMI from the dense intersections ``XᵀY`` of two 0/1 matrices (no groups,
    no subsets): an independent count for the check."""
    n = x.shape[0]
    inter = np.asarray((x.T @ y).todense())
    sx, sy = np.asarray(x.sum(0)).ravel(), np.asarray(y.sum(0)).ravel()

    def given(table, a, b):
        p11, p10 = table / n, (a[:, None] - table) / n
        p01, p00 = (b[None, :] - table) / n, (n - a[:, None] - b[None, :] + table) / n
        passes = _h(p11) + _h(p00) > _h(p01) + _h(p10)
        hb = _h(b / n) + _h(1 - b / n)
        joint = _h(p11) + _h(p10) + _h(p01) + _h(p00) - hb[None, :]
        ha = _h(a / n) + _h(1 - a / n)
        return np.minimum(np.where(passes, joint, np.inf).min(axis=1), ha), ha

    hxy, hx = given(inter, sx, sy)
    hyx, hy = given(inter.T, sy, sx)
    if variant == "LFK":
        return float(1 - 0.5 * (np.mean(hxy / hx) + np.mean(hyx / hy)))
    return float(0.5 * (hx.sum() - hxy.sum() + hy.sum() - hyx.sum()) / max(hx.sum(), hy.sum()))


COVER_CASES = ["omega", "onmi_mgh", "onmi_lfk", "bcubed"]


@pytest.mark.parametrize("case", COVER_CASES)
def test_covers(benchmark, case):
    x, y = _covers(N)
    benchmark.group = f"covers {N:.0e} samples, 1-3 of {K} labels"
    if case == "omega":
        assert fcm.omega_index(x, x) == 1.0
        benchmark(fcm.omega_index, x, y)
    elif case == "bcubed":
        assert fcm.extended_bcubed_precision_recall_f(x, x) == (1.0, 1.0, 1.0)
        benchmark(fcm.extended_bcubed_precision_recall_f, x, y)
    else:
        variant = case.rpartition("_")[2].upper()
        got = fcm.overlapping_normalized_mutual_info_score(x, y, variant=variant)
        assert math.isclose(got, _onmi_dense(x, y, variant), rel_tol=1e-9, abs_tol=1e-12)
        benchmark(fcm.overlapping_normalized_mutual_info_score, x, y, variant=variant)


def _clusim(x):
    from clusim.clustering import Clustering

    rows = np.repeat(np.arange(x.shape[0]), np.diff(x.indptr))
    elements: dict[int, list[int]] = {}
    for row, label in zip(rows.tolist(), x.indices.tolist(), strict=True):
        elements.setdefault(row, []).append(label)
    return Clustering(elm2clu_dict=elements)


def _quiet(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*args)


@pytest.mark.parametrize("case", ["ours", "clusim"])
def test_omega_against_clusim(benchmark, case):
    sim = pytest.importorskip("clusim.sim")
    x, y = _covers(N_CLUSIM)
    benchmark.group = f"clusim omega {N_CLUSIM:.0e}"
    if case == "ours":
        benchmark(fcm.omega_index, x, y)
        return
    cx, cy = _clusim(x), _clusim(y)
    want = _quiet(sim.omega_index, cx, cy)
    assert math.isclose(fcm.omega_index(x, y), want, rel_tol=1e-9, abs_tol=1e-12)
    benchmark.pedantic(_quiet, args=(sim.omega_index, cx, cy), rounds=1, iterations=1)


def test_clusims_onmi(benchmark):
    sim = pytest.importorskip("clusim.sim")
    x, y = _covers(N)
    benchmark.group = f"covers {N:.0e} samples, 1-3 of {K} labels"
    benchmark.extra_info["case"] = "clusim onmi"
    cx, cy = _clusim(x), _clusim(y)
    benchmark.pedantic(_quiet, args=(sim.onmi, cx, cy), rounds=1, iterations=1)
