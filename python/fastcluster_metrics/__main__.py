"""``python -m fastcluster_metrics``: the main job on a built-in example.

Simulates a single-cell style annotation (a million cells, 33 cell types) and
three clusterings of it of decreasing quality, scores each with every metric,
and times the same scores with scikit-learn where it is installed.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import fastcluster_metrics as fcm

METRICS: dict[str, Callable[[Any, Any], Any]] = {
    "ARI": fcm.adjusted_rand_score,
    "Rand": fcm.rand_score,
    "AMI": fcm.adjusted_mutual_info_score,
    "NMI": fcm.normalized_mutual_info_score,
    "MI": fcm.mutual_info_score,
    "homogeneity": fcm.homogeneity_score,
    "completeness": fcm.completeness_score,
    "V-measure": fcm.v_measure_score,
    "FMI": fcm.fowlkes_mallows_score,
    "purity": fcm.purity_score,
}


def example(n: int, seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Cell types with skewed sizes, and clusterings that split and mislabel them."""
    rng = np.random.default_rng(seed)
    sizes = rng.dirichlet(np.full(33, 0.7))
    truth = rng.choice(33, size=n, p=sizes).astype(np.int64)
    clusterings = {}
    for name, noise in [("leiden_fine", 0.05), ("leiden_mid", 0.2), ("kmeans_poor", 0.5)]:
        pred = truth * 2 + rng.integers(0, 2, size=n)  # each type split in two clusters
        wrong = rng.random(n) < noise
        pred[wrong] = rng.integers(0, 66, size=int(wrong.sum()))
        clusterings[name] = pred
    return truth, clusterings


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m fastcluster_metrics", description=__doc__)
    parser.add_argument("-n", type=int, default=1_000_000, help="number of cells")
    parser.add_argument("--no-sklearn", action="store_true", help="skip the sklearn timing")
    args = parser.parse_args(argv)

    truth, clusterings = example(args.n)
    print(f"{args.n:,} cells, 33 cell types; threads: {fcm.num_threads()}\n")
    header = f"{'metric':<14}" + "".join(f"{name:>14}" for name in clusterings)
    print(header)
    print("-" * len(header))
    start = time.perf_counter()
    rows = {m: [f(truth, pred) for pred in clusterings.values()] for m, f in METRICS.items()}
    ours = time.perf_counter() - start
    for metric, values in rows.items():
        print(f"{metric:<14}" + "".join(f"{v:>14.6f}" for v in values))
    print(f"\nall {len(METRICS) * len(clusterings)} scores: {ours:.3f} s with fastcluster_metrics")

    if args.no_sklearn:
        return
    try:
        from sklearn.metrics import cluster as sk
    except ImportError:
        print("(install scikit-learn to compare: pip install scikit-learn)")
        return
    pred = clusterings["leiden_mid"]
    for metric, name in [("ARI", "adjusted_rand_score"), ("NMI", "normalized_mutual_info_score")]:
        t0 = time.perf_counter()
        theirs = getattr(sk, name)(truth, pred)
        t1 = time.perf_counter()
        mine = METRICS[metric](truth, pred)
        t2 = time.perf_counter()
        print(
            f"{metric} on leiden_mid: sklearn {theirs:.12f} in {t1 - t0:.3f} s,"
            f" ours {mine:.12f} in {t2 - t1:.4f} s ({(t1 - t0) / (t2 - t1):.0f}x faster)"
        )


if __name__ == "__main__":
    main()
