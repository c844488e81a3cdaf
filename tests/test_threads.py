"""The thread pool: same answers at every thread count, in threads, and after fork()."""

import hashlib
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import fastcluster_metrics as fcm

N = 400_000  # above the size at which the pass goes parallel


def _labels(seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 20, N)
    b = (a * 7 + rng.integers(0, 30, N)) % 30
    return a, b


def _scores(a, b):
    return (
        fcm.adjusted_rand_score(a, b),
        fcm.adjusted_mutual_info_score(a, b),
        fcm.mutual_info_score(a, b),
        fcm.pair_confusion_matrix(a, b).tolist(),
    )


def _wide(a):
    # 20 x 4000: a wide table (more cells than one block of its mutual information).
    return (a * 200 + np.random.default_rng(1).integers(0, 4000, a.size)) % 4000


SCRIPT = """
import numpy as np, fastcluster_metrics as fcm
rng = np.random.default_rng(0)
a = rng.integers(0, 20, {n}); b = (a * 7 + rng.integers(0, 30, {n})) % 30
w = (a * 200 + np.random.default_rng(1).integers(0, 4000, a.size)) % 4000
print(fcm.num_threads(), repr(fcm.adjusted_rand_score(a, b)), repr(fcm.mutual_info_score(a, b)),
      repr(fcm.adjusted_mutual_info_score(a, b)), repr(fcm.mutual_info_score(a, w)),
      repr(fcm.adjusted_mutual_info_score(a, w)),
      repr(fcm.standardized_mutual_info_score(a[:50000], b[:50000])))
"""


def _child_output(script, threads):
    """The words `script` prints, run in a child process with a pool of `threads`."""
    env = dict(os.environ, FASTCLUSTER_METRICS_NUM_THREADS=threads)
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_results_identical_across_thread_counts(threads):
    out = _child_output(SCRIPT.format(n=N), threads)
    assert out[0] == threads
    a, b = _labels()
    assert out[1:] == [
        repr(fcm.adjusted_rand_score(a, b)),
        repr(fcm.mutual_info_score(a, b)),
        repr(fcm.adjusted_mutual_info_score(a, b)),
        repr(fcm.mutual_info_score(a, _wide(a))),
        repr(fcm.adjusted_mutual_info_score(a, _wide(a))),
        repr(fcm.standardized_mutual_info_score(a[:50000], b[:50000])),
    ]


STRINGS = """
import hashlib, sys
import numpy as np, polars as pl, pyarrow as pa, fastcluster_metrics as fcm
rng = np.random.default_rng(4)
n = 1_000_000
names = np.array([f"cell type {{i}}" * (1 + i % 3) for i in range(300)])  # 11 to 38 bytes
codes = rng.integers(0, 300, n)
pred = (codes * 7 + rng.integers(0, 50, n)) % 50
u = names[codes]
out = [str(fcm.num_threads())]
for labels in (u, u.astype(object), np.char.encode(u), pa.array(u), pl.Series(u)):
    c = fcm.Contingency.from_labels(labels, pred)
    classes = [x.decode() if isinstance(x, bytes) else str(x) for x in c.classes]
    digest = hashlib.sha256(c.to_numpy().tobytes() + "|".join(classes).encode())
    out.append(digest.hexdigest())
print(*out)
"""


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_string_labels_identical_across_thread_counts(threads):
    """A million string labels of every kind (numpy U, S and object, Arrow, polars views) give
    the table of their integer codes, in sorted label order, on every thread count."""
    out = _child_output(STRINGS.format(), threads)
    assert out[0] == threads
    rng = np.random.default_rng(4)
    n = 1_000_000
    names = np.array([f"cell type {i}" * (1 + i % 3) for i in range(300)])
    codes = rng.integers(0, 300, n)
    pred = (codes * 7 + rng.integers(0, 50, n)) % 50
    order = np.argsort(names)
    rank = np.empty(300, np.int64)
    rank[order] = np.arange(300)
    table = fcm.contingency_matrix(rank[codes], pred)
    classes = "|".join(names[order].tolist()).encode()
    want = hashlib.sha256(table.tobytes() + classes).hexdigest()
    assert out[1:] == [want] * 5


def test_many_python_threads_share_arrays():
    a, b = _labels()
    want = _scores(a, b)
    results = []

    def work():
        for _ in range(3):
            results.append(_scores(a, b))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 12
    assert all(r == want for r in results)


# In a fresh interpreter: the suite's process holds other libraries' threads and fork hooks
# (JAX's, once scib-metrics is imported, warns at every fork), which are not this test's.
_FORK = """
import multiprocessing, sys
import numpy as np, fastcluster_metrics as fcm

def labels():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 20, {n})
    return a, (a * 7 + rng.integers(0, 30, {n})) % 30

def scores():
    a, b = labels()
    return (fcm.adjusted_rand_score(a, b), fcm.adjusted_mutual_info_score(a, b),
            fcm.mutual_info_score(a, b), fcm.pair_confusion_matrix(a, b).tolist())

def child(queue):
    queue.put((fcm.num_threads(), scores()))

if __name__ == "__main__":
    want = scores()  # starts the pool in the parent
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=child, args=(queue,))
    proc.start()
    threads, got = queue.get(timeout=60)
    proc.join(timeout=60)
    assert proc.exitcode == 0, proc.exitcode
    assert fcm.num_threads() > 1  # the parent's pool has started threads
    assert threads == 1, threads  # the child has none of the parent's pool threads
    assert got == want, (got, want)
    print("ok")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="fork is POSIX-only")
def test_forked_child_after_pool_started_does_not_hang():
    env = dict(os.environ, FASTCLUSTER_METRICS_NUM_THREADS="2")
    run = subprocess.run(
        [
            sys.executable,
            "-W",
            "error",
            "-W",
            "ignore:.*fork.*:DeprecationWarning",
            "-c",
            _FORK.format(n=N),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["ok"]


_AFFINITY = """
import os, sys
os.sched_setaffinity(0, {int(sys.argv[1])})
import fastcluster_metrics as fcm
print(fcm.num_threads())
"""


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")
@pytest.mark.parametrize("variable", [None, "3"])
def test_the_pool_follows_the_cpu_affinity_unless_told(variable):
    """A process allowed one CPU (as a container or `taskset` allows) starts one thread, not
    one per core of the host; FASTCLUSTER_METRICS_NUM_THREADS, where set, wins."""
    cpu = min(os.sched_getaffinity(0))
    env = {k: v for k, v in os.environ.items() if k != "FASTCLUSTER_METRICS_NUM_THREADS"}
    if variable is not None:
        env["FASTCLUSTER_METRICS_NUM_THREADS"] = variable
    command = [sys.executable, "-c", _AFFINITY, str(cpu)]
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=True)
    assert int(out.stdout) == (1 if variable is None else 3)


PER_SAMPLE = """
import hashlib
import numpy as np, fastcluster_metrics as fcm
rng = np.random.default_rng(6)
n = 1_000_000
a = rng.integers(0, 20, n); b = (a * 7 + rng.integers(0, 30, n)) % 30
spread = rng.integers(0, 10**12, n)
w = rng.random(n)
out = [str(fcm.num_threads())]
for x, y, kw in ((a, b, {}), (a, spread, {}), (a, b, {"sample_weight": w})):
    out.append(hashlib.sha256(fcm.per_sample_score(x, y, **kw).tobytes()).hexdigest())
print(*out)
"""


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_per_sample_scores_identical_across_thread_counts(threads):
    """Each sample's score is its cell's, whichever thread hands it out: dense and hashed keys,
    weighted, to the last bit."""
    out = _child_output(PER_SAMPLE, threads)
    assert out[0] == threads
    reference = _child_output(PER_SAMPLE, "1")
    assert out[1:] == reference[1:] and len(set(out[1:])) == 3
