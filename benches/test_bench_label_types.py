"""Label types users hold (issue: every label type, hashed in Rust), ours against scikit-learn.

One group per input type and size ("adjusted_rand_score <type> n=<size>"): 33 cell-type names
as the truth and 60 clusters as the prediction, both held as the same type, given to ours and to
scikit-learn alike; the floor reads the inputs' integer codes once (Categorical-like types) or
their bytes once (numpy strings; Arrow strings: their offsets and data buffers) with
`np.bitwise_or.reduce`, which unlike `np.add.reduce`
keeps narrow integers narrow, so the floor is not slowed by widening. Each case checks its
score against the integer-coded score first (the scores do not depend on the label type).

Timing run:  pytest benches/test_bench_label_types.py --benchmark-only --benchmark-json=types.json
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from sklearn.metrics import cluster as sk

import fastcluster_metrics as fcm

FULL = os.environ.get("FCM_BENCH_FULL", "") not in ("", "0")
SIZES = {"1e6": 1_000_000, "1e7": 10_000_000}
TYPES = (
    "object str",
    "U str",
    "Arrow string",
    "polars String",
    "pandas Categorical",
    "polars Categorical",
    "Arrow dictionary",
)
NAMES = np.array([f"celltype_{i:02d}" for i in range(33)])
CLUSTERS = np.array([str(i) for i in range(60)])


@functools.cache
def codes(size: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    n = SIZES[size]
    true = rng.integers(0, 33, n).astype(np.int8)
    pred = np.where(rng.random(n) < 0.7, (true.astype(np.int64) * 60) // 33, rng.integers(0, 60, n))
    return true, pred.astype(np.int8)


@functools.cache
def inputs(kind: str, size: str) -> tuple[Any, Any, Callable[[], Any]]:
    """(labels_true, labels_pred, floor) for one input type."""
    t, p = codes(size)
    if kind in ("object str", "U str"):
        a, b = NAMES[t], CLUSTERS[p]
        if kind == "object str":
            a, b = a.astype(object), b.astype(object)
            return a, b, lambda: None  # no meaningful floor for Python objects
        return (
            a,
            b,
            lambda: (
                np.bitwise_or.reduce(a.view(np.uint8)),
                np.bitwise_or.reduce(b.view(np.uint8)),
            ),
        )
    if kind in ("Arrow string", "polars String"):
        sa, sb = pa.array(NAMES[t]), pa.array(CLUSTERS[p])
        if kind == "polars String":
            a, b = pl.Series(NAMES[t]), pl.Series(CLUSTERS[p])
            sa, sb = a.to_arrow(), b.to_arrow()
        else:
            a, b = sa, sb
        chunks = [c for arr in (sa, sb) for c in getattr(arr, "chunks", [arr])]
        parts = [np.frombuffer(buf, dtype=np.uint8) for c in chunks for buf in c.buffers()[1:]]
        return a, b, lambda: [np.bitwise_or.reduce(part) for part in parts]
    if kind == "pandas Categorical":
        a = pd.Categorical.from_codes(t, categories=NAMES)
        b = pd.Categorical.from_codes(p, categories=CLUSTERS)
        return a, b, lambda: (np.bitwise_or.reduce(a.codes), np.bitwise_or.reduce(b.codes))
    if kind == "polars Categorical":
        a = pl.Series(NAMES[t]).cast(pl.Categorical)
        b = pl.Series(CLUSTERS[p]).cast(pl.Categorical)
        ca, cb = a.to_physical().to_numpy(), b.to_physical().to_numpy()
        return a, b, lambda: (np.bitwise_or.reduce(ca), np.bitwise_or.reduce(cb))
    a = pa.DictionaryArray.from_arrays(pa.array(t), pa.array(NAMES))
    b = pa.DictionaryArray.from_arrays(pa.array(p), pa.array(CLUSTERS))
    ia, ib = a.indices.to_numpy(), b.indices.to_numpy()
    return a, b, lambda: (np.bitwise_or.reduce(ia), np.bitwise_or.reduce(ib))


def cases() -> list[Any]:
    out = []
    for size in SIZES:
        for kind in TYPES:
            for impl in ("ours", "sklearn", "floor"):
                marks = []
                if impl == "sklearn" and size == "1e7" and not FULL:
                    marks.append(pytest.mark.skip(reason="needs FCM_BENCH_FULL=1"))
                if impl == "floor" and kind == "object str":
                    continue
                out.append(pytest.param(kind, size, impl, marks=marks, id=f"{kind}-{size}-{impl}"))
    return out


@pytest.mark.parametrize(("kind", "size", "impl"), cases())
def test_bench_label_type(benchmark: Any, kind: str, size: str, impl: str) -> None:
    true, pred, floor = inputs(kind, size)
    want = fcm.adjusted_rand_score(*codes(size))
    benchmark.group = f"adjusted_rand_score {kind} n={size}"
    benchmark.extra_info.update(metric=f"ARI {kind}", size=size, impl=impl)
    if impl == "ours":
        assert fcm.adjusted_rand_score(true, pred) == pytest.approx(want, rel=1e-12)
        benchmark(fcm.adjusted_rand_score, true, pred)
    elif impl == "floor":
        assert floor() is not None
        benchmark(floor)
    else:
        got = benchmark.pedantic(sk.adjusted_rand_score, args=(true, pred), rounds=1, iterations=1)
        assert got == pytest.approx(want, rel=1e-10)
