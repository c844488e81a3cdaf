"""Two builds of fastcluster_metrics timed in one run: the cost of a change that should cost
nothing (a new check in a hot loop, a build profile), measured against the build before it.

Not a pytest module; run it by hand with each build installed in its own folder
(``pip wheel --no-deps -w W .`` at each commit, then ``pip install --no-deps --target DIR
W/*.whl``)::

    python benches/ab_builds.py --a /tmp/before --b /tmp/after            # n = 1e7
    python benches/ab_builds.py --a /tmp/before --b /tmp/after --n 1e6    # a quick check

Each measurement is a child process that puts one build first on ``sys.path``, makes its
inputs, runs a warm-up call and then times each case ``--repeat`` times (the minimum). The
children alternate a, b, a, b (``--rounds`` each), so both builds see the same machine over
the run; the report is each case's minimum over its rounds and the ratio b / a. Every child
also checks that the build it imported lives in the folder it was given.

Cases (20 classes x 30 clusters, correlated as in conftest.py, int64; ``sparse``: labels
drawn from n / 2 values each; ``spread``: the same spread over 1e10 values):

- ``ari``: ``adjusted_rand_score`` on the dense table (the counting pass);
- ``ari sparse``: the same on a sparse table of about n cells (the partitions of wide tables);
- ``ari spread``: the same with keys too spread for partitions (the hash map, the sort of
  its cells);
- ``ami``: ``adjusted_mutual_info_score`` (the expected mutual information as well);
- ``weights``: ARI with real sample weights (uniform on [0.5, 1.5));
- ``objects``: ARI of object arrays of str (33 x 60 names, at most 1e6 labels);
- ``small``: 1,000 calls of ARI on 100 labels (the cost of a call; the time is of all 1,000).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CASES = ("ari", "ari sparse", "ari spread", "ami", "weights", "objects", "small")


def _child(folder: str, n: int, repeat: int) -> dict[str, float]:
    sys.path.insert(0, folder)
    import numpy as np

    import fastcluster_metrics as fcm

    if not os.path.realpath(fcm.__file__).startswith(os.path.realpath(folder)):
        raise SystemExit(f"imported {fcm.__file__}, not the build in {folder}")
    rng = np.random.default_rng(0)
    t = rng.integers(0, 20, n)
    p = np.where(rng.random(n) < 0.7, (3 * t) // 2 + rng.integers(0, 2, n), rng.integers(0, 30, n))
    ts, ps = rng.integers(0, n // 2, n), rng.integers(0, n // 2, n)
    spread_t, spread_p = ts * 20011, ps * 20021
    m = min(n, 10**6)
    names_t = np.array([f"celltype_{i}" for i in range(33)], dtype=object)
    names_p = np.array([f"cluster_{i}" for i in range(60)], dtype=object)
    ot, op = names_t[rng.integers(0, 33, m)], names_p[rng.integers(0, 60, m)]
    st, sp = t[:100], p[:100]
    w = rng.random(n) + 0.5

    def small() -> None:
        for _ in range(1000):
            fcm.adjusted_rand_score(st, sp)

    calls = {
        "ari": lambda: fcm.adjusted_rand_score(t, p),
        "ari sparse": lambda: fcm.adjusted_rand_score(ts, ps),
        "ari spread": lambda: fcm.adjusted_rand_score(spread_t, spread_p),
        "ami": lambda: fcm.adjusted_mutual_info_score(t, p),
        "weights": lambda: fcm.adjusted_rand_score(t, p, sample_weight=w),
        "objects": lambda: fcm.adjusted_rand_score(ot, op),
        "small": small,
    }
    fcm.adjusted_rand_score(t[:1000], p[:1000])
    best = {}
    for name, call in calls.items():
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
        best[name] = min(times)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", required=True, help="the folder of the first build")
    parser.add_argument("--b", required=True, help="the folder of the second build")
    parser.add_argument("--n", type=float, default=1e7)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    n = int(args.n)
    if args.child:
        print(json.dumps(_child(args.child, n, args.repeat)))
        return
    best: dict[str, dict[str, float]] = {"a": {}, "b": {}}
    for _ in range(args.rounds):
        for build in ("a", "b"):
            folder = getattr(args, build)
            command = [sys.executable, __file__, "--a", args.a, "--b", args.b, "--n", str(n)]
            command += ["--repeat", str(args.repeat), "--child", folder]
            out = subprocess.run(
                command,
                capture_output=True,
                text=True,
                check=True,
            )
            for name, seconds in json.loads(out.stdout).items():
                best[build][name] = min(best[build].get(name, seconds), seconds)
    print(f"n = {n:.0e}, {args.rounds} rounds of {args.repeat} calls, minimum of each\n")
    print(f"| case | a: {args.a} | b: {args.b} | b / a |")
    print("| --- | ---: | ---: | ---: |")
    for name in CASES:
        a, b = best["a"][name], best["b"][name]
        print(f"| {name} | {_time(a)} | {_time(b)} | {b / a:.3f} |")


def _time(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} us"


if __name__ == "__main__":
    main()
