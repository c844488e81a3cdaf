"""The reduced mutual information at n = 1e6 against the authors' package clustering-mi (its C++
core), on a 20 x 30 and a 33 x 2,000 table; the goal is 100x scikit-learn on 33 x 2,000.

Timing run:  pytest benches/test_bench_reduced.py --benchmark-only --benchmark-json=rmi.json

Groups ``RMI 20x30`` and ``RMI 33x2000``: ``ours`` (``reduced_mutual_info_score`` from the
labels: counting and the measure), ``ours, table`` (the measure of a counted
:class:`Contingency`) and ``clustering-mi`` (``normalized_mutual_info_score(labels_pred,
labels_true)``, which counts its own table). Each checks its value against the other first.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import fastcluster_metrics as fcm

cmi = pytest.importorskip("clustering_mi")

N = 10**6


@functools.cache
def _labels(shape: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    rows, cols = (20, 30) if shape == "20x30" else (33, 2000)
    truth = rng.integers(0, rows, N)
    pred = np.where(rng.random(N) < 0.5, truth * 61 % cols, rng.integers(0, cols, N))
    return truth, pred


@pytest.mark.parametrize("shape", ["20x30", "33x2000"])
@pytest.mark.parametrize("case", ["ours", "ours, table", "clustering-mi"])
def test_reduced_mutual_information(benchmark, case, shape):
    truth, pred = _labels(shape)
    benchmark.group = f"RMI {shape}"
    want = float(cmi.normalized_mutual_information(pred, truth))
    if case == "clustering-mi":
        got = benchmark.pedantic(cmi.normalized_mutual_information, args=(pred, truth), rounds=3)
        assert got == want
        return
    assert abs(fcm.reduced_mutual_info_score(truth, pred) - want) <= 1e-10
    if case == "ours":
        benchmark(fcm.reduced_mutual_info_score, truth, pred)
    else:
        table = fcm.Contingency.from_labels(truth, pred)
        benchmark(table.reduced_mutual_info_score)
