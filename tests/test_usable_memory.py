"""The memory this process may still use (``rust/core/src/memory.rs``, through
``_native.usable_memory``), read from fake ``/proc`` and ``/sys`` trees as Linux lays them
out, and the refusals that use it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics._native import usable_memory
from fastcluster_metrics._table import given

GIB = 2**30


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


MEMINFO = "MemTotal:       32000000 kB\nMemFree:         1000000 kB\nMemAvailable:   20000000 kB\n"


def test_available_memory_without_a_cgroup_limit(tmp_path):
    root = _tree(
        tmp_path,
        {
            "proc/meminfo": MEMINFO,
            "proc/self/cgroup": "0::/user.slice/session.scope\n",
            "sys/fs/cgroup/user.slice/session.scope/memory.max": "max\n",
            "sys/fs/cgroup/user.slice/session.scope/memory.current": "123456\n",
        },
    )
    assert usable_memory(root) == (20_000_000 * 1024, "available memory")


def test_a_cgroup_v2_limit_on_an_ancestor_is_the_tightest(tmp_path):
    root = _tree(
        tmp_path,
        {
            "proc/meminfo": MEMINFO,
            "proc/self/cgroup": "0::/job/step\n",
            "sys/fs/cgroup/job/step/memory.max": "max\n",
            "sys/fs/cgroup/job/step/memory.current": str(GIB),
            # The job's 4 GiB, of which its steps use 3: 1 GiB left for this one.
            "sys/fs/cgroup/job/memory.max": str(4 * GIB),
            "sys/fs/cgroup/job/memory.current": str(3 * GIB),
        },
    )
    assert usable_memory(root) == (GIB, "its cgroup's memory limit")


def test_a_cgroup_v1_memory_controller(tmp_path):
    root = _tree(
        tmp_path,
        {
            "proc/meminfo": MEMINFO,
            "proc/self/cgroup": "4:memory:/docker/abc\n3:cpuset:/\n",
            "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": str(2 * GIB),
            "sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes": str(GIB // 2),
            # The root's "no limit": 2**63 rounded down to a page.
            "sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712",
            "sys/fs/cgroup/memory/memory.usage_in_bytes": str(10 * GIB),
        },
    )
    assert usable_memory(root) == (3 * GIB // 2, "its cgroup's memory limit")


def test_a_cgroup_over_its_limit_leaves_nothing_and_nothing_readable_is_none(tmp_path):
    root = _tree(
        tmp_path / "a",
        {
            "proc/self/cgroup": "0::/\n",
            "sys/fs/cgroup/memory.max": str(GIB),
            "sys/fs/cgroup/memory.current": str(2 * GIB),
        },
    )
    assert usable_memory(root) == (0, "its cgroup's memory limit")
    assert usable_memory(tmp_path / "nothing") is None


def test_a_dense_table_past_the_usable_memory_is_refused_naming_the_limit(monkeypatch):
    t = np.arange(1000) % 40
    p = np.arange(1000) % 25
    assert fcm.contingency_matrix(t, p).shape == (40, 25)
    monkeypatch.setattr(given._native, "usable_memory", lambda: (4096, "its cgroup's memory limit"))
    with pytest.raises(MemoryError) as error:
        fcm.contingency_matrix(t, p)
    assert str(error.value) == (
        "a dense 40 x 25 contingency matrix of int64 needs 8,000 bytes, more than the 4,096 bytes"
        " this process may use (its cgroup's memory limit); use sparse=True"
    )
    assert fcm.contingency_matrix(t, p, sparse=True).shape == (40, 25)
