"""The speed-up of fastcluster_metrics' main paths with threads: each case timed at 1, 2, 4, ...
threads, up to the machine's usable cores, and reported as the time at k threads and t1 / tk.

Not a pytest module; run it by hand on the machine to report (a release build, as for every
timing; only NumPy and fastcluster_metrics are needed)::

    python benches/threads.py                                   # n = 1e7, 1, 2, 4, ... cores
    python benches/threads.py --threads 1,2,4,8,16 --json threads.json
    python benches/threads.py --n 1e6 --rounds 1 --repeat 2     # a quick check
    python benches/threads.py --cases "dense ARI,hash,SMI"      # a subset

Each measurement is a child process started with ``FASTCLUSTER_METRICS_NUM_THREADS=k``; it
checks that ``fcm.num_threads()`` is k, makes its inputs with fixed seeds, makes one warm-up
call (dense ARI, which starts the thread pool) and then times each case ``--repeat`` times
(the minimum). The parent runs the thread counts in turn, 1, 2, 4, ..., 1, 2, 4, ...
(``--rounds`` rounds), so every count sees the same machine over the run, and reports each
case's minimum over its rounds. Every child also returns each case's result: the results
must be the same, to the last bit, at every thread count, and the report says whether they
are. Progress goes to stderr; ``--json PATH`` writes every figure.

Cases (n int64 labels, 20 classes x 30 clusters, 70 % of each class in a matching cluster, as
in conftest.py, unless said):

- ``dense ARI``: ``adjusted_rand_score`` on the dense table (the counting pass);
- ``AMI``: ``adjusted_mutual_info_score`` (the expected mutual information as well);
- ``wide``: ARI of labels drawn from n / 2 values each, a table of about n cells (partitions);
- ``hash``: the same labels spread (times 20011 and 20021, as ``ab_builds.py``'s ``spread``:
  about 1e11 values a side at 1e7), too far apart for partitions (the hash map);
- ``strings``: ARI of object arrays of str, 33 cell-type names x 60 cluster names (at most
  1e7 labels);
- ``weights``: ARI with a real ``sample_weight`` (uniform on [0.5, 1.5));
- ``SMI``: ``standardized_mutual_info_score`` on a 33 x 60 table at ``--smi-n`` labels
  (1e6; about 4 s a call on one thread, so that n is its own);
- ``stream``: a ``ContingencyAccumulator`` updated with 10 chunks of n / 10 labels, then
  ``.table.adjusted_rand_score()``;
- ``evaluate``: ``evaluate(t, p)``, the default measures.

Name the machine beside its figures (the script prints its CPU model, its cores and the cores
this process may use) and the command that made them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

CASES = (
    "dense ARI",
    "AMI",
    "wide",
    "hash",
    "strings",
    "weights",
    "SMI",
    "stream",
    "evaluate",
)
STRINGS_MAX = 10**7
SLOW_CALL = 10.0


def _inputs(n: int) -> tuple[Any, Any]:
    import numpy as np

    rng = np.random.default_rng(0)
    t = rng.integers(0, 20, n)
    p = np.where(rng.random(n) < 0.7, (3 * t) // 2 + rng.integers(0, 2, n), rng.integers(0, 30, n))
    return t, p


def _call(name: str, t: Any, p: Any, smi_n: int) -> Callable[[], Any]:
    """The call of one case, on t and p or on inputs made with a seed of the case's own."""
    import numpy as np

    import fastcluster_metrics as fcm

    n = len(t)
    rng = np.random.default_rng(1 + CASES.index(name))
    if name == "dense ARI":
        return lambda: fcm.adjusted_rand_score(t, p)
    if name == "AMI":
        return lambda: fcm.adjusted_mutual_info_score(t, p)
    if name in ("wide", "hash"):
        wt, wp = rng.integers(0, max(n // 2, 1), n), rng.integers(0, max(n // 2, 1), n)
        if name == "hash":
            wt, wp = wt * 20011, wp * 20021
        return lambda: fcm.adjusted_rand_score(wt, wp)
    if name == "strings":
        m = min(n, STRINGS_MAX)
        names_t = np.array([f"celltype_{i}" for i in range(33)], dtype=object)
        names_p = np.array([f"cluster_{i}" for i in range(60)], dtype=object)
        ot, op = names_t[rng.integers(0, 33, m)], names_p[rng.integers(0, 60, m)]
        return lambda: fcm.adjusted_rand_score(ot, op)
    if name == "weights":
        w = rng.random(n) + 0.5
        return lambda: fcm.adjusted_rand_score(t, p, sample_weight=w)
    if name == "SMI":
        st, sp = rng.integers(0, 33, smi_n), rng.integers(0, 60, smi_n)
        return lambda: fcm.standardized_mutual_info_score(st, sp)
    if name == "stream":
        bounds = [n * i // 10 for i in range(11)]

        def stream() -> float:
            acc = fcm.ContingencyAccumulator()
            for lo, hi in itertools.pairwise(bounds):
                acc.update(t[lo:hi], p[lo:hi])
            return acc.table.adjusted_rand_score()

        return stream
    if name == "evaluate":
        return lambda: fcm.evaluate(t, p).to_dict()
    raise ValueError(f"unknown case {name!r}")


def _child(threads: int, names: list[str], n: int, smi_n: int, repeat: int) -> dict[str, Any]:
    import fastcluster_metrics as fcm

    if fcm.num_threads() != threads:
        raise SystemExit(f"FASTCLUSTER_METRICS_NUM_THREADS={threads}, but {fcm.num_threads()=}")
    t, p = _inputs(n)
    calls = {name: _call(name, t, p, smi_n) for name in names}
    fcm.adjusted_rand_score(t, p)
    times: dict[str, float] = {}
    values: dict[str, str] = {}
    for name, call in calls.items():
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            value = call()
            best = min(best, time.perf_counter() - start)
        if name == "SMI" and threads == 1 and best > SLOW_CALL:
            _say(f"    SMI takes {best:.1f} s a call on one thread: try a smaller --smi-n")
        _say(f"    {threads:>3} threads  {name:<10} {_time(best)}")
        times[name], values[name] = best, repr(value)
    return {"times": times, "values": values}


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _default_threads(cores: int) -> list[int]:
    counts = [1]
    while counts[-1] * 2 <= cores:
        counts.append(counts[-1] * 2)
    return counts if counts[-1] == cores else [*counts, cores]


def _time(seconds: float) -> str:
    if seconds >= 1.0:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} us"


def _e(n: int) -> str:
    return f"{n:.0e}".replace("e+0", "e").replace("e+", "e")


def _case_sizes(n: int, smi_n: int) -> dict[str, int]:
    sizes = dict.fromkeys(CASES, n)
    sizes["strings"], sizes["SMI"] = min(n, STRINGS_MAX), smi_n
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e7, help="labels a case (default 1e7)")
    parser.add_argument(
        "--threads", help="thread counts, e.g. 1,2,4,8,16 (default 1, 2, 4, ... usable cores)"
    )
    parser.add_argument("--cases", help=f"a comma-separated subset of: {', '.join(CASES)}")
    parser.add_argument("--smi-n", type=float, default=1e6, help="labels of SMI (default 1e6)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="write every figure to this file")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    n = int(args.n)
    smi_n = min(int(args.smi_n), n)
    names = [c.strip() for c in args.cases.split(",")] if args.cases else list(CASES)
    unknown = [c for c in names if c not in CASES]
    if unknown:
        parser.error(f"unknown cases {unknown}; choose from {', '.join(CASES)}")
    names = [c for c in CASES if c in names]
    if args.child is not None:
        print(json.dumps(_child(args.child, names, n, smi_n, args.repeat)))
        return

    cores = _usable_cores()
    if args.threads:
        counts = sorted({int(k) for k in args.threads.split(",")})
    else:
        counts = _default_threads(cores)
    if counts[0] < 1:
        parser.error("thread counts start at 1")
    if counts[-1] > cores:
        _say(f"warning: {counts[-1]} threads on {cores} usable cores")
    machine = {
        "cpu": _cpu_model(),
        "processor": platform.processor(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "usable_cores": cores,
    }
    runs: dict[str, dict[int, list[float]]] = {c: {k: [] for k in counts} for c in names}
    values: dict[str, dict[int, set[str]]] = {c: {k: set() for k in counts} for c in names}
    child_seconds: dict[int, list[float]] = {k: [] for k in counts}
    started = time.perf_counter()
    for r in range(args.rounds):
        for k in counts:
            clock = time.perf_counter() - started
            _say(f"round {r + 1}/{args.rounds}, {k} threads (at {clock:.0f} s)")
            command = [sys.executable, __file__, "--n", str(n), "--smi-n", str(smi_n)]
            command += ["--repeat", str(args.repeat), "--cases", ",".join(names)]
            command += ["--child", str(k)]
            env = {**os.environ, "FASTCLUSTER_METRICS_NUM_THREADS": str(k)}
            start = time.perf_counter()
            out = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True, env=env)
            child_seconds[k].append(time.perf_counter() - start)
            child = json.loads(out.stdout)
            for name in names:
                runs[name][k].append(child["times"][name])
                values[name][k].add(child["values"][name])
    elapsed = time.perf_counter() - started
    _say(f"done in {elapsed:.0f} s")

    best = {c: {k: min(runs[c][k]) for k in counts} for c in names}
    base = counts[0]
    differ = [c for c in names if len(set().union(*values[c].values())) > 1]
    sizes = _case_sizes(n, smi_n)
    print(f"Machine: {machine['cpu'] or machine['processor'] or 'unknown CPU'}, ", end="")
    print(f"os.cpu_count() = {machine['cpu_count']}, {cores} usable cores")
    print(f"{machine['platform']}, Python {machine['python']}")
    print(f"n = {_e(n)} (strings {_e(sizes['strings'])}, SMI {_e(smi_n)}); ", end="")
    print(f"{args.rounds} rounds of {args.repeat} calls, the minimum of each; {elapsed:.0f} s")
    same = "yes" if not differ else f"no: {', '.join(differ)}"
    print(f"Results the same at every thread count: {same}\n")
    header = f"| case | {base} thread{'s' if base > 1 else ''} |"
    rule = "| --- | ---: |"
    for k in counts[1:]:
        header += f" {k} threads | t{base}/t{k} |"
        rule += " ---: | ---: |"
    print(header)
    print(rule)
    for name in names:
        row = f"| {name} | {_time(best[name][base])} |"
        for k in counts[1:]:
            row += f" {_time(best[name][k])} | {best[name][base] / best[name][k]:.2f} |"
        print(row)
    if args.json:
        report = {
            "machine": machine,
            "command": sys.argv,
            "n": n,
            "case_n": {c: sizes[c] for c in names},
            "threads": counts,
            "rounds": args.rounds,
            "repeat": args.repeat,
            "seconds": elapsed,
            "child_seconds": {str(k): child_seconds[k] for k in counts},
            "times": {c: {str(k): runs[c][k] for k in counts} for c in names},
            "best": {c: {str(k): best[c][k] for k in counts} for c in names},
            "speedup": {c: {str(k): best[c][base] / best[c][k] for k in counts} for c in names},
            "values": {c: {str(k): sorted(values[c][k]) for k in counts} for c in names},
            "same_results": not differ,
        }
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
