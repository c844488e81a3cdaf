"""Per-sample scores and element consistency: ours against adjusted_rand_score, the floor and
clusim in the same run.

Timing run:  pytest benches/test_bench_per_sample.py --benchmark-only --benchmark-json=ps.json
Report:      python benches/report.py ps.json

Groups:

- ``per-sample ECS n=1e7`` (``make_labels``, 20 x 30, int64): ``ARI`` (one counting pass),
  ``per_sample_score``, and ``floor``: the ARI call, then NumPy reading both label arrays
  again (a sum each) and filling a fresh float64 array of n. The per-sample call must count
  the table before it can hand out scores, so it reads the labels twice and writes n floats
  to fresh memory (which the kernel zeroes first); the floor moves the same bytes with no
  lookups (NumPy on one thread, ours on every core).
- ``per-sample ECS n=10000``: ours against clusim 0.4's ``element_sim_elscore``, which builds
  two dense n x n affinity matrices (1.6 GB at this size; 1e5 cells would need 160 GB).
- ``element_consistency``: 100 labelings of 1e6 cells (each a base partition of 20 classes
  with 10 % of its cells moved at random: 100 distinct partitions, 4,950 pairs), and the same
  100 as 10 distinct partitions repeated 10 times (merged first: 45 pairs). One round each.

Every case checks its value first: per-sample ECS against the element-centric similarity
(its mean), consistency against the mean of per-sample ECS over a few pairs.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pytest
from conftest import make_labels

import fastcluster_metrics as fcm

N = 10**7
SMALL = 10_000
M, R = 10**6, 100


@functools.cache
def _labels() -> tuple[np.ndarray, np.ndarray]:
    return make_labels(N)


@pytest.mark.parametrize("impl", ["ARI", "per_sample_score", "floor"])
def test_bench_per_sample(benchmark: Any, impl: str) -> None:
    t, p = _labels()
    benchmark.group = "per-sample ECS n=1e7"
    benchmark.extra_info.update(metric="per-sample ECS", size="1e7", impl=impl)
    if impl == "ARI":
        benchmark(fcm.adjusted_rand_score, t, p)
    elif impl == "per_sample_score":
        scores = fcm.per_sample_score(t, p)
        assert math.fsum(scores) / N == pytest.approx(fcm.element_centric_similarity(t, p))
        benchmark(fcm.per_sample_score, t, p)
    else:

        def floor() -> np.ndarray:
            fcm.adjusted_rand_score(t, p)
            t.sum(), p.sum()
            return np.full(N, 0.5)

        benchmark(floor)


@functools.cache
def _small() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    t = rng.integers(0, 8, SMALL)
    p = np.where(rng.random(SMALL) < 0.7, t, rng.integers(0, 12, SMALL))
    return t, p


@pytest.mark.parametrize("impl", ["ours", "clusim"])
def test_bench_per_sample_against_clusim(benchmark: Any, impl: str) -> None:
    t, p = _small()
    want = fcm.per_sample_score(t, p)
    benchmark.group = f"per-sample ECS n={SMALL}"
    benchmark.extra_info.update(metric="per-sample ECS", size=str(SMALL), impl=impl)
    if impl == "ours":
        benchmark(fcm.per_sample_score, t, p)
        return
    sim = pytest.importorskip("clusim.sim")
    from clusim.clustering import Clustering

    def clusim_scores() -> np.ndarray:
        a = Clustering().from_membership_list(t.tolist())
        b = Clustering().from_membership_list(p.tolist())
        scores, index = sim.element_sim_elscore(a, b)
        return np.array([scores[index[x]] for x in range(SMALL)])

    got = benchmark.pedantic(clusim_scores, rounds=1, iterations=1)
    np.testing.assert_allclose(got, want, atol=1e-12)


@functools.cache
def _runs() -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    base = rng.integers(0, 20, M)
    runs = []
    for _ in range(R):
        x = base.copy()
        moved = rng.random(M) < 0.1
        x[moved] = rng.integers(0, 25, int(moved.sum()))
        runs.append(x)
    return runs


@pytest.mark.parametrize("distinct", [R, 10])
def test_bench_element_consistency(benchmark: Any, distinct: int) -> None:
    runs = _runs()[:distinct]
    labelings = [runs[k % distinct] for k in range(R)]
    benchmark.group = f"element_consistency of {R} labelings n=1e6"
    info = {"metric": "element_consistency", "size": "1e6", "impl": f"{distinct} distinct"}
    benchmark.extra_info.update(info)
    got = benchmark.pedantic(fcm.element_consistency, args=(labelings,), rounds=1, iterations=1)
    # The pairs among the first three distinct partitions, and the weight of the copies.
    assert got.shape == (M,) and 0 < got.min() and got.max() <= 1
    if distinct == 10:
        copies = R // distinct
        pairs = [
            fcm.per_sample_score(runs[i], runs[j]) for i in range(10) for j in range(i + 1, 10)
        ]
        same = distinct * copies * (copies - 1) / 2
        want = (copies * copies * sum(pairs) + same) / (R * (R - 1) / 2)
        np.testing.assert_allclose(got, want, rtol=1e-12)
