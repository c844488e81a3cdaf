"""Memory refused by the system is a MemoryError naming what was being built, never the end
of the process: each case runs in a child whose address space is capped (``RLIMIT_AS``, as
``ulimit -v`` and HPC schedulers cap it) a little above what it already uses. The child
checks the error's message, lifts the cap and checks that the next call gives the value the
same call gave before the cap. Without fallible allocation the child dies of SIGABRT."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

resource = pytest.importorskip("resource")

CAPPED = textwrap.dedent(
    """
    used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (used + headroom, resource.RLIM_INFINITY))
    try:
        read()
    except MemoryError as error:
        print("MemoryError:", error)
    else:
        print("no error")
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    print("next call", {next})
    """
)
"""The end of each child: ``read()`` called with the address space capped ``headroom`` bytes
above what the child uses, then again without the cap, printing ``next``."""

CHILD = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    import fastcluster_metrics as fcm

    case, headroom = sys.argv[1], int(sys.argv[2]) << 20
    rng = np.random.default_rng(0)
    # Start the thread pool and its threads' allocators before the cap.
    fcm.adjusted_rand_score(rng.integers(0, 5, 2_000_000), rng.integers(0, 5, 2_000_000))
    n = 4_000_000
    t = rng.integers(0, 10**12, n)
    p = rng.integers(0, 10**12, n)
    if case == "spread keys":
        call = lambda: fcm.adjusted_rand_score(t, p)
    elif case == "real weights":
        w = rng.random(n) + 0.5
        call = lambda: fcm.adjusted_rand_score(t, p, sample_weight=w)
    elif case == "sparse matrix":
        call = lambda: fcm.contingency_matrix(t, p, sparse=True).nnz
    elif case == "wide table":
        # A million labels a side: the cells are counted by partitions of the samples, each
        # thread's larger than the 32 MB below which freed memory is kept for reuse.
        a = rng.integers(0, 10**6, 40_000_000, dtype=np.int32)
        b = rng.integers(0, 10**6, 40_000_000, dtype=np.int32)
        call = lambda: fcm.adjusted_rand_score(a, b)
    elif case == "one-row map":
        # Each cluster within one class, spread three times wider than the samples: counted
        # in a map of every cluster key, then built into a table.
        c = rng.integers(0, 5, n)
        s = rng.permutation(n) * 3
        call = lambda: fcm.contingency_matrix(c, s, sparse=True).nnz
    elif case == "object strings":
        s = np.array([f"cell_{i}" for i in range(1_500_000)], dtype=object)
        q = rng.integers(0, 50, s.size)
        call = lambda: fcm.adjusted_rand_score(s, q)
    elif case == "dendrogram":
        # Every cut of a balanced tree over 2**21 samples of 200,000 classes: the merges read
        # from NumPy, the nodes, and each cluster's map of cells as merges grow it.
        from fastcluster_metrics import _native

        m = 1 << 21
        classes = rng.integers(0, 200_000, m).astype(np.uint32)
        level, rounds, top = np.arange(m, dtype=np.uint64), [], m
        while level.size > 1:
            rounds.append(level.reshape(-1, 2))
            level = np.arange(top, top + level.size // 2, dtype=np.uint64)
            top += level.size
        merges = np.ascontiguousarray(np.concatenate(rounds))
        order = np.arange(m - 1, dtype=np.uint64)
        record = np.array([0, m // 2, m - 1], dtype=np.uint64)
        cuts = lambda: _native.dendrogram_cuts(classes, 200_000, merges, order, record, True)
        call = lambda: {k: v.tolist() for k, v in cuts().items()}
    want = call()
    read = call
    """
) + CAPPED.format(next="call() == want")


def _lines(child: str, case: str, headroom_mib: int) -> list[str]:
    """The lines ``child`` printed for ``case``, checking that it exited."""
    done = subprocess.run(
        [sys.executable, "-c", child, case, str(headroom_mib)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


def _run(child: str, case: str, headroom_mib: int) -> list[str]:
    """The lines ``child`` printed for ``case``, checking that the first is a refusal."""
    lines = _lines(child, case, headroom_mib)
    assert lines[0].startswith("MemoryError: out of memory: could not allocate "), lines
    return lines


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc: Linux")
@pytest.mark.parametrize("headroom_mib", [24, 96])
@pytest.mark.parametrize(
    "case",
    [
        "spread keys",
        "real weights",
        "sparse matrix",
        "one-row map",
        "object strings",
        "wide table",
        "dendrogram",
    ],
)
def test_refused_memory_is_a_memory_error_and_the_next_call_is_right(case, headroom_mib):
    lines = _run(CHILD, case, headroom_mib)
    assert " bytes (" in lines[0] and " MiB) for " in lines[0]
    assert lines[1] == "next call True"


LATER = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    from fastcluster_metrics import _native

    stage, headroom = sys.argv[1], int(sys.argv[2]) << 20
    rng = np.random.default_rng(0)
    a = rng.integers(0, 10**6, 10_000_000, dtype=np.int32)
    b = rng.integers(0, 10**6, 10_000_000, dtype=np.int32)
    full = _native.count(a, b)
    want = {"sides": full.row_sums, "cells": full.mutual_info}[stage]()
    del full
    # Counted for its pair counts: its sides and cells are built when first asked for.
    table = _native.count(a, b, False, True)
    read = {"sides": table.row_sums, "cells": table.mutual_info}[stage]
    """
) + CAPPED.format(next="np.array_equal(read(), want), table.holds_cells")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc: Linux")
@pytest.mark.parametrize(
    ("stage", "headroom_mib", "what"),
    [("sides", 2, "a wide table's"), ("cells", 48, "a wide table's cells")],
)
def test_a_wide_table_built_later_refused_is_built_by_the_next_call(stage, headroom_mib, what):
    # A table counted for its pair counts builds its sides, and its cells, the first time a
    # measure reads them: the refusal is a MemoryError, the table is left as it was.
    lines = _run(LATER, stage, headroom_mib)
    assert f" MiB) for {what}" in lines[0], lines
    assert lines[1] == f"next call True {stage == 'cells'}", lines


LESS = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    import fastcluster_metrics as fcm

    case, headroom = sys.argv[1], int(sys.argv[2]) << 20
    rng = np.random.default_rng(0)
    fcm.adjusted_rand_score(rng.integers(0, 5, 2_000_000), rng.integers(0, 5, 2_000_000))
    # 4e6 samples of 5e5 pairs of labels spread over 1e12 (1e5 with weights, whose sums
    # take more): each thread lists its samples' pairs (96 MB in all, 128 MB weighted),
    # which hold 12 MB of distinct pairs (3.2 MB weighted).
    n, distinct = 4_000_000, 100_000 if case == "real weights" else 500_000
    pick = rng.integers(0, distinct, n)
    t = rng.integers(0, 10**12, distinct)[pick]
    p = rng.integers(0, 10**12, distinct)[pick]
    w = rng.random(n) + 0.5
    call = {
        "ARI": lambda: fcm.adjusted_rand_score(t, p),
        "sparse matrix": lambda: fcm.contingency_matrix(t, p, sparse=True).sum(axis=0).tolist(),
        "real weights": lambda: fcm.adjusted_rand_score(t, p, sample_weight=w),
    }[case]
    want = call()
    read = lambda: print("capped call", call() == want)
    """
) + CAPPED.format(next="call() == want")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc: Linux")
@pytest.mark.parametrize("headroom_mib", [64, 96])
@pytest.mark.parametrize("case", ["ARI", "sparse matrix", "real weights"])
def test_spread_pairs_that_repeat_are_added_up_in_place_when_memory_is_refused(case, headroom_mib):
    # Listing every sample's pair would need about 150 MiB: refused, each list's repeated
    # pairs are added up in place (sorted) and the call goes on, in less.
    lines = _lines(LESS, case, headroom_mib)
    assert lines == ["capped call True", "no error", "next call True"]


SWEEP = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    from fastcluster_metrics import _native

    measure = sys.argv[1]
    rng = np.random.default_rng(0)
    # 2e6 samples of a million labels a side: 864,560 rows and 864,385 columns, whose
    # logarithms and maxima take 6.6 MiB each.
    a = rng.integers(0, 10**6, 2_000_000)
    b = rng.integers(0, 10**6, 2_000_000)
    table = _native.count(a, b)
    call = getattr(table, measure)
    want = call()
    for mib in range(0, 16):
        used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (used + (mib << 20), resource.RLIM_INFINITY))
        try:
            out = "same" if call() == want else "differs"
        except MemoryError as error:
            out = f"MemoryError: {error}"
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        print(out)
    print("next call", call() == want)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc: Linux")
@pytest.mark.parametrize(
    ("measure", "what"),
    [
        ("mutual_info", "the mutual information's logarithms of the row and column sums"),
        ("ami_parts", "the mutual information's logarithms of the row and column sums"),
        ("purity", "the purity's column maxima"),
    ],
)
def test_a_measures_buffers_refused_at_any_cap_are_a_memory_error(measure, what):
    # The measures' own buffers (a value a row or a column) under caps from 0 to 15 MiB
    # above use: each call gives the uncapped value or a MemoryError naming them, never the
    # end of the process. One arena and a fixed mmap threshold, so that every large buffer
    # takes fresh address space (glibc would otherwise serve it from memory freed before).
    env = {
        **os.environ,
        "MALLOC_ARENA_MAX": "1",
        "MALLOC_MMAP_THRESHOLD_": "65536",
        "MALLOC_TRIM_THRESHOLD_": "65536",
    }
    done = subprocess.run(
        [sys.executable, "-c", SWEEP, measure],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[-1] == "next call True", lines
    refused = [line for line in lines[:-1] if line != "same"]
    assert refused, lines
    assert all(line.endswith(f" MiB) for {what}") for line in refused), lines
    assert lines[-2] == "same", lines


ALONE = textwrap.dedent(
    """
    import resource
    import numpy as np
    from fastcluster_metrics import _native

    rng = np.random.default_rng(0)
    a = rng.integers(0, 10**6, 2_000_000)
    b = rng.integers(0, 10**6, 2_000_000)
    table = _native.count(a, b)
    for kib in range(0, 4096, 256):
        used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (used + (kib << 10), resource.RLIM_INFINITY))
        try:
            print("capped", table.entropy_cols())
        except MemoryError:
            print("capped MemoryError")
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    print("next", table.entropy_cols())
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc: Linux")
def test_a_watched_call_without_a_pool_runs_where_a_thread_is_refused():
    # With one thread there is no pool: a long call is watched for Ctrl-C from a thread of
    # its own, whose stack (address space) caps of 0 to 4 MiB above use refuse. The work
    # runs on the calling thread instead; it was a PanicException ("failed to spawn
    # thread"), an abort as the panic's message was written, or a hang.
    env = {**os.environ, "FASTCLUSTER_METRICS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", ALONE], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    *capped, after = done.stdout.splitlines()
    value = after.removeprefix("next ")
    assert float(value) > 13, after
    assert len(capped) == 16, done.stdout
    assert all(line in (f"capped {value}", "capped MemoryError") for line in capped), capped
