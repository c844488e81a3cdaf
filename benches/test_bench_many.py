"""compare_many (one string truth, R = 10 integer predictions, n = 1e6) against R separate calls
of ours and against a loop of scikit-learn calls, all computing adjusted_rand_score.

Timing run:  pytest benches/test_bench_many.py --benchmark-only --benchmark-json=many.json
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import cluster as sk

import fastcluster_metrics as fcm

N, R = 1_000_000, 10


@functools.cache
def inputs() -> tuple[np.ndarray, np.ndarray, list[float]]:
    rng = np.random.default_rng(21)
    codes = rng.integers(0, 33, N)
    truth = np.array([f"celltype_{i:02d}" for i in range(33)])[codes]
    preds = np.column_stack(
        [np.where(rng.random(N) < 0.05 * k, rng.integers(0, 60, N), codes) for k in range(R)]
    )
    want = [fcm.adjusted_rand_score(codes, preds[:, k]) for k in range(R)]
    return truth, preds, want


def many(truth: np.ndarray, preds: np.ndarray) -> list[float]:
    out = fcm.compare_many(truth, preds, metrics=["adjusted_rand_score"])
    return [float(x) for x in out["adjusted_rand_score"]]


def separate(truth: np.ndarray, preds: np.ndarray) -> list[float]:
    return [fcm.adjusted_rand_score(truth, preds[:, k]) for k in range(preds.shape[1])]


def sklearn_loop(truth: np.ndarray, preds: np.ndarray) -> list[float]:
    return [sk.adjusted_rand_score(truth, preds[:, k]) for k in range(preds.shape[1])]


@pytest.mark.parametrize("impl", ["compare_many", "separate calls", "sklearn loop"])
def test_bench_compare_many(benchmark: Any, impl: str) -> None:
    truth, preds, want = inputs()
    benchmark.group = f"ARI of one str truth against {R} predictions n=1e6"
    benchmark.extra_info.update(metric="compare_many ARI", size="1e6", impl=impl)
    if impl == "sklearn loop":
        got = benchmark.pedantic(sklearn_loop, args=(truth, preds), rounds=1, iterations=1)
        assert got == pytest.approx(want, rel=1e-10)
        return
    f = many if impl == "compare_many" else separate
    assert f(truth, preds) == pytest.approx(want, rel=1e-12)
    benchmark(f, truth, preds)
