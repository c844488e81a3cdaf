"""Threads and processes: the GIL is released while Rust counts, Python threads sharing arrays
get the serial answers, forked processes neither hang nor differ, and every score has the same
bits at every thread count.

test_threads.py has the basics (three thread counts on one input, four Python threads, one fork
after the pool started); these are the harder versions.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from helpers import LABEL_FUNCTIONS

import fastcluster_metrics as fcm

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="fork is POSIX-only")
FORK_WARNING = pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")


def _run(script: str, threads: int | None = None, timeout: float = 120) -> str:
    env = dict(os.environ)
    if threads is not None:
        env["FASTCLUSTER_METRICS_NUM_THREADS"] = str(threads)
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


# --------------------------------------------------------------------------------------------
# The GIL is released while the core works
# --------------------------------------------------------------------------------------------

GIL_SETUP = """
import os, threading, time
import numpy as np, fastcluster_metrics as fcm
assert fcm.num_threads() == 1
n = 20_000_000
a = np.arange(n, dtype=np.int64) % 20
b = np.arange(n, dtype=np.int64) * 7 % 30
"""

TWO_CALLS = (
    GIL_SETUP
    + """
small_a, small_b = a[:1000].copy(), b[:1000].copy()  # too few to go parallel
for attempt in range(3):
    state = {"done": False}
    def count():
        start = time.perf_counter()
        fcm.adjusted_rand_score(a, b)
        state["call"] = time.perf_counter() - start
        state["done"] = True
    thread = threading.Thread(target=count)
    calls, last, gap = 0, time.perf_counter(), 0.0
    thread.start()
    while not state["done"]:  # each beat is a whole call of ours, start to end
        fcm.adjusted_rand_score(small_a, small_b)
        now = time.perf_counter()
        gap, last, calls = max(gap, now - last), now, calls + 1
    thread.join()
    print(f"{gap / state['call']:.3f} gap={gap:.4f}s call={state['call']:.3f}s calls={calls}")
    if gap < 0.4 * state["call"]:
        break
"""
)


def test_a_second_call_runs_while_the_first_counts():
    """Short calls of ours keep completing in one thread while a long one counts in another.

    Holding the GIL, or any lock of our own, through the count would stall them for the whole
    long call. This is about order, not speed, so it holds on a busy machine with one free core:
    the scheduler interleaves the two threads in slices far shorter than the long call. (How much
    two threads gain on two free cores is a matter of memory bandwidth, for benchmarks.)
    """
    lines = _run(TWO_CALLS, threads=1).splitlines()
    ratio = float(lines[-1].split()[0])
    assert ratio < 0.4, lines


HEARTBEAT = (
    GIL_SETUP
    + """
# Wide label values: the hash-map path, a longer call than the dense window's.
wide_a = a * 1_000_003_000_001
wide_b = b * -999_999_000_007
for attempt in range(3):
    state = {"done": False}
    def count():
        start = time.perf_counter()
        fcm.mutual_info_score(wide_a, wide_b)
        state["call"] = time.perf_counter() - start
        state["done"] = True
    thread = threading.Thread(target=count)
    beats, last, gap = 0, time.perf_counter(), 0.0
    thread.start()
    while not state["done"]:  # this thread needs the GIL for every beat
        now = time.perf_counter()
        gap, last, beats = max(gap, now - last), now, beats + 1
    thread.join()
    print(f"{gap / state['call']:.3f} gap={gap:.4f}s call={state['call']:.3f}s beats={beats}")
    if gap < 0.4 * state["call"]:
        break
"""
)


def test_python_runs_while_the_core_counts():
    """A Python loop keeps running during a long count (no pause as long as the call)."""
    lines = _run(HEARTBEAT, threads=1).splitlines()
    ratio = float(lines[-1].split()[0])
    assert ratio < 0.4, lines


# --------------------------------------------------------------------------------------------
# Many Python threads on shared arrays
# --------------------------------------------------------------------------------------------

N_SHARED = 100_000  # above the size at which the core goes parallel


def _shared_inputs():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 40, N_SHARED)
    b = (a * 7 + rng.integers(0, 5, N_SHARED)) % 50
    names = np.array([f"type {i}" for i in range(50)])
    return {
        "int64": (a, b),
        "wide int64 vs int8": (a * 10**15 - 3, b.astype(np.int8)),
        "object str vs U": (names[a].astype(object), names[b]),
        "Categorical vs float": (pd.Categorical(names[a]), b.astype(np.float64)),
    }


def _plain(result):
    if isinstance(result, fcm.Contingency):
        return _plain((result.to_numpy(), result.adjusted_mutual_info_score()))
    if isinstance(result, (fcm.Evaluation, dict)):
        return {k: _plain(v) for k, v in dict(result).items()}
    if isinstance(result, pd.DataFrame):
        return _plain(result.to_dict())
    if isinstance(result, np.ndarray):
        return (str(result.dtype), _plain(result.tolist()))
    if isinstance(result, (list, tuple)):
        return [_plain(v) for v in result]
    if isinstance(result, float):
        return "nan" if math.isnan(result) else result.hex()
    return result


def _every_result(inputs):
    out = {}
    for kind, (x, y) in inputs.items():
        for name in LABEL_FUNCTIONS:
            out[kind, name] = _plain(getattr(fcm, name)(x, y))
        out[kind, "entropy"] = _plain(fcm.entropy(x))
        out[kind, "evaluate"] = _plain(fcm.evaluate(x, y))
        out[kind, "from_labels"] = _plain(fcm.Contingency.from_labels(x, y))
        out[kind, "compare_many"] = _plain(fcm.compare_many(x, {"y": y, "x": x}))
    return out


def test_eight_threads_calling_every_function_get_the_serial_results():
    inputs = _shared_inputs()
    serial = _every_result(inputs)
    start = threading.Barrier(8)
    results, errors = [], []

    def work():
        try:
            start.wait()
            results.append(_every_result(inputs))
        except BaseException as error:  # a panic is a BaseException
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert len(results) == 8
    for result in results:
        assert result == serial


# --------------------------------------------------------------------------------------------
# fork()
# --------------------------------------------------------------------------------------------


def _fork_inputs(seed=0):
    """Inputs that take every parallel path: dense and hashed integers, strings, a big table."""
    rng = np.random.default_rng(seed)
    n = 300_000
    a = rng.integers(0, 30, n)
    b = (a * 11 + rng.integers(0, 3, n)) % 45
    names = np.array([f"cell type {i}" for i in range(30)])
    table = sp.coo_matrix(
        (
            rng.integers(1, 5, 100_000),
            (rng.integers(0, 400, 100_000), rng.integers(0, 400, 100_000)),
        ),
        shape=(400, 400),
    )
    return a, b, names[a], names[a].astype(object), table


def _fork_scores(seed=0):
    a, b, u, obj, table = _fork_inputs(seed)
    return (
        fcm.adjusted_rand_score(a, b).hex(),
        fcm.adjusted_mutual_info_score(a * 2**40, b).hex(),
        fcm.normalized_mutual_info_score(u, b).hex(),
        fcm.v_measure_score(obj, b).hex(),
        fcm.contingency_matrix(u, obj).tolist(),
        fcm.Contingency(table).adjusted_rand_score().hex(),
    )


def _child(queue, seed):
    queue.put((os.getpid(), fcm.num_threads(), _fork_scores(seed)))


def _in_child(target, *args, timeout=60):
    """What ``target(queue, *args)`` puts in the queue in a forked child; the child is always
    reaped (killed if it hangs), so that a deadlock fails the test instead of hanging pytest."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(queue, *args))
    proc.start()
    try:
        got = queue.get(timeout=timeout)
        proc.join(timeout=timeout)
        assert proc.exitcode == 0
        return got
    finally:
        if proc.is_alive():
            proc.kill()
            proc.join()


def _grandchild_parent(queue):
    queue.put((_in_child(_child, 1), _fork_scores(2)))


@POSIX
@FORK_WARNING
def test_fork_while_the_pool_is_busy():
    """A child forked while another thread is counting in the pool runs, and gets the answers."""
    want = _fork_scores()
    stop = threading.Event()
    a, b, u, _, _ = _fork_inputs(5)

    def busy():
        while not stop.is_set():
            fcm.adjusted_mutual_info_score(u, b)
            fcm.adjusted_rand_score(a * 2**40, b)

    worker = threading.Thread(target=busy)
    worker.start()
    try:
        # fork at different points of the busy thread's work
        outcomes = [_in_child(_child, 0) for _ in range(4)]
    finally:
        stop.set()
        worker.join(timeout=60)
    for _, threads, got in outcomes:
        assert threads == 1
        assert got == want


@POSIX
@FORK_WARNING
def test_fork_pool_of_workers():
    """multiprocessing's fork Pool after the parent used the thread pool: every task returns."""
    want = [_fork_scores(seed) for seed in range(4)]
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        got = pool.map_async(_fork_scores, range(4)).get(timeout=120)
    assert got == want


@POSIX
@FORK_WARNING
def test_fork_of_a_forked_child():
    want_child, want_self = _fork_scores(1), _fork_scores(2)
    (_, threads, got_grandchild), got_child = _in_child(_grandchild_parent, timeout=120)
    assert threads == 1
    assert got_grandchild == want_child
    assert got_child == want_self


FORK_BEFORE_POOL = """
import multiprocessing
import numpy as np, fastcluster_metrics as fcm

def scores():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 30, 300_000)
    names = np.array([f"cell type {i}" for i in range(45)])
    b = (a * 11 + rng.integers(0, 3, a.size)) % 45
    return (
        fcm.adjusted_mutual_info_score(a * 2**40, b).hex(),
        fcm.v_measure_score(names[a], names[b].astype(object)).hex(),
    )

def child(queue):
    queue.put((fcm.num_threads(), scores()))

ctx = multiprocessing.get_context("fork")
queue = ctx.Queue()
proc = ctx.Process(target=child, args=(queue,), daemon=True)
proc.start()  # the parent has not counted anything yet: its pool does not exist
threads, got = queue.get(timeout=60)
proc.join(timeout=60)
assert proc.exitcode == 0
assert got == scores(), "child and parent differ"
print(threads, fcm.num_threads())
"""


@POSIX
def test_fork_before_the_pool_started():
    """A child forked before the parent's pool exists starts its own, sized as configured."""
    out = _run(FORK_BEFORE_POOL, threads=2)
    assert out.split() == ["2", "2"]


# --------------------------------------------------------------------------------------------
# The same bits at every thread count, run after run
# --------------------------------------------------------------------------------------------

DETERMINISM = """
import hashlib, json
import numpy as np, pandas as pd, fastcluster_metrics as fcm
rng = np.random.default_rng(11)
n = 1_000_000
a = rng.integers(0, 60, n)
b = (a * 13 + rng.integers(0, 9, n)) % 90
names = np.array([f"cluster {i:03d}" for i in range(90)])
inputs = {
    "int64": (a, b),
    "hashed int64": (a * 2**50 - 7, b * -(2**45)),
    "U vs object": (names[a % 90], names[b].astype(object)),
    "Categorical vs float": (pd.Categorical(names[b]), (a - 30).astype(np.float32)),
}
out = {}
for kind, (x, y) in inputs.items():
    for run in range(2):
        scores = fcm.evaluate(x, y).to_dict()
        scores["ami_min"] = fcm.adjusted_mutual_info_score(x, y, average_method="min")
        scores["nmi_geometric"] = fcm.normalized_mutual_info_score(
            x, y, average_method="geometric"
        )
        scores["entropy"] = fcm.entropy(x)
        hcv = fcm.homogeneity_completeness_v_measure(x, y, beta=0.3)
        scores.update(h=hcv[0], c=hcv[1], v=hcv[2])
        table = fcm.contingency_matrix(x, y)
        key = f"{kind} run {run}"
        out[key] = {k: float(v).hex() for k, v in scores.items()}
        out[key]["table"] = hashlib.sha256(table.tobytes()).hexdigest(), table.shape
print(fcm.num_threads())
print(json.dumps(out, sort_keys=True))
"""


def test_scores_have_the_same_bits_at_one_and_two_threads():
    outputs = {}
    for threads in (1, 2):
        lines = _run(DETERMINISM, threads=threads).splitlines()
        assert lines[0] == str(threads)
        outputs[threads] = json.loads(lines[1])
    for threads, result in outputs.items():
        for kind in ("int64", "hashed int64", "U vs object", "Categorical vs float"):
            assert result[f"{kind} run 0"] == result[f"{kind} run 1"], (threads, kind)
    assert outputs[1] == outputs[2]
