"""Each path's peak memory above its inputs: how much a call needs beyond the labels it is
given, as a Markdown table.

    python benches/memory.py                 # n = 1e7, every path
    python benches/memory.py --n 1e6 --cases "dense ARI,hash ARI"

Each case runs in a child process (Linux: ``/proc``): it builds its inputs, makes the call
once (the thread pool and the allocator's arenas started), resets its peak RSS
(``/proc/self/clear_refs``), reads its RSS, makes the call again and reads its peak RSS
(``VmHWM``). The difference is what the call needed above the inputs, the pool and what the
first call left cached. The inputs' size is reported beside it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASES = {
    # name: (what the inputs are, the setup, the call)
    "dense ARI": (
        "20 x 30 int64 labels",
        "t = rng.integers(0, 20, n); p = rng.integers(0, 30, n)",
        "fcm.adjusted_rand_score(t, p)",
    ),
    "singletons ARI": (
        "20 classes against a permutation of arange(n)",
        "t = rng.integers(0, 20, n); p = rng.permutation(n)",
        "fcm.adjusted_rand_score(t, p)",
    ),
    "wide ARI": (
        "int32 labels, 1e6 a side (partitions)",
        "t = rng.integers(0, 10**6, n, dtype=np.int32);"
        " p = rng.integers(0, 10**6, n, dtype=np.int32)",
        "fcm.adjusted_rand_score(t, p)",
    ),
    "wide AMI": (
        "the same (the cells' table built)",
        "t = rng.integers(0, 10**6, n, dtype=np.int32);"
        " p = rng.integers(0, 10**6, n, dtype=np.int32)",
        "fcm.adjusted_mutual_info_score(t, p)",
    ),
    "hash ARI": (
        "int64 labels spread over 1e12 (hash maps, spills, sort)",
        "t = rng.integers(0, 10**12, n); p = rng.integers(0, 10**12, n)",
        "fcm.adjusted_rand_score(t, p)",
    ),
    "hash ARI repeats": (
        "int64 labels spread over 1e12, n / 8 distinct pairs",
        "k = rng.integers(0, n // 8, n); t = rng.integers(0, 10**12, n // 8)[k];"
        " p = rng.integers(0, 10**12, n // 8)[k]; del k",
        "fcm.adjusted_rand_score(t, p)",
    ),
    "real weights ARI": (
        "20 x 30 int64 labels, float64 weights",
        "t = rng.integers(0, 20, n); p = rng.integers(0, 30, n); w = rng.random(n) + 0.5",
        "fcm.adjusted_rand_score(t, p, sample_weight=w)",
    ),
    "object strings ARI": (
        "n / 10 distinct Python str against 50 int64 labels",
        "t = np.array([f'cell_{i % (n // 10)}' for i in range(n)], dtype=object);"
        " p = rng.integers(0, 50, n)",
        "fcm.adjusted_rand_score(t, p)",
    ),
    "sparse matrix": (
        "20 x 30 int64 labels, contingency_matrix(sparse=True)",
        "t = rng.integers(0, 20, n); p = rng.integers(0, 30, n)",
        "fcm.contingency_matrix(t, p, sparse=True)",
    ),
    "SMI": (
        "33 x 60 int64 labels",
        "t = rng.integers(0, 33, n); p = rng.integers(0, 60, n)",
        "fcm.standardized_mutual_info_score(t, p)",
    ),
}

CHILD = """
import json, sys, time
import numpy as np
import fastcluster_metrics as fcm

def status(field):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(field + ":")) / 1024

n = int(float(sys.argv[1]))
rng = np.random.default_rng(0)
{setup}
inputs = sum(getattr(v, "nbytes", 0) for v in list(globals().values())
             if isinstance(v, np.ndarray)) / 2**20
if any(isinstance(v, np.ndarray) and v.dtype == object for v in list(globals().values())):
    inputs += sum(sys.getsizeof(s) for s in t) / 2**20
{call}
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = status("VmRSS")
start = time.perf_counter()
{call}
seconds = time.perf_counter() - start
print(json.dumps({{"extra": status("VmHWM") - before, "inputs": inputs, "seconds": seconds}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="1e7")
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    print(f"n = {args.n}; peak RSS above the RSS before the second call, in MiB")
    print("| path | inputs | input MiB | extra MiB | extra / inputs | seconds |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for name in args.cases.split(","):
        what, setup, call = CASES[name]
        code = CHILD.format(setup=setup, call=call)
        done = subprocess.run(
            [sys.executable, "-c", code, args.n], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            print(f"| {name} | failed: {done.stderr.strip().splitlines()[-1]} |")
            continue
        r = json.loads(done.stdout)
        ratio = r["extra"] / r["inputs"]
        print(
            f"| {name} | {what} | {r['inputs']:,.0f} | {r['extra']:,.1f} | {ratio:.2f} |"
            f" {r['seconds']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
