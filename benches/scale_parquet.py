"""Scale: 2e8 labels streamed from Parquet in bounded memory, and the per-partition cost of the
Dask path (the figures behind benches/SCALE.md).

Not a pytest module (no ``test_`` prefix, no test functions); run it by hand::

    python benches/scale_parquet.py                      # 2e8 rows, int32 labels
    python benches/scale_parquet.py --labels categorical # string cell types, dictionary-encoded
    python benches/scale_parquet.py --dask               # also Dask on a 2-process LocalCluster
    python benches/scale_parquet.py --rows 2e6 --dask    # a quick check of the script

Steps: (1) write a Parquet file of ``--rows`` rows (truth: 33 cell types, pred: 60 clusters
correlated with it, 10 % noise) in row groups of ``--row-group-size`` rows, into a temporary
directory, keeping the exact expected table (``np.bincount`` per written chunk); (2) in a fresh
process, stream it with ``fastcluster_metrics.read_contingency`` and report wall time,
throughput and peak RSS (``resource.getrusage``), and assert the table equals the expected one;
(3) with ``--dask``, time one partition's count and merge in this process, then compute the
table with ``fastcluster_metrics.dask`` on ``distributed.LocalCluster`` (2 worker processes, 1
thread each) from ``dask.dataframe.read_parquet`` and report per-task times from the task
stream and each worker's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

N_TRUE, N_PRED = 33, 60
GENERATE_CHUNK = 10_000_000


def rss_now_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover - not Linux


def peak_rss_mib() -> float:
    """Peak RSS of this process. (Linux keeps ru_maxrss across exec: a child started by a big
    parent reports at least the parent's RSS at the fork; this script's parent stays small.)"""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def chunk(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    truth = rng.integers(0, N_TRUE, n, dtype=np.int32)
    pred = (truth * N_PRED // N_TRUE + rng.integers(0, 2, n, dtype=np.int32)).astype(np.int32)
    noise = rng.random(n) < 0.1
    pred[noise] = rng.integers(0, N_PRED, int(noise.sum()), dtype=np.int32)
    return truth, pred


def write_file(path: Path, rows: int, row_group_size: int, labels: str) -> np.ndarray:
    """Writes the file; returns the expected dense table (N_TRUE x N_PRED)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = pa.array([f"celltype_{i:02d}" for i in range(N_TRUE)])
    truth_type = pa.dictionary(pa.int32(), pa.string()) if labels == "categorical" else pa.int32()
    schema = pa.schema([("truth", truth_type), ("pred", pa.int32())])
    rng = np.random.default_rng(2024)
    expected = np.zeros(N_TRUE * N_PRED, dtype=np.int64)
    t0 = time.perf_counter()
    with pq.ParquetWriter(path, schema) as writer:
        done = 0
        while done < rows:
            n = min(GENERATE_CHUNK, rows - done)
            truth, pred = chunk(rng, n)
            expected += np.bincount(truth.astype(np.int64) * N_PRED + pred, minlength=expected.size)
            column: Any = pa.array(truth)
            if labels == "categorical":
                column = pa.DictionaryArray.from_arrays(column, names)
            writer.write_table(pa.table([column, pa.array(pred)], schema=schema), row_group_size)
            done += n
    print(
        f"wrote {rows:,} rows ({labels}) in {time.perf_counter() - t0:.1f} s:"
        f" {path.stat().st_size / 2**20:,.0f} MiB, {pq.ParquetFile(path).num_row_groups} row"
        f" groups of {row_group_size:,} rows",
        flush=True,
    )
    return expected.reshape(N_TRUE, N_PRED)


def stream(path: Path, expected_path: Path, batch_size: int, progress: bool) -> dict[str, Any]:
    """Runs in a fresh process: streams the file, checks the table, measures."""
    import pyarrow.parquet  # noqa: F401  (imported before the baseline: the reader needs it)

    import fastcluster_metrics as fcm

    baseline = rss_now_mib()
    t0 = time.perf_counter()
    table = fcm.read_contingency(path, "truth", "pred", batch_size=batch_size, progress=progress)
    seconds = time.perf_counter() - t0
    expected = np.load(expected_path)
    assert table.n == int(expected.sum())
    assert np.array_equal(table.to_numpy(), expected), "streamed table differs"
    t1 = time.perf_counter()
    ari = table.adjusted_rand_score()
    ami = table.adjusted_mutual_info_score()
    scores_seconds = time.perf_counter() - t1
    return {
        "rows": table.n,
        "seconds": seconds,
        "rows_per_second": table.n / seconds,
        "input_mib_per_second": table.n * 8 / seconds / 2**20,
        "rss_after_imports_mib": baseline,
        "peak_rss_mib": peak_rss_mib(),
        "batch_size": batch_size,
        "threads": fcm.num_threads(),
        "ari": ari,
        "ami": ami,
        "scores_seconds": scores_seconds,
    }


def partition_cost(path: Path, groups: int = 16) -> dict[str, Any]:
    """What one Dask task costs, on one thread, as the workers run it: the median over
    ``groups`` row groups of reading one (pyarrow) and counting it, and of a whole
    ``fastcluster_metrics.dask`` read task; the size of its pickled table; an 8-way merge."""
    os.environ["FASTCLUSTER_METRICS_NUM_THREADS"] = "1"  # before the pool starts, as workers
    import pyarrow.parquet as pq

    import fastcluster_metrics as fcm
    from fastcluster_metrics._io import stream as _stream
    from fastcluster_metrics.dask import _count, _read_task

    file = pq.ParquetFile(path, pre_buffer=False)
    rows = file.metadata.row_group(0).num_rows
    read, count, task = [], [], []
    for g in range(min(groups, file.num_row_groups)):
        t0 = time.perf_counter()
        group = file.read_row_group(g, columns=["truth", "pred"], use_threads=False)
        t1 = time.perf_counter()
        part = _count(group.column("truth"), group.column("pred"), "raise")
        t2 = time.perf_counter()
        _read_task(str(path), "parquet", "truth", "pred", 1 << 20, "raise", [g])
        t3 = time.perf_counter()
        read.append(t1 - t0)
        count.append(t2 - t1)
        task.append(t3 - t2)
    blob = pickle.dumps(part)
    parts = [part] * 8
    t4 = time.perf_counter()
    for _ in range(10):
        _stream.merge(parts)
    merge8 = (time.perf_counter() - t4) / 10
    return {
        "threads": fcm.num_threads(),
        "partition_rows": rows,
        "read_seconds": float(np.median(read)),
        "count_seconds": float(np.median(count)),
        "count_ns_per_label": float(np.median(count)) / rows * 1e9,
        "read_task_seconds": float(np.median(task)),
        "read_task_ns_per_label": float(np.median(task)) / rows * 1e9,
        "partial_bytes": len(blob),
        "partial_cells": part.nnz,
        "merge_of_8_seconds": merge8,
        "load_average": os.getloadavg(),
    }


def dask_run(path: Path, expected: np.ndarray, how: str, row_groups: int) -> dict[str, Any]:
    """The table on a fresh 2-worker LocalCluster, through a dask DataFrame (``how ==
    "dataframe"``, ``dd.read_parquet``) or fastcluster_metrics.dask.read_contingency."""
    import dask.dataframe as dd
    import distributed

    import fastcluster_metrics.dask as fcm_dask

    env = {"FASTCLUSTER_METRICS_NUM_THREADS": "1"}  # one core per worker: no oversubscription
    with (
        distributed.LocalCluster(
            processes=True,
            n_workers=2,
            threads_per_worker=1,
            dashboard_address=None,
            env=env,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        t0 = time.perf_counter()
        with distributed.get_task_stream(client) as tasks:
            if how == "dataframe":
                frame = dd.read_parquet(
                    path, columns=["truth", "pred"], split_row_groups=row_groups
                )
                table = fcm_dask.contingency(frame["truth"], frame["pred"])
            else:
                table = fcm_dask.read_contingency(
                    path, "truth", "pred", row_groups_per_task=row_groups
                )
        seconds = time.perf_counter() - t0
        assert np.array_equal(table.to_numpy(), expected), "Dask table differs"
        by_kind: dict[str, list[float]] = {}
        for task in tasks.data:
            key = task["key"][0] if isinstance(task["key"], tuple) else task["key"]
            kind = str(key).split("-")[0]
            compute = sum(
                s["stop"] - s["start"] for s in task["startstops"] if s["action"] == "compute"
            )
            by_kind.setdefault(kind, []).append(compute)
        worker_rss = client.run(peak_rss_mib)
    return {
        "how": how,
        "row_groups_per_partition": row_groups,
        "seconds": seconds,
        "rows_per_second": table.n / seconds,
        "task_seconds": {
            k: {"tasks": len(v), "mean": float(np.mean(v)), "total": float(np.sum(v))}
            for k, v in sorted(by_kind.items())
        },
        "worker_peak_rss_mib": sorted(worker_rss.values()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=2e8)
    parser.add_argument("--row-group-size", type=int, default=1 << 20)
    parser.add_argument("--batch-size", type=int, default=1 << 20)
    parser.add_argument("--labels", choices=["int32", "categorical"], default="int32")
    parser.add_argument(
        "--dir", type=Path, default=None, help="where to write (default: a temp dir)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the file")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--dask", action="store_true")
    parser.add_argument("--dask-row-groups", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--stream-child", nargs=2, metavar=("PARQUET", "EXPECTED"))
    parser.add_argument("--write-child", nargs=2, metavar=("PARQUET", "EXPECTED"))
    args = parser.parse_args()

    if args.write_child:
        path, expected_path = map(Path, args.write_child)
        np.save(expected_path, write_file(path, int(args.rows), args.row_group_size, args.labels))
        return
    if args.stream_child:
        path, expected_path = map(Path, args.stream_child)
        result = stream(path, expected_path, args.batch_size, not args.no_progress)
        print("RESULT " + json.dumps(result), flush=True)
        return

    rows = int(args.rows)
    workdir = Path(tempfile.mkdtemp(prefix="fcm-scale-", dir=args.dir))
    print(f"disk free in {workdir}: {shutil.disk_usage(workdir).free / 2**30:.1f} GiB")
    try:
        path = workdir / f"labels_{args.labels}.parquet"
        expected_path = workdir / "expected.npy"
        # Each step in its own process: the streaming one starts from a small parent.
        writer = [sys.executable, __file__, "--write-child", str(path), str(expected_path)]
        writer += ["--rows", str(rows), "--row-group-size", str(args.row_group_size)]
        subprocess.run([*writer, "--labels", args.labels], check=True)
        expected = np.load(expected_path)
        command = [sys.executable, __file__, "--stream-child", str(path), str(expected_path)]
        command += ["--batch-size", str(args.batch_size)]
        command += ["--no-progress"] if args.no_progress else []
        out = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout
        result = json.loads(out.split("RESULT ", 1)[1])
        print(
            f"streamed {result['rows']:,} rows in {result['seconds']:.2f} s:"
            f" {result['rows_per_second'] / 1e6:,.1f} M rows/s"
            f" ({result['input_mib_per_second']:,.0f} MiB/s of int32 pairs);"
            f" peak RSS {result['peak_rss_mib']:,.0f} MiB"
            f" ({result['rss_after_imports_mib']:,.0f} MiB after imports);"
            f" batch {result['batch_size']:,} rows, {result['threads']} threads;"
            f" ARI {result['ari']:.6f}, AMI {result['ami']:.6f} from the table in"
            f" {result['scores_seconds'] * 1e3:.1f} ms",
            flush=True,
        )
        if args.dask:
            cost = partition_cost(path)
            print("one partition, in process: " + json.dumps(cost), flush=True)
            for how in ("files", "dataframe"):
                for row_groups in args.dask_row_groups:
                    result = dask_run(path, expected, how, row_groups)
                    print("dask: " + json.dumps(result), flush=True)
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
