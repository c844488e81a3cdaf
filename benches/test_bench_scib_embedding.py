"""scIB's silhouette scores of an embedding, ours against scib-metrics in the same run.

Timing run:  pytest benches/test_bench_scib_embedding.py --benchmark-only --benchmark-json=s.json
Report:      python benches/report.py s.json

The input: 20 cell types (Gaussian blobs in 50 dimensions) over 4 batches, each batch
shifted a little, float32 (scib-metrics computes in float32). Groups, at 2e4 cells:

- ``silhouette_label``, ``silhouette_batch``, ``bras`` (cosine, ``mean_other``) and
  ``isolated_labels``: ours and scib-metrics' (JAX on the CPU; its first call, which
  compiles, is left out of the timing).

Each case checks its value against scib-metrics' (1e-5 relative) before it is timed. A plain
``python -m pytest`` (benchmarks disabled) runs ours once on 1,000 cells and leaves
scib-metrics out: its JAX code compiles anew for each cell type's size, a minute in all
(``tests/test_scib_silhouette.py`` holds ours to it).
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import pytest

import fastcluster_metrics as fcm

SEED = 20_261_201
N = 20_000
D = 50
TYPES = 20
BATCHES = 4
FUNCTIONS = ("silhouette_label", "silhouette_batch", "bras", "isolated_labels")

try:
    # umap, which scib-metrics imports, warns when TensorFlow is absent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import scib_metrics
except ImportError:  # pragma: no cover - scib-metrics is optional
    scib_metrics = None


@functools.cache
def _cells(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    labels = rng.integers(0, TYPES, n)
    batch = rng.integers(0, BATCHES, n)
    # one cell type in one batch only: an isolated label
    batch[labels == 0] = 0
    centres = rng.normal(0, 2, (TYPES, D))
    shifts = rng.normal(0, 0.5, (BATCHES, D))
    x = (centres[labels] + shifts[batch] + rng.normal(0, 1, (n, D))).astype(np.float32)
    return x, labels, batch


def _args(name: str, n: int) -> tuple[Any, ...]:
    x, labels, batch = _cells(n)
    return (x, labels) if name == "silhouette_label" else (x, labels, batch)


def _quiet(f: Any) -> Any:
    def call(*args: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f(*args)

    return call


@pytest.mark.parametrize("impl", ["ours", "scib-metrics"])
@pytest.mark.parametrize("name", FUNCTIONS)
def test_bench_scib_silhouettes(benchmark: Any, name: str, impl: str) -> None:
    n = 1_000 if benchmark.disabled else N
    args = _args(name, n)
    benchmark.group = f"{name} {n:.0e} x {D}, float32"
    benchmark.extra_info.update(metric=name, size=f"{n:.0e}", impl=impl)
    ours = getattr(fcm, name)
    if scib_metrics is None or benchmark.disabled:
        if impl != "ours":
            pytest.skip("scib-metrics: timed runs only, and where it is installed")
        assert 0.0 <= benchmark(ours, *args) <= 1.0
        return
    theirs = _quiet(getattr(scib_metrics, name))
    want = float(theirs(*args))  # also compiles scib-metrics' JAX code before the timing
    assert ours(*args) == pytest.approx(want, rel=1e-5)
    got = benchmark(ours if impl == "ours" else theirs, *args)
    assert float(got) == pytest.approx(want, rel=1e-5)
