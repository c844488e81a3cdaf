"""scIB's scores over a neighbour graph: LISI, kBET and graph connectivity, ours against
scib-metrics (where installed) and the floor in the same run.

Timing run:  pytest benches/test_bench_graph.py --benchmark-only --benchmark-json=graph.json
Report:      python benches/report.py graph.json

The input is a random graph (``_graph``: 1e6 cells, 30 neighbours each, the cell itself first
at distance 0, the others uniform at random with float32 distances in [0, 1) sorted; 4
batches and 10 cell types drawn uniformly; a fixed seed), as scib-metrics'
``NeighborsResults`` holds it. A plain ``python -m pytest`` (benchmarks disabled) runs each
case once on 2e4 cells.

Groups, one per score (``lisi_knn`` of the batches, ``ilisi_knn``, ``clisi_knn``, ``kbet``,
``graph_connectivity``): ours, scib-metrics' and ``floor``: NumPy reading the graph's two
arrays once (``indices.sum()`` and ``distances.sum()``). Each case checks its value against
scib-metrics' (or, without it, against the other form of the graph) before it is timed.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import pytest

import fastcluster_metrics as fcm

SEED = 20_251_202
N = 10**6
SMALL = 20_000
K = 30

try:
    # umap, which scib-metrics imports, warns when TensorFlow is absent; pytest makes warnings
    # errors, and a collection error would stop the whole run.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import scib_metrics
        from scib_metrics.nearest_neighbors import NeighborsResults
except ImportError:  # pragma: no cover - scib-metrics is optional
    scib_metrics = None


class _Neighbors:
    """A NeighborsResults-like object, without scib-metrics."""

    def __init__(self, indices: np.ndarray, distances: np.ndarray) -> None:
        self.indices = indices
        self.distances = distances


@functools.cache
def _graph(n: int) -> tuple[Any, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    idx = rng.integers(0, n, (n, K), dtype=np.int64)
    idx[:, 0] = np.arange(n)
    dist = np.sort(rng.random((n, K), dtype=np.float32), axis=1)
    dist[:, 0] = 0
    batches = rng.integers(0, 4, n)
    labels = rng.integers(0, 10, n)
    holder = NeighborsResults if scib_metrics is not None else _Neighbors
    return holder(indices=idx, distances=dist), batches, labels


def _size(benchmark: Any) -> int:
    return SMALL if benchmark.disabled else N


def _ours(name: str) -> Any:
    return {
        "lisi_knn": lambda g, b, lab: fcm.lisi_knn(g, b),
        "ilisi_knn": lambda g, b, lab: fcm.ilisi_knn(g, b),
        "clisi_knn": lambda g, b, lab: fcm.clisi_knn(g, lab),
        "kbet": lambda g, b, lab: fcm.kbet(g, b)[0],
        "graph_connectivity": lambda g, b, lab: fcm.graph_connectivity(g, lab),
    }[name]


def _theirs(name: str) -> Any:
    assert scib_metrics is not None
    return {
        "lisi_knn": lambda g, b, lab: scib_metrics.lisi_knn(g, b),
        "ilisi_knn": lambda g, b, lab: scib_metrics.ilisi_knn(g, b),
        "clisi_knn": lambda g, b, lab: scib_metrics.clisi_knn(g, lab),
        "kbet": lambda g, b, lab: scib_metrics.kbet(g, b)[0],
        "graph_connectivity": lambda g, b, lab: scib_metrics.graph_connectivity(g, lab),
    }[name]


def _check(name: str, got: Any, graph: Any, batches: np.ndarray, labels: np.ndarray) -> None:
    if scib_metrics is not None:
        want = _theirs(name)(graph, batches, labels)
    else:  # the same graph as a tuple of arrays
        want = _ours(name)((graph.indices, graph.distances), batches, labels)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-3 if name == "kbet" else 1e-6)


NAMES = ["lisi_knn", "ilisi_knn", "clisi_knn", "kbet", "graph_connectivity"]


@pytest.mark.parametrize("impl", ["ours", "scib-metrics", "floor"])
@pytest.mark.parametrize("name", NAMES)
def test_bench_graph(benchmark: Any, name: str, impl: str) -> None:
    n = _size(benchmark)
    graph, batches, labels = _graph(n)
    benchmark.group = f"{name} {n:.0e} x {K}"
    benchmark.extra_info.update(metric=name, size=f"{n:.0e}", impl=impl)
    if impl == "floor":
        benchmark(lambda: (graph.indices.sum(), graph.distances.sum()))
        return
    if impl == "scib-metrics":
        if scib_metrics is None:
            pytest.skip("scib-metrics is not installed")
        f = _theirs(name)
        f(graph, batches, labels)  # compiled once (JAX) before it is timed
        benchmark.pedantic(f, args=(graph, batches, labels), rounds=1, iterations=1)
        return
    f = _ours(name)
    got = f(graph, batches, labels)
    _check(name, got, graph, batches, labels)
    benchmark.pedantic(f, args=(graph, batches, labels), rounds=3, iterations=1)
