"""Scores of an embedding: the silhouette, Calinski-Harabasz and Davies-Bouldin, ours against
scikit-learn and the floor in the same run.

Timing run:  pytest benches/test_bench_embedding.py --benchmark-only --benchmark-json=emb.json
Report:      python benches/report.py emb.json

The inputs are Gaussian blobs (``_blobs``: 20 centres in 50 dimensions, unit noise, a fixed
seed), float64. Sizes are those below when timings are asked for; a plain ``python -m pytest``
(benchmarks disabled) runs each case once on 1/10 to 1/200 of them.

Groups:

- ``silhouette 2e4 x 50, k=20``: ``silhouette_score`` (Euclidean), ours and scikit-learn's,
  against ``floor``: NumPy's ``X @ X.T`` at that n, the n²·d multiply-adds of every pair at
  BLAS's square-product rate (computing each unordered pair once halves them).
- ``silhouette sweep 20 labelings``: one ``silhouette_score`` call on 20 labelings of the same
  embedding (k = 20 and 19 others, 2 to 40 clusters) against one call on one labeling.
- ``silhouette <metric> 1e6 x 50``: ``"sqeuclidean"`` and ``"cosine"``, against ``floor``:
  ``X.sum()``, NumPy reading X once. scikit-learn cannot take this size (n² distances); each
  is checked against scikit-learn on the first 2,000 rows first.
- ``calinski_harabasz 2e6 x 50`` and ``davies_bouldin 2e6 x 50``: ours, scikit-learn and
  ``X.sum()``.

Every case checks its value against scikit-learn's (1e-10 relative) before it is timed.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
import sklearn.metrics as skm

import fastcluster_metrics as fcm

SEED = 20_251_201
D = 50
K = 20
SILHOUETTE_N = 20_000
SWEEP = 20
WIDE_N = 10**6
DISPERSION_N = 2 * 10**6
CHECK_N = 2_000


@functools.cache
def _blobs(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    labels = rng.integers(0, K, n)
    centres = rng.normal(0, 2, (K, D))
    x = centres[labels] + rng.normal(0, 1, (n, D))
    x.flags.writeable = False
    labels.flags.writeable = False
    return x, labels


@functools.cache
def _sweep(n: int) -> np.ndarray:
    """``SWEEP`` labelings of ``_blobs(n)``: its own labels, then 2 to 40 clusters."""
    labels = _blobs(n)[1]
    rng = np.random.default_rng(SEED + 1)
    rows = [labels]
    for k in np.linspace(2, 40, SWEEP - 1).astype(int):
        # a coarser or finer clustering: labels merged or split, some moved at random
        merged = labels * k // K + rng.integers(0, max(1, k // K), n)
        moved = rng.random(n) < 0.1
        rows.append(np.where(moved, rng.integers(0, k, n), merged % k))
    return np.stack(rows)


def _size(benchmark: Any, full: int, small: int) -> int:
    """The full size when timings are asked for; a small one when the case runs once."""
    return small if benchmark.disabled else full


@functools.cache
def _sklearn_silhouette(n: int, row: int = 0, metric: str = "euclidean") -> float:
    x, _ = _blobs(n)
    return float(skm.silhouette_score(x, _sweep(n)[row], metric=metric))


@pytest.mark.parametrize("impl", ["ours", "sklearn", "floor"])
def test_bench_silhouette(benchmark: Any, impl: str) -> None:
    n = _size(benchmark, SILHOUETTE_N, 2_000)
    x, labels = _blobs(n)
    benchmark.group = f"silhouette {n:.0e} x {D}, k={K}"
    benchmark.extra_info.update(metric="silhouette_score", size=f"{n:.0e}", impl=impl)
    if impl == "floor":
        benchmark(lambda: x @ x.T)
        return
    want = _sklearn_silhouette(n)
    if impl == "sklearn":
        got = benchmark.pedantic(skm.silhouette_score, args=(x, labels), rounds=1, iterations=1)
    else:
        assert fcm.silhouette_score(x, labels) == pytest.approx(want, rel=1e-10)
        got = benchmark(fcm.silhouette_score, x, labels)
    assert got == pytest.approx(want, rel=1e-10)


@pytest.mark.parametrize("impl", ["sweep", "one"])
def test_bench_silhouette_sweep(benchmark: Any, impl: str) -> None:
    n = _size(benchmark, SILHOUETTE_N, 2_000)
    x, labels = _blobs(n)
    sweep = _sweep(n)
    benchmark.group = f"silhouette sweep {SWEEP} labelings {n:.0e} x {D}"
    benchmark.extra_info.update(metric="silhouette_score", size=f"{n:.0e}", impl=impl)
    if impl == "one":
        assert fcm.silhouette_score(x, labels) == pytest.approx(_sklearn_silhouette(n), rel=1e-10)
        benchmark(fcm.silhouette_score, x, labels)
        return
    scores = fcm.silhouette_score(x, sweep)
    assert scores.shape == (SWEEP,)
    for row in (0, SWEEP // 2, SWEEP - 1):
        assert scores[row] == pytest.approx(_sklearn_silhouette(n, row), rel=1e-10)
    benchmark(fcm.silhouette_score, x, sweep)


@pytest.mark.parametrize("impl", ["ours", "floor"])
@pytest.mark.parametrize("metric", ["sqeuclidean", "cosine"])
def test_bench_silhouette_from_sums(benchmark: Any, metric: str, impl: str) -> None:
    n = _size(benchmark, WIDE_N, 5_000)
    x, labels = _blobs(n)
    benchmark.group = f"silhouette {metric} {n:.0e} x {D}"
    benchmark.extra_info.update(metric=f"silhouette {metric}", size=f"{n:.0e}", impl=impl)
    if impl == "floor":
        benchmark(x.sum)
        return
    head, head_labels = x[:CHECK_N], labels[:CHECK_N]
    assert fcm.silhouette_score(head, head_labels, metric=metric) == pytest.approx(
        skm.silhouette_score(head, head_labels, metric=metric), rel=1e-10
    )
    benchmark.pedantic(
        fcm.silhouette_score, args=(x, labels), kwargs={"metric": metric}, rounds=3, iterations=1
    )


@functools.cache
def _sklearn_dispersion(name: str, n: int) -> float:
    x, labels = _blobs(n)
    return float(getattr(skm, name)(x, labels))


@pytest.mark.parametrize("impl", ["ours", "sklearn", "floor"])
@pytest.mark.parametrize("name", ["calinski_harabasz_score", "davies_bouldin_score"])
def test_bench_dispersion(benchmark: Any, name: str, impl: str) -> None:
    n = _size(benchmark, DISPERSION_N, 20_000)
    x, labels = _blobs(n)
    benchmark.group = f"{name.rpartition('_score')[0]} {n:.0e} x {D}"
    benchmark.extra_info.update(metric=name, size=f"{n:.0e}", impl=impl)
    if impl == "floor":
        benchmark(x.sum)
        return
    want = _sklearn_dispersion(name, n)
    func = getattr(skm if impl == "sklearn" else fcm, name)
    assert func(x, labels) == pytest.approx(want, rel=1e-10)
    got = benchmark.pedantic(func, args=(x, labels), rounds=3, iterations=1)
    assert got == pytest.approx(want, rel=1e-10)
