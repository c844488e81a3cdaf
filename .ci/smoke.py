"""The smoke test of an installed wheel, on its own platform (emulated where it must be): a few
measures of each path a platform can break (byte order, 32-bit sizes, string hashing, the
embedding kernel), each against a plain-Python reference computed here, with nothing but
NumPy installed. Run by .github/workflows/release.yml after each wheel is built, and by
.ci/run on the Linux wheel.

    python .ci/smoke.py
"""

from __future__ import annotations

import math
import platform
import sys
from collections import Counter
from fractions import Fraction

import numpy as np

import fastcluster_metrics as fcm


def pairs(n: int) -> int:
    return n * (n - 1) // 2


def reference_ari(a: list[int], b: list[int]) -> Fraction:
    """Hubert and Arabie's ARI from the pair counts, in exact fractions."""
    cells = Counter(zip(a, b, strict=True))
    index = sum(pairs(c) for c in cells.values())
    rows = sum(pairs(c) for c in Counter(a).values())
    cols = sum(pairs(c) for c in Counter(b).values())
    expected = Fraction(rows * cols, pairs(len(a)))
    return (index - expected) / (Fraction(rows + cols, 2) - expected)


def reference_mi(a: list[int], b: list[int]) -> float:
    n = len(a)
    cells, rows, cols = Counter(zip(a, b, strict=True)), Counter(a), Counter(b)
    return sum(c / n * math.log(c * n / (rows[i] * cols[j])) for (i, j), c in cells.items())


def reference_silhouette(x: list[list[float]], labels: list[int]) -> float:
    def dist(p: list[float], q: list[float]) -> float:
        return math.sqrt(sum((u - v) ** 2 for u, v in zip(p, q, strict=True)))

    values = []
    for i, p in enumerate(x):
        by_label: dict[int, list[float]] = {}
        for j, q in enumerate(x):
            if j != i:
                by_label.setdefault(labels[j], []).append(dist(p, q))
        own = by_label.pop(labels[i], [])
        if not own:
            values.append(0.0)
            continue
        a = sum(own) / len(own)
        b = min(sum(d) / len(d) for d in by_label.values())
        values.append((b - a) / max(a, b))
    return sum(values) / len(values)


def main() -> None:
    rng = np.random.default_rng(20261202)
    n = 3000
    truth = rng.integers(0, 7, n)
    pred = (truth + (rng.random(n) < 0.3) * rng.integers(0, 5, n)) % 9
    a, b = truth.tolist(), pred.tolist()
    ari = float(reference_ari(a, b))
    found = {
        "int64": fcm.adjusted_rand_score(truth, pred),
        "big-endian int64": fcm.adjusted_rand_score(truth.astype(">i8"), pred.astype(">i4")),
        "uint8": fcm.adjusted_rand_score(truth.astype(np.uint8), pred.astype(np.uint8)),
        "str": fcm.adjusted_rand_score(truth.astype(str), [f"c{v}" for v in b]),
        "bytes": fcm.adjusted_rand_score(truth.astype("S3"), pred.astype("S3")),
        "list": fcm.adjusted_rand_score(a, b),
    }
    for what, value in found.items():
        assert abs(value - ari) <= 1e-12, (what, value, ari)
    mi = fcm.mutual_info_score(truth, pred)
    assert abs(mi - reference_mi(a, b)) <= 1e-12, (mi, reference_mi(a, b))
    table = fcm.contingency_matrix(truth, pred)
    for (i, j), c in Counter(zip(a, b, strict=True)).items():
        assert table[i, j] == c, (i, j, table[i, j], c)
    assert int(table.sum()) == n
    # a wide table (a packed 64-bit key per cell) and many labels (the size types)
    wide_a, wide_b = rng.integers(0, 40_000, 200_000), rng.integers(0, 40_000, 200_000)
    cells = Counter(zip(wide_a.tolist(), wide_b.tolist(), strict=True))
    wide_index = sum(pairs(c) for c in cells.values())
    assert fcm.pair_confusion_matrix(wide_a, wide_b)[1, 1] == 2 * wide_index
    # the embedding kernel: float64 and float32, against every pair's distance
    x = rng.normal(size=(120, 5)) + np.repeat(np.arange(4), 30)[:, None]
    labels = np.repeat(np.arange(4), 30)
    want = reference_silhouette(x.tolist(), labels.tolist())
    assert abs(fcm.silhouette_score(x, labels) - want) <= 1e-12
    assert abs(fcm.silhouette_score(x.astype(np.float32), labels) - want) <= 1e-5
    print(f"smoke test passed on {platform.machine()} ({sys.byteorder}-endian)")


if __name__ == "__main__":
    main()
