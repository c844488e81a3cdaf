"""The standardized mutual information: ours (exact) against fastami's Monte Carlo estimate,
accuracy and time side by side.

For n = 1e4, 1e5 and 1e6 samples (33 cell types of unequal sizes against 60 clusters, a small
share of the samples copied so that the value is a few standard deviations), this times
``fastcluster_metrics.standardized_mutual_info_score`` (from the labels: counting and the
measure; the best of three calls) and fastami 0.2.1's ``standardized_mutual_info_mc`` at
several precision goals (one call each, seeded), and prints a Markdown table: fastami's
estimate, the error it reports, and its actual error against our value.

fastami 0.2.1 needs scikit-learn < 1.3 (it passes an argument that scikit-learn 1.3 removed) and
so numpy < 2; it runs in its own environment, called as a subprocess::

    python -m venv /tmp/fa
    /tmp/fa/bin/pip install 'numpy<2' 'scikit-learn==1.2.2' fastami==0.2.1
    FASTAMI_PYTHON=/tmp/fa/bin/python python benches/smi_against_fastami.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import fastcluster_metrics as fcm

GOALS = (0.1, 0.01)
SIZES = (10**4, 10**5, 10**6)

_WORKER = """
import json, sys, time
import numpy as np
from fastami import standardized_mutual_info_mc
t, p = np.load(sys.argv[1]), np.load(sys.argv[2])
out = []
for goal in map(float, sys.argv[3:]):
    start = time.perf_counter()
    value, err = standardized_mutual_info_mc(t, p, seed=np.random.default_rng(0),
                                             precision_goal=goal)
    out.append([goal, float(value), float(err), time.perf_counter() - start])
print(json.dumps(out))
"""


def labels(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20)
    sizes = rng.dirichlet(np.full(33, 2.0))
    truth = rng.choice(33, n, p=sizes)
    pred = rng.integers(0, 60, n)
    copied = rng.random(n) < 3 / np.sqrt(n)
    pred = np.where(copied, truth * 7 % 60, pred)
    return truth, pred


def ours(truth: np.ndarray, pred: np.ndarray) -> tuple[float, float]:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        value = fcm.standardized_mutual_info_score(truth, pred)
        best = min(best, time.perf_counter() - start)
    return value, best


def fastami(python: str, truth: np.ndarray, pred: np.ndarray) -> list[list[float]]:
    with tempfile.TemporaryDirectory() as d:
        t, p = Path(d, "t.npy"), Path(d, "p.npy")
        np.save(t, truth)
        np.save(p, pred)
        args = [python, "-c", _WORKER, str(t), str(p), *map(str, GOALS)]
        result = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def main() -> None:
    python = os.environ.get("FASTAMI_PYTHON")
    if not python:
        sys.exit("set FASTAMI_PYTHON to a Python with fastami 0.2.1 (see this file's docstring)")
    print(f"{fcm.num_threads()} threads\n")
    print(
        "| n | ours | ours: time | fastami goal | fastami | reported error | actual error"
        " | fastami: time | time / ours |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in SIZES:
        truth, pred = labels(n)
        value, mine = ours(truth, pred)
        for goal, estimate, err, theirs in fastami(python, truth, pred):
            print(
                f"| {n:.0e} | {value:.6f} | {mine * 1e3:,.0f} ms | {goal} | {estimate:.4f} |"
                f" {err:.2g} | {abs(estimate - value):.2g} | {theirs * 1e3:,.0f} ms |"
                f" {theirs / mine:.2f} |"
            )


if __name__ == "__main__":
    main()
