"""An .h5ad file with a 2 GB ``X`` is scored in obs-sized memory: the peak RSS (VmHWM) of the
command line on a file with X and on the same obs without X, each in a fresh process, with
anndata's own reader (``read_h5ad``, and ``backed="r"``) in the same run for scale.

    python benches/anndata_memory.py [--cells 200000] [--genes 2600] [--dir DIR]

Writes ``cells.h5ad`` (obs by anndata, then a dense float32 X of cells x genes written in
slices with h5py) and ``obs_only.h5ad`` in DIR (a temporary folder by default), prints one line
per reader, and exits 1 if the command line's peak RSS with X exceeds 1.25 times its peak
without X plus 25 MiB.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CHILD = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
start = time.perf_counter()
kind, path = sys.argv[1], sys.argv[2]
if kind == "cli":
    from fastcluster_metrics._cli.main import main
    status = main([path, "--truth", "cell_type", "--pred", "leiden", "--format", "json",
                   "-o", "/dev/null", "--no-progress"])
    assert status == 0
else:
    import anndata
    adata = anndata.read_h5ad(path, backed="r" if kind == "anndata-backed" else None)
    import fastcluster_metrics as fcm
    fcm.adjusted_rand_score(adata.obs["cell_type"], adata.obs["leiden"])
# VmHWM, not ru_maxrss: Linux keeps ru_maxrss across exec (the parent's, which wrote X).
with open("/proc/self/status") as status:
    hwm = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(json.dumps({"seconds": time.perf_counter() - start, "peak_mib": hwm / 1024}))
"""


def write(folder: Path, cells: int, genes: int) -> tuple[Path, Path]:
    import anndata
    import h5py
    import pandas as pd

    rng = np.random.default_rng(0)
    truth = rng.integers(0, 20, cells)
    leiden = np.where(rng.random(cells) < 0.8, truth, rng.integers(0, 30, cells))
    obs = pd.DataFrame(
        {
            "cell_type": pd.Categorical([f"type {t}" for t in truth]),
            "leiden": pd.Categorical(leiden.astype(str)),
        },
        index=[f"cell{i}" for i in range(cells)],
    )
    var = pd.DataFrame(index=[f"gene{j}" for j in range(genes)])
    obs_only = folder / "obs_only.h5ad"
    anndata.AnnData(obs=obs, var=var).write_h5ad(obs_only)
    with_x = folder / "cells.h5ad"
    anndata.AnnData(obs=obs, var=var).write_h5ad(with_x)
    with h5py.File(with_x, "r+") as f:
        if "X" in f:
            del f["X"]
        x = f.create_dataset("X", shape=(cells, genes), dtype="f4", chunks=(1000, genes))
        x.attrs["encoding-type"] = "array"
        x.attrs["encoding-version"] = "0.2.0"
        step = 10_000
        for lo in range(0, cells, step):
            hi = min(lo + step, cells)
            x[lo:hi] = rng.random((hi - lo, genes), dtype=np.float32)
    return with_x, obs_only


def measure(kind: str, path: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(path)], capture_output=True, text=True
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1]}  # type: ignore[dict-item]
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=200_000)
    parser.add_argument("--genes", type=int, default=2_600)
    parser.add_argument("--dir", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or Path(tmp)
        start = time.perf_counter()
        with_x, obs_only = write(folder, args.cells, args.genes)
        gigabytes = args.cells * args.genes * 4 / 1e9
        print(
            f"{args.cells:,} cells x {args.genes:,} genes: X {gigabytes:.2f} GB; cells.h5ad"
            f" {with_x.stat().st_size / 2**20:,.0f} MiB, obs_only.h5ad"
            f" {obs_only.stat().st_size / 2**20:,.1f} MiB (written in"
            f" {time.perf_counter() - start:.0f} s)"
        )
        rows = [
            ("fastcluster-metrics CLI, obs only", measure("cli", obs_only)),
            ("fastcluster-metrics CLI, with X", measure("cli", with_x)),
            ("anndata.read_h5ad(backed='r'), with X", measure("anndata-backed", with_x)),
            ("anndata.read_h5ad, with X", measure("anndata", with_x)),
        ]
    for name, result in rows:
        if "error" in result:
            print(f"{name:40s} failed: {result['error']}")
        else:
            print(f"{name:40s} peak RSS {result['peak_mib']:8,.0f} MiB  {result['seconds']:6.2f} s")
    bare, full = rows[0][1], rows[1][1]
    ok = "error" not in full and full["peak_mib"] <= 1.25 * bare["peak_mib"] + 25
    print("obs-sized memory:", "yes" if ok else "NO")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
