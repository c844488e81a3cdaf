"""The standardized mutual information at a million and ten million labels, against the
adjusted mutual information of the same labels (the same table and expected mutual
information, without the variance).

Timing run:  pytest benches/test_bench_standardized.py --benchmark-only --benchmark-json=smi.json

Groups ``SMI 33x60, n=1e6``, ``SMI 33x60, n=1e7`` and ``SMI 33x20000, n=1e6``: 33 cell types of
unequal sizes (Dirichlet) against 60 or 20,000 clusters, a few samples copied from their type
so that the value is a few standard deviations (as ``smi_against_fastami.py``). Cases: ``SMI``
(``standardized_mutual_info_score`` from the labels) and ``AMI``
(``adjusted_mutual_info_score``). SMI is checked first against the labelings swapped, whose
variance is taken with rows and columns exchanged (1e-12 relative).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import fastcluster_metrics as fcm

SHAPES = {
    "33x60, n=1e6": (10**6, 60),
    "33x60, n=1e7": (10**7, 60),
    "33x20000, n=1e6": (10**6, 20_000),
}


@functools.cache
def _labels(shape: str) -> tuple[np.ndarray, np.ndarray]:
    n, k = SHAPES[shape]
    rng = np.random.default_rng(20)
    truth = rng.choice(33, n, p=rng.dirichlet(np.full(33, 2.0)))
    pred = rng.integers(0, k, n)
    copied = rng.random(n) < 3 / np.sqrt(n)
    return truth, np.where(copied, truth * 7 % k, pred)


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("case", ["SMI", "AMI"])
def test_standardized_mutual_information(benchmark, case, shape):
    truth, pred = _labels(shape)
    benchmark.group = f"SMI {shape}"
    if case == "AMI":
        benchmark.pedantic(fcm.adjusted_mutual_info_score, args=(truth, pred), rounds=5)
        return
    value = fcm.standardized_mutual_info_score(truth, pred)
    swapped = fcm.standardized_mutual_info_score(pred, truth)
    assert value == pytest.approx(swapped, rel=1e-12)
    assert np.isfinite(value) and value > 1
    benchmark.pedantic(fcm.standardized_mutual_info_score, args=(truth, pred), rounds=3)
