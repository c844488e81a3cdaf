"""Tables with many cells: ``adjusted_rand_score`` on int64 labels whose table is
far too wide for a dense window, ours against the floor, genieclust and scikit-learn.

Shapes (``tests/test_wide_tables.py`` checks their cells against ``np.unique``):

- ``random 50x2e5``: 50 classes, 200,000 clusters, uniformly at random;
- ``metacells``: 130,000 clusters, each within one of 33 cell types, 5 % of samples noise;
- ``fine 2e4x2e4``: two unrelated fine clusterings of 20,000 clusters each;
- ``sparse 1e6x1e6``: a million labels a side.

Cases: ``ours``; ``floor`` (NumPy reading both arrays once, ``np.add.reduce``); ``genieclust``
(``compare_partitions.adjusted_rand_score``, a dense table: it refuses the two widest
shapes, whose dense tables would be 3.2 GB and 8 TB); ``sklearn`` (at 1e6 only, unless
``FCM_BENCH_FULL=1``: about 12 s a call at 1e7). Each case checks its value against ours.

Sizes 1e6 and 1e7; 1e8 with ``FCM_BENCH_FULL=1`` (ours and the floor). Peak memory is
measured by ``python benches/test_bench_wide.py``, a child process a shape: the largest
resident set above the inputs', against the final table (16 bytes a cell).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import sklearn.metrics as skm

import fastcluster_metrics as fcm

try:
    import genieclust
except ImportError:  # a peer, compared where installed
    genieclust = None

FULL = os.environ.get("FCM_BENCH_FULL", "") not in ("", "0")
SHAPES = ["random 50x2e5", "metacells", "fine 2e4x2e4", "sparse 1e6x1e6"]
SIZES = [10**6, 10**7] + ([10**8] if FULL else [])
GENIECLUST_SHAPES = {"random 50x2e5", "metacells"}


def make(shape: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(24)
    if shape == "random 50x2e5":
        return rng.integers(0, 50, n), rng.integers(0, 200_000, n)
    if shape == "metacells":
        p = rng.integers(0, 130_000, n)
        t = rng.integers(0, 33, 130_000)[p]
        noise = rng.random(n) < 0.05
        t[noise] = rng.integers(0, 33, int(noise.sum()))
        return t, p
    if shape == "fine 2e4x2e4":
        return rng.integers(0, 20_000, n), rng.integers(0, 20_000, n)
    return rng.integers(0, 1_000_000, n), rng.integers(0, 1_000_000, n)


_CACHE: dict[tuple[str, int], tuple[np.ndarray, np.ndarray, float]] = {}


def labels(shape: str, n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """The shape's labels at ``n`` and our ARI on them, made once per session."""
    if (shape, n) not in _CACHE:
        _CACHE.clear()  # one shape's labels at a time: 1.6 GB at 1e8
        t, p = make(shape, n)
        _CACHE[(shape, n)] = (t, p, fcm.adjusted_rand_score(t, p))
    return _CACHE[(shape, n)]


def _floor(t: np.ndarray, p: np.ndarray) -> int:
    return int(np.add.reduce(t)) + int(np.add.reduce(p))


@pytest.mark.parametrize("case", ["floor", "ours", "genieclust", "sklearn"])
@pytest.mark.parametrize("n", SIZES, ids=lambda n: f"{n:.0e}")
@pytest.mark.parametrize("shape", SHAPES)
def test_wide(benchmark, case, shape, n):
    benchmark.group = f"ARI {shape}, n={n:.0e}"
    if case == "genieclust" and (genieclust is None or shape not in GENIECLUST_SHAPES):
        pytest.skip("genieclust is not installed, or refuses this table (too large dense)")
    if case == "genieclust" and n > 10**7:
        pytest.skip("genieclust's dense table at 1e8: measured to 1e7")
    if case == "sklearn" and n > 10**6 and not FULL:
        pytest.skip("scikit-learn takes about 12 s a call at 1e7: needs FCM_BENCH_FULL=1")
    t, p, ours = labels(shape, n)
    if case == "floor":
        assert benchmark(_floor, t, p) == int(t.sum()) + int(p.sum())
        return
    func = {
        "ours": fcm.adjusted_rand_score,
        "genieclust": genieclust and genieclust.compare_partitions.adjusted_rand_score,
        "sklearn": skm.adjusted_rand_score,
    }[case]
    # The floor's minimum is over as many rounds as fit a second; ours and genieclust's over
    # ten (three of scikit-learn's, a second or more each), one at 1e8.
    rounds = 1 if n > 10**7 else 3 if case == "sklearn" else 10
    value = benchmark.pedantic(func, (t, p), rounds=rounds, iterations=1)
    assert value == pytest.approx(ours, rel=1e-9, abs=1e-14)


def _peak(shape: str, n: int) -> dict[str, float]:
    """Our call's peak resident memory above the inputs', in a child process, in MiB."""
    script = f"""
import json, resource, sys
sys.path.insert(0, {os.path.dirname(__file__)!r})
from test_bench_wide import make
import fastcluster_metrics as fcm
t, p = make({shape!r}, {n})
del make
rss = lambda key: int(next(x for x in open("/proc/self/status") if x.startswith(key)).split()[1])
before = rss("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # resets the peak (VmHWM) to the resident set now
fcm.adjusted_rand_score(t, p)
extra = rss("VmHWM:") - before
cells = fcm.Contingency.from_labels(t, p).nnz
print(json.dumps({{"extra": extra / 1024, "table": cells * 16 / 2**20}}))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


if __name__ == "__main__":
    for shape in SHAPES:
        got = _peak(shape, 10**7)
        limit = 1.5 * got["table"] + 64
        print(
            f"{shape}: peak extra {got['extra']:.0f} MiB, table {got['table']:.0f} MiB, "
            f"goal <= {limit:.0f} MiB"
        )
    print("(the child's peak resident set above its resident set before the call; n = 1e7)")
