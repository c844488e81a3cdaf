"""Scaling: time and peak memory against n, each measurement in a fresh process (the figures
of ARI from 1e5 to 1e8 labels).

Not a pytest module (no ``test_`` prefix, no test functions); run it by hand::

    python benches/scaling.py                  # n = 1e5 .. 1e8: about 5 minutes
    python benches/scaling.py --full           # adds scikit-learn at 1e8 and on the singletons
    python benches/scaling.py --sizes 1e5 1e6  # a quick check of the script
    python benches/scaling.py --report         # tables and plot again from scaling.json

Writes ``benches/scaling.json`` (every measurement), prints Markdown tables and draws
``benches/scaling.png`` (time against n, log-log).

Inputs: 20 classes x 30 clusters, correlated as in conftest.py (70 % of class ``c`` in cluster
``3c // 2`` or ``3c // 2 + 1``), the same labels for every dtype at a given n: int64, int32,
and a pandas Categorical (``Categorical.from_codes`` on int8 codes). ``singletons``: 20 classes
against a permutation of ``arange(n)`` (int64).

Measurements, each in its own child process (``python benches/scaling.py --child SPEC``):

- ``ours``: ``fastcluster_metrics.adjusted_rand_score`` (the contingency pass plus a score
  computed from the 20 x 30 table), then, in the same child, the ``floor``: NumPy reading both
  arrays once, ``np.bitwise_or.reduce`` on each (on int64 as fast as ``np.add.reduce``; on
  narrow integers ``np.add.reduce`` widens to int64 and is 3-10x slower, which would flatter
  ours). For the Categorical, the floor reads its codes.
- ``sklearn``: ``sklearn.metrics.adjusted_rand_score`` on the int64 labels (1e8 with --full).
- ``threads``: ours with ``FASTCLUSTER_METRICS_NUM_THREADS`` = 1 and 2 in the child's
  environment, at 1e7, alternating 1, 2, 1, 2 children; the minimum of each. Each child also
  reads the CPU time of each of its threads (``/proc/self/task/*/stat``) over the timed calls:
  how the work was split between the threads, which a busy machine cannot hide (a wall-clock
  speedup needs a second core that is free).
- ``singletons``: ours on 1e7 all-singleton predictions (scikit-learn too with --full).

Each child builds its inputs in chunks of 2^20 labels (so building them leaves no large
temporaries), runs a warm-up call on 1,000 labels of the same type (imports, first-call
set-up), then resets its peak RSS (``/proc/self/clear_refs``) and reads its RSS: the extra
memory of the measurement is its peak RSS (``ru_maxrss``) after the timed calls minus that
RSS, i.e. everything the calls allocated beyond the inputs. Children run with
``MALLOC_MMAP_THRESHOLD_=65536``, so glibc returns the chunks' freed memory to the system
instead of keeping it for the measured calls to reuse unseen. Times are the minimum over the
repeats inside the child.

Every value is checked: ours gives the same score for every dtype at each n, equal to
scikit-learn's to 1e-10 relative where scikit-learn ran; the singletons score is 0.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from report import fmt_time  # benches/report.py (this script's folder is on sys.path)

HERE = Path(__file__).resolve().parent
JSON_PATH = HERE / "scaling.json"
PNG_PATH = HERE / "scaling.png"

SEED = 20_240_917
N_TRUE, N_PRED = 20, 30
CHUNK = 1 << 20
DTYPES = ("int64", "int32", "categorical")
SIZES = {"1e5": 10**5, "1e6": 10**6, "1e7": 10**7, "1e8": 10**8}
MIB = 1 << 20
REL = 1e-10


# --------------------------------------------------------------------------- child


def make_inputs(n: int, dtype: str, singletons: bool) -> tuple[Any, Any, Any, Any]:
    """-> (labels_true, labels_pred, codes_true, codes_pred), built chunk by chunk."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    code = {"int64": np.int64, "int32": np.int32, "categorical": np.int8}[dtype]
    t = np.empty(n, code)
    p = None if singletons else np.empty(n, code)
    for s in range(0, n, CHUNK):
        m = min(CHUNK, n - s)
        tt = rng.integers(0, N_TRUE, m)
        t[s : s + m] = tt
        if p is not None:
            mapped = np.minimum(tt * N_PRED // N_TRUE + rng.integers(0, 2, m), N_PRED - 1)
            noise = rng.integers(0, N_PRED, m)
            p[s : s + m] = np.where(rng.random(m) < 0.7, mapped, noise)
        del tt
    if p is None:
        p = rng.permutation(n)  # int64, one allocation
    if dtype != "categorical":
        return t, p, t, p
    import pandas as pd

    a = pd.Categorical.from_codes(t, categories=range(N_TRUE))
    b = pd.Categorical.from_codes(p, categories=range(N_PRED))
    return a, b, a.codes, b.codes


def rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def reset_peak() -> bool:
    """Reset this process's peak RSS (Linux >= 4.0); False where not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


def thread_cpu_ticks() -> dict[str, int]:
    """CPU time (user + system, clock ticks) of each thread of this process, by thread id."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended
            continue
        out[tid] = int(fields[11]) + int(fields[12])
    return out


def timed(f: Any, args: tuple[Any, ...], repeats: int) -> tuple[list[float], Any]:
    times, value = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = f(*args)
        times.append(time.perf_counter() - t0)
    return times, value


def child(spec: dict[str, Any]) -> dict[str, Any]:
    import numpy as np

    n, dtype, impl = spec["n"], spec["dtype"], spec["impl"]
    singletons = spec.get("singletons", False)
    if impl == "sklearn":
        from sklearn.metrics import adjusted_rand_score as f
    else:
        from fastcluster_metrics import adjusted_rand_score as f

    def floor(a: Any, b: Any) -> tuple[int, int]:
        return int(np.bitwise_or.reduce(a)), int(np.bitwise_or.reduce(b))

    small = make_inputs(1000, dtype, singletons)
    f(small[0], small[1])
    floor(small[2], small[3])
    del small
    labels_true, labels_pred, codes_true, codes_pred = make_inputs(n, dtype, singletons)
    gc.collect()
    peak_reset = reset_peak()
    rss0 = rss_kib()
    ticks0 = thread_cpu_ticks()
    times, value = timed(f, (labels_true, labels_pred), spec["repeats"])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    ticks = thread_cpu_ticks()
    busy = sorted((t - ticks0.get(tid, 0) for tid, t in ticks.items()), reverse=True)
    out: dict[str, Any] = {
        **spec,
        "times": times,
        "value": float(value),
        "input_bytes": int(codes_true.nbytes + codes_pred.nbytes),
        "rss_inputs_kib": rss0,
        "peak_rss_kib": peak,
        "extra_mib": (peak - rss0) / 1024,
        "peak_reset": peak_reset,
        "thread_cpu_ticks": [t for t in busy if t > 0],
    }
    if impl == "ours":
        from fastcluster_metrics import num_threads

        out["threads"] = num_threads()
    if spec.get("floor"):
        floor_times, _ = timed(floor, (codes_true, codes_pred), spec["repeats"])
        out["floor_times"] = floor_times
    return out


# --------------------------------------------------------------------------- driver


def run_child(spec: dict[str, Any], threads: int | None = None) -> dict[str, Any]:
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")
    if threads is not None:
        env["FASTCLUSTER_METRICS_NUM_THREADS"] = str(threads)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"child {spec} failed:\n{proc.stderr}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["wall"] = time.perf_counter() - t0
    out["env_threads"] = threads
    best = f"{min(out['times']) * 1e3:.3g} ms"
    extra = f"{out['extra_mib']:.1f} MiB extra"
    print(f"  {spec['impl']:8} {spec['dtype']:11} n={spec['n']:.0e} {best:>10} {extra}", flush=True)
    return out


def repeats(n: int, impl: str) -> int:
    if impl == "sklearn":
        return 5 if n <= 10**5 else 3 if n <= 10**6 else 2 if n <= 10**7 else 1
    return 15 if n <= 10**6 else 7 if n <= 10**7 else 5


def machine() -> dict[str, Any]:
    import numpy as np
    import pandas as pd
    import sklearn

    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True
    ).stdout.strip()
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kib / MIB, 1),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sklearn": sklearn.__version__,
        "pandas": pd.__version__,
        "commit": commit,
        "load_before": os.getloadavg(),
        "cpu_pressure_before": cpu_pressure(),
    }


def cpu_pressure() -> str:
    """Linux PSI for the CPU: the share of time some runnable task waited for a core."""
    try:
        with open("/proc/pressure/cpu") as f:
            return f.readline().strip()
    except OSError:
        return "?"


def measure(args: argparse.Namespace) -> dict[str, Any]:
    sizes = {s: SIZES[s] for s in args.sizes}
    records: list[dict[str, Any]] = []
    print("ours and floor, per dtype and n", flush=True)
    for s, n in sizes.items():
        for dtype in DTYPES:
            spec = {"impl": "ours", "dtype": dtype, "n": n, "size": s, "floor": True}
            records.append(run_child({**spec, "repeats": repeats(n, "ours")}))
    print("scikit-learn, int64", flush=True)
    for s, n in sizes.items():
        if n > 10**7 and not args.full:
            continue
        spec = {"impl": "sklearn", "dtype": "int64", "n": n, "size": s}
        records.append(run_child({**spec, "repeats": repeats(n, "sklearn")}))
    if "1e7" in sizes:
        print("threads, n = 1e7", flush=True)
        for _ in range(2):
            for dtype in DTYPES:
                for k in (1, 2):
                    spec = {"impl": "ours", "dtype": dtype, "n": 10**7, "size": "1e7"}
                    rec = run_child({**spec, "repeats": 30, "case": "threads"}, threads=k)
                    records.append(rec)
        print("all-singleton predictions, n = 1e7", flush=True)
        for impl in ("ours", "sklearn") if args.full else ("ours",):
            spec = {"impl": impl, "dtype": "int64", "n": 10**7, "size": "1e7"}
            rec = run_child(
                {
                    **spec,
                    "singletons": True,
                    "case": "singletons",
                    "repeats": 5 if impl == "ours" else 1,
                }
            )
            records.append(rec)
    return {"machine": machine(), "command": " ".join(["python", *sys.argv]), "records": records}


# --------------------------------------------------------------------------- report


def fmt_ratio(r: float | None) -> str:
    if r is None:
        return "-"
    return f"{r:.3g}x" if r < 100 else f"{round(r):,}x"


def check(records: list[dict[str, Any]]) -> None:
    """The same score for every dtype at each n; scikit-learn's to 1e-10; singletons 0."""
    by_n: dict[int, list[dict[str, Any]]] = {}
    for r in records:
        if r.get("case") == "singletons":
            assert r["value"] == 0.0, r
        else:
            by_n.setdefault(r["n"], []).append(r)
    for n, rs in by_n.items():
        ours = {r["value"] for r in rs if r["impl"] == "ours"}
        assert len(ours) == 1, f"n={n}: ours differs between dtypes or threads: {ours}"
        (want,) = ours
        for r in rs:
            if r["impl"] == "sklearn":
                assert math.isclose(r["value"], want, rel_tol=REL), (n, r["value"], want)


def report(data: dict[str, Any]) -> None:
    records = data["records"]
    check(records)
    main = [r for r in records if "case" not in r]
    sizes = sorted({r["n"] for r in main})
    label = {r["n"]: r["size"] for r in main}

    def best(impl: str, dtype: str, n: int) -> float | None:
        ts = [min(r["times"]) for r in main if (r["impl"], r["dtype"], r["n"]) == (impl, dtype, n)]
        return min(ts) if ts else None

    def floor(dtype: str, n: int) -> float | None:
        ts = [
            min(r["floor_times"])
            for r in main
            if r.get("floor_times") and (r["dtype"], r["n"]) == (dtype, n)
        ]
        return min(ts) if ts else None

    m = data["machine"]
    print(
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, {m['system']}, "
        f"Python {m['python']}, NumPy {m['numpy']}, scikit-learn {m['sklearn']}, "
        f"pandas {m['pandas']}; commit {m['commit']}; load average before the run "
        f"{', '.join(f'{x:.1f}' for x in m['load_before'])}.\nCommand: `{data['command']}`\n"
    )
    names = {"int64": "int64", "int32": "int32", "categorical": "Categorical"}
    head = [f"ours {names[d]}" for d in DTYPES] + [f"floor {names[d]}" for d in DTYPES]
    head += ["sklearn int64", "sklearn/ours int64"] + [f"ours/floor {names[d]}" for d in DTYPES]
    print("| n | " + " | ".join(head) + " |")
    print("| --- |" + " ---: |" * len(head))
    for n in sizes:
        ours = [best("ours", d, n) for d in DTYPES]
        floors = [floor(d, n) for d in DTYPES]
        skl = best("sklearn", "int64", n)
        cells = [fmt_time(t) for t in ours] + [fmt_time(t) for t in floors] + [fmt_time(skl)]
        cells.append(fmt_ratio(skl / ours[0] if skl and ours[0] else None))
        cells += [fmt_ratio(o / f if o and f else None) for o, f in zip(ours, floors, strict=True)]
        print(f"| {label[n]} | " + " | ".join(cells) + " |")

    print("\nTime per label (ns), ours:\n")
    print("| n | " + " | ".join(names[d] for d in DTYPES) + " | sklearn int64 |")
    print("| --- |" + " ---: |" * (len(DTYPES) + 1))
    for n in sizes:
        ts = [best("ours", d, n) for d in DTYPES] + [best("sklearn", "int64", n)]
        print(
            f"| {label[n]} | "
            + " | ".join("-" if t is None else f"{t / n * 1e9:.3g}" for t in ts)
            + " |"
        )
    big = [n for n in sizes if n >= 10**6]
    if len(big) >= 2:
        print("\nLog-log slope of time against n from 1e6 up (1 = linear):", end=" ")
        parts = []
        for d in DTYPES:
            pts = [(math.log(n), math.log(best("ours", d, n))) for n in big]
            parts.append(f"ours {names[d]} {slope(pts):.3f}")
        for d in DTYPES:
            pts = [(math.log(n), math.log(f)) for n in big if (f := floor(d, n))]
            parts.append(f"floor {names[d]} {slope(pts):.3f}")
        sk = [(math.log(n), math.log(t)) for n in big if (t := best("sklearn", "int64", n))]
        if len(sk) >= 2:
            parts.append(f"sklearn {slope(sk):.3f}")
        print("; ".join(parts) + ".")

    print("\nExtra memory (peak RSS minus RSS with the inputs built), MiB, against the goal")
    print("max(5 % of the inputs, 64 MiB):\n")
    head = [f"ours {names[d]}" for d in DTYPES] + ["sklearn int64"]
    print("| n | " + " | ".join(head) + " |")
    print("| --- |" + " ---: |" * len(head))
    for n in sizes:
        cells = []
        for impl, d in [("ours", d) for d in DTYPES] + [("sklearn", "int64")]:
            rs = [r for r in main if (r["impl"], r["dtype"], r["n"]) == (impl, d, n)]
            if not rs:
                cells.append("-")
                continue
            limit = max(0.05 * rs[0]["input_bytes"] / MIB, 64)
            cells.append(f"{max(r['extra_mib'] for r in rs):.1f} / {limit:,.0f}")
        print(f"| {label[n]} | " + " | ".join(cells) + " |")

    th = [r for r in records if r.get("case") == "threads"]
    if th:
        print("\nThreads at n = 1e7 (FASTCLUSTER_METRICS_NUM_THREADS):\n")
        print("| labels | 1 thread | 2 threads | speedup | CPU per call, 1 / 2 threads | split |")
        print("| --- | ---: | ---: | ---: | ---: | --- |")
        for d in DTYPES:
            one = [r for r in th if r["dtype"] == d and r["env_threads"] == 1]
            two = [r for r in th if r["dtype"] == d and r["env_threads"] == 2]
            t1 = min(min(r["times"]) for r in one)
            t2 = min(min(r["times"]) for r in two)
            cpu1, cpu2 = cpu_per_call(one), cpu_per_call(two)
            split = " + ".join(
                f"{100 * x / sum(two[0]['thread_cpu_ticks']):.0f} %"
                for x in two[0]["thread_cpu_ticks"]
            )
            print(
                f"| {names[d]} | {fmt_time(t1)} | {fmt_time(t2)} | {t1 / t2:.2f}x "
                f"| {fmt_time(cpu1)} / {fmt_time(cpu2)} | {split} |"
            )
    sg = [r for r in records if r.get("case") == "singletons"]
    if sg:
        print("\nAll-singleton predictions at n = 1e7 (20 classes x 1e7 clusters):\n")
        print("| impl | time | extra MiB | a dense int64 table would be |")
        print("| --- | ---: | ---: | ---: |")
        for r in sg:
            dense = N_TRUE * r["n"] * 8 / MIB
            t = fmt_time(min(r["times"]))
            print(f"| {r['impl']} | {t} | {r['extra_mib']:.1f} | {dense:,.0f} MiB |")


def cpu_per_call(records: list[dict[str, Any]]) -> float:
    """CPU seconds (all threads) per call, over every call of these children."""
    ticks = sum(sum(r["thread_cpu_ticks"]) for r in records)
    calls = sum(len(r["times"]) for r in records)
    return ticks / os.sysconf("SC_CLK_TCK") / calls


def slope(points: list[tuple[float, float]]) -> float:
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)


def plot(data: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    main = [r for r in data["records"] if "case" not in r]
    fig, ax = plt.subplots(figsize=(6.4, 4.4), dpi=120)
    series = [
        ("ours int64", "ours", "int64", "times", "C0", "-o"),
        ("ours int32", "ours", "int32", "times", "C1", "-s"),
        ("ours Categorical", "ours", "categorical", "times", "C2", "-^"),
        ("scikit-learn int64", "sklearn", "int64", "times", "C3", "-D"),
        ("floor int64", "ours", "int64", "floor_times", "0.4", "--"),
        ("floor int32", "ours", "int32", "floor_times", "0.55", "-."),
        ("floor Categorical (int8 codes)", "ours", "categorical", "floor_times", "0.7", ":"),
    ]
    for name, impl, dtype, key, color, style in series:
        pts = sorted(
            (r["n"], min(r[key])) for r in main if (r["impl"], r["dtype"]) == (impl, dtype)
        )
        if pts:
            xs, ys = zip(*pts, strict=True)
            ax.plot(xs, ys, style, color=color, label=name, markersize=4)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (labels)")
    ax.set_ylabel("time per call (s), min")
    ax.set_title("adjusted_rand_score, 20 x 30 clusters")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    print(f"\nwrote {path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--full", action="store_true", help="scikit-learn at 1e8 and singletons")
    parser.add_argument("--report", action="store_true", help="tables and plot from the JSON")
    parser.add_argument("--json", type=Path, default=JSON_PATH)
    parser.add_argument("--plot", type=Path, default=PNG_PATH)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return 0
    if args.report:
        data = json.loads(args.json.read_text())
    else:
        t0 = time.perf_counter()
        data = measure(args)
        data["wall_seconds"] = time.perf_counter() - t0
        check(data["records"])
        args.json.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {args.json} ({data['wall_seconds']:.0f} s)\n")
    report(data)
    plot(data, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
