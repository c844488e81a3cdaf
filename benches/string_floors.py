"""String labels against their read floors (one run, one table).

`adjusted_rand_score` on 33 cell-type names x 60 cluster names (the labels of
test_bench_label_types.py), both labelings held as the same type, at n = 1e6 and 1e7. Each
row times ours and, in the same run, two floors:

- the issue's floor: `np.add.reduce` over both `U` arrays viewed as uint32; over the offsets
  and data buffers of both Arrow arrays (for polars, those of `to_arrow()`); for object
  arrays, `pandas.factorize` of one of the two columns;
- a stricter floor: `np.bitwise_or.reduce` over the same bytes (SIMD, no widening), for the
  types whose bytes can be read.

    python benches/string_floors.py            # about a minute
    PYTHONPATH=<other build>/python python benches/string_floors.py   # the same, another build
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa

import fastcluster_metrics as fcm

NAMES = np.array([f"celltype_{i:02d}" for i in range(33)])
CLUSTERS = np.array([str(i) for i in range(60)])


def codes(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    true = rng.integers(0, 33, n).astype(np.int8)
    pred = np.where(rng.random(n) < 0.7, (true.astype(np.int64) * 60) // 33, rng.integers(0, 60, n))
    return true, pred.astype(np.int8)


def best(f: Callable[[], Any], rounds: int = 21) -> float:
    """The fastest of `rounds` calls, in ms."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


def rows(n: int) -> list[tuple[str, float, float, float | None]]:
    """(input, ours, the issue's floor, the stricter floor) in ms."""
    t, p = codes(n)
    want = fcm.adjusted_rand_score(t, p)
    a, b = NAMES[t], CLUSTERS[p]
    oa, ob = a.astype(object), b.astype(object)
    sa, sb = pa.array(a), pa.array(b)
    la, lb = pl.Series(a), pl.Series(b)

    def buffers(*arrays: Any) -> list[np.ndarray]:
        chunks = [c for arr in arrays for c in getattr(arr, "chunks", [arr])]
        return [np.frombuffer(buf, np.uint8) for c in chunks for buf in c.buffers()[1:]]

    arrow, polars = buffers(sa, sb), buffers(la.to_arrow(), lb.to_arrow())
    out = []
    for name, first, second, issue, strict in (
        (
            "numpy `U`",
            a,
            b,
            lambda: (np.add.reduce(a.view(np.uint32)), np.add.reduce(b.view(np.uint32))),
            lambda: [np.bitwise_or.reduce(x.view(np.uint8)) for x in (a, b)],
        ),
        ("object `str`", oa, ob, lambda: pd.factorize(oa), None),
        (
            "Arrow `string`",
            sa,
            sb,
            lambda: [np.add.reduce(x) for x in arrow],
            lambda: [np.bitwise_or.reduce(x) for x in arrow],
        ),
        (
            "polars `String`",
            la,
            lb,
            lambda: [np.add.reduce(x) for x in polars],
            lambda: [np.bitwise_or.reduce(x) for x in polars],
        ),
    ):
        assert fcm.adjusted_rand_score(first, second) == want
        ours = best(lambda x=first, y=second: fcm.adjusted_rand_score(x, y))
        out.append((name, ours, best(issue), best(strict) if strict else None))
    return out


def main() -> None:
    print(f"{fcm.num_threads()} threads")
    print("| input | n | ours | issue's floor | ours/floor | stricter floor | ours/stricter |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for n, size in ((1_000_000, "1e6"), (10_000_000, "1e7")):
        for name, ours, issue, strict in rows(n):
            tight = f"{strict:.2f} ms | {ours / strict:.2f}x" if strict else "- | -"
            cells = f"{ours:.2f} ms | {issue:.2f} ms | {ours / issue:.2f}x | {tight}"
            print(f"| {name} | {size} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
